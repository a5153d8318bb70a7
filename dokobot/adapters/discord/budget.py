"""The bot token's request budget: every request counted, the bot-wide limit shared out.

Discord allows a bot token about 50 requests per second, across all its processes; interaction
callbacks and interaction webhooks (follow-ups, edits of interaction messages) do not count
(https://docs.discord.com/developers/topics/rate-limits#global-rate-limit). discord.py's own
limiter knows only its process, so each process takes a share: ``discord.global_rps``, by
default 50 divided by the processes (:func:`default_rps`). :class:`RequestBudget` hooks into
discord.py's HTTP session (an :class:`aiohttp.TraceConfig`): it counts every request by kind,
holds back the ones that count until the process's share allows them, and counts the 429s
that Discord marks global.

>>> budget = RequestBudget(rps=10)
>>> budget.kind_of("/api/v10/interactions/1/tok/callback"), budget.kind_of("/api/v10/channels/5/messages")
('interaction', 'channel')
>>> default_rps(None), default_rps(4)
(50.0, 12.5)
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from types import SimpleNamespace
from typing import Final

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
        self._left: deque[float] = deque()
        """When the counted requests of the last :data:`BUSY_WINDOW` seconds left."""
        self._lock = asyncio.Lock()
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._on_start)
        self.trace.on_request_end.append(self._on_end)

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
        async with self._lock:  # requests leave one by one, evenly apart
            loop = asyncio.get_running_loop()
            wait = self.slot(loop.time()) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.leave(loop.time())

    def slot(self, now: float) -> float:
        """When the next counted request may leave, asked at ``now``: at once after a pause,
        else (1 + :data:`SLACK`) / rps after the one before left."""
        return max(now, self._next)

    def leave(self, at: float) -> None:
        """A counted request leaves at ``at``: the next one waits its turn from then on. (A
        request that leaves late, its process busy, pushes the next one back: the late ones
        never leave together.)

        >>> budget = RequestBudget(rps=50)
        >>> budget.leave(budget.slot(10.0)); budget.slot(10.0)
        10.022
        >>> budget.leave(10.2); budget.slot(10.0), budget.slot(30.0)
        (10.222, 30.0)
        """
        assert self.rps is not None
        self._next = at + (1.0 + SLACK) / self.rps
        self._left.append(at)

    def busy(self, now: float) -> bool:
        """Whether the counted requests of the last :data:`BUSY_WINDOW` seconds (up to
        ``now``) used more than :data:`BUSY_SHARE` of the process's pace.

        >>> budget = RequestBudget(rps=10)
        >>> for k in range(40): budget.leave(budget.slot(100.0))
        >>> budget.busy(budget.slot(100.0)), budget.busy(budget.slot(100.0) + 2 * BUSY_WINDOW)
        (True, False)
        """
        if self.rps is None:
            return False
        left = self._left
        while left and left[0] < now - BUSY_WINDOW:
            left.popleft()
        return len(left) > BUSY_SHARE * BUSY_WINDOW * self.rps / (1.0 + SLACK)

    async def _on_end(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        response = params.response
        if response.status != 429:
            return
        if response.headers.get("X-RateLimit-Global", "").lower() == "true" or (
            response.headers.get("X-RateLimit-Scope") == "global"
        ):
            self.global_429s += 1
            log.warning("Discord: the bot-wide rate limit was hit (%s so far)", self.global_429s)
        else:
            self.route_429s += 1
