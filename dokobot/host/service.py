"""The async face of the host, shared by every adapter.

:meth:`Service.handle` answers one input. Inputs of one channel are handled one at a
time; channels do not wait for each other. An action counts only once it is stored: it is
applied to the live table, and if the store write fails the table is rebuilt from the store
(as a restart would) and the sender is told that nothing was changed. Every append names
the position it writes at (its idempotency key with the table): when the store lost the
answer of a commit it reads that position back, so the sender hears the truth (counted, not
counted, or not known yet while the store cannot be read; the table then waits for the
store). Computer players and turn timeouts act in background tasks; a computer player whose
move could not be stored tries again by itself until the store is back;
what they say reaches the adapter through :attr:`Service.listener`. Slow work (computer
players' search, store writes) runs in worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from ..stats import Stats
from ..stats.record import FinishedGame
from ..store import Checkpoint, MemoryStore, Store, StoreError, StoreUnknown
from . import archive, checkpoint, fold
from . import reviews as review_texts
from .board import board_view, decision_marker, lobby_view
from .commands import aliases, slow_commands
from .contract import Host, Listener
from .events import (
    Board,
    Event,
    Input,
    Lobby,
    Private,
    Public,
    draw_pictures,
    has_pictures_to_draw,
)
from .groupcommit import GroupCommit
from .i18n import render
from .journal import Record
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .replay import RestoreError, restore
from .reviewqueue import ReviewQueue
from .reviews import GameReview, job_of, own_answer
from .router import Router, clean_name
from .series import GameRecord
from .slowlane import SLOW_THREAD, SLOW_WORKERS, SlowLane
from .stakes import ZERO, Ledger, LedgerEntry
from .table import BotFactory, Table
from .userlangs import StoredLanguages

log = logging.getLogger(__name__)

EMIT_WAIT_S: Final = 5.0
"""Seconds a table's background work (its computer players) waits for the adapters to
deliver what it said; the delivery goes on after that without holding the table up."""
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


def default_bot_factory(budget_s: float | None = None, *, fixed: bool = False) -> BotFactory | None:
    """Computer players from :mod:`dokobot.ai` (``budget_s``: search time per decision).

    ``fixed``: the strong level does a fixed amount of work instead of thinking for its time
    budget, so the same seed gives the same decisions on every machine (replay files whose
    computer players decide for themselves, ``dokobot feed``).
    """
    try:
        from ..ai import Restrictions, make_player
    except ImportError:  # pragma: no cover
        return None

    def factory(level: str, seed: int, duel: bool) -> Any:
        restrictions = Restrictions(no_calls=True, no_solo=True) if duel else None
        return make_player(
            level, seed=seed, restrictions=restrictions, budget_s=budget_s, fixed=fixed
        )

    return factory


class Service(Host):
    """Router + store + computer players + timeouts, for asyncio adapters: the
    :class:`~dokobot.host.contract.Host` every adapter talks to."""

    def __init__(
        self,
        router: Router,
        store: Store | None = None,
        *,
        bot_delay: float = 0.0,
        idle_s: float = 900.0,
        reviews: ReviewQueue | None = None,
    ) -> None:
        self.router = router
        self.store: Store = store if store is not None else MemoryStore()
        self.listener: Listener | None = None
        self.bot_delay = bot_delay
        self._locks: dict[str, asyncio.Lock] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._turns: dict[str, tuple[tuple[int, int], float]] = {}
        """Per channel: the turn (game number, moves) waiting for a person and when it began
        (wall clock), for the deadline a board shows."""
        self._reminded: dict[str, tuple[int, int]] = {}
        """Per channel: the turn whose person was reminded (a board offers a stand-in)."""
        self._timed: dict[str, tuple[int, int, int] | None] = {}
        """Per channel: the turn (seat, game number, moves) its running turn clock times."""
        self._restarted: dict[str, tuple[int, int]] = {}
        """Per channel: the turn whose clock a delivery report restarted (:meth:`prompt_sent`:
        once per turn; every board edit that names the player reports one)."""
        self.paced: set[str] = set()
        """Channel id prefixes whose turn timer waits for the prompt to be sent (:meth:`pace`)."""
        self._closed = False
        self._warming: asyncio.Task[None] | None = None
        """Reading the stored games into the statistics after a start."""
        self._held: set[str] = set()
        """Channels whose table could not be rebuilt from the store after a failed write;
        every input there is refused until a rebuild succeeds."""
        self.damaged: dict[str, str] = {}
        """Channels whose journal holds a record that cannot be applied, with the reason:
        the table is on hold (every input refused, nothing written) until an operator
        repairs the store; nothing of the journal is dropped."""
        self.idle_s = idle_s
        """A table without a running game that nobody used for this long leaves memory; it
        is loaded again (from its checkpoint) when somebody uses it."""
        self._known: set[str] = set()
        """Channels whose table has a journal in the store."""
        self._lazy: set[str] = set()
        """Known channels whose table is not in memory (idle)."""
        self._used: dict[str, float] = {}
        self._lock_users: dict[str, int] = {}
        self._last_sweep = 0.0
        self._checkpointed: dict[str, int] = {}
        """Per table: the number of the last finished game in its latest checkpoint (one
        per game end)."""
        self._between: dict[str, tuple[int, int]] = {}
        """Per table: (first, count) of the between-games records that end its stored
        journal, folded into one when there are more than :data:`fold.FOLD_AFTER`."""
        self._saving: dict[str, asyncio.Task[None]] = {}
        """Checkpoints being written (in the background), per table."""
        self.boards = False
        """Add a :class:`~dokobot.host.events.Board` after every batch of a table with a
        game (set by adapters that show a live board)."""
        router.history = self._history
        router.archive = self._archived
        # users' languages: the store has them all, memory the most recently used
        router.langs = StoredLanguages(self.store)
        if router.stats is None:
            router.stats = Stats(self.store)
        self._results_done: dict[str, int] = {}
        """Per channel: the number of the table's last finished game that is in the store."""
        self._appends = GroupCommit(self.store)
        self._lanes: dict[str, SlowLane] = {}
        """Per table: its slow commands (bounded, one at a time)."""
        self._stored: dict[str, int] = {}
        """Per table in memory: how many records its stored journal holds (what a reader's
        snapshot reads of it)."""
        self._reading: dict[str, int] = {}
        """Per table: slow commands reading a snapshot now (its journal is not folded
        meanwhile, so the stored records they read stay as they were)."""
        self._bounds: dict[int, int] = {}
        """Per snapshot (by id): the stored records it stands on."""
        self._recovering: dict[str, asyncio.Task[None]] = {}
        """Per table: the task that waits for the store after a refused write."""
        self._retry_wait: dict[str, float] = {}
        """Per table whose writes are refused: how long its next recovery waits."""
        self._unknown: set[str] = set()
        """Held tables whose last write's outcome is not known yet: when the store is back,
        their rebuild tells the channel where the game stands."""
        self._slow_pool = ThreadPoolExecutor(SLOW_WORKERS, thread_name_prefix=SLOW_THREAD)
        """The worker threads of the slow commands, apart from those that store moves: a
        flood of exports at many tables never keeps a write of another table waiting."""
        self.reviews = reviews
        """Reviews every game played to its end with people once, in the background, and
        stores the review (None: ``/review`` reviews the last game on request)."""
        router.reviews = reviews
        if reviews is not None:
            reviews.on_ready = self._review_ready
        self._submitting: set[asyncio.Task[int | None]] = set()
        self._holders: dict[str, tuple[float, asyncio.Task[Any]]] = {}
        """Per table whose lock is held: since when (loop time) and by which task."""
        self._freed: set[asyncio.Task[Any]] = set()
        """Tasks the watchdog cancelled because they held a table's lock too long."""
        self._watchdog: asyncio.Task[None] | None = None
        self._delivering: set[asyncio.Task[None]] = set()
        """Deliveries of events to the listener still under way."""

    @classmethod
    def in_memory(
        cls,
        seed: int | None = 0,
        *,
        bots: bool = True,
        bot_delay: float = 0.0,
        language: str = "en",
        options: TableOptions | None = None,
    ) -> Service:
        """A service with a fresh in-memory store (tests, the console); ``options``: the
        options new tables start with."""
        factory = default_bot_factory() if bots else None
        router = Router(
            seed=seed, bot_factory=factory, default_language=language, default_options=options
        )
        return cls(router, bot_delay=bot_delay)

    def _with_board(self, channel: str, events: list[Event]) -> list[Event]:
        """``events`` and, if boards are wanted, the table's board and lobby after them."""
        table = self.router.tables.get(channel)
        if not self.boards or table is None or not events:
            return events
        view = board_view(table)
        if view is not None:
            deadline, idle = self._clock(channel, table)
            view = dataclasses.replace(view, deadline=deadline, idle=idle)
        board = [] if view is None else [Board(channel, view)]
        return [*events, *board, Lobby(channel, lobby_view(table))]

    def _clock(self, channel: str, table: Table) -> tuple[int | None, bool]:
        """(When a computer player stands in for the person whose turn it is, as Unix
        seconds, or None; whether that person was reminded already) with ``turn_timeout``
        on: the turn's reminder comes after the timeout, the stand-in after twice it."""
        game = table.game
        timeout = table.options.turn_timeout
        if not timeout or game is None or not table.running or table.bot_to_move() is not None:
            return None, False
        marker = (table.game_number, len(game.log))
        start = self._turn_start(channel, marker)
        deadline = int(start + 2 * timeout) if table.options.standin else None
        return deadline, self._reminded.get(channel) == marker

    def _turn_start(self, channel: str, marker: tuple[int, int], *, restart: bool = False) -> float:
        """When the turn ``marker`` at ``channel`` began (Unix seconds): the board's
        countdown and the turn timer both count from it (``restart``: from now)."""
        turn = self._turns.get(channel)
        if restart or turn is None or turn[0] != marker:
            turn = self._turns[channel] = (marker, time.time())
        return turn[1]

    def _history(self, table: Table) -> list[Record]:
        lines = self.store.load_journal(table.channel)
        bound = self._bounds.get(id(table))
        if bound is not None:  # a snapshot: the records stored when it was taken
            lines = lines[:bound]
        return [Record.decode(x) for x in lines] + table.journal

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> list[Event]:
        """Rebuild the tables from the store; events saying the games continue.

        A table whose journal ends with its checkpoint (nothing happened since its last game
        ended) stays in the store until somebody uses it; its chips are booked on the
        ledger now. Every other table is loaded: its checkpoint, then the records after it.
        """
        events: list[Event] = []
        current = checkpoint.version()
        self.store.watch_loop(asyncio.get_running_loop())
        for summary in await asyncio.to_thread(self.store.summaries):
            channel, cp = summary.channel, summary.checkpoint
            self._known.add(channel)
            if cp is not None and cp.version == current and cp.upto == summary.length:
                try:
                    server, entries = checkpoint.settlements(cp.settlements)
                except Exception:
                    log.warning("checkpoint of %s unreadable; replaying its journal", channel)
                else:
                    ledger = self.router.ledgers.setdefault(server, Ledger(server=server))
                    for e in entries:
                        ledger.book(e.channel, e.accounts, e.names, e.settlement)
                    for user in cp.users:
                        self.router.user_table[user] = channel
                    self._lazy.add(channel)
                    continue
            events += self._with_board(channel, await self._load(channel, private_ledger=False))
            await asyncio.to_thread(self._recover_result, channel)
        if self.reviews is not None:
            await self._requeue_reviews()
        if self.router.stats is not None:
            # Reading every stored game takes a while on a big server: in the background, so
            # the adapters connect at once (a question meanwhile waits in its worker thread).
            self._warming = asyncio.get_running_loop().create_task(
                asyncio.to_thread(self.router.stats.warm)
            )
        for channel in list(self.router.tables):
            self._after_change(channel)
        return events

    async def load(self, channel: str) -> None:
        """Make sure the table of ``channel`` is in memory if the store has one (for code
        that uses the router directly)."""
        async with self._channel(channel):
            if channel in self._lazy:
                await self._load(channel, private_ledger=True)

    async def _load(self, channel: str, *, private_ledger: bool) -> list[Event]:
        """Put the table of ``channel`` in memory: its checkpoint, if one of this version
        exists, then the records after it. ``private_ledger``: its settlements are on the
        server's ledger already (a table that left memory)."""
        self._lazy.discard(channel)
        self._between.pop(channel, None)
        cp = await asyncio.to_thread(self.store.load_checkpoint, channel)
        base: Table | None = None
        if cp is not None and cp.version == checkpoint.version():
            try:
                base = checkpoint.load(cp.state)
            except Exception:
                log.warning("checkpoint of %s unreadable; replaying its journal", channel)
        start = cp.upto if base is not None and cp is not None else 0
        journal = await asyncio.to_thread(self.store.load_journal, channel, start)
        self._stored[channel] = start + len(journal)
        ledgers = self.router.ledgers
        if private_ledger:
            self.router.ledgers = {}
        try:
            if base is not None:
                base.bot_factory = self.router.bot_factory
                server = base.ledger.server
                base.ledger = self.router.ledgers.setdefault(server, Ledger(server=server))
                for e in base.settlements:
                    base.ledger.book(e.channel, e.accounts, e.names, e.settlement)
                self.router.tables[channel] = base
            return self._restore(channel, journal)
        finally:
            if private_ledger:
                self.router.ledgers = ledgers
                table = self.router.tables.get(channel)
                if table is not None:
                    server = table.ledger.server
                    table.ledger = ledgers.setdefault(server, Ledger(server=server))

    def _restore(self, channel: str, journal: list[str]) -> list[Event]:
        if not journal and channel not in self.router.tables:
            return []
        table = self.router.table(channel)
        table.journal.clear()
        table.scripted_bots = True
        try:
            restore(self.router, channel, [Record.decode(x) for x in journal])
        except (RestoreError, ValueError) as exc:
            self.damaged[channel] = str(exc)
            log.error("table %s is on hold: its journal cannot be restored: %s", channel, exc)
        finally:
            table.scripted_bots = False
        for seat in table.seats:
            if not seat.is_bot:
                self.router.user_table[seat.user] = channel
        table.journal.clear()  # the store has it
        table.archive = self._archived
        self._used[channel] = time.monotonic()
        self._checkpointed[channel] = _last_game(table)
        self._results_done[channel] = _last_game(table)
        _keep_latest(table)
        if channel in self.damaged:
            text = render(table.options.language, "table_damaged")
            return [Public(channel, text, lang=table.options.language)]
        if not table.running:
            return []
        notes = [Note(ALL, "restored"), *table.prompt()]
        return self.router.render_notes(table, notes, None)

    def _recover_result(self, channel: str) -> None:
        """Store the result of a table's last game if a stop came between its journal
        lines and its result (a stored result is kept as it is). A table on hold writes
        nothing: what it restored is not all of its journal."""
        table = self.router.tables.get(channel)
        if table is None or not table.finished or table.running or table.game is None:
            return
        if channel in self.damaged:
            return
        if table.finished[-1].number == table.game_number:
            self.store.add_result(_result(table, table.finished[-1]))

    async def close(self) -> None:
        self._closed = True
        self._slow_pool.shutdown(wait=False)
        if self.reviews is not None:
            await asyncio.gather(*self._submitting, return_exceptions=True)
            await self.reviews.close()
        tasks = [*self._bot_tasks.values(), *self._timers.values(), *self._recovering.values()]
        if self._watchdog is not None:
            tasks.append(self._watchdog)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._warming is not None:  # a worker thread cannot be stopped: let it finish
            with contextlib.suppress(Exception):
                await self._warming
        await self._appends.drain()
        while self._saving:  # the checkpoints under way
            await asyncio.gather(*self._saving.values(), return_exceptions=True)
        await asyncio.to_thread(self.store.close)

    # ---------------------------------------------------------------- input
    def _lock(self, channel: str) -> asyncio.Lock:
        lock = self._locks.get(channel)
        if lock is None:
            lock = self._locks[channel] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def _channel(self, channel: str) -> AsyncIterator[None]:
        """Hold the lock of ``channel``; the lock is forgotten when nobody needs it and the
        channel has no table in memory. A holder the watchdog frees (:meth:`_watch`) gets
        :class:`Freed`, and the table waits for the store."""
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
                    self._hold(channel)
                    self._unknown.add(channel)
                    self._recover_soon(channel)
                    raise Freed(channel) from None
                finally:
                    self._holders.pop(channel, None)
        finally:
            self._lock_users[channel] -= 1
            if not self._lock_users[channel]:
                del self._lock_users[channel]
                if channel not in self.router.tables:
                    self._locks.pop(channel, None)
                    self._used.pop(channel, None)

    def _drop_if_empty(self, channel: str) -> bool:
        """Forget a table that was made by a command in a channel nobody has joined."""
        table = self.router.tables.get(channel)
        if table is None or channel in self._known:
            return False
        if table.seats or table.waiting or table.finished:
            return False
        del self.router.tables[channel]
        return True

    def _sweep(self) -> None:
        """Tables without a running game that nobody used for :attr:`idle_s` leave memory."""
        now = time.monotonic()
        if now - self._last_sweep < min(60.0, self.idle_s):
            return
        self._last_sweep = now
        for channel, table in list(self.router.tables.items()):
            used = self._used.get(channel, now)
            if (
                now - used < self.idle_s
                or table.running
                or table.journal
                or channel not in self._known
                or channel in self.damaged
                or channel in self._held
                or self._lock_users.get(channel)
                or channel in self._saving
            ):
                continue
            task = self._bot_tasks.pop(channel, None)
            timer = self._timers.pop(channel, None)
            for t in (task, timer):
                if t is not None:
                    t.cancel()
            del self.router.tables[channel]
            self._locks.pop(channel, None)
            self._used.pop(channel, None)
            self._checkpointed.pop(channel, None)
            self._between.pop(channel, None)
            self._stored.pop(channel, None)
            self._lazy.add(channel)

    def _channel_of(self, inp: Input) -> str:
        if inp.channel and not inp.dm:
            return inp.channel
        return self.router.user_table.get(inp.user, "")

    async def handle(self, inp: Input) -> list[Event]:
        """Answer one input (never raises)."""
        try:
            if _is_slow(inp.text):
                return await self._handle_slow(inp)
            return await self._handle(inp)
        except Freed:
            return [self._refusal(inp, "store_unknown")]
        except Exception:
            log.exception("service failed on input")
            return [self._refusal(inp, "internal_error")]

    async def _handle_slow(self, inp: Input) -> list[Event]:
        """A slow command: a place in the table's :class:`SlowLane` (else "busy"), then,
        in turn, a snapshot of the table taken under its lock and read in a worker thread
        without the lock, so that the table plays on meanwhile."""
        channel = self._channel_of(inp)
        lane = self._lanes.get(channel)
        if lane is None:
            lane = self._lanes[channel] = SlowLane()
        if not lane.admit(inp.user):
            return [self._refusal(inp, "slow_busy")]
        try:
            async with lane.turn:
                return await self._read_snapshot(inp, channel)
        finally:
            lane.release(inp.user)
            if lane.idle and self._lanes.get(channel) is lane:
                del self._lanes[channel]

    async def _read_snapshot(self, inp: Input, channel: str) -> list[Event]:
        async with self._channel(channel):
            if channel in self._lazy:
                await self._load(channel, private_ledger=True)
            table = self.router.tables.get(channel)
            bound = self._stored.get(channel)
            plain = channel in self.damaged or channel in self._held or inp.marker is not None
            if table is None or bound is None or plain:
                snapshot = None  # answered the ordinary way below
            else:
                snapshot = table.snapshot()
                self._bounds[id(snapshot)] = bound
                self._reading[channel] = self._reading.get(channel, 0) + 1
                self._used[channel] = time.monotonic()
        if snapshot is None:
            return await self._handle(inp)
        try:
            loop = asyncio.get_running_loop()
            events = await loop.run_in_executor(
                self._slow_pool, functools.partial(self.router.handle, inp, snapshot)
            )
        finally:
            del self._bounds[id(snapshot)]
            self._reading[channel] -= 1
            if not self._reading[channel]:
                del self._reading[channel]
        if has_pictures_to_draw(events):
            events = await asyncio.to_thread(draw_pictures, events)
        return events

    async def _handle(self, inp: Input) -> list[Event]:
        """Answer one input under its table's lock."""
        channel = self._channel_of(inp)
        async with self._channel(channel):
            if channel in self.damaged:
                return [self._refusal(inp, "table_damaged")]
            rebuilt: list[Event] = []
            if channel in self._held:
                again = await self._rebuild(channel)
                if again is None:
                    return [self._refusal(inp, "store_failed")]
                rebuilt = again
            if channel in self._lazy:
                await self._load(channel, private_ledger=True)
            before = self.router.langs.get(inp.user)
            if _is_slow(inp.text):  # may read a long history: off the event loop
                events = await asyncio.to_thread(self.router.handle, inp)
            else:
                events = self.router.handle(inp)
            events = rebuilt + self._with_board(channel, events)
            self._used[channel] = time.monotonic()
            if self._drop_if_empty(channel):
                pass  # nothing durable, nothing kept: a table exists once someone joins
            else:
                links = await self._commit(channel)
                if isinstance(links, str):
                    return [self._refusal(inp, links)]
                events += links
            after = self.router.langs.get(inp.user)
            if after is not None and after != before:
                try:
                    await asyncio.to_thread(self.store.set_language, inp.user, after)
                except Exception:
                    log.exception("store: language of a user not saved; change undone")
                    self.router.langs.pop(inp.user, None)
                    if before is not None:
                        self.router.langs[inp.user] = before
                    return [self._refusal(inp, "store_failed")]
        self._after_change(channel)
        self._sweep()
        if has_pictures_to_draw(events):
            events = await asyncio.to_thread(draw_pictures, events)
        return events

    def _refusal(self, inp: Input, key: str) -> Private:
        table = self.router.tables.get(self._channel_of(inp))
        lang = self.router.lang_of(inp.user, table)
        return Private(
            inp.channel, inp.user, render(lang, key), reply=True, kind="error", lang=lang
        )

    async def persist(self, channel: str) -> bool:
        """Write the channel's new journal lines to the store; False (and the table rebuilt
        from the store) if that failed."""
        return not isinstance(await self._commit(channel), str)

    async def _commit(self, channel: str) -> list[Event] | str:
        """Store what changed in ``channel``: the events that follow from it (links to
        finished games' pages), or, if the write failed and the change was undone, the
        refusal to tell its sender (``store_unknown`` when the store cannot say whether it
        was stored: the table is rebuilt from the store once it answers)."""
        try:
            links = await self._persist(channel)
        except StoreUnknown:
            log.exception("store write in %s: not known whether it was stored; the table "
                          "waits for the store", channel)  # fmt: skip
            self._hold(channel)
            self._unknown.add(channel)
            self._recover_soon(channel)
            return "store_unknown"
        except StoreError as exc:  # the store's own refusal (fenced, locked): one line
            log.warning("store write failed in %s; the change is undone: %s", channel, exc)
            await self._rebuild(channel)
            self._recover_soon(channel)
            return "store_failed"
        except Exception:
            log.exception("store write failed in %s; the change is undone", channel)
            await self._rebuild(channel)
            self._recover_soon(channel)
            return "store_failed"
        self._retry_wait.pop(channel, None)
        return links

    def _hold(self, channel: str) -> None:
        """Take the table of ``channel`` out of memory until it is rebuilt from the store;
        every input there is refused until then."""
        old = self.router.tables.pop(channel, None)
        if old is not None:
            _forget_settlements(old)
        for user in [u for u, ch in self.router.user_table.items() if ch == channel]:
            del self.router.user_table[user]
        self._held.add(channel)

    def _recover_soon(self, channel: str) -> None:
        """After a refused write: rebuild the table (if it is held) once the store answers,
        then let its computer players move again, without waiting for anybody to type."""
        task = self._recovering.get(channel)
        if self._closed or (task is not None and not task.done()):
            return
        self._recovering[channel] = asyncio.get_running_loop().create_task(self._recover(channel))

    async def _recover(self, channel: str) -> None:
        while not self._closed:
            wait = self._retry_wait.get(channel, RETRY_FIRST_S)
            self._retry_wait[channel] = min(2 * wait, RETRY_MAX_S)
            await asyncio.sleep(wait)
            events: list[Event] = []
            async with self._channel(channel):
                if channel in self._held:
                    rebuilt = await self._rebuild(channel)
                    if rebuilt is None:
                        continue  # the store is still down
                    events = rebuilt
            await self._emit(events)
            self._after_change(channel)
            return

    async def _rebuild(self, channel: str) -> list[Event] | None:
        """Replace the table of ``channel`` by what the store holds: the events that say
        where its game stands if its last write's outcome was not known (None: the store
        could not be read, or a write of the table may still commit; the channel stays on
        hold). A write whose caller stopped waiting (the watchdog freed it) is still under
        way: the table is read back only once it is over, so that no record lands behind
        the rebuilt table's back (the store itself holds back a table whose lost write's
        session may still commit)."""
        self._hold(channel)
        if self._appends.writing(channel):
            log.warning("table %s waits for its write under way before it is rebuilt", channel)
            return None
        try:
            events = await self._load(channel, private_ledger=False)
        except Exception:
            log.exception("store cannot be read; table %s is on hold", channel)
            self.router.tables.pop(channel, None)
            return None
        self._held.discard(channel)
        if channel in self._unknown:  # what the store holds is the truth: say it
            self._unknown.discard(channel)
            return self._with_board(channel, events)
        return []

    async def _persist(self, channel: str) -> list[Event]:
        """Store the new journal lines, then the games finished by them; the links to
        those games' web pages, if any, as channel messages."""
        table = self.router.tables.get(channel)
        if table is None:
            return []
        new = table.journal[:]
        if new:
            at = self._stored.get(channel, 0)
            length = await self._appends.append(channel, [r.encode() for r in new], at)
            self._stored[channel] = length
            self._known.add(channel)
            # The store holds them now; keeping them in memory too would grow every table
            # by ~100 KB over a long series.
            del table.journal[: len(new)]
            length = self._stored[channel] = await self._fold(channel, table, new, length)
            # The results of finished games first, the checkpoint after them: a table that
            # rests at a checkpoint has every result stored.
            links = await self._store_results(channel, table)
            if links is None:
                return []  # no checkpoint either: the next start stores the results
            ended = _last_game(table)
            if not table.running and ended and ended != self._checkpointed.get(channel):
                self._checkpoint(channel, table, length)
            return links
        return await self._store_results(channel, table) or []

    async def _fold(self, channel: str, table: Table, new: list[Record], length: int) -> int:
        """Note the records ``new`` (stored; the journal has ``length`` now); fold the
        between-games records at the journal's end into one ``state`` record and a
        checkpoint after it when there are too many. The journal's length after that."""
        if not fold.foldable(new, table):
            self._between.pop(channel, None)
            return length
        first, count = self._between.get(channel, (length - len(new), 0))
        count += len(new)
        self._between[channel] = (first, count)
        if count <= fold.FOLD_AFTER or self._reading.get(channel):
            return length  # (a reader's snapshot stands on these records: folded later)
        self._stored.pop(channel, None)  # no snapshot while the journal is rewritten
        try:
            record = fold.state_record(table)
            state, settlements, users = checkpoint.dump(table)
            cp = Checkpoint(first + 1, checkpoint.version(), state, settlements, tuple(users))
            length = await asyncio.to_thread(self.store.fold, channel, first, record.encode(), cp)
        except Exception:
            # Nothing lost: the records stay as they are (folded at the next try); the
            # journal's length is known again after the next append.
            log.warning("between-games records of %s not folded", channel, exc_info=True)
            return length
        self._stored[channel] = length
        self._between[channel] = (first, 1)
        return length

    async def _store_results(self, channel: str, table: Table) -> list[Event] | None:
        """Store the games ``table`` finished since the last call (for the statistics);
        the links to their web pages as channel messages. A failure (None) loses nothing:
        the journal has the games, and a start stores a missing result again."""
        done = self._results_done.get(channel, 0)
        if _last_game(table) <= done:
            return []
        games = [_result(table, rec) for rec in table.finished if rec.number > done]
        try:
            stored = [await asyncio.to_thread(self.store.add_result, g) for g in games]
        except Exception:
            log.warning("results of %s not stored (recovered at the next start)", channel,
                        exc_info=True)  # fmt: skip
            return None
        self._results_done[channel] = _last_game(table)
        _keep_latest(table, carry=True)  # the store has the older ones
        self._submit_review(channel, table, done)
        return self.router.game_links(table, stored)

    # ---------------------------------------------------------------- reviews
    def _submit_review(self, channel: str, table: Table, done: int) -> None:
        """Queue the review of the table's last game played to its end, if it finished
        after game ``done`` with a person in it (in the background: the answer to the
        move that ended the game does not wait for it)."""
        last = table.reviewable
        if self.reviews is None or last is None or last.number <= done:
            return
        if all(user is None for user in last.users):
            return
        job = job_of(last.number, last.game, last.users, table.player_names())
        self.reviews.attach(asyncio.get_running_loop())  # (a service used without start())
        task = asyncio.get_running_loop().create_task(
            asyncio.to_thread(self.reviews.submit, (channel, last.number), job)
        )
        self._submitting.add(task)
        task.add_done_callback(self._submitted)

    def _submitted(self, task: asyncio.Task[int | None]) -> None:
        self._submitting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a game's review was not queued: %s", task.exception())

    async def _requeue_reviews(self) -> None:
        """Queue again the stored reviews not done yet of the tables this process holds."""
        assert self.reviews is not None
        self.reviews.attach(asyncio.get_running_loop())
        try:
            queued = await asyncio.to_thread(self.store.queued_reviews)
        except Exception:
            log.warning("the queued reviews could not be read", exc_info=True)
            return
        for channel, number, job in queued:
            if self.holds(channel):
                self.reviews.requeue((channel, number), job)

    async def _review_ready(
        self, key: tuple[str, int], record: str | None, waiting: dict[str, str]
    ) -> None:
        """A review is done (``record``; None: it failed): each person who asked for it
        gets his own, the channel the short summary with the link to the web page."""
        channel, number = key
        found = None if record is None else GameReview.from_json(record)
        events: list[Event] = []
        for user, lang in waiting.items():
            text = None if found is None else own_answer(lang, found, user)
            if text is None:
                text = render(lang, "review.failed", {"game": number})
            events.append(Private(channel, user, text, kind="info", lang=lang))
        if found is not None and found.decisions:
            table = self.router.tables.get(channel)
            lang = table.options.language if table is not None else self.router.default_language
            url = await asyncio.to_thread(self._review_url, channel, number)
            events.append(Public(channel, review_texts.summary(lang, found, url), lang=lang))
        await self._emit(events)

    def _review_url(self, channel: str, number: int) -> str | None:
        """The web page of the review of game ``number`` of ``channel`` (None: no pages)."""
        stats = self.router.stats
        if stats is None or stats.web_url is None:
            return None
        try:
            game = next(g for g in self.store.table_results(channel) if g.game == number)
            url = stats.game_url(game)
        except Exception:  # no record (yet), or the store cannot say: no link
            return None
        return None if url is None else f"{url}/review"

    def _archived(self, channel: str) -> tuple[list[GameRecord], list[LedgerEntry]]:
        """The stored finished games of ``channel`` and their settlements (a table's
        :attr:`Table.archive`)."""
        return archive.history(self.store.table_results(channel))

    def _checkpoint(self, channel: str, table: Table, length: int) -> None:
        """Keep the state of ``table`` after its journal's first ``length`` records (between
        games); a failure costs only restart time. The state is taken now; it is written in
        the background, so the action that ended the game is answered without waiting for
        it (the checkpoint only spares a restart work)."""
        try:
            state, settlements, users = checkpoint.dump(table)
        except Exception:
            log.warning("checkpoint of %s not saved", channel, exc_info=True)
            return
        cp = Checkpoint(length, checkpoint.version(), state, settlements, tuple(users))
        ended = self._checkpointed[channel] = _last_game(table)
        before = self._saving.get(channel)
        task = asyncio.get_running_loop().create_task(
            self._save_checkpoint(channel, cp, ended, before)
        )
        self._saving[channel] = task
        task.add_done_callback(
            lambda t: self._saving.pop(channel) if self._saving.get(channel) is t else None
        )

    async def _save_checkpoint(
        self, channel: str, cp: Checkpoint, ended: int, before: asyncio.Task[None] | None
    ) -> None:
        if before is not None:  # the table's checkpoints are written in order
            await asyncio.gather(before, return_exceptions=True)
        try:
            await asyncio.to_thread(self.store.save_checkpoint, channel, cp)
        except Exception:
            log.warning("checkpoint of %s not saved", channel, exc_info=True)
            if self._checkpointed.get(channel) == ended:  # the next write tries again
                del self._checkpointed[channel]

    async def _emit(self, events: list[Event], wait: float | None = None) -> None:
        """Hand ``events`` to the listener; wait for their delivery at most ``wait``
        seconds (default :data:`EMIT_WAIT_S`; the delivery goes on after that, and the
        caller with it). Deliveries start in the order of the calls."""
        if not events or self.listener is None:
            return
        wait = EMIT_WAIT_S if wait is None else wait
        task = asyncio.get_running_loop().create_task(self._deliver(self.listener, events))
        self._delivering.add(task)
        task.add_done_callback(self._delivering.discard)
        if wait > 0:
            await asyncio.wait({task}, timeout=wait)

    @staticmethod
    async def _deliver(listener: Listener, events: list[Event]) -> None:
        try:
            await listener(events)
        except Exception:
            log.exception("listener failed")

    # ---------------------------------------------------------------- the watchdog
    def _start_watchdog(self) -> None:
        if self._closed or (self._watchdog is not None and not self._watchdog.done()):
            return
        self._watchdog = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        """Every :data:`WATCH_EVERY_S` seconds: :meth:`free_overdue_locks`."""
        loop = asyncio.get_running_loop()
        while not self._closed:
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

    # ---------------------------------------------------------------- background work
    def _after_change(self, channel: str) -> None:
        if self._closed or channel not in self.router.tables or channel in self.damaged:
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
        store refused was undone: :meth:`_recover` starts them again once the store is back
        (nobody has to type)."""
        while not self._closed:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with self._channel(channel):
                if channel not in self.router.tables:
                    return
                decision = await asyncio.to_thread(self.router.bot_decide, channel)
                if decision is None:
                    return
                events = self._with_board(channel, self.router.bot_apply(channel, *decision))
                links = await self._commit(channel)
                if isinstance(links, str):
                    return
                events += links
            await self._emit(events)
            table = self.router.tables[channel]
            self._arm_timer(channel, table)

    def _arm_timer(self, channel: str, table: Table, *, sent: bool = False) -> None:
        """Start the turn timer of ``channel`` (and stop the one before). On a paced channel
        (see :meth:`pace`) it starts only when the adapter reports the prompt ``sent``."""
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
        start = self._turn_start(channel, marker, restart=sent and paced)
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
        if table is None or not self._still(table, marker):
            return
        notes = [Note(seat, "timeout_reminder", {"seconds": int(delay)}, kind="reminder")]
        self._reminded[channel] = marker
        # the turn clock never waits for a delivery: the stand-in comes when the board's
        # countdown says, however long Discord takes with the reminder
        reminder = self._with_board(channel, self.router.render_notes(table, notes, None))
        await self._emit(reminder, wait=0)
        await asyncio.sleep(max(0.0, start + 2 * delay - time.time()))
        if not table.options.standin:
            return
        async with self._channel(channel):
            if self.router.tables.get(channel) is not table or not self._still(table, marker):
                return
            notes = [table.mark_away(seat)]
            events = self._with_board(channel, self.router.render_notes(table, notes, None))
            links = await self._commit(channel)
            if isinstance(links, str):
                return
            events += links
        await self._emit(events, wait=0)
        self._after_change(channel)

    # ---------------------------------------------------------------- adapter hooks
    def holds(self, channel: str) -> bool:
        """Whether this process holds the table of ``channel`` (in memory or in its store,
        not yet loaded); with several processes, another one holds the others."""
        return channel in self.router.tables or channel in self._lazy

    def pace(self, prefix: str) -> None:
        """An adapter that sends through a queue (IRC) serves the channels whose ids start
        with ``prefix`` and reports every prompt it really sent (:meth:`prompt_sent`): on
        these channels the turn timer starts only then, never when a prompt is queued."""
        self.paced.add(prefix)

    def prompt_sent(self, channel: str, user: str) -> None:
        """An adapter reports that the prompt for ``user`` at ``channel`` really left now
        (it may have waited in a send queue), or that it cannot be delivered (the player is
        away): on a paced channel the turn timer starts from here; elsewhere it runs from the
        turn's start, as the board's countdown says (it never waits for a delivery)."""
        table = self.router.tables.get(channel)
        if self._closed or table is None or table.game is None or not table.running:
            return
        if not self._paced(channel):
            return
        seat = table.seat_of(user)
        if seat is None or table.game.turn != seat or table.bot_to_move() is not None:
            return
        marker = (table.game_number, len(table.game.log))
        if self._reminded.get(channel) == marker:
            return  # reminded already: the stand-in comes on time, whatever is delivered
        paced = any(channel.startswith(prefix) for prefix in self.paced)
        if not paced and self._restarted.get(channel) == marker:
            return  # the clock ran from the move; the first delivery restarted it, no other
        self._restarted[channel] = marker
        self._arm_timer(channel, table, sent=True)

    def decision(self, channel: str) -> tuple[int, int] | None:
        """The decision marker of the game running at ``channel`` (None: no game runs), for
        adapters that drop what they could not deliver in time (see ``Private.marker``)."""
        table = self.router.tables.get(channel)
        if table is None or not table.running:
            return None
        return decision_marker(table)

    def on_turn(self, channel: str) -> tuple[str, str | None] | None:
        """Who is to act in the game running at ``channel``: (the seat's name, the person's
        user id, or None when a computer player acts for the seat); None: no game runs."""
        table = self.router.tables.get(channel)
        if table is None or table.game is None or not table.running:
            return None
        seat = table.game.turn
        info = table.seats[seat]
        return info.name, None if table.bot_to_move() is not None else info.user

    def pending_prompts(self, user: str) -> list[Event]:
        """The prompt waiting for ``user`` now (it is their turn at a running table), after
        their hand, for an adapter to send again when the player is back (reconnect,
        restart, new nick); empty when nothing waits for them."""
        channel = self.router.user_table.get(user)
        table = self.router.tables.get(channel) if channel else None
        if table is None or table.game is None or not table.running:
            return []
        seat = table.seat_of(user)
        if seat is None or table.game.turn != seat or table.bot_to_move() is not None:
            return []
        notes = [table.hand_note(seat), *(note for note in table.prompt() if note.to == seat)]
        return self.router.render_notes(table, notes, None)

    async def rename(self, user: str, name: str) -> None:
        """``user`` goes by ``name`` now (an IRC nick change): their seat takes the name, so
        the channel reads the current name. Journaled; a name another seat has is kept out."""
        channel = self.router.user_table.get(user)
        if not channel:
            return
        async with self._channel(channel):
            if channel in self._lazy:
                await self._load(channel, private_ledger=True)
            table = self.router.tables.get(channel)
            if table is None or channel in self.damaged:
                return
            seat = table.seat_of(user)
            if seat is None:
                return
            try:
                table.rename(seat, clean_name(name))
            except Refusal:
                return
            await self._commit(channel)

    def channel_language(self, channel: str) -> str:
        """The language of the table in ``channel`` (the default one where there is none):
        what an adapter writes its own words to that channel in."""
        table = self.router.tables.get(channel)
        return table.options.language if table is not None else self.router.default_language

    def language_of(self, user: str) -> str | None:
        """The language ``user`` chose with /lang (kept in the store), if any."""
        return self.router.langs.get(user)

    async def remember_preference(self, user: str, name: str, value: str) -> None:
        """Keep ``user``'s choice of an adapter's setting ``name`` in the store (in a worker
        thread); raises if the store cannot keep it."""
        await asyncio.to_thread(self.store.set_preference, user, name, value)

    def opens_thread(self, channel: str) -> bool:
        """Whether a ``/join`` in ``channel`` opens the table in a thread of its own: the
        ``thread`` option of the channel's table (or of a new table) is on and nobody sits
        at the channel's own table."""
        table = self.router.tables.get(channel)
        if table is None:
            return self.router.default_options.for_channel(channel).thread
        return table.options.thread and not table.seats

    def preference_of(self, user: str, name: str) -> str | None:
        """``user``'s choice of the setting ``name`` (kept in the store), if any."""
        return self.store.preference(user, name)

    def reader_language(self, user: str, channel: str) -> str:
        """The language ``user`` reads at ``channel``: their /lang, else the table's."""
        return self.router.lang_of(user, self.router.tables.get(channel))

    async def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        """The stored (user, nick) pairs under ``prefix`` (read in a worker thread)."""
        return await asyncio.to_thread(self.store.nick_history, prefix)

    async def remember_nick(self, user: str, nick: str) -> None:
        """Keep that ``user`` goes by ``nick`` (in a worker thread)."""
        await asyncio.to_thread(self.store.remember_nick, user, nick)

    @staticmethod
    def _still(table: Table, marker: tuple[int, int]) -> bool:
        game = table.game
        return game is not None and table.running and (table.game_number, len(game.log)) == marker

    async def reviews_idle(self) -> None:
        """Wait until every finished game handed to the review queue is in it and the queue
        is empty (tests: a game's job reaches the queue from a worker thread)."""
        while self._submitting:
            await asyncio.gather(*self._submitting, return_exceptions=True)
        if self.reviews is not None:
            await self.reviews.idle()

    async def idle(self) -> None:
        """Wait until no computer player is thinking (tests)."""
        while True:
            tasks = [t for t in self._bot_tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)


SLOW_COMMANDS: Final = slow_commands()
"""Commands that may read a long history (an export, the statistics, the score list as CSV
or chart): answered in a worker thread, so the event loop never waits for them."""


def _is_slow(text: str) -> bool:
    words = text.strip()[1:].split()
    return (
        text.strip()[:1] in ("/", "!")
        and bool(words)
        and (aliases().get(words[0].lower()) in SLOW_COMMANDS)
    )


RETRY_FIRST_S: Final = 0.5
"""A computer player whose move the store refused tries again after this long, then after
twice as long each time, up to :data:`RETRY_MAX_S`."""
RETRY_MAX_S: Final = 5.0

KEEP_GAMES: Final = 12
"""Finished games a table keeps in memory once they are stored (the score list shows as
many); /score N, /score csv, /score chart and /export read older ones from the store."""


def _last_game(table: Table) -> int:
    """The number of the table's last finished game (0: none)."""
    return table.finished[-1].number if table.finished else 0


def _keep_latest(table: Table, *, carry: bool = False) -> None:
    """Forget the table's older finished games; ``carry``: every game is stored, so its
    settlements become one carry entry."""
    if len(table.finished) > KEEP_GAMES:
        del table.finished[:-KEEP_GAMES]
    if carry and len(table.settlements) > 1:
        folded = archive.carry(table.settlements, table.channel)
        table.settlements[:] = [] if folded is None else [folded]
        # the server's ledger too: the same sums, one entry for this table
        ledger = table.ledger
        ledger.entries[:] = [e for e in ledger.entries if e.channel != table.channel]
        ledger.entries += table.settlements


def _result(table: Table, rec: GameRecord) -> FinishedGame:
    """The stored record of game ``rec``, with its score list line and its settlements."""
    game = archive.finished_game(table, rec)
    row = {
        **(game.row or {}),
        "chips": [archive.entry_json(e) for e in archive.chips_of(table, rec)],
    }
    return dataclasses.replace(game, row=row)


def _forget_settlements(table: Table) -> None:
    """Take ``table``'s settlements off its (shared) ledger before the table is rebuilt
    from its journal, which books them again: the ledger is recomputed from the others."""
    ledger = table.ledger
    keep = [e for e in ledger.entries if e.channel != table.channel]
    if len(keep) == len(ledger.entries):
        return
    ledger.entries.clear()
    ledger.balances.clear()
    ledger.names.clear()
    ledger.house = ZERO
    for entry in keep:
        ledger.book(entry.channel, entry.accounts, entry.names, entry.settlement)
