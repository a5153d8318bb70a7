"""The order of each channel's batches (a part the :class:`DiscordAdapter` holds): a
channel's messages go out in the order the host made its batches, one batch at a time;
a batch's turn waits for its sending at most :data:`SEND_TURN_S` seconds, and a watchdog
frees a turn held longer than :data:`TURN_LIMIT_S` (a table is never held up for long by
a platform call)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Final

from dokobot import bounded
from dokobot.adapters.discord.interaction import _Turns
from dokobot.bounded import Bounded

log = logging.getLogger(__name__)

SEND_TURN_S: Final = 5.0
"""Seconds a channel's turn waits for the messages of one batch (a board post, texts): then
the next batch of the channel goes on (see :meth:`ChannelOrder.within`)."""
TURN_LIMIT_S: Final = 8.0
"""Seconds after which the watchdog frees a channel's turn that is still held (and logs the
channel): nothing holds a table that long (see :meth:`ChannelOrder.watch`)."""
WATCH_EVERY_S: Final = 1.0
"""Seconds between two looks of the watchdog."""


class ChannelOrder:
    """The turns of every channel's batches. ``go_on(task)``: a sending that outlived its
    turn goes on in the background (the adapter keeps it and counts it as busy)."""

    def __init__(self, go_on: Callable[[asyncio.Task[None]], None]) -> None:
        self.go_on = go_on
        self._turns: Bounded[str, _Turns] = Bounded(bounded.CAPS.channels)

    def of(self, channel: str) -> _Turns:
        """The turns of ``channel``'s batches."""
        turns = self._turns.get(channel)
        if turns is None:
            turns = self._turns[channel] = _Turns()
        return turns

    async def within(self, sending: Coroutine[Any, Any, None], channel: str) -> None:
        """A channel's part of a batch, sent in the channel's turn: the turn waits for it
        at most :data:`SEND_TURN_S` seconds, then the channel goes on (the sending too, on
        its own): a table's turn is never held for long across a platform call."""
        task = asyncio.ensure_future(sending)
        done, _ = await asyncio.wait({task}, timeout=SEND_TURN_S)
        if not done:
            log.warning(
                "table %s: its messages take longer than %.0f s; the channel goes on",
                channel,
                SEND_TURN_S,
            )
            self.go_on(task)

    async def watch(self) -> None:
        """The watchdog: every :data:`WATCH_EVERY_S` seconds, a channel whose turn (the
        order of its batches) has been held longer than :data:`TURN_LIMIT_S` is named in the
        log and freed: its next batch goes on."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            try:
                self.free_overdue(loop.time())
            except Exception:
                log.exception("the watchdog failed")

    def free_overdue(self, now: float, limit: float = TURN_LIMIT_S) -> list[str]:
        """Free every channel's turn held longer than ``limit`` seconds at ``now`` (loop
        time), each logged as a warning; the channels freed."""
        freed: list[str] = []
        for channel, turns in list(self._turns.items()):
            held = turns.overdue(now, limit)
            if held is None:
                continue
            ticket = turns.free()
            freed.append(channel)
            log.warning(
                "watchdog: table %s held its turn (batch %s) for %.1f s; freed",
                channel,
                ticket,
                held,
            )
        return freed
