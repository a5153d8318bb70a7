"""The statements the SQL stores share: the same text runs on SQLite and on PostgreSQL.

They are written with ``?`` for their parameters (SQLite's style); :func:`for_psycopg`
gives PostgreSQL's (``%s``). Column names are quoted where PostgreSQL needs it (``"user"``),
which SQLite reads alike. Where the two databases do not agree (the schema and its
migrations, the writes of the journal, folding a nick's case, a JSON field left out), each
store keeps its own statement.

>>> for_psycopg(LANGUAGE)
'SELECT language FROM user_settings WHERE "user" = %s'
"""

from __future__ import annotations

from functools import cache
from typing import Final

# ---------------------------------------------------------------- journals
LOAD_JOURNAL: Final = "SELECT line FROM journal WHERE channel = ? AND seq >= ? ORDER BY seq"
WHOLE_JOURNAL: Final = (
    "SELECT (SELECT length FROM tables WHERE channel = ?), seq, line FROM journal "
    "WHERE channel = ? ORDER BY seq"
)
"""The count the store keeps beside each record, read in one statement (see
:func:`~dokobot.store.base.whole_journal`)."""
LENGTH: Final = "SELECT length FROM tables WHERE channel = ?"
FOLD_DROP: Final = "DELETE FROM journal WHERE channel = ? AND seq >= ?"
FOLD_LINE: Final = "INSERT INTO journal (channel, seq, line) VALUES (?, ?, ?)"
FOLD_LENGTH: Final = "UPDATE tables SET length = ? WHERE channel = ?"

# ---------------------------------------------------------------- checkpoints
LOAD_CHECKPOINT: Final = (
    "SELECT upto, version, state, settlements, users FROM checkpoints WHERE channel = ?"
)
_CHECKPOINT: Final = (
    "INSERT INTO checkpoints (channel, upto, version, state, settlements, users) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (channel) DO UPDATE SET upto = excluded.upto, "
    "version = excluded.version, state = excluded.state, "
    "settlements = excluded.settlements, users = excluded.users"
)
SAVE_CHECKPOINT: Final = _CHECKPOINT + " WHERE checkpoints.upto <= excluded.upto"
"""A checkpoint older than the one kept changes nothing."""
FOLD_CHECKPOINT: Final = _CHECKPOINT
"""A fold's checkpoint replaces the one kept (the records after it are gone)."""

# ---------------------------------------------------------------- users
SET_LANGUAGE: Final = (
    'INSERT INTO user_settings ("user", language) VALUES (?, ?) '
    'ON CONFLICT ("user") DO UPDATE SET language = excluded.language'
)
LANGUAGES: Final = 'SELECT "user", language FROM user_settings'
LANGUAGE: Final = 'SELECT language FROM user_settings WHERE "user" = ?'
SET_PREFERENCE: Final = (
    'INSERT INTO user_prefs ("user", name, value) VALUES (?, ?, ?) '
    'ON CONFLICT ("user", name) DO UPDATE SET value = excluded.value'
)
PREFERENCE: Final = 'SELECT value FROM user_prefs WHERE "user" = ? AND name = ?'
NICK_HISTORY: Final = 'SELECT "user", nick FROM nick_history ORDER BY seen'

# ---------------------------------------------------------------- game results
ADD_RESULT: Final = (
    "INSERT INTO game_results (server, channel, game, finished_at, record) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, game) DO NOTHING RETURNING id"
)
"""The id of the new record; no row if that game's record is stored already."""
STORED_RESULT: Final = "SELECT id, record FROM game_results WHERE channel = ? AND game = ?"
RESULT: Final = "SELECT id, record FROM game_results WHERE id = ?"
RESULT_SERVERS: Final = "SELECT DISTINCT server FROM game_results ORDER BY server"


def results(record: str, *, limited: bool) -> str:
    """A server's records after an id, ``record`` being the record's expression (the
    whole record, or one without some fields: each database has its own JSON words)."""
    limit = " LIMIT ?" if limited else ""
    return (f"SELECT id, {record} FROM game_results WHERE server = ? AND id > ? "
            f"ORDER BY id{limit}")  # fmt: skip


def table_results(record: str) -> str:
    """A table's records by game number (``record`` as in :func:`results`)."""
    return f"SELECT id, {record} FROM game_results WHERE channel = ? ORDER BY game"


# ---------------------------------------------------------------- web pages
WEB_PAGE: Final = "SELECT key, enabled FROM web_pages WHERE server = ?"
NEW_WEB_PAGE: Final = (
    "INSERT INTO web_pages (server, key, enabled) VALUES (?, ?, true) ON CONFLICT DO NOTHING"
)
WEB_ON: Final = "UPDATE web_pages SET enabled = true WHERE server = ?"
WEB_OFF: Final = "UPDATE web_pages SET enabled = false, key = ? WHERE server = ?"
WEB_SERVER: Final = "SELECT server, enabled FROM web_pages WHERE key = ?"

# ---------------------------------------------------------------- game reviews
QUEUE_REVIEW: Final = (
    "INSERT INTO reviews (channel, game, job) VALUES (?, ?, ?) "
    "ON CONFLICT (channel, game) DO NOTHING RETURNING id"
)
FINISH_REVIEW: Final = (
    "INSERT INTO reviews (channel, game, review) VALUES (?, ?, ?) "
    "ON CONFLICT (channel, game) DO UPDATE SET job = NULL, review = excluded.review"
)
REVIEW: Final = "SELECT review FROM reviews WHERE channel = ? AND game = ?"
QUEUED_REVIEWS: Final = "SELECT channel, game, job FROM reviews WHERE job IS NOT NULL ORDER BY id"


@cache
def for_psycopg(statement: str) -> str:
    """``statement`` with PostgreSQL's parameters (``%s`` for ``?``; the shared statements
    hold no ``?`` or ``%`` of their own)."""
    return statement.replace("?", "%s")
