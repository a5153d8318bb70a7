"""PostgreSQL store: the :class:`~dokobot.store.Store` of several bot processes.

Same promises as :class:`~dokobot.store.SqliteStore`: an append is one transaction, committed
with ``synchronous_commit=on`` before it returns; the schema is versioned (``MIGRATIONS``)
and a database made by a newer dokobot is refused.

One writer per table: a process holds a lease (a row of ``leases``) on each key of its
:class:`~dokobot.store.scope.Scope` and renews it every ``lease_s / 3`` seconds, but only
while its event loop answers (:meth:`PostgresStore.watch_loop`): a wedged or paused process
loses its leases. A Discord lease names its shard count (``discord:shard:I/N``), the
*epoch*; a start with another count (a reshard) begins a new epoch and deletes every lease
of the old one. Every write of a table (an append, a fold, a checkpoint, a result) checks,
in its own transaction, that the process holds all its leases in the current epoch and the
lease of the table's own shard (``(guild >> 22) % N``, from the table's server); settings
are written only by a process that holds its leases. The rows are locked ``FOR SHARE``, so
a takeover waits for the writes in flight and then sees them. A lease is taken over when
it has expired, or at once when its holder's connections are gone (a killed process); while
the holder lives, a second process for the same keys refuses to start. A process that finds
itself fenced writes nothing more and calls :attr:`PostgresStore.on_lost`.

Every append names its position (``at``, its idempotency key with the table). When the
answer of its commit is lost (the connection dropped), the store reads the records at that
position back and answers the truth; :class:`~dokobot.store.StoreUnknown` only while the
database cannot be read. When the database cannot be reached, the store remembers it is
down: every call fails at once (no connection waits) while a background probe waits for
the database to come back.

The password comes from ``DOKOBOT_STORE_PASSWORD`` (or libpq's own ``PGPASSWORD`` and
``.pgpass``); it is never part of a repr or a log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import psycopg
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from .base import (
    Append,
    Checkpoint,
    StoreConflict,
    StoreError,
    StoreLocked,
    StoreUnknown,
    Summary,
    fold_nick,
)
from .pg_connect import Secret, answer_lost, check_idle, first_line, safe_url
from .pg_leases import LEASE_LOST, NOT_SERVED, Leases, server_of
from .pg_schema import check_version, migrate
from .pg_stall import StallWatch
from .scope import Scope
from .shared import Db, Rows, SqlStore
from .statements import for_psycopg

if TYPE_CHECKING:
    from ..stats.record import FinishedGame

log = logging.getLogger(__name__)

PASSWORD_ENV: Final = "DOKOBOT_STORE_PASSWORD"
WRITERS: Final = 2
"""Writer threads per process: while one waits for its commit, the other gathers the next
appends."""
LOCK_WAIT_MS: Final = 500
"""How long a write of appends waits for a table's row (see :meth:`_write`)."""
STALL_S: Final = 2.0
"""How long a write of appends may go without an answer from its server process (paused or
hung: nothing on its side can end the wait) before its connection is cut, that process
ended and the outcome read back (see :mod:`dokobot.store.pg_stall`)."""
CUT_GONE_S: Final = 0.5
"""After a cut: how long the read-back waits for the cut server process to be gone; still
there (paused), its appends are "not known yet" and their tables wait for it."""
LOCK_WAIT: Final = "55P03"
"""SQLSTATE of a lock not had within the time given (``lock_timeout``)."""
CONFLICT: Final = "DKC01"
"""SQLSTATE of an append whose position is not where the table's journal ends."""
CONNECT_WAIT_S: Final = 2.0
"""How long a call waits for a connection (the first refusal in an outage comes after
this; then the database is known to be down and calls fail at once)."""
STARTS_KEPT: Final = 1024
"""Backends whose start time is kept (the newest)."""
GONE_POLL_S: Final = 0.05
"""How often a read-back looks whether the session of a lost answer is gone."""
PROBE_S: Final = 0.5
"""While the database is down: how often the background probe tries to reach it."""


def _server_in(lines: list[str]) -> str | None:
    """The server a table's journal names (its ``server`` record), if these lines hold one."""
    server = None
    for line in lines:
        if '"k":"server"' in line:
            data = json.loads(line)
            if data.get("k") == "server":
                server = str(data.get("text", ""))
    return server


class PostgresStore(SqlStore):
    """Journals in PostgreSQL for the servers of ``scope`` (see the module doc).

    ``lease_s``: how long a lease lasts without renewal (a dead process's servers are
    taken over after at most this long). ``wait_s``: how long a start waits for a live
    holder of its leases to let go before it refuses (default ``lease_s``). ``readonly``:
    read beside the running bots, hold no lease, write nothing. ``resolve_s``: how long
    an append whose answer was lost tries to read back whether it was stored.
    """

    def __init__(
        self,
        url: str,
        *,
        scope: Scope | None = None,
        lease_s: float = 10.0,
        wait_s: float | None = None,
        readonly: bool = False,
        pool_size: int = 8,
        password: str | None = None,
        resolve_s: float = 5.0,
    ) -> None:
        self.url = safe_url(url)
        """The database, without the password."""
        self.where = self.url
        self.scope = scope or Scope()
        self.lease_s = lease_s
        self.readonly = readonly
        self.owner = f"dokobot {socket.gethostname()[:24]} pid {os.getpid()} {secrets.token_hex(3)}"
        """Names this process in ``leases`` and as its connections' application_name."""
        self.resolve_s = resolve_s
        self._down = threading.Event()
        """Set while the database is known to be unreachable (see :meth:`_probe`)."""
        self._probing = threading.Lock()
        password = password if password is not None else os.environ.get(PASSWORD_ENV) or None
        extra: dict[str, Any] = {
            "application_name": self.owner,
            "connect_timeout": 5,
            # a transaction left open by a paused process does not hold its locks for ever
            "options": "-c synchronous_commit=on "
            f"-c idle_in_transaction_session_timeout={max(1000, int(lease_s * 1000))}",
            # a database that vanished (no TCP reset) fails a write in seconds, not minutes
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 3,
            "tcp_user_timeout": 10_000,
        }
        if password:
            extra["password"] = password
        try:
            conninfo = make_conninfo(url, **extra)
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"store {self.url}: not a PostgreSQL url ({exc})") from None
        self._stop = threading.Event()
        self._conninfo = Secret(conninfo)
        self._leases = Leases(self.url, self.scope, self.owner, lease_s, self._connect)
        self._servers: dict[str, str | None] = {}
        """Per table: its server record, as stored (None: none), to fence its writes."""
        try:
            first = self._connect()
        except psycopg.Error as exc:
            raise StoreError(f"store {self.url}: cannot connect ({first_line(exc)})") from None
        try:
            if not readonly:
                migrate(first, self.url)
            check_version(first, self.url)
            if not readonly:
                self._leases.acquire(first, lease_s if wait_s is None else wait_s)
        except BaseException:
            first.close()
            raise
        if readonly:
            first.close()
        self._started: dict[int, Any] = {}
        """Per backend pid of a pooled connection: when that backend started (a pid alone
        may name another backend later, e.g. after a restart)."""
        self._doubt: dict[str, tuple[int, Any]] = {}
        """Per table: the backend of a write whose answer was lost and that was not seen
        gone: the table's records are not read (so not rebuilt) until it is gone."""
        self._pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            timeout=CONNECT_WAIT_S,
            check=check_idle,
            configure=self._note_backend,
            open=True,
            name="dokobot-store",
        )
        self._closing = False
        self._stalls = StallWatch(self.url)
        self._appends: queue.SimpleQueue[_Append | None] = queue.SimpleQueue()
        self._writers = [] if readonly else [
            threading.Thread(target=self._write_loop, name=f"dokobot-writer-{i}", daemon=True)
            for i in range(WRITERS)
        ]  # fmt: skip
        for writer in self._writers:
            writer.start()
        if not readonly:
            self._leases.start(first)

    def _connect(self) -> psycopg.Connection[Any]:
        """A connection of its own (not pooled)."""
        return psycopg.connect(self._conninfo.reveal(), autocommit=True)

    def _note_backend(self, conn: psycopg.Connection[Any]) -> None:
        """The pool's set-up of a new connection: note when its backend started."""
        row = conn.execute(
            "SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).fetchone()
        self._started[conn.info.backend_pid] = None if row is None else row[0]
        if len(self._started) > STARTS_KEPT:  # the oldest (None then: matched by pid alone)
            del self._started[next(iter(self._started))]

    def conninfo(self) -> str:
        """How to connect to this database, password included (for a process's own extra
        connections, e.g. LISTEN; never to be logged)."""
        return self._conninfo.reveal()

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r}, scope={self.scope.describe()!r})"

    # ---------------------------------------------------------------- set-up
    def watch_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Renew the leases only while ``loop`` answers: before each renewal the heartbeat
        asks the loop to run a callback, and skips the renewal when it does not run within
        ``lease_s / 6`` (a wedged or paused process lets its leases run out)."""
        self._leases.watch_loop(loop)

    @property
    def lost(self) -> str | None:
        """Why this process is fenced (None while it is not)."""
        return self._leases.lost

    @property
    def on_lost(self) -> Callable[[str], None] | None:
        """Called (from a store thread, once) when this process finds itself fenced: another
        process took a lease over, or a reshard ended its epoch."""
        return self._leases.on_lost

    @on_lost.setter
    def on_lost(self, call: Callable[[str], None] | None) -> None:
        self._leases.on_lost = call

    @contextmanager
    def _db(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; fails at once while the database is known to be down, and
        notes it down when no connection can be had."""
        if self._down.is_set():
            raise StoreError(f"store {self.url}: the database cannot be reached (retrying)")
        try:
            conn = self._pool.getconn()
        except psycopg.Error as exc:
            self._mark_down()
            raise StoreError(f"store {self.url}: no connection ({first_line(exc)})") from None
        try:
            with conn:
                yield conn
        except (psycopg.OperationalError, _AnswerLost):
            conn.close()  # a connection that failed is never handed out again
            raise
        finally:
            self._pool.putconn(conn)

    def _mark_down(self) -> None:
        """Note that the database cannot be reached, and probe for it in the background."""
        if self._closing or not self._probing.acquire(blocking=False):
            return
        self._down.set()
        log.warning("store %s: the database cannot be reached; refusing at once until "
                    "it answers again", self.url)  # fmt: skip
        threading.Thread(target=self._probe, name="dokobot-probe", daemon=True).start()

    def _probe(self) -> None:
        """Try to reach the database every :data:`PROBE_S` seconds; once it answers, drop
        the pool's dead connections and accept calls again."""
        try:
            while True:
                try:
                    with psycopg.connect(self._conninfo.reveal(), autocommit=True,
                                         connect_timeout=2) as db:  # fmt: skip
                        db.execute("SELECT 1")
                except psycopg.Error:
                    if self._stop.wait(PROBE_S):
                        return
                    continue
                self._pool.check()
                log.warning("store %s: the database answers", self.url)
                return
        finally:
            self._down.clear()
            self._probing.release()

    def is_down(self) -> bool:
        """Whether the database is known to be unreachable now."""
        return self._down.is_set()

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"store {self.url} was opened to read only")

    @contextmanager
    def _fenced_write(self, channel: str | None) -> Iterator[psycopg.Connection[Any]]:
        """A transaction that first checks the fence: this process holds its leases in the
        current epoch and (for a table's ``channel``) the lease of the table's shard."""
        self._writable()
        if self.lost is not None:
            raise StoreLocked(f"store {self.url}: {self.lost}")
        backend: tuple[int, Any] = (0, None)
        try:
            with self._db() as db:
                backend = (db.info.backend_pid, self._started.get(db.info.backend_pid))
                with db.transaction():
                    if channel is None:
                        self._leases.fence_process(db)
                    else:
                        self._leases.fence_table(db, channel, self._server(db, channel))
                    yield db
        except psycopg.Error as exc:
            lost = isinstance(exc, psycopg.OperationalError) and answer_lost(exc)
            if lost and channel is not None:
                # (a fold, a checkpoint: it may still commit) the table's records are read
                # only once its session is gone
                self._doubt[channel] = backend
            if exc.sqlstate == LEASE_LOST:
                self._leases.fenced()
                raise StoreLocked(f"store {self.url}: {self.lost}") from None
            if exc.sqlstate == NOT_SERVED:
                self._servers.pop(channel or "", None)  # (read again next time)
                raise StoreLocked(f"store {self.url}: {first_line(exc)}") from None
            raise

    def schema_version(self) -> int:
        with self._db() as db:
            row = db.execute("SELECT version FROM dokobot_schema").fetchone()
        return int(row[0]) if row else 0

    # ---------------------------------------------------------------- journals
    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        """Hand the lines to a writer thread and wait until they are committed. The writers
        commit the appends of several tables that arrive together in one transaction (one
        WAL flush for all); an append is still all or nothing, and returns only once it
        is durable."""
        self._writable()
        if not lines:
            with self._db() as db:
                row = db.execute(
                    "SELECT length FROM tables WHERE channel = %s", (channel,)
                ).fetchone()
            length = 0 if row is None else int(row[0])
            if at is not None and at != length:
                raise StoreConflict(f"table {channel} holds {length} records, not {at}")
            return length
        if self._closing:
            raise StoreError(f"store {self.url} is closed")
        req = _Append(channel, lines, at)
        self._appends.put(req)
        req.done.wait()
        if req.error is not None:
            raise req.error
        return req.length

    def append_many(self, appends: Sequence[Append]) -> list[int | Exception]:
        """Every append in one round trip and one transaction, written by this thread (the
        caller gathered them already); as :meth:`append`, each is all or nothing."""
        out: list[int | Exception] = [StoreError("not answered")] * len(appends)
        answered = [threading.Event() for _ in appends]

        def answer(i: int, result: int | Exception) -> None:
            out[i] = result
            answered[i].set()

        self.append_each(appends, answer)
        for event in answered:  # (some may be written apart and answered later)
            event.wait()
        return out

    def append_each(
        self, appends: Sequence[Append], answer: Callable[[int, int | Exception], None]
    ) -> None:
        """As :meth:`append_many`, written by this thread; an append whose table's row is
        held is answered when it is written on its own, later (see :meth:`_write`)."""
        self._writable()
        if self._closing:
            raise StoreError(f"store {self.url} is closed")
        reqs = []
        for i, (channel, lines, at) in enumerate(appends):
            if lines:
                reqs.append(_Append(channel, lines, at, partial(answer, i)))
                continue
            try:
                answer(i, self.append(channel, lines, at))
            except Exception as exc:
                answer(i, exc)
        if reqs:
            self._write(reqs)

    def _write_loop(self) -> None:
        """A writer thread: take every waiting append (up to 256) and commit them at once."""
        while True:
            first = self._appends.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < 256:
                try:
                    nxt = self._appends.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._appends.put(None)
                    break
                batch.append(nxt)
            self._write(batch)

    def _write(self, batch: list[_Append], *, alone: bool = False, again: bool = False) -> None:
        """Commit ``batch`` in one transaction and answer each append. The write waits for
        a table's row at most :data:`LOCK_WAIT_MS`: then each append is written on its own,
        and one whose row is still held waits for it ``alone``, in a thread and on a
        connection of its own (its lock refuses and holds up no other table). A write that
        does not wait ``alone`` is cut when its server process does not answer within
        :data:`STALL_S` (see :meth:`_resolve`): a paused server process holds up only the
        tables of its own transaction, and only that long. A write cut that is found not
        stored (a busy machine, not a paused process) is written once more, each append on
        its own (``again``: not a third time)."""
        if self.lost is not None:
            for req in batch:
                req.error = StoreLocked(f"store {self.url}: {self.lost}")
                req.finish()
            return
        backend: tuple[int, Any] = (0, None)
        cut = False
        try:
            with self._db() as db:
                pid = db.info.backend_pid
                backend = (pid, self._started.get(pid))
                records = [_server_in(r.lines) for r in batch]
                flight = None if alone else self._stalls.enter(db, STALL_S)
                sent = False
                try:
                    named = self._servers_of(db, batch, records)
                    sent = True
                    row = db.execute(
                        "SELECT dokobot_append(%s, %s, %s, %b, %b, %b, %b, %b, %b, %b, %s)",
                        (self.owner, len(self._leases.keys), self._leases.count,
                         [r.channel for r in batch], [r.at for r in batch],
                         [len(r.lines) for r in batch], [x for r in batch for x in r.lines],
                         records, named, [self.scope.key_of(n) for n in named],
                         None if alone else LOCK_WAIT_MS),
                    ).fetchone()  # fmt: skip
                except psycopg.OperationalError as exc:
                    if answer_lost(exc) and sent:
                        raise _AnswerLost(exc) from exc
                    raise
                finally:
                    cut = flight is not None and self._stalls.leave(flight)
                if cut:  # answered just as it was cut: the answer stands, the connection not
                    db.close()
        except _AnswerLost as lost:
            self._resolve(batch, lost.exc, backend, cut=cut, again=again)
            return
        except Exception as exc:
            state = exc.sqlstate if isinstance(exc, psycopg.Error) else None
            if state == LOCK_WAIT:  # (nothing was written)
                if len(batch) > 1:
                    for req in batch:
                        self._write([req])
                else:
                    threading.Thread(target=self._write, args=(batch,), kwargs={"alone": True},
                                     daemon=True, name="dokobot-writer-waits").start()  # fmt: skip
                return
            if cut and (len(batch) > 1 or not again):  # cut before it was sent: not written
                self._write_apart(batch, again=True)
                return
            if state == LEASE_LOST:
                self._leases.fenced()
            elif state == NOT_SERVED:
                for req in batch:  # (read again: a table's server may be other than held)
                    self._servers.pop(req.channel, None)
            if (
                state != LEASE_LOST
                and len(batch) > 1
                and not isinstance(exc, (psycopg.OperationalError, StoreError))
            ):
                for req in batch:  # one bad append does not refuse the others
                    self._write([req])
                return
            for req in batch:
                req.error = (
                    StoreLocked(f"store {self.url}: {self.lost}")
                    if state == LEASE_LOST
                    else StoreLocked(f"store {self.url}: {first_line(exc)}")
                    if state == NOT_SERVED
                    else StoreConflict(f"store {self.url}: {first_line(exc)}")
                    if state == CONFLICT
                    else exc
                    if isinstance(exc, StoreError)
                    else StoreError(f"store {self.url}: not written ({first_line(exc)})")
                )
                req.finish()
            return
        assert row is not None
        for req, length, record in zip(batch, row[0], records, strict=True):
            if record is not None:
                self._servers[req.channel] = record
            req.length = int(length)
            req.finish()

    def _server(self, db: psycopg.Connection[Any], channel: str) -> str:
        """The server of ``channel``'s table, which its lease key is of (as
        :meth:`_servers_of`)."""
        if channel not in self._servers:
            row = db.execute("SELECT server FROM tables WHERE channel = %s", (channel,)).fetchone()
            self._servers[channel] = None if row is None or row[0] is None else str(row[0])
        return server_of(channel, self._servers[channel])

    def _servers_of(
        self, db: psycopg.Connection[Any], batch: list[_Append], records: list[str | None]
    ) -> list[str]:
        """The server of each append's table, which its lease key is of: the server record
        among its lines, else the one stored (read once per table), else its channel's."""
        unknown = [r.channel for r in batch if r.channel not in self._servers]
        if unknown:
            rows = db.execute(
                "SELECT channel, server FROM tables WHERE channel = ANY(%s)", (unknown,)
            ).fetchall()
            found = {str(c): None if s is None else str(s) for c, s in rows}
            for channel in unknown:
                self._servers[channel] = found.get(channel)
        return [server_of(r.channel, record or self._servers.get(r.channel))
                for r, record in zip(batch, records, strict=True)]  # fmt: skip

    def _resolve(
        self,
        batch: list[_Append],
        exc: Exception,
        backend: tuple[int, Any],
        *,
        cut: bool = False,
        again: bool = False,
    ) -> None:
        """The answer of ``batch``'s commit was lost: make sure its ``backend`` (pid, start)
        is gone (terminated, and no longer in ``pg_stat_activity``: a paused backend may
        still commit until then), then read back, per append, whether its records are at
        its position; all within :attr:`resolve_s` seconds (:data:`CUT_GONE_S` to be gone
        when the write was ``cut``: its backend did not answer, it is likely paused). Stored:
        its length; not stored: an error; not known (the backend still there, or the
        database cannot be read): :class:`StoreUnknown`, and the table's records are not
        read until it is gone."""
        log.warning("store %s: the answer of a commit was lost (%s); reading back once its "
                    "session is gone", self.url, first_line(exc))  # fmt: skip
        start = time.monotonic()
        deadline = start + self.resolve_s
        gone_by = min(deadline, start + CUT_GONE_S) if cut else deadline
        gone = reached = False
        while True:
            try:
                with self._resolver(deadline) as db:
                    reached = True
                    gone = gone or self._gone(db, backend, gone_by)
                    if not gone:
                        break
                    for req in batch:
                        if not req.done.is_set():
                            self._read_back(db, req, exc)
                retry = len(batch) > 1 or (cut and not again)
                apart = [r for r in batch if type(r.error) is StoreError] if retry else []
                for req in batch:
                    if not any(req is r for r in apart):
                        req.finish()
                self._write_apart(apart, again=again or cut)
                return
            except psycopg.Error:
                now = time.monotonic()
                if now >= deadline or (not reached and now >= start + CONNECT_WAIT_S):
                    break  # (an outage: "not known yet" now, the truth when it is back)
                time.sleep(0.25)
        if not reached:
            self._mark_down()
        for req in batch:
            if not req.done.is_set():
                if not gone:
                    self._doubt[req.channel] = backend
                req.error = StoreUnknown(
                    f"store {self.url}: the answer was lost ({first_line(exc)}) and "
                    + ("the database cannot be read" if gone else "its session is not gone")
                    + ": whether it was stored is not known yet"
                )
                req.finish()

    def _write_apart(self, reqs: list[_Append], *, again: bool = False) -> None:
        """Write again, each in a transaction of its own, the appends of a batch whose
        answer was lost and that were found not stored: the batch's trouble (a lock wait, a
        connection that died) may be one table's, and refuses no other table. Each is
        answered when its own write is."""
        if not reqs:
            return
        log.warning("store %s: %d appends of a lost batch were not stored; each is written "
                    "again on its own", self.url, len(reqs))  # fmt: skip
        for req in reqs:
            req.error = None
            threading.Thread(target=self._write, args=([req],), kwargs={"again": again},
                             name="dokobot-writer-apart", daemon=True).start()  # fmt: skip

    @contextmanager
    def _resolver(self, deadline: float) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own for reading back (the pool may be what failed)."""
        left = max(0.5, deadline - time.monotonic())
        with psycopg.connect(self._conninfo.reveal(), autocommit=True,
                             connect_timeout=max(1, min(2, int(left))),
                             options=f"-c statement_timeout={int(left * 1000)}") as db:  # fmt: skip
            yield db

    def _gone(self, db: psycopg.Connection[Any], backend: tuple[int, Any], deadline: float
              ) -> bool:  # fmt: skip
        """Terminate ``backend`` (pid, start; a start of None: any backend of that pid and
        this process) and wait until it is no longer in ``pg_stat_activity``, up to
        ``deadline``: whether it is gone."""
        pid, started = backend
        if not pid:
            return True
        match = ("pid = %s AND application_name = %s AND "
                 "(%s::timestamptz IS NULL OR backend_start = %s::timestamptz)")  # fmt: skip
        args = (pid, self.owner, started, started)
        db.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {match}", args)
        while db.execute(f"SELECT 1 FROM pg_stat_activity WHERE {match}", args).fetchone():
            if time.monotonic() >= deadline:
                log.warning("store %s: the session of a lost answer (backend %d) is not gone "
                            "yet; the table waits", self.url, pid)  # fmt: skip
                return False
            time.sleep(GONE_POLL_S)
        return True

    def _settle(self, channel: str) -> None:
        """Before a table's records are read: if a write of it whose answer was lost may
        still commit (its backend was not seen gone), make sure it is gone now, else
        :class:`StoreUnknown` (the table stays on hold: nothing is rebuilt from records
        that may still change)."""
        backend = self._doubt.get(channel)
        if backend is None:
            return
        deadline = time.monotonic() + self.resolve_s
        try:
            with self._resolver(deadline) as db:
                gone = self._gone(db, backend, deadline)
        except psycopg.Error as exc:
            raise StoreUnknown(f"store {self.url}: cannot tell whether the lost write of "
                               f"{channel} is over ({first_line(exc)})") from None  # fmt: skip
        if not gone:
            raise StoreUnknown(f"store {self.url}: the session of a lost write of {channel} "
                               "is not gone yet; not known yet whether it was stored")  # fmt: skip
        if self._doubt.get(channel) == backend:
            del self._doubt[channel]

    def _read_back(self, db: psycopg.Connection[Any], req: _Append, exc: Exception) -> None:
        if req.at is None:
            req.error = StoreUnknown(f"store {self.url}: the answer was lost "
                                     f"({first_line(exc)}); the append named no position")  # fmt: skip
            return
        # (the lost transaction's session is gone: see _gone)
        rows = db.execute(
            "SELECT line FROM journal WHERE channel = %s AND seq >= %s AND seq < %s ORDER BY seq",
            (req.channel, req.at, req.at + len(req.lines)),
        ).fetchall()
        if [str(r[0]) for r in rows] == req.lines:
            log.warning("store %s: the append at %s of %s was stored", self.url, req.at,
                        req.channel)  # fmt: skip
            req.length = req.at + len(req.lines)
        else:
            req.error = StoreError(f"store {self.url}: not written ({first_line(exc)})")

    # ---------------------------------------------------------------- shared (SqlStore)
    ROW_LOCK = " FOR UPDATE"

    @contextmanager
    def _reading(self, channel: str | None = None) -> Iterator[Db]:
        if channel is not None:
            self._settle(channel)
        with self._db() as db:
            yield _Pg(db)

    @contextmanager
    def _writing(self, channel: str | None) -> Iterator[Db]:
        with self._fenced_write(channel) as db:
            yield _Pg(db)

    def _without(self, *fields: str) -> str:
        return "(record::jsonb" + "".join(f" - '{f}'" for f in fields) + ")::text"

    def _may_write(self) -> bool:
        return not self.readonly and self.lost is None

    def _before_result(self, db: Db, game: FinishedGame) -> None:
        # one insert per server at a time: ids of a server are in commit order, so a
        # reader that asks for the ids after the last one it saw misses none
        db.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (game.server,))

    def summaries(self) -> list[Summary]:
        """The tables of this process's servers (see :attr:`scope`)."""
        with self._db() as db:
            rows = db.execute(
                "SELECT t.channel, t.server, t.length, c.upto, c.version, c.settlements, "
                "c.users FROM tables t LEFT JOIN checkpoints c ON c.channel = t.channel "
                "ORDER BY t.channel"
            ).fetchall()
        out = []
        for channel, server, length, upto, version, settlements, users in rows:
            if not self._owns(channel, server):
                continue
            cp = None
            if upto is not None:
                cp = Checkpoint.from_row(upto, version, None, settlements, users)
            out.append(Summary(str(channel), int(length), cp))
        return out

    def _owns(self, channel: str, server: str | None) -> bool:
        """Whether a table (its channel, its stored server) is of this process's servers;
        its server is noted to fence its writes."""
        self._servers[channel] = server
        return self.scope.owns(server_of(channel, server))

    def channels(self) -> list[str]:
        """Channels of this process's servers that have a journal."""
        with self._db() as db:
            rows = db.execute("SELECT channel, server FROM tables ORDER BY channel").fetchall()
        return [str(c) for c, s in rows if self._owns(c, s)]

    # ---------------------------------------------------------------- users
    def remember_nick(self, user: str, nick: str) -> None:
        with self._writing(None) as db:
            db.execute(
                'INSERT INTO nick_history (nick_key, nick, "user", seen) '
                "VALUES (?, ?, ?, nextval('nick_seen')) "
                'ON CONFLICT (nick_key) DO UPDATE SET nick = excluded.nick, "user" = '
                "excluded.user, seen = excluded.seen",
                (fold_nick(nick), nick, user),
            )

    def close(self) -> None:
        """Finish the appends in flight, stop renewing and hand the leases back (a
        successor starts at once)."""
        self._closing = True
        for _ in self._writers:
            self._appends.put(None)
        for writer in self._writers:
            writer.join(timeout=10)
        self._stop.set()
        self._stalls.close()
        if self._leases.stop():
            try:
                with self._pool.connection(timeout=2) as db:
                    self._leases.hand_back(db)
            except Exception as exc:
                log.warning("store %s: leases not handed back (%s); they expire in %.0f s",
                            self.url, first_line(exc), self.lease_s)  # fmt: skip
        self._pool.close()


class _AnswerLost(Exception):
    """The connection dropped after a write was sent: it may or may not be committed."""

    def __init__(self, exc: psycopg.OperationalError) -> None:
        super().__init__(str(exc))
        self.exc = exc


class _Append:
    """One :meth:`PostgresStore.append` waiting for a writer thread; ``answer`` is called
    with its outcome once it is known."""

    __slots__ = ("answer", "at", "channel", "done", "error", "length", "lines")

    def __init__(
        self,
        channel: str,
        lines: list[str],
        at: int | None,
        answer: Callable[[int | Exception], None] | None = None,
    ) -> None:
        self.channel = channel
        self.lines = lines
        self.at = at
        self.answer = answer
        self.done = threading.Event()
        self.error: Exception | None = None
        self.length = 0

    def finish(self) -> None:
        """The outcome is known: wake the waiter and answer."""
        if self.done.is_set():
            return
        self.done.set()
        if self.answer is not None:
            self.answer(self.length if self.error is None else self.error)


class _Pg:
    """A connection that runs the shared statements (``?`` for their parameters)."""

    __slots__ = ("conn",)

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, statement: str, params: Sequence[Any] = (), /) -> Rows:
        return self.conn.execute(for_psycopg(statement), params)
