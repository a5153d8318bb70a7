"""Who is notified, and when (a part the :class:`DiscordAdapter` holds).

Discord notifies a person only by a new message that mentions him (an edit never does, an
ephemeral message never does), and an ephemeral "My cards" panel may be gone without the bot
knowing (a reload, a phone app killed in the background). So:

* the first board post of each game mentions everybody seated; that notification counts for
  each one's first turn of the game;
* every other turn that waits for a person gets exactly one short message that mentions only
  him, with "My cards" (a *ping*); it is deleted as soon as he acts or the turn is past. A
  player who may be looking at his panel (the bot believes one is live) gets it after
  ``ping_grace`` seconds, so that a quick move costs no message; the others at once;
* the reminder of the turn clock edits that message (an edit notifies nobody), it is not
  filed away in a panel;
* every other post and edit notifies nobody (``allowed_mentions`` none, and posts are
  silent: Discord's suppress-notifications flag);
* a table in a thread adds its seated players to the thread once (its members see it in
  their channel list, with an unread badge).

A prompt counts as delivered (``prompt_sent``) only when its notification is visible; the
host's turn clock does not wait for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
import discord

from dokobot.adapters.discord.decisions import Decisions
from dokobot.adapters.discord.i18n import text
from dokobot.adapters.discord.interaction import _BoardMessage
from dokobot.adapters.discord.messages import qualify
from dokobot.bounded import Bounded
from dokobot.host.contract import Host
from dokobot.host.events import Private

log = logging.getLogger(__name__)

PING_GRACE: Final = 8.0
"""Seconds a player whose "My cards" panel the bot believes live has before he is pinged."""
PING_WITHIN: Final = 20.0
"""Seconds a ping, its edit or its deletion may take before it is given up."""
ARCHIVED: Final = 50083
"""Discord's code for an operation refused because the thread is archived."""


@dataclass(eq=False)
class _Ping:
    """The notification of one turn (decision ``marker``) of a player: a message of its
    own once sent (``message_id``), or the board's first post (``message_id`` None)."""

    marker: tuple[int, int] | None
    message_id: int | None = None
    task: asyncio.Task[None] | None = None
    text: str = ""
    seen: bool = False
    """He opened "My cards" on this turn: no ping (any more)."""


def _past(ping: _Ping, current: tuple[int, int] | None) -> bool:
    """Whether the turn of ``ping`` is past: the table is at a later decision."""
    return ping.marker is not None and current is not None and ping.marker < current


class TurnPings:
    """Notifications of the player on turn and thread members, by ``client``: it holds the
    notification of each player's turn at each table. It reads the adapter's board messages
    (``boards``: whether the first post called a player) and each table's current decision
    (``decisions``). ``enter``/``leave``: the adapter counts as busy between them;
    ``background``: the adapter's running tasks (awaited when it closes); ``hand_view``,
    ``channel_lang``: the "My cards" button and the language of a channel;
    ``service``: the host, told when a prompt's notification is visible."""

    def __init__(
        self,
        client: discord.Client,
        *,
        boards: Bounded[int, _BoardMessage],
        decisions: Decisions,
        users: int,
        ping_grace: float,
        background: set[asyncio.Task[None]],
        enter: Callable[[], None],
        leave: Callable[[], None],
        hand_view: Callable[[int], discord.ui.View],
        channel_lang: Callable[[int], str],
        service: Host,
    ) -> None:
        self._client = client
        self._pings: Bounded[tuple[int, int], _Ping] = Bounded(users)
        """The notification of each player's turn at each table."""
        self._boards = boards
        self._decisions = decisions
        self._ping_grace = ping_grace
        self._background = background
        self._enter = enter
        self._leave = leave
        self._hand_view = hand_view
        self.channel_lang = channel_lang
        self._service = service

    def _in_background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` (which calls ``_leave`` when done) without waiting for it."""
        self._enter()
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def prompt_delivered(self, table: int, user_id: int) -> None:
        """The user has his prompt: the host's turn timer starts now."""
        try:
            self._service.prompt_sent(qualify(table), qualify(user_id))
        except Exception:
            log.exception("prompt_sent failed")

    # -- the ping of a turn --------------------------------------------------------------------

    def turn_waits(
        self, table: int, user_id: int, marker: tuple[int, int] | None, looking: bool
    ) -> None:
        """A prompt (decision ``marker``) waits for ``user_id``: he gets exactly one
        notification for it (``looking``: the bot believes his panel shows it, so the ping
        waits ``ping_grace`` seconds for his move)."""
        key = (table, user_id)
        ping = self._pings.get(key)
        if ping is not None and ping.marker == marker:
            return
        if ping is not None:
            self._end_ping(table, user_id)
        if self._called_by_board(table, user_id):
            self._pings[key] = _Ping(marker, seen=True)
            self.prompt_delivered(table, user_id)
            return
        ping = self._pings[key] = _Ping(marker)
        grace = self._ping_grace if looking else 0.0
        if not grace:
            self._enter()  # busy from now on (a grace is waited out idle)
        ping.task = asyncio.create_task(self._ping_later(table, user_id, ping, grace))
        self._background.add(ping.task)
        ping.task.add_done_callback(self._background.discard)

    def _called_by_board(self, table: int, user_id: int) -> bool:
        """Whether the first board post of the game called ``user_id`` and that is the
        notification of this turn (his first of the game)."""
        board = self._boards.get(table)
        if board is None or board.message_id is None or user_id not in board.greeted:
            return False
        board.greeted.remove(user_id)
        return True

    def _current(self, table: int, user_id: int, ping: _Ping) -> bool:
        """Whether ``ping`` is still the notification of a turn that waits."""
        if self._pings.get((table, user_id)) is not ping or ping.seen:
            return False
        return not _past(ping, self._decisions.current(table))

    async def _ping_later(self, table: int, user_id: int, ping: _Ping, grace: float) -> None:
        if grace:
            await asyncio.sleep(grace)
            self._enter()
        try:
            if not self._current(table, user_id, ping):
                return
            if self._called_by_board(table, user_id):  # posted while the ping waited
                ping.seen = True
                self.prompt_delivered(table, user_id)
                return
            lang = self.channel_lang(table)
            ping.text = text("board_call", lang, mentions=f"<@{user_id}>")
            message = await asyncio.wait_for(
                self._client.get_partial_messageable(table).send(
                    ping.text,
                    view=self._hand_view(table),
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False, roles=False, users=[discord.Object(id=user_id)]
                    ),
                ),
                PING_WITHIN,
            )
            ping.message_id = message.id
            if self._current(table, user_id, ping):
                self.prompt_delivered(table, user_id)
            else:  # he moved (or the turn passed) while it was on its way
                await self._delete(table, message.id)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("could not notify a player in channel %s: %s", table, exc)
        finally:
            self._leave()

    def _end_ping(self, table: int, user_id: int) -> None:
        """He acted, or his turn is past: his ping goes (its message is deleted)."""
        ping = self._pings.pop((table, user_id), None)
        if ping is None:
            return
        if ping.message_id is not None:
            self._in_background(self._deleted(table, ping.message_id))

    def ack(self, table: int, user_id: int) -> None:
        """He opened "My cards" on his turn: he knows; his ping goes, and none comes for this
        turn any more (nor does the board's first post count for a later one)."""
        self._called_by_board(table, user_id)
        ping = self._pings.get((table, user_id))
        if ping is None:
            return
        ping.seen = True
        if ping.message_id is not None:
            self._in_background(self._deleted(table, ping.message_id))
            ping.message_id = None

    def acted(self, table: int, user_id: int, marker: tuple[int, int] | None) -> None:
        """He answered the decision ``marker`` (None: a typed command): the ping of that
        turn goes. A ping of a later turn stays: the computer players may have moved and
        called him again before his answer got here."""
        self._called_by_board(table, user_id)  # he knows the game runs
        ping = self._pings.get((table, user_id))
        if ping is not None and (
            ping.marker == marker or _past(ping, self._decisions.current(table))
        ):
            self._end_ping(table, user_id)

    def end_past(self, table: int) -> None:
        """The pings at ``table`` whose turn is past (a stand-in moved, the game ended)."""
        current = self._decisions.current(table)
        for key in [k for k, p in self._pings.items() if k[0] == table and _past(p, current)]:
            self._end_ping(*key)

    async def _deleted(self, table: int, message_id: int) -> None:
        try:
            await self._delete(table, message_id)
        finally:
            self._leave()

    async def _delete(self, table: int, message_id: int) -> None:
        try:
            await asyncio.wait_for(self._client.http.delete_message(table, message_id), PING_WITHIN)
        except discord.NotFound:
            pass  # deleted by someone already
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("could not delete a notification in channel %s: %s", table, exc)

    async def remind(self, table: int, user_id: int, event: Private) -> None:
        """The turn clock's reminder: onto the player's ping (an edit: no second
        notification), or a ping now if none went out for his turn yet."""
        ping = self._pings.get((table, user_id))
        if ping is None:
            self.turn_waits(table, user_id, self._decisions.current(table), False)
            return
        if ping.message_id is None or not event.text.strip():
            return  # the board's post called him (its countdown says the rest)
        content = f"{ping.text}\n{event.text.strip()}"[:2000]
        try:
            await asyncio.wait_for(
                self._client.get_partial_messageable(table)
                .get_partial_message(ping.message_id)
                .edit(content=content),
                PING_WITHIN,
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("could not add the reminder to a notification: %s", exc)
