"""Journal appends of several tables in one store transaction (the service's writes)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from ..store import Store

_Pending = tuple[str, list[str], "int | None", "asyncio.Future[int]"]


class GroupCommit:
    """Journal appends of several tables in one worker-thread hop and one store transaction.

    Appends that are ready in the same turn of the event loop go to the store together
    (:meth:`Store.append_many`: one commit, one flush to disk for all of them); while
    :attr:`IN_FLIGHT` such writes are under way, new appends wait and go with the next (one
    more goes out beside writes that are slow, see :attr:`SPARE`).
    Each append returns (is acknowledged) only once its write committed; an append the
    store refused raises, and only that one. Each is answered as soon as its own outcome is
    known (:meth:`Store.append_each`), not when the slowest of its transaction's is. An
    append whose caller is cancelled while its write is under way may still commit:
    :meth:`writing` says so until the store answered it.
    """

    IN_FLIGHT: Final = 2
    """Writes under way at once: the next batch gathers while one commits, and one slow
    write (e.g. a lock wait) does not hold up every table."""
    SLOW_S: Final = 0.5
    """A write under way this long is slow: it no longer counts toward :attr:`IN_FLIGHT`."""
    SPARE: Final = 1
    """Writes that may go out beside :attr:`IN_FLIGHT` slow ones: two stalled writes (e.g.
    paused database server processes, which the store cuts after its deadline) do not hold
    up every other table meanwhile."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: list[_Pending] = []
        self._writes: dict[asyncio.Task[None], float] = {}
        """The writes under way, and when each began (loop time)."""
        self._recheck: asyncio.TimerHandle | None = None
        """Wakes :meth:`_schedule` when a write under way turns slow."""
        self._scheduled = False
        self._in_flight: dict[str, int] = {}
        """Per table: its appends handed to the store and not answered yet."""

    def writing(self, channel: str) -> bool:
        """Whether an append of ``channel`` is being written now: it may still commit, even
        if its caller stopped waiting for it (nothing of the table may be read back yet)."""
        return channel in self._in_flight

    async def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        """:meth:`Store.append` of ``lines`` (at position ``at``), sharing the store's
        transaction with the appends of other tables that are ready now."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._pending.append((channel, lines, at, done))
        self._schedule(loop)
        return await done

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._scheduled:
            return
        now = loop.time()
        fresh = [began for began in self._writes.values() if now - began < self.SLOW_S]
        room = len(self._writes) < self.IN_FLIGHT + self.SPARE
        if room and len(fresh) < self.IN_FLIGHT:
            self._scheduled = True
            loop.call_soon(self._flush)  # after this turn: what else is ready comes along
        elif room and self._recheck is None:  # (when the oldest turns slow, look again)
            self._recheck = loop.call_later(min(fresh) + self.SLOW_S - now, self._look_again)

    def _look_again(self) -> None:
        self._recheck = None
        if self._pending:
            self._schedule(asyncio.get_running_loop())

    def _flush(self) -> None:
        self._scheduled = False
        # an append whose caller was cancelled is not written: its records are still in
        # the table's journal, so the table's next write takes them
        batch = [p for p in self._pending if not p[3].done()]
        self._pending.clear()
        if batch:
            for channel, *_ in batch:
                self._in_flight[channel] = self._in_flight.get(channel, 0) + 1
            loop = asyncio.get_running_loop()
            task = loop.create_task(self._write(batch))
            self._writes[task] = loop.time()

    async def _write(self, batch: list[_Pending]) -> None:
        loop = asyncio.get_running_loop()
        answered = [False] * len(batch)

        def settle(i: int, result: int | Exception) -> None:  # (the loop's thread)
            if answered[i]:
                return
            answered[i] = True
            channel, *_, done = batch[i]
            self._in_flight[channel] -= 1
            if not self._in_flight[channel]:
                del self._in_flight[channel]
            if not done.done():
                if isinstance(result, Exception):
                    done.set_exception(result)
                else:
                    done.set_result(result)

        def answer(i: int, result: int | Exception) -> None:  # (any thread)
            with contextlib.suppress(RuntimeError):  # (the loop is closed: nobody waits)
                loop.call_soon_threadsafe(settle, i, result)

        try:
            # each append is answered when its own outcome is known: one the store writes
            # apart (its table's row is held) holds up none of the others
            await asyncio.to_thread(
                self.store.append_each, [(channel, lines, at) for channel, lines, at, _ in batch],
                answer,
            )  # fmt: skip
        except Exception as exc:
            for i in range(len(batch)):
                settle(i, exc)
        except BaseException:  # the loop stops: nobody waits for an answer any more
            for *_, done in batch:
                done.cancel()
            raise
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._writes.pop(task, None)
        if self._pending:  # after the answers: their tables' next appends come along
            self._schedule(loop)

    async def drain(self) -> None:
        """Wait until every append handed in is written (before the store closes)."""
        while self._writes or self._pending or self._in_flight:
            if self._writes:
                await asyncio.gather(*self._writes, return_exceptions=True)
            elif self._pending:
                self._schedule(asyncio.get_running_loop())
                await asyncio.sleep(0)
            else:  # an append the store writes on its own (its table's row is held)
                await asyncio.sleep(0.02)
