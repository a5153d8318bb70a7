"""The command line: replay failures, console, config errors, export."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dokobot.cli import main
from dokobot.config import ConfigError, load_config, parse_config


def _run(
    *args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dokobot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def test_replay_expectation_failure_exits_1_and_shows_difference(tmp_path: Path) -> None:
    f = tmp_path / "t.doko"
    f.write_text("anna: /join\n> anna joined\nben: /join\n> carl joined\n")
    res = _run("replay", str(f), "-q")
    assert res.returncode == 1
    assert "line 4" in res.stderr and "carl joined" in res.stderr and "ben joined" in res.stderr


def test_replay_malformed_line_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "t.doko"
    f.write_text("anna: /join\n!deal nonsense\n")
    res = _run("replay", str(f))
    assert res.returncode == 2 and "line 2" in res.stderr


def test_replay_garbage_bytes_do_not_crash(tmp_path: Path) -> None:
    f = tmp_path / "t.doko"
    f.write_bytes(
        b"anna: /join\nanna: /pl\xff\xfeay \x00\x01\n> No game is running\nanna: /\xc3\x28\xa0\xa1\n> Unknown command\n"
    )
    res = _run("replay", str(f), "-q")
    assert res.returncode == 0, res.stderr


def test_console_plays_against_computer_players() -> None:
    res = _run(
        "console",
        "--seed",
        "4",
        "--level",
        "random",
        "--players",
        "anna",
        stdin="/healthy\n/hand\n/table\n/score\n/quit\n",
    )
    assert res.returncode == 0, res.stderr
    assert "Computer player Bot1" in res.stdout
    assert "Your hand:" in res.stdout
    assert "anna: healthy." in res.stdout


def test_console_takes_commands_without_the_slash_and_answers_every_line() -> None:
    res = _run(
        "console",
        "--seed",
        "4",
        "--level",
        "random",
        "--players",
        "anna",
        stdin="help\ntable\nhello there\nCQ\nHealthy\n/quit\n",
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Commands:" in out and "Seats: anna" in out  # help and table without the /
    # a chat line and a card before the card play have no other answer: a hint each
    assert out.count("Commands start with /") == 2
    assert "anna: healthy." in out
    de = _run(
        "console", "--seed", "4", "--level", "random", "--lang", "de", stdin="hallo\n/beenden\n"
    )
    assert "Befehle beginnen mit /" in de.stdout


def test_console_two_local_players() -> None:
    res = _run(
        "console",
        "--players",
        "anna",
        "ben",
        "--level",
        "random",
        stdin="anna: /hand\nben: /hand\n/quit\n",
    )
    assert res.returncode == 0, res.stderr
    assert "[anna] Your hand" in res.stdout and "[ben] Your hand" in res.stdout
    # a name may hold a colon: the longest local name before a colon is the speaker
    odd = _run("console", "--players", "Dr", "Dr: Who", "--bots", "2", "--seed", "2",
               stdin="Dr: Who: /hand\nDr : /hand\n/quit\n")  # fmt: skip
    assert odd.returncode == 0, odd.stderr
    asked = odd.stdout.split("> ")[1:3]  # the answers to the two lines
    assert "[Dr: Who] Your hand" in asked[0] and "[Dr] Your hand" in asked[1], odd.stdout


def test_output_read_by_nobody_ends_quietly() -> None:
    """``dokobot console | head``: when the reader of the output has gone, the console stops
    with exit code 1 and no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "dokobot.cli", "console", "--seed", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.close()  # nobody reads: the first line written fails with EPIPE
    _, err = proc.communicate("/quit\n", timeout=120)
    assert "Traceback" not in err, err
    assert proc.returncode == 1, err


def test_default_command_without_chat_starts_console(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DOKOBOT_DISCORD_TOKEN"}
    res = subprocess.run(
        [sys.executable, "-m", "dokobot.cli"],
        input="/quit\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    assert "dokobot console" in res.stdout


def test_malformed_config_names_key_and_line(tmp_path: Path) -> None:
    cfg = tmp_path / "dokobot.yaml"
    cfg.write_text("language: en\nbots:\n  level: hard\n")
    try:
        load_config(str(cfg))
    except ConfigError as exc:
        assert "line 3" in str(exc) and "bots.level" in str(exc)
    else:
        raise AssertionError("expected a ConfigError")
    res = _run("run", "--config", str(cfg))
    assert res.returncode == 2 and "bots.level" in res.stderr
    assert "Traceback" not in res.stderr
    # a config that is missing, or a folder, says which of the two
    for path, said in ((tmp_path / "typo.yaml", "no such file"), (tmp_path, "not a file")):
        res = _run("run", "--config", str(path))
        assert res.returncode == 2 and f"{path}: {said}" in res.stderr, res.stderr


def test_config_unknown_key_and_bad_yaml() -> None:
    for text, needle in (
        ("foo: 1\n", "foo: unknown key"),
        ("a: [\n", "not valid YAML"),
        ("\x00\x01", "not valid YAML"),
        ("store: 3\n", "store"),
    ):
        try:
            parse_config(text, env={})
        except ConfigError as exc:
            assert needle in str(exc)
        else:
            raise AssertionError(text)


def test_token_from_environment_only() -> None:
    cfg = parse_config("discord:\n  sharded: true\n", env={"DOKOBOT_DISCORD_TOKEN": "s3cret"})
    assert cfg.discord is not None and cfg.discord.token == "s3cret" and cfg.discord.sharded
    assert "s3cret" not in repr(parse_config("", env={}))


def test_export_from_store(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    script = tmp_path / "t.doko"
    script.write_text("anna: /join\nben: /join\ncarl: /join\ndora: /join\nanna: /start\n")
    subprocess.run(
        [sys.executable, "-m", "dokobot.cli", "feed", str(script), "--store", str(store)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"store:\n  path: {store}\n")
    res = _run("export", "feed", "--config", str(cfg))
    assert res.returncode == 0, res.stderr
    # the game is running: it is left out (no hands), and no deal seed is ever exported
    assert "anna: /join" in res.stdout and "the running game is left out" in res.stdout
    assert "!deal" not in res.stdout and "!seed" not in res.stdout
    assert "anna: /start" not in res.stdout
    exported = tmp_path / "e.doko"
    exported.write_text(res.stdout + "anna: /table\n> dora\n")
    assert main(["replay", str(exported), "-q"]) == 0


def test_export_while_the_bot_holds_the_store(tmp_path: Path) -> None:
    from dokobot.host.journal import Record
    from dokobot.store import SqliteStore

    path = tmp_path / "s.db"
    store = SqliteStore(path)  # as the running bot holds it
    try:
        store.append("c", [Record("cmd", user="7", name="Dr: Who", text="/join").encode()])
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"store:\n  path: {path}\n")
        res = _run("export", "c", "--config", str(cfg))
        assert res.returncode == 0, res.stderr
        assert '"Dr: Who": /join' in res.stdout
        assert store.channels() == ["c"]
    finally:
        store.close()
    missing = tmp_path / "m.yaml"
    missing.write_text(f"store:\n  path: {tmp_path / 'none.db'}\n")
    res = _run("export", "c", "--config", str(missing))
    assert res.returncode == 2 and "no store" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "none.db").exists()


def test_replays_make_strong_computer_players_decide_by_work_not_time() -> None:
    """A replay file whose computer players decide for themselves gives the same transcript
    on every run and machine: the strong level does a fixed amount of work there."""
    from dokobot.cli import _bot_factory

    factory = _bot_factory()
    assert factory is not None
    assert factory("strong", 7, False).fixed is True  # type: ignore[attr-defined]


def test_a_seed_of_5000_digits_is_refused_with_a_message(tmp_path: Path) -> None:
    f = tmp_path / "t.doko"
    f.write_text("!seed " + "7" * 5000 + "\nanna: /join\n")
    for argv in (["replay", str(f)], ["feed", str(f), "--store", str(tmp_path / "s.db")]):
        res = _run(*argv)
        assert res.returncode in (1, 2), res.stderr
        assert "Traceback" not in res.stderr
        assert "line 1" in res.stderr and "!seed needs a number of at most 40 digits" in res.stderr
    ok = tmp_path / "ok.doko"
    ok.write_text("!seed " + "7" * 40 + "\nanna: /join\n")
    assert _run("replay", str(ok), "-q").returncode == 0


def test_feed_refuses_a_file_that_is_not_utf8_and_feeds_nothing(tmp_path: Path) -> None:
    f = tmp_path / "t.doko"
    f.write_bytes(b"anna: /join\nben: /join \xff\xfe\n")
    store = tmp_path / "s.db"
    res = _run("feed", str(f), "--store", str(store))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == (
        f"dokobot feed: {f} is not UTF-8 text (byte 0xff on line 2); save it as UTF-8. "
        "Nothing was fed"
    )
    assert not store.exists() and "ACK" not in res.stdout
    res = _run("feed", str(tmp_path / "nothing.doko"), "--store", str(store))
    assert res.returncode == 2 and "cannot read" in res.stderr and "Traceback" not in res.stderr


def test_console_seats_five_and_says_who_sits_out(tmp_path: Path) -> None:
    # RULES §12.9 at the console: two local players, three computer players fill five seats
    config = tmp_path / "dokobot.yaml"
    config.write_text("tables:\n  seats: 5\n", encoding="utf-8")
    res = _run(
        "console", "--config", str(config), "--seed", "4", "--level", "random",
        "--players", "anna", "ben",
        stdin="anna: /hand\nben: /hand\n/table\n/quit\n",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Computer player Bot3 (random) joined (5/5)" in out
    assert "Sitting out this game: Bot3." in out  # the last seat deals first
    assert "[anna] Your hand" in out and "[ben] Your hand" in out
    six = _run("console", "--config", str(config), "--players", "a", "b", "c", "d", "e", "f")
    assert six.returncode == 2 and "one to 5 different player names" in six.stderr


def test_the_command_line_starts_without_numpy() -> None:
    """numpy (the strong level's learned model, :mod:`dokobot.ai.inference`) is imported when
    a computer player first uses the model, not by every ``dokobot`` process at its start
    (about 0.15 s of CPU each: the tests and benches start hundreds of them)."""
    code = (
        "import sys, dokobot.cli, dokobot.runner\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy'))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_console_sets_table_options_before_its_first_deal() -> None:
    # The console deals at once, where /option is refused until the game ends: --option
    # sets the table's options before it (hints: off by default)
    res = _run("console", "--seed", "14", "--option", "hints=on", stdin="/healthy\n/hint\n/quit\n")
    assert res.returncode == 0, res.stderr
    assert "Hint: " in res.stdout and "Hints are off" not in res.stdout
    for bad, said in (("zzz=1", "unknown option zzz"), ("hints", "NAME=VALUE"),
                      ("hints=maybe", "on or off")):  # fmt: skip
        refused = _run("console", "--option", bad, stdin="/quit\n")
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
        assert "Game 1" not in refused.stdout
