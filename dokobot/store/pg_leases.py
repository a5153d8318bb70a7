"""The leases of one PostgreSQL store process: one writer per table (see
:mod:`dokobot.store.postgres`).

A process holds a lease (a row of ``leases``) on each key of its
:class:`~dokobot.store.scope.Scope` and renews it every ``lease_s / 3`` seconds, while its
event loop answers. Keys of an :class:`~dokobot.store.scope.Epoch` name a count; a start
with another count begins a new epoch (``shard_epoch``) and deletes every lease of the old
one. Every write checks, in its own transaction, that the process still holds all its
leases in the current epoch (:meth:`Leases.fence_process`) and, for a table, the key of the
table's server (:meth:`Leases.fence_table`): the writer gives that key (its scope's), and the
database checks that it is held and that the writer names the table's stored server.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import psycopg

from .base import StoreLocked, StoreUnavailable
from .pg_connect import LOCK_WAIT, first_line
from .pg_stall import READ_S, StallWatch
from .scope import Scope

log = logging.getLogger(__name__)

LEASE_LOST: Final = "DKL01"
"""SQLSTATE of a write by a process that no longer holds its leases (in the current epoch)."""
NOT_SERVED: Final = "DKL02"
"""SQLSTATE of a write of a table whose server's key this process does not hold."""
LOCK_TRY_S: Final = 0.5
"""The least a try to take the leases waits for the table of leases (see
:meth:`Leases.acquire`)."""


class Leases:
    """The leases of the process ``owner`` on the keys of ``scope`` (see the module doc);
    ``connect`` opens the heartbeat's own connection when it needs a new one; ``stalls``
    cuts a renewal that gets no answer in time (a paused server process)."""

    def __init__(
        self,
        where: str,
        scope: Scope,
        owner: str,
        lease_s: float,
        connect: Callable[[], psycopg.Connection[Any]],
        stalls: StallWatch,
    ) -> None:
        self.where = where
        self.scope = scope
        self.owner = owner
        self.lease_s = lease_s
        self.keys = scope.keys()
        epoch = scope.epoch
        self.count = None if epoch is None else epoch.count
        """The epoch's count this process writes in (None: its keys name no count)."""
        self._connect = connect
        self._stalls = stalls
        self.on_lost: Callable[[str], None] | None = None
        self.lost: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._db: psycopg.Connection[Any] | None = None
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None

    # ---------------------------------------------------------------- taking and keeping
    def acquire(self, db: psycopg.Connection[Any], wait_s: float) -> None:
        """Take the leases, waiting up to ``wait_s`` for live holders to let go. Each try
        waits for the table of leases at most what is left of ``wait_s`` (at least
        :data:`LOCK_TRY_S`: another session may hold it, e.g. a process paused in its
        renewal), and its server process must answer within that and
        :data:`~dokobot.store.pg_stall.READ_S` (else its connection is cut); a start that
        cannot take them in time refuses (:class:`StoreLocked`, or
        :class:`StoreUnavailable` when the database did not answer)."""
        deadline = time.monotonic() + wait_s
        warned = False
        while True:
            left = max(LOCK_TRY_S, deadline - time.monotonic())
            with self._stalls.watch(db, left + READ_S) as flight:
                try:
                    blockers = self._try_acquire(db, left)
                except psycopg.Error as exc:
                    if flight.cut:
                        raise StoreUnavailable(
                            f"store {self.where}: the leases could not be taken: the database "
                            f"did not answer within {left + READ_S:.0f} s"
                        ) from None
                    if exc.sqlstate != LOCK_WAIT:
                        raise
                    blockers = None
            if blockers == []:
                return
            if blockers is None:
                what = ("the table of leases is held by another session (a dokobot process "
                        "paused while it renewed its leases, or an open transaction)")  # fmt: skip
                end = "end that session first"
            else:
                what = ", ".join(f"{k} (held by {o})" for k, o in blockers)
                what += " is served by another dokobot process that is still running"
                end = "stop the other process first, or give this one other shards"
            if time.monotonic() >= deadline:
                raise StoreLocked(f"store {self.where}: {what}; this one "
                                  f"({self.scope.describe()}) does not start: {end}")  # fmt: skip
            if not warned:
                log.warning("waiting up to %.1f s: %s", wait_s, what)
                warned = True
            if blockers is not None:
                time.sleep(min(0.25, wait_s / 4 or 0.25))

    def _try_acquire(self, db: psycopg.Connection[Any], lock_s: float) -> list[tuple[str, str]]:
        """One try of :meth:`acquire`, waiting for the table of leases at most ``lock_s``
        (else :data:`~dokobot.store.pg_connect.LOCK_WAIT`): the keys' live holders (key,
        owner); none: the leases are taken."""
        epoch = self.scope.epoch
        family = "" if epoch is None else f"{epoch.family}%"
        ours = "" if epoch is None else f"%/{epoch.count}"
        with db.transaction():
            db.execute("SELECT set_config('lock_timeout', %s, true)",
                       (str(max(1, int(lock_s * 1000))),))  # fmt: skip
            db.execute("LOCK TABLE leases IN SHARE ROW EXCLUSIVE MODE")
            rows = db.execute(
                "SELECT key, owner, expires > now(), EXISTS (SELECT 1 FROM pg_stat_activity"
                " a WHERE a.application_name = l.owner) FROM leases l "
                "WHERE owner <> %s AND (key = ANY(%s) OR (%s AND key LIKE %s "
                "AND key NOT LIKE %s))",
                (self.owner, list(self.keys), epoch is not None, family, ours),
            ).fetchall()
            blockers = [(str(k), str(o)) for k, o, fresh, alive in rows if fresh and alive]
            if blockers:
                return blockers
            for key, owner, _, _ in rows:
                log.warning("taking over %s from %s (gone or its lease expired)", key, owner)
            db.execute(
                "INSERT INTO leases (key, owner, expires) "
                "SELECT k, %s, now() + make_interval(secs => %s) FROM unnest(%s::text[]) k "
                "ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, "
                "expires = excluded.expires",
                (self.owner, self.lease_s, list(self.keys)),
            )
            if epoch is not None:
                self._begin_epoch(db, family, ours)
        return []

    def _begin_epoch(self, db: psycopg.Connection[Any], family: str, ours: str) -> None:
        """Make this process's count the current epoch; a re-split deletes every lease of
        the old epoch (their holders are gone or expired: see :meth:`acquire`), so an old
        process that comes back is fenced."""
        old = db.execute(
            "DELETE FROM leases WHERE key LIKE %s AND key NOT LIKE %s RETURNING key, owner",
            (family, ours),
        ).fetchall()
        if old:
            log.warning("reshard to %d: the leases of the old epoch (%s) end",
                        self.count, ", ".join(f"{k} of {o}" for k, o in old))  # fmt: skip
        db.execute(
            "INSERT INTO shard_epoch (one, shard_count) VALUES (true, %s) "
            "ON CONFLICT (one) DO UPDATE SET shard_count = excluded.shard_count",
            (self.count,),
        )

    def start(self, db: psycopg.Connection[Any]) -> None:
        """Renew the leases from now on, on ``db`` (the connection that took them): while
        it is open, this process counts as alive (a start for the same servers refuses
        instead of taking over)."""
        self._db = db
        self._heartbeat = threading.Thread(target=self._renew, name="dokobot-lease",
                                           daemon=True)  # fmt: skip
        self._heartbeat.start()

    def watch_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def _loop_answers(self) -> bool:
        loop = self._loop
        if loop is None:
            return True
        answered = threading.Event()
        try:
            loop.call_soon_threadsafe(answered.set)
        except RuntimeError:  # the loop is closed
            return False
        return answered.wait(self.lease_s / 6)

    def fenced(self, reason: str | None = None) -> None:
        """This process is fenced: say so once and tell :attr:`on_lost`."""
        if self.lost is not None:
            return
        self.lost = reason or f"another dokobot took over {self.scope.describe()}"
        log.error("store %s: %s; this process writes nothing more", self.where, self.lost)
        if self.on_lost is not None:
            self.on_lost(self.lost)

    def _renew(self) -> None:
        """Heartbeat thread: renew the leases every ``lease_s / 3`` seconds while the event
        loop answers."""
        while not self._stop.wait(self.lease_s / 3):
            if self.lost is not None:
                return
            if not self._loop_answers():
                log.warning("store %s: the event loop does not answer; leases not renewed",
                            self.where)  # fmt: skip
                continue
            try:
                if self._db is None or self._db.closed:
                    self._db = self._connect()
                # the rows are still ours unless another process took them (a renewal after
                # an outage is safe: nobody else has written); it does not wait for the
                # writes in flight (they hold the rows FOR KEY SHARE), and is cut when its
                # own server process does not answer within the lease (later, it is of no
                # use; a renewal that is only slow is not cut before)
                with self._stalls.watch(self._db, self.lease_s):
                    cur = self._db.execute(
                        "UPDATE leases SET expires = now() + make_interval(secs => %s) "
                        "WHERE owner = %s",
                        (self.lease_s, self.owner),
                    )
                held = cur.rowcount
            except Exception as exc:
                log.warning("store %s: lease not renewed (%s)", self.where, first_line(exc))
                if self._db is not None:
                    self._db.close()
                continue
            if held != len(self.keys):
                self.fenced()

    def stop(self) -> bool:
        """Stop renewing; whether there were leases to hand back."""
        self._stop.set()
        if self._heartbeat is None:
            return False
        self._heartbeat.join(timeout=5)
        return True

    def hand_back(self, db: psycopg.Connection[Any]) -> None:
        """Delete this process's leases (a successor starts at once) and close the
        heartbeat's connection."""
        db.execute("DELETE FROM leases WHERE owner = %s", (self.owner,))
        if self._db is not None:
            self._db.close()

    # ---------------------------------------------------------------- fences
    def fence_process(self, db: psycopg.Connection[Any]) -> None:
        """In ``db``'s transaction: this process holds all its leases in the current epoch
        (else the database raises :data:`LEASE_LOST`)."""
        db.execute("SELECT dokobot_fence_process(%s, %s, %s)",
                   (self.owner, len(self.keys), self.count))  # fmt: skip

    def fence_table(self, db: psycopg.Connection[Any], channel: str, server: str) -> None:
        """In ``db``'s transaction: :meth:`fence_process`, and this process holds the key of
        ``server``, which must be the table's (:data:`NOT_SERVED` if not)."""
        db.execute("SELECT dokobot_fence(%s, %s, %s, %s, %s, %s)",
                   (self.owner, len(self.keys), self.count, channel, server,
                    self.scope.key_of(server)))  # fmt: skip


def server_of(channel: str, server: str | None) -> str:
    """The server of a table: its server record, else its channel without the last part
    (as the database's ``dokobot_server_of``)."""
    if server:
        return server
    head, sep, _ = channel.rpartition(":")
    return head if sep else channel


class TableServers:
    """The server of each table this process writes, whose lease key fences its writes:
    its ``server`` record as stored (None: none), read once per table and forgotten when
    the database says the table is of another server."""

    def __init__(self) -> None:
        self._stored: dict[str, str | None] = {}

    def of(self, db: psycopg.Connection[Any], channel: str) -> str:
        """The server of ``channel``'s table (as :meth:`of_batch`)."""
        if channel not in self._stored:
            row = db.execute("SELECT server FROM tables WHERE channel = %s", (channel,)).fetchone()
            self._stored[channel] = None if row is None or row[0] is None else str(row[0])
        return server_of(channel, self._stored[channel])

    def of_batch(
        self, db: psycopg.Connection[Any], channels: list[str], records: list[str | None]
    ) -> list[str]:
        """The server of each table of a write: the server record among its lines
        (``records``), else the one stored (read once per table), else its channel's."""
        unknown = [c for c in channels if c not in self._stored]
        if unknown:
            rows = db.execute(
                "SELECT channel, server FROM tables WHERE channel = ANY(%s)", (unknown,)
            ).fetchall()
            found = {str(c): None if s is None else str(s) for c, s in rows}
            for channel in unknown:
                self._stored[channel] = found.get(channel)
        return [server_of(c, record or self._stored.get(c))
                for c, record in zip(channels, records, strict=True)]  # fmt: skip

    def note(self, channel: str, server: str | None) -> str:
        """``channel``'s table has the server record ``server`` (None: none) as stored: its
        server."""
        self._stored[channel] = server
        return server_of(channel, server)

    def forget(self, channel: str) -> None:
        """Read ``channel``'s server again next time (the database said it is another)."""
        self._stored.pop(channel, None)
