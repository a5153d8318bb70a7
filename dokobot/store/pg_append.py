"""The journal appends of a PostgreSQL store process (a part of
:class:`~dokobot.store.postgres.PostgresStore`).

Writer threads take the appends that wait and commit those of several tables in one
transaction (one WAL flush for all) through the database's ``dokobot_append``, which
fences them (the process's leases, each table's server and key) and checks each one's
position; an append is still all or nothing and is answered only once it is durable. One
table's trouble refuses no other table: a write waits for a table's row at most
:data:`LOCK_WAIT_MS` (then its appends wait for their rows one by one, each at most
:data:`ALONE_WAIT_MS`, and one whose row is still held is refused: nothing of it was
written), a write whose server process does not answer is cut after :data:`STALL_S`, and a
batch that fails is written again one append at a time. A lost
answer is resolved by :class:`~dokobot.store.pg_lost.LostAnswers`.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import psycopg

from .base import Append, StoreConflict, StoreError, StoreLocked
from .pg_connect import LOCK_WAIT, AnswerLost, Connections, answer_lost, first_line
from .pg_leases import LEASE_LOST, NOT_SERVED, Leases, TableServers
from .pg_lost import LostAnswers
from .pg_pending import Pending

log = logging.getLogger(__name__)

WRITERS: Final = 2
"""Writer threads per process: while one waits for its commit, the other gathers the next
appends."""
BATCH: Final = 256
"""The most appends a writer commits at once."""
LOCK_WAIT_MS: Final = 500
"""How long a write of appends waits for a table's row (see :meth:`Appends._write`)."""
ALONE_WAIT_MS: Final = 4000
"""How long an append whose table's row another session holds waits for it on its own;
then it is refused (nothing of it was written: "did not count") and its table rebuilt from
the store. Its player waits this long at most for the answer."""
STALL_S: Final = 2.0
"""How long a write of appends may go without an answer from its server process (paused or
hung: nothing on its side can end the wait) before its connection is cut, that process
ended and the outcome read back (see :mod:`dokobot.store.pg_stall`)."""
CONFLICT: Final = "DKC01"
"""SQLSTATE of an append whose position is not where the table's journal ends."""


def server_in(lines: list[str]) -> str | None:
    """The server a table's journal names (its ``server`` record), if these lines hold one."""
    server = None
    for line in lines:
        if '"k":"server"' in line:
            data = json.loads(line)
            if data.get("k") == "server":
                server = str(data.get("text", ""))
    return server


class Appends:
    """The appends of the process that holds ``leases``, on ``conns``; ``writers`` threads
    (none for a store opened to read)."""

    def __init__(
        self,
        conns: Connections,
        leases: Leases,
        servers: TableServers,
        lost: LostAnswers,
        *,
        writers: int = WRITERS,
    ) -> None:
        self.conns = conns
        self.url = conns.url
        self.leases = leases
        self.servers = servers
        self.lost = lost
        self.closing = False
        self._stalls = conns.stalls
        self._queue: queue.SimpleQueue[Pending | None] = queue.SimpleQueue()
        self._writers = [
            threading.Thread(target=self._write_loop, name=f"dokobot-writer-{i}", daemon=True)
            for i in range(writers)
        ]
        for writer in self._writers:
            writer.start()

    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        """Hand the lines to a writer thread and wait until they are committed (see
        :meth:`dokobot.store.Store.append`)."""
        if not lines:
            with self.conns.read() as db:
                row = db.execute(
                    "SELECT length FROM tables WHERE channel = %s", (channel,)
                ).fetchone()
            length = 0 if row is None else int(row[0])
            if at is not None and at != length:
                raise StoreConflict(f"table {channel} holds {length} records, not {at}")
            return length
        if self.closing:
            raise StoreError(f"store {self.url} is closed")
        req = Pending(channel, lines, at)
        self._queue.put(req)
        req.done.wait()
        if req.error is not None:
            raise req.error
        return req.length

    def append_each(
        self, appends: Sequence[Append], answer: Callable[[int, int | Exception], None]
    ) -> None:
        """Every append in one round trip and one transaction, written by this thread; an
        append whose table's row is held is answered when it is written on its own, later
        (see :meth:`_write`)."""
        if self.closing:
            raise StoreError(f"store {self.url} is closed")
        reqs = []
        for i, (channel, lines, at) in enumerate(appends):
            if lines:
                reqs.append(Pending(channel, lines, at, partial(answer, i)))
                continue
            try:
                answer(i, self.append(channel, lines, at))
            except Exception as exc:
                answer(i, exc)
        if reqs:
            self._write(reqs)

    def _write_loop(self) -> None:
        """A writer thread: take every waiting append (up to :data:`BATCH`) and commit them
        at once."""
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < BATCH:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)
                    break
                batch.append(nxt)
            self._write(batch)

    def _write(self, batch: list[Pending], *, alone: bool = False, again: bool = False) -> None:
        """Commit ``batch`` in one transaction and answer each append. The write waits for
        a table's row at most :data:`LOCK_WAIT_MS`: then each append is written on its own,
        and one whose row is still held waits for it ``alone``, in a thread and on a
        connection of its own (its lock refuses and holds up no other table). A write that
        does not wait ``alone`` is cut when its server process does not answer within
        :data:`STALL_S` (see :meth:`LostAnswers.resolve`): a paused server process holds up
        only the tables of its own transaction, and only that long. A write cut that is
        found not stored (a busy machine, not a paused process) is written once more, each
        append on its own (``again``: not a third time)."""
        if self.leases.lost is not None:
            for req in batch:
                req.error = StoreLocked(f"store {self.url}: {self.leases.lost}")
                req.finish()
            return
        backend: tuple[int, Any] = (0, None)
        cut = False
        try:
            with self.conns.db(watched=False) as db:
                backend = self.conns.backend(db)
                records = [server_in(r.lines) for r in batch]
                flight = self._stalls.enter(db, STALL_S + (ALONE_WAIT_MS / 1000 if alone else 0))
                sent = False
                try:
                    named = self.servers.of_batch(db, [r.channel for r in batch], records)
                    sent = True
                    row = db.execute(
                        "SELECT dokobot_append(%s, %s, %s, %b, %b, %b, %b, %b, %b, %b, %s)",
                        (self.leases.owner, len(self.leases.keys), self.leases.count,
                         [r.channel for r in batch], [r.at for r in batch],
                         [len(r.lines) for r in batch], [x for r in batch for x in r.lines],
                         records, named, [self.leases.scope.key_of(n) for n in named],
                         ALONE_WAIT_MS if alone else LOCK_WAIT_MS),
                    ).fetchone()  # fmt: skip
                except psycopg.OperationalError as exc:
                    if answer_lost(exc) and sent:
                        raise AnswerLost(exc) from exc
                    raise
                finally:
                    cut = flight is not None and self._stalls.leave(flight)
                if cut:  # answered just as it was cut: the answer stands, the connection not
                    db.close()
        except AnswerLost as lost:
            self.lost.resolve(batch, lost.exc, backend, self._write_apart, cut=cut, again=again)
            return
        except Exception as exc:
            self._refused(batch, exc, cut=cut, again=again, alone=alone)
            return
        assert row is not None
        for req, length, record in zip(batch, row[0], records, strict=True):
            if record is not None:
                self.servers.note(req.channel, record)
            req.length = int(length)
            req.finish()

    def _refused(
        self, batch: list[Pending], exc: Exception, *, cut: bool, again: bool, alone: bool
    ) -> None:
        """``batch``'s write failed with ``exc`` (nothing of it was written): wait for a
        held row apart, write a cut batch or a bad append's neighbours again on their own,
        else answer each append with its refusal."""
        state = exc.sqlstate if isinstance(exc, psycopg.Error) else None
        if state == LOCK_WAIT and alone:
            log.warning("store %s: table %s's row was held by another session for %.0f s; "
                        "the append is refused (not written)", self.url, batch[0].channel,
                        ALONE_WAIT_MS / 1000)  # fmt: skip
        elif state == LOCK_WAIT:  # (nothing was written)
            if len(batch) > 1:
                for req in batch:
                    self._write([req])
            else:
                threading.Thread(target=self._write, args=(batch,), kwargs={"alone": True},
                                 daemon=True, name="dokobot-writer-waits").start()  # fmt: skip
            return
        if cut and (len(batch) > 1 or not again):  # cut before it was sent: not written
            self._write_apart(batch, True)
            return
        if state == LEASE_LOST:
            self.leases.fenced()
        elif state == NOT_SERVED:
            for req in batch:  # (read again: a table's server may be other than held)
                self.servers.forget(req.channel)
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
                StoreLocked(f"store {self.url}: {self.leases.lost}")
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

    def _write_apart(self, reqs: list[Pending], again: bool) -> None:
        """Write again, each in a transaction of its own, the appends of a batch that were
        found not stored: the batch's trouble (a lock wait, a connection that died, a cut)
        may be one table's, and refuses no other table. Each is answered when its own write
        is."""
        if not reqs:
            return
        log.warning("store %s: %d appends of a lost batch were not stored; each is written "
                    "again on its own", self.url, len(reqs))  # fmt: skip
        for req in reqs:
            req.error = None
            threading.Thread(target=self._write, args=([req],), kwargs={"again": again},
                             name="dokobot-writer-apart", daemon=True).start()  # fmt: skip

    def close(self) -> None:
        """Finish the appends in flight; no more are taken."""
        self.closing = True
        for _ in self._writers:
            self._queue.put(None)
        for writer in self._writers:
            writer.join(timeout=10)
