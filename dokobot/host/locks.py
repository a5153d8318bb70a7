"""The tables' locks and their watchdog.

Inputs of one channel are handled one at a time under its lock; channels do not wait for
each other. A lock held too long is named in the log, and freed when others wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

log = logging.getLogger(__name__)

LOCK_WARN_S: Final = 5.0
"""A table's lock held this long is named in the log by the watchdog (with what its
holder waits for)."""
LOCK_FREE_S: Final = 10.0
"""A table's lock held this long while others wait for it is freed by the watchdog: its
holder is cancelled, the table waits for the store as after a write whose outcome is not
known (rebuilt from the store once it answers) and the waiting inputs go on."""
WATCH_EVERY_S: Final = 1.0
"""Seconds between two looks of the watchdog."""


class Freed(Exception):
    """The watchdog freed the table's lock that the current task held too long."""


class TableLocks:
    """One lock per channel, kept while somebody needs it, and the watchdog over them.

    ``on_freed(channel)``: the watchdog freed the channel's lock (the table must wait for
    the store); ``on_idle(channel)``: nobody needs the channel's lock any more."""

    def __init__(self, on_freed: Callable[[str], None], on_idle: Callable[[str], None]) -> None:
        self.on_freed = on_freed
        self.on_idle = on_idle
        self.closed = False
        self._locks: dict[str, asyncio.Lock] = {}
        self._lock_users: dict[str, int] = {}
        self._holders: dict[str, tuple[float, asyncio.Task[Any]]] = {}
        """Per table whose lock is held: since when (loop time) and by which task."""
        self._freed: set[asyncio.Task[Any]] = set()
        """Tasks the watchdog cancelled because they held a table's lock too long."""
        self.watchdog: asyncio.Task[None] | None = None

    def __contains__(self, channel: str) -> bool:
        """Whether a lock of ``channel`` is kept."""
        return channel in self._locks

    def users(self, channel: str) -> int:
        """How many tasks hold or wait for the lock of ``channel``."""
        return self._lock_users.get(channel, 0)

    def forget(self, channel: str) -> None:
        """Drop the lock of ``channel`` (its table left memory)."""
        self._locks.pop(channel, None)

    def _lock(self, channel: str) -> asyncio.Lock:
        lock = self._locks.get(channel)
        if lock is None:
            lock = self._locks[channel] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def channel(self, channel: str) -> AsyncIterator[None]:
        """Hold the lock of ``channel``; ``on_idle`` when nobody needs it any more. A holder
        the watchdog frees (:meth:`free_overdue_locks`) gets :class:`Freed`, and the table
        waits for the store (``on_freed``)."""
        self._lock_users[channel] = self._lock_users.get(channel, 0) + 1
        self._start_watchdog()
        task = asyncio.current_task()
        try:
            async with self._lock(channel):
                if task is not None:
                    self._holders[channel] = (asyncio.get_running_loop().time(), task)
                try:
                    yield
                except asyncio.CancelledError:
                    if task is None or task not in self._freed:
                        raise
                    self._freed.discard(task)
                    task.uncancel()
                    self.on_freed(channel)
                    raise Freed(channel) from None
                finally:
                    self._holders.pop(channel, None)
        finally:
            self._lock_users[channel] -= 1
            if not self._lock_users[channel]:
                del self._lock_users[channel]
                self.on_idle(channel)

    def _start_watchdog(self) -> None:
        if self.closed or (self.watchdog is not None and not self.watchdog.done()):
            return
        self.watchdog = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        """Every :data:`WATCH_EVERY_S` seconds: :meth:`free_overdue_locks`."""
        loop = asyncio.get_running_loop()
        while not self.closed:
            await asyncio.sleep(WATCH_EVERY_S)
            try:
                self.free_overdue_locks(loop.time())
            except Exception:
                log.exception("the watchdog failed")

    def free_overdue_locks(
        self, now: float, warn: float = LOCK_WARN_S, free: float = LOCK_FREE_S
    ) -> list[str]:
        """Name in the log every table whose lock is held longer than ``warn`` seconds at
        ``now`` (loop time), with what its holder waits for; free those held longer than
        ``free`` while other work waits for them (their holder is cancelled and gets
        :class:`Freed`). The tables freed."""
        freed: list[str] = []
        for channel, (since, task) in list(self._holders.items()):
            held = now - since
            if held <= warn or task.done() or task in self._freed:
                continue
            frames = task.get_stack(limit=1)
            waits = f"{frames[-1].f_code.co_name}" if frames else "?"
            waiting = self._lock_users.get(channel, 0) - 1
            if held > free and waiting > 0:
                log.warning("watchdog: table %s held its lock for %.1f s (in %s) while %s "
                            "wait; freed", channel, held, waits, waiting)  # fmt: skip
                self._freed.add(task)
                task.cancel()
                freed.append(channel)
            else:
                log.warning("watchdog: table %s holds its lock for %.1f s (in %s)",
                            channel, held, waits)  # fmt: skip
        return freed
