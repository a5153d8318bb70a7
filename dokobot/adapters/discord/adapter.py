"""The Discord client: interactions in, host events out.

Routing of the host's events (see :mod:`dokobot.host.events`):

* :class:`Board` -> the one board message of the game in its channel: sent when a game
  starts, then edited in place (an embed, with the cards on the table as a picture), at most
  once per ``board_interval``, always with the latest state. The :class:`Public` texts of a
  batch with a board go onto the board ("Latest"); the result of a game, and texts between
  games, are messages of their own. Without boards (a service that sends none), every batch
  of public texts is one message, and the last carries the "My cards" button.
* :class:`Private` with ``reply=True`` for the user who interacted -> an ephemeral response or
  follow-up (flags 64), with its ``choices`` as buttons. "My cards" answers with one panel
  (hand picture, text, buttons) that later prompts of that user update in place while its
  interaction token lives.
* any other :class:`Private` -> a DM with the choices as buttons (DM channels are opened once
  and kept). If Discord refuses the DM (403, code 50007), the prompt is kept, the user gets it
  with "My cards", the table channel gets a notice (once), and no DM is tried for 10 minutes.

Every interaction is answered before anything else is sent for it (a rate-limited channel
cannot delay it), and within Discord's 3 seconds: when the host (or the table's lock) takes
longer than ``defer_after`` seconds, the interaction is deferred and answered by follow-ups.
Prompt buttons carry their game and decision (:mod:`.buttons`); prompts whose decision is
past lose their buttons, and the host refuses a press on one. No exception escapes to
discord.py: it is logged and the user is told that something went wrong.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Protocol

import discord
from discord import app_commands
from discord.app_commands import Choice as AppChoice
from discord.ext import commands

from dokobot import bounded
from dokobot.adapters.discord.board import TABLE_PICTURE, board_embed
from dokobot.adapters.discord.buttons import DokoButton, choices_view, table_view, verb
from dokobot.adapters.discord.i18n import DokoTranslator, lang_of, text
from dokobot.adapters.discord.slash import DokoCommands
from dokobot.bounded import Bounded
from dokobot.host.board import BoardView
from dokobot.host.events import Board, Choice, Event, Input, Private
from dokobot.render import hand_png, trick_png

log = logging.getLogger(__name__)

TOKEN_ENV: Final = "DOKOBOT_DISCORD_TOKEN"
ID_PREFIX: Final = "discord:"
MAX_MESSAGE: Final = 2000
EPHEMERAL: Final = 64
HAND_PICTURE: Final = "hand.png"
NEWS: Final = 5
"""Latest public texts shown on a board."""

#: Commands that answer a prompt; a button of this kind is used up once the host accepts it.
CONSUMING: Final = frozenset({"play", "healthy", "reservation", "solo", "wedding"})

Listener = Callable[[list[Event]], Awaitable[None]]


class ServiceLike(Protocol):
    """The part of :class:`dokobot.host.service.Service` the adapter uses."""

    listener: Listener | None

    async def handle(self, inp: Input) -> list[Event]: ...

    async def start(self) -> list[Event]: ...

    async def close(self) -> None: ...


# -- ids and text ------------------------------------------------------------------------------


def qualify(snowflake: int) -> str:
    """The host's id for a Discord channel or user.

    >>> qualify(42)
    'discord:42'
    """
    return f"{ID_PREFIX}{snowflake}"


def snowflake_of(key: str) -> int | None:
    """The Discord id inside a host id, or None if it is not a Discord id.

    >>> snowflake_of("discord:42"), snowflake_of("irc:#doko"), snowflake_of("discord:x")
    (42, None, None)
    """
    if not key.startswith(ID_PREFIX):
        return None
    rest = key[len(ID_PREFIX) :]
    return int(rest) if rest.isdigit() else None


def split_message(content: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Cut ``content`` into pieces Discord accepts, at line ends where possible.

    >>> split_message("ab\\ncd", 3)
    ['ab', 'cd']
    >>> split_message("abcdefg", 3)
    ['abc', 'def', 'g']
    >>> split_message("")
    []
    """
    pieces: list[str] = []
    rest = content
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit + 1)
        if cut <= 0:
            pieces.append(rest[:limit])
            rest = rest[limit:]
        else:
            pieces.append(rest[:cut])
            rest = rest[cut + 1 :]
    if rest.strip():
        pieces.append(rest)
    return pieces


_ALIGNED = re.compile(r"\S {2,}\S|^ {2,}\S", re.MULTILINE)


def format_text(content: str) -> str:
    """Discord text for the host's plain text.

    Markdown is escaped; a table (several lines aligned with runs of spaces, like the score
    list) goes into a code block so that its columns line up.

    >>> format_text("a_b *c*")
    'a\\\\_b \\\\*c\\\\*'
    >>> format_text("Score\\n  # Anna  Ben\\n  1   +3   -3")
    '```\\nScore\\n  # Anna  Ben\\n  1   +3   -3\\n```'
    """
    lines = content.split("\n")
    if len(lines) > 1 and any(_ALIGNED.search(line) for line in lines[1:]):
        block = "```\n" + content.replace("```", "`\u200b``") + "\n```"
        if len(block) <= MAX_MESSAGE:
            return block
    return discord.utils.escape_markdown(content)


def join_texts(texts: Sequence[str], limit: int = MAX_MESSAGE) -> list[str]:
    """Put several host texts into as few messages as possible, each one whole if it fits.

    >>> join_texts(["a", "b", "c"], 3)
    ['a\\nb', 'c']
    >>> join_texts(["abcd", "e"], 3)
    ['abc', 'd\\ne']
    """
    messages: list[str] = []
    current = ""
    for formatted in (format_text(t) for t in texts if t.strip()):
        if current and len(current) + 1 + len(formatted) <= limit:
            current += "\n" + formatted
            continue
        if current:
            messages.append(current)
        pieces = split_message(formatted, limit)
        messages += pieces[:-1]
        current = pieces[-1] if pieces else ""
    if current:
        messages.append(current)
    return messages


def render(event: Event) -> tuple[list[str], discord.File | None]:
    """The messages for one host event (and a file for a long export).

    An export goes into a code block, or into a text file when it is too long for one.

    >>> render(Private("discord:1", "discord:2", "x", kind="export"))
    (['```\\nx\\n```'], None)

    A picture (a chart) is attached as a PNG file, with its text:

    >>> texts, file = render(Private("discord:1", "discord:2", "totals", image=b"PNG"))
    >>> texts, file.filename
    (['totals'], 'dokobot-chart.png')
    """
    if isinstance(event, Private) and event.image is not None:
        picture = discord.File(io.BytesIO(event.image), filename="dokobot-chart.png")
        return join_texts([event.text]), picture
    if isinstance(event, Private) and event.kind == "export":
        body = event.text.replace("```", "`\u200b``")
        if len(body) + 8 <= MAX_MESSAGE:
            return [f"```\n{body}\n```"], None
        data = io.BytesIO(event.text.encode("utf-8"))
        return [], discord.File(data, filename="dokobot-export.txt")
    return join_texts([event.text]), None


# -- one interaction ---------------------------------------------------------------------------

TOKEN_LIFE: Final = 15 * 60.0
"""Seconds an interaction token can edit its messages (Discord: 15 minutes)."""
DM_BLOCKED_FOR: Final = 600.0
"""Seconds a user whose DMs were refused is not sent DMs again."""

Strip = Callable[[], Awaitable[Any]]


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
        """Send an ephemeral message; with a ``view`` (or ``keep``), how to edit it later."""
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
        """The text of a used-up prompt: what it said, and the button that was pressed."""
        message = self.interaction.message
        before = message.content if message is not None else ""
        label = discord.utils.escape_markdown(self.label)
        return (f"{before}\n→ {label}" if label else before)[:MAX_MESSAGE]

    async def fail(self) -> None:
        """Tell the user that something went wrong (never raises)."""
        try:
            async with self.guard:
                await self.ephemeral(text("error", self.lang))
        except Exception:
            log.exception("could not tell the user about an error")


class _Turns:
    """First come, first served for one channel: tickets are served in the order taken.

    :meth:`release` is synchronous, so a ticket is released even while its holder is being
    cancelled, and a channel can never get stuck.
    """

    def __init__(self) -> None:
        self._next = 0
        self._serving = 0
        self._released: set[int] = set()
        self._waiters: dict[int, asyncio.Future[None]] = {}

    def take(self) -> int:
        ticket = self._next
        self._next += 1
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
        self._released.add(ticket)
        while self._serving in self._released:
            self._released.discard(self._serving)
            self._serving += 1
        waiter = self._waiters.get(self._serving)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


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

    @property
    def game_number(self) -> int:
        return self.view.game_number


@dataclass(frozen=True, slots=True)
class _Batch:
    """One batch of host events, sorted for sending."""

    channels: tuple[str, ...]
    publics: dict[str, list[str]]
    boards: dict[str, BoardView]
    mine: tuple[Private, ...]
    others: tuple[Private, ...]


def _sort(events: Sequence[Event], inp: Input | None) -> _Batch:
    channels: list[str] = []
    publics: dict[str, list[str]] = {}
    boards: dict[str, BoardView] = {}
    mine: list[Private] = []
    others: list[Private] = []
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
        else:
            publics.setdefault(event.channel, []).append(event.text)
    return _Batch(tuple(channels), publics, boards, tuple(mine), tuple(others))


#: Channel permissions a table needs, by discord.py's names (see :meth:`missing_permissions`).
NEEDED_PERMISSIONS: Final = (
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "read_message_history",
)


def missing_permissions(permissions: discord.Permissions) -> list[str]:
    """The names of :data:`NEEDED_PERMISSIONS` that ``permissions`` lacks.

    >>> missing_permissions(discord.Permissions(send_messages=True, view_channel=True))
    ['embed_links', 'attach_files', 'read_message_history']
    """
    return [name for name in NEEDED_PERMISSIONS if not getattr(permissions, name)]


# -- the client --------------------------------------------------------------------------------


class _DokoTree(app_commands.CommandTree[discord.Client]):
    """A command tree that logs errors and apologises instead of raising."""

    async def on_error(
        self, interaction: discord.Interaction[discord.Client], error: app_commands.AppCommandError
    ) -> None:
        log.error("slash command failed", exc_info=error)
        if interaction.type is discord.InteractionType.autocomplete:
            return
        reply = _Reply(interaction, button=False, consume=False, lang=lang_of(interaction.locale))
        await reply.fail()


SYNC_MODES: Final = ("global", "guild", "off")


class DiscordAdapter(commands.Bot):
    """dokobot on Discord: slash commands and buttons for one host service.

    ``token`` defaults to the environment variable ``DOKOBOT_DISCORD_TOKEN``; it is only read by
    :meth:`serve`. ``restored``: the events of a ``service.start()`` the caller already made,
    sent once logged in; without them (and with ``restore``) the adapter calls
    ``service.start()`` itself. ``admin_role``: members with a role of this name (or id) count
    as admins too, besides those with Manage Server. ``sync_commands`` uploads the slash
    commands (with German names) on start: ``"global"``, ``"guild"`` (to every server the bot
    is in, at once) or ``"off"`` (``True``/``False`` mean global/off). ``board_interval``: at
    most one edit of a board message per this many seconds; ``token_life``: how long an
    interaction can edit its messages (Discord: 15 minutes; "My cards" is kept up to date
    that long). Other keyword arguments go to
    :class:`discord.ext.commands.Bot`.

    The adapter becomes the service's ``listener``; a listener that was set before keeps
    getting every event too (several adapters can share one service). It asks the service
    for boards (``service.boards = True``) when the service has that switch.
    """

    def __init__(
        self,
        service: ServiceLike,
        *,
        token: str | None = None,
        restore: bool = True,
        restored: Sequence[Event] | None = None,
        admin_role: str | None = None,
        sync_commands: bool | str = True,
        defer_after: float = 1.5,
        board_interval: float = 1.0,
        token_life: float = TOKEN_LIFE,
        **options: Any,
    ) -> None:
        options.setdefault("intents", discord.Intents(guilds=True))
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        options.setdefault("help_command", None)
        options.setdefault("tree_cls", _DokoTree)
        super().__init__(command_prefix=commands.when_mentioned, **options)
        self.service = service
        if hasattr(service, "boards"):
            service.boards = True
        self._token = token
        self._restore = restore
        self._restored = None if restored is None else list(restored)
        self._admin_role = admin_role.strip().lower() if admin_role and admin_role.strip() else None
        self._previous_listener: Listener | None = None
        if isinstance(sync_commands, bool):
            sync_commands = "global" if sync_commands else "off"
        if sync_commands not in SYNC_MODES:
            raise ValueError(f"sync_commands must be one of {', '.join(SYNC_MODES)}")
        self._sync_commands = sync_commands
        self._synced_guilds = False
        self._defer_after = defer_after
        self._board_interval = board_interval
        self._token_life = token_life
        users, channels = bounded.CAPS.users, bounded.CAPS.channels
        self._turns: Bounded[str, _Turns] = Bounded(channels)
        self._lang: Bounded[int, str] = Bounded(channels)
        self._user_lang: Bounded[int, str] = Bounded(users)
        """Languages set with /lang here; a forgotten one comes back from the service."""
        self._pending: Bounded[tuple[int, int], Private] = Bounded(users)
        self._notified: Bounded[tuple[int, int], bool] = Bounded(users)
        self._choices: Bounded[tuple[str, str], tuple[Choice, ...]] = Bounded(users)
        self._markers: Bounded[int, tuple[int, int]] = Bounded(channels)
        self._boards: Bounded[int, _BoardMessage] = Bounded(channels)
        self._prompts: Bounded[tuple[int, int], list[_Prompt]] = Bounded(users)
        self._dm_channels: Bounded[int, int] = Bounded(users)
        self._dm_blocked: Bounded[int, float] = Bounded(users, ttl=DM_BLOCKED_FOR)
        self._admins: Bounded[tuple[int, int], bool] = Bounded(users)
        self._prompt_here: Bounded[int, bool] = Bounded(users)
        self._panels: Bounded[tuple[int, int], _Panel] = Bounded(users)
        self._images: Bounded[int, bool] = Bounded(channels)
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} user={self.user!r}>"

    # -- lifecycle -----------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        self.add_dynamic_items(DokoButton)
        await self.tree.set_translator(DokoTranslator())
        await self.add_cog(DokoCommands(self))
        if self.service.listener != self._host_listener:
            self._previous_listener = self.service.listener
            self.service.listener = self._host_listener
        if self._sync_commands == "global":
            await self.sync_commands()
        if self._restored is not None:
            events, self._restored = self._restored, None
            await self.push(events)
        elif self._restore:
            self._restore = False  # once per adapter, not on every login
            try:
                events = await self.service.start()
            except Exception:
                log.exception("restoring the tables failed")
            else:
                await self.push(events)

    async def on_ready(self) -> None:
        if self._sync_commands == "guild" and not self._synced_guilds:
            self._synced_guilds = True
            for guild in self.guilds:
                await self.sync_commands(guild)

    async def sync_commands(self, guild: discord.abc.Snowflake | None = None) -> bool:
        """Upload the slash commands (globally, or to ``guild``); False if Discord refused."""
        try:
            if guild is not None:
                self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        except discord.HTTPException:
            log.exception("could not upload the slash commands")
            return False
        return True

    async def _host_listener(self, events: list[Event]) -> None:
        """The service's listener: this adapter first, then the one that was set before."""
        try:
            await self.push(events)
        finally:
            if self._previous_listener is not None:
                await self._previous_listener(events)

    async def close(self) -> None:
        if self.service.listener == self._host_listener:
            self.service.listener = self._previous_listener
        for board in self._boards.values():
            if board.task is not None:
                board.task.cancel()
        await super().close()

    async def serve(self) -> None:
        """Log in with the token (argument or environment) and run until closed."""
        token = resolve_token(self._token)
        async with self:
            await self.start(token)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("error in Discord event %s", event_method)

    async def wait_idle(self) -> None:
        """Wait until no interaction, pushed batch or board edit is being handled."""
        await self._idle.wait()

    def _enter(self) -> None:
        self._busy += 1
        self._idle.clear()

    def _leave(self) -> None:
        self._busy -= 1
        if self._busy == 0:
            self._idle.set()

    # -- input ---------------------------------------------------------------------------------

    async def run_command(self, interaction: discord.Interaction[Any], command: str) -> None:
        """Handle a slash command that means ``command`` (called by the cog)."""
        await self._handle(interaction, command, table=None)

    async def on_doko_button(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        command: str,
        label: str = "",
        marker: tuple[int, int] | None = None,
    ) -> None:
        """Handle a click on a :class:`DokoButton` (called by the button)."""
        await self._handle(interaction, command, table=table, label=label, marker=marker)

    async def check_permissions(self, interaction: discord.Interaction[Any]) -> bool:
        """Before a table is created: tell the user (ephemerally) which channel permissions
        the bot lacks; True if none."""
        if interaction.guild_id is None:
            return True
        missing = missing_permissions(interaction.app_permissions)
        if not missing:
            return True
        lang = self._user_language(interaction.user.id) or lang_of(interaction.locale)
        names = ", ".join(text("perm_" + name, lang) for name in missing)
        await interaction.response.send_message(
            text("missing_permissions", lang, names=names), ephemeral=True
        )
        return False

    async def set_prompts(self, interaction: discord.Interaction[Any], where: str) -> None:
        """``/prompts dm|here``: where this user's prompts go (answered by the adapter)."""
        user = interaction.user.id
        self._prompt_here[user] = where == "here"
        lang = self._user_language(user) or lang_of(interaction.locale)
        await interaction.response.send_message(text("prompts_" + where, lang), ephemeral=True)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A press of one of our buttons that is no longer on its message (a client showed
        an old copy): discord.py drops it, so it is handled here. Its marker is past, so the
        host refuses it and the user learns that the prompt is no longer current."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        match = None
        if isinstance(custom_id, str):
            match = DokoButton.__discord_ui_compiled_template__.fullmatch(custom_id)
        message = interaction.message
        if match is None or message is None:
            return
        try:
            shown = discord.ui.View.from_message(message, timeout=None).children
        except Exception:  # components this adapter never sends
            return
        if any(getattr(item, "custom_id", None) == custom_id for item in shown):
            return  # discord.py routes it to the DokoButton
        label = discord.ui.Button[discord.ui.View](label=str(match["cmd"]))
        button = await DokoButton.from_custom_id(interaction, label, match)
        await self.on_doko_button(
            interaction, button.table, button.command, button.label, button.marker
        )

    def card_suggestions(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[AppChoice[str]]:
        """Autocomplete for ``/play``: the legal cards of the user's latest turn prompt."""
        try:
            return self._card_suggestions(interaction, current)
        except Exception:
            log.exception("card suggestions failed")
            return []

    def _card_suggestions(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[AppChoice[str]]:
        channel = qualify(interaction.channel_id) if interaction.channel_id else ""
        user = qualify(interaction.user.id)
        choices = self._choices.get((channel, user))
        if choices is None:
            choices = next((c for (_, u), c in self._choices.newest_first() if u == user), ())
        typed = current.strip().lower()
        out: list[AppChoice[str]] = []
        for choice in choices:
            if verb(choice.command) != "play":
                continue
            value = choice.command.split(maxsplit=1)[1] if " " in choice.command else ""
            if value and (typed in value.lower() or typed in choice.label.lower()):
                out.append(AppChoice(name=choice.label[:100] or value, value=value[:100]))
        return out[:25]

    def _input(
        self,
        interaction: discord.Interaction[Any],
        command: str,
        table: int | None,
        marker: tuple[int, int] | None = None,
    ) -> Input:
        user = interaction.user
        dm = interaction.guild_id is None
        channel_id = table or None
        if table is None and not dm:
            channel_id = interaction.channel_id
        return Input(
            channel=qualify(channel_id) if channel_id else "",
            user=qualify(user.id),
            name=user.display_name,
            text=command,
            dm=dm,
            admin=self._is_admin(interaction, channel_id),
            server=f"discord:{interaction.guild_id}" if interaction.guild_id else "",
            marker=marker,
        )

    def _is_admin(self, interaction: discord.Interaction[Any], table: int | None) -> bool:
        """Owner, Manage Server, Administrator or the admin role, from the interaction itself
        (no members intent needed). In a DM: what the user's last interaction in the table's
        channel said."""
        user = interaction.user
        guild = interaction.guild
        if interaction.guild_id is not None and isinstance(user, discord.Member):
            perms = interaction.permissions
            admin = (
                (guild is not None and guild.owner_id == user.id)
                or perms.manage_guild
                or perms.administrator
                or self._has_admin_role(user)
            )
            if interaction.channel_id is not None:
                self._admins[(interaction.channel_id, user.id)] = admin
            return admin
        if table is None:
            return False
        channel = self.get_channel(table)
        guild = getattr(channel, "guild", None)
        if isinstance(guild, discord.Guild) and guild.owner_id == user.id:
            return True
        return self._admins.get((table, user.id), False)

    def _user_language(self, user_id: int) -> str | None:
        """The language ``user_id`` chose with /lang, if any: remembered here, else asked of
        the service (which has it from the store)."""
        lang = self._user_lang.get(user_id)
        if lang is None:
            language_of = getattr(self.service, "language_of", None)
            lang = language_of(qualify(user_id)) if callable(language_of) else None
            if isinstance(lang, str):
                self._user_lang[user_id] = lang
        return lang if isinstance(lang, str) else None

    def _has_admin_role(self, member: discord.Member) -> bool:
        role = self._admin_role
        return role is not None and any(
            r.name.lower() == role or str(r.id) == role for r in member.roles
        )

    def _turns_of(self, channel: str) -> _Turns:
        turns = self._turns.get(channel)
        if turns is None:
            turns = self._turns[channel] = _Turns()
        return turns

    async def _handle(
        self,
        interaction: discord.Interaction[Any],
        command: str,
        table: int | None,
        label: str = "",
        marker: tuple[int, int] | None = None,
    ) -> None:
        self._enter()
        button = table is not None
        reply = _Reply(
            interaction,
            button=button,
            consume=button and verb(command) in CONSUMING,
            lang=self._user_language(interaction.user.id) or lang_of(interaction.locale),
            label=label,
            life=self._token_life,
        )
        deferrer: asyncio.Task[None] | None = None
        try:
            creating = verb(command) in ("join", "start") and not button
            if creating and not await self.check_permissions(interaction):
                return
            inp = self._input(interaction, command, table, marker)
            deferrer = asyncio.create_task(self._defer_later(reply))
            events = await self.service.handle(inp)
            self._note(inp, events)
            await self._deliver(events, reply, inp, deferrer)
        except Exception:
            log.exception("handling %r failed", command)
            await reply.fail()
        finally:
            if deferrer is not None:
                deferrer.cancel()
            self._leave()

    async def _defer_later(self, reply: _Reply) -> None:
        try:
            await asyncio.sleep(self._defer_after)
            async with reply.guard:
                await reply.defer()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not defer an interaction")

    def _note(self, inp: Input, events: Sequence[Event]) -> None:
        """Learn from an accepted command: languages, a used-up pending prompt."""
        refused = any(
            isinstance(e, Private) and e.reply and e.user == inp.user and e.kind == "error"
            for e in events
        )
        if refused:
            return
        table = snowflake_of(inp.channel)
        user = snowflake_of(inp.user)
        words = inp.text.lower().split()
        word = verb(inp.text)
        value = words[-1] if words and words[-1] in ("de", "en") else None
        if word == "lang" and len(words) == 2 and value and user is not None:
            self._user_lang[user] = value
        if word == "option" and words[1:2] == ["language"] and value and table is not None:
            self._lang[table] = value
        if word in CONSUMING and user is not None:
            for key in [k for k in self._pending if k[1] == user and table in (None, k[0])]:
                del self._pending[key]
            self._choices.pop((inp.channel, inp.user), None)

    # -- output --------------------------------------------------------------------------------

    async def push(self, events: list[Event]) -> None:
        """Send events that answer no interaction (the host's listener; never raises)."""
        self._enter()
        try:
            await self._deliver(events, None, None)
        except Exception:
            log.exception("sending pushed events failed")
        finally:
            self._leave()

    def _learn(self, batch: _Batch) -> None:
        for channel, view in batch.boards.items():
            channel_id = snowflake_of(channel)
            if channel_id is not None:
                self._markers[channel_id] = view.marker
                self._lang[channel_id] = view.language
                self._images[channel_id] = view.images

    def _absorbed(self, channel: str, batch: _Batch) -> bool:
        """Whether the channel's texts of ``batch`` go onto its board (not a new message)."""
        view = batch.boards.get(channel)
        channel_id = snowflake_of(channel)
        if view is None or channel_id is None:
            return False
        current = self._boards.get(channel_id)
        if current is not None and current.game_number == view.game_number:
            return not current.result_posted and not view.finished
        return not view.finished

    async def _deliver(
        self,
        events: Sequence[Event],
        reply: _Reply | None,
        inp: Input | None,
        deferrer: asyncio.Task[None] | None = None,
    ) -> None:
        """Send one batch of host events.

        An interaction is answered first (nothing else is sent before it, so a rate-limited
        channel cannot delay it). Then each channel gets its messages, in the order the host
        made the batches: the caller must call this right after getting ``events``, before
        awaiting anything else (it takes its turns before its first ``await``). DMs go last;
        they need no order between batches. Finally prompts that are no longer current lose
        their buttons.
        """
        batch = _sort(events, inp)
        self._learn(batch)
        tickets = {channel: self._turns_of(channel).take() for channel in batch.channels}
        rest: dict[str, list[str]] = {}  # message pieces left after a public response
        try:
            if reply is not None and inp is not None:
                async with reply.guard:
                    if deferrer is not None:
                        deferrer.cancel()
                    await self._answer(batch, reply, inp, rest, tickets)
            for channel in batch.channels:
                ticket = tickets[channel]
                await self._turns_of(channel).wait(ticket)
                try:
                    texts = batch.publics.get(channel, [])
                    await self._guarded(
                        self._send_channel(channel, texts, batch, rest.get(channel))
                    )
                finally:
                    self._turns_of(channel).release(tickets.pop(channel))
        finally:
            for channel, ticket in tickets.items():
                self._turns_of(channel).release(ticket)
        for private in batch.others:
            await self._guarded(self._send_dm(private, reply))
        for channel in batch.boards:
            channel_id = snowflake_of(channel)
            if channel_id is not None:
                await self._strip_superseded(channel_id)

    async def _answer(
        self,
        batch: _Batch,
        reply: _Reply,
        inp: Input,
        rest: dict[str, list[str]],
        tickets: dict[str, int],
    ) -> None:
        """Answer the interaction: its replies, the used-up prompt, or a public message (then
        ``rest`` gets the message pieces of that channel still to send)."""
        if any(e.kind == "error" for e in batch.mine):
            reply.error = True
        if reply.button and reply.consume and not reply.error:
            await self._guarded(reply.use_up())
            message = reply.interaction.message
            if message is not None:
                self._forget_prompt(message.id)
        table = snowflake_of(inp.channel)
        if reply.button and verb(inp.text) == "hand" and not reply.error and table:
            await self._guarded(self._open_panel(batch.mine, reply, table))
        else:
            for event in batch.mine:
                await self._guarded(self._send_reply(event, reply))
        channel_id = reply.channel_id
        if reply.open and not reply.button and channel_id is not None:
            channel = qualify(channel_id)
            texts = batch.publics.get(channel)
            if (
                texts
                and channel in tickets
                and self._turns_of(channel).ready(tickets[channel])
                and not self._absorbed(channel, batch)
                and channel_id not in self._boards_shown()
            ):
                pieces = join_texts(texts)
                if pieces:
                    view = self._hand_view(channel_id) if len(pieces) == 1 else None
                    if channel_id in self._boards:
                        view = None
                    await self._guarded(reply.public(pieces[0], view))
                    rest[channel] = pieces[1:]
        await self._guarded(reply.finish())

    def _boards_shown(self) -> set[int]:
        """Channels whose current game has a board message (their texts need no button)."""
        return {c for c, b in self._boards.items() if not b.result_posted}

    async def _guarded(self, sending: Awaitable[Any]) -> None:
        """One message that Discord refuses must not stop the others."""
        try:
            await sending
        except discord.HTTPException as exc:
            log.warning("Discord refused a message: %s %s", exc.status, exc.text)

    def channel_lang(self, channel_id: int) -> str:
        """The language of the adapter's own words in a channel."""
        lang = self._lang.get(channel_id)
        if lang is not None:
            return lang
        channel = self.get_channel(channel_id)
        guild = getattr(channel, "guild", None)
        if isinstance(guild, discord.Guild):
            return lang_of(guild.preferred_locale)
        return "en"

    def _hand_view(self, channel_id: int) -> discord.ui.View:
        return table_view(channel_id, text("my_hand", self.channel_lang(channel_id)))

    async def _send_channel(
        self, channel: str, texts: list[str], batch: _Batch, pieces: list[str] | None = None
    ) -> None:
        """The channel's part of ``batch``: its board, or ``texts`` as messages (``pieces``:
        the messages still to send when a public response took the first one)."""
        channel_id = snowflake_of(channel)
        if channel_id is None:
            log.debug("public event for a non-Discord channel %r skipped", channel)
            return
        view = batch.boards.get(channel)
        if view is not None and self._absorbed(channel, batch):
            await self._show_board(channel_id, view, texts)
            return
        if view is not None:
            board = self._boards.get(channel_id)
            if board is not None and board.game_number == view.game_number:
                if not board.result_posted and view.finished:
                    board.result_posted = True
                    self._board_changed(board, view, [])
            elif view.finished:  # a finished game the adapter never showed (a restart)
                self._boards[channel_id] = _BoardMessage(channel_id, view, result_posted=True)
        target = self.get_partial_messageable(channel_id)
        if pieces is None:
            pieces = join_texts(texts)
        with_button = channel_id not in self._boards
        for n, piece in enumerate(pieces):
            if with_button and n == len(pieces) - 1:
                await target.send(piece, view=self._hand_view(channel_id))
            else:
                await target.send(piece)

    # -- the board -----------------------------------------------------------------------------

    async def _show_board(self, channel_id: int, view: BoardView, texts: list[str]) -> None:
        board = self._boards.get(channel_id)
        if board is None or board.game_number != view.game_number:
            board = _BoardMessage(channel_id, view, news=[t for t in texts if t.strip()][-NEWS:])
            self._boards[channel_id] = board
            await self._post_board(board)  # in the channel's turn: a new game is news
            return
        self._board_changed(board, view, texts)

    async def _post_board(self, board: _BoardMessage) -> None:
        """Send the board message (with "My cards"); on failure the next change retries."""
        embed, file = self._board_payload(board)
        kwargs: dict[str, Any] = {"embed": embed, "view": self._hand_view(board.channel_id)}
        if file is not None:
            kwargs["file"] = file
        message = await self.get_partial_messageable(board.channel_id).send(**kwargs)
        board.message_id = message.id
        board.last_edit = asyncio.get_running_loop().time()

    def _board_changed(self, board: _BoardMessage, view: BoardView, texts: list[str]) -> None:
        """Note a new state of ``board``; an editor task shows the latest one, at most one
        edit per ``board_interval``."""
        board.view = view
        board.news = [*board.news, *(t for t in texts if t.strip())][-NEWS:]
        board.dirty = True
        if board.task is None or board.task.done():
            self._enter()
            board.task = asyncio.create_task(self._edit_board(board))

    async def _edit_board(self, board: _BoardMessage) -> None:
        loop = asyncio.get_running_loop()
        try:
            while board.dirty:
                wait = board.last_edit + self._board_interval - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                board.dirty = False
                try:
                    if board.message_id is None:
                        await self._post_board(board)
                        continue
                    embed, file = self._board_payload(board)
                    message = self.get_partial_messageable(board.channel_id).get_partial_message(
                        board.message_id
                    )
                    await message.edit(embed=embed, attachments=[] if file is None else [file])
                    board.edits += 1
                except discord.HTTPException as exc:
                    log.warning("could not show the board: %s %s", exc.status, exc.text)
                board.last_edit = loop.time()
        except Exception:
            log.exception("editing the board failed")
        finally:
            self._leave()

    def _board_payload(self, board: _BoardMessage) -> tuple[discord.Embed, discord.File | None]:
        view = board.view
        lang = view.language
        picture = view.images and bool(view.trick or view.last_trick)
        embed = board_embed(view, board.news, lang, picture=picture)
        if not picture:
            return embed, None
        cards = [c for _, c in (view.trick or view.last_trick)]
        png = trick_png(tuple(cards), lang)
        return embed, discord.File(io.BytesIO(png), filename=TABLE_PICTURE)

    # -- private messages ----------------------------------------------------------------------

    def _table_of(self, event: Private, inp: Input | None = None) -> int:
        table = snowflake_of(event.channel)
        if table is None and inp is not None:
            table = snowflake_of(inp.channel)
        return table or 0

    def _remember(self, event: Private, table: int) -> None:
        if any(verb(c.command) == "play" for c in event.choices):
            self._choices[(qualify(table) if table else "", event.user)] = event.choices

    def _marker_of(self, table: int, event: Private) -> tuple[int, int] | None:
        return self._markers.get(table) if event.choices else None

    async def _send_reply(self, event: Private, reply: _Reply, table: int | None = None) -> None:
        if event.kind == "error":
            reply.error = True
        if table is None:
            table = self._table_of(event)
        self._remember(event, table)
        marker = self._marker_of(table, event)
        view = choices_view(table, event.choices, marker)
        if view is not None:
            reply.shown_choices = True
        pieces, file = render(event)
        if file is not None:
            await reply.ephemeral(None, file=file)
        sent: _Sent | None = None
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            got = await reply.ephemeral(piece, view if last else None)
            sent = got if last else sent
        if not pieces and view is not None:
            sent = await reply.ephemeral(None, view)
        if sent is not None and table:
            self._add_prompt(
                table, reply.user_id, _Prompt(marker, sent.message_id, sent.strip, reply.expires)
            )

    def _panel_payload(
        self, table: int, user_id: int, events: Sequence[Private], expires: float
    ) -> tuple[str, discord.ui.View | None, discord.File | None, tuple[int, int] | None]:
        """Content, buttons and picture of a "My cards" panel showing ``events``."""
        prompt = next((e for e in reversed(events) if e.choices), None)
        hand = next((e.hand for e in reversed(events) if e.hand), ())
        lang = self._user_language(user_id) or self.channel_lang(table)
        until = datetime.now(UTC) + timedelta(seconds=expires - asyncio.get_running_loop().time())
        texts = [format_text(e.text) for e in events if e.text.strip()]
        texts.append("*" + text("panel_until", lang, time=until.strftime("%H:%M UTC")) + "*")
        content = "\n".join(texts)[:MAX_MESSAGE]
        marker = self._markers.get(table) if prompt is not None else None
        view = choices_view(table, prompt.choices, marker) if prompt is not None else None
        file = None
        if hand and self._images.get(table, True):
            png = hand_png(hand, self.channel_lang(table))
            file = discord.File(io.BytesIO(png), filename=HAND_PICTURE)
        return content, view, file, marker

    async def _open_panel(self, mine: Sequence[Private], reply: _Reply, table: int) -> None:
        """ "My cards": one ephemeral message with the hand (a picture and text) and, on the
        user's turn, the buttons of the legal cards and calls (also a prompt that a blocked
        DM could not bring). It is kept up to date while its token is valid."""
        user_id = reply.user_id
        events = list(mine)
        pending = self._pending.get((table, user_id))
        if pending is not None and not any(e.choices for e in events):
            events.append(pending)
        for event in events:
            self._remember(event, table)
        content, view, file, marker = self._panel_payload(table, user_id, events, reply.expires)
        reply.shown_choices = view is not None
        sent = await reply.ephemeral(content, view, file, keep=True)
        if sent is None:
            return
        self._panels[(table, user_id)] = _Panel(sent, reply.expires)
        if view is not None:
            self._add_prompt(
                table, user_id, _Prompt(marker, sent.message_id, sent.strip, reply.expires)
            )

    async def _update_panel(self, event: Private) -> bool:
        """Show ``event`` in its user's live "My cards" panel; False if there is none."""
        table = snowflake_of(event.channel)
        user_id = snowflake_of(event.user)
        if table is None or user_id is None or event.kind not in PANEL_KINDS:
            return False
        panel = self._panels.get((table, user_id))
        if panel is None:
            return False
        if panel.expires <= asyncio.get_running_loop().time():
            del self._panels[(table, user_id)]
            return False
        self._remember(event, table)
        content, view, file, marker = self._panel_payload(table, user_id, [event], panel.expires)
        sent = panel.sent
        await sent.edit(content=content, view=view, attachments=[] if file is None else [file])
        if view is not None:
            self._add_prompt(
                table, user_id, _Prompt(marker, sent.message_id, sent.strip, panel.expires, event)
            )
        return True

    async def _dm(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel of ``user_id``, opened once and kept (discord.py keeps only 128)."""
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            data = await self.http.start_private_message(user_id)
            channel_id = self._dm_channels[user_id] = int(data["id"])
        return self.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def _send_dm(self, event: Private, reply: _Reply | None) -> None:
        user_id = snowflake_of(event.user)
        if user_id is None:
            log.debug("private event for a non-Discord user %r dropped", event.user)
            return
        table = self._table_of(event)
        self._remember(event, table)
        try:
            shown = await self._update_panel(event)
        except discord.HTTPException as exc:
            log.info("could not update a My cards panel: %s %s", exc.status, exc.text)
            shown = False
        if shown and (self._prompt_here.get(user_id) or not event.choices):
            return
        loop = asyncio.get_running_loop()
        if self._dm_blocked.get(user_id, 0.0) > loop.time():
            await self._dm_refused(event, user_id, table, reply)
            return
        pieces, file = render(event)
        marker = self._marker_of(table, event)
        view = choices_view(table, event.choices, marker)
        try:
            dm = await self._dm(user_id)
            if file is not None:
                await dm.send(file=file)
            message: discord.Message | None = None
            for n, piece in enumerate(pieces):
                if view is not None and n == len(pieces) - 1:
                    message = await dm.send(piece, view=view)
                else:
                    await dm.send(piece)
            if not pieces and view is not None:
                message = await dm.send(view=view)
        except discord.Forbidden as exc:
            log.info("DM to %s refused (%s)", user_id, exc.code)
            self._dm_blocked[user_id] = loop.time() + DM_BLOCKED_FOR
            await self._dm_refused(event, user_id, table, reply)
        else:
            self._pending.pop((table, user_id), None)
            for key in [k for k in self._notified if k[1] == user_id]:
                del self._notified[key]
            if message is not None and table:
                sent = message
                self._add_prompt(
                    table,
                    user_id,
                    _Prompt(marker, sent.id, lambda: sent.edit(view=None), float("inf"), event),
                )

    async def _dm_refused(
        self, event: Private, user_id: int, table: int, reply: _Reply | None
    ) -> None:
        if event.choices and table:
            self._pending[(table, user_id)] = event
        if reply is not None and reply.user_id == user_id:
            await self._send_reply(event, reply, table)
            return
        if not table or (table, user_id) in self._notified:
            return
        self._notified[(table, user_id)] = True
        lang = self.channel_lang(table)
        await self.get_partial_messageable(table).send(
            text("dm_blocked", lang, mention=f"<@{user_id}>"),
            view=self._hand_view(table),
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=user_id)]
            ),
        )

    # -- superseded prompts --------------------------------------------------------------------

    def _add_prompt(self, table: int, user_id: int, prompt: _Prompt) -> None:
        """Remember a prompt; older prompts of the same user at the table are superseded,
        except copies of the same decision (a DM and the "My cards" panel)."""
        kept: list[_Prompt] = []
        older: list[_Prompt] = []
        for p in self._prompts.get((table, user_id), []):
            if p.message_id == prompt.message_id:
                continue
            same = (prompt.marker is not None and p.marker == prompt.marker) or (
                prompt.source is not None and p.source is prompt.source
            )
            (kept if same else older).append(p)
        self._prompts[(table, user_id)] = [*kept, prompt]
        if older:
            self._enter()
            asyncio.get_running_loop().create_task(self._strip(older))

    def _forget_prompt(self, message_id: int) -> None:
        for key, prompts in list(self._prompts.items()):
            kept = [p for p in prompts if p.message_id != message_id]
            if kept:
                self._prompts[key] = kept
            else:
                del self._prompts[key]

    async def _strip_superseded(self, table: int) -> None:
        """Take the buttons off every prompt at ``table`` whose decision is past."""
        current = self._markers.get(table)
        stale: list[_Prompt] = []
        for key in [k for k in self._prompts if k[0] == table]:
            prompts = self._prompts[key]
            old = [p for p in prompts if p.marker is not None and p.marker != current]
            if old:
                stale += old
                kept = [p for p in prompts if p not in old]
                if kept:
                    self._prompts[key] = kept
                else:
                    del self._prompts[key]
        if stale:
            self._enter()
            await self._strip(stale)

    async def _strip(self, prompts: list[_Prompt]) -> None:
        try:
            now = asyncio.get_running_loop().time()
            for prompt in prompts:
                if prompt.expires > now:
                    await self._guarded(prompt.strip())
        except Exception:
            log.exception("could not take the buttons off a prompt")
        finally:
            self._leave()


class ShardedDiscordAdapter(DiscordAdapter, commands.AutoShardedBot):
    """:class:`DiscordAdapter` on an :class:`~discord.AutoShardedClient` (big bots)."""


def resolve_token(token: str | None = None) -> str:
    """The bot token: ``token`` if given, else ``$DOKOBOT_DISCORD_TOKEN``."""
    token = token or os.environ.get(TOKEN_ENV, "")
    token = token.strip()
    if not token:
        raise RuntimeError(f"no Discord token: set the environment variable {TOKEN_ENV}")
    return token


def create_adapter(
    service: ServiceLike, *, sharded: bool = False, **options: Any
) -> DiscordAdapter:
    """A :class:`DiscordAdapter`, or a :class:`ShardedDiscordAdapter` if ``sharded``."""
    cls = ShardedDiscordAdapter if sharded else DiscordAdapter
    return cls(service, **options)


def shard_options(shard_count: int | None, shard_ids: Sequence[int] | None) -> dict[str, Any]:
    """The options of :class:`ShardedDiscordAdapter` for these shards.

    >>> shard_options(4, [1, 3]), shard_options(None, None)
    ({'shard_count': 4, 'shard_ids': [1, 3]}, {})
    """
    options: dict[str, Any] = {}
    if shard_count is not None:
        options["shard_count"] = shard_count
        if shard_ids is not None:
            options["shard_ids"] = list(shard_ids)
    return options


async def run_discord(
    service: ServiceLike,
    token: str | None = None,
    *,
    sharded: bool = False,
    restored: Sequence[Event] | None = None,
    admin_role: str | None = None,
    sync_commands: str = "global",
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> None:
    """Run dokobot on Discord until cancelled or closed (for the command line).

    The token comes from ``token`` or the environment variable ``DOKOBOT_DISCORD_TOKEN``.
    ``restored`` are the events of the ``service.start()`` the caller made (``dokobot run``
    starts the service once for all adapters); without them the adapter calls
    ``service.start()`` itself. The caller owns ``service`` and closes it afterwards.
    ``shard_count`` and ``shard_ids``: the gateway shards of this process (one of several
    processes of a big bot; see README "Scale").
    """
    adapter = create_adapter(
        service,
        sharded=sharded or shard_count is not None,
        **shard_options(shard_count, shard_ids),
        token=resolve_token(token),
        restored=restored,
        admin_role=admin_role,
        sync_commands=sync_commands,
    )
    await adapter.serve()


class _NoTables:
    """A service without tables, for :func:`sync_discord`."""

    listener: Listener | None = None

    async def handle(self, inp: Input) -> list[Event]:
        return []

    async def start(self) -> list[Event]:
        return []

    async def close(self) -> None:
        return None


async def sync_discord(
    token: str | None = None, *, scope: str = "global", guilds: Sequence[int] = ()
) -> list[str]:
    """``dokobot sync``: log in, upload the slash commands, log out (no gateway).

    ``scope`` ``"global"`` uploads them for every server (Discord may take a while to show
    them); ``"guild"`` to ``guilds``, or to every server the bot is in (at once).
    Returns one line per upload: ``"global"``, ``"guild ID"`` or ``"failed …"``.
    """
    adapter = DiscordAdapter(_NoTables(), token=token, restore=False, sync_commands="off")
    done: list[str] = []
    async with adapter:
        await adapter.login(resolve_token(token))
        if scope == "global":
            done.append("global" if await adapter.sync_commands() else "failed: global")
            return done
        ids = list(guilds) or [g.id async for g in adapter.fetch_guilds(limit=None)]
        for guild_id in ids:
            ok = await adapter.sync_commands(discord.Object(id=guild_id))
            done.append(f"guild {guild_id}" if ok else f"failed: guild {guild_id}")
    return done
