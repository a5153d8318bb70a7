"""Every example block of the README and of the pages in docs/ runs as shown.

Blocks are fenced with a language: ``doko`` (a replay file: replayed, every expected output
must come), ``sh`` (shell: every ``dokobot`` command that needs no network is run in a
folder holding the replay example of docs/replays.md as ``example.doko``), ``yaml`` (a
configuration: parsed), ``python`` (compiled) or ``text`` (a picture or a transcript, nothing to run).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dokobot.host.replay import Replayer

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", flags=re.S | re.M)
BLOCKS = [block for page in PAGES for block in FENCE.findall(page.read_text(encoding="utf-8"))]
# The replay example that the shell examples call example.doko.
EXAMPLE = FENCE.findall((ROOT / "docs" / "replays.md").read_text(encoding="utf-8"))
DOKO = [body for lang, body in BLOCKS if lang == "doko"]
SHELL = [body for lang, body in BLOCKS if lang == "sh"]
YAML = [body for lang, body in BLOCKS if lang == "yaml"]
PLACEHOLDER = re.compile(r"[A-Z]{3,}|…")


def _dokobot_commands() -> list[str]:
    """`dokobot …` commands of the shell blocks that run without a network or placeholders."""
    found = []
    for body in SHELL:
        for line in body.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("#"):
                continue
            for part in re.split(r"&&|;", line):
                words = shlex.split(part)
                if not words or words[0] != "dokobot":
                    continue
                if "run" in words[1:2] or PLACEHOLDER.search(part):
                    continue
                found.append(part.strip())
    return found


def test_every_block_has_a_known_kind() -> None:
    assert BLOCKS, "no example blocks found"
    assert {lang for lang, _ in BLOCKS} <= {"doko", "sh", "text", "yaml", "python"}
    assert DOKO and SHELL


@pytest.mark.parametrize(
    "body", [b for lang, b in BLOCKS if lang == "python"], ids=lambda b: b.splitlines()[0][:30]
)
def test_python_examples_compile(body: str) -> None:
    compile(body, "<docs>", "exec")


@pytest.mark.parametrize("body", YAML, ids=lambda b: b.splitlines()[0][:30])
def test_config_examples_are_valid_configs(body: str) -> None:
    from dokobot.config import parse_config

    parse_config(body, env={})  # raises ConfigError naming the key and line if not


@pytest.mark.parametrize("body", DOKO, ids=lambda b: b.splitlines()[1][:30])
def test_replay_examples_run(body: str) -> None:
    rep = Replayer()
    rep.run_text(body)
    assert [str(f) for f in rep.failures] == []
    assert len(rep.transcript) > 0


def test_shell_examples_run(tmp_path: Path) -> None:
    commands = _dokobot_commands()
    assert any(c == "dokobot" for c in commands), commands
    (tmp_path / "example.doko").write_text(
        next(body for lang, body in EXAMPLE if lang == "doko"), encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("DOKOBOT_DISCORD_TOKEN", "DOKOBOT_CONFIG")}  # fmt: skip
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    for command in commands:
        words = shlex.split(command)
        res = subprocess.run([sys.executable, "-m", "dokobot.cli", *words[1:]], input="/quit\n",
                             capture_output=True, text=True, timeout=120, cwd=tmp_path,
                             env=env)  # fmt: skip
        assert res.returncode == 0, (command, res.stderr)
        assert "Traceback" not in res.stderr, command


def test_readme_says_how_to_install_the_test_extra() -> None:
    assert "pip install -e '.[test]'" in README
    top = README.split("\n## ", 1)[0]
    sh = re.findall(r"^```sh\n(.*?)^```$", top, flags=re.S | re.M)
    commands = [ln for ln in sh[0].splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(commands) == 2, commands


def test_readme_is_short_and_links_every_page() -> None:
    assert len(README.splitlines()) <= 200
    linked = set(re.findall(r"\]\((docs/[^)#]+)", README))
    pages = {str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")} - {"docs/index.md"}
    assert pages <= linked, pages - linked


def test_readme_command_table_is_the_one_of_the_playing_page() -> None:
    def rows(text: str) -> list[str]:
        table = re.search(r"^\| command \|.*?(?=\n\n)", text, flags=re.S | re.M)
        assert table is not None
        return [re.sub(r"\]\([^)]*\)", "]", row) for row in table.group(0).splitlines()]

    assert rows(README) == rows((ROOT / "docs" / "playing.md").read_text(encoding="utf-8"))


def test_the_json_keys_documented_are_the_keys_a_replay_prints() -> None:
    page = (ROOT / "docs" / "replays.md").read_text(encoding="utf-8")
    documented = re.search(r"With `--json` every finished game.*?\n\n", page, flags=re.S)
    assert documented is not None
    rep = Replayer()
    rep.run_text((ROOT / "tests" / "data" / "default-1.doko").read_text(encoding="utf-8"))
    results = rep.results()
    assert results, "the replay finished no game"
    keys = set(results[0])
    named = set(re.findall(r"`(\w+)`", documented.group(0)))
    assert keys <= named, keys - named
