"""Users' languages (``/lang``) as the router reads them: the store has every one, memory
keeps the most recently used (:data:`dokobot.bounded.CAPS`), and a forgotten one is read
from the store again when it is needed.

The router reads them on the event loop, so a miss never waits for the store (a stalled
store would stall every table of the process): it answers "none chosen" (the table's
language) and reads the store in a worker thread; the language is in memory from then on.
The service reads ahead what it is about to need (:meth:`StoredLanguages.fetch`): the
sender of an input, the people at a table it loads; each waits at most :data:`LOOKUP_S`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Final

from .. import bounded
from ..bounded import Bounded
from ..store import Store

log = logging.getLogger(__name__)

LOOKUP_S: Final = 2.0
"""How long an input waits for its sender's language to be read from the store (then it
is answered in the table's language; the read goes on and is kept), and an adapter for a
user's stored setting (:meth:`dokobot.host.service.Service.preference_of`)."""
READERS: Final = 2
"""Worker threads that read languages from the store."""


class StoredLanguages(dict[str, str]):
    """The router's ``langs`` map backed by a store: ``user in langs``, ``langs[user]``,
    ``langs.get(user)`` answer from memory and, on a miss, start reading the store (the
    answer meanwhile: none chosen); setting or removing an entry changes memory only (the
    service writes the store)."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store
        self._cache: Bounded[str, str | None] = Bounded(bounded.CAPS.users)
        self._lock = threading.Lock()
        """Guards the cache and the reads under way (the router runs in worker threads
        too, and the reads end in theirs)."""
        self._reading: dict[str, Future[None]] = {}
        self._pool = ThreadPoolExecutor(READERS, thread_name_prefix="dokobot-langs")

    def _lookup(self, user: str) -> str | None:
        with self._lock:
            try:
                return self._cache[user]
            except KeyError:
                pass
        self._read(user)
        return None

    def _read(self, user: str) -> Future[None] | None:
        """Read ``user``'s language from the store in a worker thread, unless it is in
        memory (None) or being read already (that read)."""
        with self._lock:
            if user in self._cache:
                return None
            reading = self._reading.get(user)
            if reading is None:
                try:
                    reading = self._pool.submit(self._fill, user)
                except RuntimeError:  # closed
                    return None
                self._reading[user] = reading
            return reading

    def _fill(self, user: str) -> None:
        try:
            lang = self._store.language(user)
        except Exception as exc:
            log.warning("the language of a user could not be read (%s); the table's until "
                        "it can", str(exc).splitlines()[0] if str(exc) else exc)  # fmt: skip
            with self._lock:
                self._reading.pop(user, None)
            return
        with self._lock:
            if user not in self._cache:  # (a /lang set meanwhile is newer)
                self._cache[user] = lang
            self._reading.pop(user, None)

    async def fetch(self, users: Iterable[str], within_s: float = LOOKUP_S) -> None:
        """Have ``users``' languages in memory: those that are not are read from the store,
        waited for at most ``within_s`` seconds (then they go on in the background)."""
        reads = {r for r in (self._read(u) for u in set(users)) if r is not None}
        if not reads:
            return
        _, late = await asyncio.wait([asyncio.wrap_future(r) for r in reads], timeout=within_s)
        if late:
            log.warning("the languages of %d users were not read within %.1f s; the "
                        "table's language answers meanwhile", len(late), within_s)  # fmt: skip

    def close(self) -> None:
        """Start no more reads (those under way end by the store's deadline)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __contains__(self, user: object) -> bool:
        return isinstance(user, str) and self._lookup(user) is not None

    def __getitem__(self, user: str) -> str:
        lang = self._lookup(user)
        if lang is None:
            raise KeyError(user)
        return lang

    def get(self, user: str, default: Any = None) -> Any:
        lang = self._lookup(user)
        return default if lang is None else lang

    def __setitem__(self, user: str, lang: str) -> None:
        with self._lock:
            self._cache[user] = lang

    def __delitem__(self, user: str) -> None:
        with self._lock:
            if self._cache.get(user) is None:
                raise KeyError(user)
            del self._cache[user]

    def pop(self, user: str, default: Any = None) -> Any:
        with self._lock:
            lang = self._cache.get(user)
            self._cache.pop(user, None)
        return default if lang is None else lang

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            return iter([u for u, lang in self._cache.items() if lang is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<StoredLanguages {len(self._cache)} in memory>"
