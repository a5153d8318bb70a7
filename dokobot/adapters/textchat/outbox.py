"""Flood control of a text chat: a token bucket and the outgoing line queue with its lanes.

One connection (or one bot account) carries every table, at a rate the server allows: the
:class:`Outbox` decides which line goes next, fairly between tables and people, and the
:class:`TokenBucket` when.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


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


ANSWER = 0
"""Lane of a person's answer to his own command: it takes the next free slot."""
GAME = 1
"""Lane of the game's flow: channel lines and prompts."""
NOTES = 2
"""Lane of hands and other private notes: when no channel line or prompt waits, or once
one has waited its :data:`WAIT_LIMIT` (a player who is asked gets his hand at once:
:meth:`Outbox.promote`)."""
BULK = 3
"""Lane of long answers (an export packed into many lines), and of a person's further
answers within :data:`ANSWER_GAP` of his last fast one."""

WAIT_LIMIT = {NOTES: 30.0, BULK: 20.0}
"""Seconds after which a unit of a later lane takes every other slot, however busy the
tables are (a hand is promoted anyway when its player is asked); a long answer at most
once per :data:`BULK_GAP`."""

ANSWER_GAP = 5.0
"""A person gets one answer in the next free slot per this many seconds; more answers wait
with the long ones, so somebody who sends commands over and over slows no table."""

BULK_GAP = 30.0
"""A long answer that waited its :data:`WAIT_LIMIT` goes ahead of the tables at most once
per this many seconds."""


@dataclass(eq=False, slots=True)
class Unit:
    """One message for one target (a room, or a user id for a private line): its lines go
    out one right after the other, never split by other lines.

    ``valid`` is asked before each line: when it says False the rest of the unit is
    dropped (a prompt already answered, a view of a finished game, a person who left).
    ``after``: the unit goes out only after that one (the channel line of a move before
    the next player's prompt). ``on_sent`` is called once its last line left, ``on_drop``
    when it is dropped instead. ``answer`` marks a person's answer to his own command.
    """

    target: str
    lines: list[str]
    private: bool = False
    lane: int = GAME
    answer: bool = False
    present_only: bool = False
    """Sent only to somebody in one of the bot's channels (a prompt waits for him instead)."""
    valid: Callable[[], bool] | None = None
    after: Unit | None = None
    on_sent: Callable[[], None] | None = None
    on_drop: Callable[[], None] | None = None
    next: int = 0
    finished: bool = False
    queued: float = field(default_factory=time.monotonic)
    seq: int = 0

    @property
    def ready(self) -> bool:
        return self.after is None or self.after.finished

    def alive(self) -> bool:
        return self.valid is None or self.valid()


@dataclass(frozen=True, slots=True)
class OutLine:
    """One line to send: to a room, or (``private``) to a user id (resolved to where the
    person is reached when it is sent); ``last`` marks the last line of its unit."""

    target: str
    text: str
    private: bool = False
    unit: Unit | None = None
    last: bool = True


class Outbox:
    """Outgoing messages, one queue per target, served fairly.

    :meth:`get` returns the next line: first the rest of the unit being sent (a unit is
    never split), then a unit of the first lane that has one ready (:data:`ANSWER`,
    :data:`GAME`, :data:`NOTES`, :data:`BULK`; a lane whose oldest unit waited its
    :data:`WAIT_LIMIT` goes first); within a lane the targets take turns (round robin), so
    one table's lines never hold up another table or a person's answer. A target has at
    most one unit in the answer lane, and gets one there per :data:`ANSWER_GAP`: a further
    answer waits with the long ones, so somebody who sends many commands gets the first
    answer at once and costs the others nothing. The units of one target keep their order within a lane. Stale units
    (``valid`` False) are dropped when their turn comes. One target holds at most
    ``per_target`` answers (the oldest is dropped), the outbox at most ``maxlen`` units
    (the oldest of the last lane is dropped). Dropped units are counted in ``dropped``.
    """

    def __init__(self, maxlen: int = 5000, per_target: int = 20) -> None:
        self._lanes: dict[int, dict[str, deque[Unit]]] = {
            ANSWER: {}, GAME: {}, NOTES: {}, BULK: {},
        }  # fmt: skip
        self._maxlen = maxlen
        self._per_target = per_target
        self._count = 0
        self._seq = 0
        self._picks = 0
        self._answered: dict[str, float] = {}
        """target -> when its last answer went out in the answer lane."""
        self._bulk_ahead = -BULK_GAP
        self._current: Unit | None = None
        self._ready = asyncio.Event()
        self.dropped = 0

    def __len__(self) -> int:
        """Units waiting (the one being sent not counted)."""
        return self._count

    def waiting(self, target: str) -> int:
        """Units waiting for ``target`` (all lanes)."""
        return sum(len(lane.get(target, ())) for lane in self._lanes.values())

    def units(self) -> list[Unit]:
        """The waiting units (oldest lane first), for inspection."""
        return [u for lane in self._lanes.values() for q in lane.values() for u in q]

    def put(self, unit: Unit) -> None:
        if not unit.lines:
            unit.finished = True
            return
        self._seq += 1
        unit.seq = self._seq
        lane = unit.lane
        if lane == ANSWER and (
            self._lanes[ANSWER].get(unit.target)
            or time.monotonic() - self._answered.get(unit.target, -ANSWER_GAP) < ANSWER_GAP
        ):
            lane = unit.lane = BULK  # one answer at a time jumps the queue
        self._lanes[lane].setdefault(unit.target, deque()).append(unit)
        self._count += 1
        if unit.answer:
            self._trim_answers(unit.target)
        while self._count > self._maxlen:
            self._drop_oldest()
        self._ready.set()

    def promote(self, target: str) -> None:
        """``target``'s notes go with the game's flow now (a player who is asked to act gets
        his hand before anything else of his)."""
        notes = self._lanes[NOTES].pop(target, None)
        if not notes:
            return
        for unit in notes:
            unit.lane = GAME
        game = self._lanes[GAME]
        game[target] = deque([*notes, *game.get(target, ())])
        self._ready.set()

    def skip(self, unit: Unit) -> None:
        """The rest of ``unit`` is not sent (its target went away)."""
        if self._current is unit:
            self._current = None

    def kick(self) -> None:
        """Look again: a unit may have become ready or stale."""
        self._ready.set()

    def _trim_answers(self, target: str) -> None:
        queues = [lane[target] for lane in self._lanes.values() if target in lane]
        answers = sorted((u for q in queues for u in q if u.answer), key=lambda u: u.seq)
        for unit in answers[: max(0, len(answers) - self._per_target)]:
            self._remove(unit)

    def _remove(self, unit: Unit) -> None:
        for lane in self._lanes.values():
            queue = lane.get(unit.target)
            if queue is not None and unit in queue:
                queue.remove(unit)
                if not queue:
                    del lane[unit.target]
                self._count -= 1
                self._dropped(unit)
                return

    def _dropped(self, unit: Unit) -> None:
        unit.finished = True
        self.dropped += 1
        if unit.on_drop is not None:
            unit.on_drop()

    def _drop_oldest(self) -> None:
        for lane_id in sorted(self._lanes, reverse=True):
            lane = self._lanes[lane_id]
            if lane:
                self._remove(next(iter(lane.values()))[0])
                return

    def _line_of(self, unit: Unit) -> OutLine:
        text = unit.lines[unit.next]
        unit.next += 1
        last = unit.next >= len(unit.lines)
        if last:
            unit.finished = True
            self._current = None
        else:
            self._current = unit
        return OutLine(unit.target, text, unit.private, unit, last)

    def _pop(self) -> OutLine | None:
        current = self._current
        if current is not None:
            if current.alive():
                return self._line_of(current)
            self._current = None
            self._dropped(current)
        order = sorted(self._lanes)
        now = time.monotonic()
        self._picks += 1
        for lane_id, limit in WAIT_LIMIT.items() if self._picks % 2 else ():
            lane = self._lanes[lane_id]
            if lane_id == BULK and now - self._bulk_ahead < BULK_GAP:
                continue
            if lane and min(q[0].queued for q in lane.values()) < now - limit:
                order.remove(lane_id)
                order.insert(0, lane_id)
                if lane_id == BULK:
                    self._bulk_ahead = now
                break
        for lane_id in order:
            lane = self._lanes[lane_id]
            for target in list(lane):
                queue = lane[target]
                while queue and not queue[0].alive():
                    self._count -= 1
                    self._dropped(queue.popleft())
                if not queue:
                    del lane[target]
                    continue
                if not queue[0].ready:
                    continue
                unit = queue.popleft()
                del lane[target]
                if queue:
                    lane[target] = queue  # to the end of the round
                self._count -= 1
                if lane_id == ANSWER:
                    if len(self._answered) > 4 * self._per_target + 1000:
                        self._answered = {
                            t: w for t, w in self._answered.items() if now - w < ANSWER_GAP
                        }
                    self._answered[target] = now
                return self._line_of(unit)
        return None

    async def get(self) -> OutLine:
        while True:
            line = self._pop()
            if line is not None:
                return line
            self._ready.clear()
            await self._ready.wait()
