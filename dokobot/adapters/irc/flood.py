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


GAME = 0
"""Priority of channel game lines, hands and prompts: they go out first."""
REPLY = 1
"""Priority of short private answers."""
BULK = 2
"""Priority of long private answers (help, export, score lists): only when nothing else waits."""


@dataclass(frozen=True, slots=True)
class OutLine:
    """One message to send: ``PRIVMSG`` to a channel or ``NOTICE`` to a user id.

    ``prompt`` is the table's channel id on the lines of a prompt (a player's turn);
    ``last`` marks the prompt's last line, so the adapter can tell the host when the prompt
    really left.
    """

    command: str
    target: str
    text: str
    private: bool = False  # target is a user id, resolved to the current nick when sent
    priority: int = GAME
    prompt: str = ""
    last: bool = False


class Outbox:
    """Outgoing lines, one queue per target, served fairly by priority.

    :meth:`get` returns a line of the lowest priority that has lines waiting; among the
    targets waiting at that priority it takes turns (round robin), so one person's long
    answer never holds up the channel or another player's prompt. The lines of one target
    and priority keep their order. One target holds at most ``per_target`` answer lines
    (short and long answers, not game lines): beyond that its oldest answer line is dropped,
    so somebody who asks for ``!help`` or ``!export`` over and over gets the latest answers
    and costs the others nothing. At most ``maxlen`` lines are held in all; beyond that the
    oldest line of the lowest priority is dropped. Dropped lines are counted in ``dropped``.
    """

    def __init__(self, maxlen: int = 5000, per_target: int = 200) -> None:
        self._queues: dict[int, dict[str, deque[tuple[int, OutLine]]]] = {
            GAME: {}, REPLY: {}, BULK: {},
        }  # fmt: skip
        self._maxlen = maxlen
        self._per_target = per_target
        self._count = 0
        self._seq = 0
        self._ready = asyncio.Event()
        self.dropped = 0

    def __len__(self) -> int:
        return self._count

    def waiting(self, target: str) -> int:
        """Lines waiting for ``target`` (all priorities)."""
        return sum(len(q.get(target, ())) for q in self._queues.values())

    def put(self, line: OutLine) -> None:
        level = self._queues.setdefault(line.priority, {})
        self._seq += 1
        level.setdefault(line.target, deque()).append((self._seq, line))
        self._count += 1
        if line.priority != GAME:
            self._trim_target(line.target)
        while self._count > self._maxlen:
            self._drop_one()
        self._ready.set()

    def put_front(self, line: OutLine) -> None:
        level = self._queues.setdefault(line.priority, {})
        queue = level.pop(line.target, deque())
        queue.appendleft((queue[0][0] - 1 if queue else 0, line))
        # the target goes first in its round again
        self._queues[line.priority] = {line.target: queue, **level}
        self._count += 1
        self._ready.set()

    def _trim_target(self, target: str) -> None:
        """Drop ``target``'s oldest answer lines beyond :attr:`_per_target`."""
        answers = [p for p in self._queues if p != GAME]
        while sum(len(self._queues[p].get(target, ())) for p in answers) > self._per_target:
            oldest = min(
                (p for p in answers if self._queues[p].get(target)),
                key=lambda p: self._queues[p][target][0][0],
            )
            self._remove_first(oldest, target)

    def _remove_first(self, priority: int, target: str) -> None:
        level = self._queues[priority]
        queue = level[target]
        queue.popleft()
        if not queue:
            del level[target]
        self._count -= 1
        self.dropped += 1

    def _drop_one(self) -> None:
        for priority in sorted(self._queues, reverse=True):
            level = self._queues[priority]
            if level:
                self._remove_first(priority, next(iter(level)))
                return

    def _pop(self) -> OutLine | None:
        for priority in sorted(self._queues):
            level = self._queues[priority]
            if not level:
                continue
            target = next(iter(level))
            queue = level.pop(target)
            _, line = queue.popleft()
            if queue:
                level[target] = queue  # to the end of the round
            self._count -= 1
            return line
        return None

    async def get(self) -> OutLine:
        while True:
            line = self._pop()
            if line is not None:
                return line
            self._ready.clear()
            await self._ready.wait()


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
