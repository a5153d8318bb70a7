"""DM presses for tables of another process, handed over through PostgreSQL.

Discord delivers every direct-message event, a press on a button in a DM included, to shard 0
only (https://docs.discord.com/developers/events/gateway#sharding). With several processes,
the table of a DM prompt usually lives in another one. Shard 0's process answers the press at
once (a deferred update, well within Discord's 3 seconds) and hands it over with
``NOTIFY`` on the channel :data:`CHANNEL` of the bots' shared PostgreSQL; every process
``LISTEN``s, and the one that holds the table applies the press and completes the interaction
through its token (interaction webhooks need no gateway: any process of the bot may use them).

A press is a small JSON object (:class:`Press`), far below PostgreSQL's 8,000 bytes.

The same database spaces the processes' IDENTIFYs: Discord lets one IDENTIFY per rate-limit
key (``shard_id % max_concurrency``) through every 5 seconds for the whole bot
(https://docs.discord.com/developers/events/gateway#session-start-limit-object);
:meth:`Handoff.identify_turn` waits for a PostgreSQL advisory lock of that key and holds it 5
seconds after the IDENTIFY.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import psycopg

log = logging.getLogger(__name__)

CHANNEL: Final = "dokobot_discord_press"
"""The PostgreSQL notification channel of handed-over presses."""
IDENTIFY_LOCK: Final = 0x646F6B6F
"""The first key of the advisory locks that space the IDENTIFYs (the second: the
rate-limit key)."""
IDENTIFY_SPACING: Final = 5.0
RECONNECT_AFTER: Final = 1.0


@dataclass(frozen=True, slots=True)
class Press:
    """A press on a button in a DM, as the owner of its table needs it.

    >>> p = Press(1, "s3cret", 2, "/play CQ", "♣Q", (1, 2), 3, "Anna", "en-US", "Your turn.")
    >>> "s3cret" in repr(p) or "Your turn" in repr(p), Press.loads(p.dumps()) == p
    (False, True)
    """

    application_id: int
    token: str = field(repr=False)
    """The interaction's token (valid 15 minutes; the press is already acknowledged); a
    secret, left out of the repr like the pressed message's text."""
    table: int
    command: str
    label: str
    marker: tuple[int, int] | None
    user_id: int
    user_name: str
    locale: str
    content: str = field(repr=False)
    """What the pressed message said (it is used up by the owner)."""

    def dumps(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> Press:
        data: dict[str, Any] = json.loads(text)
        marker = data.get("marker")
        data["marker"] = tuple(marker) if marker is not None else None
        return cls(**data)


Receiver = Callable[[Press], Awaitable[None]]


class Handoff:
    """``LISTEN``/``NOTIFY`` for presses (see the module). ``conninfo``: the bots' PostgreSQL
    (with its password; never logged)."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._send: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._listening = asyncio.Event()
        self.handed = 0
        self.received = 0
        self._held: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"<Handoff handed={self.handed} received={self.received}>"

    async def start(self, receive: Receiver) -> None:
        """Listen (in the background) and give every press to ``receive``."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(receive))
        await asyncio.wait_for(self._listening.wait(), 10)

    async def send(self, press: Press) -> None:
        """Hand ``press`` to the process that holds its table (one try, one reconnect)."""
        async with self._lock:
            for attempt in range(2):
                try:
                    if self._send is None or self._send.closed:
                        self._send = await psycopg.AsyncConnection.connect(
                            self._conninfo, autocommit=True
                        )
                    await self._send.execute("SELECT pg_notify(%s, %s)", (CHANNEL, press.dumps()))
                    self.handed += 1
                    return
                except psycopg.OperationalError:
                    self._send = None
                    if attempt:
                        raise

    async def identify_turn(self, key: int, spacing: float = IDENTIFY_SPACING) -> None:
        """Wait until this process may IDENTIFY for the rate-limit ``key``; the turn stays
        taken ``spacing`` seconds (the lock lives in its own connection, closed then)."""
        conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
        try:
            while True:
                cur = await conn.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (IDENTIFY_LOCK, key)
                )
                row = await cur.fetchone()
                if row is not None and row[0]:
                    break
                await asyncio.sleep(0.25)
        except BaseException:
            await conn.close()
            raise

        async def release() -> None:
            try:
                await asyncio.sleep(spacing)
            finally:
                await conn.close()

        task = asyncio.create_task(release())
        self._held.add(task)
        task.add_done_callback(self._held.discard)

    async def _listen(self, receive: Receiver) -> None:
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    async for note in conn.notifies():
                        self.received += 1
                        try:
                            await receive(Press.loads(note.payload))
                        except Exception:
                            log.exception("a handed-over press failed")
            except asyncio.CancelledError:
                raise
            except psycopg.Error as exc:
                log.warning("listening for handed-over presses: %s; again soon", exc)
                await asyncio.sleep(RECONNECT_AFTER)

    async def close(self) -> None:
        for held in list(self._held):
            held.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._send is not None:
            await self._send.close()
