"""The store interface."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


class Store(ABC):
    """Where table journals and user settings live. Methods are blocking and thread-safe;
    the async service calls them from worker threads."""

    @abstractmethod
    def append(self, channel: str, lines: list[str]) -> None:
        """Durably add ``lines`` to the journal of ``channel`` (all or nothing)."""

    @abstractmethod
    def load_journal(self, channel: str) -> list[str]: ...

    @abstractmethod
    def channels(self) -> list[str]:
        """Channels that have a journal."""

    @abstractmethod
    def set_language(self, user: str, lang: str) -> None: ...

    @abstractmethod
    def languages(self) -> dict[str, str]: ...

    @abstractmethod
    def remember_nick(self, user: str, nick: str) -> None:
        """Note that ``user`` goes by ``nick`` now (a chat nick history, e.g. IRC's);
        ``nick`` is platform-qualified (``irc:{network}:{nick}``). A nick belongs to the
        user that used it last."""

    @abstractmethod
    def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        """``(user, nick)`` of every nick starting with ``prefix``, least recent first."""

    def close(self) -> None:  # noqa: B027 - optional
        """Release resources."""


class MemoryStore(Store):
    """Keeps everything in memory (tests, the console)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._journals: dict[str, list[str]] = {}
        self._langs: dict[str, str] = {}
        self._nicks: dict[str, str] = {}  # nick (lowercased) -> user, least recent first
        self._spelling: dict[str, str] = {}

    def append(self, channel: str, lines: list[str]) -> None:
        with self._lock:
            self._journals.setdefault(channel, []).extend(lines)

    def load_journal(self, channel: str) -> list[str]:
        with self._lock:
            return list(self._journals.get(channel, []))

    def channels(self) -> list[str]:
        with self._lock:
            return sorted(self._journals)

    def set_language(self, user: str, lang: str) -> None:
        with self._lock:
            self._langs[user] = lang

    def languages(self) -> dict[str, str]:
        with self._lock:
            return dict(self._langs)

    def remember_nick(self, user: str, nick: str) -> None:
        with self._lock:
            key = nick.lower()
            self._nicks.pop(key, None)
            self._nicks[key] = user
            self._spelling[key] = nick

    def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        with self._lock:
            return [
                (user, self._spelling[key])
                for key, user in self._nicks.items()
                if self._spelling[key].startswith(prefix)
            ]
