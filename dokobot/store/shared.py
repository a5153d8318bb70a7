"""What the SQL stores do alike: :class:`SqlStore`, the reads and writes of SQLite and
PostgreSQL that are the same statements (:mod:`dokobot.store.statements`) and the same
behaviour; each store gives its connections (how it reads, how it writes a transaction)
and keeps what only it does (its schema, the appends, its leases)."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from . import statements as sql
from .base import Checkpoint, Store, StoreDamaged, check_fold, new_web_key, whole_journal

if TYPE_CHECKING:
    from ..stats.record import FinishedGame


class Rows(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Db(Protocol):
    """A connection that runs a statement of :mod:`~dokobot.store.statements` (``?`` for
    its parameters)."""

    def execute(self, statement: str, params: Sequence[Any] = (), /) -> Rows: ...


class SqlStore(Store):
    """The behaviour both SQL stores share; a store gives :meth:`_reading`,
    :meth:`_writing` and its JSON words (:meth:`_without`)."""

    where: str
    """The store, for messages (a path, or a url without its password)."""
    readonly: bool
    ROW_LOCK = ""
    """What a read of a table's row adds to hold it until the transaction ends (nothing
    where a write transaction holds the whole database)."""

    @abstractmethod
    def _reading(self, channel: str | None = None) -> AbstractContextManager[Db]:
        """A connection to read (``channel``: the table whose records are read)."""

    @abstractmethod
    def _writing(self, channel: str | None) -> AbstractContextManager[Db]:
        """One transaction, committed when the block ends and undone when it raises;
        ``channel``: the table it writes (None: a user's or a server's settings)."""

    @abstractmethod
    def _without(self, *fields: str) -> str:
        """The expression of a stored game record without its top-level ``fields``."""

    def _may_write(self) -> bool:
        """Whether this store writes (a reader beside the bot does not)."""
        return not self.readonly

    def _before_result(self, db: Db, game: FinishedGame) -> None:
        """Inside the transaction that adds ``game``'s record, before it does."""

    # ---------------------------------------------------------------- journals
    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        with self._reading(channel) as db:
            rows = db.execute(sql.LOAD_JOURNAL, (channel, start)).fetchall()
        return [str(r[0]) for r in rows]

    def load_whole_journal(self, channel: str) -> list[str]:
        with self._reading(channel) as db:
            rows = db.execute(sql.WHOLE_JOURNAL, (channel, channel)).fetchall()
        return whole_journal(self.where, channel, rows)

    def fold(self, channel: str, start: int, line: str, checkpoint: Checkpoint) -> int:
        check_fold(start, checkpoint)
        with self._writing(channel) as db:
            row = db.execute(sql.LENGTH + self.ROW_LOCK, (channel,)).fetchone()
            if row is None or not 0 <= start < int(row[0]):
                raise ValueError(f"nothing to fold from record {start} of {channel}")
            db.execute(sql.FOLD_DROP, (channel, start))
            db.execute(sql.FOLD_LINE, (channel, start, line))
            db.execute(sql.FOLD_LENGTH, (start + 1, channel))
            db.execute(sql.FOLD_CHECKPOINT, _checkpoint_row(channel, checkpoint))
        return start + 1

    # ---------------------------------------------------------------- checkpoints
    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        with self._writing(channel) as db:
            db.execute(sql.SAVE_CHECKPOINT, _checkpoint_row(channel, checkpoint))

    def load_checkpoint(self, channel: str) -> Checkpoint | None:
        with self._reading(channel) as db:
            row = db.execute(sql.LOAD_CHECKPOINT, (channel,)).fetchone()
        return None if row is None else Checkpoint.from_row(*row)

    # ---------------------------------------------------------------- users
    def set_language(self, user: str, lang: str) -> None:
        with self._writing(None) as db:
            db.execute(sql.SET_LANGUAGE, (user, lang))

    def languages(self) -> dict[str, str]:
        with self._reading() as db:
            rows = db.execute(sql.LANGUAGES).fetchall()
        return {str(u): str(lang) for u, lang in rows}

    def language(self, user: str) -> str | None:
        with self._reading() as db:
            row = db.execute(sql.LANGUAGE, (user,)).fetchone()
        return None if row is None else str(row[0])

    def set_preference(self, user: str, name: str, value: str) -> None:
        with self._writing(None) as db:
            db.execute(sql.SET_PREFERENCE, (user, name, value))

    def preference(self, user: str, name: str) -> str | None:
        with self._reading() as db:
            row = db.execute(sql.PREFERENCE, (user, name)).fetchone()
        return None if row is None else str(row[0])

    def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        with self._reading() as db:
            rows = db.execute(sql.NICK_HISTORY).fetchall()
        return [(str(u), str(n)) for u, n in rows if str(n).startswith(prefix)]

    # ---------------------------------------------------------------- game results
    def add_result(self, game: FinishedGame) -> FinishedGame:
        with self._writing(game.channel) as db:
            return self._add_result(db, game)

    def _add_result(self, db: Db, game: FinishedGame) -> FinishedGame:
        self._before_result(db, game)
        added = db.execute(
            sql.ADD_RESULT,
            (game.server, game.channel, game.game, game.finished_at, game.to_json()),
        ).fetchall()  # (all: SQLite commits only once a statement is done)
        if added:
            return game.with_id(int(added[0][0]))
        old = db.execute(sql.STORED_RESULT, (game.channel, game.game)).fetchone()
        return self._record(old)

    def results(
        self, server: str, *, after: int = 0, limit: int | None = None, tricks: bool = True
    ) -> list[FinishedGame]:
        record = "record" if tricks else self._without("tricks", "row")
        query = sql.results(record, limited=limit is not None)
        params = (server, after) if limit is None else (server, after, limit)
        with self._reading() as db:
            rows = db.execute(query, params).fetchall()
        return [self._record(r) for r in rows]

    def table_results(self, channel: str) -> list[FinishedGame]:
        with self._reading() as db:
            rows = db.execute(sql.table_results(self._without("tricks")), (channel,)).fetchall()
        return [self._record(r) for r in rows]

    def result(self, id: int) -> FinishedGame | None:
        with self._reading() as db:
            row = db.execute(sql.RESULT, (id,)).fetchone()
        return None if row is None else self._record(row)

    def result_servers(self) -> list[str]:
        with self._reading() as db:
            rows = db.execute(sql.RESULT_SERVERS).fetchall()
        return [str(r[0]) for r in rows]

    def _record(self, row: Sequence[Any]) -> FinishedGame:
        """The finished game of a ``game_results`` row; :class:`StoreDamaged` if its
        record is not one."""
        from ..stats.record import FinishedGame

        try:
            return FinishedGame.from_json(str(row[1]), id=int(str(row[0])))
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            raise StoreDamaged(
                f"store {self.where}: the record of finished game {row[0]} is damaged "
                f"({exc!r:.100})"
            ) from exc

    # ---------------------------------------------------------------- web pages
    def web_page(self, server: str) -> tuple[str, bool]:
        with self._reading() as db:
            row = db.execute(sql.WEB_PAGE, (server,)).fetchone()
        if row is None and self._may_write():
            with self._writing(None) as db:
                db.execute(sql.NEW_WEB_PAGE, (server, new_web_key()))
            with self._reading() as db:
                row = db.execute(sql.WEB_PAGE, (server,)).fetchone()
        # (beside the running bot: its keys only, none yet is off)
        return ("", False) if row is None else (str(row[0]), bool(row[1]))

    def set_web_enabled(self, server: str, enabled: bool) -> None:
        self.web_page(server)
        with self._writing(None) as db:
            if enabled:
                db.execute(sql.WEB_ON, (server,))
            else:
                db.execute(sql.WEB_OFF, (new_web_key(), server))

    def web_server(self, key: str) -> tuple[str, bool] | None:
        with self._reading() as db:
            row = db.execute(sql.WEB_SERVER, (key,)).fetchone()
        return None if row is None else (str(row[0]), bool(row[1]))

    # ---------------------------------------------------------------- game reviews
    def queue_review(self, channel: str, game: int, job: str) -> bool:
        with self._writing(channel) as db:
            added = db.execute(sql.QUEUE_REVIEW, (channel, game, job)).fetchall()
        return bool(added)

    def finish_review(self, channel: str, game: int, review: str) -> None:
        with self._writing(channel) as db:
            db.execute(sql.FINISH_REVIEW, (channel, game, review))

    def review(self, channel: str, game: int) -> str | None:
        with self._reading() as db:
            row = db.execute(sql.REVIEW, (channel, game)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def queued_reviews(self) -> list[tuple[str, int, str]]:
        with self._reading() as db:
            rows = db.execute(sql.QUEUED_REVIEWS).fetchall()
        return [(str(c), int(g), str(j)) for c, g, j in rows]


def _checkpoint_row(channel: str, cp: Checkpoint) -> tuple[Any, ...]:
    return (channel, cp.upto, cp.version, cp.state, cp.settlements, json.dumps(cp.users))
