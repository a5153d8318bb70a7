"""Several bot processes on one PostgreSQL: one writer per shard, takeover after a kill -9,
a PostgreSQL outage refuses actions (never applies them in memory only) and play resumes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pg_bot import digest as _digest
from pg_server import PgServer

from dokobot.adapters.discord.shards import shard_part
from dokobot.adapters.irc.network import network_part
from dokobot.host.events import Input, Private, Public
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import MemoryStore, Scope, StoreError, StoreLocked, open_store
from dokobot.store.postgres import PostgresStore

HERE = Path(__file__).resolve().parent
NAMES = ("anna", "ben", "carl", "dora")


def test_two_processes_for_the_same_shard_one_refuses(pg_url: str) -> None:
    first = PostgresStore(pg_url, scope=Scope((shard_part(2, (0,)),)), lease_s=2)
    try:
        started = time.monotonic()
        with pytest.raises(
            StoreLocked,
            match=r"discord:shard:0/2 \(held by dokobot .*still "
            r"running; this one \(Discord shards 0, 1 of 2\) does not start",
        ):
            PostgresStore(pg_url, scope=Scope((shard_part(2, (0, 1)),)), lease_s=2,
                          wait_s=0.5)  # fmt: skip
        assert time.monotonic() - started < 5
        # another shard is served beside it; another shard count is not
        other = PostgresStore(pg_url, scope=Scope((shard_part(2, (1,)),)), lease_s=2)
        other.close()
        with pytest.raises(StoreLocked, match="discord:shard:0/2"):
            PostgresStore(pg_url, scope=Scope((shard_part(4, (3,)),)), wait_s=0.2)
    finally:
        first.close()


def test_a_second_bot_process_exits_with_a_clear_line(pg_url: str, tmp_path: Path) -> None:
    holder = PostgresStore(pg_url, scope=Scope((network_part("net"),)), lease_s=2)
    try:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"store:\n  url: {pg_url}\n  lease_s: 1\nirc:\n  host: 127.0.0.1\n"
                       "  port: 9\n  network: net\n  channels: ['#doko']\n")  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "DOKOBOT_DISCORD_TOKEN"}
        res = subprocess.run([sys.executable, "-m", "dokobot.cli", "run", "--config", str(cfg)],
                             capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
        assert res.returncode == 2, res.stderr
        assert "irc:net (held by dokobot" in res.stderr and "still running" in res.stderr
        assert "Traceback" not in res.stderr
        assert os.environ["DOKOBOT_STORE_PASSWORD"] not in res.stderr
    finally:
        holder.close()


async def _seat_four(svc: Service, channel: str = "c") -> None:
    for n in NAMES:
        await svc.handle(Input(channel, f"u:{n}", n, "/join"))
    await svc.handle(Input(channel, "u:anna", "anna", "/start"))


async def _move(svc: Service, channel: str = "c") -> list[object]:
    table = svc.router.tables[channel]
    game = table.game
    assert game is not None
    seat = table.seats[game.turn]
    text = command_for(game.legal_actions()[0])
    return list(await svc.handle(Input(channel, seat.user, seat.name, text)))


def _state(svc: Service, channel: str = "c") -> tuple[object, ...]:
    table = svc.router.tables[channel]
    game = table.game
    assert game is not None
    return (game.hands[:], game.trick[:], game.turn, len(game.log), len(table.finished))


async def test_a_process_that_lost_its_lease_writes_nothing(pg_url: str) -> None:
    """A process whose lease expired (hung, cut off) and was taken over is fenced: its
    action is refused, the new holder's journal stays as it is."""
    scope = Scope((shard_part(1, (0,)),))
    old = PostgresStore(pg_url, scope=scope, lease_s=1)
    svc = Service(Router(seed=3), old)
    await _seat_four(svc, "discord:9")
    old._leases.stop()  # its heartbeat stops: the lease runs out
    new = await asyncio.to_thread(PostgresStore, pg_url, scope=scope, lease_s=1, wait_s=5)
    journal = new.load_journal("discord:9")
    before = _state(svc, "discord:9")
    events = await _move(svc, "discord:9")
    assert [getattr(e, "text", "") for e in events] == [render("en", "store_failed")]
    assert _state(svc, "discord:9") == before
    assert new.load_journal("discord:9") == journal
    new.close()
    old.close()


def _acks(lines: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in lines:
        if line.startswith("ACK "):
            _, channel, n, _ = line.split()
            out[channel] = max(out.get(channel, 0), int(n))
    return out


def _bot(url: str, shard: int, tables: int, moves: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "pg_bot.py"), url, str(shard), "2", str(tables), str(moves)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


@pytest.mark.long
def test_kill_9_mid_game_and_the_replacement_continues_every_table(pg_url: str) -> None:
    neighbour = _bot(pg_url, 1, 1, 40)  # shard 1 plays beside it, untouched by shard 0
    first = _bot(pg_url, 0, 3, 10_000)
    assert first.stdout is not None
    seen: list[str] = []
    for line in first.stdout:
        seen.append(line)
        if len(seen) > 120:  # seated, dealt and well into the first games
            break
    first.send_signal(signal.SIGKILL)
    first.wait()
    seen += first.stdout.readlines()
    first.stdout.close()
    assert first.stderr is not None
    first.stderr.close()
    acked = _acks(seen)
    assert len(acked) == 3

    store = PostgresStore(pg_url, scope=Scope((shard_part(2, (0,)),)), lease_s=2,
                          readonly=True)  # fmt: skip
    try:
        stored = {ch: len(store.load_journal(ch)) for ch in acked}
    finally:
        store.close()
    assert all(stored[ch] >= n for ch, n in acked.items()), "an acknowledged action was lost"

    started = time.monotonic()
    second = _bot(pg_url, 0, 3, 20)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert time.monotonic() - started < 60
    lines = out.splitlines()
    assert lines[0] == "RESTORED 3", "every table of the shard is restored, no other"
    after = _acks(lines)
    assert all(after[ch] > stored[ch] for ch in acked), "every game goes on"
    neighbour.communicate(timeout=120)
    assert neighbour.returncode == 0


async def test_postgresql_outage_refuses_actions_then_play_resumes(
    pg_server: PgServer, pg_url: str, request: pytest.FixtureRequest
) -> None:
    outage = 10.0 if request.config.getoption("--slow") else 2.0
    store = open_store(pg_url, lease_s=3.0)
    svc = Service(Router(seed=8), store)
    await svc.start()
    await _seat_four(svc)
    for _ in range(6):
        await _move(svc)
    before, journal = _state(svc), store.load_journal("c")
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    seat = table.seats[game.turn]
    move = Input("c", seat.user, seat.name, command_for(game.legal_actions()[0]))
    await asyncio.to_thread(pg_server.stop)
    try:
        down = time.monotonic()
        refused = 0
        while time.monotonic() - down < outage:
            events = await svc.handle(move)
            assert len(events) == 1 and isinstance(events[0], Private), events
            assert events[0].text == render("en", "store_failed")
            assert "try again" in events[0].text
            refused += 1
        assert refused >= 1
    finally:
        await asyncio.to_thread(pg_server.start)
    deadline = time.monotonic() + 30
    while True:  # the player tries again; the pool reconnects
        events = await svc.handle(move)
        if any(isinstance(e, Public) for e in events):
            break
        assert time.monotonic() < deadline, "play did not resume"
        await asyncio.sleep(0.2)
    log, finished = before[3:]
    assert _state(svc)[3:] == (log + 1, finished), "the move counts once, none in memory only"
    assert store.load_journal("c")[: len(journal)] == journal
    assert len(store.load_journal("c")) == len(journal) + 1
    for _ in range(4):
        await _move(svc)
    await svc.close()
    again = open_store(pg_url, lease_s=3.0)
    assert len(again.load_journal("c")) == len(journal) + 5
    again.close()


def test_a_process_whose_servers_were_taken_over_stops_with_exit_2(
    pg_url: str, tmp_path: Path
) -> None:
    import psycopg
    from pg_server import PASSWORD

    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"store:\n  url: {pg_url}\n  lease_s: 1\nirc:\n  host: 127.0.0.1\n"
                   "  port: 9\n  network: net\n  channels: ['#doko']\n")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "DOKOBOT_DISCORD_TOKEN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dokobot.cli", "run", "--config", str(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        with psycopg.connect(pg_url, password=PASSWORD, autocommit=True) as db:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, proc.communicate()
                try:
                    if db.execute("SELECT owner FROM leases").fetchall():
                        break
                except psycopg.errors.UndefinedTable:
                    pass
                assert time.monotonic() < deadline, "the bot never took its lease"
                time.sleep(0.1)
            db.execute("UPDATE leases SET owner = 'another process'")
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    assert "another dokobot took over IRC network net; this process stops" in err
    assert "Traceback" not in err


def test_an_unreachable_or_refusing_database_stops_the_start_clearly(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pg_server import PASSWORD, free_port

    elsewhere = pg_url.rsplit(":", 1)[0] + f":{free_port()}/x"
    with pytest.raises(
        StoreError,
        match=r"store postgresql://dokobot@127\.0\.0\.1:\d+/x: "
        "cannot connect",
    ):
        open_store(elsewhere)
    monkeypatch.setenv("DOKOBOT_STORE_PASSWORD", "wrong-" + PASSWORD)
    with pytest.raises(StoreError, match="password authentication failed") as err:
        open_store(pg_url)
    assert PASSWORD not in str(err.value)


def test_after_a_restart_of_postgresql_the_first_writes_succeed(
    pg_server: PgServer, pg_url: str
) -> None:
    """The pool replaces the connections the restart closed before it hands them out (a
    check without a round trip), so no write after the restart is refused for them."""
    store = PostgresStore(pg_url, lease_s=10)
    try:
        line = '{"k":"note","text":"x"}'
        with ThreadPoolExecutor(4) as pool:  # several connections in the pool
            list(pool.map(lambda i: store.append_many([(f"c{i}", [line], None)] * 20), range(4)))
        pg_server.stop()
        pg_server.start()
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda i: store.append_many([(f"c{i}", [line], 20)]), range(4)))
        assert results == [[21]] * 4
        assert store.append("c0", [line]) == 22
    finally:
        store.close()


class _Reader:
    """Collects a process's output lines in a thread (so a paused process never blocks the
    test)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.err: list[str] = []
        self._threads = [
            threading.Thread(target=self._read, args=(proc.stdout, self.lines), daemon=True),
            threading.Thread(target=self._read, args=(proc.stderr, self.err), daemon=True),
        ]
        for t in self._threads:
            t.start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def acks(self) -> list[tuple[str, int, str]]:
        return [(c, int(n), d) for _, c, n, d in
                (x.split() for x in list(self.lines) if x.startswith("ACK "))]  # fmt: skip

    def wait_for(self, acks: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acks()) < acks:
            assert self.proc.poll() is None, "\n".join(self.err)
            assert time.monotonic() < deadline, "the process does not play"
            time.sleep(0.05)

    def finish(self, timeout: float = 180) -> int:
        code = self.proc.wait(timeout=timeout)
        for t in self._threads:
            t.join(timeout=10)
        return code


def _span_bot(url: str, shards: str, count: int, span: int, moves: int) -> _Reader:
    return _Reader(subprocess.Popen(
        [sys.executable, str(HERE / "pg_bot.py"), url, shards, str(count), "0", str(moves),
         str(span)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ))  # fmt: skip


@pytest.mark.long
def test_a_paused_process_is_fenced_by_a_reshard_and_every_journal_replays(
    pg_url: str, request: pytest.FixtureRequest
) -> None:
    """A process of shard count 2 is paused (SIGSTOP) past its lease while it plays; two
    processes of shard count 4 take its tables over (a reshard) and play; the old one is
    resumed (SIGCONT): it writes nothing more and stops with exit 2. Every action
    acknowledged by any of them is in the final journals, at the position it was
    acknowledged at (none lost, none acknowledged twice), and every journal replays."""
    slow = bool(request.config.getoption("--slow"))
    span, moves = (16, 120) if slow else (8, 25)
    old = _span_bot(pg_url, "0,1", 2, span, 100_000)
    new: list[_Reader] = []
    try:
        old.wait_for(5 * span)  # seated and playing at every table
        old.proc.send_signal(signal.SIGSTOP)
        time.sleep(3.0)  # past its lease (2 s): it renews nothing while paused
        new = [_span_bot(pg_url, s, 4, span, moves) for s in ("0,1", "2,3")]
        for proc in new:
            proc.wait_for(3 * span // 2)
        old.proc.send_signal(signal.SIGCONT)
        assert old.finish(timeout=60) == 2, "\n".join(old.err)
        assert any(x.startswith("FENCED another dokobot took over Discord shards 0, 1 of 2")
                   for x in old.err), old.err  # fmt: skip
        assert not any("Traceback" in x for x in old.err), "\n".join(old.err)
        for proc in new:
            assert proc.finish() == 0, "\n".join(proc.err)
    finally:
        for proc in [old, *new]:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
                proc.proc.kill()
                proc.proc.wait()
    for proc in new:  # each restores the running games of its half of the tables
        restored = int(proc.lines[0].removeprefix("RESTORED "))
        assert 0 < restored <= span // 2

    acks = [a for proc in [old, *new] for a in proc.acks()]
    positions = [(c, n) for c, n, _ in acks]
    assert len(positions) == len(set(positions)), "an action was acknowledged twice"
    reader = PostgresStore(pg_url, readonly=True)
    try:
        journals = {c: reader.load_journal(c) for c in {c for c, _, _ in acks}}
    finally:
        reader.close()
    assert len(journals) == span
    for channel, n, digest in acks:
        journal = journals[channel]
        assert n <= len(journal) and _digest(journal[n - 1]) == digest, (channel, n)

    async def replay() -> None:
        memory = MemoryStore()
        for channel, journal in journals.items():
            memory.append(channel, journal)
        svc = Service(Router(seed=1), memory)
        await svc.start()
        assert svc.damaged == {}
        assert sorted(svc.router.tables) == sorted(journals)
        await svc.close()

    asyncio.run(replay())
