"""The 76 conformance games of tests/data, replayed through the whole host."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import CONFORMANCE

from dokobot.host.replay import Replayer

KEYS = ("type", "solo", "mandatory_solo", "re", "kontra", "eyes", "winner", "scores")
FILES = sorted(CONFORMANCE.glob("*.doko"))


def _norm(key: str, value: object) -> object:
    return sorted(value) if key in ("re", "kontra") and isinstance(value, list) else value


def test_conformance_files_present() -> None:
    assert len(FILES) >= 3, f"no conformance games found in {CONFORMANCE}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_conformance_file(path: Path) -> None:
    expected = [json.loads(line) for line in path.with_suffix(".expected.jsonl").open()]
    rep = Replayer()
    rep.run_text(path.read_text(encoding="utf-8"))
    got = rep.results()
    assert len(got) == len(expected)
    for exp, res in zip(expected, got, strict=True):
        for key in KEYS:
            assert _norm(key, res[key]) == _norm(key, exp[key]), (exp["game"], key)
        assert sum(res["scores"].values()) == 0


def test_replay_cli_json() -> None:
    path = CONFORMANCE / "forced-1.doko"
    out = subprocess.run(
        [sys.executable, "-m", "dokobot.cli", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 4
    keys = {
        "game",
        "dealer",
        "type",
        "solo",
        "mandatory_solo",
        "declarer",
        "re",
        "kontra",
        "eyes",
        "tricks",
        "calls",
        "winner",
        "cancelled",
        "components",
        "scores",
        "totals",
        "multiplier",  # RULES §12.4: 1, or 2 in a bock game
    }
    assert all(set(obj) == keys for obj in lines)
    assert {obj["multiplier"] for obj in lines} == {1}
    expected = [json.loads(line) for line in path.with_suffix(".expected.jsonl").open()]
    totals = {n: sum(e["scores"][n] for e in expected) for n in ("anna", "ben", "carl", "dora")}
    assert lines[-1]["totals"] == totals
