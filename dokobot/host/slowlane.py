"""The slow commands of one table (an export, the score list as CSV or chart, statistics):
a bounded queue with a per-person limit, worked through one at a time.

A slow command reads a snapshot of the table in a worker thread and never holds the table
while it works, so a seated player's move never waits behind one; the queue keeps one person
(or many) from filling the worker threads: beyond :data:`PER_TABLE` commands at a table, or
:data:`PER_USER` of one person, the answer is "busy, try again".

>>> lane = SlowLane()
>>> [lane.admit("u1") for _ in range(3)], lane.admit("u2")
([True, True, False], True)
>>> lane.release("u1"); lane.admit("u1")
True
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Final

PER_TABLE: Final = 8
"""Slow commands a table takes at once (waiting or being answered)."""
PER_USER: Final = 2
"""Slow commands one person may have waiting or being answered at one table."""
SLOW_WORKERS: Final = 2
"""Worker threads that answer slow commands (of all tables)."""
SLOW_THREAD: Final = "dokobot-slow"
"""The name prefix of those threads."""


class SlowLane:
    """Admission and order of one table's slow commands."""

    def __init__(self, per_table: int = PER_TABLE, per_user: int = PER_USER) -> None:
        self.per_table = per_table
        self.per_user = per_user
        self.users: Counter[str] = Counter()
        self.turn = asyncio.Lock()
        """Held by the slow command being answered; the others wait for it in order."""

    def admit(self, user: str) -> bool:
        """Take a place for a command of ``user`` (False: the queue or his share is full)."""
        if self.users.total() >= self.per_table or self.users[user] >= self.per_user:
            return False
        self.users[user] += 1
        return True

    def release(self, user: str) -> None:
        self.users[user] -= 1
        if self.users[user] <= 0:
            del self.users[user]

    @property
    def idle(self) -> bool:
        return not self.users
