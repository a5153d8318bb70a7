"""Each user's settings of the adapter (a part the :class:`DiscordAdapter` holds): where
his prompts go (``/prompts``) and the colours of his card pictures (``/deck``), kept in the
store through the host and remembered here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

import discord

from dokobot import bounded
from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.messages import qualify
from dokobot.bounded import Bounded
from dokobot.host.contract import Host
from dokobot.host.i18n import render as host_render
from dokobot.render.cards import deck_of
from dokobot.store import StoreUnknown

log = logging.getLogger(__name__)

PROMPTS_PREFERENCE: Final = "discord_prompts"
"""The name under which the service keeps a user's ``/prompts`` choice (``"dm"``/``"here"``)."""
DECK_PREFERENCE: Final = "deck"
"""The name under which the service keeps a user's ``/deck`` choice (a name of
:data:`dokobot.render.DECKS`)."""


class UserSettings:
    """The users' ``/prompts`` and ``/deck`` choices. ``prompts_default``: where the prompts
    of a user who never chose go; ``language_of(user_id)``: the language he chose, if any."""

    def __init__(
        self,
        host: Host,
        prompts_default: str,
        language_of: Callable[[int], str | None],
    ) -> None:
        self.host = host
        self.prompts_default = prompts_default
        self.language_of = language_of
        users = bounded.CAPS.users
        self._prompt_here: Bounded[int, bool] = Bounded(users)
        self._decks: Bounded[int, str] = Bounded(users)

    async def prompts_here(self, user_id: int) -> bool:
        """Whether ``user_id``'s prompts stay in the channel ("My cards" and the board): all
        but those who chose ``/prompts dm`` (remembered here, else asked of the service,
        which has it from the store)."""
        here = self._prompt_here.get(user_id)
        if here is not None:
            return here
        try:
            chosen = await self.host.preference_of(qualify(user_id), PROMPTS_PREFERENCE)
        except Exception as exc:
            log.warning("could not read where a user's prompts go (%s); in the channel this "
                        "time", exc)  # fmt: skip
            return True
        return self._prompt_here.setdefault(user_id, (chosen or self.prompts_default) != "dm")

    def prompts_remembered(self, user_id: int) -> bool | None:
        """Where ``user_id``'s prompts go as held here (True: in the channel), without
        asking the service; None when it is not held (forgotten or never read)."""
        return self._prompt_here.get(user_id)

    def forget(self, user_id: int) -> None:
        """Drop what is held of ``user_id``'s choices (as the cap does for the least recently
        used): the next read asks the service, which has them from the store."""
        self._prompt_here.pop(user_id, None)
        self._decks.pop(user_id, None)

    async def deck(self, user_id: int) -> str:
        """The deck ``user_id`` chose with ``/deck`` (remembered here, else asked of the
        service), or the default one."""
        deck = self._decks.get(user_id)
        if deck is not None:
            return deck
        try:
            chosen = await self.host.preference_of(qualify(user_id), DECK_PREFERENCE)
        except Exception as exc:
            log.warning("could not read a user's deck (%s); the default one this time", exc)
            return deck_of(None)
        return self._decks.setdefault(user_id, deck_of(chosen))

    async def set_prompts(self, interaction: discord.Interaction[Any], where: str) -> None:
        """``/prompts dm|here``: where this user's prompts go (answered by the adapter)."""
        if await self._set_preference(interaction, PROMPTS_PREFERENCE, where, "prompts_" + where):
            self._prompt_here[interaction.user.id] = where == "here"

    async def set_deck(self, interaction: discord.Interaction[Any], deck: str) -> None:
        """``/deck classic|four|german``: the colours of this user's card pictures."""
        deck = deck_of(deck)
        if await self._set_preference(interaction, DECK_PREFERENCE, deck, "deck_" + deck):
            self._decks[interaction.user.id] = deck

    async def _set_preference(
        self, interaction: discord.Interaction[Any], name: str, value: str, answer: str
    ) -> bool:
        """Keep a user's choice of an adapter setting in the store and tell him ``answer``
        (one of the adapter's texts); False (and he is told) if the store cannot keep it."""
        user = interaction.user.id
        lang = self.language_of(user) or lang_of(interaction.locale)
        try:
            await self.host.remember_preference(qualify(user), name, value)
        except Exception as exc:
            log.exception("store: a user's %s not saved; choice undone", name)
            unknown = isinstance(exc, StoreUnknown)  # (stored or not: not known yet)
            failed = host_render(lang, "setting_unknown" if unknown else "store_failed")
            await interaction.response.send_message(failed, ephemeral=True)
            return False
        await interaction.response.send_message(text(answer, lang), ephemeral=True)
        return True
