"""Flood control: a token bucket and the outgoing line queue, plus reconnect backoff."""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


class TokenBucket:
    """``burst`` lines at once, then ``rate`` lines per second.

    The bucket starts full; every line takes one token; tokens come back at ``rate`` per
    second up to ``burst``. ``clock`` and ``sleep`` can be replaced in tests.
    """

    def __init__(
        self,
        burst: int,
        rate: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if burst < 1:
            raise ValueError("burst must be at least 1")
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.burst = burst
        self.rate = rate
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def try_take(self) -> float:
        """Take a token if there is one and return 0, else return the seconds to wait."""
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / self.rate

    async def acquire(self) -> None:
        """Wait until a token is free and take it."""
        while True:
            wait = self.try_take()
            if wait <= 0:
                return
            await self._sleep(wait)


@dataclass(frozen=True, slots=True)
class OutLine:
    """One message to send: ``PRIVMSG`` to a channel or ``NOTICE`` to a user id."""

    command: str
    target: str
    text: str
    private: bool = False  # target is a user id, resolved to the current nick when sent


class Outbox:
    """The outgoing queue (FIFO; a line that failed to go out can go back to the front).

    It holds at most ``maxlen`` lines; beyond that the oldest are dropped (counted in
    ``dropped``) so a long outage cannot eat memory.
    """

    def __init__(self, maxlen: int = 5000) -> None:
        self._lines: deque[OutLine] = deque()
        self._maxlen = maxlen
        self._ready = asyncio.Event()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._lines)

    def put(self, line: OutLine) -> None:
        self._lines.append(line)
        while len(self._lines) > self._maxlen:
            self._lines.popleft()
            self.dropped += 1
        self._ready.set()

    def put_front(self, line: OutLine) -> None:
        self._lines.appendleft(line)
        self._ready.set()

    async def get(self) -> OutLine:
        while not self._lines:
            self._ready.clear()
            await self._ready.wait()
        return self._lines.popleft()


def backoff_delay(
    attempt: int, *, initial: float, cap: float, rng: random.Random | None = None
) -> float:
    """Seconds to wait before reconnect attempt ``attempt`` (0-based): exponential, capped,
    with jitter (uniform between half and all of ``min(cap, initial * 2**attempt)``).

    >>> rng = random.Random(1)
    >>> [round(backoff_delay(n, initial=1, cap=8, rng=rng), 2) for n in range(6)]
    [0.57, 1.85, 3.53, 5.02, 5.98, 5.8]
    """
    ceiling = min(cap, initial * 2 ** min(attempt, 30))
    return (rng or random).uniform(ceiling / 2, ceiling)
