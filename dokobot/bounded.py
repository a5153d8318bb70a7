"""Bounded per-user and per-channel memory (the adapters' maps, users' languages).

An adapter remembers small things about the people and channels it has seen (a DM channel,
a language, where prompts go). Over months a busy bot sees many of them, so every such map
is a :class:`Bounded`: at most ``cap`` entries, the least recently used leaves first, and an
entry may expire after ``ttl`` seconds. What must survive being forgotten (a user's
language, IRC identities) comes back from the store; the rest is cheap to learn again (a DM
channel is opened again). The caps are declared here, in one place (:data:`CAPS`).

>>> m = Bounded[str, int](2)
>>> m["a"], m["b"] = 1, 2
>>> m.get("a")   # used: "b" is now the least recently used
1
>>> m["c"] = 3
>>> sorted(m), len(m)
(['a', 'c'], 2)
>>> t = iter([0.0, 0.0, 5.0, 11.0]).__next__
>>> e = Bounded[str, int](10, ttl=10.0, clock=t)
>>> e["x"] = 1
>>> e.get("x"), e.get("x"), e.get("x")
(1, 1, None)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Caps:
    """How many entries each kind of adapter memory keeps."""

    users: int = 10_000
    """Per-user maps (DM channels, languages, prompt places, admin flags, IRC accounts and
    prompts; the host's cache of users' languages)."""
    channels: int = 2_000
    """Per-channel maps (board messages, markers, channel languages)."""


CAPS = Caps()
"""The caps every adapter uses (tests replace it with small ones)."""


class Bounded(MutableMapping[K, V], Generic[K, V]):
    """A mapping of at most ``cap`` entries; reading or writing an entry makes it the most
    recently used, the least recently used one leaves when a new one would exceed the cap.
    With ``ttl``, an entry is gone ``ttl`` seconds after it was written."""

    __slots__ = ("_clock", "_data", "cap", "ttl")

    def __init__(
        self,
        cap: int,
        *,
        ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if cap < 1:
            raise ValueError("cap must be at least 1")
        self.cap = cap
        self.ttl = ttl
        self._clock = clock
        self._data: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def _expired(self, written: float) -> bool:
        return self.ttl is not None and self._clock() - written >= self.ttl

    def __getitem__(self, key: K) -> V:
        written, value = self._data[key]
        if self.ttl is not None and self._expired(written):
            del self._data[key]
            raise KeyError(key)
        self._data.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        written = self._clock() if self.ttl is not None else 0.0
        self._data[key] = (written, value)
        self._data.move_to_end(key)
        while len(self._data) > self.cap:
            self._data.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._data))

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        entry = self._data.get(key)  # type: ignore[arg-type]
        return entry is not None and not self._expired(entry[0])

    def remembered(self, key: K, load: Callable[[K], V], *, keep_none: bool = True) -> V:
        """The value of ``key``; on a miss ``load(key)`` (e.g. from the store), kept unless
        it is None and not ``keep_none``. What must survive being forgotten reads through
        this: the store is asked once per miss, not on every use.

        >>> m = Bounded[str, str | None](2)
        >>> m.remembered("anna", lambda user: "de"), m.remembered("ben", lambda user: None)
        ('de', None)
        >>> "ben" in m, m.remembered("cleo", lambda user: None, keep_none=False), "cleo" in m
        (True, None, False)
        """
        try:
            return self[key]
        except KeyError:
            pass
        value = load(key)
        if value is not None or keep_none:
            self[key] = value
        return value

    def newest_first(self) -> Iterator[tuple[K, V]]:
        """The entries, most recently used first (without using them)."""
        for key in reversed(list(self._data)):
            written, value = self._data[key]
            if not self._expired(written):
                yield key, value

    def __repr__(self) -> str:
        return f"<Bounded {len(self._data)}/{self.cap}>"
