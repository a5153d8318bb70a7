"""Presses in DMs under shards: handed to the process that holds the table, and applied
there (a part of :class:`DiscordAdapter`; the transport is :mod:`.handoff`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

from dokobot.adapters.discord.buttons import choices_view, verb
from dokobot.adapters.discord.handoff import Handoff, Press
from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.interaction import used_text
from dokobot.adapters.discord.messages import ask_service, format_text, qualify
from dokobot.host.commands import prompt_answers
from dokobot.host.events import Event, Input, Private

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class HandedPresses(_Base):
    """Hand over DM presses for tables of other processes, and apply those handed to us."""

    _handoff: Handoff | None
    service: Any

    if TYPE_CHECKING:

        def _note(self, inp: Input, events: Sequence[Event]) -> None: ...

        async def push(self, events: list[Event]) -> None: ...

        def _enter(self) -> None: ...

        def _leave(self) -> None: ...

    def _held_elsewhere(self, interaction: discord.Interaction[Any], table: int) -> bool:
        """A press in a DM for a table this process does not hold (another shard's)."""
        if self._handoff is None or interaction.guild_id is not None or not table:
            return False
        return ask_service(self.service, "holds", qualify(table)) is False

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
        )
        try:
            await self._handoff.send(press)
        except Exception:
            log.exception("could not hand a DM press over")
            webhook = self._press_webhook(press)
            lang = lang_of(interaction.locale)
            await webhook.send(text("error", lang), wait=False)

    def _press_webhook(self, press: Press) -> discord.Webhook:
        return discord.Webhook.partial(press.application_id, press.token, client=self)

    async def _handed_over(self, press: Press) -> None:
        """A press handed over by shard 0: applied here if this process holds its table,
        its prompt used up and the user's answers sent through the interaction's token."""
        if ask_service(self.service, "holds", qualify(press.table)) is not True:
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
                view = choices_view(press.table, event.choices, press.marker)
                body = format_text(event.text) or "-"
                if view is not None:
                    await webhook.send(body, view=view, wait=False)
                else:
                    await webhook.send(body, wait=False)
        except Exception:
            log.exception("applying a handed-over press failed")
        finally:
            self._leave()
