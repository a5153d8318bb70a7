"""Issue 38, item 8: `dokobot run` refuses a store path that names no store (unless asked to
make one) and a configuration without a chat; plain `dokobot` still plays in the console."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dokobot.cli import _new_store_refusal
from dokobot.config import parse_config

IRC = "irc:\n  host: 127.0.0.1\n  port: 9\n  channels: ['#doko']\n"


def _run(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DOKOBOT_DISCORD_TOKEN", "DOKOBOT_CONFIG")
    }
    return subprocess.run([sys.executable, "-m", "dokobot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, cwd=cwd,
                          env=env)  # fmt: skip


def test_run_with_a_mistyped_store_path_refuses_and_makes_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "dokobt.sqlite3"
    config = tmp_path / "c.yaml"
    config.write_text(f"store:\n  path: {typo}\n{IRC}")
    res = _run("run", "--config", str(config), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert str(typo) in res.stderr and "--new-store" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


def test_a_new_store_is_made_only_when_asked_and_in_a_folder_that_exists(tmp_path: Path) -> None:
    new = parse_config(f"store:\n  path: {tmp_path / 'new.sqlite3'}\n{IRC}", env={}, source="c")
    assert "no store at" in _new_store_refusal(new, asked=False)
    assert _new_store_refusal(new, asked=True) == ""
    lost = parse_config(f"store:\n  path: {tmp_path / 'no' / 'x.db'}\n{IRC}", env={}, source="c")
    assert "no folder" in _new_store_refusal(lost, asked=True)
    (tmp_path / "old.sqlite3").write_bytes(b"")
    old = parse_config(f"store:\n  path: {tmp_path / 'old.sqlite3'}\n{IRC}", env={}, source="c")
    assert _new_store_refusal(old, asked=False) == ""
    memory = parse_config(f"store:\n  path: ':memory:'\n{IRC}", env={}, source="c")
    assert _new_store_refusal(memory, asked=False) == ""


def test_run_without_a_chat_says_so_and_fails_but_plain_dokobot_plays(tmp_path: Path) -> None:
    res = _run("run", cwd=tmp_path)
    assert res.returncode == 2 and "no chat is configured" in res.stderr, res.stderr
    assert res.stdout == ""
    res = _run(cwd=tmp_path, stdin="/quit\n")  # the README's first command
    assert res.returncode == 0, res.stderr
    assert "Bot1" in res.stdout and "no chat" not in res.stderr
    assert list(tmp_path.iterdir()) == []
