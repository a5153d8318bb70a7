"""Private messages: ephemeral replies, the "My cards" panel, DMs (and what to do when a
DM is refused), and taking the buttons off prompts that are no longer current (a part the
:class:`DiscordAdapter` holds)."""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Final

import aiohttp
import discord

from dokobot.adapters.discord.buttons import choices_view, verb
from dokobot.adapters.discord.decisions import Decisions
from dokobot.adapters.discord.i18n import text
from dokobot.adapters.discord.interaction import (
    DM_BLOCKED_FOR,
    PANEL_KINDS,
    TOKEN_LIFE,
    _Panel,
    _Prompt,
    _Reply,
    _Sent,
    guarded,
    too_large,
    without_file,
)
from dokobot.adapters.discord.languages import Languages
from dokobot.adapters.discord.messages import (
    HAND_PICTURE,
    MAX_MESSAGE,
    format_text,
    qualify,
    render,
    snowflake_of,
)
from dokobot.adapters.discord.notify import TurnPings
from dokobot.adapters.discord.settings import UserSettings
from dokobot.bounded import Bounded
from dokobot.host.events import Choice, Private
from dokobot.render import HandPicture, drawn, hand_png

log = logging.getLogger(__name__)

PANEL_MARGIN: Final = 2 / 15
"""A "My cards" panel in this last share of its token's life (2 of Discord's 15 minutes) no
longer counts as live for a new prompt: the board names the player, so that he opens a fresh
one."""
UNSEEN: Final = 5
"""Private texts kept for a user without a live panel, shown when he opens "My cards"."""
DM_RETRIES: Final = (1.0, 2.0, 4.0)
"""Seconds before each new try of a failed DM."""
DM_RESTS: Final = 120.0
"""Seconds no DM is tried for a user whose DM failed every try (403: ``DM_BLOCKED_FOR``)."""
REMINDER: Final = "reminder"
"""The kind of the turn clock's reminder (see :meth:`PrivateDelivery.send`)."""


class DmChannels:
    """Each user's DM channel, opened once by ``client`` and kept for up to ``users`` users
    (discord.py keeps only 128)."""

    def __init__(self, client: discord.Client, users: int) -> None:
        self._client = client
        self._channels: Bounded[int, int] = Bounded(users)

    async def open(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel of ``user_id``."""
        channel_id = self._channels.get(user_id)
        if channel_id is None:
            data = await self._client.http.start_private_message(user_id)
            channel_id = self._channels[user_id] = int(data["id"])
        return self._client.get_partial_messageable(channel_id, type=discord.ChannelType.private)


class PrivateDelivery:
    """Private messages and prompts, by ``client``: it holds what each user was shown at
    each table (his "My cards" panel, his latest interaction, the prompts with buttons, the
    texts he has not seen, a prompt that waits for him) and whose DMs rest.

    It reads each table's current decision (``decisions``), sends DMs through ``dms``, reads the languages and the users'
    settings, and tells ``pings`` when a prompt waits. ``enter``/``leave``: the adapter
    counts as busy between them; ``in_background`` runs a coroutine (that calls ``leave``)
    without waiting for it; ``token_life``: how long an interaction can edit its messages;
    ``dm_retries``: seconds before each new try of a failed DM."""

    def __init__(
        self,
        client: discord.Client,
        *,
        decisions: Decisions,
        dms: DmChannels,
        languages: Languages,
        settings: UserSettings,
        pings: TurnPings,
        users: int,
        token_life: float = TOKEN_LIFE,
        dm_retries: tuple[float, ...] = DM_RETRIES,
        enter: Callable[[], None],
        leave: Callable[[], None],
        in_background: Callable[[Coroutine[Any, Any, None]], None],
    ) -> None:
        self._client = client
        self._decisions = decisions
        self._dms = dms
        self._languages = languages
        self._settings = settings
        self._pings = pings
        self._token_life = token_life
        self._dm_retries = dm_retries
        self._enter = enter
        self._leave = leave
        self._in_background = in_background
        self._choices: Bounded[tuple[str, str], tuple[Choice, ...]] = Bounded(users)
        """The cards of each user's latest turn prompt at each table (``/play``'s list)."""
        self._pending: Bounded[tuple[int, int], Private] = Bounded(users)
        """A prompt that waits for its user's "My cards"."""
        self._prompts: Bounded[tuple[int, int], list[_Prompt]] = Bounded(users)
        self._dm_blocked: Bounded[int, float] = Bounded(users, ttl=DM_BLOCKED_FOR)
        self._panels: Bounded[tuple[int, int], _Panel] = Bounded(users)
        self._tokens: Bounded[tuple[int, int], _Reply] = Bounded(users)
        """The latest interaction of each user at each table (see :meth:`note_token`)."""
        self._unseen: Bounded[tuple[int, int], list[Private]] = Bounded(users)

    def _channel_lang(self, table: int) -> str:
        return self._languages.channel(table)

    # -- what the adapter learns from its input ------------------------------------------------

    def suggestions(self, channel: str, user: str) -> tuple[Choice, ...]:
        """The choices of ``user``'s latest turn prompt with cards at ``channel`` (or at any
        table, the newest, when there is none there)."""
        choices = self._choices.get((channel, user))
        if choices is None:
            choices = next((c for (_, u), c in self._choices.newest_first() if u == user), ())
        return choices

    def answered(self, channel: str, user: str) -> None:
        """``user`` answered a prompt at ``channel`` (at any table when ``channel`` is no
        table): his waiting prompts there are used up."""
        table = snowflake_of(channel)
        user_id = snowflake_of(user)
        if user_id is not None:
            for key in [k for k in self._pending if k[1] == user_id and table in (None, k[0])]:
                del self._pending[key]
        self._choices.pop((channel, user), None)

    def _table_of(self, event: Private) -> int:
        return snowflake_of(event.channel) or 0

    def _remember(self, event: Private, table: int) -> None:
        if any(verb(c.command) == "play" for c in event.choices):
            self._choices[(qualify(table) if table else "", event.user)] = event.choices

    def marker_of(self, table: int, event: Private) -> tuple[int, int] | None:
        """The decision a prompt's buttons carry: the one the host stamped on it (the
        latest board's, for an event without one)."""
        if not event.choices:
            return None
        return event.marker if event.marker is not None else self._decisions.current(table)

    async def reply(self, event: Private, reply: _Reply, table: int | None = None) -> None:
        if event.kind == "error":
            reply.error = True
        if table is None:
            table = self._table_of(event)
        self._remember(event, table)
        marker = self.marker_of(table, event)
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
            self.add_prompt(
                table, reply.user_id, _Prompt(marker, sent.message_id, sent.strip, reply.expires)
            )
            if event.choices:  # he is at the table now: pinged only if he does not move
                self._pings.turn_waits(table, reply.user_id, marker, True)

    async def _panel_payload(
        self, table: int, user_id: int, events: Sequence[Private], expires: float
    ) -> tuple[str, discord.ui.View | None, discord.File | None, tuple[int, int] | None]:
        """Content, buttons and picture of a "My cards" panel showing ``events``."""
        prompt = next((e for e in reversed(events) if e.choices), None)
        shown = next((e for e in reversed(events) if e.hand), None)
        lang = self._languages.user(user_id) or self._channel_lang(table)
        ends = int(time.time() + expires - asyncio.get_running_loop().time())
        texts = [format_text(e.text) for e in events if e.text.strip()]
        until = f"<t:{ends}:t> (<t:{ends}:R>)"  # Discord shows it in the reader's time zone
        texts.append("*" + text("panel_until", lang, time=until) + "*")
        content = "\n".join(texts)[:MAX_MESSAGE]
        marker = self._decisions.current(table) if prompt is not None else None
        view = choices_view(table, prompt.choices, marker) if prompt is not None else None
        file = None
        if shown is not None and self._decisions.images(table):
            picture = HandPicture(
                shown.hand,
                shown.groups,
                shown.playable,
                shown.lang or lang,
                await self._settings.deck(user_id),
            )
            png = await drawn(hand_png, picture)
            file = discord.File(io.BytesIO(png), filename=HAND_PICTURE)
        return content, view, file, marker

    async def open_panel(self, mine: Sequence[Private], reply: _Reply, table: int) -> None:
        """ "My cards": one ephemeral message with the hand (a picture and text) and, on the
        user's turn, the buttons of the legal cards and calls (also a prompt that a blocked
        DM could not bring). It is kept up to date while its token is valid."""
        user_id = reply.user_id
        events = [*self._unseen.pop((table, user_id), []), *mine]
        pending = self._pending.get((table, user_id))
        if pending is not None and not any(e.choices for e in events):
            events.append(pending)
        for event in events:
            self._remember(event, table)
        content, view, file, marker = await self._panel_payload(
            table, user_id, events, reply.expires
        )
        reply.shown_choices = view is not None
        sent = await reply.ephemeral(content, view, file, keep=True)
        if sent is None:
            return
        self._panels[(table, user_id)] = _Panel(sent, reply.expires)
        if view is not None:
            self._pings.ack(table, user_id)  # he opened his cards on his turn: he knows
            self.add_prompt(
                table, user_id, _Prompt(marker, sent.message_id, sent.strip, reply.expires)
            )

    def renew_panel(self, reply: _Reply, table: int) -> None:
        """A press on the user's own "My cards" panel: its fresh interaction token keeps the
        panel up to date for another 15 minutes."""
        message = reply.interaction.message
        panel = self._panels.get((table, reply.user_id))
        if message is None or panel is None or panel.sent.message_id != message.id:
            return
        sent = _Sent(message.id, reply.interaction.edit_original_response)
        self._panels[(table, reply.user_id)] = _Panel(sent, reply.expires)

    def _panel_fresh(self, table: int, user_id: int) -> bool:
        """Whether the user's panel can show prompts for a while yet (not near its end)."""
        panel = self._panels.get((table, user_id))
        now = asyncio.get_running_loop().time()
        margin = PANEL_MARGIN * self._token_life
        return panel is not None and panel.expires - now > margin

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
        content, view, file, marker = await self._panel_payload(
            table, user_id, [event], panel.expires
        )
        sent = panel.sent
        try:
            await sent.edit(content=content, view=view, attachments=[] if file is None else [file])
        except discord.HTTPException as exc:
            if file is None or not too_large(exc):
                raise
            lang = self._languages.user(user_id) or self._channel_lang(table)
            await sent.edit(content=without_file(content, lang), view=view, attachments=[])
        if view is not None:
            self.add_prompt(
                table, user_id, _Prompt(marker, sent.message_id, sent.strip, panel.expires, event)
            )
        return True

    async def send(self, event: Private, reply: _Reply | None) -> None:
        """A private event that answers no interaction of its user: into his live "My
        cards" panel; else (by default) a prompt opens a new panel through his latest
        interaction's token, or waits while the board names him (:meth:`_reach`); with
        ``/prompts dm`` by DM, retried with backoff."""
        user_id = snowflake_of(event.user)
        if user_id is None:
            log.debug("private event for a non-Discord user %r dropped", event.user)
            return
        table = self._table_of(event)
        self._remember(event, table)
        try:
            shown = await self._update_panel(event)
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.info("could not update a My cards panel: %s", exc)
            shown = False
        here = await self._settings.prompts_here(user_id)
        if event.kind == REMINDER and table and here:
            await self._pings.remind(table, user_id, event)  # onto his notification, not a panel
            return
        if shown and table:
            if event.choices:
                fresh = self._panel_fresh(table, user_id)
                if not fresh and not await self._panel_by_token(event, user_id, table):
                    self._pings.turn_waits(table, user_id, self.marker_of(table, event), False)
                elif fresh:  # he may be looking at it: a ping only if he does not move
                    self._pings.turn_waits(table, user_id, self.marker_of(table, event), True)
            if not event.choices or here:
                return
        if here:
            if reply is not None and reply.user_id == user_id:
                self._undelivered(event, user_id, table)
                await self.reply(event, reply, table)
            else:
                await self._reach(event, user_id, table)
            return
        loop = asyncio.get_running_loop()
        if self._dm_blocked.get(user_id, 0.0) > loop.time():
            await self._dm_refused(event, user_id, table, reply)
            return
        try:
            await self._dm_send(event, user_id, table)
        except discord.Forbidden as exc:
            log.info("DM to %s refused (%s)", user_id, exc.code)
            self._dm_blocked[user_id] = loop.time() + DM_BLOCKED_FOR
            await self._dm_refused(event, user_id, table, reply)
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.info("DM to %s failed (%s); trying again", user_id, exc)
            self._in_background(self._dm_retry(event, user_id, table, reply))

    def note_token(self, reply: _Reply, table: int | None) -> None:
        """Keep the interaction of ``reply`` (a command or press of its user at ``table``, made
        in the table's channel): while its token lives, a prompt that finds no live "My cards"
        panel becomes a new panel through it (an ephemeral follow-up: no request that counts
        toward the bot-wide limit, and no board edit to name him)."""
        if table and reply.channel_id == table:
            self._tokens[(table, reply.user_id)] = reply

    async def _panel_by_token(self, event: Private, user_id: int, table: int) -> bool:
        """Show the prompt ``event`` in a new "My cards" panel, an ephemeral follow-up of the
        user's latest interaction at the table; False if he has none that lives long enough."""
        reply = self._tokens.get((table, user_id))
        now = asyncio.get_running_loop().time()
        margin = PANEL_MARGIN * self._token_life
        if reply is None or reply.open or reply.expires - now <= margin:
            return False
        events = [*self._unseen.pop((table, user_id), []), event]
        try:
            async with reply.guard:
                content, view, file, marker = await self._panel_payload(
                    table, user_id, events, reply.expires
                )
                sent = await reply.ephemeral(content, view, file, keep=True)
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.info("could not open a My cards panel through a token: %s", exc)
            self._tokens.pop((table, user_id), None)
            return False
        if sent is None:
            return False
        self._panels[(table, user_id)] = _Panel(sent, reply.expires)
        self._pending.pop((table, user_id), None)
        self.add_prompt(
            table, user_id, _Prompt(marker, sent.message_id, sent.strip, reply.expires, event)
        )
        # an ephemeral message notifies nobody, and he may not be looking: a ping unless he
        # moves within the grace
        self._pings.turn_waits(table, user_id, marker, True)
        return True

    async def _reach(self, event: Private, user_id: int, table: int) -> None:
        """A private event for a user with no live panel and no DM: a prompt opens a panel
        through his latest interaction's token if one lives, else :meth:`_undelivered`."""
        if table and event.choices and await self._panel_by_token(event, user_id, table):
            return
        self._undelivered(event, user_id, table)

    def _undelivered(self, event: Private, user_id: int, table: int) -> None:
        """A private event its user has not seen: a prompt waits for "My cards" and a
        message notifies him; other texts are shown when he opens "My cards"."""
        if not table:
            return
        if event.choices:
            self._pending[(table, user_id)] = event
            self._pings.turn_waits(table, user_id, self.marker_of(table, event), False)
        elif event.text.strip() and event.kind not in PANEL_KINDS:
            unseen = self._unseen.get((table, user_id), [])
            self._unseen[(table, user_id)] = [*unseen, event][-UNSEEN:]

    async def _dm_send(self, event: Private, user_id: int, table: int) -> None:
        pieces, file = render(event)
        marker = self.marker_of(table, event)
        view = choices_view(table, event.choices, marker)
        dm = await self._dms.open(user_id)
        if file is not None:
            try:
                await dm.send(file=file)
            except discord.HTTPException as exc:
                if not too_large(exc):
                    raise
                await dm.send(without_file(None, event.lang or self._channel_lang(table)))
        message: discord.Message | None = None
        for n, piece in enumerate(pieces):
            if view is not None and n == len(pieces) - 1:
                message = await dm.send(piece, view=view)
            else:
                await dm.send(piece)
        if not pieces and view is not None:
            message = await dm.send(view=view)
        self._pending.pop((table, user_id), None)
        if event.choices and table:  # a new DM notifies its reader
            self._pings.prompt_delivered(table, user_id)
        if message is not None and table:
            sent = message
            self.add_prompt(
                table,
                user_id,
                _Prompt(marker, sent.id, lambda: sent.edit(view=None), float("inf"), event),
            )

    async def _dm_retry(
        self, event: Private, user_id: int, table: int, reply: _Reply | None
    ) -> None:
        """Try a failed DM again with backoff while its prompt is current; when it cannot be
        sent, DMs to the user rest a while (no DM is opened on every prompt) and the prompt
        takes the way without DMs (the board names him)."""
        marker = self.marker_of(table, event)
        loop = asyncio.get_running_loop()
        try:
            for delay in self._dm_retries:
                await asyncio.sleep(delay)
                if marker is not None and self._decisions.current(table) != marker:
                    return  # the decision is past
                try:
                    await self._dm_send(event, user_id, table)
                    return
                except discord.Forbidden:
                    self._dm_blocked[user_id] = loop.time() + DM_BLOCKED_FOR
                    break
                except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                    log.info("DM to %s failed again (%s)", user_id, exc)
            else:
                self._dm_blocked[user_id] = loop.time() + DM_RESTS
            await self._dm_refused(event, user_id, table, None)
        except Exception:
            log.exception("could not deliver a DM")
        finally:
            self._leave()

    async def _dm_refused(
        self, event: Private, user_id: int, table: int, reply: _Reply | None
    ) -> None:
        """No DM for this user: the prompt waits for "My cards" and the board names him (an
        interaction of his gets it at once)."""
        if reply is not None and reply.user_id == user_id:
            await self.reply(event, reply, table)
            return
        await self._reach(event, user_id, table)

    # -- superseded prompts --------------------------------------------------------------------

    def add_prompt(self, table: int, user_id: int, prompt: _Prompt) -> None:
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
            self._in_background(self._strip(older))

    def forget_prompt(self, message_id: int, table: int | None, user_id: int) -> None:
        """The prompt ``message_id`` was used up. A prompt is kept under its table and its
        user (:meth:`add_prompt`): that list is looked at, and every user's only when it is
        not there (a press costs the same at one table as at a thousand)."""
        if table and self._forget_in((table, user_id), message_id):
            return
        for key in list(self._prompts):
            self._forget_in(key, message_id)

    def _forget_in(self, key: tuple[int, int], message_id: int) -> bool:
        """Forget the prompt ``message_id`` in the list of ``key``; whether it was there."""
        prompts = self._prompts.get(key)
        if prompts is None:
            return False
        kept = [p for p in prompts if p.message_id != message_id]
        if len(kept) == len(prompts):
            return False
        if kept:
            self._prompts[key] = kept
        else:
            del self._prompts[key]
        return True

    async def strip_superseded(self, table: int) -> None:
        """Take the buttons off every prompt at ``table`` whose decision is past."""
        current = self._decisions.current(table)
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
                    await guarded(prompt.strip())
        except Exception:
            log.exception("could not take the buttons off a prompt")
        finally:
            self._leave()
