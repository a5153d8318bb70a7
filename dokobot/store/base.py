"""The store interface."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


class StoreError(Exception):
    """The store cannot be used: damaged, made by a newer dokobot, or held by another
    process. The message is meant for the operator and names the file."""


class StoreLocked(StoreError):
    """Another process has the store open."""


class StoreDamaged(StoreError):
    """The store file is not a healthy dokobot store (truncated, garbage, too new)."""


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

    def close(self) -> None:  # noqa: B027 - optional
        """Release resources."""


class MemoryStore(Store):
    """Keeps everything in memory (tests, the console)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._journals: dict[str, list[str]] = {}
        self._langs: dict[str, str] = {}

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
