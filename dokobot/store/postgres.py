"""PostgreSQL store: the :class:`~dokobot.store.Store` of several bot processes.

Same promises as :class:`~dokobot.store.SqliteStore`: an append is one transaction, committed
with ``synchronous_commit=on`` before it returns; the schema is versioned (``MIGRATIONS``)
and a database made by a newer dokobot is refused.

One writer per table: a process holds a lease (a row of ``leases``) on each key of its
:class:`~dokobot.store.scope.Scope` and renews it every ``lease_s / 3`` seconds, but only
while its event loop answers (:meth:`PostgresStore.watch_loop`): a wedged or paused process
loses its leases. Keys of an :class:`~dokobot.store.scope.Epoch` name a count, the *epoch*
(as Discord's shard count); a start with another count (a reshard) begins a new epoch and
deletes every lease of the old one. Every write of a table (an append, a fold, a
checkpoint, a result) checks, in its own transaction, that the process holds all its leases
in the current epoch and the lease key of the table's own server (the scope's key of it);
settings are written only by a process that holds its leases. The rows are locked ``FOR
KEY SHARE`` (the owner is part of a key), so a takeover waits for the writes in flight and
then sees them, while a renewal does not wait for them. A lease is taken
over when it has expired, or at once when its holder's connections are gone (a killed
process); while the holder lives, a second process for the same keys refuses to start. A
process that finds itself fenced writes nothing more and calls
:attr:`PostgresStore.on_lost`.

The store is a composition of parts, each a module with one job: its connections and
whether the database is down (:mod:`~dokobot.store.pg_connect`), the schema
(:mod:`~dokobot.store.pg_schema`), the leases and fences
(:mod:`~dokobot.store.pg_leases`), the journal appends (:mod:`~dokobot.store.pg_append`),
every request's deadline (:mod:`~dokobot.store.pg_stall`: a read without an answer in time
is :class:`~dokobot.store.StoreUnavailable`, a write "not known yet") and the writes whose
answer was lost (:mod:`~dokobot.store.pg_lost`: every append names its position and is read
back, so the store answers the truth; :class:`~dokobot.store.StoreUnknown` only while the
database cannot be read, or when another process took the table over and may have written
there). The reads and the other writes are the statements both SQL stores share
(:mod:`~dokobot.store.shared`).

The password comes from ``DOKOBOT_STORE_PASSWORD`` (or libpq's own ``PGPASSWORD`` and
``.pgpass``); it is never part of a repr or a log line.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

import psycopg

from .base import Append, Checkpoint, StoreError, StoreLocked, StoreUnavailable, Summary, fold_nick
from .pg_append import WRITERS, Appends
from .pg_connect import Connections, answer_lost, conninfo_of, first_line, safe_url
from .pg_leases import LEASE_LOST, NOT_SERVED, Leases, TableServers
from .pg_lost import LostAnswers
from .pg_schema import check_version, migrate
from .pg_stall import READ_S
from .scope import Scope
from .shared import Db, Rows, SqlStore
from .statements import for_psycopg

if TYPE_CHECKING:
    from ..stats.record import FinishedGame

log = logging.getLogger(__name__)

PASSWORD_ENV: Final = "DOKOBOT_STORE_PASSWORD"
SCHEMA_S: Final = 120.0
"""How long a start may take to check (and bring up to date) the database's schema: a
migration of a large store takes a while, and another process may be migrating it (the
start waits for it); a server process that answers nothing (paused, hung) makes the start
refuse after this long instead of waiting for ever."""


class PostgresStore(SqlStore):
    """Journals in PostgreSQL for the servers of ``scope`` (see the module doc).

    ``lease_s``: how long a lease lasts without renewal (a dead process's servers are
    taken over after at most this long). ``wait_s``: how long a start waits for a live
    holder of its leases to let go before it refuses (default ``lease_s``). ``readonly``:
    read beside the running bots, hold no lease, write nothing. ``resolve_s``: how long
    an append whose answer was lost tries to read back whether it was stored. ``read_s``:
    how long a read, or a write other than an append, waits for its answer (see
    :mod:`~dokobot.store.pg_stall`). ``schema_s``: how long the start's check and migration
    of the schema may take (:data:`SCHEMA_S`).
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
        read_s: float = READ_S,
        schema_s: float = SCHEMA_S,
    ) -> None:
        self.url = safe_url(url)
        """The database, without the password."""
        self.where = self.url
        self.scope = scope or Scope()
        self.lease_s = lease_s
        self.readonly = readonly
        self.owner = f"dokobot {socket.gethostname()[:24]} pid {os.getpid()} {secrets.token_hex(3)}"
        """Names this process in ``leases`` and as its connections' application_name."""
        password = password if password is not None else os.environ.get(PASSWORD_ENV) or None
        self._conns = Connections(
            self.url, conninfo_of(url, self.owner, lease_s, password), pool_size, read_s
        )
        self._leases = Leases(self.url, self.scope, self.owner, lease_s, self._conns.connect,
                              self._conns.stalls)  # fmt: skip
        self._servers = TableServers()
        self._lost = LostAnswers(self._conns, self._leases, resolve_s)
        try:
            first = self._conns.connect()
        except psycopg.Error as exc:
            raise StoreError(f"store {self.url}: cannot connect ({first_line(exc)})") from None
        try:
            self._check_schema(first, schema_s)
            if not readonly:
                self._leases.acquire(first, lease_s if wait_s is None else wait_s)
        except BaseException:
            first.close()
            raise
        if readonly:
            first.close()
        self._conns.open()
        self._appends = Appends(
            self._conns, self._leases, self._servers, self._lost, writers=0 if readonly else WRITERS
        )
        if not readonly:
            self._leases.start(first)

    def _check_schema(self, first: psycopg.Connection[Any], within_s: float) -> None:
        """Migrate (unless read-only) and check the schema on ``first``; its server process
        must answer within ``within_s`` (else the connection is cut and the start refused)."""
        with self._conns.stalls.watch(first, within_s) as flight:
            try:
                if not self.readonly:
                    migrate(first, self.url)
                check_version(first, self.url)
            except psycopg.Error as exc:
                if not flight.cut:
                    raise
                raise StoreUnavailable(
                    f"store {self.url}: the schema could not be checked: the database did not "
                    f"answer within {within_s:.0f} s (a paused server process, or another "
                    "dokobot process still migrating it); start again once it answers"
                ) from exc

    @property
    def resolve_s(self) -> float:
        """How long an append whose answer was lost tries to read back whether it was
        stored."""
        return self._lost.resolve_s

    def conninfo(self) -> str:
        """How to connect to this database, password included (for a process's own extra
        connections, e.g. LISTEN; never to be logged)."""
        return self._conns.conninfo()

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

    def is_down(self) -> bool:
        """Whether the database is known to be unreachable now."""
        return self._conns.is_down()

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"store {self.url} was opened to read only")

    @contextmanager
    def _fenced_write(self, channel: str | None) -> Iterator[psycopg.Connection[Any]]:
        """A transaction that first checks the fence: this process holds its leases in the
        current epoch and (for a table's ``channel``) the lease of the table's server."""
        self._writable()
        if self.lost is not None:
            raise StoreLocked(f"store {self.url}: {self.lost}")
        backend: tuple[int, Any] = (0, None)
        sent = False
        try:
            with self._conns.db() as db:
                backend = self._conns.backend(db)
                with db.transaction():
                    if channel is None:
                        self._leases.fence_process(db)
                    else:
                        self._leases.fence_table(db, channel, self._servers.of(db, channel))
                    yield db
                    sent = True  # (the commit is sent as the block ends)
        except psycopg.Error as exc:
            if isinstance(exc, psycopg.OperationalError) and answer_lost(exc):
                # (a fold, a checkpoint, a setting: it may still commit) "not known yet";
                # the table's records are read only once its session is gone
                raise self._lost.lost_write(channel, backend, exc, committed=sent) from None
            if exc.sqlstate == LEASE_LOST:
                self._leases.fenced()
                raise StoreLocked(f"store {self.url}: {self.lost}") from None
            if exc.sqlstate == NOT_SERVED:
                self._servers.forget(channel or "")  # (read again next time)
                raise StoreLocked(f"store {self.url}: {first_line(exc)}") from None
            raise

    def schema_version(self) -> int:
        with self._conns.read() as db:
            row = db.execute("SELECT version FROM dokobot_schema").fetchone()
        return int(row[0]) if row else 0

    # ---------------------------------------------------------------- journals
    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        """Hand the lines to a writer thread and wait until they are committed. The writers
        commit the appends of several tables that arrive together in one transaction (one
        WAL flush for all); an append is still all or nothing, and returns only once it
        is durable."""
        self._writable()
        return self._appends.append(channel, lines, at)

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
        held is answered when it is written on its own, later."""
        self._writable()
        self._appends.append_each(appends, answer)

    # ---------------------------------------------------------------- shared (SqlStore)
    ROW_LOCK = " FOR UPDATE"

    @contextmanager
    def _reading(self, channel: str | None = None) -> Iterator[Db]:
        if channel is not None:
            self._lost.settle(channel)
        with self._conns.read() as db:
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
        with self._conns.read() as db:
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
        return self.scope.owns(self._servers.note(channel, server))

    def channels(self) -> list[str]:
        """Channels of this process's servers that have a journal."""
        with self._conns.read() as db:
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
        self._conns.closing = True
        self._appends.close()
        self._conns.stop()
        if self._leases.stop():
            try:
                with self._conns.pool.connection(timeout=2) as db, \
                        self._conns.stalls.watch(db, self._conns.read_s):  # fmt: skip
                    self._leases.hand_back(db)
            except Exception as exc:
                log.warning("store %s: leases not handed back (%s); they expire in %.0f s",
                            self.url, first_line(exc), self.lease_s)  # fmt: skip
        self._conns.close()


class _Pg:
    """A connection that runs the shared statements (``?`` for their parameters)."""

    __slots__ = ("conn",)

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, statement: str, params: Sequence[Any] = (), /) -> Rows:
        return self.conn.execute(for_psycopg(statement), params)
