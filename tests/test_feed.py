"""`dokobot feed`: exactly once across restarts, with odd names and computer players."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from feed_harness import feed, kill_after_acks

from dokobot import cli
from dokobot.host.feed import CHANNEL
from dokobot.host.replay import Replayer
from dokobot.host.service import default_bot_factory
from dokobot.host.table import command_for
from dokobot.store import SqliteStore

NAMES = ("anna", "ben", "carl", "dora")


def _results(out: str) -> list[dict[str, object]]:
    return [json.loads(x) for x in out.splitlines() if x.startswith("{")]


def _play_script(head: list[str], people: set[str], games: int, bots: bool) -> list[str]:
    """``head`` followed by legal moves of the people (computer players move by
    themselves) until ``games`` games are over."""
    rep = Replayer(bot_factory=default_bot_factory() if bots else None)
    rep.run_lines(head)
    script = list(head)
    starter = next(line.rsplit(": /join", 1)[0] for line in head if line.endswith("/join"))
    for _ in range(games):
        script.append(f"{starter}: /start")
        rep.run_lines(script[-1:])
        game = rep.table.game
        assert game is not None
        while rep.table.running:
            seat = game.turn
            name = rep.table.seats[seat].name
            assert name in people or not bots
            line = f"{_quoted(head, seat, rep)}: {command_for(game.legal_actions()[0])}"
            script.append(line)
            rep.run_lines([line])
    assert not rep.failures
    return script


def _quoted(head: list[str], seat: int, rep: Replayer) -> str:
    """The name as the script wrote it at /join (the table may have cleaned it)."""
    joins = [line.rsplit(": /join", 1)[0] for line in head if line.endswith(": /join")]
    return joins[seat]


def _straight(script: list[str], bots: bool) -> list[dict[str, object]]:
    rep = Replayer(bot_factory=default_bot_factory() if bots else None)
    rep.run_lines(script)
    return rep.results()


def test_odd_names_fed_in_two_halves_equal_the_straight_replay(tmp_path: Path) -> None:
    head = ["!seed 31", '"Dr: Who": /join', '"!bang": /join', '"x;y=z": /join',
            '"max (dm)": /join']  # fmt: skip
    people = {"Dr: Who", "!bang", "x;y=z", "max (dm)"}
    script = _play_script(head, people, games=1, bots=False)
    expected = _straight(script, bots=False)
    assert len(expected) == 1
    path = tmp_path / "s.doko"
    half = len(script) // 2
    path.write_text("\n".join(script[:half]) + "\n")
    store = tmp_path / "s.sqlite3"
    first = feed(path, store, 1)
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert out.splitlines()[-1] == f"ACK {half}"
    path.write_text("\n".join(script) + "\n")
    rest = feed(path, store, half + 1)
    out, err = rest.communicate(timeout=120)
    assert rest.returncode == 0, err
    assert _results(out) == expected


def _crash_run(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    head = [f"!seed {seed}", "anna: /join", "anna: /join bot random", "anna: /join bot random",
            "anna: /join bot random"]  # fmt: skip
    script = _play_script(head, {"anna"}, games=2, bots=True)
    expected = _straight(script, bots=True)
    path = tmp_path / f"crash{seed}.doko"
    path.write_text("\n".join(script) + "\n")
    store = tmp_path / f"crash{seed}.sqlite3"
    acked = 0
    for _ in range(60):
        proc = feed(path, store, acked + 1)
        target = rng.randint(1, 12)
        lines_out, run_acked, _ = kill_after_acks(proc, target, rng, 0.005)
        acked = max(acked, run_acked)
        if proc.returncode == 0:
            assert acked == len(script)
            assert _results("".join(lines_out)) == expected, f"seed {seed}"
            return
    raise AssertionError(f"seed {seed}: the feed never finished")


@pytest.mark.long
def test_crash_with_computer_players_seated(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Killed at random points while computer players are seated, resumed with ``--from``:
    the resumed computer players move before the next line, so no line is refused and the
    results are those of the uninterrupted run (one seed: two games, about five kills;
    ``--slow``: 50 seeds in a row)."""
    seeds = 50 if request.config.getoption("--slow") else 1
    for seed in range(1, seeds + 1):
        _crash_run(tmp_path, seed)


def test_feed_resumes_a_table_that_rests_at_its_checkpoint(tmp_path: Path) -> None:
    """The first run ends right after a game: on restart the table is in the store only
    (its checkpoint); the feed loads it instead of starting an empty one."""
    head = ["!seed 5", "anna: /join", "ben: /join", "carl: /join", "dora: /join"]
    script = _play_script(head, {"anna", "ben", "carl", "dora"}, games=2, bots=False)
    second = max(i for i, line in enumerate(script) if line.endswith(": /start"))
    script.insert(second, "!dealer anna")  # (who deals anyway) the first line after restart
    expected = _straight(script, bots=False)
    path = tmp_path / "s.doko"
    path.write_text("\n".join(script[:second]) + "\n")
    store = tmp_path / "s.sqlite3"
    first = feed(path, store, 1)
    assert first.wait(timeout=120) == 0
    path.write_text("\n".join(script) + "\n")
    rest = feed(path, store, second + 1)
    out, err = rest.communicate(timeout=120)
    assert rest.returncode == 0, err
    assert _results(out) == expected and len(expected) == 2


def test_a_store_fed_by_another_script_is_refused_and_a_feed_that_adds_nothing_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def script(seed: int, name: str) -> Path:
        head = [f"!seed {seed}", "anna: /join", "ben: /join", "carl: /join", "dora: /join"]
        path = tmp_path / name
        path.write_text("\n".join(_play_script(head, set(NAMES), 1, bots=False)) + "\n")
        return path

    first, other = script(5, "a.doko"), script(6, "b.doko")
    store = tmp_path / "s.sqlite3"
    assert cli.main(["feed", str(first), "--store", str(store)]) == 0
    capsys.readouterr()
    stored = _journal(store)

    assert cli.main(["feed", str(other), "--store", str(store)]) == 1
    out, err = capsys.readouterr()
    assert "ACK" not in out and "holds the lines 1–" in err and "another script" in err
    assert _journal(store) == stored

    assert cli.main(["feed", str(first), "--store", str(store)]) == 0
    out, err = capsys.readouterr()
    lines = first.read_text().splitlines()
    assert out.split() == [w for n in range(1, len(lines) + 1) for w in ("ACK", str(n))]
    assert "nothing was added" in err
    assert _journal(store) == stored


def _journal(path: Path) -> list[str]:
    store = SqliteStore(path, readonly=True)
    try:
        return store.load_journal(CHANNEL)
    finally:
        store.close()
