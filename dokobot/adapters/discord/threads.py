"""A thread per table (a part the :class:`DiscordAdapter` holds): a ``/join`` in a text channel
where nobody sits opens the table in a public thread of that channel, named after the
table, and the table lives there (its lobby, board and messages); chat in the channel never
buries a board, and several tables share one channel. A later ``/join`` in the channel joins
the thread's table while it has a free seat and no game runs, else opens the next thread.

It needs the adapter's ``threads`` switch (``run_discord`` turns it on), the table option
``thread`` (on by default; ``/option thread off`` in a channel keeps its table there) and
the permissions Create Public Threads and Send Messages in Threads; without them the table
stays in the channel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final

import aiohttp
import discord

from dokobot import bounded
from dokobot.adapters.discord.buttons import verb
from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.lobby import _LobbyMessage
from dokobot.adapters.discord.messages import qualify
from dokobot.bounded import Bounded
from dokobot.host.contract import Host

log = logging.getLogger(__name__)

NEW_TABLE: Final = "newtable"
"""The command of the lobby's button "New table" (the adapter's own): a ``/join`` in a new
thread of the channel the button names."""
ARCHIVE_MINUTES: Final = 1440
"""A table's thread is archived by Discord after a day without messages."""
THREAD_TYPES: Final = (discord.ChannelType.public_thread, discord.ChannelType.private_thread)
JOIN_WITHIN: Final = 20.0
"""Seconds adding a player to a table's thread may take before it is given up."""
OPEN_THREAD_S: Final = 20.0
"""Seconds opening a table's thread may take (rate limits included) before the ``/join`` is
answered that no thread could be made."""


class Threads:
    """Opening tables in threads of the channels of ``client``, and seating their players
    there; ``on``: the adapter's ``threads`` switch. ``in_background(coro)`` runs ``coro``
    while the adapter counts as busy, until ``coro`` calls ``leave``."""

    def __init__(
        self,
        client: discord.Client,
        host: Host,
        on: bool,
        *,
        in_background: Callable[[Coroutine[Any, Any, None]], None],
        leave: Callable[[], None],
    ) -> None:
        self.client = client
        self.host = host
        self.on = on
        self.in_background = in_background
        self.leave = leave
        self._members: Bounded[tuple[int, int], bool] = Bounded(bounded.CAPS.users)
        """(thread, user): players added to a table's thread."""
        channels = bounded.CAPS.channels
        self._threads: Bounded[int, int] = Bounded(channels)
        """Per text channel: the thread of its newest table."""
        self._parents: Bounded[int, int] = Bounded(channels)
        """Per table thread: its text channel."""
        self._thread_locks: Bounded[int, asyncio.Lock] = Bounded(channels)
        """Per text channel: held while a ``/join`` there finds or opens its thread, so
        that joins at the same moment go to one thread."""

    def parent_of(self, thread: int) -> int | None:
        """The text channel of a table's thread (None: not a table thread of this bot)."""
        return self._parents.get(thread)

    def seat(self, table: int, users: list[int]) -> None:
        """Add the seated ``users`` to the table's thread, each once."""
        if self.parent_of(table) is None:
            return
        for user in users:
            if (table, user) not in self._members:
                self._members[(table, user)] = True
                self.in_background(self._add_member(table, user))

    async def _add_member(self, table: int, user: int) -> None:
        try:
            await asyncio.wait_for(self.client.http.add_user_to_thread(table, user), JOIN_WITHIN)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("could not add a player to the thread %s: %s", table, exc)
            self._members.pop((table, user), None)  # the next game tries again
        finally:
            self.leave()

    async def thread_for(
        self,
        interaction: discord.Interaction[Any],
        command: str,
        lobby_of: Callable[[int], _LobbyMessage | None],
        new_in: int | None = None,
        before_waiting: Callable[[], Awaitable[object]] | None = None,
    ) -> int | None:
        """The thread whose table a ``/join`` typed in a text channel goes to (made now if
        needed; ``new_in``: a new one in that channel, the lobby's "New table"), or None:
        the command stays in its channel. ``lobby_of``: the lobby message of a thread.
        ``before_waiting`` is awaited before anything that waits for Discord (opening a
        thread, or another ``/join`` of the channel opening one): the interaction is
        acknowledged before, as a thread may take longer than Discord's 3 s."""
        channel = interaction.channel
        parent = interaction.channel_id if new_in is None else new_in
        in_thread = new_in is None and getattr(channel, "type", None) in THREAD_TYPES
        if (
            not self.on
            or verb(command) != "join"
            or interaction.guild_id is None
            or parent is None
            or in_thread
        ):
            return None
        perms = interaction.app_permissions
        if not (perms.create_public_threads and perms.send_messages_in_threads):
            return None
        if not self.host.opens_thread(qualify(parent)):
            return None
        lock = self._thread_locks.get(parent)
        if lock is None:
            lock = self._thread_locks[parent] = asyncio.Lock()
        if lock.locked() and before_waiting is not None:
            await before_waiting()
        async with lock:
            current = self._threads.get(parent)
            if current is not None and new_in is None:
                lobby = lobby_of(current)
                # no lobby yet: the thread was opened a moment ago and its first /join is
                # on its way to the table
                if lobby is None or (not lobby.view.running and not lobby.view.full):
                    return current
            if before_waiting is not None:
                await before_waiting()
            return await self._open_thread(interaction, parent)

    async def _open_thread(self, interaction: discord.Interaction[Any], parent: int) -> int | None:
        """A new public thread of ``parent`` for a table (None: Discord refused it)."""
        lang = lang_of(interaction.guild_locale)
        name = text("thread_name", lang, player=interaction.user.display_name)[:100]
        try:
            data = await asyncio.wait_for(
                self.client.http.start_thread_without_message(
                    parent,
                    name=name,
                    auto_archive_duration=ARCHIVE_MINUTES,
                    type=discord.ChannelType.public_thread.value,
                ),
                OPEN_THREAD_S,
            )
        except discord.HTTPException as exc:
            log.warning("could not open a thread for a table: %s %s", exc.status, exc.text)
            return None
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            log.warning("could not open a thread for a table: %r", exc)
            return None
        thread = int(data["id"])
        self._threads[parent] = thread
        self._parents[thread] = parent
        return thread
