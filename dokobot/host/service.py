"""The async face of the host, shared by every adapter.

:meth:`Service.handle` answers one input. Inputs of one channel are handled one at a
time; channels do not wait for each other. Every accepted action is written to the store
before the answer is returned. Computer players and turn timeouts act in background tasks;
what they say reaches the adapter through :attr:`Service.listener`. Slow work (computer
players' search, store writes) runs in worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..stats import Stats, finished_game
from ..store import MemoryStore, Store
from .events import Event, Input, Private, draw_pictures, has_pictures_to_draw
from .notes import ALL, Note
from .replay import Replayer, ReplayError
from .router import Router
from .table import BotFactory, Table

log = logging.getLogger(__name__)

Listener = Callable[[list[Event]], Awaitable[None]]


def default_bot_factory(budget_s: float | None = None) -> BotFactory | None:
    """Computer players from :mod:`dokobot.ai` (``budget_s``: search time per decision)."""
    try:
        from ..ai import Restrictions, make_player
    except ImportError:  # pragma: no cover
        return None

    def factory(level: str, seed: int, duel: bool) -> Any:
        restrictions = Restrictions(no_calls=True, no_solo=True) if duel else None
        return make_player(level, seed=seed, restrictions=restrictions, budget_s=budget_s)

    return factory


class Service:
    """Router + store + computer players + timeouts, for asyncio adapters."""

    def __init__(
        self,
        router: Router,
        store: Store | None = None,
        *,
        bot_delay: float = 0.0,
    ) -> None:
        self.router = router
        self.store: Store = store if store is not None else MemoryStore()
        self.listener: Listener | None = None
        self.bot_delay = bot_delay
        self._locks: dict[str, asyncio.Lock] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._closed = False
        router.history = self._history
        if router.stats is None:
            router.stats = Stats(self.store)
        self._results_done: dict[str, int] = {}
        """Per channel: how many of the table's finished games are in the store."""

    @classmethod
    def in_memory(
        cls, seed: int | None = 0, *, bots: bool = True, bot_delay: float = 0.0, language: str = "en"
    ) -> Service:
        """A service with a fresh in-memory store (tests, the console)."""
        factory = default_bot_factory() if bots else None
        return cls(Router(seed=seed, bot_factory=factory, default_language=language),
                   bot_delay=bot_delay)  # fmt: skip

    def _history(self, table: Table) -> list[str]:
        return self.store.load_journal(table.channel) + table.journal

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> list[Event]:
        """Rebuild every table from the store; events saying the games continue."""
        langs = await asyncio.to_thread(self.store.languages)
        self.router.langs.update(langs)
        events: list[Event] = []
        for channel in await asyncio.to_thread(self.store.channels):
            journal = await asyncio.to_thread(self.store.load_journal, channel)
            events += self._restore(channel, journal)
            await asyncio.to_thread(self._recover_result, channel)
        if self.router.stats is not None:
            await asyncio.to_thread(self.router.stats.warm)
        for channel in list(self.router.tables):
            self._after_change(channel)
        return events

    def _restore(self, channel: str, journal: list[str]) -> list[Event]:
        table = self.router.table(channel)
        table.journal.clear()
        table.scripted_bots = True
        rep = Replayer(router=self.router, channel=channel, trusted=True)
        try:
            rep.run_lines(journal)
        except ReplayError:
            log.exception("journal of %s is damaged; restored up to the damage", channel)
        finally:
            table.scripted_bots = False
        for seat in table.seats:
            if not seat.is_bot:
                self.router.user_table[seat.user] = channel
        table.journal.clear()  # the store has it
        self._results_done[channel] = len(table.finished)
        if not table.running:
            return []
        notes = [Note(ALL, "restored"), *table.prompt()]
        return self.router.render_notes(table, notes, None)

    def _recover_result(self, channel: str) -> None:
        """Store the result of a table's last game if a stop came between its journal
        lines and its result (a stored result is kept as it is)."""
        table = self.router.tables.get(channel)
        if table is None or not table.finished or table.running or table.game is None:
            return
        if table.finished[-1].number == table.game_number:
            self.store.add_result(finished_game(table, table.finished[-1]))

    async def close(self) -> None:
        self._closed = True
        for task in [*self._bot_tasks.values(), *self._timers.values()]:
            task.cancel()
        for task in [*self._bot_tasks.values(), *self._timers.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.to_thread(self.store.close)

    # ---------------------------------------------------------------- input
    def _lock(self, channel: str) -> asyncio.Lock:
        lock = self._locks.get(channel)
        if lock is None:
            lock = self._locks[channel] = asyncio.Lock()
        return lock

    def _channel_of(self, inp: Input) -> str:
        if inp.channel and not inp.dm:
            return inp.channel
        return self.router.user_table.get(inp.user, "")

    async def handle(self, inp: Input) -> list[Event]:
        """Answer one input (never raises)."""
        try:
            channel = self._channel_of(inp)
            async with self._lock(channel):
                before = self.router.langs.get(inp.user)
                events = self.router.handle(inp)
                events += await self._persist(channel)
                after = self.router.langs.get(inp.user)
                if after is not None and after != before:
                    await asyncio.to_thread(self.store.set_language, inp.user, after)
            self._after_change(channel)
            if has_pictures_to_draw(events):
                events = await asyncio.to_thread(draw_pictures, events)
            return events
        except Exception:
            log.exception("service failed on input")
            return [Private(inp.channel, inp.user, "Sorry, something went wrong.", reply=True,
                            kind="error")]  # fmt: skip

    async def persist(self, channel: str) -> None:
        """Write the channel's new journal lines to the store."""
        await self._persist(channel)

    async def _persist(self, channel: str) -> list[Event]:
        """Store the new journal lines, then the games finished by them; the links to
        those games' web pages, if any, as channel messages."""
        table = self.router.tables.get(channel)
        if table is None:
            return []
        new = table.journal[:]
        if new:
            await asyncio.to_thread(self.store.append, channel, new)
            # The store holds them now; keeping them in memory too would grow every table
            # by ~100 KB over a long series.
            del table.journal[: len(new)]
        done = self._results_done.get(channel, 0)
        if len(table.finished) <= done:
            return []
        games = [finished_game(table, rec) for rec in table.finished[done:]]
        stored = [await asyncio.to_thread(self.store.add_result, g) for g in games]
        self._results_done[channel] = len(table.finished)
        return self.router.game_links(table, stored)

    async def _emit(self, events: list[Event]) -> None:
        if events and self.listener is not None:
            try:
                await self.listener(events)
            except Exception:
                log.exception("listener failed")

    # ---------------------------------------------------------------- background work
    def _after_change(self, channel: str) -> None:
        if self._closed or channel not in self.router.tables:
            return
        table = self.router.tables[channel]
        if table.bot_to_move() is not None:
            task = self._bot_tasks.get(channel)
            if task is None or task.done():
                self._bot_tasks[channel] = asyncio.get_running_loop().create_task(
                    self._run_bots(channel)
                )
        self._arm_timer(channel, table)

    async def _run_bots(self, channel: str) -> None:
        while not self._closed:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with self._lock(channel):
                decision = await asyncio.to_thread(self.router.bot_decide, channel)
                if decision is None:
                    return
                events = self.router.bot_apply(channel, *decision)
                events += await self._persist(channel)
            await self._emit(events)
            table = self.router.tables[channel]
            self._arm_timer(channel, table)

    def _arm_timer(self, channel: str, table: Table) -> None:
        old = self._timers.pop(channel, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        timeout = table.options.turn_timeout
        game = table.game
        if not timeout or game is None or not table.running or table.bot_to_move() is not None:
            return
        seat = game.turn
        marker = (table.game_number, len(game.log))
        self._timers[channel] = asyncio.get_running_loop().create_task(
            self._timeout(channel, seat, marker, float(timeout))
        )

    async def _timeout(
        self, channel: str, seat: int, marker: tuple[int, int], delay: float
    ) -> None:
        await asyncio.sleep(delay)
        table = self.router.tables[channel]
        if not self._still(table, marker):
            return
        notes = [Note(seat, "timeout_reminder", {"seconds": int(delay)}, kind="info")]
        await self._emit(self.router.render_notes(table, notes, None))
        await asyncio.sleep(delay)
        if not table.options.standin:
            return
        async with self._lock(channel):
            if not self._still(table, marker):
                return
            notes = [table.mark_away(seat)]
            events = self.router.render_notes(table, notes, None)
            await self._persist(channel)
        await self._emit(events)
        self._after_change(channel)

    @staticmethod
    def _still(table: Table, marker: tuple[int, int]) -> bool:
        game = table.game
        return game is not None and table.running and (table.game_number, len(game.log)) == marker

    async def idle(self) -> None:
        """Wait until no computer player is thinking (tests)."""
        while True:
            tasks = [t for t in self._bot_tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    def snapshot(self) -> dict[str, Any]:
        """Counts for logs and benchmarks."""
        return {"tables": len(self.router.tables)}
