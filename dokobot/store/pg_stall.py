"""The client side's deadline on everything a PostgreSQL store asks its server.

A server process that is paused or hung (``SIGSTOP``, a machine that stalls) answers
nothing, and nothing on its side can end the wait: a ``lock_timeout`` or
``statement_timeout`` fires only in a process that runs, and TCP keepalives are answered by
its kernel. So the store watches each round trip it makes (a read, a write, a lease's
renewal): one that has no answer within its deadline is cut (its connection is shut down
on the client side). A cut read changes nothing: it is answered "cannot be read right now"
(:class:`~dokobot.store.StoreUnavailable`). A cut write's answer is lost: the store ends
that server process and says "not known yet" until it is gone (see
:meth:`dokobot.store.pg_lost.LostAnswers.resolve`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import psycopg

log = logging.getLogger(__name__)

READ_S: Final = 5.0
"""How long a read (or a write other than an append) may go without an answer from its
server process before its connection is cut (more than an append's ``STALL_S``: a read
cut on a busy machine is an answer nobody gets, and no table waits for it)."""


class Flight:
    """One write under way on a connection (its socket ``fd``), due by ``deadline``
    (monotonic seconds). ``cut``: the watch cut its connection."""

    __slots__ = ("cut", "deadline", "fd", "pid")

    def __init__(self, fd: int, pid: int, deadline: float) -> None:
        self.fd = fd
        self.pid = pid
        self.deadline = deadline
        self.cut = False


class StallWatch:
    """Cuts the connection of a write that is not over by its deadline (a thread of its
    own, started with the first write)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self._changed = threading.Condition()
        self._flights: dict[Flight, None] = {}
        self._closed = False
        self._thread: threading.Thread | None = None

    def enter(self, conn: psycopg.Connection[Any], within_s: float) -> Flight:
        """A write on ``conn`` begins and must be answered within ``within_s`` seconds; call
        :meth:`leave` once it is (or failed), before the connection is closed or handed on."""
        flight = Flight(conn.fileno(), conn.info.backend_pid, time.monotonic() + within_s)
        with self._changed:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._watch, name="dokobot-stalls",
                                                daemon=True)  # fmt: skip
                self._thread.start()
            self._flights[flight] = None
            self._changed.notify()
        return flight

    def leave(self, flight: Flight) -> bool:
        """The write of ``flight`` is over: whether its connection was cut (then it must
        not be used again, even if the answer came)."""
        with self._changed:  # (a cut under way ends before the connection may be closed)
            self._flights.pop(flight, None)
            return flight.cut

    @contextmanager
    def watch(self, conn: psycopg.Connection[Any], within_s: float) -> Iterator[Flight]:
        """The block's round trips on ``conn`` must be over within ``within_s`` seconds;
        once the block is left, the flight's ``cut`` tells whether they were cut."""
        flight = self.enter(conn, within_s)
        try:
            yield flight
        finally:
            self.leave(flight)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                for flight in [f for f in self._flights if f.deadline <= now]:
                    del self._flights[flight]
                    self._cut(flight)
                soonest = min((f.deadline for f in self._flights), default=None)
                self._changed.wait(None if soonest is None else max(0.0, soonest - now))

    def _cut(self, flight: Flight) -> None:
        """Shut the connection down (see :func:`cut`)."""
        flight.cut = True
        log.warning("store %s: a request got no answer from its server process (backend %d) "
                    "in time; its connection is cut", self.where, flight.pid)  # fmt: skip
        try:
            cut(flight.fd)
        except OSError as exc:
            log.warning("store %s: the connection of backend %d could not be cut (%s)",
                        self.where, flight.pid, exc)  # fmt: skip


def cut(fd: int) -> None:
    """Shut down the connection of socket ``fd`` on the client's side: a read that waits
    on it returns at once (the connection failed), even while its server process is paused;
    the descriptor stays its owner's to close."""
    dup = os.dup(fd)
    try:
        sock = socket.socket(fileno=dup)
    except OSError:
        os.close(dup)
        raise
    with sock:
        sock.shutdown(socket.SHUT_RDWR)
