"""The Discord client: interactions in, host events out.

Routing of the host's events (see :mod:`dokobot.host.events`):

* :class:`Public` -> a message in its channel. For a slash command in that channel the first
  one is the interaction's own (public) response. The last public message of each batch per
  channel carries the persistent "My hand" button.
* :class:`Private` with ``reply=True`` for the user who interacted -> an ephemeral response or
  follow-up (flags 64), with its ``choices`` as buttons.
* any other :class:`Private` -> a DM with the choices as buttons. If Discord refuses the DM
  (403, code 50007), the prompt is kept, the user gets it ephemerally the next time they
  interact, and the table channel gets a notice (once) telling them to press "My hand".

Every interaction is answered within Discord's 3 seconds: when the host (or the table's lock)
takes longer than ``defer_after`` seconds the interaction is deferred and answered by
follow-ups. No exception escapes to discord.py: it is logged and the user is told that
something went wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import discord
from discord import app_commands
from discord.app_commands import Choice as AppChoice
from discord.ext import commands

from dokobot.adapters.discord.buttons import DokoButton, choices_view, table_view, verb
from dokobot.adapters.discord.i18n import DokoTranslator, lang_of, text
from dokobot.adapters.discord.slash import DokoCommands
from dokobot.host.events import Choice, Event, Input, Private, Public

log = logging.getLogger(__name__)

TOKEN_ENV: Final = "DOKOBOT_DISCORD_TOKEN"
ID_PREFIX: Final = "discord:"
MAX_MESSAGE: Final = 2000
EPHEMERAL: Final = 64

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

    @property
    def user_id(self) -> int:
        return self.interaction.user.id

    @property
    def channel_id(self) -> int | None:
        return self.interaction.channel_id

    @property
    def open(self) -> bool:
        return not self.interaction.response.is_done()

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
    ) -> None:
        kwargs: dict[str, Any] = {"ephemeral": True}
        if view is not None:
            kwargs["view"] = view
        if file is not None:
            kwargs["file"] = file
        if self.open:
            await self.interaction.response.send_message(content, **kwargs)
        else:
            await self.interaction.followup.send(content or "", **kwargs)
            self.followups += 1

    async def public(self, channel_id: int, content: str, view: discord.ui.View | None) -> bool:
        """Answer a slash command with a public message in its channel, if still possible."""
        if not self.open or self.button or self.channel_id != channel_id:
            return False
        if view is None:
            await self.interaction.response.send_message(content)
        else:
            await self.interaction.response.send_message(content, view=view)
        return True

    async def finish(self) -> None:
        """Make sure the interaction is answered, and use up a prompt's buttons."""
        interaction = self.interaction
        used_up = self.consume and not self.error
        if self.open:
            if self.button:
                if used_up:
                    await interaction.response.edit_message(content=self._used(), view=None)
                else:
                    await interaction.response.defer()
            else:
                await interaction.response.send_message(text("done", self.lang), ephemeral=True)
        elif self.deferred:
            if self.button:
                if used_up:
                    await interaction.edit_original_response(content=self._used(), view=None)
            elif self.followups == 0:
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


class DiscordAdapter(commands.Bot):
    """dokobot on Discord: slash commands and buttons for one host service.

    ``token`` defaults to the environment variable ``DOKOBOT_DISCORD_TOKEN``; it is only read by
    :meth:`serve`. ``restored``: the events of a ``service.start()`` the caller already made,
    sent once logged in; without them (and with ``restore``) the adapter calls
    ``service.start()`` itself. ``admin_role``: members with a role of this name (or id) count
    as admins too, besides those with Manage Server. ``sync_commands`` uploads the slash
    commands (with German names) on start. Other keyword arguments go to
    :class:`discord.ext.commands.Bot`.

    The adapter becomes the service's ``listener``; a listener that was set before keeps
    getting every event too (several adapters can share one service).
    """

    def __init__(
        self,
        service: ServiceLike,
        *,
        token: str | None = None,
        restore: bool = True,
        restored: Sequence[Event] | None = None,
        admin_role: str | None = None,
        sync_commands: bool = True,
        defer_after: float = 1.5,
        **options: Any,
    ) -> None:
        options.setdefault("intents", discord.Intents(guilds=True))
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        options.setdefault("help_command", None)
        options.setdefault("tree_cls", _DokoTree)
        super().__init__(command_prefix=commands.when_mentioned, **options)
        self.service = service
        self._token = token
        self._restore = restore
        self._restored = None if restored is None else list(restored)
        self._admin_role = admin_role.strip().lower() if admin_role and admin_role.strip() else None
        self._previous_listener: Listener | None = None
        self._sync_commands = sync_commands
        self._defer_after = defer_after
        self._turns: dict[str, _Turns] = {}
        self._lang: dict[int, str] = {}
        self._user_lang: dict[int, str] = {}
        self._pending: dict[tuple[int, int], Private] = {}
        self._notified: set[tuple[int, int]] = set()
        self._choices: dict[tuple[str, str], tuple[Choice, ...]] = {}
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
        if self._sync_commands:
            try:
                await self.tree.sync()
            except discord.HTTPException:
                log.exception("could not upload the slash commands")
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
        await super().close()

    async def serve(self) -> None:
        """Log in with the token (argument or environment) and run until closed."""
        token = resolve_token(self._token)
        async with self:
            await self.start(token)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        log.exception("error in Discord event %s", event_method)

    async def wait_idle(self) -> None:
        """Wait until no interaction or pushed batch is being handled."""
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
        self, interaction: discord.Interaction[Any], table: int, command: str, label: str = ""
    ) -> None:
        """Handle a click on a :class:`DokoButton` (called by the button)."""
        await self._handle(interaction, command, table=table, label=label)

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
            choices = next((c for (_, u), c in reversed(self._choices.items()) if u == user), ())
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
        self, interaction: discord.Interaction[Any], command: str, table: int | None
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
        )

    def _is_admin(self, interaction: discord.Interaction[Any], table: int | None) -> bool:
        user = interaction.user
        guild = interaction.guild
        if guild is not None and isinstance(user, discord.Member):
            perms = interaction.permissions
            return (
                guild.owner_id == user.id
                or perms.manage_guild
                or perms.administrator
                or self._has_admin_role(user)
            )
        if table is not None:
            channel = self.get_channel(table)
            guild = getattr(channel, "guild", None)
            if isinstance(guild, discord.Guild):
                if guild.owner_id == user.id:
                    return True
                member = guild.get_member(user.id)
                if member is not None:
                    perms = member.guild_permissions
                    return perms.manage_guild or perms.administrator or self._has_admin_role(member)
        return False

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
    ) -> None:
        self._enter()
        button = table is not None
        reply = _Reply(
            interaction,
            button=button,
            consume=button and verb(command) in CONSUMING,
            lang=self._user_lang.get(interaction.user.id) or lang_of(interaction.locale),
            label=label,
        )
        deferrer: asyncio.Task[None] | None = None
        try:
            inp = self._input(interaction, command, table)
            deferrer = asyncio.create_task(self._defer_later(reply))
            events = await self.service.handle(inp)
            self._note(inp, events)
            await self._deliver(events, reply, inp)
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

    async def _deliver(
        self, events: Sequence[Event], reply: _Reply | None, inp: Input | None
    ) -> None:
        """Send one batch of host events.

        The public texts of a channel become one message (Discord rate-limits channels), and
        batches reach a channel in the order the host produced them: the caller must call this
        right after getting ``events``, before awaiting anything else (it takes its turn
        before its first ``await``). DMs go last; they need no order between batches.
        """
        publics: dict[str, list[str]] = {}
        order: list[str | Private] = []
        for event in events:
            if isinstance(event, Public):
                if event.channel not in publics:
                    publics[event.channel] = []
                    order.append(event.channel)
                publics[event.channel].append(event.text)
            else:
                order.append(event)
        tickets = {channel: self._turns_of(channel).take() for channel in publics}
        pushed: list[Private] = []
        try:
            for channel, ticket in tickets.items():  # (the deferrer may answer meanwhile)
                await self._turns_of(channel).wait(ticket)
            async with contextlib.AsyncExitStack() as stack:
                if reply is not None:
                    await stack.enter_async_context(reply.guard)
                for item in order:
                    if isinstance(item, str):
                        try:
                            await self._guarded(self._send_public(item, publics[item], reply))
                        finally:
                            self._turns_of(item).release(tickets.pop(item))
                    elif reply is not None and inp is not None and item.reply:
                        if item.user == inp.user:
                            await self._guarded(self._send_reply(item, reply))
                        else:
                            pushed.append(item)
                    else:
                        pushed.append(item)
                if reply is not None:
                    if inp is not None and reply.button and verb(inp.text) == "hand":
                        await self._guarded(self._show_pending(reply, inp))
                    await reply.finish()
        finally:
            for channel, ticket in tickets.items():
                self._turns_of(channel).release(ticket)
        for private in pushed:
            await self._guarded(self._send_dm(private, reply))

    async def _guarded(self, sending: Awaitable[None]) -> None:
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

    async def _send_public(self, channel: str, texts: list[str], reply: _Reply | None) -> None:
        channel_id = snowflake_of(channel)
        if channel_id is None:
            log.debug("public event for a non-Discord channel %r skipped", channel)
            return
        pieces = join_texts(texts)
        view = table_view(channel_id, text("my_hand", self.channel_lang(channel_id)))
        target = self.get_partial_messageable(channel_id)
        for n, piece in enumerate(pieces):
            piece_view = view if n == len(pieces) - 1 else None
            if reply is not None and await reply.public(channel_id, piece, piece_view):
                continue
            if piece_view is None:
                await target.send(piece)
            else:
                await target.send(piece, view=piece_view)

    def _table_of(self, event: Private, inp: Input | None = None) -> int:
        table = snowflake_of(event.channel)
        if table is None and inp is not None:
            table = snowflake_of(inp.channel)
        return table or 0

    def _remember(self, event: Private, table: int) -> None:
        if any(verb(c.command) == "play" for c in event.choices):
            self._choices[(qualify(table) if table else "", event.user)] = event.choices

    async def _send_reply(self, event: Private, reply: _Reply, table: int | None = None) -> None:
        if event.kind == "error":
            reply.error = True
        if table is None:
            table = self._table_of(event)
        self._remember(event, table)
        view = choices_view(table, event.choices)
        if view is not None:
            reply.shown_choices = True
        pieces, file = render(event)
        if file is not None:
            await reply.ephemeral(None, file=file)
        for n, piece in enumerate(pieces):
            await reply.ephemeral(piece, view if n == len(pieces) - 1 else None)
        if not pieces and view is not None:
            await reply.ephemeral(None, view)

    async def _show_pending(self, reply: _Reply, inp: Input) -> None:
        """After "My hand": show a prompt that could not be sent by DM."""
        table = snowflake_of(inp.channel)
        if table is None or reply.shown_choices:
            return
        pending = self._pending.get((table, reply.user_id))
        if pending is not None:
            await self._send_reply(pending, reply, table)

    async def _send_dm(self, event: Private, reply: _Reply | None) -> None:
        user_id = snowflake_of(event.user)
        if user_id is None:
            log.debug("private event for a non-Discord user %r dropped", event.user)
            return
        table = self._table_of(event)
        self._remember(event, table)
        pieces, file = render(event)
        view = choices_view(table, event.choices)
        try:
            dm = await self.create_dm(discord.Object(id=user_id))
            if file is not None:
                await dm.send(file=file)
            for n, piece in enumerate(pieces):
                if view is not None and n == len(pieces) - 1:
                    await dm.send(piece, view=view)
                else:
                    await dm.send(piece)
            if not pieces and view is not None:
                await dm.send(view=view)
        except discord.Forbidden as exc:
            log.info("DM to %s refused (%s)", user_id, exc.code)
            await self._dm_refused(event, user_id, table, reply)
        else:
            self._pending.pop((table, user_id), None)
            self._notified = {k for k in self._notified if k[1] != user_id}

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
        self._notified.add((table, user_id))
        lang = self.channel_lang(table)
        await self.get_partial_messageable(table).send(
            text("dm_blocked", lang, mention=f"<@{user_id}>"),
            view=table_view(table, text("my_hand", lang)),
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=user_id)]
            ),
        )


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


async def run_discord(
    service: ServiceLike,
    token: str | None = None,
    *,
    sharded: bool = False,
    restored: Sequence[Event] | None = None,
    admin_role: str | None = None,
) -> None:
    """Run dokobot on Discord until cancelled or closed (for the command line).

    The token comes from ``token`` or the environment variable ``DOKOBOT_DISCORD_TOKEN``.
    ``restored`` are the events of the ``service.start()`` the caller made (``dokobot run``
    starts the service once for all adapters); without them the adapter calls
    ``service.start()`` itself. The caller owns ``service`` and closes it afterwards.
    """
    adapter = create_adapter(
        service,
        sharded=sharded,
        token=resolve_token(token),
        restored=restored,
        admin_role=admin_role,
    )
    await adapter.serve()
