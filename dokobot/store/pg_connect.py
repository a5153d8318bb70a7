"""How the PostgreSQL store connects: its url without the password (for logs and reprs),
the connection string that hides it, the :class:`Connections` of a store (its pool, the
connections of their own, whether the database is down), the pool's check of an idle
connection, and which errors may have come after a commit (a lost answer)."""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool

from .base import StoreError, StoreUnavailable
from .pg_stall import READ_S, StallWatch

log = logging.getLogger(__name__)

CONNECT_WAIT_S: Final = 2.0
"""How long a call waits for a connection (the first refusal in an outage comes after
this; then the database is known to be down and calls fail at once)."""
STARTS_KEPT: Final = 1024
"""Backends whose start time is kept (the newest)."""
PROBE_S: Final = 0.5
"""While the database is down: how often the background probe tries to reach it."""
LOCK_WAIT: Final = "55P03"
"""SQLSTATE of a lock not had within the time given (``lock_timeout``)."""


def safe_url(url: str) -> str:
    """``url`` without its password (for logs and reprs)."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable url)"
    params.pop("password", None)
    host = params.get("host", "")
    port = params.get("port", "")
    user = params.get("user", "")
    db = params.get("dbname", "")
    who = f"{user}@" if user else ""
    where = f"{host}:{port}" if port else str(host)
    return f"postgresql://{who}{where}/{db}"


class Secret(str):
    """A connection string that holds the password: shown as ``'<hidden>'``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'<hidden>'"

    __str__ = __repr__

    def reveal(self) -> str:
        return str.__str__(self)


def check_idle(conn: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection it hands out, without a round trip: an idle
    connection has nothing to read, unless the server closed it (a restart, an operator's
    ``pg_terminate_backend``) — then the pool replaces it before it fails a write."""
    if conn.closed or conn.broken:
        raise psycopg.OperationalError("the connection is closed")
    poll = select.poll()
    poll.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    if poll.poll(0):
        conn.close()  # so that the pool drops it
        raise psycopg.OperationalError("the server closed the connection")


def answer_lost(exc: psycopg.OperationalError) -> bool:
    """Whether ``exc`` may have come after the commit: the connection dropped (no answer,
    a connection error) or the server ended the session (an operator, a crash, a stop)."""
    return exc.sqlstate is None or exc.sqlstate[:2] in ("08", "57")


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class AnswerLost(Exception):
    """The connection dropped after a write was sent: it may or may not be committed."""

    def __init__(self, exc: psycopg.OperationalError) -> None:
        super().__init__(str(exc))
        self.exc = exc


def conninfo_of(url: str, owner: str, lease_s: float, password: str | None) -> str:
    """The connection string of a store process ``owner`` (its application_name) at
    ``url``: every commit durable before it returns, an idle transaction ended after
    ``lease_s``, a vanished database noticed in seconds."""
    extra: dict[str, Any] = {
        "application_name": owner,
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
        return make_conninfo(url, **extra)
    except psycopg.ProgrammingError as exc:
        raise StoreError(f"store {safe_url(url)}: not a PostgreSQL url ({exc})") from None


class Connections:
    """The connections of one store process to its database ``url`` (without the
    password): a pool (opened by :meth:`open`), connections of their own, when each
    pooled backend started, and whether the database is down: while it is, every call
    fails at once (no connection waits) and a background probe waits for it to come back."""

    def __init__(self, url: str, conninfo: str, pool_size: int, read_s: float = READ_S) -> None:
        self.url = url
        self.read_s = read_s
        """How long a read, or a write other than an append, waits for its answer."""
        self.stalls = StallWatch(url)
        """Cuts a request that gets no answer in time (see :mod:`~dokobot.store.pg_stall`)."""
        self.closing = False
        """Set by the store as it closes: a failure then starts no probe."""
        self._conninfo = Secret(conninfo)
        self._down = threading.Event()
        """Set while the database is known to be unreachable (see :meth:`_probe`)."""
        self._probing = threading.Lock()
        self._stop = threading.Event()
        self._started: dict[int, Any] = {}
        """Per backend pid of a pooled connection: when that backend started (a pid alone
        may name another backend later, e.g. after a restart)."""
        self.pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            timeout=CONNECT_WAIT_S,
            check=check_idle,
            configure=self._note_backend,
            open=False,
            name="dokobot-store",
        )

    def open(self) -> None:
        """Open the pool (after the store's set-up on a connection of its own)."""
        self.pool.open()

    def conninfo(self) -> str:
        """How to connect, password included (never to be logged)."""
        return self._conninfo.reveal()

    def connect(self) -> psycopg.Connection[Any]:
        """A connection of its own (not pooled)."""
        return psycopg.connect(self._conninfo.reveal(), autocommit=True)

    @contextmanager
    def own(self, deadline: float) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own whose connect and statements end by ``deadline`` (for
        reading back: the pool may be what failed)."""
        left = max(0.5, deadline - time.monotonic())
        db = psycopg.connect(self._conninfo.reveal(), autocommit=True,
                             connect_timeout=max(1, min(2, int(left))),
                             options=f"-c statement_timeout={int(left * 1000)}")  # fmt: skip
        with db, self.stalls.watch(db, left + 0.5):  # (its own process may stall too)
            yield db

    def _note_backend(self, conn: psycopg.Connection[Any]) -> None:
        """The pool's set-up of a new connection: note when its backend started."""
        row = conn.execute(
            "SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).fetchone()
        self._started[conn.info.backend_pid] = None if row is None else row[0]
        if len(self._started) > STARTS_KEPT:  # the oldest (None then: matched by pid alone)
            del self._started[next(iter(self._started))]

    def backend(self, db: psycopg.Connection[Any]) -> tuple[int, Any]:
        """The backend of pooled ``db``: its pid and when it started (None: not known)."""
        pid = db.info.backend_pid
        return pid, self._started.get(pid)

    @contextmanager
    def db(self, watched: bool = True) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; fails at once while the database is known to be down, and
        notes it down when no connection can be had. What the block asks must be answered
        within :attr:`read_s` seconds, else the connection is cut (see
        :mod:`~dokobot.store.pg_stall`; not ``watched``: the block watches its own)."""
        if self._down.is_set():
            raise StoreUnavailable(f"store {self.url}: the database cannot be reached "
                                   "(retrying)")  # fmt: skip
        try:
            conn = self.pool.getconn()
        except psycopg.Error as exc:
            self.mark_down()
            raise StoreUnavailable(f"store {self.url}: no connection ({first_line(exc)})") from None
        flight = self.stalls.enter(conn, self.read_s) if watched else None
        cut = False
        try:
            try:
                with conn:
                    yield conn
            finally:  # (before the connection may be closed)
                cut = flight is not None and self.stalls.leave(flight)
        except (psycopg.OperationalError, AnswerLost):
            conn.close()  # a connection that failed is never handed out again
            raise
        finally:
            if cut:  # answered just as it was cut: the answer stands, the connection not
                conn.close()
            self.pool.putconn(conn)

    @contextmanager
    def read(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection to read: a read that gets no answer in time (or no
        connection) is :class:`StoreUnavailable`, and changed nothing."""
        try:
            with self.db() as db:
                yield db
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"store {self.url}: cannot be read right now "
                                   f"({first_line(exc)})") from None  # fmt: skip

    def mark_down(self) -> None:
        """Note that the database cannot be reached, and probe for it in the background."""
        if self.closing or not self._probing.acquire(blocking=False):
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
                self.pool.check()
                log.warning("store %s: the database answers", self.url)
                return
        finally:
            self._down.clear()
            self._probing.release()

    def is_down(self) -> bool:
        """Whether the database is known to be unreachable now."""
        return self._down.is_set()

    def stop(self) -> None:
        """End the probe (the pool stays open for the store's last words)."""
        self._stop.set()

    def close(self) -> None:
        """Close the pool."""
        self._stop.set()
        self.stalls.close()
        self.pool.close()
