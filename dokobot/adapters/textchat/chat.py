"""The text chat's core: what a platform hands in (lines said, people seen, gone, renamed) to
the host, in order, and the host's events out through the delivery and the send loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from dokobot.host.contract import Host
from dokobot.host.events import Event, Input, Private
from dokobot.inorder import InOrder, Place

from .delivery import Delivery
from .exports import Exports
from .outbox import Outbox, TokenBucket
from .platform import TextPlatform
from .sender import Sender
from .typed import asks_for_help_list, command_text, compact_help, resolve_number

log = logging.getLogger("dokobot.adapters.textchat")

INBOX = 1000
"""Inputs waiting for the host at most; a line beyond is dropped (and logged)."""
IN_FLIGHT = 64
"""Inputs the host answers at once at most; the next waits in the inbox for a free place."""
ANSWER_ORDER_S = 30.0
"""An input waits at most this long (from its coming) for its sender's earlier input to be
answered, and its answer as long for the answers to the earlier inputs of its room (of its
sender, in private) to be queued first: a stuck answer holds nobody up for longer."""


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
        self._senders = InOrder[str]()
        """Per person: his inputs and renames to the host, one at a time."""
        self._answers = InOrder[str]()
        """Per room (per sender in private): the answers in the order of the inputs."""
        self._in_flight = asyncio.Semaphore(IN_FLIGHT)
        self._answering: set[asyncio.Task[None]] = set()
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
            answering = list(self._answering)
            for task in answering:
                task.cancel()
            await asyncio.gather(*answering, return_exceptions=True)

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
        """Hands the inputs to the host in the order they came, each answered in a task of
        its own: a slow answer (a table waiting for its store) holds up no other room. A
        person's inputs and renames go to the host one at a time, in order; the answers of
        a room are queued in the order of its inputs (each waits at most
        :data:`ANSWER_ORDER_S` for those before it)."""
        while True:
            inp = await self.inbox.get()
            await self._in_flight.acquire()
            turn = self._senders.place(inp.user, ANSWER_ORDER_S)
            if isinstance(inp, Rename):
                work = self._rename(inp, turn)
            else:
                room = inp.user if inp.dm else inp.channel
                work = self._answer(inp, turn, self._answers.place(room, ANSWER_ORDER_S))
            task = asyncio.create_task(work, name="text-input")
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)

    async def _rename(self, rename: Rename, turn: Place[str]) -> None:
        try:
            await turn.after_those_ahead()
            await self.host.rename(rename.user, rename.name)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s the host failed on a rename", self.platform.prefix)
        finally:
            turn.leave()
            self._in_flight.release()

    async def _answer(self, inp: Input, turn: Place[str], answer: Place[str]) -> None:
        try:
            try:
                await turn.after_those_ahead()
                events = await self.host.handle(inp)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s the host failed on an input", self.platform.prefix)
                return
            finally:
                turn.leave()
            if asks_for_help_list(inp.text):
                sign = self.platform.sign
                events = [
                    replace(e, text=compact_help(e.text, sign))
                    if isinstance(e, Private) and e.user == inp.user
                    else e
                    for e in events
                ]
            await answer.after_those_ahead()
            await self.deliver(events)
        finally:
            answer.leave()
            self._in_flight.release()
