"""Presses in DMs under shards: handed to the process that holds the table, and applied
there (a part of :class:`DiscordAdapter`; the transport is :mod:`.handoff`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, cast

import aiohttp
import discord
from discord.ext import commands

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

if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class HandedPresses(_Base):
    """Hand over DM presses for tables of other processes, and apply those handed to us."""

    _handoff: Handoff | None
    _claim_within: float
    languages: Languages
    _background: set[asyncio.Task[None]]
    service: Host

    if TYPE_CHECKING:

        def _note(self, inp: Input, events: Sequence[Event]) -> None: ...

        async def push(self, events: list[Event]) -> None: ...

        def _enter(self) -> None: ...

        def _leave(self) -> None: ...

        def _marker_of(self, table: int, event: Private) -> tuple[int, int] | None: ...

    def _held_elsewhere(self, interaction: discord.Interaction[Any], table: int) -> bool:
        """A press in a DM for a table this process does not hold (another shard's)."""
        if self._handoff is None or interaction.guild_id is not None or not table:
            return False
        return not self.service.holds(qualify(table))

    async def _hand_over(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        command: str,
        label: str,
        marker: tuple[int, int] | None,
    ) -> None:
        """Acknowledge the press at once, then hand it to the holder of its table."""
        assert self._handoff is not None
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
        wait = self._claim_within
        try:
            await asyncio.wait_for(self._handoff.send(press), DECIDE_TIMEOUT_S)
        except Exception as exc:  # (it may have gone out all the same: decided at once)
            log.warning("could not hand a DM press over: %s", exc)
            wait = 0.0
        # not counted as busy (wait_idle): it only waits, and says something if it must
        task = asyncio.create_task(self._unless_taken(press, lang, wait))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

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
        assert self._handoff is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DECIDE_WITHIN_S
        told = False
        while True:
            try:
                expired = await asyncio.wait_for(
                    self._handoff.decide(press, EXPIRED), DECIDE_TIMEOUT_S
                )
                break
            except Exception as exc:
                log.warning("could not decide a handed-over press (%s); not known yet", exc)
                if not told:
                    await self._tell(press, "handoff_unknown", lang)
                    told = True
                if loop.time() >= deadline:
                    log.error("a DM press for table %s stays undecided: the store did not "
                              "answer for %.0f s", press.table, DECIDE_WITHIN_S)  # fmt: skip
                    return
                await asyncio.sleep(DECIDE_RETRY_S)
        if expired:
            await self._not_taken(press, lang)
        elif told:
            await self._tell(press, "handoff_counted", lang)

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
        return discord.Webhook.partial(press.application_id, press.token, client=self)

    async def _handed_over(self, press: Press) -> None:
        """A press handed over by shard 0: applied here if this process holds its table,
        its prompt used up and the user's answers sent through the interaction's token."""
        if not self.service.holds(qualify(press.table)):
            return
        assert self._handoff is not None
        try:
            taken = await self._handoff.decide(press, TAKEN)
        except Exception:
            log.exception("could not take a handed-over press; not applied")
            return
        if not taken:  # too late: its presser was told that nothing happened
            log.warning("a DM press for table %s came after its time; dropped", press.table)
            return
        self._enter()
        try:
            inp = Input(
                channel=qualify(press.table),
                user=qualify(press.user_id),
                name=press.user_name,
                text=press.command,
                dm=True,
                marker=press.marker,
            )
            events = await self.service.handle(inp)
            self._note(inp, events)
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
                marker = self._marker_of(press.table, event)
                view = choices_view(press.table, event.choices, marker)
                body = format_text(event.text) or "-"
                if view is not None:
                    await webhook.send(body, view=view, wait=False)
                else:
                    await webhook.send(body, wait=False)
        except Exception:
            log.exception("applying a handed-over press failed")
        finally:
            self._leave()
