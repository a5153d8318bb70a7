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

The adapter is the composition; its parts with their own state are objects it holds
(:mod:`.order`, :mod:`.threads`, :mod:`.lobby_messages`, :mod:`.languages`,
:mod:`.settings`, :mod:`.checks`, :mod:`.upload`, :mod:`.budget`, :mod:`.board_messages`,
:mod:`.notify`, :mod:`.decisions`, :mod:`.delivery`, :mod:`.handed` with :mod:`.handoff`;
see docs/development.md).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Coroutine, Sequence
from typing import Any, Final

import discord
from discord import app_commands
from discord.app_commands import Choice as AppChoice
from discord.ext import commands

from dokobot import bounded
from dokobot.adapters.discord.board_messages import BOARD_INTERVAL, BoardMessages
from dokobot.adapters.discord.budget import BOT_WIDE_RPS, RequestBudget, limit_requests
from dokobot.adapters.discord.buttons import (
    ASK,
    DokoButton,
    PersistentView,
    play_suggestions,
    table_view,
    verb,
)
from dokobot.adapters.discord.checks import AdminChecks
from dokobot.adapters.discord.decisions import Decisions
from dokobot.adapters.discord.defaults import TABLE_DEFAULTS
from dokobot.adapters.discord.delivery import DM_RETRIES, DmChannels, PrivateDelivery
from dokobot.adapters.discord.handed import HandedPresses
from dokobot.adapters.discord.handoff import CLAIM_WITHIN, Handoff
from dokobot.adapters.discord.i18n import DokoTranslator, lang_of, text
from dokobot.adapters.discord.interaction import (
    PRESS_ORDER_S,
    TOKEN_LIFE,
    _Batch,
    _BoardMessage,
    _Prompt,
    _Reply,
    _sort,
    acknowledged,
    defer_later,
    guarded,
)
from dokobot.adapters.discord.languages import Languages
from dokobot.adapters.discord.lobby import LevelSelect, result_components
from dokobot.adapters.discord.lobby_messages import Lobbies
from dokobot.adapters.discord.messages import join_texts, mentions_in, qualify, snowflake_of
from dokobot.adapters.discord.notify import PING_GRACE, TurnPings
from dokobot.adapters.discord.order import ChannelOrder
from dokobot.adapters.discord.settings import UserSettings
from dokobot.adapters.discord.slash import slash_commands
from dokobot.adapters.discord.threads import NEW_TABLE, Threads
from dokobot.adapters.discord.token import resolve_token
from dokobot.adapters.discord.upload import CommandUpload
from dokobot.bounded import Bounded
from dokobot.host.commands import aliases, confirmed_commands, prompt_answers
from dokobot.host.contract import Host, Listener
from dokobot.host.events import Event, Input, Private
from dokobot.inorder import InOrder
from dokobot.render import prepare

log = logging.getLogger(__name__)

CONSUMING: Final = prompt_answers()
"""Commands that answer a prompt (declared so); a button of this kind is used up once the
host accepts it."""


REQUEST_READ_S: Final = 15.0
"""Seconds a REST request waits for Discord's answer before it fails (discord.py's own
session waits up to 5 minutes, and a request that hangs holds its route's bucket, and so
every later message of that channel, as long)."""


ServiceLike = Host
"""The host as the adapter sees it (:class:`dokobot.host.contract.Host`)."""


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
    commands (with German names) on start: ``"global"``, ``"guild"`` (to every server the bot
    is in, at once) or ``"off"`` (``True``/``False`` mean global/off). ``board_interval``: at
    most one edit of a board message per this many seconds; ``token_life``: how long an
    interaction can edit its messages (Discord: 15 minutes; "My cards" is kept up to date
    that long). ``global_rps``: this process's share of the bot-wide request limit
    (:mod:`.budget`). ``prompts_default``: where the prompts of a user who never chose with
    ``/prompts`` go, ``"here"`` (the "My cards" panel; the board names him) or ``"dm"``. ``dm_retries``: seconds before each new try of a failed DM. ``handoff``: with several
    processes, DM presses for tables of another process go to it (:mod:`.handoff`);
    ``claim_within``: seconds its process has to take one before the presser is told that
    nothing happened. Other keyword arguments go to
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
        board_interval: float = BOARD_INTERVAL,
        token_life: float = TOKEN_LIFE,
        global_rps: float | None = BOT_WIDE_RPS,
        prompts_default: str = "here",
        dm_retries: tuple[float, ...] = DM_RETRIES,
        handoff: Handoff | None = None,
        claim_within: float = CLAIM_WITHIN,
        threads: bool = False,
        request_timeout: float = REQUEST_READ_S,
        ping_grace: float = PING_GRACE,
        **options: Any,
    ) -> None:
        self.budget = RequestBudget(global_rps)
        options.setdefault("http_trace", self.budget.trace)
        options.setdefault("intents", discord.Intents(guilds=True))
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        options.setdefault("help_command", None)
        options.setdefault("tree_cls", _DokoTree)
        super().__init__(command_prefix=commands.when_mentioned, **options)
        self.service = service
        service.table_defaults(TABLE_DEFAULTS)  # before the host restores its tables
        service.boards = True
        self._token = token
        self._restore = restore
        self._restored = None if restored is None else list(restored)
        self._previous_listener: Listener | None = None
        self.upload = CommandUpload(self.tree, service, sync_commands)
        self._defer_after = defer_after
        self._request_timeout = request_timeout
        self._token_life = token_life
        users, channels = bounded.CAPS.users, bounded.CAPS.channels
        self.order = ChannelOrder(self._go_on)
        self.languages = Languages(self, service)
        self.decisions = Decisions(channels)
        self._background: set[asyncio.Task[None]] = set()
        self.threads = Threads(
            self, service, threads, in_background=self._in_background, leave=self._leave
        )
        self.lobbies = Lobbies(self, self.threads)
        self.dms = DmChannels(self, users)
        self._in_order = InOrder[int]()
        """Each person's inputs reach the host in the order they came (:data:`PRESS_ORDER_S`)."""
        self._used_presses: Bounded[tuple[int, tuple[int, int] | None], bool] = Bounded(users)
        """(message, decision) of prompts a press answered: a second press is no error."""
        self.checks = AdminChecks(self, admin_role, self.threads, self.languages, self.dms.open)
        self.boards = BoardMessages(
            self,
            channels=channels,
            board_interval=board_interval,
            budget=self.budget,
            checks=self.checks,
            threads=self.threads,
            enter=self._enter,
            leave=self._leave,
            hand_view=self._hand_view,
        )
        self.pings = TurnPings(
            self,
            boards=self.boards.messages,
            decisions=self.decisions,
            users=users,
            ping_grace=ping_grace,
            background=self._background,
            enter=self._enter,
            leave=self._leave,
            hand_view=self._hand_view,
            channel_lang=self.channel_lang,
            service=service,
        )
        self.settings = UserSettings(service, prompts_default, self.languages.user)
        self.delivery = PrivateDelivery(
            self,
            decisions=self.decisions,
            dms=self.dms,
            languages=self.languages,
            settings=self.settings,
            pings=self.pings,
            users=users,
            token_life=token_life,
            dm_retries=dm_retries,
            enter=self._enter,
            leave=self._leave,
            in_background=self._in_background,
        )
        self._handoff = handoff
        self.handed = HandedPresses(
            self,
            service,
            handoff,
            self.languages,
            claim_within=claim_within,
            note=self._note,
            push=self.push,
            marker_of=self.delivery.marker_of,
            enter=self._enter,
            leave=self._leave,
        )
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} user={self.user!r}>"

    # -- lifecycle -----------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        limit_requests(self.http, self._request_timeout)
        prepared = asyncio.create_task(prepare())  # the pictures' palette, meanwhile
        self._background.add(prepared)
        prepared.add_done_callback(self._background.discard)
        watchdog = asyncio.create_task(self.order.watch())
        self._background.add(watchdog)
        watchdog.add_done_callback(self._background.discard)
        self.add_dynamic_items(DokoButton, LevelSelect)
        await self.tree.set_translator(DokoTranslator())
        for command in slash_commands(self):
            self.tree.add_command(command)
        if self.service.listener != self._host_listener:
            self._previous_listener = self.service.listener
            self.service.listener = self._host_listener
        if self._handoff is not None:
            await self._handoff.start(self.handed.handed_over)
        await self.upload.at_start()
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
        await self.upload.when_ready(self.guilds)

    async def on_connect(self) -> None:
        """READY answered the IDENTIFY: the next process's turn to IDENTIFY counts from now."""
        if self._handoff is not None:
            self._handoff.identified()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Before an IDENTIFY: with several processes, wait for this shard's turn among all
        of them (Discord's ``max_concurrency``, through the store: :mod:`.handoff`)."""
        if self._handoff is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        try:
            await self._handoff.identify_turn(0)  # max_concurrency 1: one key for all shards
        except Exception:
            log.exception("could not take a turn to IDENTIFY; waiting 5 s instead")
            await asyncio.sleep(5.0)

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
        for board in self.boards.messages.values():
            if board.task is not None:
                board.task.cancel()
        for task in [*self._background, *self.handed.waiting]:  # DM retries, presses' deadlines
            task.cancel()
        if self._handoff is not None:
            await self._handoff.close()
        await super().close()
        await self.budget.close()

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        """A closed client handles no more events: discord.py's READY timer fires
        ``guild_ready_timeout`` after the last guild came, also after :meth:`close`, and
        scheduling a handler on a closed client fails (its coroutine never awaited)."""
        if self.is_closed():
            return
        super().dispatch(event_name, *args, **kwargs)

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

    def _in_background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` (which calls ``_leave`` when done) without waiting for it."""
        self._enter()
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

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
        if verb(command) == ASK:  # answered here: nothing reaches the host
            await self._ask(interaction, table, command, label, marker)
            return
        if verb(command) == NEW_TABLE:  # a /join in a new thread of the channel ``table``
            await self._handle(interaction, "/join", table=table, new_table=True)
            return
        if self.handed.held_elsewhere(interaction, table):
            await self.handed.hand_over(interaction, table, command, label, marker)
            return
        await self._handle(interaction, command, table=table, label=label, marker=marker)

    async def set_prompts(self, interaction: discord.Interaction[Any], where: str) -> None:
        """``/prompts dm|here``: where this user's prompts go (answered by the adapter)."""
        await self.settings.set_prompts(interaction, where)

    async def set_deck(self, interaction: discord.Interaction[Any], deck: str) -> None:
        """``/deck classic|four|german``: the colours of this user's card pictures."""
        await self.settings.set_deck(interaction, deck)

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
        rows = message.components
        if not all(isinstance(row, discord.ActionRow) for row in rows):
            return  # components this adapter never sends
        shown = {  # read from the message as it came (no View built: discord.py builds one)
            item.custom_id
            for row in rows
            if isinstance(row, discord.ActionRow)
            for item in row.children
            if isinstance(item, discord.Button | discord.SelectMenu)
        }
        if custom_id in shown:
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
            channel = qualify(interaction.channel_id) if interaction.channel_id else ""
            user = qualify(interaction.user.id)
            return play_suggestions(self.delivery.suggestions(channel, user), current)
        except Exception:
            log.exception("card suggestions failed")
            return []

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
            admin=self.checks.is_admin(interaction, channel_id),
            server=f"discord:{interaction.guild_id}" if interaction.guild_id else "",
            marker=marker,
            mentions=mentions_in(command),
        )

    async def _handle(
        self,
        interaction: discord.Interaction[Any],
        command: str,
        table: int | None,
        label: str = "",
        marker: tuple[int, int] | None = None,
        new_table: bool = False,
    ) -> None:
        self._enter()
        place = self._in_order.place(interaction.user.id, PRESS_ORDER_S)
        button = table is not None and not new_table
        reply = _Reply(
            interaction,
            button=button,
            consume=button and verb(command) in CONSUMING | confirmed_commands(),
            lang=self.languages.user(interaction.user.id) or lang_of(interaction.locale),
            label=label,
            life=self._token_life,
        )
        deferrer: asyncio.Task[None] | None = None
        try:
            if interaction.type is discord.InteractionType.component:
                # acknowledged before any game work, whatever the loop's timers do: a press
                # is answered within Discord's 3 s even when the process is starved
                alive = await acknowledged(reply)
                if not alive:  # Discord told the presser it failed: so it changes nothing
                    log.info("a press came too late to be acknowledged; not applied")
                    return
            creating = verb(command) in ("join", "start") and not button
            if creating and not await self.checks.check_permissions(interaction):
                return
            thread = (
                None
                if button
                else await self.threads.thread_for(
                    interaction,
                    command,
                    self.lobbies.get,
                    table,
                    before_waiting=functools.partial(acknowledged, reply),
                )
            )
            if new_table and thread is None:  # no thread could be made: nothing joined
                async with reply.guard:
                    await reply.ephemeral(text("thread_failed", reply.lang))
                return
            inp = self._input(interaction, command, table if thread is None else thread, marker)
            self.delivery.note_token(reply, snowflake_of(inp.channel))
            if thread is not None:  # the table lives in its thread: say where
                async with reply.guard:  # (a late answer must not lose the join)
                    opened = text("thread_opened", reply.lang, thread=f"<#{thread}>")
                    await guarded(reply.ephemeral(opened))
            deferrer = asyncio.create_task(defer_later(reply, self._defer_after))
            await place.after_those_ahead()
            events = await self.service.handle(inp)
            place.leave()
            self._note(inp, events)
            await self._deliver(events, reply, inp, deferrer)
        except Exception:
            log.exception("handling %r failed", command)
            await reply.fail()
        finally:
            place.leave()
            if deferrer is not None:
                deferrer.cancel()
            self._leave()

    async def _ask(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        command: str,
        label: str,
        marker: tuple[int, int] | None,
    ) -> None:
        """A call's first press (``/ask re``): only its presser sees a question with one
        button that makes the call; nothing reaches the host."""
        self._enter()
        lang = self.languages.user(interaction.user.id) or lang_of(interaction.locale)
        reply = _Reply(interaction, button=True, consume=False, lang=lang, life=self._token_life)
        try:
            call = "/" + command.split(maxsplit=1)[-1]
            view = PersistentView()
            yes = text("call_confirm_button", lang, call=label)
            view.add_item(DokoButton(table, call, yes, discord.ButtonStyle.danger, marker=marker))
            async with reply.guard:
                sent = await reply.ephemeral(text("call_confirm", lang, call=label), view)
            if sent is not None and marker is not None:  # it goes when the decision is past
                prompt = _Prompt(marker, sent.message_id, sent.strip, reply.expires)
                self.delivery.add_prompt(table, reply.user_id, prompt)
        except Exception:
            log.exception("asking to confirm %r failed", command)
            await reply.fail()
        finally:
            self._leave()

    def _note(self, inp: Input, events: Sequence[Event]) -> None:
        """Learn from an accepted command: a used-up pending prompt."""
        refused = any(
            isinstance(e, Private) and e.reply and e.user == inp.user and e.kind == "error"
            for e in events
        )
        if refused:
            return
        table = snowflake_of(inp.channel)
        user = snowflake_of(inp.user)
        word = aliases().get(verb(inp.text), "")  # a command by any of its names
        if word in CONSUMING and user is not None and table is not None:
            self.pings.acted(table, user, inp.marker)  # his notification goes
        if inp.text.split() == ["/join"] and user is not None and table is not None:
            self.threads.seat(table, [user])
        if word in CONSUMING and user is not None:
            self.delivery.answered(inp.channel, inp.user)

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
                self.decisions.learn(channel_id, view)
                self.languages.set_channel(channel_id, view.language)

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
        self.languages.learn(events)
        self._learn(batch)
        tickets = {channel: self.order.of(channel).take() for channel in batch.channels}
        rest: dict[str, list[str]] = {}  # message pieces left after a public response
        answer: asyncio.Task[None] | None = None
        try:
            if reply is not None and inp is not None:
                if reply.open and not reply.button:  # its response may be the channel's first
                    async with reply.guard:
                        if deferrer is not None:
                            deferrer.cancel()
                        await self._answer(batch, reply, inp, rest, tickets)
                else:  # acknowledged already: the channel does not wait for its answer
                    answer = asyncio.create_task(self._answer_later(batch, reply, inp, deferrer))
            for channel in batch.channels:
                ticket = tickets[channel]
                await self.order.of(channel).wait(ticket)
                try:
                    texts = batch.publics.get(channel, [])
                    sending = self._send_channel(channel, texts, batch, rest.get(channel))
                    await self.order.within(guarded(sending), channel)
                finally:
                    self.order.of(channel).release(tickets.pop(channel))
        finally:
            for channel, ticket in tickets.items():
                self.order.of(channel).release(ticket)
            if answer is not None:
                await answer
        for private in batch.others:
            await guarded(self.delivery.send(private, reply))
        for channel in batch.boards:
            channel_id = snowflake_of(channel)
            if channel_id is not None:
                self.pings.end_past(channel_id)
                await self.delivery.strip_superseded(channel_id)

    async def _answer_later(
        self,
        batch: _Batch,
        reply: _Reply,
        inp: Input,
        deferrer: asyncio.Task[None] | None,
    ) -> None:
        """:meth:`_answer` for an interaction that is acknowledged already (never raises)."""
        try:
            async with reply.guard:
                if deferrer is not None:
                    deferrer.cancel()
                await self._answer(batch, reply, inp, {}, {})
        except Exception:
            log.exception("answering an interaction failed")

    def _go_on(self, task: asyncio.Task[None]) -> None:
        """A channel's sending that outlived its turn goes on in the background."""
        self._enter()
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(lambda _: self._leave())

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
        table = snowflake_of(inp.channel)
        message = reply.interaction.message
        pressed = (message.id, inp.marker) if message is not None and reply.button else None
        if reply.error and reply.consume and pressed in self._used_presses:
            await guarded(reply.finish())  # a double click: its first press moved
            return
        if reply.button and reply.consume and not reply.error:
            await guarded(reply.use_up())
            if message is not None:
                self.delivery.forget_prompt(message.id, table, reply.user_id)
            if pressed is not None:
                self._used_presses[pressed] = True
            if table:
                self.delivery.renew_panel(reply, table)
        if reply.button and verb(inp.text) == "hand" and not reply.error and table:
            await guarded(self.delivery.open_panel(batch.mine, reply, table))
        else:
            for event in batch.mine:
                await guarded(self.delivery.reply(event, reply))
        channel_id = reply.channel_id
        if reply.open and not reply.button and channel_id is not None:
            channel = qualify(channel_id)
            texts = batch.publics.get(channel)
            if (
                texts
                and channel in tickets
                and self.order.of(channel).ready(tickets[channel])
                and not self.boards.absorbed(channel, batch)
                and channel_id not in self.boards.shown()
            ):
                pieces = join_texts(texts)
                if pieces:
                    view = self._hand_view(channel_id) if len(pieces) == 1 else None
                    if channel_id in self.boards.messages:
                        view = None
                    await guarded(reply.public(pieces[0], view))
                    rest[channel] = pieces[1:]
        await guarded(reply.finish())

    def channel_lang(self, channel_id: int) -> str:
        """The language of the adapter's own words in a channel."""
        return self.languages.channel(channel_id)

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
        lobby = batch.lobbies.get(channel)
        if view is not None and self.boards.on_board(channel, batch):
            players = [
                user
                for p in (*batch.mine, *batch.others)
                if p.channel == channel and (user := snowflake_of(p.user)) is not None
            ]
            await self.boards.show(channel_id, view, batch.news.get(channel, []), players)
            if lobby is not None:
                await self.lobbies.show(channel_id, lobby, [])
            return
        result = self.boards.result_in(channel, batch)
        if lobby is not None and not result:
            await self.lobbies.show(channel_id, lobby, texts)
            return
        if view is not None:
            board = self.boards.messages.get(channel_id)
            if board is not None and board.game_number == view.game_number:
                if not board.result_posted and view.finished:
                    board.result_posted = True
                    self.boards.changed(board, view, [])
            elif view.finished:  # a finished game the adapter never showed (a restart)
                self.boards.messages[channel_id] = _BoardMessage(
                    channel_id, view, result_posted=True
                )
        target = self.get_partial_messageable(channel_id)
        if pieces is None:
            pieces = join_texts(texts)
        with_button = channel_id not in self.boards.messages
        for n, piece in enumerate(pieces):  # routine posts: silent
            if result and n == len(pieces) - 1:
                buttons = result_components(channel_id, self.channel_lang(channel_id))
                await target.send(piece, view=buttons, silent=True)
            elif with_button and n == len(pieces) - 1:
                await target.send(piece, view=self._hand_view(channel_id), silent=True)
            else:
                await target.send(piece, silent=True)
        if lobby is not None:
            await self.lobbies.show(channel_id, lobby, [])
