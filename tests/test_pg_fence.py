"""The fence per table and epoch on PostgreSQL (a reshard, a wedged process, a table of
another shard), an answer lost at the commit, and a database that is down."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import threading
import time
from typing import Any

import psycopg
import pytest
from pg_server import PASSWORD, PgServer, sync_rep

from dokobot.adapters.discord.shards import shard_of, shard_part
from dokobot.adapters.irc.network import network_part
from dokobot.host.events import Event, Input, Public
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.host.table import command_for
from dokobot.stats.record import FinishedGame
from dokobot.store import (
    Checkpoint,
    Scope,
    StoreLocked,
    StoreUnavailable,
    StoreUnknown,
    open_store,
)
from dokobot.store.postgres import PostgresStore

NAMES = ("anna", "ben", "carl", "dora")


def _drained(pool: Any) -> list[Any]:
    """Every connection of the store's ``pool`` taken out: first it settles (a connection in
    use comes back), then connections are taken until none has come for 0.2 s (a pool that
    grew for a waiting client adds its new connection a moment later)."""
    for _ in range(200):
        stats = pool.get_stats()
        if stats.get("pool_available", 0) == stats.get("pool_size", 0):
            break
        time.sleep(0.05)
    taken = [pool.getconn(timeout=2)]
    quiet = time.monotonic() + 0.2
    while time.monotonic() < quiet:
        if pool.get_stats().get("pool_available", 0):
            taken.append(pool.getconn(timeout=2))
            quiet = time.monotonic() + 0.2
        else:
            time.sleep(0.01)
    return taken


def _line(i: int) -> str:
    return json.dumps({"k": "cmd", "user": "u", "name": "n", "text": f"/play {i}"})


def _guild(shard: int, count: int) -> int:
    return next(g << 22 for g in range(1, 100) if shard_of(g << 22, count) == shard)


def _server_line(server: str) -> str:
    return json.dumps({"k": "server", "text": server})


def _result(channel: str, server: str) -> FinishedGame:
    return FinishedGame.from_json(json.dumps({
        "server": server, "channel": channel, "game": 1, "series": 1, "finished_at": 1.5,
        "seats": [["u:a", "a", False, None]], "result": {"points": [120, 120]},
        "tricks": [], "calls": [], "rated": True,
    }))  # fmt: skip


def test_the_database_checks_the_server_and_key_a_writer_names(pg_url: str) -> None:
    """How a chat splits its servers is its adapter's (the database knows no chat): the
    writer names each table's server and that server's lease key, and the database refuses
    a write that names another server than the table's stored one, or a key this process
    does not hold; the store then reads the table's server again."""
    zero, one = f"discord:{_guild(0, 2)}", f"discord:{_guild(1, 2)}"
    store = PostgresStore(pg_url, scope=Scope((shard_part(2, (0,)),)), lease_s=2)
    try:
        # a table whose server is known only from its record (not from its channel)
        record = json.dumps({"k": "server", "text": zero}, separators=(",", ":"))
        assert store.append("t", [record, _line(0)], 0) == 2
        store._servers.forget("t")  # (as a fresh process: the stored server is read)
        assert store.append("t", [_line(1)], 2) == 3
        with store._conns.db() as db:
            for named, key in ((one, "discord:shard:0/2"), (zero, "discord:shard:1/2")):
                with pytest.raises(psycopg.Error) as refused:
                    db.execute(
                        "SELECT dokobot_append(%s, 1, 2, %b, %b, %b, %b, %b, %b, %b, NULL)",
                        (store.owner, ["t"], [3], [1], [_line(2)], [None], [named], [key]),
                    )
                assert refused.value.sqlstate == "DKL02", named
        store._servers.note("t", one)  # a process that takes the table to be of another server
        with pytest.raises(StoreLocked):
            store.append("t", [_line(2)], 3)
        assert store.append("t", [_line(2)], 3) == 4  # read again: the stored one's
        assert store.load_journal("t")[1:] == [_line(0), _line(1), _line(2)]
    finally:
        store.close()


def test_a_reshard_fences_every_write_of_the_old_epoch(pg_url: str) -> None:
    """A process of shard count 2 that stopped renewing (paused) past its lease: a process
    of shard count 4 takes over, and every write of the old one is refused (append, fold,
    checkpoint, result, settings); it learns it is fenced."""
    server = f"discord:{_guild(1, 4)}"
    channel = f"{server}:1"
    old = PostgresStore(pg_url, scope=Scope((shard_part(2, (0, 1)),)), lease_s=1)
    told: list[str] = []
    old.on_lost = told.append
    assert old.append(channel, [_server_line(server), _line(0)], 0) == 2
    old._leases.stop()  # no more renewals: as if paused
    new = PostgresStore(pg_url, scope=Scope((shard_part(4, (0, 1, 2, 3)),)), lease_s=1,
                        wait_s=5)  # fmt: skip
    try:
        cp = Checkpoint(2, "v", b"s", b"", ())
        writes: list[Any] = [
            lambda: old.append(channel, [_line(1)], 2),
            lambda: old.append_many([(channel, [_line(1)], 2)])[0],
            lambda: old.save_checkpoint(channel, cp),
            lambda: old.fold(channel, 1, _line(1), cp),
            lambda: old.add_result(_result(channel, server)),
            lambda: old.set_language("u:a", "de"),
            lambda: old.set_preference("u:a", "discord_prompts", "dm"),
            lambda: old.remember_nick("u:a", "irc:net:a"),
            lambda: old.set_web_enabled(server, False),
        ]
        for write in writes:
            with pytest.raises(StoreLocked, match="another dokobot took over"):
                result = write()
                if isinstance(result, Exception):
                    raise result
        assert told == ["another dokobot took over Discord shards 0, 1 of 2"]
        assert new.load_journal(channel) == [_server_line(server), _line(0)]
        assert new.load_checkpoint(channel) is None and new.table_results(channel) == []
        assert new.language("u:a") is None and new.preference("u:a", "discord_prompts") is None
        assert new.append(channel, [_line(1)], 2) == 3  # the new epoch writes
    finally:
        new.close()
        old.close()


def test_a_table_of_a_shard_the_process_does_not_hold_is_not_written(pg_url: str) -> None:
    """The fence is per table: the lease of the table's own shard, not any lease."""
    mine, theirs = f"discord:{_guild(0, 2)}", f"discord:{_guild(1, 2)}"
    zero = PostgresStore(pg_url, scope=Scope((shard_part(2, (0,)),)), lease_s=2)
    one = PostgresStore(pg_url, scope=Scope((shard_part(2, (1,)),)), lease_s=2)
    try:
        assert one.append(f"{theirs}:5", [_server_line(theirs)], 0) == 1
        with pytest.raises(StoreLocked, match=r"discord:shard:1/2, which this process does"):
            zero.append(f"{theirs}:5", [_line(0)], 1)
        with pytest.raises(StoreLocked, match="discord:shard:1/2"):
            zero.append(f"{theirs}:6", [_server_line(theirs)], 0)
        with pytest.raises(StoreLocked, match="discord:shard:1/2"):
            zero.save_checkpoint(f"{theirs}:5", Checkpoint(1, "v", b"s", b"", ()))
        with pytest.raises(StoreLocked, match="discord:shard:1/2"):
            zero.add_result(_result(f"{theirs}:5", theirs))
        assert zero.append(f"{mine}:5", [_server_line(mine)], 0) == 1
        assert zero.lost is None, "a table of another shard does not fence the process"
        assert one.load_journal(f"{theirs}:5") == [_server_line(theirs)]
        assert one.load_journal(f"{theirs}:6") == []
    finally:
        zero.close()
        one.close()


def test_a_server_record_never_moves_a_table_to_another_server(pg_url: str) -> None:
    """A write that carries a server record names the server the writer takes the table to
    be of: for an existing table of another server, the database refuses it even when the
    writer holds the lease of the server it names (else it would move the table away from
    the process that holds it, and two processes would write one table)."""
    mine, theirs = f"discord:{_guild(0, 2)}", f"discord:{_guild(1, 2)}"
    zero = PostgresStore(pg_url, scope=Scope((shard_part(2, (0,)),)), lease_s=2)
    one = PostgresStore(pg_url, scope=Scope((shard_part(2, (1,)),)), lease_s=2)
    channel = "discord:77:5"  # (its server is known from its record only)

    def record(server: str) -> str:  # (as the host writes it)
        return json.dumps({"k": "server", "text": server}, separators=(",", ":"))

    try:
        assert one.append(channel, [record(theirs), _line(0)], 0) == 2
        with pytest.raises(StoreLocked, match=f"is of server {theirs}, not {mine}"):
            zero.append(channel, [record(mine), _line(1)], 2)
        assert zero.lost is None
        assert one.append(channel, [_line(1)], 2) == 3  # still the table of its holder
        assert one.load_journal(channel) == [record(theirs), _line(0), _line(1)]
        # the record of the table's own server goes on being accepted (a restored journal)
        assert one.append(channel, [record(theirs)], 3) == 4
    finally:
        zero.close()
        one.close()


async def test_a_wedged_event_loop_lets_its_leases_run_out(pg_url: str) -> None:
    """The leases are renewed only while the process's event loop answers: a process whose
    loop is stuck is taken over after ``lease_s``, and learns it once the loop runs."""
    scope = Scope((network_part("net"),))
    old = await asyncio.to_thread(PostgresStore, pg_url, scope=scope, lease_s=1)
    told = threading.Event()
    old.on_lost = lambda reason: told.set()
    old.watch_loop(asyncio.get_running_loop())
    taken: list[object] = []

    def take_over() -> None:
        try:
            taken.append(PostgresStore(pg_url, scope=scope, lease_s=1, wait_s=6))
        except Exception as exc:
            taken.append(exc)

    thief = threading.Thread(target=take_over)
    thief.start()
    deadline = time.monotonic() + 10
    while thief.is_alive() and time.monotonic() < deadline:
        time.sleep(0.1)  # the event loop is wedged: it answers nothing
    thief.join()
    assert isinstance(taken[0], PostgresStore), taken
    try:
        await asyncio.to_thread(told.wait, 5)
        assert told.is_set() and old.lost is not None
        with pytest.raises(StoreLocked):
            await asyncio.to_thread(old.append, "irc:net:#doko", [_line(0)], 0)
    finally:
        taken[0].close()
        await asyncio.to_thread(old.close)


# ------------------------------------------------------------------ an answer lost at commit
async def _seat_four(svc: Service, channel: str = "c") -> None:
    for n in NAMES:
        await svc.handle(Input(channel, f"u:{n}", n, "/join"))
    await svc.handle(Input(channel, "u:anna", "anna", "/start"))


def _next_move(svc: Service, channel: str = "c") -> Input:
    table = svc.router.tables[channel]
    game = table.game
    assert game is not None
    seat = table.seats[game.turn]
    return Input(channel, seat.user, seat.name, command_for(game.legal_actions()[0]))


def _log_length(svc: Service, channel: str = "c") -> int:
    game = svc.router.tables[channel].game
    assert game is not None
    return len(game.log)


def _admin(pg_server: PgServer) -> psycopg.Connection[Any]:
    return psycopg.connect(pg_server.url(), password=PASSWORD, autocommit=True)


def _backend(
    admin: psycopg.Connection[Any], where: str, answer: asyncio.Task[Any] | None = None
) -> int | None:
    """The pid of the backend running ``dokobot_append`` that ``where`` describes (None if
    ``answer`` came first)."""
    deadline = time.monotonic() + 10
    while answer is None or not answer.done():
        row = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT dokobot_append%%' "
            f"AND {where}"
        ).fetchone()
        if row is not None:
            return int(row[0])
        assert time.monotonic() < deadline, "the append never got there"
        time.sleep(0.02)
    return None


async def _move_at_commit(
    svc: Service, admin: psycopg.Connection[Any], channel: str = "c", skip: tuple[int, ...] = ()
) -> tuple[Input, asyncio.Task[list[Event]], int, int, int]:
    """A move whose commit waits for the standby (the setting reaches the server's
    processes a moment after the reload: moves before that commit as usual): the move, its
    answer to come, the append's backend (none of ``skip``), the journal's length and the
    game's before it."""
    where = "wait_event = 'SyncRep'" + "".join(f" AND pid <> {pid}" for pid in skip)
    for _ in range(50):
        move = _next_move(svc, channel)
        stored, before = len(svc.store.load_journal(channel)), _log_length(svc, channel)
        answer = asyncio.create_task(svc.handle(move))
        pid = await asyncio.to_thread(_backend, admin, where, answer)
        if pid is not None:
            return move, answer, pid, stored, before
        await answer
    raise AssertionError("no commit waited for the standby")


async def test_an_action_committed_whose_answer_was_lost_counts_and_is_told_so(
    pg_server: PgServer, pg_url: str
) -> None:
    """The commit is written, then its session is ended before the answer leaves (the
    commit waits for a standby; the backend is terminated, as a crash at the commit would):
    the store reads the records at the append's position back and the player hears that
    the move counted, never "could not be saved"."""
    store = open_store(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    admin = _admin(pg_server)
    try:
        sync_rep(admin, "nobody")
        move, answer, pid, stored, before = await _move_at_commit(svc, admin)
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    finally:
        sync_rep(admin, "")
        admin.close()
    events = await answer
    assert render("en", "store_failed") not in [getattr(e, "text", "") for e in events]
    assert any(isinstance(e, Public) for e in events), events
    assert _log_length(svc) == before + 1
    assert len(store.load_journal("c")) == stored + 1
    again = await svc.handle(move)  # the player repeats it: refused, after the truth
    assert len(store.load_journal("c")) == stored + 1 and _log_length(svc) == before + 1
    assert render("en", "store_failed") not in [getattr(e, "text", "") for e in again]
    await svc.handle(_next_move(svc))
    assert len(store.load_journal("c")) == stored + 2
    await svc.close()


async def test_an_action_whose_session_ended_before_the_commit_is_refused(
    pg_server: PgServer, pg_url: str
) -> None:
    """The same lost answer, but the transaction had not committed (its session ended while
    it waited for a lock): the read-back finds nothing at its position, the player hears
    that nothing was changed, and the move then counts once."""
    store = open_store(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    move = _next_move(svc)
    stored, before = len(store.load_journal("c")), _log_length(svc)
    admin = psycopg.connect(pg_url, password=PASSWORD)
    try:
        admin.execute("SELECT 1 FROM tables WHERE channel = 'c' FOR UPDATE")
        answer = asyncio.create_task(svc.handle(move))
        watcher = _admin(pg_server)
        pid = await asyncio.to_thread(_backend, watcher, "wait_event_type = 'Lock'")
        watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
        watcher.close()
        await asyncio.sleep(0.3)
    finally:
        admin.rollback()
        admin.close()
    events = await answer
    assert [getattr(e, "text", "") for e in events] == [render("en", "store_failed")]
    assert len(store.load_journal("c")) == stored and _log_length(svc) == before
    events = await svc.handle(move)
    assert any(isinstance(e, Public) for e in events)
    assert len(store.load_journal("c")) == stored + 1 and _log_length(svc) == before + 1
    await svc.close()


async def test_an_answer_lost_while_the_database_stops_is_not_known_then_told(
    pg_server: PgServer, pg_url: str
) -> None:
    """PostgreSQL stops at the commit: the store cannot read back, so the player hears that
    it is not known yet (not "nothing was changed"); when the database is back, the channel
    is told where the game stands, which holds the move (it had committed)."""
    store = PostgresStore(pg_url, lease_s=5.0, resolve_s=1.0)
    svc = Service(Router(seed=8), store)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    await svc.start()
    await _seat_four(svc)
    admin = _admin(pg_server)
    try:
        sync_rep(admin, "nobody")
        _, answer, _, stored, _ = await _move_at_commit(svc, admin)
    finally:
        admin.close()
    await asyncio.to_thread(pg_server.stop)
    try:
        events = await answer
        assert [getattr(e, "text", "") for e in events] == [render("en", "store_unknown")]
    finally:
        await asyncio.to_thread(pg_server.start)
        admin = _admin(pg_server)
        sync_rep(admin, "")
        admin.close()
    deadline = time.monotonic() + 30
    while not any(isinstance(e, Public) for e in pushed):
        assert time.monotonic() < deadline, "the channel was never told"
        await asyncio.sleep(0.1)
    assert len(store.load_journal("c")) == stored + 1, "it had committed"
    assert "c" in svc.router.tables and svc.router.tables["c"].running
    await svc.close()


# ------------------------------------------------------------------ a database that is down
@pytest.mark.long
async def test_while_the_database_is_down_refusals_are_quick_and_bots_resume_by_themselves(
    pg_server: PgServer, pg_url: str
) -> None:
    """Once the store knows the database is down, every action is refused within a second
    (no connection waits); a table whose computer players could not store their move plays
    on by itself when the database is back, without anybody typing."""
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=2, bot_factory=default_bot_factory()), store)
    await svc.start()
    await svc.handle(Input("c", "u:anna", "anna", "/join"))
    for _ in range(3):
        await svc.handle(Input("c", "u:anna", "anna", "/join bot random"))
    await svc.handle(Input("c", "u:anna", "anna", "/start"))
    await svc.handle(Input("d", "u:ben", "ben", "/join"))
    table = svc.router.tables["c"]
    while True:  # anna moves, and then the computer players must (after 2 s)
        await svc.idle()
        svc.bot_delay = 2.0
        await svc.handle(_next_move(svc))
        if table.bot_to_move() is not None:
            break
        svc.bot_delay = 0.0
    stored = len(store.load_journal("c"))
    await asyncio.to_thread(pg_server.stop)  # before the computer players' move
    try:
        started = time.monotonic()
        events = await svc.handle(Input("d", "u:ben", "ben", "/leave"))  # finds it down
        first = time.monotonic() - started
        assert [getattr(e, "text", "") for e in events] == [render("en", "store_failed")]
        # docs/operating.md: the first refusal waits up to 2 s for a connection (a generous
        # bound here: the machine is shared)
        assert first < 2.0 + 4.0, first
        took = []
        for _ in range(3):
            started = time.monotonic()
            events = await svc.handle(Input("d", "u:ben", "ben", "/leave"))
            took.append(time.monotonic() - started)
            assert [getattr(e, "text", "") for e in events] == [render("en", "store_failed")]
        assert max(took) < 1.0, took
        # the computer players' move (due 2 s after anna's) is refused meanwhile
        bots = svc.turns._bot_tasks["c"]
        deadline = time.monotonic() + 20
        while not bots.done():
            assert time.monotonic() < deadline, "the computer players' move was not refused"
            await asyncio.sleep(0.1)
    finally:
        await asyncio.to_thread(pg_server.start)
    deadline = time.monotonic() + 30

    def resumed() -> bool:  # the pool may still be reconnecting: not yet, then
        try:
            return not store.is_down() and len(store.load_journal("c")) > stored
        except StoreUnavailable:
            return False

    while not await asyncio.to_thread(resumed):  # nobody types
        assert time.monotonic() < deadline, "the computer players did not resume"
        await asyncio.sleep(0.2)
    svc.bot_delay = 0.0
    await svc.idle()
    table = svc.router.tables["c"]
    assert table.running and table.bot_to_move() is None, "until anna must move"
    await svc.close()


async def test_a_fence_found_while_the_service_starts_stops_the_process(
    pg_server: PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dokobot run`` whose servers are taken over while its service is still starting
    stops with the reason (exit 2), not as if it had been stopped by a signal."""
    from dokobot.config import parse_config
    from dokobot.runner import serve

    config = parse_config(f"store:\n  url: {pg_url}\n  lease_s: 1\nirc:\n  host: 127.0.0.1\n"
                          "  port: 9\n  network: net\n  channels: ['#doko']\n")  # fmt: skip
    starting = asyncio.Event()

    async def slow_start(self: Service) -> list[Event]:
        starting.set()
        await asyncio.sleep(30)
        return []

    monkeypatch.setattr(Service, "start", slow_start)
    running = asyncio.create_task(serve(config))
    await asyncio.wait_for(starting.wait(), 30)
    admin = psycopg.connect(pg_url, password=PASSWORD, autocommit=True)
    try:
        admin.execute("UPDATE leases SET owner = 'another process'")
    finally:
        admin.close()
    with pytest.raises(StoreLocked, match="another dokobot took over IRC network net; this"):
        await asyncio.wait_for(running, 20)


# ------------------------------------------------------------------ a lost answer, for real
def _client_socket(client_port: int) -> socket.socket:
    """This process's TCP connection whose local port is ``client_port`` (a duplicate of its
    descriptor: a shutdown of it ends the connection for its owner too)."""
    for name in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        try:
            if sock.family == socket.AF_INET and sock.getsockname()[1] == client_port:
                return sock
        except OSError:
            pass
        sock.close()  # (the duplicate only)
    raise AssertionError(f"no connection from port {client_port}")


async def _lost_answer_round(
    svc: Service, store: PostgresStore, pg_server: PgServer, pg_url: str, pause_s: float
) -> str:
    """One move whose append queues on the table's row (held FOR UPDATE by another session),
    whose backend is paused (SIGSTOP), whose lock is released, and whose client connection
    is then shut down for real; the backend goes on ``pause_s`` seconds later (SIGCONT).
    What the player was told, checked against what the store holds in the end: "counted",
    "refused" or "unknown"."""
    move = _next_move(svc)
    stored, before = len(store.load_journal("c")), _log_length(svc)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    watcher = _admin(pg_server)
    resumed = threading.Event()
    try:
        locker.execute("SELECT 1 FROM tables WHERE channel = 'c' FOR UPDATE")
        answer = asyncio.create_task(svc.handle(move))
        pid = await asyncio.to_thread(_backend, watcher, "wait_event_type = 'Lock'")
        assert pid is not None
        row = watcher.execute(
            "SELECT client_port FROM pg_stat_activity WHERE pid = %s", (pid,)
        ).fetchone()
        assert row is not None
        os.kill(pid, signal.SIGSTOP)
        locker.rollback()  # the lock is free: the paused backend would take it and commit
        sock = _client_socket(int(row[0]))
        sock.shutdown(socket.SHUT_RDWR)  # the client's connection dies, for real
        sock.close()

        def resume() -> None:
            os.kill(pid, signal.SIGCONT)
            resumed.set()

        timer = threading.Timer(pause_s, resume)
        timer.start()
        events = await answer
        told = [getattr(e, "text", "") for e in events]
        await asyncio.to_thread(resumed.wait, pause_s + 5)
        await asyncio.sleep(0.5)  # whatever the resumed backend does, it has done
    finally:
        locker.close()
        if not resumed.is_set():
            os.kill(pid, signal.SIGCONT)
        watcher.close()
    held = len(store.load_journal("c"))
    if told == [render("en", "store_failed")]:
        assert held == stored, 'told "did not count", but the move was stored'
        outcome = "refused"
    elif told == [render("en", "store_unknown")]:
        assert held in (stored, stored + 1)
        outcome = "unknown"
    else:
        assert any(isinstance(e, Public) for e in events), told
        assert held == stored + 1, "told it counted, but it was not stored"
        outcome = "counted"
    # the table is what the store holds, and play goes on at that spot
    deadline = time.monotonic() + 30
    while "c" not in svc.router.tables:  # (on hold until the store can tell)
        assert time.monotonic() < deadline, "the table was never rebuilt"
        await asyncio.sleep(0.1)
    assert _log_length(svc) == before + (held - stored)
    nxt = await svc.handle(_next_move(svc))
    assert render("en", "store_failed") not in [getattr(e, "text", "") for e in nxt]
    assert len(store.load_journal("c")) == held + 1
    return outcome


@pytest.mark.long
async def test_a_lost_answer_of_a_paused_append_is_never_a_false_did_not_count(
    pg_server: PgServer, pg_url: str, request: pytest.FixtureRequest
) -> None:
    """Row lock held, the append queued on it, its backend paused (SIGSTOP), the lock
    released, the client's TCP connection shut down, SIGCONT 1.5 s later (within the
    store's 2.5 s to read back). Before, the read-back found nothing while the paused backend
    could still commit: "did not count", then the move was stored. Now the store terminates
    that backend and waits until it is gone before it reads back."""
    rounds = 6 if request.config.getoption("--slow") else 1
    store = PostgresStore(pg_url, lease_s=5.0, resolve_s=2.5)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    outcomes = [await _lost_answer_round(svc, store, pg_server, pg_url, 1.5) for _ in range(rounds)]
    # a pause longer than the read-back waits: "not known yet", then the truth
    outcomes.append(await _lost_answer_round(svc, store, pg_server, pg_url, store.resolve_s + 2))
    assert outcomes[-1] == "unknown", outcomes
    await svc.close()


def test_a_killed_connection_refuses_no_other_table_of_its_batch(
    pg_server: PgServer, pg_url: str
) -> None:
    """Two tables' appends share a transaction; it waits on table "a"'s row (held by
    another session) when its connection is shut down for real. Nothing of it was stored,
    so each append is written again on its own: "b" is not refused for "a"'s trouble (it
    was, before), and "a" is written once its row is free."""
    store = PostgresStore(pg_url, lease_s=5.0)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    watcher = _admin(pg_server)
    try:
        assert store.append_many([("a", [_line(0)], 0), ("b", [_line(0)], 0)]) == [1, 1]
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        results: list[list[int | Exception]] = []
        writer = threading.Thread(
            target=lambda: results.append(
                store.append_many([("a", [_line(1)], 1), ("b", [_line(1)], 1)])
            )
        )
        writer.start()
        pid = _backend(watcher, "wait_event_type = 'Lock'")
        row = watcher.execute(
            "SELECT client_port FROM pg_stat_activity WHERE pid = %s", (pid,)
        ).fetchone()
        assert row is not None
        sock = _client_socket(int(row[0]))
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        deadline = time.monotonic() + 20
        while len(store.load_journal("b")) < 2:  # "b" is stored while "a" still waits
            assert time.monotonic() < deadline, "table b was held up by table a"
            time.sleep(0.05)
        assert len(store.load_journal("a")) == 1 and writer.is_alive()
        locker.rollback()
        writer.join(20)
        assert results == [[2, 2]]
        assert store.load_journal("a") == store.load_journal("b") == [_line(0), _line(1)]
    finally:
        locker.close()
        watcher.close()
        store.close()


async def test_a_stalled_connection_holds_up_only_its_own_table(
    pg_server: PgServer, pg_url: str
) -> None:
    """Table "a"'s append stalls (its row held by another session, its server process
    paused while it waits for the row alone, without a deadline): table "b" of the same
    process keeps playing, nothing is refused, and "a"'s move counts once the stall ends."""
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc, "a")
    for n in ("erik", "fred", "gina", "hugo"):
        await svc.handle(Input("b", f"u:{n}", n, "/join"))
    await svc.handle(Input("b", "u:erik", "erik", "/start"))
    locker = psycopg.connect(pg_url, password=PASSWORD)
    watcher = _admin(pg_server)
    pid = 0
    try:
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        stored_a = len(store.load_journal("a"))
        stalled = asyncio.create_task(svc.handle(_next_move(svc, "a")))
        # (the append waits for the row 0.5 s, then alone: that wait is the one paused)
        alone = "wait_event_type = 'Lock' AND now() - query_start > interval '1 s'"
        pid = await asyncio.to_thread(_backend, watcher, alone) or 0
        os.kill(pid, signal.SIGSTOP)
        for _ in range(8):  # "b" plays on meanwhile
            events = await asyncio.wait_for(svc.handle(_next_move(svc, "b")), 10)
            assert any(isinstance(e, Public) for e in events), events
        assert not stalled.done()
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        locker.rollback()
        locker.close()
        watcher.close()
    events = await asyncio.wait_for(stalled, 20)
    assert any(isinstance(e, Public) for e in events), events
    assert len(store.load_journal("a")) == stored_a + 1
    await svc.close()


def test_a_locked_table_refuses_and_holds_up_no_other_table_of_its_commit(
    pg_server: PgServer, pg_url: str
) -> None:
    """Three tables' appends in one transaction, table "a"'s row held by another session:
    the transaction gives up on it after a while and each append is written on its own:
    "b" and "c" at once, "a" once its row is free; none is refused."""
    store = PostgresStore(pg_url, lease_s=5.0)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    try:
        assert store.append_many([(c, [_line(0)], 0) for c in "abc"]) == [1, 1, 1]
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        results: list[list[int | Exception]] = []
        writer = threading.Thread(
            target=lambda: results.append(store.append_many([(c, [_line(1)], 1) for c in "abc"]))
        )
        writer.start()
        deadline = time.monotonic() + 20
        while len(store.load_journal("b")) < 2 or len(store.load_journal("c")) < 2:
            assert time.monotonic() < deadline, "tables b and c were held up by table a"
            time.sleep(0.05)
        assert len(store.load_journal("a")) == 1 and writer.is_alive()
        locker.rollback()
        writer.join(20)
        assert results == [[2, 2, 2]]
    finally:
        locker.close()
        store.close()


async def _three_tables(svc: Service) -> None:
    for channel, names in (("a", NAMES), ("b", ("erik", "fred", "gina", "hugo")),
                           ("c", ("ida", "jan", "kai", "lea"))):  # fmt: skip
        for n in names:
            await svc.handle(Input(channel, f"u:{n}", n, "/join"))
        await svc.handle(Input(channel, f"u:{names[0]}", names[0], "/start"))


async def test_a_locked_table_holds_up_no_table_it_shares_a_commit_with(
    pg_server: PgServer, pg_url: str
) -> None:
    """Moves at tables "a", "b" and "c" come together (one transaction), and "a"'s row is
    held by another session: "b" and "c" are stored and answered (before, they waited as
    long as "a" did), play on, and "a"'s move counts once its row is free."""
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _three_tables(svc)
    locker = psycopg.connect(pg_url, password=PASSWORD)
    try:
        locker.execute("SELECT 1 FROM tables WHERE channel = 'a' FOR UPDATE")
        held = {c: len(store.load_journal(c)) for c in "abc"}
        moves = {c: asyncio.create_task(svc.handle(_next_move(svc, c))) for c in "abc"}
        for c in "bc":  # (a generous bound: they wait for nothing but a busy machine)
            events = await asyncio.wait_for(moves[c], 20)
            assert any(isinstance(e, Public) for e in events), events
            assert len(store.load_journal(c)) == held[c] + 1
        for _ in range(3):
            for c in "bc":
                events = await asyncio.wait_for(svc.handle(_next_move(svc, c)), 20)
                assert any(isinstance(e, Public) for e in events), events
        assert not moves["a"].done() and len(store.load_journal("a")) == held["a"]
    finally:
        locker.rollback()
        locker.close()
    events = await asyncio.wait_for(moves["a"], 20)
    assert any(isinstance(e, Public) for e in events), events
    assert len(store.load_journal("a")) == held["a"] + 1
    await svc.close()


def test_a_fold_whose_answer_was_lost_is_read_only_once_its_session_is_gone(
    pg_server: PgServer, pg_url: str
) -> None:
    """A fold's commit waits (for a standby), its server process is paused and the bot's
    connection shut down: the fold is not visible yet, and becomes so when that process goes
    on. The table's records are read only once it is gone, so what is read stays true."""
    store = PostgresStore(pg_url, lease_s=5.0)
    admin = _admin(pg_server)
    resumed = threading.Event()
    pid = 0
    try:
        store.append("c", [_line(i) for i in range(10)])
        sync_rep(admin, "nobody")
        time.sleep(0.5)  # (the setting reaches the server's processes)
        failed: list[BaseException] = []

        def fold() -> None:
            try:
                store.fold("c", 5, _line(99), Checkpoint(6, "v1", b"new", b"l", ()))
            except BaseException as exc:
                failed.append(exc)

        writer = threading.Thread(target=fold)
        writer.start()
        deadline = time.monotonic() + 10
        while not pid:
            row = admin.execute(
                "SELECT pid, client_port FROM pg_stat_activity WHERE wait_event = 'SyncRep' "
                "AND application_name = %s",
                (store.owner,),
            ).fetchone()
            if row is not None:
                pid, port = int(row[0]), int(row[1])
            assert time.monotonic() < deadline, "the fold's commit never waited"
            time.sleep(0.02)
        os.kill(pid, signal.SIGSTOP)
        sock = _client_socket(port)
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        writer.join(10)
        assert failed, "the fold's answer was lost"

        def resume() -> None:
            os.kill(pid, signal.SIGCONT)
            resumed.set()

        threading.Timer(1.5, resume).start()
        read = store.load_journal("c")
        assert resumed.is_set(), "read while the fold's session could still commit"
        time.sleep(0.5)
        assert read == store.load_journal("c")
    finally:
        if pid and not resumed.is_set():
            os.kill(pid, signal.SIGCONT)
        sync_rep(admin, "")
        admin.close()
        store.close()


async def test_a_paused_server_process_holds_up_only_the_tables_of_its_commit(
    pg_server: PgServer, pg_url: str
) -> None:
    """The server processes of two commits (tables "a" and "b") are paused (SIGSTOP) in
    the commit, no lock waited for (each waits for a standby; the setting is then reset).
    Before, those tables waited until their process went on, and with two paused commits
    every table of the process did (table "c" too). Now a commit that gets no answer within
    ``STALL_S`` is cut: its tables hear "not known yet" (never "did not count": it may still
    commit), "c" plays on, and once the paused processes go on (they were terminated and
    die, their commits stand) the tables are rebuilt from the store and told so."""
    store = PostgresStore(pg_url, lease_s=5.0)
    svc = Service(Router(seed=8), store)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    await svc.start()
    await _three_tables(svc)
    pushed.clear()
    admin = _admin(pg_server)
    paused: list[int] = []
    answers: dict[str, asyncio.Task[list[Event]]] = {}
    stored: dict[str, int] = {}
    before: dict[str, int] = {}
    try:
        sync_rep(admin, "nobody")
        for c in "ab":
            _, answers[c], pid, stored[c], before[c] = await _move_at_commit(
                svc, admin, c, tuple(paused)
            )
            os.kill(pid, signal.SIGSTOP)
            paused.append(pid)
        sync_rep(admin, "")
        for _ in range(4):  # "c" plays on, nothing refused (a generous bound: a busy machine)
            events = await asyncio.wait_for(svc.handle(_next_move(svc, "c")), 15)
            told = [getattr(e, "text", "") for e in events]
            assert render("en", "store_failed") not in told
            assert render("en", "store_unknown") not in told
            assert any(isinstance(e, Public) for e in events), told
        for c in "ab":  # told while their server processes are still paused
            events = await asyncio.wait_for(answers[c], 15)
            assert [getattr(e, "text", "") for e in events] == [render("en", "store_unknown")]
            assert c not in svc.router.tables, "rebuilt while its write may still commit"
        await asyncio.sleep(1.0)
        assert all(c not in svc.router.tables for c in "ab"), "rebuilt while paused"
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
        sync_rep(admin, "")
        admin.close()
    deadline = time.monotonic() + 30
    while any(c not in svc.router.tables for c in "ab"):
        assert time.monotonic() < deadline, "the tables were never rebuilt"
        await asyncio.sleep(0.1)
    told = [getattr(e, "text", "") for e in pushed if isinstance(e, Public)]
    for c in "ab":  # the commits stood (committed before the pause): the moves counted
        assert len(store.load_journal(c)) == stored[c] + 1
        assert _log_length(svc, c) == before[c] + 1
        assert any(e.channel == c for e in pushed if isinstance(e, Public)), told
        events = await svc.handle(_next_move(svc, c))
        assert any(isinstance(e, Public) for e in events), events
        assert len(store.load_journal(c)) == stored[c] + 2
    await svc.close()


def test_a_write_sent_to_a_paused_server_process_is_not_known_until_it_is_gone(
    pg_server: PgServer, pg_url: str
) -> None:
    """A pooled connection's server process is paused (SIGSTOP) while idle, then tables "a"
    and "b" are appended to in one write on it: it gets no answer, is cut after ``STALL_S``, and
    both appends are "not known yet" (the paused process holds their statement and would run
    it). Table "c" is written meanwhile on another connection. The tables' records are read
    only once the paused process is gone: resumed, it dies of the termination without
    running the write, so nothing of it was stored, and the next appends at those positions
    count."""
    store = PostgresStore(pg_url, lease_s=5.0, resolve_s=1.0)
    admin = _admin(pg_server)
    paused: list[int] = []
    try:
        assert store.append_many([(c, [_line(0)], 0) for c in "abc"]) == [1, 1, 1]
        pool = store._conns.pool
        idle = _drained(pool)  # the pool's idle connections, taken out
        paused.append(idle[0].info.backend_pid)
        os.kill(paused[0], signal.SIGSTOP)
        pool.putconn(idle.pop(0))  # the only one the pool holds now: its process paused
        results: list[list[int | Exception]] = []
        writer = threading.Thread(
            target=lambda: results.append(store.append_many([(c, [_line(1)], 1) for c in "ab"]))
        )
        writer.start()
        deadline = time.monotonic() + 10
        while pool.get_stats().get("pool_available", 0) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not pool.get_stats().get("pool_available", 0), "the write took no connection"
        for conn in idle:
            pool.putconn(conn)
        assert store.append_many([("c", [_line(1)], 1)]) == [2], "c goes on meanwhile"
        writer.join(20)
        assert not writer.is_alive(), "the write was never cut"
        [[a, b]] = results
        assert isinstance(a, StoreUnknown) and isinstance(b, StoreUnknown), results
        with pytest.raises(StoreUnknown):  # (read only once the paused process is gone)
            store.load_journal("a")
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
        admin.close()
    try:
        assert store.load_journal("a") == store.load_journal("b") == [_line(0)]
        assert store.append_many([(c, [_line(1)], 1) for c in "ab"]) == [2, 2]
        assert store.load_journal("c") == [_line(0), _line(1)]
    finally:
        store.close()


def _pause(pid: int) -> None:
    """SIGSTOP ``pid`` and wait until it has stopped (on a busy machine a process may run
    on a moment before it takes the signal)."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 10
    with open(f"/proc/{pid}/stat") as stat:
        while stat.read().rpartition(")")[2].split()[0] not in "Tt":
            assert time.monotonic() < deadline, f"process {pid} did not stop"
            time.sleep(0.005)
            stat.seek(0)


@pytest.mark.parametrize("takeover", ["reshard", "same shards"])
def test_another_process_s_records_at_the_position_are_never_read_back_as_stored(
    pg_server: PgServer, pg_url: str, takeover: str
) -> None:
    """A process (the old one) sends an append to a server process that is paused
    (SIGSTOP) while idle, and its client connection is then shut down for real: the answer
    is lost, and the read-back waits for that server process to be gone. Meanwhile the old
    process stops renewing (as a paused one), another takes its table over (a reshard, or
    the same shards) and writes the very same records at the same position (the same card,
    pressed again). The old server process goes on and dies of its termination: its
    transaction never ran. Before, the read-back found records equal to its own at its
    position and said "stored" (one position acknowledged twice, a false answer); now it
    reads back only while this process still holds the table (else another may have
    written there): "not known yet", and the old process is fenced."""
    server = f"discord:{_guild(1, 4)}"
    channel = f"{server}:1"
    old = PostgresStore(pg_url, scope=Scope((shard_part(2, (0, 1)),)), lease_s=1,
                        pool_size=1, resolve_s=20)  # fmt: skip
    told: list[str] = []
    old.on_lost = told.append
    admin = _admin(pg_server)
    paused: dict[int, int] = {}  # backend pid: its client's port
    new: PostgresStore | None = None
    try:
        assert old.append(channel, [_server_line(server), _line(0)], 0) == 2
        heartbeat = old._leases._db
        assert heartbeat is not None
        # every pooled server process of the old one is paused while idle
        rows = admin.execute(
            "SELECT pid, client_port FROM pg_stat_activity WHERE application_name = %s "
            "AND pid <> %s", (old.owner, heartbeat.info.backend_pid)
        ).fetchall()  # fmt: skip
        assert rows
        for pid, port in rows:
            _pause(pid)
            paused[pid] = port
        results: list[list[int | Exception]] = []
        writer = threading.Thread(
            target=lambda: results.append(old.append_many([(channel, [_line(1)], 2)]))
        )
        writer.start()
        deadline = time.monotonic() + 10
        while not (flights := list(old._conns.stalls._flights)):  # on its way
            assert time.monotonic() < deadline, "the write never took a connection"
            time.sleep(0.002)
        [flight] = flights
        assert flight.pid in paused, "the write is on a server process that runs"
        sock = _client_socket(paused[flight.pid])
        sock.shutdown(socket.SHUT_RDWR)  # the answer is lost (before the stall watch cuts)
        sock.close()
        old._leases.stop()  # no more renewals: as if its process were paused
        shards = (0, 1, 2, 3) if takeover == "reshard" else (0, 1)
        new = PostgresStore(pg_url, scope=Scope((shard_part(len(shards), shards),)),
                            lease_s=1, wait_s=10)  # fmt: skip
        assert new.append(channel, [_line(1)], 2) == 3  # the same records, same position
        assert writer.is_alive(), "read back before the old server process was gone"
        for pid in list(paused):
            os.kill(pid, signal.SIGCONT)
            del paused[pid]
        writer.join(20)
        assert not writer.is_alive()
        [[outcome]] = results
        assert not isinstance(outcome, int), "another process's records read back as stored"
        assert isinstance(outcome, StoreUnknown), outcome
        assert told == ["another dokobot took over Discord shards 0, 1 of 2"]
        assert new.load_journal(channel) == [_server_line(server), _line(0), _line(1)]
        assert new.append(channel, [_line(2)], 3) == 4
    finally:
        for pid in paused:
            os.kill(pid, signal.SIGCONT)
        admin.close()
        if new is not None:
            new.close()
        old.close()
