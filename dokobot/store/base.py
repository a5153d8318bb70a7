"""The store interface."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ..stats.record import FinishedGame


class StoreError(Exception):
    """The store cannot be used: damaged, made by a newer dokobot, or held by another
    process. The message is meant for the operator and names the file."""


class StoreLocked(StoreError):
    """Another process has the store open."""


class StoreDamaged(StoreError):
    """The store file is not a healthy dokobot store (truncated, garbage, too new)."""


class StoreFull(StoreError):
    """The store's disk refused the write (full, or an I/O error): nothing was written, and
    the store is whole; a write can succeed again once there is room."""


class StoreConflict(StoreError):
    """An append named a position (its idempotency key) that is not where the table's
    journal ends: nothing was written (another writer, or the retry of an append that was
    stored)."""


class StoreUnknown(StoreError):
    """The answer to a write was lost (the connection dropped at the commit) and the store
    could not be read back: whether the write was stored is not known yet."""


class StoreUnavailable(StoreError):
    """The store cannot be read right now (it does not answer in time, or cannot be
    reached); nothing was changed, and the same read may succeed in a moment."""


Append = tuple[str, list[str], "int | None"]
"""One append of :meth:`Store.append_many`: ``(channel, lines, at)``, ``at`` as in
:meth:`Store.append`."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A table's state after the first ``upto`` records of its journal."""

    upto: int
    version: str
    state: bytes
    """Empty when only the summary was loaded (:meth:`Store.summaries`)."""
    settlements: bytes
    users: tuple[str, ...]

    @classmethod
    def from_row(cls, upto: Any, version: Any, state: Any, settlements: Any, users: Any
                 ) -> Checkpoint:  # fmt: skip
        """A checkpoint from a database row (``users`` as JSON text; ``state`` None or
        empty when only the summary was read)."""
        return cls(int(upto), str(version), bytes(state or b""), bytes(settlements),
                   tuple(json.loads(users)))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Summary:
    """What a start needs to know of a table without loading it."""

    channel: str
    length: int
    """Records in the journal."""
    checkpoint: Checkpoint | None
    """The latest checkpoint, without its state."""


def check_fold(start: int, checkpoint: Checkpoint) -> None:
    if checkpoint.upto != start + 1:
        raise ValueError("a fold's checkpoint is taken right after the folded record")


def whole_journal(store: str, channel: str, rows: Sequence[Sequence[Any]]) -> list[str]:
    """The lines of ``rows`` (``(length, seq, line)``: the length the store counts for
    the table, beside each record, read in one statement); :class:`StoreDamaged` unless
    they are as many as it counts, numbered from 0 without a gap.

    >>> whole_journal("s", "c", [(2, 0, "a"), (2, 1, "b")])
    ['a', 'b']
    >>> whole_journal("s", "c", [(48, 47, "z")])
    Traceback (most recent call last):
    ...
    dokobot.store.base.StoreDamaged: store s: the journal of table c is not whole (1 record read, numbered 47 to 47, of the 48 it counts); restore it from a backup
    """
    length = int(rows[0][0] or 0) if rows else 0
    seqs = [int(r[1]) for r in rows]
    if seqs != list(range(length)):
        low, high = (seqs[0], seqs[-1]) if seqs else ("-", "-")
        raise StoreDamaged(
            f"store {store}: the journal of table {channel} is not whole ({len(seqs)} record"
            f"{'' if len(seqs) == 1 else 's'} read, numbered {low} to {high}, of the {length} "
            "it counts); restore it from a backup"
        )
    return [str(r[2]) for r in rows]


_CREATED: Final = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)")


def schema_tables(migrations: Sequence[str], version: int) -> set[str]:
    """The tables a store of schema ``version`` has: those its first ``version``
    ``migrations`` made (a store that lacks one is damaged).

    >>> sorted(schema_tables(["CREATE TABLE a (x INT); CREATE TABLE b (y INT)", "DROP"], 1))
    ['a', 'b']
    """
    return {name for step in migrations[:version] for name in _CREATED.findall(step)}


def fold_nick(nick: str) -> str:
    """A nick's key in a store's nick history: the letters A to Z lowered, every other
    character as it is (so no store merges two nicks that a chat tells apart; every chat
    that ignores case ignores it at least for A to Z).

    >>> fold_nick("Anna[Ä]"), fold_nick("STRASSE") == fold_nick("Straße")
    ('anna[Ä]', False)
    """
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in nick)


def new_web_key() -> str:
    """An unguessable id for a server's public web pages (128 random bits)."""
    return secrets.token_urlsafe(16)


class Store(ABC):
    """Where table journals and user settings live. Methods are blocking and thread-safe;
    the async service calls them from worker threads."""

    @abstractmethod
    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        """Durably add ``lines`` to the journal of ``channel`` (all or nothing); the number
        of records the journal holds now.

        ``at`` is the append's idempotency key with ``channel``: the lines become records
        ``at``, ``at + 1``, … and the append is refused (:class:`StoreConflict`, nothing
        written) unless the journal holds exactly ``at`` records. A backend that can lose
        the answer of a commit reads the records at ``(channel, at)`` back and answers
        what is true: the length if they are stored, an error if they are not, and
        :class:`StoreUnknown` only while it cannot tell."""

    def append_many(self, appends: Sequence[Append]) -> list[int | Exception]:
        """Several tables' :meth:`append` at once, e.g. ``[(channel, lines, at), …]``: per
        append, the number of records its journal holds now, or the error that refused
        it (nothing of it was written, unless it is :class:`StoreUnknown`). A backend
        commits them in one transaction (one flush to disk for all); this default appends
        them one at a time."""
        out: list[int | Exception] = []
        for channel, lines, at in appends:
            try:
                self.check_position(channel, at)
                out.append(self.append(channel, lines))
            except Exception as exc:
                out.append(exc)
        return out

    def append_each(
        self, appends: Sequence[Append], answer: Callable[[int, int | Exception], None]
    ) -> None:
        """:meth:`append_many`, each append answered by ``answer(index, length or error)``
        as soon as its outcome is known: a backend that writes an append apart from the
        others of its transaction (one whose table's row is held) answers the others
        first, and that one later, from another thread. This default answers all at
        once, after :meth:`append_many`."""
        for i, result in enumerate(self.append_many(appends)):
            answer(i, result)

    def check_position(self, channel: str, at: int | None) -> None:
        """Raise :class:`StoreConflict` unless the journal of ``channel`` holds ``at``
        records (None: any number)."""
        if at is None:
            return
        held = self._length(channel)
        if held != at:
            raise StoreConflict(f"table {channel} holds {held} records, not {at}: not written")

    def _length(self, channel: str) -> int:
        return len(self.load_journal(channel))

    def load_whole_journal(self, channel: str) -> list[str]:
        """The whole journal of ``channel``, checked: :class:`StoreDamaged` if the store
        lost records of it (fewer than it counts, or a gap), so that a reader (an export)
        refuses instead of reading it short. A store that keeps no count checks nothing."""
        return self.load_journal(channel)

    def watch_loop(self, loop: asyncio.AbstractEventLoop) -> None:  # noqa: B027 - optional
        """The event loop of the process that uses this store: a backend with leases renews
        them only while this loop answers (a wedged process loses them)."""

    @abstractmethod
    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        """The journal of ``channel`` from record ``start`` on."""

    @abstractmethod
    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        """Keep ``checkpoint`` as the latest of ``channel``, unless the one kept is newer
        (a later ``upto``)."""

    @abstractmethod
    def load_checkpoint(self, channel: str) -> Checkpoint | None: ...

    @abstractmethod
    def fold(self, channel: str, start: int, line: str, checkpoint: Checkpoint) -> int:
        """In one transaction: replace the journal records of ``channel`` from ``start`` on
        by ``line`` and keep ``checkpoint`` (whose ``upto`` is ``start + 1``) as the latest;
        the number of records the journal holds now. The records replaced are folded into
        ``line`` (:mod:`dokobot.host.fold`): nothing a restore or an export needs is lost."""

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

    def language(self, user: str) -> str | None:
        """The language ``user`` chose, if any."""
        return self.languages().get(user)

    @abstractmethod
    def set_preference(self, user: str, name: str, value: str) -> None:
        """Keep ``user``'s choice ``value`` of the setting ``name`` (e.g. an adapter's
        ``discord_prompts``), replacing an earlier one."""

    @abstractmethod
    def preference(self, user: str, name: str) -> str | None:
        """``user``'s choice of the setting ``name``, if any."""

    @abstractmethod
    def remember_nick(self, user: str, nick: str) -> None:
        """Note that ``user`` goes by ``nick`` now (a chat nick history, e.g. IRC's);
        ``nick`` is platform-qualified (``irc:{network}:{nick}``). A nick belongs to the
        user that used it last."""

    @abstractmethod
    def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        """``(user, nick)`` of every nick starting with ``prefix``, least recent first."""

    # ---------------------------------------------------------------- game results
    @abstractmethod
    def add_result(self, game: FinishedGame) -> FinishedGame:
        """Durably keep a finished game's record; return it with its id. A record of the
        same channel and game number that is already stored is kept and returned instead."""

    @abstractmethod
    def results(
        self, server: str, *, after: int = 0, limit: int | None = None, tricks: bool = True
    ) -> list[FinishedGame]:
        """The records of ``server`` with an id above ``after``, oldest first; without
        their tricks and score list lines unless ``tricks`` (the statistics need neither)."""

    @abstractmethod
    def result(self, id: int) -> FinishedGame | None: ...

    @abstractmethod
    def table_results(self, channel: str) -> list[FinishedGame]:
        """The records of the games finished at ``channel``, by game number, without their
        tricks (what a table's score list needs)."""

    @abstractmethod
    def result_servers(self) -> list[str]:
        """Servers that have finished games."""

    @abstractmethod
    def web_page(self, server: str) -> tuple[str, bool]:
        """(unguessable key, enabled) of ``server``'s web pages; the key is made on first
        use and kept."""

    @abstractmethod
    def set_web_enabled(self, server: str, enabled: bool) -> None:
        """Turn ``server``'s web pages on or off; off draws a new key, so a link that was
        handed out (or leaked) never works again."""

    @abstractmethod
    def web_server(self, key: str) -> tuple[str, bool] | None:
        """(server, enabled) of a web key, if it exists."""

    # ---------------------------------------------------------------- game reviews
    @abstractmethod
    def queue_review(self, channel: str, game: int, job: str) -> bool:
        """Durably keep ``job`` (an opaque record of the host's: what a review of game
        ``game`` of ``channel`` needs, hands included) until :meth:`finish_review`; False,
        and nothing written, if that game has a review or a job already."""

    @abstractmethod
    def finish_review(self, channel: str, game: int, review: str) -> None:
        """Keep ``review`` (an opaque record) as the review of that game and forget its
        job (it holds the hands)."""

    @abstractmethod
    def review(self, channel: str, game: int) -> str | None:
        """The review of game ``game`` of ``channel``, if it is done."""

    @abstractmethod
    def queued_reviews(self) -> list[tuple[str, int, str]]:
        """``(channel, game, job)`` of every review not done yet, oldest first (a start
        queues them again)."""

    def close(self) -> None:  # noqa: B027 - optional
        """Release resources."""


class MemoryStore(Store):
    """Keeps everything in memory (tests, the console)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._journals: dict[str, list[str]] = {}
        self._checkpoints: dict[str, Checkpoint] = {}
        self._langs: dict[str, str] = {}
        self._prefs: dict[tuple[str, str], str] = {}
        self._nicks: dict[str, str] = {}  # fold_nick(nick) -> user, least recent first
        self._spelling: dict[str, str] = {}
        self._results: list[FinishedGame] = []
        self._result_keys: dict[tuple[str, int], FinishedGame] = {}
        self._web: dict[str, tuple[str, bool]] = {}
        self._reviews: dict[tuple[str, int], tuple[str | None, str | None]] = {}
        """(channel, game) -> (job, review), in the order the jobs came."""

    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        with self._lock:
            journal = self._journals.setdefault(channel, [])
            if at is not None and at != len(journal):
                raise StoreConflict(f"table {channel} holds {len(journal)} records, not {at}")
            journal.extend(lines)
            return len(journal)

    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        with self._lock:
            return list(self._journals.get(channel, [])[start:])

    def _length(self, channel: str) -> int:
        with self._lock:
            return len(self._journals.get(channel, ()))

    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        with self._lock:
            kept = self._checkpoints.get(channel)
            if kept is None or kept.upto <= checkpoint.upto:
                self._checkpoints[channel] = checkpoint

    def load_checkpoint(self, channel: str) -> Checkpoint | None:
        with self._lock:
            return self._checkpoints.get(channel)

    def fold(self, channel: str, start: int, line: str, checkpoint: Checkpoint) -> int:
        check_fold(start, checkpoint)
        with self._lock:
            journal = self._journals.setdefault(channel, [])
            if not 0 <= start < len(journal):
                raise ValueError(f"nothing to fold from record {start} of {channel}")
            del journal[start:]
            journal.append(line)
            self._checkpoints[channel] = checkpoint
            return len(journal)

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

    def language(self, user: str) -> str | None:
        with self._lock:
            return self._langs.get(user)

    def set_preference(self, user: str, name: str, value: str) -> None:
        with self._lock:
            self._prefs[(user, name)] = value

    def preference(self, user: str, name: str) -> str | None:
        with self._lock:
            return self._prefs.get((user, name))

    def remember_nick(self, user: str, nick: str) -> None:
        with self._lock:
            key = fold_nick(nick)
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

    def add_result(self, game: FinishedGame) -> FinishedGame:
        with self._lock:
            old = self._result_keys.get((game.channel, game.game))
            if old is not None:
                return old
            stored = game.with_id(len(self._results) + 1)
            self._results.append(stored)
            self._result_keys[(game.channel, game.game)] = stored
            return stored

    def results(
        self, server: str, *, after: int = 0, limit: int | None = None, tricks: bool = True
    ) -> list[FinishedGame]:
        with self._lock:
            out = [g for g in self._results[after:] if g.server == server]
        return out if limit is None else out[:limit]

    def result(self, id: int) -> FinishedGame | None:
        with self._lock:
            return self._results[id - 1] if 1 <= id <= len(self._results) else None

    def table_results(self, channel: str) -> list[FinishedGame]:
        with self._lock:
            games = [g for (ch, _), g in self._result_keys.items() if ch == channel]
        return [replace(g, tricks=()) for g in sorted(games, key=lambda g: g.game)]

    def result_servers(self) -> list[str]:
        with self._lock:
            return sorted({g.server for g in self._results})

    def web_page(self, server: str) -> tuple[str, bool]:
        with self._lock:
            page = self._web.get(server)
            if page is None:
                page = self._web[server] = (new_web_key(), True)
            return page

    def set_web_enabled(self, server: str, enabled: bool) -> None:
        key, _ = self.web_page(server)
        with self._lock:
            self._web[server] = (key if enabled else new_web_key(), enabled)

    def web_server(self, key: str) -> tuple[str, bool] | None:
        with self._lock:
            for server, (k, enabled) in self._web.items():
                if secrets.compare_digest(k, key):
                    return server, enabled
        return None

    def queue_review(self, channel: str, game: int, job: str) -> bool:
        with self._lock:
            if (channel, game) in self._reviews:
                return False
            self._reviews[(channel, game)] = (job, None)
            return True

    def finish_review(self, channel: str, game: int, review: str) -> None:
        with self._lock:
            self._reviews[(channel, game)] = (None, review)

    def review(self, channel: str, game: int) -> str | None:
        with self._lock:
            return self._reviews.get((channel, game), (None, None))[1]

    def queued_reviews(self) -> list[tuple[str, int, str]]:
        with self._lock:
            return [(c, g, job) for (c, g), (job, _) in self._reviews.items() if job is not None]
