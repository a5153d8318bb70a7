"""What moves a table when nobody types: its computer players, and the turn clock that
reminds a person whose turn it is and lets a computer player stand in for them.

Both run in background tasks, one of each per table; what they say reaches the adapters
through :class:`~dokobot.host.delivery.Delivery`. A move the store refused was undone: the
table's recovery (:class:`~dokobot.host.residency.Residency`) starts them again.
"""

from __future__ import annotations

import asyncio
import time

from .delivery import Delivery
from .liveboard import LiveBoard
from .locks import TableLocks
from .notes import Note
from .residency import Residency
from .router import Router
from .table import Table


class Turns:
    """The computer players' tasks and the turn timers of every table."""

    def __init__(
        self,
        router: Router,
        locks: TableLocks,
        board: LiveBoard,
        delivery: Delivery,
        residency: Residency,
        *,
        bot_delay: float = 0.0,
    ) -> None:
        self.router = router
        self.locks = locks
        self.board = board
        self.delivery = delivery
        self.residency = residency
        self.bot_delay = bot_delay
        self.closed = False
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._timed: dict[str, tuple[int, int, int] | None] = {}
        """Per channel: the turn (seat, game number, moves) its running turn clock times."""
        self._restarted: dict[str, tuple[int, int]] = {}
        """Per channel: the turn whose clock a delivery report restarted (:meth:`prompt_sent`:
        once per turn; every board edit that names the player reports one)."""
        self.paced: set[str] = set()
        """Channel id prefixes whose turn timer waits for the prompt to be sent."""

    def tasks(self) -> list[asyncio.Task[None]]:
        """The computer players' tasks and the turn timers (to stop them)."""
        return [*self._bot_tasks.values(), *self._timers.values()]

    def forget(self, channel: str) -> None:
        """Stop the background work of ``channel`` (its table leaves memory)."""
        task = self._bot_tasks.pop(channel, None)
        timer = self._timers.pop(channel, None)
        for t in (task, timer):
            if t is not None:
                t.cancel()

    def after_change(self, channel: str) -> None:
        """Start the computer players of ``channel`` if one is to move, and its turn timer."""
        tables = self.router.tables
        if self.closed or channel not in tables or channel in self.residency.damaged:
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
        """Let the computer players of ``channel`` move while it is their turn. A move the
        store refused was undone: the table's recovery starts them again once the store is
        back (nobody has to type)."""
        while not self.closed:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with self.locks.channel(channel):
                if channel not in self.router.tables:
                    return
                decision = await asyncio.to_thread(self.router.bot_decide, channel)
                if decision is None:
                    return
                events = self.board.with_board(channel, self.router.bot_apply(channel, *decision))
                links = await self.residency.commit(channel)
                if isinstance(links, str):
                    return
                events += links
            await self.delivery.emit(events)
            table = self.router.tables[channel]
            self._arm_timer(channel, table)

    def _arm_timer(self, channel: str, table: Table, *, sent: bool = False) -> None:
        """Start the turn timer of ``channel`` (and stop the one before). On a paced channel
        (see :attr:`paced`) it starts only when the adapter reports the prompt ``sent``."""
        game = table.game
        turn = None if game is None else (game.turn, table.game_number, len(game.log))
        old = self._timers.get(channel)
        if not sent and old is not None and not old.done() and self._timed.get(channel) == turn:
            return  # the same turn's clock runs on: an input at the table does not restart it
        self._timers.pop(channel, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        paced = self._paced(channel)
        if not sent and paced:
            return
        timeout = table.options.turn_timeout
        if not timeout or game is None or not table.running or table.bot_to_move() is not None:
            return
        seat = game.turn
        marker = (table.game_number, len(game.log))
        self._timed[channel] = turn
        start = self.board.turn_start(channel, marker, restart=sent and paced)
        self._timers[channel] = asyncio.get_running_loop().create_task(
            self._timeout(channel, seat, marker, float(timeout), start)
        )

    def _paced(self, channel: str) -> bool:
        return any(channel.startswith(prefix) for prefix in self.paced)

    async def _timeout(
        self, channel: str, seat: int, marker: tuple[int, int], delay: float, start: float
    ) -> None:
        """The reminder ``delay`` seconds after the turn's ``start``, the stand-in twice
        that after it: when the board's countdown says."""
        await asyncio.sleep(max(0.0, start + delay - time.time()))
        table = self.router.tables.get(channel)
        if table is None or not _still(table, marker):
            return
        notes = [Note(seat, "timeout_reminder", {"seconds": int(delay)}, kind="reminder")]
        self.board.reminded[channel] = marker
        # the turn clock never waits for a delivery: the stand-in comes when the board's
        # countdown says, however long Discord takes with the reminder
        reminder = self.board.with_board(channel, self.router.render_notes(table, notes, None))
        await self.delivery.emit(reminder, wait=0)
        await asyncio.sleep(max(0.0, start + 2 * delay - time.time()))
        if not table.options.standin:
            return
        async with self.locks.channel(channel):
            if self.router.tables.get(channel) is not table or not _still(table, marker):
                return
            notes = [table.mark_away(seat)]
            events = self.board.with_board(channel, self.router.render_notes(table, notes, None))
            links = await self.residency.commit(channel)
            if isinstance(links, str):
                return
            events += links
        await self.delivery.emit(events, wait=0)
        self.after_change(channel)

    def prompt_sent(self, channel: str, user: str) -> None:
        """An adapter reports that the prompt for ``user`` at ``channel`` really left now
        (it may have waited in a send queue), or that it cannot be delivered (the player is
        away): on a paced channel the turn timer starts from here; elsewhere it runs from the
        turn's start, as the board's countdown says (it never waits for a delivery)."""
        table = self.router.tables.get(channel)
        if self.closed or table is None or table.game is None or not table.running:
            return
        if not self._paced(channel):
            return
        seat = table.seat_of(user)
        if seat is None or table.game.turn != seat or table.bot_to_move() is not None:
            return
        marker = (table.game_number, len(table.game.log))
        if self.board.reminded.get(channel) == marker:
            return  # reminded already: the stand-in comes on time, whatever is delivered
        paced = any(channel.startswith(prefix) for prefix in self.paced)
        if not paced and self._restarted.get(channel) == marker:
            return  # the clock ran from the move; the first delivery restarted it, no other
        self._restarted[channel] = marker
        self._arm_timer(channel, table, sent=True)

    async def idle(self) -> None:
        """Wait until no computer player is thinking."""
        while True:
            tasks = [t for t in self._bot_tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)


def _still(table: Table, marker: tuple[int, int]) -> bool:
    game = table.game
    return game is not None and table.running and (table.game_number, len(game.log)) == marker
