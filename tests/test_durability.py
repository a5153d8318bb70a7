"""Durability: a bot killed with SIGKILL at random points resumes every game exactly."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from feed_harness import feed, kill_after_acks
from testdata import CONFORMANCE

from dokobot.host.events import Input
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.store import SqliteStore


def _script(tmp_path: Path, games: int) -> tuple[Path, list[str]]:
    lines = (CONFORMANCE / "tournament-2.doko").read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith(": /start")]
    cut = starts[games] if games < len(starts) else len(lines)
    path = tmp_path / "script.doko"
    path.write_text("\n".join(lines[:cut]) + "\n")
    return path, lines[:cut]


def _expected(script: Path) -> list[dict[str, object]]:
    rep = Replayer()
    rep.run_text(script.read_text())
    return rep.results()


@pytest.mark.long
def test_sigkill_at_random_points_loses_nothing(tmp_path: Path, store_location: str) -> None:
    """On SQLite and on PostgreSQL (where each restart takes over the lease of the killed
    process at once: its connections are gone)."""
    script, lines = _script(tmp_path, games=3)
    expected = _expected(script)
    assert len(expected) == 3
    store = store_location
    rng = random.Random(2026)
    acked = 0
    kills = 0
    for _ in range(40):
        proc = feed(script, store, acked + 1)
        # Kill after a random number of acknowledged lines (and a random extra delay).
        target = rng.randint(5, 60)
        lines_out, run_acked, killed = kill_after_acks(proc, target, rng, 0.01)
        kills += killed
        acked = max(acked, run_acked)
        if proc.returncode == 0:
            results = [json.loads(x) for x in lines_out if x.startswith("{")]
            break
    else:
        raise AssertionError("the feed never finished")
    assert kills >= 3, "the test should have killed the bot several times"
    assert acked == len(lines)
    assert results == expected


def test_a_durable_line_whose_ack_was_lost_is_not_applied_twice(tmp_path: Path) -> None:
    """Killed after a line is durable but before its ACK: the restart is told to begin at
    that line again, and must skip it. The line chosen is legal twice (dora holds both ♥10
    and leads again after winning with the first)."""
    script, lines = _script(tmp_path, games=2)
    expected = _expected(script)
    n = next(i for i, line in enumerate(lines, 1) if line == "dora: /play H10")
    n = next(i for i, line in enumerate(lines, 1) if i > n and line == "dora: /play H10")
    first = tmp_path / "first.doko"
    first.write_text("\n".join(lines[:n]) + "\n")
    store = tmp_path / "dokobot.sqlite3"
    ran = subprocess.run(
        [sys.executable, "-m", "dokobot.cli", "feed", str(first), "--store", str(store)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert ran.stdout.splitlines()[-1] == f"ACK {n}"
    proc = feed(script, store, n)  # as if "ACK n" had never been printed
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert [json.loads(x) for x in out.splitlines() if x.startswith("{")] == expected


def test_restart_restores_tables_exactly(tmp_path: Path) -> None:
    """Seats, options, hands, trick, calls, whose turn and the score list come back."""

    async def scenario() -> None:
        path = tmp_path / "s.db"
        svc = Service(Router(seed=4), SqliteStore(path))
        await svc.start()
        for name in ("anna", "ben", "carl", "dora"):
            await svc.handle(Input("c1", f"u:{name}", name, "/join"))
        await svc.handle(Input("c1", "u:anna", "anna", "/option second_heart10_wins on"))
        await svc.handle(Input("c1", "u:anna", "anna", "/start"))
        table = svc.router.tables["c1"]
        game = table.game
        assert game is not None
        for _ in range(4):
            seat = game.turn
            await svc.handle(
                Input("c1", table.seats[seat].user, table.seats[seat].name, "/healthy")
            )
        plays = 0
        while plays < 6:
            seat = game.turn
            card = game.legal_actions()[0]
            from dokobot.engine.cards import card_ascii

            await svc.handle(
                Input(
                    "c1",
                    table.seats[seat].user,
                    table.seats[seat].name,
                    f"/play {card_ascii(card)}",
                )
            )
            plays += 1
        before = (
            game.hands[:],
            game.trick[:],
            game.turn,
            game.tricks[:],
            table.options,
            table.names(),
            game.calls[:],
            svc.store.load_journal("c1"),
        )
        await svc.close()

        svc2 = Service(Router(seed=99), SqliteStore(path))
        events = await svc2.start()
        t2 = svc2.router.tables["c1"]
        g2 = t2.game
        assert g2 is not None
        after = (
            g2.hands[:],
            g2.trick[:],
            g2.turn,
            g2.tricks[:],
            t2.options,
            t2.names(),
            g2.calls[:],
            svc2.store.load_journal("c1"),
        )
        assert after == before
        # The export of the restored table leaves the running game out (hands stay hidden)
        # and replays to the same seats and options.
        export = await svc2.handle(Input("c1", "u:anna", "anna", "/export"))
        assert "!deal" not in export[0].text and "!seed" not in export[0].text
        rep = Replayer()
        rep.run_text(export[0].text)
        assert (rep.table.names(), rep.table.options) == (t2.names(), t2.options)
        assert rep.table.game is None
        assert any("continues" in e.text for e in events)
        # The player to move is asked again, privately.
        assert any(
            getattr(e, "user", None) == t2.seats[g2.turn].user and e.text.startswith("Your turn")
            for e in events
        )
        await svc2.close()

    asyncio.run(scenario())
