"""The text chat's core: what a platform hands in (lines said, people seen, gone, renamed) to
the host, in order, and the host's events out through the delivery and the send loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from dokobot.host.contract import Host
from dokobot.host.events import Event, Input, Private

from .delivery import Delivery
from .exports import Exports
from .outbox import Outbox, TokenBucket
from .platform import TextPlatform
from .sender import Sender
from .typed import asks_for_help_list, command_text, compact_help, resolve_number

log = logging.getLogger("dokobot.adapters.textchat")

INBOX = 1000
"""Inputs waiting for the host at most; a line beyond is dropped (and logged)."""


@dataclass(frozen=True, slots=True)
class Rename:
    """A person goes by a new name: handed to the host in order with the inputs."""

    user: str
    name: str


class TextChat:
    """One text chat (a network, a homeserver account) served by ``host`` (see the package
    docs). ``burst`` lines go out at once, then ``rate`` lines per second."""

    def __init__(
        self,
        host: Host,
        platform: TextPlatform,
        *,
        burst: int,
        rate: float,
        exports: Exports | None = None,
    ) -> None:
        self.host = host
        self.platform = platform
        self.outbox = Outbox()
        self.bucket = TokenBucket(burst, rate)
        self.delivery = Delivery(host, platform, self.outbox, exports)
        self.sender = Sender(platform, self.outbox, self.bucket)
        self.inbox: asyncio.Queue[Input | Rename] = asyncio.Queue(maxsize=INBOX)
        self._names: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        host.pace(platform.prefix)  # the turn timer starts when a prompt really left

    # -- life ---------------------------------------------------------------------------

    async def serve(self, connection: Callable[[], Awaitable[None]]) -> None:
        """Run ``connection()`` (the platform's connect-and-reconnect loop) with the layer's
        workers beside it: the inputs to the host, the send loop, the names to the store."""
        workers = [
            asyncio.create_task(self._input_worker(), name="text-input"),
            asyncio.create_task(self.sender.run(), name="text-sender"),
            asyncio.create_task(self._name_writer(), name="text-names"),
        ]
        try:
            await connection()
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def deliver(self, events: Sequence[Event]) -> None:
        """Queue the host's events for sending (the chat's listener). Events of other
        platforms (ids without this chat's prefix) are ignored."""
        try:
            self.delivery.batch(events)
        except Exception:
            log.exception("%s queueing events failed", self.platform.prefix)

    def connected(self) -> None:
        """The platform's connection is up (again)."""
        self.delivery.connected()

    # -- people ---------------------------------------------------------------------------

    def command(self, line: str, *, dm: bool) -> str | None:
        """What to hand to the host for a line somebody wrote (None: nothing), as players
        type commands here (see :mod:`~dokobot.adapters.textchat.typed`)."""
        return command_text(line, dm=dm, sign=self.platform.sign)

    def said(
        self,
        channel: str,
        user: str,
        name: str,
        text: str,
        *,
        dm: bool,
        admin: bool = False,
        truncated: bool = False,
        mentions: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """``user`` (shown as ``name``) said ``text`` (a :meth:`command`) in ``channel``
        (``""`` and ``dm``: privately to the bot): it goes to the host after what came
        before. A card number means a card of the hand he last saw. ``truncated``: the
        server cut the line; ``mentions``: the people the line names by a link of the
        chat's own, each (as written, user id)."""
        shown = self.delivery.shown.get(user)
        if shown:
            text = resolve_number(text, shown)
        inp = Input(channel=channel, user=user, name=name, text=text, dm=dm, admin=admin,
                    truncated=truncated, overheard=not dm, mentions=mentions)  # fmt: skip
        try:
            self.inbox.put_nowait(inp)
        except asyncio.QueueFull:
            log.warning("%s input queue full; dropping a line", self.platform.prefix)

    def seen(self, user: str) -> None:
        """``user`` is here (joined, listed, wrote): a prompt waiting for him is sent again."""
        self.delivery.resend(user)

    def gone(self, user: str) -> None:
        """``user`` left: what was queued for him is not delivered, a prompt is missed."""
        self.delivery.gone(user)

    def named(self, user: str, name: str, *, rename: bool = True) -> None:
        """``user`` goes by ``name`` now (first seen, renamed): the name is kept in the store
        (``host.nick_history``) and, with ``rename``, his seat takes it, in order with the
        inputs."""
        self._names.put_nowait((user, name))
        if rename:
            try:
                self.inbox.put_nowait(Rename(user, name))
            except asyncio.QueueFull:
                log.warning("%s input queue full; dropping a rename", self.platform.prefix)

    async def names(self) -> list[tuple[str, str]]:
        """The stored (user id, name) pairs of this chat, oldest first (after a restart)."""
        prefix = self.platform.prefix
        return [(user, name[len(prefix) :]) for user, name in await self.host.nick_history(prefix)]

    # -- workers ----------------------------------------------------------------------------

    async def _name_writer(self) -> None:
        while True:
            user, name = await self._names.get()
            try:
                await self.host.remember_nick(user, self.platform.prefix + name)
            except Exception:
                log.exception("%s storing a name failed", self.platform.prefix)

    async def _input_worker(self) -> None:
        while True:
            inp = await self.inbox.get()
            try:
                if isinstance(inp, Rename):
                    await self.host.rename(inp.user, inp.name)
                    continue
                events = await self.host.handle(inp)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s the host failed on an input", self.platform.prefix)
                continue
            if asks_for_help_list(inp.text):
                sign = self.platform.sign
                events = [
                    replace(e, text=compact_help(e.text, sign))
                    if isinstance(e, Private) and e.user == inp.user
                    else e
                    for e in events
                ]
            await self.deliver(events)
