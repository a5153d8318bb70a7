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
from typing import Final

from .base import Store

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
    # Chat nick histories (IRC identities across nick changes and restarts).
    """
    CREATE TABLE nick_history (
        nick TEXT PRIMARY KEY COLLATE NOCASE,
        user TEXT NOT NULL,
        seen INTEGER NOT NULL
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

    def remember_nick(self, user: str, nick: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO nick_history (nick, user, seen) VALUES "
                "(?, ?, (SELECT COALESCE(MAX(seen), 0) + 1 FROM nick_history)) "
                "ON CONFLICT(nick) DO UPDATE SET nick = excluded.nick, user = excluded.user, "
                "seen = excluded.seen",
                (nick, user),
            )

    def nick_history(self, prefix: str) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT user, nick FROM nick_history ORDER BY seen").fetchall()
        return [(str(u), str(n)) for u, n in rows if str(n).startswith(prefix)]

    def close(self) -> None:
        with self._lock:
            self._db.close()
