"""DM presses for tables of another process, handed over through PostgreSQL.

Discord delivers every direct-message event, a press on a button in a DM included, to shard 0
only (https://docs.discord.com/developers/events/gateway#sharding). With several processes,
the table of a DM prompt usually lives in another one. Shard 0's process answers the press at
once (a deferred update, well within Discord's 3 seconds) and hands it over with
``NOTIFY`` on the channel :data:`CHANNEL` of the bots' shared PostgreSQL; every process
``LISTEN``s, and the one that holds the table applies the press and completes the interaction
through its token (interaction webhooks need no gateway: any process of the bot may use them).

A press is a small JSON object (:class:`Press`), far below PostgreSQL's 8,000 bytes.

A ``NOTIFY`` reaches only the processes listening at that moment: a press for a table whose
process is down (killed, restarting) or does not answer (stopped, its event loop stuck)
would be lost in silence. So each press is decided once, in the table ``handed_presses``
(:meth:`Handoff.decide`): the holder takes it (``"taken"``) before applying it, and shard
0's process, :data:`CLAIM_WITHIN` seconds after handing it over, marks it ``"expired"`` if
nobody took it and tells the person that nothing happened. Whichever outcome is written
first wins: a holder that comes back and finds a press expired drops it, so nothing is
applied after its presser was told it was not, nor twice.

The same database spaces the processes' IDENTIFYs: Discord lets one IDENTIFY per rate-limit
key (``shard_id % max_concurrency``) through every 5 seconds for the whole bot
(https://docs.discord.com/developers/events/gateway#session-start-limit-object);
:meth:`Handoff.identify_turn` waits for a PostgreSQL advisory lock of that key and holds it 5
seconds after Discord answered the IDENTIFY with READY (:meth:`Handoff.identified`): counted
from the sending process's clock, a starved process or a slow network could bring two
IDENTIFYs closer together at Discord than 5 seconds.

Every connect and every request has a deadline (:data:`CONNECT_S`, :data:`REQUEST_S`): a
request without an answer in time has its connection cut (a paused server process answers
nothing, and psycopg's own cancel would wait for it) and fails; a press's outcome that
cannot be written is "not known yet" for its presser (see :mod:`.handed`). The listening
connection asks for an answer every :data:`LISTEN_CHECK_S` and connects again without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

import psycopg

from dokobot.store.pg_stall import cut

log = logging.getLogger(__name__)

CHANNEL: Final = "dokobot_discord_press"
"""The PostgreSQL notification channel of handed-over presses."""
IDENTIFY_LOCK: Final = 0x646F6B6F
"""The first key of the advisory locks that space the IDENTIFYs (the second: the
rate-limit key)."""
IDENTIFY_SPACING: Final = 5.0
READY_WITHIN: Final = 20.0
"""Seconds an IDENTIFY's turn waits for READY (Discord may not answer an IDENTIFY it
refuses); then the spacing counts from there."""
RECONNECT_AFTER: Final = 1.0
CLAIM_WITHIN: Final = 2.5
"""Seconds the holder of a table has to take a handed-over press; later, shard 0's process
takes it back and tells the person (the press was acknowledged at once, so Discord's 3
seconds are met either way; this is how long the person waits for a sign)."""
TAKEN: Final = "taken"
EXPIRED: Final = "expired"
KEEP_DECIDED: Final = 3600.0
"""Seconds a decided press is kept (then deleted, at the next decision after a while)."""
CONNECT_S: Final = 2.0
"""How long a connection to the bots' PostgreSQL may take."""
REQUEST_S: Final = 2.0
"""How long a request may go without an answer before its connection is cut."""
LISTEN_CHECK_S: Final = 10.0
"""How often the listening connection, without a press, checks that its server answers."""
TURN_WITHIN: Final = 60.0
"""How long a process waits for its turn to IDENTIFY (others hold it at most
:data:`READY_WITHIN` and the spacing each); then it identifies without one, and says so."""


async def connect(conninfo: str) -> psycopg.AsyncConnection[Any]:
    """A connection (autocommit) within :data:`CONNECT_S`, else :class:`TimeoutError`."""
    return await asyncio.wait_for(
        psycopg.AsyncConnection.connect(
            conninfo, autocommit=True, connect_timeout=max(1, round(CONNECT_S))
        ),
        CONNECT_S + 0.5,
    )


async def request(
    conn: psycopg.AsyncConnection[Any], query: str, params: tuple[Any, ...] = ()
) -> list[tuple[Any, ...]]:
    """``query``'s rows (none without a result); no answer within :data:`REQUEST_S`, or
    the caller cancelled: the connection is cut (it is not used again) and the request
    fails (:class:`TimeoutError`)."""

    async def run() -> list[tuple[Any, ...]]:
        cur = await conn.execute(query.encode(), params)
        return await cur.fetchall() if cur.description is not None else []

    task = asyncio.ensure_future(run())
    try:
        done, _ = await asyncio.wait({task}, timeout=REQUEST_S)
    except asyncio.CancelledError:
        _cut(conn, task)
        raise
    if not done:
        log.warning("the bots' PostgreSQL did not answer within %.1f s (backend %d); the "
                    "connection is cut", REQUEST_S, conn.info.backend_pid)  # fmt: skip
        _cut(conn, task)
        raise TimeoutError(f"no answer from PostgreSQL within {REQUEST_S:.1f} s")
    return task.result()


def _cut(conn: psycopg.AsyncConnection[Any], task: asyncio.Future[Any]) -> None:
    """Cut ``conn`` under its request ``task`` (which then fails at once)."""
    with contextlib.suppress(OSError, psycopg.Error):
        cut(conn.fileno())
    task.add_done_callback(lambda t: t.cancelled() or t.exception())


@dataclass(frozen=True, slots=True)
class Press:
    """A press on a button in a DM, as the owner of its table needs it.

    >>> p = Press(1, "s3cret", 2, "/play CQ", "♣Q", (1, 2), 3, "Anna", "en-US", "Your turn.", 7)
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
    interaction_id: int
    """The interaction's id: the key of the press's one outcome (:meth:`Handoff.decide`)."""

    def dumps(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> Press:
        data: dict[str, Any] = json.loads(text)
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        marker = data.get("marker")
        data["marker"] = tuple(marker) if marker is not None else None
        return cls(**data)


Receiver = Callable[[Press], Awaitable[None]]


class Handoff:
    """``LISTEN``/``NOTIFY`` for presses (see the module). ``conninfo``: the bots' PostgreSQL
    (with its password; never logged). ``identify_spacing``: how long a turn to IDENTIFY is
    held after READY (Discord's 5 s; a test against a fake that allows less may shorten it)."""

    def __init__(self, conninfo: str, *, identify_spacing: float = IDENTIFY_SPACING) -> None:
        self._conninfo = conninfo
        self.identify_spacing = identify_spacing
        self._send: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._listening = asyncio.Event()
        self.handed = 0
        self.received = 0
        self.expired = 0
        self._pruned = 0.0
        self._unsure: set[int] = set()
        """Presses whose outcome this process tried to write without an answer."""
        self.writer = secrets.token_hex(8)
        """This process's name on the outcomes it writes (a lost answer is read back by it)."""
        self._held: set[asyncio.Task[None]] = set()
        self._ready: asyncio.Event | None = None
        """Set when READY answers the IDENTIFY whose turn this process holds."""

    def __repr__(self) -> str:
        return f"<Handoff handed={self.handed} received={self.received} expired={self.expired}>"

    async def start(self, receive: Receiver) -> None:
        """Listen (in the background) and give every press to ``receive``."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(receive))
        await asyncio.wait_for(self._listening.wait(), 10)

    async def send(self, press: Press) -> None:
        """Hand ``press`` to the process that holds its table (one try, one reconnect)."""
        await self._execute("SELECT pg_notify(%s, %s)", (CHANNEL, press.dumps()))
        self.handed += 1

    async def decide(self, press: Press, outcome: str) -> bool:
        """Write ``outcome`` (:data:`TAKEN` by the holder, :data:`EXPIRED` by shard 0) as
        the one outcome of ``press``; False if it was written before (the other one, or the
        same press handed twice). After a try of ours whose answer was lost (its connection
        cut while its server process was paused, say), the outcome stored is read back: that
        try may have written it, and then it is ours if it names this process as its writer
        (:attr:`writer`; after a change of holder the new holder may have taken it)."""
        loop = asyncio.get_running_loop()
        if loop.time() - self._pruned > KEEP_DECIDED / 4:
            self._pruned = loop.time()
            await self._execute(
                "DELETE FROM handed_presses WHERE at < now() - make_interval(secs => %s)",
                (KEEP_DECIDED,),
            )
        key = press.interaction_id
        retried = key in self._unsure
        self._unsure.add(key)  # (until an answer comes)
        rows = await self._execute(
            "INSERT INTO handed_presses (id, outcome, writer) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING RETURNING id",
            (key, outcome, self.writer),
        )
        if not rows and retried:
            rows = await self._execute(
                "SELECT id FROM handed_presses WHERE id = %s AND outcome = %s AND writer = %s",
                (key, outcome, self.writer),
            )
        self._unsure.discard(key)
        won = bool(rows)
        if won and outcome == EXPIRED:
            self.expired += 1
        return won

    async def _execute(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run ``query`` on the sending connection (one try, one reconnect); its rows."""
        async with self._lock:
            for attempt in range(2):
                try:
                    if self._send is None or self._send.closed:
                        self._send = await connect(self._conninfo)
                    return await request(self._send, query, params)
                except psycopg.OperationalError:  # (a connection that dropped: once more)
                    await self._drop_send()
                    if attempt:
                        raise
                except BaseException:  # (no answer in time, cancelled: not again)
                    await self._drop_send()
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _drop_send(self) -> None:
        send, self._send = self._send, None
        if send is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(send.close(), REQUEST_S)

    async def identify_turn(self, key: int) -> None:
        """Wait until this process may IDENTIFY for the rate-limit ``key``; the turn stays
        taken until :attr:`identify_spacing` seconds after :meth:`identified` (or
        :data:`READY_WITHIN` seconds without it); the lock lives in its own connection,
        closed then. Raises when the turn cannot be had within :data:`TURN_WITHIN` (or
        PostgreSQL does not answer in time)."""
        spacing = self.identify_spacing
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TURN_WITHIN
        conn = await connect(self._conninfo)
        try:
            while True:
                rows = await request(
                    conn, "SELECT pg_try_advisory_lock(%s, %s)", (IDENTIFY_LOCK, key)
                )
                if rows and rows[0][0]:
                    break
                if loop.time() >= deadline:
                    raise TimeoutError(f"no turn to IDENTIFY within {TURN_WITHIN:.0f} s")
                await asyncio.sleep(0.25)
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), REQUEST_S)
            raise
        ready = asyncio.Event()
        self._ready = ready

        async def release() -> None:
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ready.wait(), READY_WITHIN)
                await asyncio.sleep(spacing)
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), REQUEST_S)

        task = asyncio.create_task(release())
        self._held.add(task)
        task.add_done_callback(self._held.discard)

    def identified(self) -> None:
        """Discord answered this process's IDENTIFY (READY): it has received it, so the
        spacing of the turn counts from now."""
        if self._ready is not None:
            self._ready.set()
            self._ready = None

    async def _listen(self, receive: Receiver) -> None:
        while True:
            conn: psycopg.AsyncConnection[Any] | None = None
            try:
                conn = await connect(self._conninfo)
                await request(conn, f"LISTEN {CHANNEL}")
                self._listening.set()
                while True:
                    async for note in conn.notifies(timeout=LISTEN_CHECK_S):
                        self.received += 1
                        self._take(receive, note.payload)
                    await request(conn, "SELECT 1")  # (a paused server sends nothing)
            except asyncio.CancelledError:
                raise
            except (psycopg.Error, TimeoutError) as exc:
                log.warning("listening for handed-over presses: %s; again soon",
                            str(exc) or type(exc).__name__)  # fmt: skip
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), REQUEST_S)
            await asyncio.sleep(RECONNECT_AFTER)

    def _take(self, receive: Receiver, payload: str) -> None:
        try:
            press = Press.loads(payload)
        except (ValueError, TypeError):
            log.exception("a handed-over press could not be read")
            return
        # each press on its own: a slow table does not hold up the others
        task = asyncio.create_task(self._receive(receive, press))
        self._held.add(task)
        task.add_done_callback(self._held.discard)

    @staticmethod
    async def _receive(receive: Receiver, press: Press) -> None:
        try:
            await receive(press)
        except Exception:
            log.exception("a handed-over press failed")

    async def close(self) -> None:
        for held in list(self._held):
            held.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._drop_send()
