"""A small fake Discord: the REST routes discord.py uses and a gateway websocket.

It serves one guild with text channels (:meth:`FakeDiscord.add_channel`), four human members
(more with :meth:`FakeDiscord.add_user`) and the bot. Tests make
members run slash commands (:meth:`FakeDiscord.slash`) and click buttons
(:meth:`FakeDiscord.click`); the fake sends INTERACTION_CREATE over the gateway and records
everything the client does over REST: interaction callbacks (with their flags), follow-ups,
channel messages, DMs, and DMs it refused for users in :attr:`FakeDiscord.blocked_dms`
(403, code 50007). It enforces what Discord enforces and lists the client's mistakes in
:attr:`violations`: a second answer to an interaction (40060), an answer later than three
seconds (10062), a response type that does not fit the interaction, an interaction token used
after 15 minutes (50027), messages over 2,000 characters, embeds over their limits, component
rules (5 per row, 5 rows, label <= 80, ``custom_id`` <= 100 and unique). Per-route
rate-limit buckets answer 429 with ``retry_after`` (:attr:`FakeDiscord.limits`), and 429s
can be injected on demand (:meth:`FakeDiscord.inject_429`, :attr:`FakeDiscord.rate_429`).
A channel send without the bot's Send Messages permission is refused with 50013
(:attr:`FakeDiscord.bot_permissions`); opening DMs too fast with 40003. Who was notified
(pinged) by which message is in :attr:`FakeDiscord.notifications`: as on Discord, a mention
notifies only in a newly created message that is not ephemeral, if ``allowed_mentions``
permits it; an edit that adds a mention notifies nobody; a new DM notifies its recipient.
Threads the bot makes are archived after their ``auto_archive_duration`` without a new message
(edits do not count; :meth:`FakeDiscord.advance` moves the fake's clock for that): a new
message unarchives one, an edit, a delete or adding a member is refused there (50083); thread
members are added by ``PUT /channels/{thread}/thread-members/{user}``
(:meth:`FakeDiscord.thread_members`). Each interaction token has its own rate-limit bucket for
its webhook (follow-ups, edits of its messages), with its headers.

Strict by default (:attr:`FakeDiscord.strict`, numbers from :mod:`.limits`): the bot-wide
limit over every request but interaction callbacks and follow-ups (429 with ``global: true``),
per-route buckets announced by ``X-RateLimit-*`` headers on every answer, follow-ups checked
like messages, ephemeral messages and messages of another channel unknown to the channel
routes (404, 10008), attachments (count, size, ``attachment://`` names), Embed Links and Attach
Files. Several gateway connections (shards): a guild's events reach its shard, DMs shard 0.
Server errors and dropped connections come on demand (:meth:`FakeDiscord.inject_status`,
:attr:`FakeDiscord.rate_5xx`, :attr:`FakeDiscord.rate_drop`, :meth:`FakeDiscord.drop_gateway`);
``speed`` runs the rate-limit windows faster for tests and benches.

Use :meth:`FakeDiscord.patched` to point discord.py at it (``Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from .limits import limit, rate

EPHEMERAL = 64
SILENT = 1 << 12
"""SUPPRESS_NOTIFICATIONS: a message that notifies nobody."""
LOADING = 128
ALL_PERMISSIONS = (1 << 53) - 1
MEMBER_PERMISSIONS = (
    (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 16)  # read message history
    | (1 << 31)  # use application commands
)
MANAGE_GUILD = 1 << 5
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
UPLOAD_BYTES = int(limit("upload_bytes"))
TOKEN_LIFE = limit("token_life")
MAX_CONTENT = int(limit("content"))
DM_OPENS = rate("dm_opens")
"""At most this many DM channels opened per this many seconds (else 40003)."""
RESPOND_WITHIN = limit("respond_within")

Json = dict[str, Any]


@dataclass
class FakeUser:
    """A member of the fake guild."""

    id: int
    name: str
    locale: str = "en-US"
    permissions: int = MEMBER_PERMISSIONS
    roles: list[int] = field(default_factory=list)

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self, bot: bool = False) -> Json:
        return {
            "id": str(self.id),
            "username": self.name.lower(),
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
            "bot": bot,
            "flags": 0,
            "public_flags": 0,
        }


@dataclass
class Call:
    """One REST request the client made."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 200
    files: list[tuple[str, bytes]] = field(default_factory=list)
    response: Any = None
    authorization: str | None = None
    at: float = field(default_factory=time.monotonic)
    counted: bool = False
    """Whether it counts toward the bot-wide limit."""
    injected: bool = False
    """Answered by an injected fault (429, server error, dropped connection)."""


@dataclass
class ThreadState:
    """What Discord keeps of a thread the bot made: when it was last active (the fake's
    clock, :meth:`FakeDiscord.clock`), after how many minutes without a new message it is
    archived, whether it is, and its members (:mod:`.limits`, ``thread_archive``)."""

    archive_minutes: int
    active_since: float
    archived: bool = False
    locked: bool = False
    members: set[int] = field(default_factory=set)


@dataclass
class Message:
    """A message as the fake holds it (``payload`` is what Discord would return)."""

    payload: Json
    channel_id: int
    dm_user: int | None = None
    interaction_id: int | None = None
    deleted: bool = False
    lost: bool = False
    """An ephemeral message its reader's client no longer shows (a reload, an app killed in
    the background: :meth:`FakeDiscord.reload`); Discord still takes edits of it."""
    history: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)
    embed_history: list[list[Json]] = field(default_factory=list)
    edits: int = 0
    first_custom_ids: list[str] = field(default_factory=list)
    """The buttons the message was sent with."""

    @property
    def embeds(self) -> list[Json]:
        return list(self.payload.get("embeds") or [])

    @property
    def embed_text(self) -> str:
        """Title, description and fields of the message's embeds."""
        return "\n".join(_embed_text(e) for e in self.embeds)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def content(self) -> str:
        return str(self.payload.get("content") or "")

    @property
    def flags(self) -> int:
        return int(self.payload.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def custom_ids(self) -> list[str]:
        return [b["custom_id"] for b in self.buttons]

    @property
    def buttons(self) -> list[Json]:
        out: list[Json] = []
        for row in self.payload.get("components") or []:
            for item in row.get("components", []):
                if item.get("type") == 2 and "custom_id" in item:
                    out.append(item)
        return out

    def button(self, predicate: Callable[[str], bool]) -> str | None:
        return next((c for c in self.custom_ids if predicate(c)), None)

    @property
    def selects(self) -> list[Json]:
        """The select menus of the message."""
        rows = self.payload.get("components") or []
        return [i for row in rows for i in row.get("components", []) if i.get("type") == 3]


@dataclass
class Interaction:
    """An interaction the fake sent, and how the client answered it."""

    id: int
    token: str
    kind: int
    user: FakeUser
    channel_id: int
    created: float
    message: Message | None = None
    response_type: int | None = None
    response_flags: int = 0
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    autocomplete: list[Json] | None = None
    answered_after: float | None = None
    """Seconds from the interaction to its answer."""
    sent_after: float | None = None
    """Seconds from the interaction to the moment its gateway event was written."""
    data: Json = field(default_factory=dict)
    """What was pressed or typed (the event's ``data``)."""
    tried_after: list[float] = field(default_factory=list)
    """Seconds from the interaction to each callback the bot sent (late ones too), as the
    fake read them."""

    @property
    def ephemeral_messages(self) -> list[Message]:
        out = [m for m in [self.original, *self.followups] if m is not None]
        return [m for m in out if m.ephemeral and not m.deleted]


def _now() -> str:
    return datetime.now(UTC).isoformat()


class FakeDiscord:
    """The fake server. ``await start()``, then ``with fake.patched(): ...``."""

    def __init__(
        self,
        *,
        heartbeat_ms: int = 1000,
        guild_locale: str = "en-US",
        strict: bool = True,
        speed: float = 1.0,
        guild_shard: tuple[int, int] | None = None,
        max_concurrency: int = 1,
    ) -> None:
        self._ids = itertools.count(900_000_000_000_000_000)
        self.bot = FakeUser(self.snowflake(), "Dokobot")
        self.app_id = self.bot.id
        self.guild_id = self.snowflake()
        while guild_shard is not None and (self.guild_id >> 22) % guild_shard[1] != guild_shard[0]:
            self.guild_id = self.snowflake()
        self.channel_id = self.snowflake()
        self.channels: list[int] = [self.channel_id]
        self.threads: dict[int, tuple[int, str]] = {}
        """Threads the bot made: thread id -> (parent channel, name)."""
        self.thread_states: dict[int, ThreadState] = {}
        """Threads the bot made: thread id -> archiving and members."""
        self.skew = 0.0
        """Seconds the fake's clock for archiving threads is ahead of the monotonic clock
        (:meth:`advance`; rate limits and interaction tokens keep the real clock)."""
        """The guild's text channels (:meth:`add_channel`); the first is the table channel."""
        self.strict = strict
        """Discord's limits (:mod:`.limits`): the bot-wide limit, per-route buckets with their
        headers, follow-up and attachment checks, Embed Links and Attach Files, ephemeral
        messages unknown to the channel routes. On by default."""
        self.max_concurrency = max_concurrency
        self.speed = speed
        """How much faster than Discord the fake's clock runs for rate limits: a window of
        ``per`` seconds lasts ``per / speed`` (tests and benches that pace their clients the
        same; interaction deadlines and token lives are not scaled)."""
        self.check_identify = False
        """Count an IDENTIFY within :attr:`identify_spacing` of another of its rate-limit key
        as a violation (for the processes of one bot; a test that restarts one client on
        purpose leaves it off)."""
        self.identify_spacing = rate("identify_concurrency")[1]
        """Discord's 5 s between IDENTIFYs of a rate-limit key; a test that is not about them
        allows less, and gives its bots' :class:`~dokobot.adapters.discord.handoff.Handoff`
        the same (its processes: :data:`.bot_process.IDENTIFY_ENV`)."""
        self.guild_locale = guild_locale
        names = ("Anna", "Ben", "Carl", "Dora")
        self.users = [FakeUser(self.snowflake(), n) for n in names]
        self.owner = self.users[0]
        self.users[0].permissions = MEMBER_PERMISSIONS | MANAGE_GUILD
        self.heartbeat_ms = heartbeat_ms
        self.blocked_dms: set[int] = set()
        self.roles: dict[int, str] = {}
        self.calls: list[Call] = []
        self.keep_uploads = True
        """Whether :attr:`calls` keep the bytes of uploaded files (a long bench keeps only
        their names; the messages keep their files either way)."""
        self.messages: dict[int, Message] = {}
        self._in_channel: dict[int, list[Message]] = {}
        """Channel id -> its messages (ephemeral and DMs too), oldest first."""
        self._of_user: dict[int, list[Message]] = {}
        """User id -> the DMs to him and the messages of his interactions, oldest first."""
        self.interactions: dict[int, Interaction] = {}
        self.by_token: dict[str, Interaction] = {}
        self.dm_channels: dict[int, int] = {}
        self.commands: list[Json] = []
        self.violations: list[str] = []
        self.notifications: list[tuple[int, int]] = []
        self.stalls: list[tuple[Callable[[Call], bool], asyncio.Event]] = []
        """Requests held without an answer until their gate is set (:meth:`stall`)."""
        """(user id, message id) of every notification a message caused (:meth:`notified`)."""
        self.unknown_routes: list[str] = []
        self.bot_permissions = ALL_PERMISSIONS
        """The bot's permissions in the table channel (``app_permissions``; 50013)."""
        self.limits: dict[str, tuple[int, float]] = {}
        """Rate limits per route kind (``"channel"``: messages sent in a channel, ``"edit"``:
        edits in a channel, ``"dm"``, ``"webhook"``): (requests, per seconds); Discord's when
        strict."""
        if strict:
            self.limits = {
                "channel": rate("channel_messages"),
                "edit": rate("channel_edits"),
                "dm": rate("channel_messages"),
                "webhook": rate("interaction_webhook"),
            }
        self.global_limit: tuple[int, float] | None = rate("global_rps") if strict else None
        """The bot-wide limit (requests per seconds) over every counted request."""
        self.counted: list[float] = []
        """When each request that counts toward the bot-wide limit came (monotonic)."""
        self.global_429s = 0
        self.status_injected: list[tuple[Callable[[Call], bool], int]] = []
        self.rate_5xx = 0.0
        """The share of requests to the guild's channels answered 502 (for the bench)."""
        self.rate_drop = 0.0
        """The share of requests to the guild's channels whose connection is dropped."""
        self.identify_times: list[tuple[int, float]] = []
        """(rate-limit key, monotonic time) of every IDENTIFY."""
        self.dm_open_limit = DM_OPENS
        self.upload_limit = UPLOAD_BYTES
        """Bytes of files one request may upload (more: 413, code 40005)."""
        self.too_large: list[Call] = []
        """Requests refused as too large (413)."""
        """DM channels that may be opened per seconds (more: 40003)."""
        self.rate_429 = 0.0
        """The share of requests to the table channel's messages (sends and edits) answered
        by an injected 429 (for the bench)."""
        self.retry_after = 0.3
        self.injected: list[tuple[Callable[[Call], bool], float]] = []
        self.rate_limited: list[Call] = []
        self._buckets: dict[str, list[float]] = {}
        self._dm_opens: list[float] = []
        self._rng = random.Random(1)
        self.heartbeats = 0
        self.identifies = 0
        self.shard_info: list[Any] = []
        self._shards: dict[int, web.WebSocketResponse] = {}
        """Shard id -> its open gateway connection."""
        self.shard_count = 1
        self.dispatched: list[tuple[int, str]] = []
        """(shard, event name) of every event sent over the gateway."""
        self._seq = 0
        self._session = ""
        self._sessions: dict[str, int] = {}
        self._ready = asyncio.Event()
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle -----------------------------------------------------------------------------

    def snowflake(self) -> int:
        return next(self._ids)

    def clock(self) -> float:
        """The fake's clock for archiving threads (monotonic, plus :meth:`advance`)."""
        return time.monotonic() + self.skew

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass for the threads (a day without a message, in a test)."""
        self.skew += seconds

    def archived(self, thread_id: int) -> bool:
        """Whether the thread is archived now (Discord archives it after its duration
        without a new message; :mod:`.limits`, ``thread_archive``)."""
        state = self.thread_states.get(thread_id)
        if state is None:
            return False
        if not state.archived and self.clock() - state.active_since >= state.archive_minutes * 60:
            state.archived = True
        return state.archived

    def thread_members(self, thread_id: int) -> set[int]:
        state = self.thread_states.get(thread_id)
        return set() if state is None else set(state.members)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for _, gate in self.stalls:
            gate.set()
        for ws in list(self._shards.values()):
            if not ws.closed:
                await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @contextlib.contextmanager
    def patched(self) -> Iterator[None]:
        """Point discord.py's REST base and default gateway at this fake."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.base_url
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    # -- queries for tests ---------------------------------------------------------------------

    def add_role(self, name: str, members: list[FakeUser]) -> int:
        """A guild role (no permissions) held by ``members``; call before clients connect."""
        role_id = self.snowflake()
        self.roles[role_id] = name
        for member in members:
            member.roles.append(role_id)
        return role_id

    def user(self, name: str) -> FakeUser:
        return next(u for u in self.users if u.name == name)

    def add_user(self, name: str) -> FakeUser:
        """Another member of the guild (before clients connect, to be in GUILD_CREATE)."""
        user = FakeUser(self.snowflake(), name)
        self.users.append(user)
        return user

    def add_channel(self) -> int:
        """Another text channel of the guild (before clients connect)."""
        channel_id = self.snowflake()
        self.channels.append(channel_id)
        return channel_id

    def shard_of_guild(self) -> int:
        """The shard that gets the guild's events (Discord's formula)."""
        return (self.guild_id >> 22) % self.shard_count

    def inject_status(
        self, predicate: Callable[[Call], bool], status: int = 502, count: int = 1
    ) -> None:
        """Answer the next ``count`` requests that match ``predicate`` with ``status``."""
        for _ in range(count):
            self.status_injected.append((predicate, status))

    async def drop_gateway(self, shard: int = 0) -> None:
        """Close the gateway connection of ``shard`` (the client resumes or identifies)."""
        ws = self._shards.get(shard)
        if ws is not None:
            await ws.close(code=4000)

    def requests_per_second(self) -> tuple[float, float]:
        """(mean, peak) of the requests that count toward the bot-wide limit, per second
        over the seconds in which any came."""
        if not self.counted:
            return 0.0, 0.0
        seconds: dict[int, int] = {}
        for t in self.counted:
            seconds[int(t)] = seconds.get(int(t), 0) + 1
        span = max(1.0, self.counted[-1] - self.counted[0])
        return len(self.counted) / span, float(max(seconds.values()))

    def channel_messages(self, channel_id: int | None = None) -> list[Message]:
        """Messages everybody in the channel sees (not ephemeral, not deleted)."""
        cid = channel_id or self.channel_id
        return [
            m
            for m in self._in_channel.get(cid, [])
            if not m.ephemeral and not m.deleted and m.dm_user is None
        ]

    def dms(self, user: FakeUser) -> list[Message]:
        return [m for m in self.messages.values() if m.dm_user == user.id and not m.deleted]

    def private_messages(self, user: FakeUser) -> list[Message]:
        """What only ``user`` sees: DMs and the ephemeral messages of their interactions."""
        return [
            m
            for m in self._of_user.get(user.id, [])
            if not m.deleted and not m.lost and (m.dm_user == user.id or m.ephemeral)
        ]

    def reload(self, user: FakeUser) -> None:
        """``user``'s client reloads: the ephemeral messages it showed are gone for him (the
        bot is not told; their tokens still edit them)."""
        for message in self._of_user.get(user.id, []):
            if message.ephemeral:
                message.lost = True

    def notified(self, user: FakeUser) -> list[Message]:
        """The messages that notified ``user`` (a mention in a new message, or a new DM)."""
        return [self.messages[m] for u, m in self.notifications if u == user.id]

    def refused_dms(self, user: FakeUser) -> list[Call]:
        dm = self.dm_channels.get(user.id)
        return [
            c
            for c in self.calls
            if c.status == 403 and dm is not None and c.path == f"/channels/{dm}/messages"
        ]

    def inject_429(
        self, predicate: Callable[[Call], bool], retry_after: float = 3.2, count: int = 1
    ) -> None:
        """Answer the next ``count`` requests that match ``predicate`` with a 429."""
        for _ in range(count):
            self.injected.append((predicate, retry_after))

    def stall(self, predicate: Callable[[Call], bool]) -> asyncio.Event:
        """Requests for which ``predicate`` holds get no answer until the returned gate is
        set (a platform call that never returns); :meth:`stop` opens every gate."""
        gate = asyncio.Event()
        self.stalls.append((predicate, gate))
        return gate

    def is_channel_send(self, call: Call) -> bool:
        return call.method == "POST" and call.path == f"/channels/{self.channel_id}/messages"

    def age(self, interaction: Interaction, seconds: float) -> None:
        """Pretend ``interaction`` happened ``seconds`` earlier (token expiry tests)."""
        interaction.created -= seconds

    def callbacks(self) -> list[Call]:
        return [c for c in self.calls if c.path.endswith("/callback")]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait until ``predicate()`` holds; it is checked after every request."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    # -- interactions --------------------------------------------------------------------------

    async def slash(
        self,
        user: FakeUser,
        name: str,
        options: Mapping[str, str | int | bool] | None = None,
        *,
        channel_id: int | None = None,
        dm: bool = False,
    ) -> Interaction:
        """``user`` runs ``/name`` with ``options`` in the table channel (or in a DM)."""
        command = next((c for c in self.commands if c["name"] == name), None)
        opts: list[Json] = []
        for key, value in (options or {}).items():
            kind = 5 if isinstance(value, bool) else 4 if isinstance(value, int) else 3
            opts.append({"name": key, "type": kind, "value": value})
        data: Json = {
            "id": command["id"] if command else str(self.snowflake()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        cid = self._dm_channel(user.id) if dm else (channel_id or self.channel_id)
        return await self._interact(2, user, cid, data, dm=dm)

    async def complete(self, user: FakeUser, name: str, option: str, typed: str) -> list[Json]:
        """Autocomplete: ``user`` types ``typed`` into ``option`` of ``/name``."""
        command = next((c for c in self.commands if c["name"] == name), None)
        data: Json = {
            "id": command["id"] if command else str(self.snowflake()),
            "name": name,
            "type": 1,
            "options": [{"name": option, "type": 3, "value": typed, "focused": True}],
        }
        interaction = await self._interact(4, user, self.channel_id, data, dm=False)
        await self.wait_answered(interaction)
        return interaction.autocomplete or []

    async def click(
        self, user: FakeUser, message: Message, custom_id: str, *, stale: bool = False
    ) -> Interaction:
        """``user`` clicks the button ``custom_id`` on ``message``. ``stale``: a button the
        message had once (a client that has not refreshed the message yet)."""
        had = message.custom_ids if not stale else message.first_custom_ids
        assert custom_id in had, (custom_id, had)
        assert not message.lost, "a message the user cannot see any more"
        data: Json = {"custom_id": custom_id, "component_type": 2}
        dm = message.dm_user is not None
        return await self._interact(3, user, message.channel_id, data, dm=dm, message=message)

    async def choose(
        self, user: FakeUser, message: Message, custom_id: str, values: list[str]
    ) -> Interaction:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``."""
        [menu] = [m for m in message.selects if m.get("custom_id") == custom_id]
        offered = [o["value"] for o in menu.get("options", [])]
        assert all(v in offered for v in values), (values, offered)
        data: Json = {"custom_id": custom_id, "component_type": 3, "values": values}
        dm = message.dm_user is not None
        return await self._interact(3, user, message.channel_id, data, dm=dm, message=message)

    async def wait_answered(self, interaction: Interaction, timeout: float = 5.0) -> None:
        await asyncio.wait_for(interaction.answered.wait(), timeout)

    def register_interaction(
        self,
        kind: int,
        user: FakeUser,
        channel_id: int | None = None,
        message: Message | None = None,
    ) -> Interaction:
        """An interaction the fake knows (its id and token answer), without sending it."""
        iid = self.snowflake()
        interaction = Interaction(
            id=iid,
            token=f"token-{iid}",
            kind=kind,
            user=user,
            channel_id=channel_id or self.channel_id,
            created=time.monotonic(),
            message=message,
        )
        self.interactions[iid] = interaction
        self.by_token[interaction.token] = interaction
        return interaction

    async def _interact(
        self,
        kind: int,
        user: FakeUser,
        channel_id: int,
        data: Json,
        *,
        dm: bool,
        message: Message | None = None,
    ) -> Interaction:
        interaction = self.register_interaction(kind, user, channel_id, message)
        interaction.data = data
        iid = interaction.id
        payload: Json = {
            "id": str(iid),
            "application_id": str(self.app_id),
            "type": kind,
            "data": data,
            "token": interaction.token,
            "version": 1,
            "locale": user.locale,
            "app_permissions": str(self.bot_permissions if not dm else ALL_PERMISSIONS),
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "channel_id": str(channel_id),
        }
        if dm:
            payload["channel"] = {
                "id": str(channel_id),
                "type": 1,
                "recipients": [user.payload()],
                "last_message_id": None,
                "flags": 0,
            }
            payload["user"] = user.payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
        else:
            payload["guild_id"] = str(self.guild_id)
            payload["guild_locale"] = self.guild_locale
            payload["channel"] = self._channel_payload(channel_id)
            member = self._member_payload(user)
            member["permissions"] = str(
                ALL_PERMISSIONS if user.id == self.owner.id else user.permissions
            )
            payload["member"] = member
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(self.guild_id)}
        if message is not None:
            payload["message"] = message.payload
        await self.dispatch("INTERACTION_CREATE", payload, shard=0 if dm else None)
        interaction.sent_after = time.monotonic() - interaction.created
        return interaction

    # -- gateway -------------------------------------------------------------------------------

    async def dispatch(self, event: str, data: Json, shard: int | None = None) -> None:
        """Send ``event`` to ``shard`` (default: the guild's shard; DMs go to shard 0)."""
        target = self.shard_of_guild() if shard is None else shard
        await self.wait_connected(shard=target)
        ws = self._shards[target]
        self._seq += 1
        self.dispatched.append((target, event))
        await ws.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def wait_connected(self, timeout: float = 5.0, shard: int | None = None) -> None:
        """Wait until a client has identified and got READY (on ``shard``: that shard)."""
        if shard is None:
            await asyncio.wait_for(self._ready.wait(), timeout)
            return
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: shard in self._shards), timeout)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(
            json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}, "s": None})
        )
        mine: int | None = None
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            op = frame.get("op")
            if op == 1:
                self.heartbeats += 1
                await ws.send_str(json.dumps({"op": 11}))
            elif op == 2:
                shard = frame["d"].get("shard") or [0, 1]
                self.identifies += 1
                self.shard_info.append(frame["d"].get("shard"))
                self._note_identify(int(shard[0]))
                mine = int(shard[0])
                self.shard_count = int(shard[1])
                self._shards[mine] = ws
                self._seq = 0
                self._session = f"session-{self.snowflake()}"
                await self._send_ready(ws, frame["d"].get("shard"), mine)
            elif op == 6:
                self._seq += 1
                mine = self._resumed_shard(frame)
                self._shards[mine] = ws
                await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": self._seq, "d": {}}))
                await self._notify()
        if mine is not None and self._shards.get(mine) is ws:
            del self._shards[mine]
            if not self._shards:
                self._ready.clear()
        return ws

    def _resumed_shard(self, frame: Json) -> int:
        session = str((frame.get("d") or {}).get("session_id") or "")
        return self._sessions.get(session, 0)

    def _note_identify(self, shard: int) -> None:
        """Discord lets one IDENTIFY per rate-limit key through every 5 seconds (for all the
        bot's processes): a second one sooner is a violation."""
        key = shard % max(1, self.max_concurrency)
        now = time.monotonic()
        per = self.identify_spacing
        if self.check_identify and any(k == key and now - t < per for k, t in self.identify_times):
            self.violations.append(f"IDENTIFY of shard {shard} within {per} s of another")
        self.identify_times.append((key, now))

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _send_ready(self, ws: web.WebSocketResponse, shard: Any, shard_id: int) -> None:
        self._sessions[self._session] = shard_id
        mine = self.shard_of_guild() == shard_id
        ready: Json = {
            "v": 10,
            "user": self.bot.payload(bot=True) | {"mfa_enabled": False, "verified": True},
            "guilds": [{"id": str(self.guild_id), "unavailable": True}] if mine else [],
            "session_id": self._session,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if shard is not None:
            ready["shard"] = shard
        self._seq += 1
        await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": self._seq, "d": ready}))
        if mine:
            self._seq += 1
            guild = {"op": 0, "t": "GUILD_CREATE", "s": self._seq, "d": self._guild_payload()}
            await ws.send_str(json.dumps(guild))
        self._ready.set()
        await self._notify()

    def _channel_payload(self, channel_id: int | None = None) -> Json:
        payload: Json = {
            "id": str(channel_id or self.channel_id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": "doppelkopf",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        thread = self.threads.get(channel_id or self.channel_id)
        if thread is not None:  # a public thread of a text channel
            payload |= {
                "type": 11,
                "parent_id": str(thread[0]),
                "name": thread[1],
                "owner_id": str(self.bot.id),
                "thread_metadata": {
                    "archived": self.archived(channel_id or self.channel_id),
                    "auto_archive_duration": self.thread_states[
                        channel_id or self.channel_id
                    ].archive_minutes,
                    "archive_timestamp": _now(),
                    "locked": False,
                },
                "message_count": 0,
                "member_count": 1,
            }
        return payload

    def _member_payload(self, user: FakeUser) -> Json:
        return {
            "user": user.payload(bot=user.id == self.bot.id),
            "roles": [str(r) for r in user.roles],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "avatar": None,
            "pending": False,
        }

    def _guild_payload(self) -> Json:
        everyone = {
            "id": str(self.guild_id),
            "name": "@everyone",
            "permissions": str(MEMBER_PERMISSIONS),
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        members = [self._member_payload(u) for u in [*self.users, self.bot]]
        roles = [
            everyone | {"id": str(role_id), "name": name, "permissions": "0", "position": 1}
            for role_id, name in self.roles.items()
        ]
        return {
            "id": str(self.guild_id),
            "name": "Doko Club",
            "owner_id": str(self.owner.id),
            "preferred_locale": self.guild_locale,
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "roles": [everyone, *roles],
            "channels": [self._channel_payload(c) for c in self.channels],
            "members": members,
            "presences": [],
            "voice_states": [],
            "threads": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "system_channel_flags": 0,
        }

    # -- REST ----------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body, files = await self._read_body(request)
        kept = files if self.keep_uploads else [(name, b"") for name, _ in files]
        call = Call(request.method, path, dict(request.query), body, files=kept)
        call.authorization = request.headers.get("Authorization")
        self.calls.append(call)
        call.counted = self._counts(call)
        for predicate, gate in list(self.stalls):
            if predicate(call):  # a request Discord never answers (until the gate opens)
                await gate.wait()
        if call.counted and self._globally_limited():
            self.global_429s += 1
            count, per = self.global_limit or (50, 1.0)
            return await self._too_many(call, per / self.speed / count, True)
        if call.counted:
            self.counted.append(time.monotonic())
        limited = self._rate_limited(call)
        if limited is not None:
            return await self._too_many(call, limited, False)
        if self._too_large(call):
            await self._notify()
            return web.json_response(call.response, status=413)
        fault = self._fault(call)
        if fault == 0:  # the connection drops before an answer
            call.status = 0
            await self._notify()
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=502)
        if fault is not None and fault < 500:  # a refusal: Discord's JSON error
            call.status = fault
            opening = call.path == "/users/@me/channels"
            call.response = _error(40003 if opening else 50035)
            await self._notify()
            return web.json_response(call.response, status=fault)
        if fault is not None:
            call.status = fault
            call.response = {"message": "upstream error", "code": 0}
            await self._notify()
            return web.Response(
                status=fault, body=b"<html>502 Bad Gateway</html>", content_type="text/html"
            )
        try:
            status, payload = self._route(request.method, path, body, files, call)
        except Exception as exc:  # a bug in the fake: make it visible
            self.violations.append(f"fake crashed on {request.method} {path}: {exc!r}")
            status, payload = 500, {"message": repr(exc), "code": 0}
        call.status = status
        call.response = payload
        await self._notify()
        headers = self._bucket_headers(call)
        if status == 204:
            return web.Response(status=204, headers=headers)
        headers["Content-Type"] = "application/json"
        return web.Response(status=status, body=json.dumps(payload).encode(), headers=headers)

    def _too_large(self, call: Call) -> bool:
        """Discord refuses a request whose files are over the upload size as a whole: 413
        Request Entity Too Large, JSON error code 40005 (:mod:`.limits`, ``upload_bytes``)."""
        if sum(len(data) for _, data in call.files) <= self.upload_limit:
            return False
        call.status = 413
        call.response = _error(40005)
        self.too_large.append(call)
        return True

    async def _too_many(self, call: Call, retry_after: float, is_global: bool) -> web.Response:
        call.status = 429
        call.response = {"message": "You are being rate limited.", "retry_after": retry_after,
                         "global": is_global}  # fmt: skip
        self.rate_limited.append(call)
        await self._notify()
        headers = {
            "Content-Type": "application/json",
            "Via": "1.1 google",
            "Retry-After": str(max(1, int(retry_after + 0.999))),
            "X-RateLimit-Scope": "global" if is_global else "user",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        else:
            headers["X-RateLimit-Limit"] = "5"
            headers["X-RateLimit-Remaining"] = "0"
            headers["X-RateLimit-Reset-After"] = str(retry_after)
        return web.Response(status=429, body=json.dumps(call.response).encode(), headers=headers)

    def _counts(self, call: Call) -> bool:
        """Whether ``call`` counts toward the bot-wide limit: every request with the bot's
        token except interaction callbacks and interaction webhooks (follow-ups and the
        edits of interaction messages)."""
        parts = call.path.strip("/").split("/")
        if parts[:1] == ["interactions"]:
            return False
        return not (parts[:1] == ["webhooks"] and len(parts) >= 3 and parts[2] in self.by_token)

    def _globally_limited(self) -> bool:
        if self.global_limit is None:
            return False
        count, per = self.global_limit
        per /= self.speed
        now = time.monotonic()
        recent = 0
        for t in reversed(self.counted):
            if t <= now - per:
                break
            recent += 1
        return recent >= count

    def _fault(self, call: Call) -> int | None:
        """An injected server error (its status) or a dropped connection (0), else None."""
        fault = self._injected_fault(call)
        call.injected = call.injected or fault is not None
        return fault

    def _injected_fault(self, call: Call) -> int | None:
        for n, (predicate, status) in enumerate(self.status_injected):
            if predicate(call):
                del self.status_injected[n]
                return status
        parts = call.path.strip("/").split("/")
        guild_channel = (
            parts[:1] == ["channels"] and len(parts) > 1 and int(parts[1]) in self.channels
        )
        if guild_channel and self.rate_5xx and self._rng.random() < self.rate_5xx:
            return 502
        if guild_channel and self.rate_drop and self._rng.random() < self.rate_drop:
            return 0
        return None

    def _bucket(self, call: Call) -> tuple[str, str] | None:
        """(kind, bucket key) of a rate-limited route, or None."""
        parts = call.path.strip("/").split("/")
        if parts[:1] == ["channels"] and len(parts) >= 3 and parts[2] == "messages":
            kind = "dm" if self._dm_user(int(parts[1])) is not None else "channel"
            if kind == "channel" and call.method != "POST":
                kind = "edit"
            return kind, f"{kind}:{parts[1]}"
        if parts[:1] == ["webhooks"] and len(parts) >= 3:  # webhook_id + webhook_token
            return "webhook", f"webhook:{parts[1]}:{parts[2]}"
        return None

    def _bucket_headers(self, call: Call) -> dict[str, str]:
        """The X-RateLimit-* headers Discord sends on every answer of a limited route."""
        bucket = self._bucket(call)
        if bucket is None or bucket[0] not in self.limits:
            return {}
        count, per = self.limits[bucket[0]]
        per /= self.speed
        now = time.monotonic()
        times = [t for t in self._buckets.get(bucket[1], []) if t > now - per]
        # in whole milliseconds, rounded up: a client that waits as told is never early
        reset_after = math.ceil((times[0] + per - now) * 1000) / 1000 if times else per
        return {
            "X-RateLimit-Limit": str(count),
            "X-RateLimit-Remaining": str(max(0, count - len(times))),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"fake-{bucket[0]}",
        }

    def _rate_limited(self, call: Call) -> float | None:
        """``retry_after`` if this request gets a 429, else None (and it counts)."""
        for n, (predicate, retry_after) in enumerate(self.injected):
            if predicate(call):
                del self.injected[n]
                call.injected = True
                return retry_after
        parts = call.path.strip("/").split("/")
        channel = parts[:1] == ["channels"] and len(parts) > 2 and int(parts[1]) in self.channels
        if (
            self.rate_429
            and channel
            and parts[2] == "messages"
            and self._rng.random() < self.rate_429
        ):
            call.injected = True
            return self.retry_after
        bucket = self._bucket(call)
        if bucket is None or bucket[0] not in self.limits:
            return None
        count, per = self.limits[bucket[0]]
        per /= self.speed
        now = time.monotonic()
        times = [t for t in self._buckets.get(bucket[1], []) if t > now - per]
        if len(times) >= count:
            self._buckets[bucket[1]] = times
            return round(times[0] + per - now, 3) + 0.001
        times.append(now)
        self._buckets[bucket[1]] = times
        return None

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        files: list[tuple[str, bytes]] = []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                data = await part.read()
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append((part.filename or part.name or "", bytes(data)))
            return body, files
        raw = await request.read()
        return (json.loads(raw) if raw else None), files

    def _route(
        self, method: str, path: str, body: Any, files: list[tuple[str, bytes]], call: Call
    ) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        match (method, parts):
            case ("GET", ["users", "@me"]):
                return 200, self.bot.payload(bot=True) | {"mfa_enabled": False, "verified": True}
            case ("GET", ["oauth2", "applications", "@me"]):
                return 200, self._application()
            case ("GET", ["gateway", "bot"]):
                limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
                return 200, {"url": self.gateway_url, "shards": 1, "session_start_limit": limit}
            case ("GET", ["users", "@me", "guilds"]):
                return 200, [
                    {"id": str(self.guild_id), "name": "Doko Club", "icon": None, "owner": False,
                     "permissions": str(self.bot_permissions), "features": []}
                ]  # fmt: skip
            case ("GET", ["gateway"]):
                return 200, {"url": self.gateway_url}
            case ("PUT", ["applications", _, "commands"]):
                return self._put_commands(body)
            case ("PUT", ["applications", _, "guilds", _, "commands"]):
                return self._put_commands(body)
            case ("POST", ["users", "@me", "channels"]):
                now = time.monotonic()
                count, per = self.dm_open_limit
                per /= self.speed
                self._dm_opens = [t for t in self._dm_opens if t > now - per]
                if len(self._dm_opens) >= count:
                    return 400, _error(40003)
                self._dm_opens.append(now)
                return 200, self._dm_payload(int(body["recipient_id"]))
            case ("POST", ["channels", cid, "threads"]):
                return self._new_thread(int(cid), body or {})
            case ("PUT", ["channels", cid, "thread-members", uid]):
                return self._add_thread_member(int(cid), int(uid))
            case ("POST", ["channels", cid, "messages"]):
                return self._channel_message(int(cid), body, files)
            case ("PATCH", ["channels", cid, "messages", mid]):
                if self.archived(int(cid)):
                    return 400, _error(50083)
                return self._channel_edit(int(cid), self.messages.get(int(mid)), body, files)
            case ("DELETE", ["channels", cid, "messages", mid]):
                if self.archived(int(cid)):
                    return 400, _error(50083)
                message = self.messages.get(int(mid))
                if message is None or message.deleted or message.channel_id != int(cid):
                    return 404, _error(10008)
                message.deleted = True
                return 204, None
            case ("POST", ["interactions", iid, token, "callback"]):
                return self._callback(int(iid), token, body, files)
            case ("POST", ["webhooks", _, token]):
                if self._expired(token):
                    return 401, _error(50027)
                return self._followup(token, body, files)
            case ("PATCH", ["webhooks", _, token, "messages", mid]):
                if self._expired(token):
                    return 401, _error(50027)
                return self._edit(self._webhook_message(token, mid), body, files)
            case ("GET", ["webhooks", _, token, "messages", mid]):
                if self._expired(token):
                    return 401, _error(50027)
                message = self._webhook_message(token, mid)
                return (404, _error(10008)) if message is None else (200, message.payload)
            case ("DELETE", ["webhooks", _, token, "messages", mid]):
                if self._expired(token):
                    return 401, _error(50027)
                message = self._webhook_message(token, mid)
                if message is None:
                    return 404, _error(10008)
                message.deleted = True
                return 204, None
            case _:
                self.unknown_routes.append(f"{method} {path}")
                return 404, {"message": "404: Not Found", "code": 0}

    def _application(self) -> Json:
        return {
            "id": str(self.app_id),
            "name": "dokobot",
            "icon": None,
            "description": "Doppelkopf",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "summary": "",
            "tags": [],
            "bot": self.bot.payload(bot=True),
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "approximate_guild_count": 1,
        }

    def _put_commands(self, body: Any) -> tuple[int, Any]:
        problems = command_problems(body or [])
        if problems:
            self.violations += problems
            return 400, {"message": "Invalid Form Body", "code": 50035}
        out = []
        for command in body or []:
            stored = dict(command)
            stored.setdefault("id", str(self.snowflake()))
            stored["application_id"] = str(self.app_id)
            stored["version"] = "1"
            stored.setdefault("default_member_permissions", None)
            stored.setdefault("nsfw", False)
            stored.setdefault("type", 1)
            stored.setdefault("options", [])
            out.append(stored)
        self.commands = out
        return 200, out

    def _expired(self, token: str) -> bool:
        interaction = self.by_token.get(token)
        if interaction is None or time.monotonic() - interaction.created <= TOKEN_LIFE:
            return False
        self.violations.append(f"interaction token used after 15 minutes ({token})")
        return True

    def _dm_channel(self, user_id: int) -> int:
        if user_id not in self.dm_channels:
            self.dm_channels[user_id] = self.snowflake()
        return self.dm_channels[user_id]

    def _dm_user(self, channel_id: int) -> int | None:
        return next((u for u, c in self.dm_channels.items() if c == channel_id), None)

    def _dm_payload(self, user_id: int) -> Json:
        user = next((u for u in self.users if u.id == user_id), None)
        recipient = user.payload() if user else FakeUser(user_id, "unknown").payload()
        return {
            "id": str(self._dm_channel(user_id)),
            "type": 1,
            "recipients": [recipient],
            "last_message_id": None,
            "flags": 0,
        }

    def _new_message(
        self,
        channel_id: int,
        body: Any,
        files: list[tuple[str, bytes]],
        flags: int = 0,
        interaction: Interaction | None = None,
    ) -> Message:
        body = body or {}
        mid = self.snowflake()
        payload: Json = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "author": self.bot.payload(bot=True),
            "content": body.get("content") or "",
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(self.snowflake()),
                    "filename": name,
                    "size": len(data),
                    "url": f"http://127.0.0.1/{name}",
                    "proxy_url": f"http://127.0.0.1/{name}",
                }
                for name, data in files
            ],
            "embeds": body.get("embeds") or [],
            "pinned": False,
            "type": 0,
            "flags": flags | int(body.get("flags") or 0),
            "components": body.get("components") or [],
        }
        if interaction is not None:
            payload["interaction_metadata"] = {
                "id": str(interaction.id),
                "type": interaction.kind,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": {},
            }
        message = Message(
            payload,
            channel_id,
            dm_user=self._dm_user(channel_id),
            interaction_id=interaction.id if interaction else None,
            files=list(files),
        )
        message.history.append(message.content)
        message.embed_history.append(message.embeds)
        message.first_custom_ids = message.custom_ids
        self.messages[mid] = message
        if message.dm_user is not None:
            self.notifications.append((message.dm_user, mid))
        elif not message.ephemeral and not message.flags & SILENT:
            pinged = _pinged(message.content, body.get("allowed_mentions"))
            members = [self._member(u) for u in pinged]
            payload["mentions"] = [m.payload() for m in members if m is not None]
            self.notifications += [(u, mid) for u in pinged]
        self._in_channel.setdefault(channel_id, []).append(message)
        owner = interaction.user.id if interaction is not None else message.dm_user
        if owner is not None:
            self._of_user.setdefault(owner, []).append(message)
        return message

    def _member(self, user_id: int) -> FakeUser | None:
        return next((u for u in self.users if u.id == user_id), None)

    def _channel_message(
        self, channel_id: int, body: Any, files: list[tuple[str, bytes]]
    ) -> tuple[int, Any]:
        recipient = self._dm_user(channel_id)
        if recipient is not None and recipient in self.blocked_dms:
            return 403, _error(50007)
        if recipient is None and channel_id not in self.channels:
            return 404, _error(10003)
        if recipient is None and not self._may_post(body or {}, files):
            return 403, _error(50013)
        problems = message_problems(body or {}, files)
        if problems:
            self.violations += problems
            return 400, _error(50035)
        state = self.thread_states.get(channel_id)
        if state is not None:  # a new message unarchives a thread that is not locked
            if self.archived(channel_id) and state.locked:
                return 400, _error(50083)
            state.archived = False
            state.active_since = self.clock()
        return 200, self._new_message(channel_id, body, files).payload

    def _add_thread_member(self, thread_id: int, user_id: int) -> tuple[int, Any]:
        """Add Thread Member: 204 (also for a member already in it); a thread that is
        archived refuses it (50083); the bot needs Send Messages there."""
        state = self.thread_states.get(thread_id)
        if state is None:
            return 404, _error(10003)
        if self._member(user_id) is None:
            return 404, _error(10013)
        if not self.bot_permissions & SEND_MESSAGES:
            return 403, _error(50013)
        if self.archived(thread_id):
            return 400, _error(50083)
        state.members.add(user_id)
        return 204, None

    def _new_thread(self, parent: int, body: Json) -> tuple[int, Any]:
        """A public thread in ``parent`` (a thread without a starter message)."""
        if parent not in self.channels or parent in self.threads:
            return 404, _error(10003)
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            self.violations.append(f"thread name of {len(name)} characters")
            return 400, _error(50035)
        minutes = int(body.get("auto_archive_duration") or 4320)
        if minutes not in (60, 1440, 4320, 10080):
            self.violations.append(f"auto_archive_duration {minutes}")
            return 400, _error(50035)
        thread_id = self.snowflake()
        self.channels.append(thread_id)
        self.threads[thread_id] = (parent, name)
        self.thread_states[thread_id] = ThreadState(minutes, self.clock(), members={self.bot.id})
        return 201, self._channel_payload(thread_id)

    def _may_post(self, body: Json, files: list[tuple[str, bytes]]) -> bool:
        """Whether the bot's permissions in a guild channel allow this message: Send
        Messages, and when strict Embed Links for embeds and Attach Files for files."""
        if not self.bot_permissions & SEND_MESSAGES:
            return False
        if not self.strict:
            return True
        if body.get("embeds") and not self.bot_permissions & EMBED_LINKS:
            return False
        return not (files and not self.bot_permissions & ATTACH_FILES)

    def _channel_edit(
        self, channel_id: int, message: Message | None, body: Any, files: list[tuple[str, bytes]]
    ) -> tuple[int, Any]:
        """An edit through the channel route: the channel routes know neither ephemeral
        messages nor a message under another channel (404, 10008)."""
        if (
            message is not None
            and self.strict
            and (message.ephemeral or message.channel_id != channel_id)
        ):
            self.violations.append(f"edit of message {message.id} through the channel route")
            return 404, _error(10008)
        live = message is not None and message.dm_user is None and not message.deleted
        if live and not self._may_post(body or {}, files):
            return 403, _error(50013)
        return self._edit(message, body, files)

    def _edit(
        self, message: Message | None, body: Any, files: list[tuple[str, bytes]] | None = None
    ) -> tuple[int, Any]:
        if message is None or message.deleted:
            return 404, _error(10008)
        body = body or {}
        kept = [  # attachments the message keeps carry their snowflake; new files an index
            str(a.get("filename", ""))
            for a in body.get("attachments") or []
            if int(a.get("id", 0)) >= 1 << 22
        ]
        if "attachments" not in body:
            kept = [name for name, _ in message.files]
        problems = message_problems(body, files or [], kept=kept)
        if problems:
            self.violations += problems
            return 400, _error(50035)
        for key in ("content", "components", "embeds"):
            if key in body:
                message.payload[key] = (
                    body[key] if body[key] is not None else ("" if key == "content" else [])
                )
        if files or "attachments" in body:
            message.files = [f for f in message.files if f[0] in kept] + list(files or [])
        message.payload["flags"] = message.flags & ~LOADING
        message.payload["edited_timestamp"] = _now()
        message.history.append(message.content)
        message.embed_history.append(message.embeds)
        message.edits += 1
        return 200, message.payload

    def _callback(
        self, iid: int, token: str, body: Any, files: list[tuple[str, bytes]]
    ) -> tuple[int, Any]:
        interaction = self.interactions.get(iid)
        if interaction is None or interaction.token != token:
            return 404, _error(10062)
        age = time.monotonic() - interaction.created
        interaction.tried_after.append(age)
        if age > RESPOND_WITHIN:
            self.violations.append(f"interaction {iid} answered after {age:.1f} s")
            return 404, _error(10062)
        if interaction.response_type is not None:
            self.violations.append(f"interaction {iid} answered twice")
            return 400, _error(40060)
        kind = int(body["type"])
        data = body.get("data") or {}
        if kind not in VALID_RESPONSES.get(interaction.kind, ()):
            self.violations.append(
                f"response type {kind} is not valid for interaction type {interaction.kind}"
            )
            return 400, _error(50035)
        if kind in (4, 7):
            problems = message_problems(data, files)
            if problems:
                self.violations += problems
                return 400, _error(50035)
        interaction.answered_after = age
        interaction.response_type = kind
        interaction.response_flags = int(data.get("flags") or 0)
        resource: Json | None = None
        if kind == 4:
            message = self._new_message(interaction.channel_id, data, files, 0, interaction)
            interaction.original = message
            resource = {"type": 4, "message": message.payload}
        elif kind == 5:
            message = self._new_message(
                interaction.channel_id, {}, [], LOADING | interaction.response_flags, interaction
            )
            interaction.original = message
            resource = {"type": 5, "message": message.payload}
        elif kind == 6:
            interaction.original = interaction.message
        elif kind == 7:
            interaction.original = interaction.message
            self._edit(interaction.message, data)
            if interaction.message is not None:
                resource = {"type": 7, "message": interaction.message.payload}
        elif kind == 8:
            interaction.autocomplete = list(data.get("choices") or [])
        interaction.answered.set()
        original = interaction.original
        answer: Json = {
            "interaction": {
                "id": str(iid),
                "type": interaction.kind,
                "response_message_id": str(original.id) if original else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(interaction.response_flags & EPHEMERAL),
            }
        }
        if resource is not None:
            answer["resource"] = resource
        return 200, answer

    def _followup(self, token: str, body: Any, files: list[tuple[str, bytes]]) -> tuple[int, Any]:
        interaction = self.by_token.get(token)
        if interaction is None or interaction.response_type is None:
            self.violations.append("follow-up before the interaction was answered")
            return 404, _error(10015)
        problems = message_problems(body or {}, files) if self.strict else []
        if problems:
            self.violations += problems
            return 400, _error(50035)
        original = interaction.original
        if interaction.response_type == 5 and original is not None and original.flags & LOADING:
            # the first follow-up after a "thinking" defer replaces the loading message
            self._edit(original, body)
            interaction.followups.append(original)
            return 200, original.payload
        message = self._new_message(interaction.channel_id, body, files, 0, interaction)
        interaction.followups.append(message)
        return 200, message.payload

    def _webhook_message(self, token: str, mid: str) -> Message | None:
        interaction = self.by_token.get(token)
        if interaction is None:
            return None
        if mid == "@original":
            return interaction.original
        message = self.messages.get(int(mid))
        return message if message in interaction.followups else None


#: Interaction type -> the response types Discord accepts for it (ping 1 -> pong 1, command 2
#: -> message 4 or deferred 5 or modal 9, component 3 -> 4 5 6 7 9, autocomplete 4 -> 8).
VALID_RESPONSES: dict[int, tuple[int, ...]] = {1: (1,), 2: (4, 5, 9), 3: (4, 5, 6, 7, 9), 4: (8,)}


def _pinged(content: str, allowed: Any) -> list[int]:
    """The users a new message's ``content`` notifies under its ``allowed_mentions``
    (https://docs.discord.com/developers/resources/message#allowed-mentions-object).

    >>> _pinged("<@1> and <@!2>", None), _pinged("<@1> <@2>", {"parse": [], "users": ["2"]})
    ([1, 2], [2])
    >>> _pinged("<@1>", {"parse": ["users"]}), _pinged("<@1>", {"parse": []})
    ([1], [])
    """
    mentioned = list(dict.fromkeys(int(m) for m in re.findall(r"<@!?([0-9]+)>", content)))
    if allowed is None:
        return mentioned
    if "users" in (allowed.get("parse") or []):
        return mentioned
    listed = {int(u) for u in allowed.get("users") or []}
    return [u for u in mentioned if u in listed]


def _embed_text(embed: Json) -> str:
    parts = [str(embed.get("title") or ""), str(embed.get("description") or "")]
    for f in embed.get("fields") or []:
        parts += [str(f.get("name") or ""), str(f.get("value") or "")]
    return "\n".join(p for p in parts if p)


def message_problems(
    body: Json, files: list[tuple[str, bytes]] | None = None, kept: list[str] | None = None
) -> list[str]:
    """What Discord would refuse in a message: content over 2,000 characters, embed limits
    (10 embeds; title 256, description 4,096, 25 fields of name 256 and value 1,024, 6,000
    characters in all), component rules (5 rows of 5 buttons, label <= 80, ``custom_id``
    1..100 and unique in the message, 25 select options), files (10, 10 MiB in all, and an
    ``attachment://NAME`` of an embed must name a file of the request or one in ``kept``, the
    attachments an edited message keeps), and an empty message (:mod:`.limits`). Files over
    the upload size are refused before, with 413 (:meth:`FakeDiscord._too_large`)."""
    problems: list[str] = []
    files = files or []
    if len(files) > limit("files"):
        problems.append(f"{len(files)} files (at most {int(limit('files'))})")
    names = {name for name, _ in files} | set(kept or [])
    for embed in body.get("embeds") or []:
        for part in ("image", "thumbnail"):
            url = str((embed.get(part) or {}).get("url") or "")
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names:
                problems.append(f"embed {part} {url} names no attachment")
    content = body.get("content") or ""
    if len(content) > MAX_CONTENT:
        problems.append(f"content of {len(content)} characters (at most {MAX_CONTENT})")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        problems.append("more than 10 embeds")
    total = 0
    for embed in embeds:
        title, description = str(embed.get("title") or ""), str(embed.get("description") or "")
        fields = embed.get("fields") or []
        if len(title) > 256:
            problems.append("embed title over 256 characters")
        if len(description) > 4096:
            problems.append("embed description over 4,096 characters")
        if len(fields) > 25:
            problems.append("more than 25 embed fields")
        total += len(title) + len(description)
        for f in fields:
            name, value = str(f.get("name") or ""), str(f.get("value") or "")
            if not name or not value:
                problems.append("an embed field without name or value")
            if len(name) > 256 or len(value) > 1024:
                problems.append("an embed field over its limits (256 / 1,024)")
            total += len(name) + len(value)
    if total > 6000:
        problems.append(f"embeds of {total} characters (at most 6,000)")
    rows = body.get("components") or []
    if len(rows) > 5:
        problems.append("more than 5 component rows")
    seen: set[str] = set()
    for row in rows:
        items = row.get("components") or []
        if row.get("type") != 1 or not 1 <= len(items) <= 5:
            problems.append("a component row must hold 1 to 5 components")
        for item in items:
            custom_id = item.get("custom_id")
            if item.get("type") == 2 and item.get("style") != 5:
                if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
                    problems.append(f"bad custom_id {custom_id!r}")
                elif custom_id in seen:
                    problems.append(f"custom_id {custom_id!r} used twice in one message")
                seen.add(str(custom_id))
            if len(str(item.get("label") or "")) > 80:
                problems.append("a button label over 80 characters")
            if item.get("type") == 3 and len(item.get("options") or []) > limit("select_options"):
                problems.append("a select menu with more than 25 options")
    empty = not content and not embeds and not files and not body.get("attachments")
    if empty and "content" in body and not rows and not body.get("flags"):
        problems.append("an empty message")
    return problems


def _error(code: int) -> Json:
    messages = {
        10003: "Unknown Channel",
        10008: "Unknown Message",
        10013: "Unknown User",
        10015: "Unknown Webhook",
        10062: "Unknown interaction",
        40003: "You are opening direct messages too fast.",
        40005: "Request entity too large",
        40060: "Interaction has already been acknowledged.",
        50007: "Cannot send messages to this user",
        50013: "Missing Permissions",
        50027: "Invalid Webhook Token",
        50035: "Invalid Form Body",
        50083: "Operation cannot be performed on an archived thread",
    }
    return {"message": messages.get(code, "error"), "code": code}


_NAME = re.compile(r"^[-_\w]{1,32}$")
_LOCALES = {locale.value for locale in discord.Locale}


def command_problems(commands: list[Json]) -> list[str]:
    """What Discord would refuse in a bulk upload of slash commands (names, lengths, counts)."""
    problems: list[str] = []

    def name(where: str, value: Any) -> None:
        if not isinstance(value, str) or not _NAME.match(value) or value != value.lower():
            problems.append(f"{where}: bad name {value!r}")

    def text(where: str, value: Any) -> None:
        if not isinstance(value, str) or not 1 <= len(value) <= 100:
            problems.append(f"{where}: bad text {value!r}")

    def localized(where: str, item: Json, key: str, check: Callable[[str, Any], None]) -> None:
        for locale, value in (item.get(key) or {}).items():
            if locale not in _LOCALES:
                problems.append(f"{where}: unknown locale {locale!r}")
            check(f"{where} [{locale}]", value)

    if len(commands) > 100:
        problems.append("more than 100 commands")
    seen: dict[str, set[str]] = {}
    for command in commands:
        where = f"/{command.get('name')}"
        name(where, command.get("name"))
        text(where, command.get("description"))
        localized(where, command, "name_localizations", name)
        localized(where, command, "description_localizations", text)
        names = {"": command.get("name"), **(command.get("name_localizations") or {})}
        for locale, value in names.items():
            if value in seen.setdefault(locale, set()):
                problems.append(f"{where}: name {value!r} used twice ({locale or 'default'})")
            seen[locale].add(value)
        options = command.get("options") or []
        if len(options) > 25:
            problems.append(f"{where}: more than 25 options")
        required = [bool(o.get("required")) for o in options]
        if required != sorted(required, reverse=True):
            problems.append(f"{where}: a required option after an optional one")
        for option in options:
            at = f"{where} {option.get('name')}"
            name(at, option.get("name"))
            text(at, option.get("description"))
            localized(at, option, "name_localizations", name)
            localized(at, option, "description_localizations", text)
            choices = option.get("choices") or []
            if len(choices) > 25:
                problems.append(f"{at}: more than 25 choices")
            for choice in choices:
                text(f"{at} choice", choice.get("name"))
                localized(f"{at} choice", choice, "name_localizations", text)
    return problems
