"""Bounded growth: tables exist once someone joins, idle tables leave memory, a restart
loads checkpoints instead of replaying whole histories."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dokobot.host.events import Input
from dokobot.host.journal import Record
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import MemoryStore, SqliteStore

NAMES = ("anna", "ben", "carl", "dora")


def _inp(user: str, name: str, text: str, ch: str = "c") -> Input:
    return Input(ch, user, name, text)


async def _seat(svc: Service, ch: str = "c") -> None:
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join", ch))
    await svc.handle(_inp("u0", "anna", "/option mode single", ch))
    await svc.handle(_inp("u0", "anna", "/option stake 1", ch))


async def _game(svc: Service, ch: str = "c") -> None:
    await svc.handle(_inp("u0", "anna", "/start", ch))
    table = svc.router.tables[ch]
    game = table.game
    assert game is not None
    while table.running:
        seat = game.turn
        await svc.handle(_inp(table.seats[seat].user, table.seats[seat].name,
                              command_for(game.legal_actions()[0]), ch))  # fmt: skip


def _state(svc: Service, ch: str = "c") -> tuple[object, ...]:
    t = svc.router.tables[ch]
    ledger = t.ledger
    return (t.names(), t.options, [r.as_json() for r in t.finished], t.series.totals[:],
            t.dealer, t.game_number, dict(ledger.balances), ledger.house,
            ledger.channel_totals(ch))  # fmt: skip


async def test_commands_in_an_empty_channel_leave_nothing_behind() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=1), store)
    for text in ("/help", "/table", "/start", "/option stake 2", "/export", "/score", "/leave"):
        await svc.handle(_inp("u0", "anna", text, "spam"))
    assert "spam" not in svc.router.tables
    assert store.channels() == []
    assert "spam" not in svc.locks and "spam" not in svc.residency._used
    await svc.handle(_inp("u0", "anna", "/join", "spam"))
    assert store.channels() == ["spam"] and "spam" in svc.router.tables


async def test_restart_loads_the_checkpoint_not_the_whole_history(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    svc = Service(Router(seed=2), SqliteStore(path))
    await _seat(svc)
    await _game(svc)
    await _game(svc)
    before = _state(svc)
    await svc.close()

    # A restart that replayed the history would meet this broken early record.
    store = SqliteStore(path)
    store._db.execute(
        "UPDATE journal SET line = ? WHERE channel = 'c' AND seq = 3",
        (Record("cmd", user="u9", name="zoe", text="/healthy").encode(),),
    )
    svc2 = Service(Router(seed=3), store)
    await svc2.start()
    assert "c" not in svc2.router.tables, "an idle table is loaded when it is used"
    assert svc2.router.ledgers["c"].balances == before[6], "its chips are booked already"
    assert svc2.router.user_table["u1"] == "c"
    await svc2.handle(_inp("u1", "ben", "/score"))
    assert svc2.damaged == {}
    assert _state(svc2) == before
    # something after the checkpoint: loaded at start, from the checkpoint and the rest
    await svc2.handle(_inp("u0", "anna", "/option stake 2"))
    after = _state(svc2)
    await svc2.close()
    svc3 = Service(Router(seed=4), SqliteStore(path))
    await svc3.start()
    assert "c" in svc3.router.tables and svc3.damaged == {}
    assert _state(svc3) == after
    await svc3.close()


async def test_idle_tables_leave_memory_and_come_back_unchanged() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=5), store, idle_s=0.05)
    await _seat(svc, "a")
    await _game(svc, "a")
    before = _state(svc, "a")
    await asyncio.sleep(0.06)
    await svc.handle(_inp("u7", "zoe", "/help", "other"))  # any later input sweeps
    assert "a" not in svc.router.tables and "a" not in svc.locks
    await svc.handle(_inp("u1", "ben", "/score", "a"))
    assert _state(svc, "a") == before, "chips are not booked twice"
    # a seated person's private message finds the table again
    await asyncio.sleep(0.06)
    await svc.handle(_inp("u7", "zoe", "/help", "other"))
    assert "a" not in svc.router.tables
    events = await svc.handle(Input("", "u2", "carl", "/score", dm=True))
    assert "a" in svc.router.tables and events and "anna" in events[0].text


async def test_a_checkpoint_that_cannot_be_made_costs_nothing_but_restart_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dokobot.host import checkpoint

    def broken(table: object) -> tuple[bytes, bytes, list[str]]:
        raise TypeError("cannot pickle '_thread.lock' object")

    monkeypatch.setattr(checkpoint, "dump", broken)
    store = MemoryStore()
    svc = Service(Router(seed=7), store)
    await _seat(svc)
    await _game(svc)
    table = svc.router.tables["c"]
    assert len(table.finished) == 1 and store.load_checkpoint("c") is None
    svc2 = Service(Router(seed=8), store)
    await svc2.start()
    assert _state(svc2) == _state(svc)


# -- accepted spam between games is folded -------------------------------------------------


def _full(svc: Service, ch: str = "c") -> tuple[object, ...]:
    """The state and what seat and option changes touch besides it."""
    t = svc.router.tables[ch]
    seats = [(s.user, s.name, s.bot, s.standin_for) for s in t.seats]
    return (*_state(svc, ch), seats, t.owner, t.waiting, t.bot_counter, t.series.number,
            t.series.games, t.series.by_player)  # fmt: skip


async def _restart(store: MemoryStore, ch: str = "c") -> tuple[object, ...]:
    svc = Service(Router(seed=99), store)
    await svc.start()
    await svc.load(ch)
    assert svc.damaged == {}
    return _full(svc, ch)


async def test_ten_thousand_option_toggles_leave_the_journal_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dokobot.host import checkpoint, fold

    store = MemoryStore()
    svc = Service(Router(seed=11), store)
    await _seat(svc)
    await _game(svc)
    after_game = len(store.load_journal("c"))
    for i in range(10_000):
        events = await svc.handle(_inp("u0", "anna", f"/option bock {'on' if i % 2 else 'off'}"))
        assert "bock" in events[0].text
        assert len(store.load_journal("c")) <= after_game + fold.FOLD_AFTER + 1
    await svc.handle(_inp("u0", "anna", "/option bock on"))
    before = _full(svc)
    assert svc.router.tables["c"].options.bock
    assert await _restart(store) == before
    # a start that cannot use the checkpoint replays the journal, state record and all
    monkeypatch.setattr(checkpoint, "version", lambda: "another dokobot")
    assert await _restart(store) == before


async def test_every_fold_point_restores_the_same_table_and_export_still_replays() -> None:
    from dokobot.host import fold
    from dokobot.host.replay import Replayer

    store = MemoryStore()
    svc = Service(Router(seed=12), store)
    await _seat(svc)
    await _game(svc)
    await svc.handle(_inp("u4", "erik", "/join"))  # waits for a seat
    for i in range(3 * fold.FOLD_AFTER):
        # people come and go, a computer player takes a seat and gives it back
        step = i % 6
        if step == 0:
            await svc.handle(_inp("u3", "dora", "/leave"))
        elif step == 1:
            await svc.handle(_inp("u0", "anna", "/join bot"))
        elif step == 2:
            await svc.handle(_inp("u3", "dora", "/replace"))
        elif step == 3:
            await svc.handle(_inp("u0", "anna", f"/option stake {1 + i % 5}"))
        elif step == 4:
            await svc.handle(_inp("u1", "ben", "/leave"))
        else:
            await svc.handle(_inp("u1", "ben", "/join"))
        assert await _restart(store) == _full(svc), f"after step {i}"
    assert any('"k":"state"' in line for line in store.load_journal("c"))
    table = svc.router.tables["c"]
    assert table.names() and len(table.seats) == 4
    await _game(svc)
    text = (await svc.handle(_inp("u0", "anna", "/export")))[0].text
    assert "!table " in text
    rep = Replayer()
    rep.run_text(text)
    assert rep.failures == []
    assert rep.results() == [r.as_json() for r in table.finished]
    assert rep.table.names() == table.names() and rep.table.options == table.options


async def test_leave_and_join_ten_thousand_times_between_games_is_bounded() -> None:
    from dokobot.host import fold

    store = MemoryStore()
    svc = Service(Router(seed=13), store)
    await _seat(svc)
    await _game(svc)
    after_game = len(store.load_journal("c"))
    for _ in range(5_000):
        await svc.handle(_inp("u2", "carl", "/leave"))
        await svc.handle(_inp("u2", "carl", "/join"))
    assert len(store.load_journal("c")) <= after_game + fold.FOLD_AFTER + 1
    before = _full(svc)
    assert await _restart(store) == before
    await _game(svc)
    assert len(svc.router.tables["c"].finished) == 2


# -- finished games are read from the store on demand ----------------------------------------


async def test_a_long_series_keeps_memory_and_checkpoint_bounded_and_shows_every_game() -> None:
    from dokobot.host.replay import Replayer
    from dokobot.host.writes import KEEP_GAMES

    store = MemoryStore()
    svc = Service(Router(seed=21), store)
    for i, n in enumerate(NAMES):
        await svc.handle(_inp(f"u{i}", n, "/join"))
    await svc.handle(_inp("u0", "anna", "/option mode single"))
    sizes: dict[int, int] = {}
    for g in range(1, 121):
        await _game(svc)
        table = svc.router.tables["c"]
        assert len(table.finished) <= KEEP_GAMES and table.series.games == g
        assert len(table.settlements) <= 2 and len(table.ledger.entries) <= 2
        if g in (20, 120):
            cp = store.load_checkpoint("c")
            assert cp is not None
            sizes[g] = len(cp.state) + len(cp.settlements)
    # the last game and a few digits differ; nothing is kept per game (that was ~400 bytes)
    assert sizes[120] <= sizes[20] + 1000, sizes

    async def ask(text: str) -> str:
        return (await svc.handle(_inp("u1", "ben", text)))[0].text

    # what a table that keeps every game in memory says: the replay of the export
    export = await ask("/export")
    rep = Replayer()
    rep.run_text(export)
    assert rep.failures == [] and len(rep.table.finished) == 120

    def rep_ask(text: str) -> str:
        return rep.feed(0, "ben", text)[0].text

    for text in ("/score", "/score 1", "/score 60", "/score 120", "/score csv",
                 "/export csv", "/score chart"):  # fmt: skip
        assert await ask(text) == rep_ask(text), text
    assert export.splitlines()[1:] == rep_ask("/export").splitlines()[1:]
    # after a restart too
    await svc.close()
    svc = Service(Router(seed=22), store)
    await svc.start()
    for text in ("/score", "/score 2", "/score csv"):
        assert await ask(text) == rep_ask(text), text
    assert len(svc.router.tables["c"].finished) <= KEEP_GAMES
    await svc.close()


async def test_a_folded_new_series_restores_with_and_without_the_checkpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dokobot.host import checkpoint, fold

    store = MemoryStore()
    svc = Service(Router(seed=14), store)
    await _seat(svc)
    await _game(svc)
    await svc.handle(_inp("u0", "anna", "/option mode free"))  # starts series 2
    for i in range(2 * fold.FOLD_AFTER + 3):
        await svc.handle(_inp("u0", "anna", f"/option tournament {'off' if i % 2 else 'on'}"))
    table = svc.router.tables["c"]
    assert table.series.number == 2 and table.options.tournament
    assert any('"k":"state"' in line for line in store.load_journal("c")), "folded"
    before = _full(svc)
    assert await _restart(store) == before
    monkeypatch.setattr(checkpoint, "version", lambda: "another dokobot")
    assert await _restart(store) == before
    await _game(svc)
    assert [r.series for r in svc.router.tables["c"].finished] == [1, 2]


async def test_people_not_seated_leave_no_record_during_a_game() -> None:
    """4,000 commands of people who are not seated (waiting-list places under changing
    names, leaving them) and repeated option changes that change nothing: O(1) records."""
    store = MemoryStore()
    svc = Service(Router(seed=5), store)
    await _seat(svc)
    await svc.handle(_inp("u0", "anna", "/start"))
    assert svc.router.tables["c"].running
    before = len(store.load_journal("c"))
    for i in range(1000):
        joined = await svc.handle(_inp(f"w{i % 7}", f"name{i}", "/join"))
        assert joined
        await svc.handle(_inp("w9", f"mallory{i}", "/join"))  # one place, whatever the name
        await svc.handle(_inp(f"w{(i + 3) % 7}", f"name{i}", "/leave"))
        await svc.handle(_inp("u0", "anna", "/option language en"))
    table = svc.router.tables["c"]
    assert len(store.load_journal("c")) - before + len(table.journal) <= 2
    assert [u for u, _ in table.waiting].count("w9") == 1
    refused = await svc.handle(_inp("w9", "mallory", "/join"))
    assert refused[0].text == "You are already waiting for a seat."
    same = await svc.handle(_inp("u0", "anna", "/option language en"))
    assert same[0].text == "Option language is already en; nothing changed."
    await svc.handle(_inp("u0", "anna", "/option language de"))  # a change is a record
    assert len(store.load_journal("c")) - before + len(table.journal) <= 3


async def test_the_language_changes_a_few_times_a_game_however_often_it_is_asked() -> None:
    """1,000 alternating changes of the table's language during a game leave at most
    LANGUAGE_CHANGES_PER_GAME records; after the game it may change again."""
    from dokobot.host.option_changes import LANGUAGE_CHANGES_PER_GAME

    store = MemoryStore()
    svc = Service(Router(seed=7), store)
    await _seat(svc)
    await svc.handle(_inp("u0", "anna", "/start"))
    before = len(store.load_journal("c"))
    answers = []
    for i in range(1000):
        answers += await svc.handle(
            _inp("u0", "anna", f"/option language {'de' if i % 2 else 'en'}")
        )
    table = svc.router.tables["c"]
    assert len(store.load_journal("c")) - before <= LANGUAGE_CHANGES_PER_GAME
    assert answers[-1].text.startswith("The table's language can change 4 times during a game")
    restarted = await _restart(store)
    assert restarted == _full(svc)
    await _game(svc)
    assert not table.running
    await svc.handle(_inp("u0", "anna", "/option language de"))
    assert table.options.language == "de"


async def test_a_journal_with_records_that_are_recordless_now_still_restores() -> None:
    """Journals written before: waiting-list places and no-op option changes were records;
    they restore the same table, not a refusal."""
    from dokobot.host.journal import cmd

    store = MemoryStore()
    svc = Service(Router(seed=6), store)
    await _seat(svc)
    await svc.handle(_inp("u0", "anna", "/start"))
    old = [
        cmd("w1", "erik", None, "/join"),
        cmd("w1", "erik", None, "/leave"),
        cmd("u0", "anna", 0, "/option language en"),
    ]
    store.append("c", [r.encode() for r in old])
    svc2 = Service(Router(seed=99), store)
    await svc2.start()
    await svc2.load("c")
    assert svc2.damaged == {}
    assert svc2.router.tables["c"].running
