"""Journal appends of several tables in one store transaction (the service's writes)."""

from __future__ import annotations

import asyncio
from typing import Final

from ..store import Store


class GroupCommit:
    """Journal appends of several tables in one worker-thread hop and one store transaction.

    Appends that are ready in the same turn of the event loop go to the store together
    (:meth:`Store.append_many`: one commit, one flush to disk for all of them); while
    :attr:`IN_FLIGHT` such writes are under way, new appends wait and go with the next.
    Each append returns (is acknowledged) only once its write committed; an append the
    store refused raises, and only that one. An append whose caller is cancelled while its
    write is under way may still commit: :meth:`writing` says so until the write is over.
    """

    IN_FLIGHT: Final = 2
    """Writes under way at once: the next batch gathers while one commits, and one slow
    write (e.g. a lock wait) does not hold up every table."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: list[tuple[str, list[str], int | None, asyncio.Future[int]]] = []
        self._writes: set[asyncio.Task[None]] = set()
        self._scheduled = False
        self._in_flight: dict[str, int] = {}
        """Per table: the writes under way that hold an append of it."""

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
        if not self._scheduled and len(self._writes) < self.IN_FLIGHT:
            self._scheduled = True
            loop.call_soon(self._flush)  # after this turn: what else is ready comes along

    def _flush(self) -> None:
        self._scheduled = False
        # an append whose caller was cancelled is not written: its records are still in
        # the table's journal, so the table's next write takes them
        batch = [p for p in self._pending if not p[3].done()]
        self._pending.clear()
        if batch:
            for channel, *_ in batch:
                self._in_flight[channel] = self._in_flight.get(channel, 0) + 1
            task = asyncio.get_running_loop().create_task(self._write(batch))
            self._writes.add(task)

    async def _write(
        self, batch: list[tuple[str, list[str], int | None, asyncio.Future[int]]]
    ) -> None:
        results: list[int | Exception]
        try:
            results = await asyncio.to_thread(
                self.store.append_many, [(channel, lines, at) for channel, lines, at, _ in batch]
            )
            if len(results) != len(batch):
                raise RuntimeError("the store answered a different number of appends")
        except Exception as exc:
            results = [exc] * len(batch)
        except BaseException:  # the loop stops: nobody waits for an answer any more
            for *_, done in batch:
                done.cancel()
            raise
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._writes.discard(task)
            for channel, *_ in batch:
                self._in_flight[channel] -= 1
                if not self._in_flight[channel]:
                    del self._in_flight[channel]
        for (*_, done), result in zip(batch, results, strict=True):
            if done.done():
                continue
            if isinstance(result, Exception):
                done.set_exception(result)
            else:
                done.set_result(result)
        if self._pending:  # after the answers: their tables' next appends come along
            self._schedule(asyncio.get_running_loop())

    async def drain(self) -> None:
        """Wait until every append handed in is written (before the store closes)."""
        while self._writes or self._pending:
            if self._writes:
                await asyncio.gather(*self._writes, return_exceptions=True)
            else:
                self._schedule(asyncio.get_running_loop())
                await asyncio.sleep(0)
