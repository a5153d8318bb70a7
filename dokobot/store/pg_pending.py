"""One append on its way to PostgreSQL: what the writer threads (``pg_append``) and the
read-back of a lost answer (``pg_lost``) both hold."""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["Pending"]


class Pending:
    """One append waiting for a writer thread; ``answer`` is called with its outcome once
    it is known."""

    __slots__ = ("answer", "at", "channel", "done", "error", "length", "lines")

    def __init__(
        self,
        channel: str,
        lines: list[str],
        at: int | None,
        answer: Callable[[int | Exception], None] | None = None,
    ) -> None:
        self.channel = channel
        self.lines = lines
        self.at = at
        self.answer = answer
        self.done = threading.Event()
        self.error: Exception | None = None
        self.length = 0

    def finish(self) -> None:
        """The outcome is known: wake the waiter and answer."""
        if self.done.is_set():
            return
        self.done.set()
        if self.answer is not None:
            self.answer(self.length if self.error is None else self.error)
