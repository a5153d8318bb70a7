"""Issue 12, "a first hour without a stumble": one regression test per numbered defect."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dokobot.config import load_config


def _run(*args: str, stdin: str = "", cwd: Path | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("DOKOBOT_DISCORD_TOKEN", "DOKOBOT_CONFIG")}
    return subprocess.run([sys.executable, "-m", "dokobot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**base, **(env or {})})  # fmt: skip


# ---------------------------------------------------------------- 4, 19: command line
def test_4_plain_dokobot_accepts_config(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("language: de\n")
    res = _run("--config", str(cfg), stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "invalid choice" not in res.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("bots:\n  level: hard\n")
    res = _run("--config", str(bad), cwd=tmp_path)
    assert res.returncode == 2 and "bots.level" in res.stderr


def test_19_export_does_not_create_a_store(tmp_path: Path) -> None:
    res = _run("export", "console", cwd=tmp_path)
    assert res.returncode == 1
    assert "no store" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_19_unrelated_config_yaml_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("database:\n  url: postgres://x\nworkers: 4\n")
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        config = load_config(None)
    finally:
        os.chdir(cwd)
    assert config.source == "(defaults)"
    res = _run(stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "not a dokobot configuration" in res.stderr
    # A config.yaml with dokobot's keys is still read, and still checked.
    (tmp_path / "config.yaml").write_text("bots:\n  level: hard\n")
    res = _run(stdin="/quit\n", cwd=tmp_path)
    assert res.returncode == 2 and "bots.level" in res.stderr


# ---------------------------------------------------------------- 9, 17: the console
def test_17_console_does_not_ask_for_start_and_quits_at_ctrl_c() -> None:
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "dokobot.cli", "console", "--seed", "3",
                             "--level", "random", "--players", "anna"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(0.5)
    deadline = time.monotonic() + 60
    # Wait until the game is dealt (the console prompts then), then press Ctrl-C.
    assert proc.stdout is not None
    seen = ""
    while "Healthy or reservation?" not in seen and time.monotonic() < deadline:
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("Ctrl-C did not quit the console") from None
    out = seen + out
    assert "Type /start to deal" not in out
    assert "Game 1:" in out
    assert "abandoned" in out
    assert "Traceback" not in err
    assert proc.returncode == 130


def test_9_console_lang_sets_table_and_player_language() -> None:
    res = _run("console", "--seed", "3", "--level", "random", "--players", "anna", "--lang",
               "de", stdin="/hilfe\n/quit\n")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "Konsole" in res.stdout and "console." not in res.stdout
    assert "Spiel 1:" in res.stdout and "Deine Karten" in res.stdout
    # /lang in the console changes everything on the one screen, public lines too.
    res = _run("console", "--seed", "3", "--level", "random", "--players", "anna",
               stdin="/lang de\n/gesund\n/quit\n")  # fmt: skip
    assert res.returncode == 0, res.stderr
    after = res.stdout.split("Deutsch", 1)[1]
    assert "anna: gesund." in after
    assert "healthy" not in after
