"""The structured journal: games survive a restart whatever the names, stand-ins and
timeouts; a record that cannot be applied is loud; old journals of replay lines restore."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from dokobot.engine.game import Game
from dokobot.host.events import Event, Input, Public
from dokobot.host.i18n import render
from dokobot.host.journal import Record
from dokobot.host.replay import Replayer, RestoreError, export_lines, restore
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.host.table import command_for
from dokobot.store import MemoryStore, SqliteStore, Store
from dokobot.store.sqlite import MIGRATIONS

ODD_NAMES = ("Dr: Who", "!bang", "x;y=z", "max (dm)")


def _inp(user: str, name: str, text: str, ch: str = "c") -> Input:
    return Input(ch, user, name, text)


def _state(svc: Service, ch: str = "c") -> tuple[object, ...]:
    table = svc.router.tables[ch]
    game = table.game
    g: tuple[object, ...] = ()
    if game is not None:
        g = (game.hands[:], game.trick[:], game.turn, list(game.log), game.phase, game.calls[:])
    seats = [(s.user, s.name, s.bot, s.standin_for) for s in table.seats]
    return (g, seats, sorted(table.away), table.options, len(table.finished), table.owner,
            table.series.totals[:])  # fmt: skip


async def _move(svc: Service, ch: str = "c") -> list[Event]:
    table = svc.router.tables[ch]
    game = table.game
    assert game is not None
    seat = game.turn
    action = game.legal_actions()[0]
    info = table.seats[seat]
    return await svc.handle(_inp(info.user, "whatever they are called now", command_for(action)))


async def _restart(svc: Service, store: Store) -> tuple[Service, list[Event]]:
    await svc.close()
    if isinstance(store, SqliteStore):
        store = SqliteStore(store.path)
    svc2 = Service(Router(seed=99, bot_factory=default_bot_factory()), store)
    return svc2, await svc2.start()


class KeepOpen(MemoryStore):
    def close(self) -> None:
        pass


@pytest.mark.parametrize("names", [ODD_NAMES, ("#hash", ">gt", "a" * 40, "=eq;")])
async def test_running_game_survives_restart_with_any_names(
    tmp_path: Path, names: tuple[str, ...]
) -> None:
    store = SqliteStore(tmp_path / "s.db")
    svc = Service(Router(seed=4), store)
    for i, name in enumerate(names):
        await svc.handle(_inp(f"u{i}", name, "/join"))
    # the owner changed their display name between /join and /start
    await svc.handle(_inp("u0", "renamed owner", "/option second_heart10_wins on"))
    await svc.handle(_inp("u0", "renamed owner", "/start"))
    for _ in range(4 + 13):
        await _move(svc)
    before = _state(svc)
    svc2, events = await _restart(svc, store)
    assert _state(svc2) == before
    assert any("continues" in e.text for e in events)
    assert svc2.damaged == {}
    await svc2.close()


async def test_stand_in_after_leave_keeps_every_trick_on_restart_and_export() -> None:
    store = KeepOpen()
    svc = Service(Router(seed=6, bot_factory=default_bot_factory()), store)
    for i, name in enumerate(("anna", "ben", "carl", "dora")):
        await svc.handle(_inp(f"u{i}", name, "/join"))
    await svc.handle(_inp("u0", "anna", "/start"))
    for _ in range(4 + 2):
        await _move(svc)
    table = svc.router.tables["c"]
    leaver = table.seats[2]
    await svc.handle(_inp(leaver.user, leaver.name, "/leave"))
    assert table.seats[2].bot is not None
    await _play(svc, lambda g: len(g.tricks) < 4)
    assert any(Record.decode(x).kind == "move" for x in store.load_journal("c"))
    before = _state(svc)
    svc2, _ = await _restart(svc, store)
    assert _state(svc2) == before
    t2 = svc2.router.tables["c"]
    assert t2.game is not None and len(t2.game.tricks) == 4
    # the export of the finished game replays to the same result
    await _play(svc2, lambda g: t2.running)
    export = await svc2.handle(_inp("u0", "anna", "/export"))
    rep = Replayer()
    rep.run_text(export[0].text)
    assert rep.results() == [r.as_json() for r in t2.finished] and len(t2.finished) == 1
    await svc2.close()


async def _play(svc: Service, go_on: Callable[[Game], bool]) -> None:
    """Moves until ``go_on`` says stop (the stand-in moves by itself)."""
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    while go_on(game) and table.running:
        seat = game.turn
        if table.seats[seat].bot is not None:
            await svc.handle(_inp("u0", "anna", "/table"))  # wakes the computer players
            await svc.idle()
        else:
            await _move(svc)


async def test_timed_out_players_stand_in_survives_restart() -> None:
    store = KeepOpen()
    svc = Service(Router(seed=5, bot_factory=default_bot_factory()), store)
    for i, name in enumerate(("anna", "ben", "carl", "dora")):
        await svc.handle(_inp(f"u{i}", name, "/join"))
    table = svc.router.tables["c"]
    table.options = dataclasses.replace(table.options, turn_timeout=0.05)  # type: ignore[arg-type]
    await svc.handle(_inp("u0", "anna", "/start"))
    game = table.game
    assert game is not None
    first = game.turn
    await asyncio.sleep(0.3)
    await svc.idle()
    assert first in table.away and game.reserved[first] != -1
    before = _state(svc)
    svc2, _ = await _restart(svc, store)
    after = _state(svc2)
    assert after[:3] + after[4:] == before[:3] + before[4:]  # the timeout was set directly
    assert first in svc2.router.tables["c"].away
    await svc2.close()


async def test_a_record_that_cannot_be_applied_puts_the_table_on_hold(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = KeepOpen()
    svc = Service(Router(seed=3), store)
    for i, name in enumerate(("anna", "ben", "carl", "dora")):
        await svc.handle(_inp(f"u{i}", name, "/join"))
    await svc.handle(_inp("u0", "anna", "/start"))
    # a move of somebody who is not seated (a damaged or foreign record)
    store.append("c", [Record("cmd", user="u9", name="zoe", text="/healthy").encode()])
    store.append("c", [Record("cmd", user="u0", name="anna", text="/table").encode()])
    journal = store.load_journal("c")
    caplog.set_level(logging.ERROR)
    svc2, events = await _restart(svc, store)
    damaged = render("en", "table_damaged")
    assert [e.text for e in events if isinstance(e, Public)] == [damaged]
    assert "c" in svc2.damaged and "zoe" in svc2.damaged["c"]
    assert any("on hold" in r.getMessage() for r in caplog.records)
    answer = await svc2.handle(_inp("u0", "anna", "/healthy"))
    assert [e.text for e in answer] == [damaged]
    assert store.load_journal("c") == journal, "nothing is dropped or added"


def _legacy_store(path: Path, lines: list[str]) -> None:
    """A store as dokobot wrote it before records (schema 2: replay lines)."""
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE journal (channel TEXT NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL,"
        " PRIMARY KEY (channel, seq));"
        "CREATE TABLE user_settings (user TEXT PRIMARY KEY, language TEXT NOT NULL);"
        "PRAGMA user_version = 2;"
    )
    db.executemany("INSERT INTO journal VALUES ('c', ?, ?)", list(enumerate(lines)))
    db.commit()
    db.close()


async def test_old_journal_of_replay_lines_still_restores(tmp_path: Path) -> None:
    rep = Replayer()
    script = [
        "!seed 77", "!user anna=u0", "anna: /join", "!user ben=u1", "ben: /join",
        "!user carl=u2", "carl: /join", "!user dora=u3", "dora: /join", "anna: /start",
    ]  # fmt: skip
    rep.run_lines(script)
    game = rep.table.game
    assert game is not None
    for _ in range(4 + 5):
        seat = game.turn
        line = f"{rep.table.seats[seat].name}: {command_for(game.legal_actions()[0])}"
        script.append(line)
        rep.run_lines([line])
    path = tmp_path / "old.db"
    _legacy_store(path, script)
    store = SqliteStore(path)
    assert store.schema_version() == len(MIGRATIONS)
    svc = Service(Router(seed=1), store)
    await svc.start()
    assert svc.damaged == {}
    g2 = svc.router.tables["c"].game
    assert g2 is not None
    assert (g2.hands, g2.trick, g2.turn, g2.log) == (game.hands, game.trick, game.turn, game.log)
    # new records follow the old lines, and both restore
    await _move(svc)
    after = _state(svc)
    svc2, _ = await _restart(svc, store)
    assert _state(svc2) == after
    assert [Record.decode(x).kind for x in svc2.store.load_journal("c")][:3] == ["line"] * 3
    await svc2.close()


def test_export_lines_quote_odd_names_and_name_each_user_once() -> None:
    journal = [
        Record("cmd", user="42", seat=0, name="Dr: Who", text="/join"),
        Record("cmd", user="43", seat=1, name="ben", text="/join"),
        Record("cmd", user="42", seat=0, name="Dr: Who", text="/start"),
        Record("feed", text="7"),
    ]
    assert export_lines("c", journal)[2:] == [
        '!user "Dr: Who"=42', '"Dr: Who": /join', "!user ben=43", "ben: /join",
        '"Dr: Who": /start',
    ]  # fmt: skip


@given(st.lists(st.text(min_size=1, max_size=40), min_size=4, max_size=4))
def test_any_unicode_names_round_trip_export_replay_and_restart(names: list[str]) -> None:
    """Display names from all of Unicode: the export replays to the same games and seats,
    and a restart restores the running game."""

    async def scenario() -> None:
        store = KeepOpen()
        svc = Service(Router(seed=12), store)
        for i, name in enumerate(names):
            await svc.handle(_inp(f"u{i}", name, "/join"))
        table = svc.router.tables["c"]
        assume(len(table.seats) == 4)
        for _ in range(2):
            await svc.handle(_inp("u0", names[0], "/start"))
            game = table.game
            assert game is not None
            while table.running and not (table.game_number == 2 and len(game.log) > 9):
                await _move(svc)
        export = await svc.handle(_inp("u1", names[1], "/export"))
        rep = Replayer()
        rep.run_text(export[0].text)
        assert rep.failures == []
        assert rep.table.names() == table.names()
        assert rep.results() == [r.as_json() for r in table.finished]
        before = _state(svc)
        svc2, _ = await _restart(svc, store)
        assert _state(svc2) == before and svc2.damaged == {}
        await svc2.close()

    asyncio.run(scenario())


def test_a_bad_deal_record_is_reported_without_its_hands() -> None:
    router = Router(seed=1)
    journal = [Record("cmd", user=f"u{i}", seat=i, name=n, text="/join")
               for i, n in enumerate(("anna", "ben", "carl", "dora"))]  # fmt: skip
    hands = ("CQ CQ SQ SQ HQ HQ DQ DQ CJ CJ SJ SJ",) * 4
    journal.append(Record("deal", names=("anna", "ben", "carl", "zoe"), hands=hands))
    with pytest.raises(RestoreError) as err:
        restore(router, "c", journal)
    assert "hands not shown" in str(err.value) and "CQ" not in str(err.value)


async def test_a_refused_leave_is_not_journaled() -> None:
    """(It was journaled before the refusal; restoring it would put the table on hold.)"""
    store = KeepOpen()
    svc = Service(Router(seed=2), store)
    for i, name in enumerate(("anna", "ben", "carl", "dora")):
        await svc.handle(_inp(f"u{i}", name, "/join"))
    await svc.handle(_inp("u0", "anna", "/option standin off"))
    await svc.handle(_inp("u0", "anna", "/start"))
    journal = store.load_journal("c")
    refused = await svc.handle(_inp("u1", "ben", "/leave"))
    assert refused[0].text == render("en", "leave_during_game")
    assert store.load_journal("c") == journal
    svc2, _ = await _restart(svc, store)
    assert svc2.damaged == {} and svc2.router.tables["c"].running
    await svc2.close()


async def test_a_person_who_moved_tables_restores_at_both() -> None:
    store = KeepOpen()
    svc = Service(Router(seed=2), store)
    await svc.handle(_inp("x", "xena", "/join", "b"))
    await svc.handle(_inp("y", "yves", "/join", "b"))
    await svc.handle(_inp("x", "xena", "/leave", "b"))
    await svc.handle(_inp("x", "xena", "/join", "a"))
    svc2, _ = await _restart(svc, store)  # "a" is restored before "b"
    assert svc2.damaged == {}
    assert svc2.router.tables["a"].names() == ["xena"]
    assert svc2.router.tables["b"].names() == ["yves"]
    assert svc2.router.user_table["x"] == "a"
    await svc2.close()
