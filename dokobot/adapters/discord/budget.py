"""The bot token's request budget: every request counted, the bot-wide limit shared out.

Discord allows a bot token about 50 requests per second, across all its processes; interaction
callbacks and interaction webhooks (follow-ups, edits of interaction messages) do not count
(https://docs.discord.com/developers/topics/rate-limits#global-rate-limit). discord.py's own
limiter knows only its process, so each process takes a share: ``discord.global_rps``, by
default 50 divided by the processes (:func:`default_rps`). :class:`RequestBudget` hooks into
discord.py's HTTP session (an :class:`aiohttp.TraceConfig`): it counts every request by kind,
holds back the ones that count until the process's share allows them, and counts the 429s
that Discord marks global.

The counted requests keep to a timeline: each has a slot, the slot before it plus
:meth:`RequestBudget.gap`, and leaves at its slot or as soon as the event loop wakes up after
it. A loop that wakes up late therefore loses no share (a late departure does not push the
next slots back) and sends no bunch: the slots that passed while it slept leave together, at
most a late wake-up's worth (the measured lag). Requests that wait are let go in the order
they came, all that are due at one wake-up of the loop (not one per wake-up, which made a
starved loop send 4 to 9 a second where its share is 45).

Whatever the loop does after a request left (a late write, a queue for a connection, a slow
upload), Discord sees it between its departure and its answer. So a request counts from its
departure until a second after its answer, and a request leaves only while fewer than
rps / (1 + :data:`SLACK`) count (:meth:`RequestBudget.slot`): then no second of Discord's
clock holds more than that many of this process's requests, however late they were written.

>>> budget = RequestBudget(rps=10)
>>> budget.kind_of("/api/v10/interactions/1/tok/callback"), budget.kind_of("/api/v10/channels/5/messages")
('interaction', 'channel')
>>> default_rps(None), default_rps(4)
(50.0, 12.5)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import Counter, deque
from types import SimpleNamespace
from typing import Any, Final

import aiohttp

log = logging.getLogger(__name__)

BOT_WIDE_RPS: Final = 50.0
"""Discord's bot-wide limit (requests per second per token) for bots that did not get more."""
SLACK: Final = 0.1
"""Counted requests leave this share further apart than the process's share allows: on their
way to Discord some are held up longer than others, and requests paced exactly at 50 per
second put a 51st into one of Discord's seconds now and then (global 429s in
``bench/discord.py`` from 25 tables on, when the boards of all tables start at once; a slack
of 5 % still let 6 through with 150 tables, 10 % none)."""
BUSY_SHARE: Final = 0.75
"""Share of the process's pace above which the budget is busy (:meth:`RequestBudget.busy`):
the boards then show two moves per edit where they would show one, so that a process near
its share makes fewer requests instead of queueing them."""
BUSY_WINDOW: Final = 5.0
"""Seconds over which :meth:`RequestBudget.busy` measures the pace."""
LAG_EVERY: Final = 0.1
"""Seconds between two probes of the event loop's lag (:meth:`RequestBudget.lag`)."""
LAG_DECAY: Final = 0.95
"""Share of the measured lag kept from one probe to the next (the lag falls slowly)."""
PACE_CUT: Final = 0.8
"""Share of its pace the process keeps after a global 429 (each one cuts again)."""
PACE_FLOOR: Final = 0.5
"""The lowest share of its pace global 429s cut it to (several in a row)."""
PACE_RECOVERY: Final = 0.02
"""Share of its pace the process regains per second after a global 429's ``Retry-After``:
a single 429 slows it by a fifth for at most 10 s, a run of them by half for at most 25 s
(a single 429 is one request too many in one of Discord's seconds, not a reason to halve
the whole process's pace for a minute)."""
UNANSWERED_S: Final = 30.0
"""Seconds after which a counted request that left and got no answer (nor an error) counts
no more: every REST request has a read deadline of 15 s (:func:`limit_requests`), so only a
request whose end was never reported gets here, and it must not hold the budget for good."""
FREE_KINDS: Final = frozenset({"interaction", "webhook", "gateway"})
"""Request kinds that do not count toward the bot-wide limit (``gateway``: the websocket's
own connection, not a REST request)."""


def default_rps(processes: int | None) -> float:
    """Each process's share of the bot-wide limit."""
    return BOT_WIDE_RPS / max(1, processes or 1)


class RequestBudget:
    """Counts and paces the requests of one process's bot token (see the module).

    ``rps``: the requests per second this process may make toward the bot-wide limit
    (None: count only). :attr:`counts` holds the requests by kind, :attr:`global_429s` the
    429s Discord marked global (each is logged as a warning).
    """

    def __init__(self, rps: float | None = BOT_WIDE_RPS) -> None:
        self.rps = rps
        self.counts: Counter[str] = Counter()
        self.global_429s = 0
        self.route_429s = 0
        self._next = 0.0
        """The slot of the next counted request on the timeline (loop time)."""
        self._left: deque[float] = deque()
        """When the counted requests of the last :data:`BUSY_WINDOW` seconds left, oldest
        first."""
        self._waiting: deque[tuple[float, asyncio.Future[int]]] = deque()
        """Counted requests waiting for their slot (when each came), first come first served."""
        self._wake: asyncio.TimerHandle | None = None
        self._unanswered: dict[int, float] = {}
        """The counted requests that left and got no answer yet (ticket: when it left)."""
        self._answered: deque[float] = deque()
        """When the counted requests of the last second got their answer, oldest first."""
        self._tickets = 0
        self.lag = 0.0
        """How late the event loop wakes up (seconds; the latest probes', decaying)."""
        self._probe: asyncio.Task[None] | None = None
        self._closed = False
        self._cut_to = 1.0
        """The share of its pace the process kept at the last global 429 (1: none yet)."""
        self._cut_since = 0.0
        """When (loop time) the pace began to recover from the last global 429."""
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._on_start)
        self.trace.on_request_end.append(self._on_end)
        self.trace.on_request_exception.append(self._on_exception)

    @staticmethod
    def kind_of(path: str) -> str:
        """What a request is, by its path: ``interaction`` (callbacks), ``webhook`` (an
        interaction's follow-ups and messages), ``channel`` (messages in channels and DMs),
        ``dm_open``, ``commands`` or ``other``."""
        parts = path.split("/api/", 1)[-1].strip("/").split("/")[1:]  # past the version
        head = parts[0] if parts else ""
        if head == "interactions":
            return "interaction"
        if head == "webhooks":
            return "webhook"
        if head == "channels":
            return "channel"
        if parts[:3] == ["users", "@me", "channels"]:
            return "dm_open"
        if head == "applications" and "commands" in parts:
            return "commands"
        return "other"

    @property
    def counted(self) -> int:
        """Requests that count toward the bot-wide limit."""
        return sum(n for kind, n in self.counts.items() if kind not in FREE_KINDS)

    def report(self) -> str:
        """One line for the log: requests by kind and the 429s."""
        kinds = " ".join(f"{k}={n}" for k, n in sorted(self.counts.items()))
        return (
            f"discord requests: {kinds or 'none'}; counted {self.counted}; "
            f"global 429s {self.global_429s}; route 429s {self.route_429s}"
        )

    async def _on_start(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestStartParams,
    ) -> None:
        kind = "gateway" if params.url.scheme in ("ws", "wss") else self.kind_of(params.url.path)
        self.counts[kind] += 1
        if kind in FREE_KINDS or self.rps is None:
            return
        context.budget_ticket = await self.wait_turn()

    async def wait_turn(self) -> int:
        """Wait until a counted request may leave (its slot, :meth:`slot`), and count it as
        left; returns its ticket for :meth:`answered`."""
        loop = asyncio.get_running_loop()
        if not self._closed and (self._probe is None or self._probe.done()):
            self._probe = loop.create_task(self._measure_lag())
        now = loop.time()
        if not self._waiting and self.slot(now) <= now:
            return self.leave(now, came=now)
        turn: asyncio.Future[int] = loop.create_future()
        self._waiting.append((now, turn))
        self._release()
        return await turn  # resolved by _release at its slot (or after Retry-After)

    def _release(self) -> None:
        """Let every waiting request go whose slot has come (all in one wake-up of the loop,
        first come first served), and wake up again at the next one's slot."""
        loop = asyncio.get_running_loop()
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        now = loop.time()
        while self._waiting:
            came, turn = self._waiting[0]
            if turn.done():  # its request was cancelled meanwhile
                self._waiting.popleft()
                continue
            at = self.slot(now)
            if at > now:
                if at < math.inf:  # else an answer wakes it (or UNANSWERED_S)
                    self._wake = loop.call_at(at, self._release)
                else:
                    self._wake = loop.call_at(now + UNANSWERED_S, self._release)
                return
            ticket = self.leave(now, came)
            self._waiting.popleft()
            turn.set_result(ticket)

    async def close(self) -> None:
        """Stop probing the loop's lag (the adapter closes): no task outlives the client.
        (Requests still waiting for their slot are let go at it, as before.)"""
        self._closed = True
        probe, self._probe = self._probe, None
        if probe is not None and not probe.done():
            probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await probe

    async def _measure_lag(self) -> None:
        """Probe the event loop's lag every :data:`LAG_EVERY` seconds (while requests go)."""
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(LAG_EVERY)
            self.note_lag(loop.time() - before - LAG_EVERY)

    def note_lag(self, late: float) -> None:
        """The loop woke up ``late`` seconds after it should have.

        >>> budget = RequestBudget(rps=50)
        >>> budget.note_lag(0.5); budget.note_lag(0.0); round(budget.lag, 3)
        0.475
        """
        self.lag = max(late, self.lag * LAG_DECAY)

    def pace(self, at: float) -> float:
        """The share of its pace the process keeps at ``at``: 1, cut by global 429s
        (:meth:`back_off`) and regained at :data:`PACE_RECOVERY` per second.

        >>> budget = RequestBudget(rps=50)
        >>> budget.pace(0.0)
        1.0
        >>> budget.back_off(10.0, "1"); budget.pace(11.0), round(budget.pace(16.0), 2)
        (0.8, 0.9)
        >>> budget.pace(21.0)
        1.0
        """
        return min(1.0, self._cut_to + PACE_RECOVERY * max(0.0, at - self._cut_since))

    def gap(self, at: float) -> float:
        """Seconds between two counted requests leaving at ``at``: (1 + :data:`SLACK`) /
        rps, stretched by the loop's lag (a late loop writes the requests of 1 + lag seconds
        within one of Discord's seconds) and by the share of its pace a global 429 cut
        (:meth:`pace`).

        >>> budget = RequestBudget(rps=50)
        >>> round(budget.gap(0.0), 3)
        0.022
        >>> budget.note_lag(1.0); round(budget.gap(0.0), 3)
        0.044
        """
        assert self.rps is not None
        return (1.0 + SLACK) / self.rps * (1.0 + self.lag) / self.pace(at)

    def cap(self, at: float) -> int:
        """How many counted requests may count at once (left and not answered, or answered
        within the last second) at ``at``: rps / (1 + :data:`SLACK`), times the share of its
        pace a global 429 left (:meth:`pace`; at least one).

        >>> RequestBudget(rps=50).cap(0.0), RequestBudget(rps=default_rps(4)).cap(0.0)
        (45, 11)
        """
        assert self.rps is not None
        share = self.rps / (1.0 + SLACK)
        return max(1, int(share * self.pace(at)))

    def slot(self, now: float) -> float:
        """When the next counted request may leave, asked at ``now``: at its slot on the
        timeline (at once if that passed), but only while fewer than :meth:`cap` requests
        count (left and not answered, or answered within the last second; ``math.inf``:
        not before an answer), never before Retry-After after a global 429.

        >>> budget = RequestBudget(rps=10)
        >>> budget.slot(10.0)
        10.0
        >>> ticket = budget.leave(10.0); budget.slot(10.0)
        10.11
        >>> for _ in range(8): _ = budget.leave(budget.slot(10.0))
        >>> budget.slot(11.0)  # nine requests on their way: none more
        inf
        >>> budget.answered(ticket, 11.5); budget.slot(11.0)  # a second after the answer
        12.5
        """
        at = max(now, self._next)
        cap = self.cap(at)
        for ticket, left in list(self._unanswered.items()):
            if left <= at - UNANSWERED_S:
                del self._unanswered[ticket]
        answered = self._answered
        while answered and answered[0] <= at - 1.0:
            answered.popleft()
        drop = len(self._unanswered) + len(answered) - cap + 1
        if drop <= 0:
            return at
        if drop > len(answered):
            return math.inf
        return max(at, answered[drop - 1] + 1.0)

    def leave(self, at: float, came: float = float("-inf")) -> int:
        """A counted request that came at ``came`` (default: long ago) leaves at ``at``: it
        counts until a second after its answer (:meth:`answered`, with the ticket returned).
        Its slot on the timeline was the later of the next slot and ``came``; if it leaves
        late (the loop woke up late), the slot is taken as at most a lag before ``at`` (the
        timeline catches up at most a late wake-up's worth, so a loop that was stopped longer
        sends no bunch). The next slot is one :meth:`gap` after this one.

        >>> budget = RequestBudget(rps=50)
        >>> budget.answered(budget.leave(10.0), 10.0); budget.slot(10.0)
        10.022
        >>> budget.note_lag(0.1); budget.answered(budget.leave(10.2, came=10.0), 10.2)
        >>> budget.slot(10.2)  # left 0.178 s late: the next slot passed too, at once
        10.2
        >>> budget.answered(budget.leave(30.0, came=30.0), 30.0)
        >>> round(budget.slot(30.0), 3)  # after a pause: no catching up
        30.024
        """
        slot = max(self._next, came, at - self.lag)
        self._next = slot + self.gap(at)
        left = self._left
        left.append(at)
        while left and left[0] <= at - BUSY_WINDOW:
            left.popleft()
        self._tickets += 1
        self._unanswered[self._tickets] = at
        return self._tickets

    def answered(self, ticket: int, at: float) -> None:
        """The counted request with ``ticket`` got its answer (or failed) at ``at``: Discord
        saw it by then, and counts it for a second at most."""
        if self._unanswered.pop(ticket, None) is not None:
            self._answered.append(at)

    def busy(self, now: float) -> bool:
        """Whether the counted requests of the last :data:`BUSY_WINDOW` seconds (up to
        ``now``) used more than :data:`BUSY_SHARE` of the process's pace.

        >>> budget = RequestBudget(rps=10)
        >>> for k in range(40): at = budget.slot(100.0); budget.answered(budget.leave(at), at)
        >>> budget.busy(budget.slot(100.0)), budget.busy(budget.slot(100.0) + 2 * BUSY_WINDOW)
        (True, False)
        """
        if self.rps is None:
            return False
        recent = sum(1 for t in self._left if t >= now - BUSY_WINDOW)
        return recent > BUSY_SHARE * BUSY_WINDOW * self.rps / (1.0 + SLACK)

    async def _on_end(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        self._end(context)
        response = params.response
        if response.status != 429:
            return
        if response.headers.get("X-RateLimit-Global", "").lower() == "true" or (
            response.headers.get("X-RateLimit-Scope") == "global"
        ):
            self.global_429s += 1
            log.warning("Discord: the bot-wide rate limit was hit (%s so far)", self.global_429s)
            self.back_off(asyncio.get_running_loop().time(), response.headers.get("Retry-After"))
        else:
            self.route_429s += 1

    async def _on_exception(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestExceptionParams,
    ) -> None:
        self._end(context)

    def _end(self, context: SimpleNamespace) -> None:
        """A request ended (answered or failed): if it counted, it counts a second more."""
        ticket = getattr(context, "budget_ticket", None)
        if ticket is None:
            return
        context.budget_ticket = None
        self.answered(ticket, asyncio.get_running_loop().time())
        if self._waiting:
            self._release()

    def back_off(self, now: float, retry_after: str | None) -> None:
        """A global 429 at ``now``: no counted request of this process leaves before
        ``retry_after`` seconds (Discord's header; 1 s if it says nothing); then its pace is
        cut to :data:`PACE_CUT` of what it was (never below :data:`PACE_FLOOR`) and regained
        at :data:`PACE_RECOVERY` per second (:meth:`pace`).

        >>> budget = RequestBudget(rps=50)
        >>> budget.back_off(10.0, "2"); budget.slot(10.5), round(budget.gap(12.0), 4)
        (12.0, 0.0275)
        >>> round(budget.gap(30.0), 3)
        0.022
        >>> for k in range(5): budget.back_off(40.0 + k, "1")
        >>> budget.pace(45.0), budget.cap(45.0)  # a run of them: half, at most
        (0.5, 22)
        """
        try:
            wait = max(0.0, float(retry_after)) if retry_after else 1.0
        except ValueError:
            wait = 1.0
        self._next = max(self._next, now + wait)
        self._cut_to = max(PACE_FLOOR, self.pace(now) * PACE_CUT)
        self._cut_since = now + wait
        if self._waiting:  # the waiting requests wait for Retry-After too
            self._release()


def limit_requests(http: Any, timeout: float) -> None:
    """Give every REST request of discord.py's session ``http`` (the bot's and the
    interactions') a deadline: no answer within ``timeout`` seconds fails it (the gateway's
    websocket keeps its own timeouts)."""
    session = getattr(http, "_HTTPClient__session", None)
    if not isinstance(session, aiohttp.ClientSession):
        log.warning("discord.py's HTTP session not found: requests keep its timeouts")
        return
    was = session.timeout
    session._timeout = aiohttp.ClientTimeout(  # no setter; every request reads it
        total=was.total,
        connect=was.connect,
        sock_connect=was.sock_connect,
        sock_read=timeout,
    )
