"""Presses in DMs under shards: handed to the process that holds the table, and applied
there (a part the :class:`DiscordAdapter` holds; the transport is :mod:`.handoff`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, cast

import aiohttp
import discord

from dokobot.adapters.discord.buttons import choices_view, verb
from dokobot.adapters.discord.handoff import EXPIRED, TAKEN, Handoff, Press
from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.interaction import used_text
from dokobot.adapters.discord.languages import Languages
from dokobot.adapters.discord.messages import format_text, qualify
from dokobot.host.commands import prompt_answers
from dokobot.host.contract import Host
from dokobot.host.events import Event, Input, Private

log = logging.getLogger(__name__)

DECIDE_TIMEOUT_S: Final = 5.0
"""How long one try to write a press's outcome (or to hand it over) may take."""
DECIDE_RETRY_S: Final = 2.0
"""While the store does not answer: how often shard 0 tries to decide a press again."""
DECIDE_WITHIN_S: Final = 600.0
"""How long shard 0 keeps trying (a press's token lives 15 minutes)."""


class HandedPresses:
    """Hand over DM presses for tables of other processes (through ``handoff``; None: one
    process holds every table), and apply those handed to us. What it asks of the adapter:
    ``note`` what an accepted input used up, ``push`` events that answer no interaction,
    the ``marker_of`` a private answer, and ``enter``/``leave`` around a press applied (the
    adapter is busy meanwhile)."""

    def __init__(
        self,
        client: discord.Client,
        host: Host,
        handoff: Handoff | None,
        languages: Languages,
        *,
        claim_within: float,
        note: Callable[[Input, Sequence[Event]], None],
        push: Callable[[list[Event]], Awaitable[None]],
        marker_of: Callable[[int, Private], tuple[int, int] | None],
        enter: Callable[[], None],
        leave: Callable[[], None],
    ) -> None:
        self.client = client
        self.host = host
        self.handoff = handoff
        self.languages = languages
        self.claim_within = claim_within
        self.note = note
        self.push = push
        self.marker_of = marker_of
        self.enter = enter
        self.leave = leave
        self.waiting: set[asyncio.Task[None]] = set()
        """Presses handed over whose holder has not taken them yet (to stop them)."""

    def held_elsewhere(self, interaction: discord.Interaction[Any], table: int) -> bool:
        """A press in a DM for a table this process does not hold (another shard's)."""
        if self.handoff is None or interaction.guild_id is not None or not table:
            return False
        return not self.host.holds(qualify(table))

    async def hand_over(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        command: str,
        label: str,
        marker: tuple[int, int] | None,
    ) -> None:
        """Acknowledge the press at once, then hand it to the holder of its table."""
        assert self.handoff is not None
        await interaction.response.defer()
        message = interaction.message
        press = Press(
            application_id=interaction.application_id,
            token=interaction.token,
            table=table,
            command=command,
            label=label,
            marker=marker,
            user_id=interaction.user.id,
            user_name=interaction.user.display_name,
            locale=str(interaction.locale),
            content=message.content if message is not None else "",
            interaction_id=interaction.id,
        )
        lang = self.languages.user(interaction.user.id) or lang_of(interaction.locale)
        wait = self.claim_within
        try:
            await asyncio.wait_for(self.handoff.send(press), DECIDE_TIMEOUT_S)
        except Exception as exc:  # (it may have gone out all the same: decided at once)
            log.warning("could not hand a DM press over: %s", exc)
            wait = 0.0
        # not counted as busy (wait_idle): it only waits, and says something if it must
        task = asyncio.create_task(self._unless_taken(press, lang, wait))
        self.waiting.add(task)
        task.add_done_callback(self.waiting.discard)

    async def _unless_taken(self, press: Press, lang: str, wait: float) -> None:
        """``wait`` seconds (:data:`CLAIM_WITHIN`) after handing ``press`` over: if the
        holder of its table has not taken it (down, or not answering), it is expired, never
        to be applied, and the person is told."""
        await asyncio.sleep(wait)
        await self._decide_expired(press, lang)

    async def _decide_expired(self, press: Press, lang: str) -> None:
        """Expire ``press`` unless its holder took it, and tell the person if it was not
        applied. While the store does not answer, nobody can tell whether the holder took
        it (and applied it): the person hears that it is not known yet, and the truth once
        the decision is written (every :data:`DECIDE_RETRY_S`, for up to
        :data:`DECIDE_WITHIN_S`; the holder cannot take it meanwhile either, the decision
        being in the same store)."""
        told = False

        async def unknown() -> None:
            nonlocal told
            await self._tell(press, "handoff_unknown", lang)
            told = True

        expired = await self._decided(press, EXPIRED, unknown)
        if expired:
            await self._not_taken(press, lang)
        elif expired is not None and told:
            await self._tell(press, "handoff_counted", lang)

    async def _decided(
        self, press: Press, outcome: str, unknown: Callable[[], Awaitable[None]] | None
    ) -> bool | None:
        """Write ``outcome`` as ``press``'s one outcome: whether it is the one stored. While
        the store does not answer (``unknown()`` at the first failure), again every
        :data:`DECIDE_RETRY_S`; None when it did not answer for :data:`DECIDE_WITHIN_S`."""
        assert self.handoff is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DECIDE_WITHIN_S
        while True:
            try:
                return await asyncio.wait_for(self.handoff.decide(press, outcome), DECIDE_TIMEOUT_S)
            except Exception as exc:
                log.warning("could not decide a handed-over press (%s); not known yet",
                            str(exc) or type(exc).__name__)  # fmt: skip
                if unknown is not None:
                    await unknown()
                    unknown = None
                if loop.time() >= deadline:
                    log.error("a DM press for table %s stays undecided: the store did not "
                              "answer for %.0f s", press.table, DECIDE_WITHIN_S)  # fmt: skip
                    return None
                await asyncio.sleep(DECIDE_RETRY_S)

    async def _not_taken(self, press: Press, lang: str) -> None:
        """Tell the person that his press was not applied (the holder of its table is down
        or does not answer): he may press again."""
        log.warning("a DM press for table %s was not taken by its process", press.table)
        await self._tell(press, "handoff_down", lang)

    async def _tell(self, press: Press, key: str, lang: str) -> None:
        """Send the person who pressed the notice ``key`` (through the press's token)."""
        try:
            notice = text(key, lang)
            await asyncio.wait_for(
                self._press_webhook(press).send(notice, wait=False), DECIDE_TIMEOUT_S
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("could not tell a presser what became of his press: %s", exc)

    def _press_webhook(self, press: Press) -> discord.Webhook:
        return discord.Webhook.partial(press.application_id, press.token, client=self.client)

    async def handed_over(self, press: Press) -> None:
        """A press handed over by shard 0: applied here if this process holds its table,
        its prompt used up and the user's answers sent through the interaction's token."""
        if not self.host.holds(qualify(press.table)):
            return
        # (a take whose answer was lost may still be stored: it is applied once read back)
        taken = await self._decided(press, TAKEN, None)
        if taken is None:
            log.error("a handed-over press for table %s was not applied: whether it was "
                      "taken could not be read", press.table)  # fmt: skip
            return
        if not taken:  # too late: its presser was told that nothing happened
            log.warning("a DM press for table %s came after its time; dropped", press.table)
            return
        self.enter()
        try:
            inp = Input(
                channel=qualify(press.table),
                user=qualify(press.user_id),
                name=press.user_name,
                text=press.command,
                dm=True,
                marker=press.marker,
            )
            events = await self.host.handle(inp)
            self.note(inp, events)
            mine = [e for e in events if isinstance(e, Private) and e.reply and e.user == inp.user]
            rest = [e for e in events if not any(e is m for m in mine)]
            await self.push(rest)
            webhook = self._press_webhook(press)
            refused = any(e.kind == "error" for e in mine)
            if verb(press.command) in prompt_answers() and not refused:
                original = cast(int, "@original")  # the pressed message, by its token
                content = used_text(press.content, press.label)
                await webhook.edit_message(original, content=content, view=None)
            for event in mine:
                # the decision of this answer: a trick's winner leads the next one
                marker = self.marker_of(press.table, event)
                view = choices_view(press.table, event.choices, marker)
                body = format_text(event.text) or "-"
                if view is not None:
                    await webhook.send(body, view=view, wait=False)
                else:
                    await webhook.send(body, wait=False)
        except Exception:
            log.exception("applying a handed-over press failed")
        finally:
            self.leave()
