"""The lobby message of each table: posted with the table's first batch, then edited in
place whenever what it shows changes (a part the :class:`DiscordAdapter` holds)."""

from __future__ import annotations

import logging

import discord

from dokobot import bounded
from dokobot.adapters.discord.lobby import NEWS, _LobbyMessage, lobby_components, lobby_embed
from dokobot.adapters.discord.notify import ARCHIVED
from dokobot.adapters.discord.threads import Threads
from dokobot.bounded import Bounded
from dokobot.host.board import LobbyView

log = logging.getLogger(__name__)


class Lobbies:
    """Shows the lobbies in the channels of ``client`` (a table in a thread of ``threads``
    offers a new table in the thread's channel)."""

    def __init__(self, client: discord.Client, threads: Threads) -> None:
        self.client = client
        self.threads = threads
        self._lobbies: Bounded[int, _LobbyMessage] = Bounded(bounded.CAPS.channels)

    def get(self, channel_id: int) -> _LobbyMessage | None:
        """The lobby message of the table in ``channel_id``, if one was shown."""
        return self._lobbies.get(channel_id)

    def message(self, channel_id: int) -> int | None:
        """The id of the lobby message in ``channel_id``, if one was sent."""
        lobby = self._lobbies.get(channel_id)
        return None if lobby is None else lobby.message_id

    async def show(self, channel_id: int, view: LobbyView, texts: list[str]) -> None:
        """Show ``view`` (and ``texts`` as its latest news) on the lobby of the table in
        ``channel_id``: post it the first time, edit it when what it shows changed. One post
        or edit at a time: while one is on its way (a slow answer, a starved process), the
        batches after it send nothing, and one edit with their latest state follows it (one
        request per join queued behind the request budget, ahead of the boards' edits)."""
        lobby = self._lobbies.get(channel_id)
        if (lobby is None or lobby.message_id is None) and not texts:
            return  # nothing new to say (e.g. after a restart): no new message for it
        if lobby is None:
            lobby = self._lobbies[channel_id] = _LobbyMessage(channel_id, view)
        lobby.view = view
        lobby.news = [*lobby.news, *(t for t in texts if t.strip())][-NEWS:]
        shown = (view, tuple(lobby.news))
        if shown == lobby.shown or lobby.sending:
            return  # (the post or edit on its way is followed by one with this state)
        lobby.sending = True
        try:
            while shown != lobby.shown:
                # noted before it is sent: a failed send is tried again by the next batch
                before, lobby.shown = lobby.shown, shown
                try:
                    await self._send_lobby(channel_id, lobby, shown[0])
                except BaseException:
                    if lobby.shown == shown:
                        lobby.shown = before  # not shown: the next batch tries again
                    raise
                shown = (lobby.view, tuple(lobby.news))  # what came while it was on its way
        finally:
            lobby.sending = False

    async def _send_lobby(self, channel_id: int, lobby: _LobbyMessage, view: LobbyView) -> None:
        lang = view.language
        embed = lobby_embed(view, lobby.news, lang)
        components = lobby_components(channel_id, view, lang, self.threads.parent_of(channel_id))
        target = self.client.get_partial_messageable(channel_id)
        if lobby.message_id is None:
            message = await target.send(embed=embed, view=components, silent=True)
            lobby.message_id = message.id
        else:
            try:
                await target.get_partial_message(lobby.message_id).edit(
                    embed=embed, view=components
                )
            except discord.HTTPException as exc:
                # deleted by someone, or its thread archived (a new message unarchives it):
                # a fresh one
                if not isinstance(exc, discord.NotFound) and exc.code != ARCHIVED:
                    raise
                message = await target.send(embed=embed, view=components, silent=True)
                lobby.message_id = message.id
