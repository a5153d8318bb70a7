"""What a PostgreSQL write whose answer was lost did (a part of
:class:`~dokobot.store.postgres.PostgresStore`).

Every append names its position (``at``, its idempotency key with the table). When the
answer of its commit is lost (the connection dropped, or the write was cut: see
:mod:`dokobot.store.pg_stall`), its server process is ended and waited for (a paused one
may still commit until it is gone), then the records at that position are read back: the
append is answered with the truth. Records equal to the append's at its position are its
own only while no other process can have written there: the read-back checks, as a write
of the table would, that this process still holds the table's lease (held now, it was held
all along: a lease taken over is never taken back); another process that took the table
over may have written the very same records there (the same card pressed again), so then
the answer is :class:`~dokobot.store.StoreUnknown` ("not known yet"), and this process is
fenced. "Not known yet" also while the database cannot be read or that process is not
gone; the table's records are then not read (so not rebuilt) until it is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final

import psycopg

from .base import StoreError, StoreUnknown
from .pg_connect import CONNECT_WAIT_S, Connections, first_line
from .pg_leases import LEASE_LOST, NOT_SERVED, Leases, server_of
from .pg_pending import Pending

log = logging.getLogger(__name__)

CUT_GONE_S: Final = 0.5
"""After a cut: how long the read-back waits for the cut server process to be gone; still
there (paused), its appends are "not known yet" and their tables wait for it."""
GONE_POLL_S: Final = 0.05
"""How often a read-back looks whether the session of a lost answer is gone."""


class LostAnswers:
    """The lost answers of the store process that holds ``leases`` (its owner is its
    connections' application name): each resolved within ``resolve_s`` seconds, and the
    tables whose lost write may still commit."""

    def __init__(self, conns: Connections, leases: Leases, resolve_s: float) -> None:
        self.conns = conns
        self.url = conns.url
        self.leases = leases
        self.owner = leases.owner
        self.resolve_s = resolve_s
        self._doubt: dict[str, tuple[int, Any]] = {}
        """Per table: the backend of a write whose answer was lost and that was not seen
        gone: the table's records are not read (so not rebuilt) until it is gone."""

    def doubt(self, channel: str, backend: tuple[int, Any]) -> None:
        """A write of ``channel`` on ``backend`` (pid, start) lost its answer and may still
        commit (a fold, a checkpoint): its records are read only once that is gone."""
        self._doubt[channel] = backend

    def lost_write(
        self, channel: str | None, backend: tuple[int, Any], exc: Exception, *, committed: bool
    ) -> StoreError:
        """The answer of a write other than an append (a fold, a checkpoint, a setting) was
        lost: its connection dropped or was cut by its deadline. End its server process and
        wait up to :data:`CUT_GONE_S` until it is gone: gone, a write whose commit was not
        sent was not stored (:class:`StoreError`), any other is :class:`StoreUnknown`; not
        gone, it may still commit, so the table's records are not read until it is (see
        :meth:`settle`)."""
        deadline = time.monotonic() + CUT_GONE_S
        gone = False
        try:
            with self.conns.own(deadline) as db:
                gone = self._gone(db, backend, deadline)
        except psycopg.Error:
            pass
        if not gone and channel is not None:
            self.doubt(channel, backend)
        if gone and not committed:
            return StoreError(f"store {self.url}: not written ({first_line(exc)})")
        return StoreUnknown(f"store {self.url}: the answer was lost ({first_line(exc)}); "
                            "whether it was stored is not known yet")  # fmt: skip

    def resolve(
        self,
        batch: list[Pending],
        exc: Exception,
        backend: tuple[int, Any],
        write_apart: Callable[[list[Pending], bool], None],
        *,
        cut: bool = False,
        again: bool = False,
    ) -> None:
        """The answer of ``batch``'s commit was lost: make sure its ``backend`` (pid, start)
        is gone (terminated, and no longer in ``pg_stat_activity``: a paused backend may
        still commit until then), then read back, per append, whether its records are at
        its position; all within :attr:`resolve_s` seconds (:data:`CUT_GONE_S` to be gone
        when the write was ``cut``: its backend did not answer, it is likely paused). Stored:
        its length; not stored: an error, and ``write_apart`` writes those of a batch of
        several (or of a first cut) again; not known (the backend still there, or the
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
                with self.conns.own(deadline) as db:
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
                if apart:
                    write_apart(apart, again or cut)
                return
            except psycopg.Error:
                now = time.monotonic()
                if now >= deadline or (not reached and now >= start + CONNECT_WAIT_S):
                    break  # (an outage: "not known yet" now, the truth when it is back)
                time.sleep(0.25)
        if not reached:
            self.conns.mark_down()
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

    def settle(self, channel: str) -> None:
        """Before a table's records are read: if a write of it whose answer was lost may
        still commit (its backend was not seen gone), make sure it is gone now, else
        :class:`StoreUnknown` (the table stays on hold: nothing is rebuilt from records
        that may still change)."""
        backend = self._doubt.get(channel)
        if backend is None:
            return
        deadline = time.monotonic() + self.resolve_s
        try:
            with self.conns.own(deadline) as db:
                gone = self._gone(db, backend, deadline)
        except psycopg.Error as exc:
            raise StoreUnknown(f"store {self.url}: cannot tell whether the lost write of "
                               f"{channel} is over ({first_line(exc)})") from None  # fmt: skip
        if not gone:
            raise StoreUnknown(f"store {self.url}: the session of a lost write of {channel} "
                               "is not gone yet; not known yet whether it was stored")  # fmt: skip
        if self._doubt.get(channel) == backend:
            del self._doubt[channel]

    def _read_back(self, db: psycopg.Connection[Any], req: Pending, exc: Exception) -> None:
        if req.at is None:
            req.error = StoreUnknown(f"store {self.url}: the answer was lost "
                                     f"({first_line(exc)}); the append named no position")  # fmt: skip
            return
        # (the lost transaction's session is gone: see _gone)
        try:
            # a read: rolled back, so its fence's row locks wait for no commit (a standby)
            with db.transaction(force_rollback=True):
                self._only_writer(db, req.channel)
                rows = db.execute(
                    "SELECT line FROM journal WHERE channel = %s AND seq >= %s AND seq < %s "
                    "ORDER BY seq",
                    (req.channel, req.at, req.at + len(req.lines)),
                ).fetchall()
        except psycopg.Error as err:
            if err.sqlstate not in (LEASE_LOST, NOT_SERVED):
                raise
            if err.sqlstate == LEASE_LOST:
                self.leases.fenced()
            log.warning("store %s: the lost answer of %s is not read back (%s)", self.url,
                        req.channel, first_line(err))  # fmt: skip
            req.error = StoreUnknown(
                f"store {self.url}: the answer was lost ({first_line(exc)}) and this process "
                f"no longer holds table {req.channel} (another may have written at its "
                "position): whether it was stored is not known"
            )
            return
        if [str(r[0]) for r in rows] == req.lines:
            log.warning("store %s: the append at %s of %s was stored", self.url, req.at,
                        req.channel)  # fmt: skip
            req.length = req.at + len(req.lines)
        else:
            req.error = StoreError(f"store {self.url}: not written ({first_line(exc)})")

    def _only_writer(self, db: psycopg.Connection[Any], channel: str) -> None:
        """Make sure that no process but this one can have written ``channel``'s records
        since this one took the table's lease: it holds that lease now, in the current epoch
        (the fence of a write of the table, else :data:`LEASE_LOST` or :data:`NOT_SERVED`;
        a lease taken over is never taken back, so held now means held all along), or the
        table does not exist (nobody wrote it)."""
        row = db.execute("SELECT server FROM tables WHERE channel = %s", (channel,)).fetchone()
        if row is not None:
            self.leases.fence_table(db, channel, server_of(channel, row[0]))
