"""When a search stops: :class:`Budget`, the thread CPU time (or fixed work) one decision
may use. Its own module so that the search (:mod:`~dokobot.ai.search`) and the exact
endgames (:mod:`~dokobot.ai.exact`), which the search calls, both use it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Final

WALL_CAP_BASE_S: Final = 1.0
WALL_CAP_FACTOR: Final = 4.0
"""A search with a budget of ``b`` CPU seconds also stops after ``1 s + 4 b`` wall-clock
seconds (a thread starved by many tables thinking at once still answers in time)."""


class Budget:
    """When one search stops: after ``seconds`` of the searching thread's CPU time or, in
    fixed mode (``iterations`` given), after exactly that many iterations.

    Why thread CPU time (:func:`time.thread_time`) and not the wall clock: the search runs in
    a worker thread beside the event loop and beside the searches of other tables, all under
    one interpreter lock, on a machine that may be busy with other processes. Wall-clock time
    would count the time the thread waits for the lock or a core, so the same budget would buy
    less thinking whenever the host is busy, and a benchmark on a shared machine would measure
    the load instead of the player. CPU time of the thread is exactly the thinking the search
    did. The wall clock is only a safety cap (:data:`WALL_CAP_BASE_S` +
    :data:`WALL_CAP_FACTOR` x ``seconds``) so that a starved thread still answers in time; the
    fixed mode never reads a clock.
    """

    __slots__ = ("iterations", "seconds", "start", "wall_stop")

    cpu_clock: ClassVar[Callable[[], float]] = staticmethod(time.thread_time)
    """The thread CPU clock every budget reads (a test may put a counting clock here)."""
    wall_clock: ClassVar[Callable[[], float]] = staticmethod(time.perf_counter)
    """The wall clock of the safety cap (likewise)."""

    def __init__(self, seconds: float, iterations: int | None = None) -> None:
        self.seconds = seconds
        self.iterations = iterations
        self.start = Budget.cpu_clock()
        self.wall_stop = Budget.wall_clock() + WALL_CAP_BASE_S + WALL_CAP_FACTOR * seconds

    @property
    def fixed(self) -> bool:
        return self.iterations is not None

    def deadline(self, share: float) -> float:
        """The thread CPU time at which ``share`` of the budget is spent."""
        return self.start + self.seconds * share

    def over(self, deadline: float) -> bool:
        """Whether the thread's CPU time reached ``deadline`` (or the wall-clock cap hit)."""
        return Budget.cpu_clock() >= deadline or Budget.wall_clock() >= self.wall_stop

    def spent(self) -> bool:
        """Whether the whole budget is used (or the wall-clock cap hit)."""
        return self.over(self.deadline(1.0))

    def used(self) -> float:
        """Thread CPU seconds since the search started."""
        return Budget.cpu_clock() - self.start
