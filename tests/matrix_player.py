"""A person on Matrix for the end-to-end tests: a real Matrix client (mautrix's client API,
the library the adapter uses) with its own sync loop, against the test homeserver.

It accepts every invitation (the bot's direct room), and keeps every message it reads as an
:class:`~irc_server.IrcMessage`, so that the IRC tests' scripted player
(:func:`irc_player.play_until`) plays on Matrix unchanged: a bot message in the game room
reads as a channel line (``PRIVMSG #doko``), one in the direct room as a private one
(``NOTICE nick``). Its nick is its display name (the name its seat takes). Edits (the
board's) are left out.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import aiohttp
from irc_player import BOT, CHANNEL
from irc_server import IrcClient, IrcMessage
from mautrix.api import HTTPAPI
from mautrix.client import ClientAPI
from mautrix.types import EventType, RoomID, UserID


class MatrixPlayer(IrcClient):
    """One Matrix account; ``room`` is the game room, ``bot`` the bot's Matrix ID."""

    def __init__(self, url: str, user_id: str, token: str, name: str, bot: str) -> None:
        super().__init__("127.0.0.1", 0, name)
        self.url = url
        self.user_id = user_id
        self.bot = bot
        self.token = token
        self.room = ""
        self.direct = ""
        self.rooms: set[str] = set()
        self.edits: list[tuple[str, str]] = []
        """(event id edited, new text) of every edit read in the game room."""
        self.present: set[str] = set()
        """Who joined the game room (Matrix IDs) since this client joined it."""
        self.ids: dict[str, str] = {}
        """event id -> text of the bot's messages in the game room."""
        self._session: aiohttp.ClientSession | None = None
        self.api: ClientAPI | None = None

    async def connect(self, timeout: float = 10.0) -> None:
        self._changed = asyncio.Condition()
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
        http = HTTPAPI(self.url, self.token, client_session=self._session)
        self.api = ClientAPI(UserID(self.user_id), api=http)
        first = await asyncio.wait_for(self.api.sync(timeout=0), timeout)
        self._task = asyncio.create_task(self._sync_loop(str(first["next_batch"])))

    async def _sync_loop(self, since: str) -> None:
        assert self.api is not None and self._changed is not None
        while True:
            try:
                data = await asyncio.wait_for(self.api.sync(since=since, timeout=5000), 30)
            except (aiohttp.ClientError, TimeoutError):
                await asyncio.sleep(0.2)
                continue
            since = str(data["next_batch"])
            rooms = data.get("rooms", {})
            for room in rooms.get("invite", {}):
                await asyncio.wait_for(self.api.join_room(RoomID(room), max_retries=0), 30)
                if room != self.room:
                    self.direct = room
            new: list[IrcMessage] = []
            for room, info in rooms.get("join", {}).items():
                self.rooms.add(room)
                for event in info.get("timeline", {}).get("events", []):
                    message = self._message(room, event)
                    if message is not None:
                        new.append(message)
            if new:
                async with self._changed:
                    self.messages.extend(new)
                    self._changed.notify_all()

    def _message(self, room: str, event: dict[str, Any]) -> IrcMessage | None:
        content = event.get("content", {})
        sender = str(event.get("sender", ""))
        joins = event.get("type") == "m.room.member" and content.get("membership") == "join"
        if joins and room == self.room:
            self.present.add(str(event.get("state_key")))
        if event.get("type") != "m.room.message":
            return None
        if "m.new_content" in content:
            if room == self.room and sender == self.bot:
                target = content.get("m.relates_to", {}).get("event_id", "")
                self.edits.append((str(target), str(content["m.new_content"].get("body", ""))))
            return None
        if room == self.room and sender == self.bot:
            self.ids[str(event.get("event_id", ""))] = str(content.get("body", ""))
        who = BOT if sender == self.bot else sender[1:].partition(":")[0]
        body = str(content.get("body", ""))
        if room == self.room:
            raw = f":{who}!m@matrix PRIVMSG {CHANNEL} :{body}"
        elif sender == self.bot:
            raw = f":{who}!m@matrix NOTICE {self.nick} :{body}"
        else:
            return None
        return IrcMessage(raw, time.monotonic())

    async def say(self, target: str, text: str) -> None:
        """``text`` into the game room, or (``target`` the bot) into the direct room."""
        assert self.api is not None
        if target == BOT:
            deadline = time.monotonic() + 20
            while not self.direct and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            room = self.direct
        else:
            room = self.room
        content = {"msgtype": "m.text", "body": text}
        await asyncio.wait_for(
            self.api.send_message_event(RoomID(room), EventType.ROOM_MESSAGE, content), 30
        )

    async def join(self, channel: str, timeout: float = 10.0) -> None:
        """Join the game room ``channel`` (a room id)."""
        assert self.api is not None
        await asyncio.wait_for(self.api.join_room(RoomID(channel), max_retries=0), timeout)
        self.room = channel

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        if self._session is not None:
            await self._session.close()
