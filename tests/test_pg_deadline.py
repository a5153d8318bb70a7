"""Every request of the PostgreSQL store has a deadline, for real: a server process paused
with SIGSTOP (nothing on the server's side can end that wait) while it serves a read, a
fold, a checkpoint, a setting or an append. A read is refused in time and changes nothing
("cannot be read right now"); a write is "not known yet" until its server process is gone;
a paused write never lets its process's leases run out; and a healthy write cut by its
deadline (a busy machine) is written once more."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from pg_server import PASSWORD, PgServer, sync_rep
from test_pg_fence import _next_move

from dokobot.adapters.discord.settings import DECK_PREFERENCE, UserSettings
from dokobot.host import userlangs
from dokobot.host.events import Event, Input
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.render.cards import deck_of
from dokobot.store import (
    Checkpoint,
    StoreError,
    StoreLocked,
    StoreUnavailable,
    StoreUnknown,
    pg_append,
)
from dokobot.store.postgres import PostgresStore

NAMES = ("anna", "ben", "carl", "dora")


def _line(i: int) -> str:
    return json.dumps({"k": "cmd", "user": "u", "name": "n", "text": f"/play {i}"})


def _admin(pg_server: PgServer) -> psycopg.Connection[Any]:
    return psycopg.connect(pg_server.url(), password=PASSWORD, autocommit=True)


@contextmanager
def _paused_pool(store: PostgresStore) -> Iterator[list[int]]:
    """The server process of every connection in the store's pool is paused (SIGSTOP) for
    the block (then SIGCONT); their pids."""
    pool = store._conns.pool
    for _ in range(200):  # (a connection in use comes back first)
        stats = pool.get_stats()
        if stats.get("pool_available", 0) == stats.get("pool_size", 0):
            break
        threading.Event().wait(0.05)
    idle = [pool.getconn(timeout=2)]
    while pool.get_stats().get("pool_available", 0):
        idle.append(pool.getconn(timeout=2))
    pids = [conn.info.backend_pid for conn in idle]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        for conn in idle:
            pool.putconn(conn)
        yield pids
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def _outcome(call: Callable[[], Any]) -> Any:
    """What ``call`` returns or raises, from a thread of its own (that must end: a call
    without a deadline would wait for the paused process for ever)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    assert not thread.is_alive(), "no deadline: it waits for the paused process"
    return out[0]


def _texts(events: list[Event]) -> list[str]:
    return [getattr(e, "text", "") for e in events]


async def _seat_four(svc: Service, channel: str = "c") -> None:
    for n in NAMES:
        await svc.handle(Input(channel, f"u:{n}", n, "/join"))
    await svc.handle(Input(channel, "u:anna", "anna", "/start"))


def test_a_read_from_a_paused_server_process_is_refused_in_time(pg_url: str) -> None:
    """Each kind of read on a paused server process: refused "cannot be read right now"
    (before, it waited as long as the pause); once the process goes on, the same reads
    answer."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=0.5)
    try:
        assert store.append("c", [_line(0)], 0) == 1
        reads: list[Callable[[], Any]] = [
            lambda: store.load_journal("c"),
            lambda: store.table_results("c"),
            lambda: store.summaries(),
        ]
        for read in reads:
            with _paused_pool(store):
                assert isinstance(_outcome(read), StoreUnavailable)
        assert store.load_journal("c") == [_line(0)]
        assert [s.channel for s in store.summaries()] == ["c"]
    finally:
        store.close()


async def test_a_player_asking_a_paused_store_hears_it_cannot_be_read_now(
    pg_url: str,
) -> None:
    """``/stats`` reads the stored games: on a paused server process the player hears, in
    their language, that the store cannot be read right now (before: no answer at all
    while the pause lasted); then it answers as usual."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=1.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    await svc.handle(Input("c", "u:ben", "ben", "/lang de"))
    try:
        for user, lang in (("anna", "en"), ("ben", "de")):
            with _paused_pool(store):
                asked = svc.handle(Input("c", f"u:{user}", user, "/stats"))
                events = await asyncio.wait_for(asked, 15)
            assert _texts(events) == [render(lang, "store_unreadable")]
        events = await svc.handle(Input("c", "u:anna", "anna", "/stats"))
        assert render("en", "store_unreadable") not in _texts(events)
    finally:
        await svc.close()


def test_a_write_to_a_paused_server_process_is_not_known_until_it_is_gone(
    pg_url: str,
) -> None:
    """A fold, a checkpoint and a setting sent to a paused server process: each is cut by
    its deadline and "not known yet" (never "not written": the process holds it and might
    still commit it), and the table's records are not read while that process is there.
    Resumed, it dies of its termination without writing: what is read then is true."""
    store = PostgresStore(pg_url, lease_s=5.0, resolve_s=1.0, read_s=0.5)
    try:
        store.append("c", [_line(i) for i in range(10)], 0)
        cp = Checkpoint(6, "v1", b"new", b"l", ())
        writes: list[Callable[[], Any]] = [
            lambda: store.fold("c", 5, _line(99), cp),
            lambda: store.save_checkpoint("c", cp),
            lambda: store.set_language("u:a", "de"),
        ]
        for write in writes:
            with _paused_pool(store):
                assert isinstance(_outcome(write), StoreUnknown)
                if write is not writes[-1]:  # (a table's: it waits for that process)
                    with pytest.raises(StoreUnknown):
                        store.load_journal("c")
        assert store.load_journal("c") == [_line(i) for i in range(10)]
        assert store.load_checkpoint("c") is None and store.language("u:a") is None
        assert store.fold("c", 5, _line(99), cp) == 6
        store.set_language("u:a", "de")
        assert store.language("u:a") == "de"
    finally:
        store.close()


async def test_a_language_change_on_a_paused_store_is_told_not_known_yet(pg_url: str) -> None:
    """``/lang de`` while the store's server process is paused: the player hears that it
    is not known yet whether the setting was saved (before: "did not count", or no answer
    while the pause lasted), in the language they had."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=1.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    try:
        await svc.handle(Input("x", "u:zed", "zed", "/lang en"))  # (known: not read again)
        with _paused_pool(store):
            asked = svc.handle(Input("x", "u:zed", "zed", "/lang de"))
            events = await asyncio.wait_for(asked, 15)
        assert _texts(events) == [render("en", "setting_unknown")]
        assert svc.router.langs.get("u:zed") == "en"
    finally:
        await svc.close()


def test_a_paused_append_does_not_let_the_leases_run_out(pg_server: PgServer, pg_url: str) -> None:
    """An append's server process is paused in its commit (it holds its process's lease
    rows) for longer than the lease: the lease is still renewed (before, the renewal waited
    behind the paused append, the lease ran out, and a second process could take over
    once that append was gone), and a second process for the same servers refuses."""
    store = PostgresStore(pg_url, lease_s=3.0)
    admin = _admin(pg_server)
    reader = psycopg.connect(pg_url, password=PASSWORD, autocommit=True)
    pid = 0
    try:
        assert store.append("c", [_line(0)], 0) == 1
        sync_rep(admin, "nobody")
        results: list[list[int | Exception]] = []
        writer, pid = _append_in_commit(store, admin, "c", results)
        assert pid, "no commit waited for the standby"
        os.kill(pid, signal.SIGSTOP)
        sync_rep(admin, "")
        writer.join(20)
        assert isinstance(results[-1][0], StoreUnknown), results
        for _ in range(16):  # 4 s, past the lease; the paused process holds the rows
            threading.Event().wait(0.25)
            row = reader.execute(
                "SELECT bool_and(expires > now()) FROM leases WHERE owner = %s", (store.owner,)
            ).fetchone()
            assert row is not None and row[0], "the lease ran out behind the paused append"
        with pytest.raises(StoreLocked):
            PostgresStore(pg_url, lease_s=3.0, wait_s=0.5)
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        sync_rep(admin, "")
        admin.close()
        reader.close()
        store.close()


def _append_in_commit(
    store: PostgresStore,
    admin: psycopg.Connection[Any],
    channel: str,
    results: list[list[int | Exception]],
) -> tuple[threading.Thread, int]:
    """An append to ``channel`` (on a thread; its answer goes to ``results``) whose commit
    waits for the standby: the thread and its server process (0 if none came to wait; the
    setting reaches the server's processes a moment after the reload)."""
    for _ in range(50):
        n = len(store.load_journal(channel))
        writer = threading.Thread(
            target=lambda n=n: results.append(store.append_many([(channel, [_line(n)], n)]))
        )
        writer.start()
        pid = _waiting(admin, store.owner, writer)
        if pid:
            return writer, pid
        writer.join()
    return writer, 0


def _waiting(admin: psycopg.Connection[Any], owner: str, writer: threading.Thread) -> int:
    """The pid of ``owner``'s backend whose commit waits for the standby (0: the write
    ended first)."""
    while writer.is_alive():
        row = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep' "
            "AND application_name = %s",
            (owner,),
        ).fetchone()
        if row is not None:
            return int(row[0])
        threading.Event().wait(0.02)
    return 0


# ------------------------------------------------------------------ a healthy write cut
@pytest.fixture
def cut_first(monkeypatch: pytest.MonkeyPatch) -> Callable[[PostgresStore, int], list[float]]:
    """Make the first ``n`` appends' deadlines pass at once (a very busy machine), the
    later ones never; a row held by another session is waited for as long as it takes, not
    given up after ``LOCK_WAIT_MS`` (so nothing here depends on how fast the machine is).
    The appends' deadlines asked for, in order (the store's other requests keep theirs:
    give it another ``read_s`` than ``STALL_S``)."""
    monkeypatch.setattr(pg_append, "LOCK_WAIT_MS", 600_000)

    def patch(store: PostgresStore, n: int) -> list[float]:
        enter = store._conns.stalls.enter
        asked: list[float] = []

        def at_once(conn: psycopg.Connection[Any], within_s: float) -> Any:
            if within_s != pg_append.STALL_S:
                return enter(conn, within_s)
            asked.append(within_s)
            return enter(conn, 0.0 if len(asked) <= n else 600.0)

        monkeypatch.setattr(store._conns.stalls, "enter", at_once)
        return asked

    return patch


def test_a_healthy_write_cut_by_its_deadline_is_written_once_more(
    pg_url: str, cut_first: Callable[[PostgresStore, int], list[float]]
) -> None:
    """The append waits for its table's row (held by another session: nothing can be
    stored yet) when its deadline passes: it is cut, its server process ended and the
    append read back; not stored, it is written once more, and counts once the row is
    free. (The test of 1c08354 was flaky: its row was freed by a timer after 1 s and the
    row given up after 0.5 s, so on a busy machine the append was written before the cut,
    or went on waiting alone without a deadline, and was never written once more.)"""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=3.0)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    try:
        assert store.append_many([("a", [_line(0)], 0)]) == [1]
        asked = cut_first(store, 1)
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        results: list[list[int | Exception]] = []
        writer = threading.Thread(
            target=lambda: results.append(store.append_many([("a", [_line(1)], 1)]))
        )
        writer.start()
        while len(asked) < 2:  # the second write: the row is freed only then
            assert writer.is_alive(), results
            threading.Event().wait(0.02)
        assert store.load_journal("a") == [_line(0)]
        locker.rollback()
        writer.join(20)
        assert results == [[2]] and len(asked) == 2
        assert store.load_journal("a") == [_line(0), _line(1)]
    finally:
        locker.close()
        store.close()


def test_a_write_cut_twice_is_refused_and_not_stored(
    pg_url: str, cut_first: Callable[[PostgresStore, int], list[float]]
) -> None:
    """Cut by its deadline, not stored, written once more and cut again: refused ("did
    not count"), which is true: its server processes are gone and nothing was stored."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=3.0)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    try:
        assert store.append_many([("a", [_line(0)], 0)]) == [1]
        asked = cut_first(store, 2)
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        [refused] = _outcome(lambda: store.append_many([("a", [_line(1)], 1)]))
        assert type(refused) is StoreError and len(asked) == 2, refused
        locker.rollback()
        assert store.load_journal("a") == [_line(0)]
        assert store.append_many([("a", [_line(1)], 1)]) == [2]
    finally:
        locker.close()
        store.close()


def test_a_write_cut_after_its_commit_counts_once(
    pg_server: PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The append's commit is written and waits for a standby when its deadline passes:
    it is cut, its server process ended, and the read-back finds it stored: it counts,
    and is not written a second time."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=3.0)
    admin = _admin(pg_server)
    watch = store._conns.stalls
    flights: list[Any] = []
    enter = watch.enter

    def noted(conn: psycopg.Connection[Any], within_s: float) -> Any:
        if within_s != pg_append.STALL_S:  # (not an append's)
            return enter(conn, within_s)
        flights.append(enter(conn, 600.0))
        return flights[-1]

    try:
        assert store.append_many([("a", [_line(0)], 0)]) == [1]
        sync_rep(admin, "nobody")
        monkeypatch.setattr(watch, "enter", noted)
        results: list[list[int | Exception]] = []
        writer, _ = _append_in_commit(store, admin, "a", results)
        with watch._changed:  # its deadline passes now, in its commit
            flights[-1].deadline = 0.0
            watch._changed.notify()
        writer.join(20)
        stored = len(store.load_journal("a"))
        assert results[-1] == [stored] and flights[-1].cut, results
        assert len(flights) == len(results), "written a second time"
    finally:
        sync_rep(admin, "")
        admin.close()
        store.close()


# ------------------------------------------------------------------ waits for a lock
async def test_a_move_whose_row_another_session_holds_is_refused_in_time(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's row is held by another session (``FOR UPDATE``, never released while
    the move waits): the append waits for it on its own, at most ``ALONE_WAIT_MS`` (before:
    as long as the other session held it, the player without an answer); then the player
    hears "did not count", which is true (nothing was stored), and the next move counts
    once the row is free."""
    monkeypatch.setattr(pg_append, "ALONE_WAIT_MS", 1500)
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    try:
        stored = len(store.load_journal("c"))
        locker.execute("SELECT 1 FROM tables WHERE channel = 'c' FOR UPDATE")
        loop = asyncio.get_running_loop()
        began = loop.time()
        events = await asyncio.wait_for(svc.handle(_next_move(svc)), 20)
        waited = loop.time() - began
        assert _texts(events) == [render("en", "store_failed")]
        assert 1.5 <= waited < 1.5 + 5, waited
        assert len(store.load_journal("c")) == stored
    finally:
        locker.rollback()
        locker.close()
    events = await asyncio.wait_for(svc.handle(_next_move(svc)), 20)
    assert render("en", "store_failed") not in _texts(events)
    assert len(store.load_journal("c")) == stored + 1
    await svc.close()


def test_a_start_while_another_session_holds_the_leases_refuses_in_time(
    pg_server: PgServer, pg_url: str
) -> None:
    """Another session holds the table of leases (its transaction open, its server process
    paused): a process that starts waits for it at most its ``wait_s`` and refuses with a
    line that says why (before: it waited as long as the other session, for ever here);
    once that session is gone it starts."""
    PostgresStore(pg_url, lease_s=5.0).close()  # (the schema)
    holder = psycopg.connect(pg_url, password=PASSWORD)
    pid = holder.info.backend_pid
    try:
        holder.execute("LOCK TABLE leases IN ROW EXCLUSIVE MODE")
        os.kill(pid, signal.SIGSTOP)
        began = time.monotonic()
        refused = _outcome(lambda: PostgresStore(pg_url, lease_s=5.0, wait_s=1.0))
        waited = time.monotonic() - began
        assert isinstance(refused, StoreLocked), refused
        assert "held by another session" in str(refused) and PASSWORD not in str(refused)
        assert 1.0 <= waited < 6.0, waited
    finally:
        os.kill(pid, signal.SIGCONT)
        holder.close()
    PostgresStore(pg_url, lease_s=5.0, wait_s=1.0).close()


def test_a_start_while_another_process_migrates_refuses_in_time(
    pg_server: PgServer, pg_url: str
) -> None:
    """Another session holds the schema's migration lock (a dokobot process paused while it
    migrated): a start waits for it at most its ``schema_s`` and refuses with a line that
    says why (before: it waited for ever); once that session is gone it starts."""
    PostgresStore(pg_url, lease_s=5.0).close()  # (the schema)
    holder = psycopg.connect(pg_url, password=PASSWORD)
    pid = holder.info.backend_pid
    try:
        holder.execute("SELECT pg_advisory_xact_lock(7210491)")  # (what migrate takes)
        os.kill(pid, signal.SIGSTOP)
        began = time.monotonic()
        refused = _outcome(lambda: PostgresStore(pg_url, lease_s=5.0, schema_s=1.0))
        waited = time.monotonic() - began
        assert isinstance(refused, StoreUnavailable), refused
        assert "did not answer within 1 s" in str(refused), refused
        assert PASSWORD not in str(refused)
        assert 1.0 <= waited < 5.0, waited
    finally:
        os.kill(pid, signal.SIGCONT)
        holder.close()
    PostgresStore(pg_url, lease_s=5.0, schema_s=1.0).close()


# ------------------------------------------------------------------ users' languages
async def _ticking(gaps: list[float]) -> None:
    """Note the longest time the event loop did not answer (every 20 ms)."""
    loop = asyncio.get_running_loop()
    last = loop.time()
    while True:
        await asyncio.sleep(0.02)
        gaps[0] = max(gaps[0], loop.time() - last - 0.02)
        last = loop.time()


async def test_a_language_not_in_memory_holds_up_nothing_on_a_paused_store(pg_url: str) -> None:
    """A user's ``/lang`` is in the store, not in memory, and the store's server processes
    are paused: asking for it answers at once, "none chosen" (before: the event loop, so
    every table of the process, waited for the paused read), and his input is answered in
    the table's language once ``LOOKUP_S`` has passed; once the store answers, his language
    is read and kept."""
    store = PostgresStore(pg_url, lease_s=5.0, read_s=2.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    gaps = [0.0]
    ticker = asyncio.create_task(_ticking(gaps))
    try:
        store.set_language("u:zoe", "de")  # (by another process: not in this one's memory)
        expected = _texts(await svc.handle(Input("x", "u:new", "new", "/help")))
        with _paused_pool(store):
            await asyncio.sleep(0.1)  # (the pausing itself holds the loop up: not counted)
            gaps[0] = 0.0
            assert svc.router.lang_of("u:zoe") == "en" and svc.language_of("u:zoe") is None
            events = await asyncio.wait_for(svc.handle(Input("x", "u:zoe", "zoe", "/help")), 10)
            assert _texts(events) == expected
            assert gaps[0] < 0.5, f"the event loop stood still for {gaps[0]:.2f} s"
        for _ in range(3):  # (the first may wait for the read that met the pause, and failed)
            await svc.langs.fetch(["u:zoe"], 10)
            if svc.language_of("u:zoe") is not None:
                break
        assert svc.language_of("u:zoe") == "de"
        events = await svc.handle(Input("x", "u:zoe", "zoe", "/help"))
        assert _texts(events) != expected
    finally:
        ticker.cancel()
        await svc.close()


async def test_a_stored_setting_asked_of_a_paused_store_holds_up_nothing(pg_url: str) -> None:
    """An adapter asks for a user's stored setting (his ``/deck``) while the store's server
    processes are paused: the answer is "cannot be read right now" within ``LOOKUP_S``
    (before: the event loop waited for the paused read), the adapter uses its default this
    time without keeping it, and reads the choice once the store answers."""
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    settings = UserSettings(svc, "here", lambda user: None)
    gaps = [0.0]
    ticker = asyncio.create_task(_ticking(gaps))
    loop = asyncio.get_running_loop()
    try:
        await svc.remember_preference("discord:7", DECK_PREFERENCE, "german")
        # (one look-up per pause: a second one could get a new connection from the pool)
        with _paused_pool(store):
            await asyncio.sleep(0.1)  # (the pausing itself holds the loop up: not counted)
            gaps[0] = 0.0
            began = loop.time()
            with pytest.raises(StoreUnavailable):
                await svc.preference_of("discord:7", DECK_PREFERENCE)
            assert loop.time() - began < userlangs.LOOKUP_S + 1.0
            assert gaps[0] < 0.5, f"the event loop stood still for {gaps[0]:.2f} s"
        with _paused_pool(store):
            assert await settings.deck(7) == deck_of(None) != "german"
        assert await settings.deck(7) == "german"
    finally:
        ticker.cancel()
        await svc.close()
