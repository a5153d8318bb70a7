"""The async face of the host, shared by every adapter: the parts it is made of, its life,
and the answers to the adapters' questions.

:meth:`Service.handle` answers one input. Inputs of one channel are handled one at a
time; channels do not wait for each other. An action counts only once it is stored: it is
applied to the live table, and if the store write fails the table is rebuilt from the store
(as a restart would) and the sender is told that nothing was changed. Every append names
the position it writes at (its idempotency key with the table): when the store lost the
answer of a commit it reads that position back, so the sender hears the truth (counted, not
counted, or not known yet while the store cannot be read; the table then waits for the
store). Computer players and turn timeouts act in background tasks; a computer player whose
move could not be stored tries again by itself until the store is back;
what they say reaches the adapter through :attr:`Service.listener`. Each job is an object
the service holds: :class:`~dokobot.host.dispatch.Dispatch` (the answer to an input),
:class:`~dokobot.host.residency.Residency` (the tables in memory, loaded, rebuilt and
swept), :class:`~dokobot.host.writes.Writes` (what is stored),
:class:`~dokobot.host.turns.Turns` (computer players and the turn clock),
:class:`~dokobot.host.locks.TableLocks` (the locks and their watchdog),
:class:`~dokobot.host.liveboard.LiveBoard`, :class:`~dokobot.host.delivery.Delivery` and
:class:`~dokobot.host.reviewlink.ReviewLink`. Slow work (computer
players' search, store writes) runs in worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from ..stats import Stats
from ..store import MemoryStore, Store, StoreUnavailable
from .board import decision_marker
from .contract import Host, Listener
from .delivery import Delivery
from .dispatch import Dispatch
from .events import Event, Input
from .liveboard import LiveBoard
from .locks import TableLocks
from .notes import Refusal
from .options import ChatDefaults, TableOptions
from .residency import Residency
from .reviewlink import ReviewLink
from .reviewqueue import ReviewQueue
from .router import Router, clean_name
from .table import BotFactory
from .turns import Turns
from .userlangs import LOOKUP_S, StoredLanguages
from .writes import Writes

log = logging.getLogger(__name__)


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
        self._warming: asyncio.Task[None] | None = None
        """Reading the stored games into the statistics after a start."""
        self.reviews = reviews
        """Reviews every game played to its end with people once, in the background, and
        stores the review (None: ``/review`` reviews the last game on request)."""
        self.delivery = Delivery()
        self.locks = TableLocks(on_freed=self._lock_freed, on_idle=self._lock_idle)
        self.board = LiveBoard(router)
        self.review_link = ReviewLink(router, self.store, reviews, self.delivery, self.holds)
        self.writes = Writes(router, self.store, self.review_link)
        # users' languages: the store has them all, memory the most recently used
        self.langs = StoredLanguages(self.store)
        router.langs = self.langs
        self.residency = Residency(
            router,
            self.store,
            self.locks,
            self.board,
            self.delivery,
            self.writes,
            after_change=self._after_change,
            unload=self._unload,
            langs=self.langs,
            idle_s=idle_s,
        )
        self.turns = Turns(
            router, self.locks, self.board, self.delivery, self.residency, bot_delay=bot_delay
        )
        self.dispatch = Dispatch(
            router,
            self.store,
            self.locks,
            self.board,
            self.residency,
            self.writes,
            self.langs,
            self.turns.after_change,
        )
        router.history = self.writes.history
        router.archive = self.writes.archived
        if router.stats is None:
            router.stats = Stats(self.store)
        router.reviews = reviews

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

    # ---------------------------------------------------------------- the parts' settings
    @property
    def listener(self) -> Listener | None:
        """Where the host sends what its tables say without an input."""
        return self.delivery.listener

    @listener.setter
    def listener(self, listener: Listener | None) -> None:
        self.delivery.listener = listener

    @property
    def boards(self) -> bool:
        """Add a :class:`~dokobot.host.events.Board` after every batch of a table with a
        game (set by adapters that show a live board)."""
        return self.board.wanted

    @boards.setter
    def boards(self, wanted: bool) -> None:
        self.board.wanted = wanted

    @property
    def bot_delay(self) -> float:
        """Seconds a computer player waits before it moves."""
        return self.turns.bot_delay

    @bot_delay.setter
    def bot_delay(self, delay: float) -> None:
        self.turns.bot_delay = delay

    @property
    def paced(self) -> set[str]:
        """Channel id prefixes whose turn timer waits for the prompt to be sent (:meth:`pace`)."""
        return self.turns.paced

    @property
    def damaged(self) -> dict[str, str]:
        """Channels whose journal holds a record that cannot be applied, with the reason
        (see :attr:`~dokobot.host.residency.Residency.damaged`)."""
        return self.residency.damaged

    # ---------------------------------------------------------------- wiring of the parts
    def _lock_freed(self, channel: str) -> None:
        self.residency.wait_for_store(channel)

    def _lock_idle(self, channel: str) -> None:
        if channel not in self.router.tables:
            self.locks.forget(channel)
            self.residency.untouch(channel)

    def _after_change(self, channel: str) -> None:
        self.turns.after_change(channel)

    def _unload(self, channel: str) -> None:
        self.turns.forget(channel)

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> list[Event]:
        """Rebuild the tables from the store; events saying the games continue (see
        :meth:`~dokobot.host.residency.Residency.start`)."""
        self.store.watch_loop(asyncio.get_running_loop())
        events = await self.residency.start()
        if self.reviews is not None:
            await self.review_link.requeue()
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
        async with self.locks.channel(channel):
            if channel in self.residency.lazy:
                await self.residency.load(channel, private_ledger=True)

    async def close(self) -> None:
        self.turns.closed = self.residency.closed = self.locks.closed = True
        self.dispatch.close()
        self.langs.close()
        await self.review_link.close()
        tasks = [*self.turns.tasks(), *self.residency.recovering()]
        if self.locks.watchdog is not None:
            tasks.append(self.locks.watchdog)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._warming is not None:  # a worker thread cannot be stopped: let it finish
            with contextlib.suppress(Exception):
                await self._warming
        await self.writes.close()
        await asyncio.to_thread(self.store.close)

    # ---------------------------------------------------------------- input
    async def handle(self, inp: Input) -> list[Event]:
        """Answer one input (never raises)."""
        return await self.dispatch.handle(inp)

    async def persist(self, channel: str) -> bool:
        """Write the channel's new journal lines to the store; False (and the table rebuilt
        from the store) if that failed."""
        return not isinstance(await self.residency.commit(channel), str)

    # ---------------------------------------------------------------- adapter hooks
    def holds(self, channel: str) -> bool:
        """Whether this process holds the table of ``channel`` (in memory or in its store,
        not yet loaded); with several processes, another one holds the others."""
        return self.residency.holds(channel)

    def table_defaults(self, defaults: ChatDefaults) -> None:
        """A chat's own defaults for the new tables of its channels (an adapter declares
        them before the tables are restored; the same declaration again changes nothing)."""
        if defaults not in self.router.chats:
            self.router.chats.append(defaults)

    def pace(self, prefix: str) -> None:
        """An adapter that sends through a queue (IRC) serves the channels whose ids start
        with ``prefix`` and reports every prompt it really sent (:meth:`prompt_sent`): on
        these channels the turn timer starts only then, never when a prompt is queued."""
        self.turns.paced.add(prefix)

    def prompt_sent(self, channel: str, user: str) -> None:
        """An adapter reports that the prompt for ``user`` at ``channel`` really left now
        (it may have waited in a send queue), or that it cannot be delivered (the player is
        away): on a paced channel the turn timer starts from here; elsewhere it runs from the
        turn's start, as the board's countdown says (it never waits for a delivery)."""
        self.turns.prompt_sent(channel, user)

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
        async with self.locks.channel(channel):
            if channel in self.residency.lazy:
                await self.residency.load(channel, private_ledger=True)
            table = self.router.tables.get(channel)
            if table is None or channel in self.residency.damaged:
                return
            seat = table.seat_of(user)
            if seat is None:
                return
            try:
                table.rename(seat, clean_name(name))
            except Refusal:
                return
            await self.residency.commit(channel)

    def channel_language(self, channel: str) -> str:
        """The language of the table in ``channel`` (the default one where there is none):
        what an adapter writes its own words to that channel in."""
        table = self.router.tables.get(channel)
        return table.options.language if table is not None else self.router.default_language

    def language_of(self, user: str) -> str | None:
        """The language ``user`` chose with /lang (kept in the store), if any: from memory;
        None while it is read from the store (see :mod:`~dokobot.host.userlangs`)."""
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
            return self.router.default_options.for_channel(channel, self.router.chats).thread
        return table.options.thread and not table.seats

    async def preference_of(self, user: str, name: str) -> str | None:
        """``user``'s choice of the setting ``name`` (kept in the store), if any: read in a
        worker thread, waited for at most :data:`~dokobot.host.userlangs.LOOKUP_S`
        (:class:`~dokobot.store.StoreUnavailable` then)."""
        try:
            return await asyncio.wait_for(
                asyncio.to_thread(self.store.preference, user, name), LOOKUP_S
            )
        except TimeoutError:
            raise StoreUnavailable(
                f"a stored setting was not read within {LOOKUP_S:.0f} s"
            ) from None

    def reader_language(self, user: str, channel: str) -> str:
        """The language ``user`` reads at ``channel``: their /lang, else the table's."""
        return self.router.lang_of(user, self.router.tables.get(channel))

    async def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        """The stored (user, nick) pairs under ``prefix`` (read in a worker thread)."""
        return await asyncio.to_thread(self.store.nick_history, prefix)

    async def remember_nick(self, user: str, nick: str) -> None:
        """Keep that ``user`` goes by ``nick`` (in a worker thread)."""
        await asyncio.to_thread(self.store.remember_nick, user, nick)

    async def reviews_idle(self) -> None:
        """Wait until every finished game handed to the review queue is in it and the queue
        is empty (tests: a game's job reaches the queue from a worker thread)."""
        await self.review_link.idle()

    async def idle(self) -> None:
        """Wait until no computer player is thinking (tests)."""
        await self.turns.idle()
