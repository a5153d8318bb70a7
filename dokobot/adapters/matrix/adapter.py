"""The Matrix adapter: a bot account on a homeserver, through the client-server API (mautrix).

* Rooms: the configured ones and every room the bot is invited to. ``!join``, ``!play ♣Q`` …
  (the commands' words in every language) in a room, and every line of a player's direct
  room, go to the host, through the text-chat layer (:mod:`dokobot.adapters.textchat`: the
  commands as typed, the line budget, prompts, hands, reminders, what is out of date).
* Ids: channel ``matrix:!room``, user ``matrix:@name:server`` (Matrix IDs are global);
  a seat is named by the person's display name in the room. Admins: ``admins`` and a
  room's moderators (power level 50 and above).
* The hand and the prompts go to a direct room with the player (``m.direct``, kept in the
  bot's account data on the homeserver): opened (an invitation) the first time a person
  writes a command; a person who invites the bot to a direct room gets that one. A prompt
  waits until the player is in the direct room and is sent again when he comes back.
* The board is one message per table, edited in place (``m.replace``) after every batch;
  only the newest board of a room is sent when edits pile up.
* Rate limits: every message passes a token bucket (``send_burst``, ``send_rate``); when the
  homeserver answers ``M_LIMIT_EXCEEDED`` the message is sent again, with the same
  transaction id (never twice), after ``retry_after_ms`` (or ``Retry-After``). Every
  request has a deadline.
* Restarts: the tables are the store's; the sync token is kept in the store
  (``remember_preference``) after each sync, so a restarted bot reads only what came after
  (what was said while it was down counts; nothing is read twice; a command that arrived
  at the instant of a crash may be lost, never applied twice). What a room said before the
  bot joined it is history, never a command. A waiting prompt is sent again once seen.
* The access token comes from ``DOKOBOT_MATRIX_TOKEN`` only and is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Sequence
from functools import partial
from typing import Any
from urllib.parse import quote

import aiohttp
from mautrix.api import HTTPAPI
from mautrix.client import ClientAPI
from mautrix.errors import MatrixRequestError
from mautrix.types import SyncToken, UserID

from dokobot.host.contract import Host
from dokobot.host.events import Board, Event

from ..textchat import OutLine, TextChat, TextPlatform, run_on_host
from ..textchat.guard import swallowed
from .board import board_text
from .settings import MatrixSettings

log = logging.getLogger("dokobot.adapters.matrix")
_logged = partial(swallowed, log, "Matrix")
"""Log and swallow any exception: nothing stops the adapter."""

PREFIX = "matrix:"
SYNC_WAIT_MS = 20000
"""How long the homeserver may hold a sync open when nothing happens."""
REQUEST_S = 30.0
"""Deadline of every other request."""
MAX_RETRY_S = 60.0
"""The longest wait for a rate limit (a longer ``retry_after_ms`` is cut to it)."""
TRIES = 20
"""How often one message is tried against the rate limit before it is given up."""
BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0)
"""Waits before reconnecting after failed syncs (the last one repeats)."""
SYNC_PREFERENCE = "matrix_sync"
"""The name under which the sync token is kept (the bot's own preference)."""
FILTER = json.dumps({"room": {"timeline": {"limit": 100}}, "presence": {"types": []}})


class MatrixError(Exception):
    """A request the homeserver refused (not a rate limit)."""


class MatrixAdapter(TextPlatform):
    """One bot account on one homeserver, serving ``host`` (see the module docs)."""

    sign = "!"

    def __init__(self, host: Host, settings: MatrixSettings, token: str) -> None:
        self.host = host
        self.settings = settings
        self.prefix = PREFIX
        self.max_line_bytes = settings.max_message_bytes
        self.me = UserID(settings.user_id)
        self._token = token
        self.chat = _Chat(host, self, burst=settings.send_burst, rate=settings.send_rate)
        self.members: dict[str, set[str]] = {}
        """room -> the Matrix IDs joined there."""
        self.names: dict[str, str] = {}
        """Matrix ID -> display name (the latest one seen)."""
        self.power: dict[str, tuple[dict[str, int], int]] = {}
        """room -> (power levels by Matrix ID, the default level)."""
        self.direct: dict[str, str] = {}
        """Matrix ID -> the direct room with him (``m.direct``)."""
        self.limited = 0
        """How often the homeserver answered M_LIMIT_EXCEEDED."""
        self._boards: dict[str, str] = {}
        """room -> the text of the newest board to show."""
        self._board_events: dict[str, tuple[str, str]] = {}
        """room -> (event id of the board message, its text now)."""
        self._board_waiting = asyncio.Event()
        self._online = asyncio.Event()
        self._stop = asyncio.Event()
        self._running: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._client: ClientAPI | None = None

    # -- the text-chat layer's questions ------------------------------------------------------

    def room(self, channel: str) -> str | None:
        rest = channel[len(PREFIX) :] if channel.startswith(PREFIX) else ""
        return rest if rest.startswith("!") else None

    def address(self, user: str) -> str | None:
        """The direct room, while nobody else is in it (a hand is for its player only)."""
        mxid = user[len(PREFIX) :]
        room = self.direct.get(mxid) if user.startswith(PREFIX) else None
        return room if room and self.members.get(room, set()) <= {self.me, mxid} else None

    def present(self, user: str) -> bool:
        mxid = user[len(PREFIX) :]
        room = self.direct.get(mxid)
        return room is not None and mxid in self.members.get(room, ())

    async def online(self) -> None:
        await self._online.wait()

    def keeps(self, room: str, text: str) -> bool:
        return False

    async def send(self, line: OutLine, to: str) -> bool:
        try:
            await self._send(to, {"msgtype": "m.notice", "body": line.text})
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("Matrix: sending failed: %s", type(exc).__name__)
            await asyncio.sleep(BACKOFF_S[0])
            return False
        return True

    # -- life -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect and serve until :meth:`stop` (or cancellation)."""
        timeout = aiohttp.ClientTimeout(total=SYNC_WAIT_MS / 1000 + REQUEST_S)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            self._session = session
            api = HTTPAPI(self.settings.homeserver, self._token, client_session=session)
            self._client = ClientAPI(self.me, api=api)
            boards = asyncio.create_task(self._board_worker(), name="matrix-boards")
            self._running = asyncio.current_task()
            try:
                await self.chat.serve(self._connection)
            except asyncio.CancelledError:
                if not self._stop.is_set() or self._running is None:
                    raise
                self._running.uncancel()  # stopped by stop(): return
            finally:
                boards.cancel()
                await asyncio.gather(boards, return_exceptions=True)

    async def stop(self) -> None:
        """Make :meth:`run` return (a sync under way is cut short)."""
        self._stop.set()
        if self._running is not None:
            self._running.cancel()

    async def wait_ready(self, timeout: float) -> None:
        await asyncio.wait_for(self._online.wait(), timeout)  # the first sync is through

    async def deliver(self, events: Sequence[Event]) -> None:
        """The host's events (its listener; the answers to inputs come the same way)."""
        await self.chat.deliver(events)

    def boards(self, events: Sequence[Event]) -> list[Event]:
        """Take the boards of this chat's rooms out of ``events`` (each room's newest is
        shown); the rest."""
        rest: list[Event] = []
        for event in events:
            room = self.room(event.channel)
            if isinstance(event, Board):
                if room is not None:
                    self._boards[room] = board_text(event.view)
                    self._board_waiting.set()
            else:
                rest.append(event)
        return rest

    # -- the connection ------------------------------------------------------------------------

    async def _connection(self) -> None:
        token = await self._stored_token()
        first = token is None  # the very first start: the rooms' history is not new
        failures = 0
        await self._startup()
        while not self._stop.is_set():
            try:
                since = SyncToken(token) if token else None
                # the first sync after a start brings the rooms' whole state (who is there)
                full = not self._online.is_set()
                assert self._client is not None, "run() first"
                sync = self._client.sync(since=since, timeout=0 if full else SYNC_WAIT_MS,
                                        filter_id=FILTER, full_state=full)  # type: ignore[arg-type]  # fmt: skip
                data = await self._call(sync)
            except (aiohttp.ClientError, TimeoutError, MatrixError) as exc:
                self._online.clear()
                delay = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
                failures += 1
                log.warning("Matrix: sync failed (%s); again in %.0f s", type(exc).__name__, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)
                continue
            failures = 0
            await self._take(data, history=first)
            first = False
            if data.get("next_batch") and data["next_batch"] != token:
                token = str(data["next_batch"])
                with _logged("keeping the sync token"):
                    await self.host.remember_preference(PREFIX + self.me, SYNC_PREFERENCE, token)
            if not self._online.is_set():
                self._online.set()
                self.chat.connected()
                await self._join_rooms()
                for mxid in {m for people in self.members.values() for m in people} - {self.me}:
                    self.chat.seen(PREFIX + mxid)

    async def _startup(self) -> None:
        """Load the direct rooms (with a deadline)."""
        while not self._stop.is_set():
            try:
                self._take_direct(await self._request("GET", self._direct_path()))
                break
            except MatrixError:  # none yet
                break
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("Matrix: homeserver not reachable (%s)", type(exc).__name__)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), BACKOFF_S[1])

    async def _join_rooms(self) -> None:
        """Join the configured rooms (after a sync: what was said there before is history)."""
        for room in self.settings.rooms:
            with _logged(f"joining {room}"):
                await self._request("POST", f"join/{_q(room)}", {})

    async def _stored_token(self) -> str | None:
        try:
            return await self.host.preference_of(PREFIX + self.me, SYNC_PREFERENCE)
        except Exception:
            log.exception("Matrix: the sync token could not be read; the history is skipped")
            return None

    def _direct_path(self) -> str:
        return f"user/{_q(self.me)}/account_data/m.direct"

    async def _call(self, request: Any) -> Any:
        """One request of the library with a deadline (the sync); a refusal becomes
        :class:`MatrixError`."""
        try:
            return await asyncio.wait_for(request, SYNC_WAIT_MS / 1000 + REQUEST_S)
        except MatrixRequestError as exc:
            raise MatrixError(f"{exc.errcode}: {exc.message}") from exc

    # -- what a sync brings -------------------------------------------------------------------

    async def _take(self, data: dict[str, Any], *, history: bool) -> None:
        rooms = data.get("rooms", {})
        for event in data.get("account_data", {}).get("events", []):
            if event.get("type") == "m.direct":
                self._take_direct(event.get("content", {}))
        for room, info in rooms.get("invite", {}).items():
            await self._invited(room, info)
        for room in rooms.get("leave", {}):
            self.members.pop(room, None)
        for room, info in rooms.get("join", {}).items():
            for event in info.get("state", {}).get("events", []):
                self._state(room, event)
            timeline = info.get("timeline", {}).get("events", [])
            # what the room said before the bot joined it is history
            joins = [n for n, e in enumerate(timeline) if self._is_my_join(e)]
            for n, event in enumerate(timeline):
                if "state_key" in event:
                    self._state(room, event)
                elif (
                    not history
                    and n > max(joins, default=-1)
                    and event.get("type") == "m.room.message"
                ):
                    await self._message(room, event)

    def _is_my_join(self, event: dict[str, Any]) -> bool:
        """Whether ``event`` is the bot joining a room (not a change of its profile)."""
        before = event.get("unsigned", {}).get("prev_content", {}).get("membership")
        return (event.get("type") == "m.room.member" and event.get("state_key") == self.me
                and event.get("content", {}).get("membership") == "join" and before != "join")  # fmt: skip

    def _take_direct(self, content: dict[str, Any]) -> None:
        self.direct.update({m: str(r[-1]) for m, r in content.items() if isinstance(r, list) and r})

    async def _invited(self, room: str, info: dict[str, Any]) -> None:
        """Join a room the bot is invited to; an invitation to a direct room makes it the
        inviter's direct room."""
        events = info.get("invite_state", {}).get("events", [])
        mine = next((e for e in events if e.get("type") == "m.room.member"
                     and e.get("state_key") == self.me), None)  # fmt: skip
        with _logged("joining a room it was invited to"):
            await self._request("POST", f"join/{_q(room)}", {})
            if mine and mine.get("content", {}).get("is_direct") and mine.get("sender"):
                await self._remember_direct(str(mine["sender"]), room)

    def _state(self, room: str, event: dict[str, Any]) -> None:
        kind, content = event.get("type"), event.get("content", {})
        if kind == "m.room.member":
            mxid = str(event.get("state_key", ""))
            people = self.members.setdefault(room, set())
            if content.get("membership") == "join":
                name = str(content.get("displayname") or mxid[1:].partition(":")[0])
                known = self.names.get(mxid)
                self.names[mxid] = name
                if known not in (None, name) and mxid != self.me:
                    self.chat.named(PREFIX + mxid, name)
                new = mxid not in people
                people.add(mxid)
                if new and self._online.is_set() and mxid != self.me:
                    self.chat.seen(PREFIX + mxid)
            elif mxid in people:
                people.discard(mxid)
                if self.direct.get(mxid) == room:
                    self.chat.gone(PREFIX + mxid)
        elif kind == "m.room.power_levels":
            users = content.get("users", {})
            levels = {str(k): int(v) for k, v in users.items() if isinstance(v, int)}
            self.power[room] = (levels, int(content.get("users_default", 0) or 0))

    async def _message(self, room: str, event: dict[str, Any]) -> None:
        sender, content = str(event.get("sender", "")), event.get("content", {})
        relation = content.get("m.relates_to") or {}
        if sender == self.me or content.get("msgtype") != "m.text":
            return  # its own lines, notices (bots), pictures …
        if relation.get("rel_type") == "m.replace":
            return  # an edit of a line said before is no new command
        dm = self.direct.get(sender) == room
        text = self.chat.command(str(content.get("body", "")), dm=dm)
        if text is None:
            return
        if not dm and self.address(PREFIX + sender) is None:
            await self._open_direct(sender)  # the hand and prompts go there (a new one)
        levels, default = self.power.get(room, ({}, 0))
        admin = sender in self.settings.admins or (not dm and levels.get(sender, default) >= 50)
        name = self.names.get(sender) or sender[1:].partition(":")[0]
        channel = "" if dm else PREFIX + room
        self.chat.said(channel, PREFIX + sender, name, text, dm=dm, admin=admin)

    async def _open_direct(self, mxid: str) -> None:
        with _logged("opening a direct room"):
            body = {"preset": "trusted_private_chat", "is_direct": True, "invite": [mxid]}
            room = str((await self._request("POST", "createRoom", body))["room_id"])
            await self._remember_direct(mxid, room)

    async def _remember_direct(self, mxid: str, room: str) -> None:
        self.direct[mxid] = room
        content: dict[str, Any] = {user: [r] for user, r in self.direct.items()}
        with _logged("keeping the direct rooms"):
            await self._request("PUT", self._direct_path(), content)

    # -- sending --------------------------------------------------------------------------------

    async def _send(self, room: str, content: dict[str, Any]) -> str:
        """Send one message into ``room``; its event id. One transaction id for all tries:
        a retry never doubles it."""
        txn = "doko" + secrets.token_hex(12)
        path = f"rooms/{_q(room)}/send/m.room.message/{txn}"
        return str((await self._request("PUT", path, content))["event_id"])

    async def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One request of the client API (``path`` after ``/_matrix/client/v3/``) with a
        deadline. The homeserver's rate limit (M_LIMIT_EXCEEDED) is waited out as long as
        it says (``retry_after_ms``, else ``Retry-After``); a refusal raises
        :class:`MatrixError`, a lost connection ``aiohttp.ClientError`` or ``TimeoutError``.
        (The library's requests drop ``retry_after_ms``: the adapter's writes are its own.)"""
        assert self._session is not None
        url = f"{self.settings.homeserver.rstrip('/')}/_matrix/client/v3/{path}"
        headers = {"Authorization": f"Bearer {self._token}"}
        timeout = aiohttp.ClientTimeout(total=REQUEST_S)
        for _ in range(TRIES):
            async with self._session.request(method, url, json=body, headers=headers,
                                             timeout=timeout) as answer:  # fmt: skip
                data = await answer.json(content_type=None)
                if answer.status == 200 and isinstance(data, dict):
                    return data
                if answer.status != 429:
                    raise MatrixError(f"{answer.status}: {(data or {}).get('errcode')}")
                self.limited += 1
                wait_ms = data.get("retry_after_ms") or 1000 * float(
                    answer.headers.get("Retry-After", "1")
                )
            await asyncio.sleep(min(float(wait_ms) / 1000, MAX_RETRY_S))
        raise MatrixError(f"rate limited {TRIES} times")

    async def _board_worker(self) -> None:
        """Show each room's newest board: a new message, then edits of it."""
        while True:
            await self._board_waiting.wait()
            self._board_waiting.clear()
            await self._online.wait()
            while self._boards:
                room, text = next(iter(self._boards.items()))
                del self._boards[room]
                with _logged("showing a board"):
                    await self._show_board(room, text)

    async def _show_board(self, room: str, text: str) -> None:
        shown = self._board_events.get(room)
        if shown is not None and shown[1] == text:
            return
        content: dict[str, Any] = {"msgtype": "m.notice", "body": text}
        if shown is not None:
            content = {"msgtype": "m.notice", "body": "* " + text, "m.new_content": content,
                       "m.relates_to": {"rel_type": "m.replace", "event_id": shown[0]}}  # fmt: skip
        event_id = await self._send(room, content)
        self._board_events[room] = (shown[0] if shown is not None else event_id, text)


class _Chat(TextChat):
    """The text-chat layer, with the boards taken out for the adapter to show."""

    platform: MatrixAdapter

    async def deliver(self, events: Sequence[Event]) -> None:
        await super().deliver(self.platform.boards(events))


def _q(part: str) -> str:
    """A room id, alias or Matrix ID as one part of a URL path."""
    return quote(part, safe="")


async def run_matrix(service: Host, settings: MatrixSettings, *, restored: Sequence[Event]) -> None:
    """Run ``service`` on Matrix until cancelled, as ``dokobot run`` does: the caller runs the
    service's life and passes the events its ``start()`` returned. A listener set before
    keeps getting every event."""
    token = MatrixSettings.token()
    if token is None:
        raise RuntimeError("Matrix: no access token in DOKOBOT_MATRIX_TOKEN")
    adapter = MatrixAdapter(service, settings, token)
    service.boards = True
    await run_on_host(service, adapter.deliver, adapter.run, restored=restored)
