"""The store interface."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass


class StoreError(Exception):
    """The store cannot be used: damaged, made by a newer dokobot, or held by another
    process. The message is meant for the operator and names the file."""


class StoreLocked(StoreError):
    """Another process has the store open."""


class StoreDamaged(StoreError):
    """The store file is not a healthy dokobot store (truncated, garbage, too new)."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A table's state after the first ``upto`` records of its journal."""

    upto: int
    version: str
    state: bytes
    """Empty when only the summary was loaded (:meth:`Store.summaries`)."""
    settlements: bytes
    users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Summary:
    """What a start needs to know of a table without loading it."""

    channel: str
    length: int
    """Records in the journal."""
    checkpoint: Checkpoint | None
    """The latest checkpoint, without its state."""


class Store(ABC):
    """Where table journals and user settings live. Methods are blocking and thread-safe;
    the async service calls them from worker threads."""

    @abstractmethod
    def append(self, channel: str, lines: list[str]) -> int:
        """Durably add ``lines`` to the journal of ``channel`` (all or nothing); the number
        of records the journal holds now."""

    @abstractmethod
    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        """The journal of ``channel`` from record ``start`` on."""

    @abstractmethod
    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        """Keep ``checkpoint`` as the latest of ``channel``."""

    @abstractmethod
    def load_checkpoint(self, channel: str) -> Checkpoint | None: ...

    @abstractmethod
    def summaries(self) -> list[Summary]:
        """Every table with a journal (checkpoints without their state)."""

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
        self._checkpoints: dict[str, Checkpoint] = {}
        self._langs: dict[str, str] = {}
        self._nicks: dict[str, str] = {}  # nick (lowercased) -> user, least recent first
        self._spelling: dict[str, str] = {}

    def append(self, channel: str, lines: list[str]) -> int:
        with self._lock:
            journal = self._journals.setdefault(channel, [])
            journal.extend(lines)
            return len(journal)

    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        with self._lock:
            return list(self._journals.get(channel, [])[start:])

    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        with self._lock:
            self._checkpoints[channel] = checkpoint

    def load_checkpoint(self, channel: str) -> Checkpoint | None:
        with self._lock:
            return self._checkpoints.get(channel)

    def summaries(self) -> list[Summary]:
        with self._lock:
            out = []
            for channel, journal in sorted(self._journals.items()):
                cp = self._checkpoints.get(channel)
                if cp is not None:
                    cp = Checkpoint(cp.upto, cp.version, b"", cp.settlements, cp.users)
                out.append(Summary(channel, len(journal), cp))
            return out

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
