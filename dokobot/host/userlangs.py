"""Users' languages (``/lang``) as the router reads them: the store has every one, memory
keeps the most recently used (:data:`dokobot.bounded.CAPS`), and a forgotten one is read
from the store again when it is needed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import bounded
from ..bounded import Bounded
from ..store import Store


class StoredLanguages(dict[str, str]):
    """The router's ``langs`` map backed by a store: ``user in langs``, ``langs[user]``,
    ``langs.get(user)`` read the store on a miss; setting or removing an entry changes
    memory only (the service writes the store)."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store
        self._cache: Bounded[str, str | None] = Bounded(bounded.CAPS.users)

    def _lookup(self, user: str) -> str | None:
        return self._cache.remembered(user, self._store.language)

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
        self._cache[user] = lang

    def __delitem__(self, user: str) -> None:
        if self._cache.get(user) is None:
            raise KeyError(user)
        del self._cache[user]

    def pop(self, user: str, default: Any = None) -> Any:
        lang = self._cache.get(user)
        self._cache.pop(user, None)
        return default if lang is None else lang

    def __iter__(self) -> Iterator[str]:
        return iter([u for u, lang in self._cache.items() if lang is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<StoredLanguages {len(self._cache)} in memory>"
