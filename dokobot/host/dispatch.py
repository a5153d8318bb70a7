"""The answer to one input: under its table's lock, stored before it is applied.

Inputs of one channel are handled one at a time; channels do not wait for each other. One
person's inputs reach their tables in the order they came (:class:`SendersInOrder`). A slow
command (an export, the statistics) gets a place in the table's
:class:`~dokobot.host.slowlane.SlowLane` and reads a snapshot of the table in a worker
thread, so the table plays on meanwhile.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from ..inorder import InOrder
from ..store import Store, StoreUnavailable, StoreUnknown
from .commands import aliases, slow_commands
from .events import Event, Input, Private, draw_pictures, has_pictures_to_draw
from .i18n import render
from .liveboard import LiveBoard
from .locks import Freed, TableLocks
from .residency import Residency
from .router import Router
from .slowlane import SLOW_THREAD, SLOW_WORKERS, SlowLane
from .userlangs import LOOKUP_S, StoredLanguages
from .writes import Writes

log = logging.getLogger(__name__)

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


class SendersInOrder:
    """Each input waits for its sender's language (:meth:`StoredLanguages.fetch`), and
    behind the same person's earlier inputs that still wait for it: an input whose language
    is in memory already would otherwise reach the table before an earlier one that waited
    for the read. Each waits at most ``within_s`` from its coming, as for the read alone; a
    person is kept only while an input of his waits. Other people's inputs do not wait."""

    def __init__(self, langs: StoredLanguages) -> None:
        self.langs = langs
        self._line = InOrder[str]()

    def __len__(self) -> int:
        """How many people have an input waiting."""
        return len(self._line)

    async def turn(self, user: str, within_s: float = LOOKUP_S) -> None:
        """Return when ``user``'s language is in memory and his earlier inputs have gone
        on, or ``within_s`` seconds after the call. The caller takes its table's lock (or
        its place in the lock's queue) before it awaits anything else."""
        place = self._line.place(user, within_s)
        try:
            await place.after_those_ahead()
            await self.langs.fetch([user], place.left_s())
        finally:
            place.leave()


class Dispatch:
    """Answers inputs; ``after_change(channel)``: the table may move by itself again."""

    def __init__(
        self,
        router: Router,
        store: Store,
        locks: TableLocks,
        board: LiveBoard,
        residency: Residency,
        writes: Writes,
        langs: StoredLanguages,
        after_change: Callable[[str], None],
    ) -> None:
        self.router = router
        self.store = store
        self.locks = locks
        self.board = board
        self.residency = residency
        self.writes = writes
        self.langs = langs
        self.in_order = SendersInOrder(langs)
        self.after_change = after_change
        self._lanes: dict[str, SlowLane] = {}
        """Per table: its slow commands (bounded, one at a time)."""
        self._slow_pool = ThreadPoolExecutor(SLOW_WORKERS, thread_name_prefix=SLOW_THREAD)
        """The worker threads of the slow commands, apart from those that store moves: a
        flood of exports at many tables never keeps a write of another table waiting."""

    def close(self) -> None:
        """Take no more slow commands."""
        self._slow_pool.shutdown(wait=False)

    def channel_of(self, inp: Input) -> str:
        """The channel whose table ``inp`` is for (a direct message: the sender's table)."""
        if inp.channel and not inp.dm:
            return inp.channel
        return self.router.user_table.get(inp.user, "")

    async def handle(self, inp: Input) -> list[Event]:
        """Answer one input (never raises), in its sender's language if it can be read in
        time (see :mod:`~dokobot.host.userlangs`), after his earlier inputs."""
        try:
            await self.in_order.turn(inp.user)
            if _is_slow(inp.text):
                return await self._handle_slow(inp)
            return await self._handle(inp)
        except Freed:
            return [self._refusal(inp, "store_unknown")]
        except StoreUnavailable as exc:  # (a table to load that cannot be read now)
            log.warning("%s (answering %r)", exc, inp.text[:80])
            return [self._refusal(inp, "store_unreadable")]
        except Exception:
            log.exception("service failed on input")
            return [self._refusal(inp, "internal_error")]

    async def _handle_slow(self, inp: Input) -> list[Event]:
        """A slow command: a place in the table's :class:`SlowLane` (else "busy"), then,
        in turn, a snapshot of the table taken under its lock and read in a worker thread
        without the lock, so that the table plays on meanwhile."""
        channel = self.channel_of(inp)
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
        residency = self.residency
        back: list[Event] = []
        async with self.locks.channel(channel):
            if channel in residency.lazy:
                await residency.load(channel, private_ledger=True)
            table = self.router.tables.get(channel)
            plain = channel in residency.damaged or channel in residency.held
            if table is None or plain:
                snapshot = None  # answered the ordinary way below
            else:
                # A person a computer player stands in for is back by this command too:
                # at the table itself (stored first), not only in the snapshot.
                back = self.router.returns(table, inp)
                if back:
                    links = await residency.commit(channel)
                    if isinstance(links, str):
                        return [self._refusal(inp, links)]
                    back = self.board.with_board(channel, back + links)
            bound = self.writes.stored.get(channel)
            # (a button's decision marker is checked against the snapshot: the same)
            if table is None or bound is None or plain:
                snapshot = None
            else:
                snapshot = table.snapshot()
                self.writes.begin_read(channel, snapshot, bound)
                residency.touch(channel)
        if back:
            self.after_change(channel)
        if snapshot is None:
            return back + await self._handle(inp)
        try:
            loop = asyncio.get_running_loop()
            events = await loop.run_in_executor(
                self._slow_pool, functools.partial(self.router.handle, inp, snapshot)
            )
        finally:
            self.writes.end_read(channel, snapshot)
        if has_pictures_to_draw(events):
            events = await asyncio.to_thread(draw_pictures, events)
        return back + events

    async def _handle(self, inp: Input) -> list[Event]:
        """Answer one input under its table's lock."""
        channel = self.channel_of(inp)
        residency = self.residency
        async with self.locks.channel(channel):
            if channel in residency.damaged:
                return [self._refusal(inp, "table_damaged")]
            rebuilt: list[Event] = []
            if channel in residency.held:
                again = await residency.rebuild(channel)
                if again is None:
                    return [self._refusal(inp, "store_failed")]
                rebuilt = again
            if channel in residency.lazy:
                await residency.load(channel, private_ledger=True)
            before = self.router.langs.get(inp.user)
            if _is_slow(inp.text):  # may read a long history: off the event loop
                events = await asyncio.to_thread(self.router.handle, inp)
            else:
                events = self.router.handle(inp)
            events = rebuilt + self.board.with_board(channel, events)
            residency.touch(channel)
            if residency.drop_if_empty(channel):
                pass  # nothing durable, nothing kept: a table exists once someone joins
            else:
                links = await residency.commit(channel)
                if isinstance(links, str):
                    return [self._refusal(inp, links)]
                events += links
            after = self.router.langs.get(inp.user)
            if after is not None and after != before:
                try:
                    await asyncio.to_thread(self.store.set_language, inp.user, after)
                except Exception as exc:
                    log.exception("store: language of a user not saved; change undone")
                    self.router.langs.pop(inp.user, None)
                    if before is not None:
                        self.router.langs[inp.user] = before
                    unknown = isinstance(exc, StoreUnknown)  # (stored or not: not known yet)
                    return [self._refusal(inp, "setting_unknown" if unknown else "store_failed")]
        self.after_change(channel)
        residency.sweep()
        if has_pictures_to_draw(events):
            events = await asyncio.to_thread(draw_pictures, events)
        return events

    def _refusal(self, inp: Input, key: str) -> Private:
        table = self.router.tables.get(self.channel_of(inp))
        lang = self.router.lang_of(inp.user, table)
        return Private(
            inp.channel, inp.user, render(lang, key), reply=True, kind="error", lang=lang
        )
