"""One interaction and the bookkeeping of what was sent: the reply to an interaction
(:class:`_Reply`), the order of a channel's batches (:class:`_Turns`), prompts, panels and
board messages, and a batch of host events sorted by where they go."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp
import discord

from dokobot.adapters.discord.board import SHOWN_ELSEWHERE
from dokobot.adapters.discord.i18n import text
from dokobot.adapters.discord.messages import MAX_MESSAGE
from dokobot.host.board import BoardView, LobbyView
from dokobot.host.events import READY, Board, Event, Input, Lobby, Private
from dokobot.render import TrickPicture

log = logging.getLogger(__name__)

TOKEN_LIFE: Final = 15 * 60.0
"""Seconds an interaction token can edit its messages (Discord: 15 minutes)."""
DM_BLOCKED_FOR: Final = 600.0
"""Seconds a user whose DMs were refused is not sent DMs again."""

Strip = Callable[[], Awaitable[Any]]


def too_large(exc: discord.HTTPException) -> bool:
    """Discord refused an upload as too large (413 Request Entity Too Large, JSON error
    code 40005: https://docs.discord.com/developers/reference#uploading-files)."""
    return exc.status == 413 or exc.code == 40005


def without_file(content: str | None, lang: str) -> str:
    """``content`` with the note that its picture or file was too large and is left out."""
    note = "*" + text("file_too_large", lang) + "*"
    return (f"{content}\n{note}" if content else note)[:MAX_MESSAGE]


async def guarded(sending: Awaitable[Any]) -> None:
    """Send ``sending``; one message that Discord refuses must not stop the others (logged)."""
    try:
        await sending
    except discord.HTTPException as exc:
        log.warning("Discord refused a message: %s %s", exc.status, exc.text)
    except (aiohttp.ClientError, OSError) as exc:
        log.warning("a message did not reach Discord: %r", exc)


@dataclass(eq=False)
class _Prompt:
    """A sent message with a prompt's buttons: how to take them away once superseded."""

    marker: tuple[int, int] | None
    message_id: int
    strip: Strip
    expires: float
    source: Private | None = None
    """The host's prompt it shows (a DM and the "My cards" panel may show the same)."""


@dataclass(eq=False)
class _Sent:
    """An ephemeral message sent for an interaction, and how to edit exactly that message
    (``edit_original_response`` for the response itself, the follow-up's own edit else: after
    a deferred button the "original" is the message the button sits on)."""

    message_id: int
    edit: Callable[..., Awaitable[Any]]

    def strip(self) -> Awaitable[Any]:
        return self.edit(view=None)


@dataclass(eq=False)
class _Panel:
    """A "My cards" message (ephemeral), kept up to date while its token is valid."""

    sent: _Sent
    expires: float


#: Kinds of private messages that a "My cards" panel shows.
PANEL_KINDS: Final = frozenset({"hand", "turn", "reservation"})


@dataclass(eq=False)
class _Reply:
    """The answering state of one interaction."""

    interaction: discord.Interaction[Any]
    button: bool
    consume: bool
    lang: str
    label: str = ""
    guard: asyncio.Lock = field(default_factory=asyncio.Lock)
    deferred: bool = False
    followups: int = 0
    error: bool = False
    shown_choices: bool = False
    life: float = TOKEN_LIFE
    started: float = field(default_factory=lambda: asyncio.get_running_loop().time())

    @property
    def user_id(self) -> int:
        return self.interaction.user.id

    @property
    def channel_id(self) -> int | None:
        return self.interaction.channel_id

    @property
    def open(self) -> bool:
        return not self.interaction.response.is_done()

    @property
    def expires(self) -> float:
        return self.started + self.life * 0.97  # a little before Discord's end

    async def defer(self) -> None:
        if self.open:
            if self.button:
                await self.interaction.response.defer()
            else:
                await self.interaction.response.defer(ephemeral=True, thinking=True)
            self.deferred = True

    async def ephemeral(
        self,
        content: str | None,
        view: discord.ui.View | None = None,
        file: discord.File | None = None,
        keep: bool = False,
    ) -> _Sent | None:
        """Send an ephemeral message; with a ``view`` (or ``keep``), how to edit it later.
        A ``file`` Discord refuses as too large is left out, and the message says so."""
        try:
            return await self._ephemeral(content, view, file, keep)
        except discord.HTTPException as exc:
            if file is None or not too_large(exc):
                raise
            log.warning("Discord refused a file of %s as too large; sent without it", file.filename)
            return await self._ephemeral(without_file(content, self.lang), view, None, keep)

    async def _ephemeral(
        self,
        content: str | None,
        view: discord.ui.View | None,
        file: discord.File | None,
        keep: bool,
    ) -> _Sent | None:
        kwargs: dict[str, Any] = {"ephemeral": True}
        if view is not None:
            kwargs["view"] = view
        if file is not None:
            kwargs["file"] = file
        interaction = self.interaction
        keep = keep or view is not None
        if self.open:
            response = await interaction.response.send_message(content, **kwargs)
            message_id = getattr(response, "message_id", None)
            if not keep or message_id is None:
                return None
            return _Sent(int(message_id), interaction.edit_original_response)
        if not keep:
            await interaction.followup.send(content or "", **kwargs)
            self.followups += 1
            return None
        sent = await interaction.followup.send(content or "", wait=True, **kwargs)
        self.followups += 1
        return _Sent(sent.id, functools.partial(interaction.followup.edit_message, sent.id))

    async def public(self, content: str, view: discord.ui.View | None) -> None:
        """Answer a slash command with a public message in its channel."""
        if view is None:
            await self.interaction.response.send_message(content)
        else:
            await self.interaction.response.send_message(content, view=view)

    async def use_up(self) -> None:
        """Take the buttons off the prompt that was clicked, saying what was pressed."""
        if self.open:
            await self.interaction.response.edit_message(content=self._used(), view=None)
        else:
            await self.interaction.edit_original_response(content=self._used(), view=None)

    async def finish(self) -> None:
        """Make sure the interaction is answered."""
        interaction = self.interaction
        if self.open:
            if self.button:
                await interaction.response.defer()
            else:
                await interaction.response.send_message(text("done", self.lang), ephemeral=True)
        elif self.deferred and not self.button and self.followups == 0:
            await interaction.delete_original_response()

    def _used(self) -> str:
        message = self.interaction.message
        return used_text(message.content if message is not None else "", self.label)

    async def fail(self) -> None:
        """Tell the user that something went wrong (never raises)."""
        try:
            async with self.guard:
                await self.ephemeral(text("error", self.lang))
        except Exception:
            log.exception("could not tell the user about an error")


def used_text(before: str, label: str) -> str:
    """The text of a used-up prompt: what it said, and the button that was pressed.

    >>> used_text("Your turn.", "♣Q")
    'Your turn.\\n→ ♣Q'
    """
    label = discord.utils.escape_markdown(label)
    return (f"{before}\n→ {label}" if label else before)[:MAX_MESSAGE]


class _Turns:
    """First come, first served for one channel: tickets are served in the order taken.

    :meth:`release` is synchronous, so a ticket is released even while its holder is being
    cancelled, and a channel can never get stuck; a ticket served for longer than the
    adapter's watchdog allows (:meth:`overdue`) is freed by it (:meth:`free`): the channel
    goes on without waiting for its holder's platform call.
    """

    def __init__(self) -> None:
        self._next = 0
        self._serving = 0
        self._released: set[int] = set()
        self._waiters: dict[int, asyncio.Future[None]] = {}
        self._since = 0.0
        """When (loop time) the ticket now served began to be served."""

    def take(self) -> int:
        ticket = self._next
        self._next += 1
        if ticket == self._serving:
            self._since = asyncio.get_running_loop().time()
        return ticket

    def ready(self, ticket: int) -> bool:
        """Whether ``ticket`` would be served at once (no earlier batch is pending)."""
        return ticket <= self._serving

    async def wait(self, ticket: int) -> None:
        if ticket <= self._serving:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters[ticket] = waiter
        try:
            await waiter
        finally:
            self._waiters.pop(ticket, None)

    def release(self, ticket: int) -> None:
        if ticket < self._serving:
            return  # freed by the watchdog already
        self._released.add(ticket)
        serving = self._serving
        while self._serving in self._released:
            self._released.discard(self._serving)
            self._serving += 1
        if self._serving != serving:
            self._since = asyncio.get_running_loop().time()
        waiter = self._waiters.get(self._serving)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def overdue(self, now: float, limit: float) -> float | None:
        """Seconds the ticket now served has been held, if longer than ``limit`` (else
        None; also when no ticket is held)."""
        if self._serving >= self._next:
            return None
        held = now - self._since
        return held if held > limit else None

    def free(self) -> int:
        """Serve the next ticket without waiting for the one now served (the watchdog);
        the ticket freed."""
        ticket = self._serving
        self.release(ticket)
        return ticket


@dataclass(eq=False)
class _BoardMessage:
    """The one board message of a game in a channel, edited in place."""

    channel_id: int
    view: BoardView
    news: list[str] = field(default_factory=list)
    message_id: int | None = None
    result_posted: bool = False
    dirty: bool = False
    task: asyncio.Task[None] | None = None
    last_edit: float = -1e9
    edits: int = 0
    urgent: bool = False
    """Edit without waiting out the interval or a hold: a trick was taken, the game ended,
    or the person the board names (as sent) has moved (see ``board_messages._moved``)."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    shown: tuple[str, str, TrickPicture | None] | None = None
    """What the message shows (embed, text, picture): an identical edit is never sent."""
    picture: TrickPicture | None = None
    """The picture the message carries (uploaded again only when it changes)."""
    standin: str | None = None
    """The name on the board's stand-in button (for an idle person), None: no such button."""
    handover: str | None = None
    """The name on the board's vote button (``/handover``: a person a stand-in moves for),
    None: no such button."""
    greeted: list[int] = field(default_factory=list)
    """Players the board's first post named (everybody seated): that post notified them,
    and it counts as the notification of each one's first turn of the game."""
    notice: str = ""
    reposted: bool = False
    shown_view: BoardView | None = None
    """The state the message shows (None: not posted yet)."""
    sent_view: BoardView | None = None
    """The state of the board's last post or edit that left (it may not have landed yet):
    what the people will see next (None: nothing sent yet)."""
    held: float | None = None
    """Since when (loop time) a single move waits to be shown with the next one."""
    posting: bool = False
    """Its first post is under way (maybe slow, past its channel's turn): the editor waits
    for it and never posts the board a second time."""

    @property
    def game_number(self) -> int:
        return self.view.game_number


@dataclass(frozen=True, slots=True)
class _Batch:
    """One batch of host events, sorted for sending."""

    channels: tuple[str, ...]
    publics: dict[str, list[str]]
    news: dict[str, list[str]]
    """The public texts a board's "Latest" shows (not those it says otherwise)."""
    boards: dict[str, BoardView]
    lobbies: dict[str, LobbyView]
    mine: tuple[Private, ...]
    others: tuple[Private, ...]


def _sort(events: Sequence[Event], inp: Input | None) -> _Batch:
    channels: list[str] = []
    publics: dict[str, list[str]] = {}
    news: dict[str, list[str]] = {}
    boards: dict[str, BoardView] = {}
    lobbies: dict[str, LobbyView] = {}
    mine: list[Private] = []
    others: list[Private] = []
    lobbied = {e.channel for e in events if isinstance(e, Lobby)}
    for event in events:
        if isinstance(event, Private):
            if inp is not None and event.reply and event.user == inp.user:
                mine.append(event)
            else:
                others.append(event)
            continue
        if event.channel not in channels:
            channels.append(event.channel)
        if isinstance(event, Board):
            boards[event.channel] = event.view
        elif isinstance(event, Lobby):
            lobbies[event.channel] = event.view
        elif not (event.kind == READY and event.channel in lobbied):  # the lobby's Start says it
            publics.setdefault(event.channel, []).append(event.text)
            if event.kind not in SHOWN_ELSEWHERE:
                news.setdefault(event.channel, []).append(event.text)
    return _Batch(tuple(channels), publics, news, boards, lobbies, tuple(mine), tuple(others))


#: Channel permissions a table needs, by discord.py's names (see :meth:`missing_permissions`).


UNKNOWN_INTERACTION: Final = 10062
"""Discord's error code for an interaction it no longer knows (not answered within 3 s)."""

PRESS_ORDER_S: Final = 2.0
"""Seconds at most a person's input waits for his earlier ones to reach the host: the
platform calls made before an input goes to the host (acknowledging a press, opening a
thread) may end in another order than the inputs came (a /join then /leave would leave him
seated); an earlier input stuck longer than that holds his later ones up no longer."""


async def defer_later(reply: _Reply, after: float) -> None:
    """Defer the interaction of ``reply`` ``after`` seconds if it is not answered by then."""
    try:
        await asyncio.sleep(after)
        await acknowledged(reply)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("could not defer an interaction")


async def acknowledged(reply: _Reply) -> bool:
    """:func:`acknowledge` under the reply's guard (nothing else answers it meanwhile)."""
    async with reply.guard:
        return await acknowledge(reply)


async def acknowledge(reply: _Reply) -> bool:
    """Defer the interaction of ``reply`` if it is not answered yet; False if Discord
    no longer knows it (404, 10062 Unknown interaction: too late, the presser was told
    that it failed). A failure is one line in the log, never a traceback (under load
    there are many, and each traceback costs the starved loop more time)."""
    try:
        await reply.defer()
    except discord.NotFound as exc:
        log.info("could not defer an interaction: %s %s", exc.status, exc.text)
        return exc.code != UNKNOWN_INTERACTION
    except discord.HTTPException as exc:
        log.info("could not defer an interaction: %s %s", exc.status, exc.text)
    except (aiohttp.ClientError, OSError) as exc:
        log.info("could not defer an interaction: %r", exc)
    return True
