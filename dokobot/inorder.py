"""Places in line per key (a person): each goes on after the ones that came before it, but
never waits longer than its own deadline (a stuck place holds nobody up for long).

A place is taken when something comes, before anything is awaited for it; it waits for the
places ahead of it with :meth:`Place.after_those_ahead` and lets the next go on with
:meth:`Place.leave` (also on failure: leaving twice is harmless). A key is kept only while a
place of it is taken.

>>> import asyncio
>>> async def two_presses() -> list[str]:
...     line, done = InOrder(), []
...     first, second = line.place("anna", 2.0), line.place("anna", 2.0)
...     async def go(place: Place, name: str, delay: float) -> None:
...         await asyncio.sleep(delay)  # (the first is slower to get ready)
...         await place.after_those_ahead()
...         done.append(name)
...         place.leave()
...     await asyncio.gather(go(second, "leave", 0.0), go(first, "join", 0.01))
...     return done + [str(len(line))]
>>> asyncio.run(two_presses())
['join', 'leave', '0']
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["InOrder", "Place"]

K = TypeVar("K", bound=Hashable)


class Place(Generic[K]):
    """One place of ``key`` in line, taken at ``came`` (the event loop's clock); it waits
    for the place before it at most ``within_s`` seconds from its coming."""

    __slots__ = ("_ahead", "_line", "_mine", "came", "key", "within_s")

    def __init__(self, line: InOrder[K], key: K, within_s: float) -> None:
        loop = asyncio.get_running_loop()
        self._line = line
        self.key = key
        self.within_s = within_s
        self.came = loop.time()
        self._ahead = line._last.get(key)
        self._mine: asyncio.Future[None] = loop.create_future()
        line._last[key] = self._mine

    def left_s(self) -> float:
        """Seconds of this place's deadline still left (0 when it has passed)."""
        return max(0.0, self.came + self.within_s - asyncio.get_running_loop().time())

    async def after_those_ahead(self) -> None:
        """Return when the place just before this one has left (it waited for those before
        it in turn), or at this place's deadline, whichever comes first."""
        ahead = self._ahead
        if ahead is not None and not ahead.done():
            await asyncio.wait([ahead], timeout=self.left_s())

    def leave(self) -> None:
        """Let the next place of the key go on (again: nothing)."""
        if not self._mine.done():
            self._mine.set_result(None)
        if self._line._last.get(self.key) is self._mine:
            del self._line._last[self.key]


class InOrder(Generic[K]):
    """The lines of every key with a place taken."""

    def __init__(self) -> None:
        self._last: dict[K, asyncio.Future[None]] = {}
        """Per key with a place taken: the last place's future (done when it leaves)."""

    def __len__(self) -> int:
        """How many keys have a place taken."""
        return len(self._last)

    def place(self, key: K, within_s: float) -> Place[K]:
        """A place for ``key`` behind its places taken before (call it before awaiting
        anything for what came)."""
        return Place(self, key, within_s)
