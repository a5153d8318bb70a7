"""SQLite store (WAL): one row per journal line, a versioned schema with migrations.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> s = SqliteStore(os.path.join(d, "t.db"))
>>> s.append("c", ["a: /join", "b: /join"])
>>> s.load_journal("c"), s.channels(), s.schema_version()
(['a: /join', 'b: /join'], ['c'], 3)
>>> s.close()
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .base import Store, new_web_key

if TYPE_CHECKING:
    from ..stats.record import FinishedGame

#: Migrations: entry i brings the schema from version i to i + 1.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE journal (
        channel TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (channel, seq)
    );
    """,
    """
    CREATE TABLE user_settings (
        user TEXT PRIMARY KEY,
        language TEXT NOT NULL
    );
    """,
    # Finished games for the statistics and the web pages (dokobot.stats); the web key of
    # each server.
    """
    CREATE TABLE game_results (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        channel TEXT NOT NULL,
        game INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (channel, game)
    );
    CREATE INDEX game_results_server ON game_results (server, id);
    CREATE TABLE web_pages (
        server TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        enabled INTEGER NOT NULL
    );
    """,
)


class SqliteStore(Store):
    """Journals in an SQLite file, written with ``synchronous=FULL`` in WAL mode."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._migrate()
        self._next: dict[str, int] = {}

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        with self._lock:
            version = self.schema_version()
            for i in range(version, len(MIGRATIONS)):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in MIGRATIONS[i].split(";"):
                        if stmt.strip():
                            self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version = {i + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    def append(self, channel: str, lines: list[str]) -> None:
        if not lines:
            return
        with self._lock:
            seq = self._next.get(channel)
            if seq is None:
                row = self._db.execute(
                    "SELECT COALESCE(MAX(seq), -1) + 1 FROM journal WHERE channel = ?", (channel,)
                ).fetchone()
                seq = int(row[0])
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT INTO journal (channel, seq, line) VALUES (?, ?, ?)",
                    [(channel, seq + i, line) for i, line in enumerate(lines)],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._next.pop(channel, None)
                raise
            self._next[channel] = seq + len(lines)

    def load_journal(self, channel: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT line FROM journal WHERE channel = ? ORDER BY seq", (channel,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def channels(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT channel FROM journal ORDER BY channel")
            return [str(r[0]) for r in rows.fetchall()]

    def set_language(self, user: str, lang: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO user_settings (user, language) VALUES (?, ?) "
                "ON CONFLICT(user) DO UPDATE SET language = excluded.language",
                (user, lang),
            )

    def languages(self) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute("SELECT user, language FROM user_settings").fetchall()
        return {str(u): str(lang) for u, lang in rows}

    # ---------------------------------------------------------------- game results
    def add_result(self, game: FinishedGame) -> FinishedGame:
        return self.add_results([game])[0]

    def add_results(self, games: list[FinishedGame]) -> list[FinishedGame]:
        """Several records in one transaction (:meth:`add_result` for each)."""
        out: list[FinishedGame] = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for game in games:
                    cur = self._db.execute(
                        "INSERT OR IGNORE INTO game_results "
                        "(server, channel, game, finished_at, record) VALUES (?, ?, ?, ?, ?)",
                        (game.server, game.channel, game.game, game.finished_at, game.to_json()),
                    )
                    if cur.rowcount:
                        out.append(game.with_id(int(cur.lastrowid or 0)))
                        continue
                    row = self._db.execute(
                        "SELECT id, record FROM game_results WHERE channel = ? AND game = ?",
                        (game.channel, game.game),
                    ).fetchone()
                    out.append(_record(row))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return out

    def results(
        self, server: str, *, after: int = 0, limit: int | None = None, tricks: bool = True
    ) -> list[FinishedGame]:
        record = "record" if tricks else "json_remove(record, '$.tricks')"
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, {record} FROM game_results WHERE server = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (server, after, -1 if limit is None else limit),
            ).fetchall()
        return [_record(r) for r in rows]

    def result(self, id: int) -> FinishedGame | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, record FROM game_results WHERE id = ?", (id,)
            ).fetchone()
        return None if row is None else _record(row)

    def result_servers(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT server FROM game_results ORDER BY server")
            return [str(r[0]) for r in rows.fetchall()]

    def web_page(self, server: str) -> tuple[str, bool]:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO web_pages (server, key, enabled) VALUES (?, ?, 1)",
                (server, new_web_key()),
            )
            row = self._db.execute(
                "SELECT key, enabled FROM web_pages WHERE server = ?", (server,)
            ).fetchone()
        return str(row[0]), bool(row[1])

    def set_web_enabled(self, server: str, enabled: bool) -> None:
        self.web_page(server)
        with self._lock:
            self._db.execute(
                "UPDATE web_pages SET enabled = ? WHERE server = ?", (int(enabled), server)
            )

    def web_server(self, key: str) -> tuple[str, bool] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT server, enabled FROM web_pages WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else (str(row[0]), bool(row[1]))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _record(row: tuple[object, ...]) -> FinishedGame:
    from ..stats.record import FinishedGame

    return FinishedGame.from_json(str(row[1]), id=int(str(row[0])))
