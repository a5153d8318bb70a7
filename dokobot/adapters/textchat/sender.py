"""The send loop of a text chat: the outbox's next line, once the chat is online and the token
bucket has a token, to the room or to where its person is reached now."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from .outbox import Outbox, OutLine, TokenBucket
from .platform import TextPlatform

log = logging.getLogger("dokobot.adapters.textchat")

SEND_DEADLINE = 600.0
"""Seconds one line may take to send (a platform's own retries on a rate limit included):
a send that hangs longer (a dead connection that never says so) gives the line up, so the
lines behind it go on."""


class Sender:
    """Sends the outbox's lines through the platform, one at a time (see :meth:`run`)."""

    def __init__(self, platform: TextPlatform, outbox: Outbox, bucket: TokenBucket) -> None:
        self.platform = platform
        self.outbox = outbox
        self.bucket = bucket
        self.sent = 0
        """Lines sent so far."""
        self.on_line: Callable[[OutLine], None] | None = None
        """Called with every line sent (benchmarks count them)."""

    async def run(self) -> None:
        """Send until cancelled; nothing the platform raises stops it."""
        while True:
            line = await self.outbox.get()
            try:
                await self.send(line)
            except Exception:
                log.exception("%s sending failed", self.platform.prefix)
            raise_if_cancelling()

    async def send(self, line: OutLine) -> None:
        """Send one line once the chat is online and the bucket has a token.

        A line that cannot go out because the connection dropped waits for the next one. A
        room line the platform keeps (:meth:`TextPlatform.keeps`) counts as sent. A private
        line for a person who cannot be reached now is not sent, nor a prompt for one who is
        not present: it goes out again when the person is seen.
        """
        platform = self.platform
        unit = line.unit
        while True:
            await platform.online()
            if line.private:
                to = platform.address(line.target)
                away = unit is not None and unit.present_only and not platform.present(line.target)
                if to is None or away:
                    log.info("%s a player is away; a private message is not sent", platform.prefix)
                    self.abandon(line)
                    return
            else:
                to = line.target  # the room itself
                if platform.keeps(to, line.text):
                    self.done(line)
                    return
            await self.bucket.acquire()
            try:
                async with asyncio.timeout(SEND_DEADLINE):  # in this task: no reordering
                    sent = await platform.send(line, to)
            except Exception as exc:  # TimeoutError too
                log.warning("%s could not send a line: %s: %s", platform.prefix,
                            type(exc).__name__, exc)  # fmt: skip
                self.abandon(line)
                return
            if not sent:
                continue
            self.sent += 1
            if unit is not None and self.on_line is not None:
                self.on_line(line)
            self.done(line)
            return

    @staticmethod
    def done(line: OutLine) -> None:
        unit = line.unit
        if line.last and unit is not None and unit.on_sent is not None:
            unit.on_sent()

    def abandon(self, line: OutLine) -> None:
        unit = line.unit
        if unit is None:
            return
        unit.next = len(unit.lines)
        unit.finished = True
        self.outbox.skip(unit)
        if unit.on_drop is not None:
            unit.on_drop()


def raise_if_cancelling() -> None:
    """Re-raise a cancellation that ``asyncio.wait_for`` dropped (CPython 3.11 bug, fixed in
    3.12): a client library that sends every line through ``wait_for`` would lose it, and
    shutdown would hang."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
