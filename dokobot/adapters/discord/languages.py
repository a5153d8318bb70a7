"""The languages of the adapter's own words (a part the :class:`DiscordAdapter` holds):
what the host wrote in at each channel and to each reader, learnt from its events; a
reader's ``/lang`` choice comes back from the host once forgotten here."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from dokobot import bounded
from dokobot.adapters.discord.i18n import lang_of
from dokobot.adapters.discord.messages import qualify, snowflake_of
from dokobot.bounded import Bounded
from dokobot.host.contract import Host
from dokobot.host.events import Event, Private, Public


class Languages:
    """The languages of the channels and users of ``client``."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host
        self._lang: Bounded[int, str] = Bounded(bounded.CAPS.channels)
        self._user_lang: Bounded[int, str | None] = Bounded(bounded.CAPS.users)
        """Languages set with /lang here; a forgotten one comes back from the service."""

    def learn(self, events: Sequence[Event]) -> None:
        """The languages the host wrote in: a reader's (a private message carries it) and a
        channel's (a public one does); the adapter's own words follow them."""
        for event in events:
            if isinstance(event, Private) and event.lang:
                user = snowflake_of(event.user)
                if user is not None:
                    self._user_lang[user] = event.lang
            elif isinstance(event, Public) and event.lang:
                channel = snowflake_of(event.channel)
                if channel is not None:
                    self._lang[channel] = event.lang

    def set_channel(self, channel_id: int, lang: str) -> None:
        """The table in ``channel_id`` speaks ``lang`` (its board says so)."""
        self._lang[channel_id] = lang

    def channel(self, channel_id: int) -> str:
        """The language of the adapter's own words in a channel."""
        lang = self._lang.get(channel_id)
        if lang is not None:
            return lang
        channel = self.client.get_channel(channel_id)
        guild = getattr(channel, "guild", None)
        if isinstance(guild, discord.Guild):
            return lang_of(guild.preferred_locale)
        return "en"

    def user(self, user_id: int) -> str | None:
        """The language ``user_id`` chose with /lang, if any: remembered here, else asked of
        the service (which has it from the store)."""

        def load(user: int) -> str | None:
            return self.host.language_of(qualify(user))

        return self._user_lang.remembered(user_id, load, keep_none=False)

    def remembers_user(self, user_id: int) -> bool:
        """Whether ``user_id``'s /lang is held here (else :meth:`user` asks the service)."""
        return user_id in self._user_lang
