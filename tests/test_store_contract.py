"""The store's promises, once per backend (SQLite and a real PostgreSQL, see
``store_location`` in conftest): appends are all or nothing and durable, journals and
checkpoints come back exactly after a restart, settings, nicks, results and web keys keep,
one process per store (per shard on PostgreSQL), a too-new store is refused."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from dokobot.host.events import Input
from dokobot.host.i18n import render
from dokobot.host.journal import Record
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.stats.record import FinishedGame
from dokobot.store import (
    Checkpoint,
    SqliteStore,
    Store,
    StoreConflict,
    StoreDamaged,
    StoreLocked,
    is_url,
    open_store,
)

NAMES = ("anna", "ben", "carl", "dora")


def _open(location: str, **kw: object) -> Store:
    return open_store(location, lease_s=2.0, **kw)  # type: ignore[arg-type]


@pytest.fixture
def store(store_location: str) -> Store:
    s = _open(store_location)
    yield s  # type: ignore[misc]
    s.close()


def _line(i: int) -> str:
    return json.dumps({"k": "cmd", "user": "u", "name": "n", "text": f"/play {i}"})


def test_append_returns_the_length_and_keeps_the_order(store: Store) -> None:
    assert store.append("c", [_line(0), _line(1)]) == 2
    assert store.append("c", []) == 2
    assert store.append("c", [_line(2)]) == 3
    assert store.append("d", [_line(9)]) == 1
    assert store.load_journal("c") == [_line(0), _line(1), _line(2)]
    assert store.load_journal("c", 2) == [_line(2)]
    assert store.channels() == ["c", "d"]
    assert [(s.channel, s.length, s.checkpoint) for s in store.summaries()] == [
        ("c", 3, None), ("d", 1, None)]  # fmt: skip


def test_concurrent_appends_of_many_tables_lose_nothing(store: Store) -> None:
    def writer(ch: str) -> None:
        for i in range(25):
            store.append(ch, [_line(i)])

    threads = [threading.Thread(target=writer, args=(f"t{n}",)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in range(6):
        assert store.load_journal(f"t{n}") == [_line(i) for i in range(25)]


def test_a_failed_append_writes_nothing(store_location: str) -> None:
    store = _open(store_location)
    try:
        store.append("c", [_line(0)])
        # a line the backend refuses in the middle of a batch: SQLite refuses a closed
        # connection's writes, PostgreSQL a NUL character in text
        bad = "\x00" if is_url(store_location) else None
        with pytest.raises(Exception):  # noqa: B017 - each backend has its own error
            if bad is None:
                store.append("c", [_line(1), object()])  # type: ignore[list-item]
            else:
                store.append("c", [_line(1), bad, _line(2)])
        assert store.load_journal("c") == [_line(0)]
        assert store.append("c", [_line(1)]) == 2
    finally:
        store.close()


def test_appends_of_several_tables_are_written_together(store_location: str) -> None:
    store = _open(store_location)
    try:
        store.append("c", [_line(0)])
        lengths = store.append_many(
            [("c", [_line(1), _line(2)], 1), ("d", [_line(9)], None), ("c", [_line(3)], None)]
        )
        assert lengths == [3, 1, 4]
        assert store.append("c", [_line(4)]) == 5
        assert store.append_many([("d", [_line(8)], 1)]) == [2]
    finally:
        store.close()
    store = _open(store_location)
    try:
        assert store.load_journal("c") == [_line(i) for i in range(5)]
        assert store.load_journal("d") == [_line(9), _line(8)]
        assert [(s.channel, s.length) for s in store.summaries()] == [("c", 5), ("d", 2)]
    finally:
        store.close()


def test_a_bad_append_among_several_refuses_only_itself(store: Store, store_location: str) -> None:
    bad = "\x00" if is_url(store_location) else object()
    results = store.append_many(
        [("c", [_line(0)], 0), ("d", [_line(1), bad], 0), ("e", [_line(2)], None)]  # type: ignore[list-item]
    )
    assert results[0] == 1 and results[2] == 1
    assert isinstance(results[1], Exception)
    assert store.load_journal("d") == [] and store.channels() == ["c", "e"]
    assert store.append_many([("d", [_line(1)], 0), ("c", [_line(3)], 1)]) == [1, 2]


def test_an_append_names_its_position_and_a_wrong_one_writes_nothing(store: Store) -> None:
    """The idempotency key (table, position): an append at a position that is not where
    the journal ends is refused and writes nothing (a retry of an append that was stored
    is never written twice), alone or among others."""
    assert store.append("c", [_line(0), _line(1)], 0) == 2
    with pytest.raises(StoreConflict):
        store.append("c", [_line(1)], 1)  # the same append again: stored already
    with pytest.raises(StoreConflict):
        store.append("c", [_line(5)], 3)
    with pytest.raises(StoreConflict):
        store.append("new", [_line(5)], 1)
    results = store.append_many([("c", [_line(9)], 1), ("d", [_line(3)], 0), ("c", [], 2)])
    assert isinstance(results[0], StoreConflict) and results[1:] == [1, 2]
    assert store.load_journal("c") == [_line(0), _line(1)]
    assert store.append("c", [_line(2)], 2) == 3
    assert store.load_journal("c") == [_line(0), _line(1), _line(2)]
    assert store.load_journal("new") == [] and store.channels() == ["c", "d"]


def test_sqlite_commits_the_appends_of_several_tables_once(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "s.sqlite3"))
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    try:
        assert store.append_many([(f"t{i}", [_line(i)], 0) for i in range(5)]) == [1] * 5
    finally:
        store.close()
    assert sum(s.strip().upper() == "COMMIT" for s in statements) == 1


def test_everything_survives_a_reopen(store_location: str) -> None:
    store = _open(store_location)
    store.append("c", [_line(0), _line(1)])
    cp = Checkpoint(2, "v1", b"\x00state\xff", b"ledger", ("u:anna", "u:ben"))
    store.save_checkpoint("c", cp)
    store.set_language("u:anna", "de")
    store.remember_nick("u:1", "irc:net:Anna")
    store.remember_nick("u:2", "irc:net:bob")
    store.remember_nick("u:3", "irc:net:ANNA")  # the nick belongs to its last user
    key, enabled = store.web_page("discord:1")
    store.close()

    store = _open(store_location)
    try:
        assert store.load_journal("c") == [_line(0), _line(1)]
        assert store.load_checkpoint("c") == cp
        (summary,) = store.summaries()
        assert summary.length == 2 and summary.checkpoint is not None
        assert summary.checkpoint.state == b"" and summary.checkpoint.users == cp.users
        assert store.languages() == {"u:anna": "de"}
        assert store.language("u:anna") == "de" and store.language("u:nobody") is None
        assert store.nick_history("irc:net:") == [("u:2", "irc:net:bob"), ("u:3", "irc:net:ANNA")]
        assert store.web_page("discord:1") == (key, enabled) and enabled
        store.set_web_enabled("discord:1", False)  # a new key: the old link is dead
        assert store.web_server(key) is None
        new, enabled = store.web_page("discord:1")
        assert new != key and not enabled and store.web_server(new) == ("discord:1", False)
        store.set_web_enabled("discord:1", True)
        assert store.web_page("discord:1") == (new, True) and store.web_server(key) is None
        assert store.web_server("nope") is None
    finally:
        store.close()


def test_preferences_are_kept_per_user_and_name_and_survive_a_reopen(store_location: str) -> None:
    store = _open(store_location)
    store.set_preference("u:anna", "discord_prompts", "dm")
    store.set_preference("u:anna", "discord_prompts", "here")  # the last choice counts
    store.set_preference("u:anna", "other", "x")
    store.set_preference("u:ben", "discord_prompts", "dm")
    store.close()

    store = _open(store_location)
    try:
        assert store.preference("u:anna", "discord_prompts") == "here"
        assert store.preference("u:anna", "other") == "x"
        assert store.preference("u:ben", "discord_prompts") == "dm"
        assert store.preference("u:ben", "other") is None
        assert store.preference("u:nobody", "discord_prompts") is None
    finally:
        store.close()


def _game(channel: str, game: int, server: str = "discord:1") -> FinishedGame:
    return FinishedGame.from_json(json.dumps({
        "server": server, "channel": channel, "game": game, "series": 1,
        "finished_at": 1.5 + game, "seats": [["u:a", "a", False, None]],
        "result": {"points": [120, 120]}, "tricks": [[0, [1, 2, 3, 4], 2]], "calls": [],
        "rated": True,
    }))  # fmt: skip


def test_results_are_kept_once_and_read_in_order(store: Store) -> None:
    first = store.add_result(_game("c", 1))
    again = store.add_result(_game("c", 1))
    assert again.id == first.id
    second = store.add_result(_game("c", 2))
    store.add_result(_game("x", 1, server="discord:2"))
    assert [g.id for g in store.results("discord:1")] == [first.id, second.id]
    assert [g.id for g in store.results("discord:1", after=first.id)] == [second.id]
    assert len(store.results("discord:1", limit=1)) == 1
    assert store.result(second.id) == second
    bare = store.results("discord:1", tricks=False)
    assert [g.tricks for g in bare] == [(), ()] and bare[0].result == first.result
    assert store.result_servers() == ["discord:1", "discord:2"]


def test_a_second_process_is_refused_and_the_store_free_after_close(store_location: str) -> None:
    store = _open(store_location)
    try:
        with pytest.raises(StoreLocked):
            open_store(store_location, lease_s=0.5)
        store.append("c", [_line(0)])
    finally:
        store.close()
    again = _open(store_location)
    assert again.load_journal("c") == [_line(0)]
    again.close()


def test_a_store_of_a_newer_dokobot_is_refused(store_location: str) -> None:
    store = _open(store_location)
    store.close()
    if is_url(store_location):
        import psycopg
        from pg_server import PASSWORD

        from dokobot.store.pg_schema import MIGRATIONS

        with psycopg.connect(store_location, password=PASSWORD, autocommit=True) as db:
            db.execute("UPDATE dokobot_schema SET version = %s", (len(MIGRATIONS) + 1,))
    else:
        import sqlite3

        from dokobot.store.sqlite import MIGRATIONS as LITE

        db = sqlite3.connect(store_location)
        db.execute(f"PRAGMA user_version = {len(LITE) + 1}")
        db.commit()
        db.close()
    with pytest.raises(StoreDamaged, match="newer"):
        _open(store_location)


async def _play(svc: Service, moves: int) -> None:
    for n in NAMES:
        await svc.handle(Input("c1", f"u:{n}", n, "/join"))
    await svc.handle(Input("c1", "u:anna", "anna", "/option mode single"))
    await svc.handle(Input("c1", "u:anna", "anna", "/option stake 1"))
    for _ in range(moves):
        await _play_one(svc)


async def _play_one(svc: Service) -> None:
    """Start a game, or make the first legal move of the player to act."""
    table = svc.router.tables["c1"]
    game = table.game
    if game is None or not table.running:
        await svc.handle(Input("c1", "u:anna", "anna", "/start"))
        return
    seat = game.turn
    text = command_for(game.legal_actions()[0])
    await svc.handle(Input("c1", table.seats[seat].user, table.seats[seat].name, text))


def _state(svc: Service) -> tuple[object, ...]:
    table = svc.router.tables["c1"]
    game = table.game
    assert game is not None
    return (
        game.hands[:],
        game.trick[:],
        game.turn,
        game.tricks[:],
        table.options,
        table.names(),
        game.calls[:],
        len(table.finished),
        table.series.totals[:],
        dict(table.ledger.balances),
        table.ledger.house,
        len(table.ledger.entries),
    )


def test_a_restart_restores_running_and_finished_games_exactly(store_location: str) -> None:
    async def scenario() -> None:
        svc = Service(Router(seed=4), _open(store_location))
        await svc.start()
        await _play(
            svc, 1 + 4 + 48 + 1 + 4 + 7
        )  # one whole game (a checkpoint), then into the next
        before = (_state(svc), svc.store.load_journal("c1"))
        await asyncio.gather(*svc.writes._saving.values())  # (written in the background)
        assert svc.store.load_checkpoint("c1") is not None
        assert len(svc.router.tables["c1"].ledger.entries) == 1, "chips were settled"
        await svc.close()
        svc2 = Service(Router(seed=99), _open(store_location))
        events = await svc2.start()
        assert (_state(svc2), svc2.store.load_journal("c1")) == before
        assert any("continues" in e.text for e in events)
        await svc2.close()

    asyncio.run(scenario())


def test_the_password_is_in_no_repr_and_no_log(
    pg_url: str, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    from pg_server import PASSWORD

    caplog.set_level("DEBUG")
    store = open_store(pg_url, lease_s=2.0)  # the password comes from DOKOBOT_STORE_PASSWORD
    try:
        store.append("c", [_line(0)])
        assert PASSWORD not in repr(store) and PASSWORD not in str(store)
        assert PASSWORD not in repr(vars(store))
    finally:
        store.close()
    with_password = pg_url.replace("dokobot@", f"dokobot:{PASSWORD}@")
    other = open_store(with_password, lease_s=2.0)
    try:
        assert PASSWORD not in repr(other) and "dokobot@127.0.0.1" in repr(other)
    finally:
        other.close()
    assert PASSWORD not in caplog.text


def _overwrite(location: str, channel: str, seq: int, line: str) -> None:
    """Change one stored record behind the store's back (a damaged or edited store)."""
    if is_url(location):
        import psycopg
        from pg_server import PASSWORD

        with psycopg.connect(location, password=PASSWORD, autocommit=True) as db:
            db.execute("UPDATE journal SET line = %s WHERE channel = %s AND seq = %s",
                       (line, channel, seq))  # fmt: skip
    else:
        import sqlite3

        db = sqlite3.connect(location)
        db.execute("UPDATE journal SET line = ? WHERE channel = ? AND seq = ?",
                   (line, channel, seq))  # fmt: skip
        db.commit()
        db.close()


ZOE = Record("cmd", user="u9", name="zoe", text="/healthy").encode()


def _ledger(svc: Service) -> tuple[object, ...]:
    table = svc.router.tables["c1"]
    # a table's settlements come back as one carry entry: what each account won there
    return (
        table.names(),
        [r.as_json() for r in table.finished],
        table.series.totals[:],
        dict(table.ledger.balances),
        table.ledger.house,
        table.ledger.channel_totals("c1"),
    )


def test_a_restart_loads_the_checkpoint_not_the_whole_history(store_location: str) -> None:
    async def scenario() -> None:
        svc = Service(Router(seed=2), _open(store_location))
        await svc.start()
        await _play(svc, 1 + 4 + 48 + 1)  # a whole game, then a table at rest
        table = svc.router.tables["c1"]
        while table.running:
            await _play_one(svc)
        before = _ledger(svc)
        await svc.close()
        # a restart that replayed the history would meet this broken early record
        _overwrite(store_location, "c1", 3, ZOE)
        svc2 = Service(Router(seed=3), _open(store_location))
        await svc2.start()
        assert "c1" not in svc2.router.tables, "an idle table is loaded when it is used"
        assert svc2.router.ledgers["c1"].balances == before[3], "its chips are booked already"
        await svc2.handle(Input("c1", "u:ben", "ben", "/score"))
        assert svc2.damaged == {} and _ledger(svc2) == before
        await svc2.close()

    asyncio.run(scenario())


def test_a_record_that_cannot_be_applied_puts_the_table_on_hold(store_location: str) -> None:
    async def scenario() -> None:
        svc = Service(Router(seed=3), _open(store_location))
        await svc.start()
        await _play(svc, 3)
        svc.store.append("c1", [ZOE])
        journal = svc.store.load_journal("c1")
        await svc.close()
        svc2 = Service(Router(seed=3), _open(store_location))
        events = await svc2.start()
        damaged = render("en", "table_damaged")
        assert [e.text for e in events] == [damaged] and "zoe" in svc2.damaged["c1"]
        answer = await svc2.handle(Input("c1", "u:anna", "anna", "/healthy"))
        assert [e.text for e in answer] == [damaged]
        assert svc2.store.load_journal("c1") == journal, "nothing is dropped or added"
        await svc2.close()

    asyncio.run(scenario())


def test_a_fold_replaces_the_journals_end_and_its_checkpoint_at_once(
    store_location: str,
) -> None:
    store = _open(store_location)
    try:
        store.append("c", [_line(i) for i in range(10)])
        store.save_checkpoint("c", Checkpoint(3, "v1", b"old", b"l", ()))
        cp = Checkpoint(6, "v1", b"new", b"l", ("u",))
        with pytest.raises(ValueError):  # the checkpoint must follow the folded record
            store.fold("c", 4, _line(99), cp)
        with pytest.raises(ValueError):  # nothing there to fold
            store.fold("c", 10, _line(99), Checkpoint(11, "v1", b"x", b"l", ()))
        assert store.load_journal("c") == [_line(i) for i in range(10)]
        assert store.fold("c", 5, _line(99), cp) == 6
        assert store.append("c", [_line(100)]) == 7
    finally:
        store.close()
    store = _open(store_location)
    try:
        assert store.load_journal("c") == [*(_line(i) for i in range(5)), _line(99), _line(100)]
        assert store.load_checkpoint("c") == cp
        assert [(s.channel, s.length) for s in store.summaries()] == [("c", 7)]
    finally:
        store.close()


def test_a_tables_results_are_read_by_game_without_tricks(store: Store) -> None:
    for channel, game in (("c", 2), ("d", 1), ("c", 1)):
        stored = store.add_result(replace(_game(channel, game), row={"number": game}))
        assert stored.row == {"number": game}
    games = store.table_results("c")
    assert [(g.channel, g.game) for g in games] == [("c", 1), ("c", 2)]
    assert [g.row for g in games] == [{"number": 1}, {"number": 2}]
    assert all(g.tricks == () for g in games)
    assert store.table_results("nowhere") == []


def test_the_statistics_read_results_without_tricks_and_score_lines(store: Store) -> None:
    store.add_result(replace(_game("c", 1), row={"number": 1}))
    [bare] = store.results("discord:1", tricks=False)
    [whole] = store.results("discord:1")
    assert (bare.tricks, bare.row) == ((), None)
    assert whole.tricks and whole.row == {"number": 1}


def test_a_review_is_queued_once_and_kept_without_its_job(store_location: str) -> None:
    store = _open(store_location)
    store.append("c", [_line(0)], 0)  # (PostgreSQL: the table's server is known)
    assert store.queue_review("c", 1, '{"job":1}') is True
    assert store.queue_review("c", 1, '{"job":"again"}') is False
    assert store.queue_review("c", 2, '{"job":2}') is True
    assert store.queued_reviews() == [("c", 1, '{"job":1}'), ("c", 2, '{"job":2}')]
    assert store.review("c", 1) is None
    store.finish_review("c", 1, '{"review":1}')
    assert store.review("c", 1) == '{"review":1}'
    assert store.queued_reviews() == [("c", 2, '{"job":2}')]
    assert store.queue_review("c", 1, '{"job":"later"}') is False  # reviewed: never again
    store.close()
    store = _open(store_location)  # durable
    assert store.review("c", 1) == '{"review":1}'
    assert store.queued_reviews() == [("c", 2, '{"job":2}')]
    store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """Every store: in memory, SQLite, and PostgreSQL on a database whose locale lowers
    more than A to Z (``C.UTF-8``: its ``lower('Ä')`` is ``'ä'``)."""
    if request.param == "memory":
        yield open_store(None)  # type: ignore[misc]
        return
    if request.param == "sqlite":
        location = str(tmp_path / "dokobot.sqlite3")
    else:
        import psycopg
        from pg_server import PASSWORD

        base = request.getfixturevalue("pg_url")
        name = base.rsplit("/", 1)[1] + "_utf8"
        with psycopg.connect(base, password=PASSWORD, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' "
                       "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'")  # fmt: skip
            assert db.execute("SELECT lower('Ä')").fetchone() is not None
        location = base.rsplit("/", 1)[0] + "/" + name
    store = _open(location)
    yield store  # type: ignore[misc]
    store.close()


def test_every_store_folds_a_nicks_case_alike(any_store: Store) -> None:
    """A nick belongs to its last user, its case folded from A to Z only: what a chat
    tells apart (``Ärger``, ``ärger``; ``STRASSE``, ``straße``) stays apart in every store."""
    for user, nick in (("u:1", "Ärger"), ("u:2", "ärger"), ("u:3", "Anna[1]"), ("u:4", "ANNA[1]"),
                       ("u:5", "STRASSE"), ("u:6", "straße"), ("u:7", "ärgeR")):  # fmt: skip
        any_store.remember_nick(user, "x:" + nick)
    assert any_store.nick_history("x:") == [
        ("u:1", "x:Ärger"), ("u:4", "x:ANNA[1]"), ("u:5", "x:STRASSE"), ("u:6", "x:straße"),
        ("u:7", "x:ärgeR"),
    ]  # fmt: skip


def test_every_store_keeps_the_newest_checkpoint(any_store: Store) -> None:
    """An older checkpoint saved after a newer one changes nothing; a fold's replaces it."""
    any_store.append("c", [_line(i) for i in range(6)])
    new = Checkpoint(5, "v1", b"new", b"l", ())
    any_store.save_checkpoint("c", new)
    any_store.save_checkpoint("c", Checkpoint(3, "v1", b"old", b"l", ()))
    assert any_store.load_checkpoint("c") == new
    folded = Checkpoint(3, "v1", b"fold", b"l", ())
    assert any_store.fold("c", 2, _line(9), folded) == 3
    assert any_store.load_checkpoint("c") == folded
