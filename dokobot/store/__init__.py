"""Durable journals of every table: SQLite by default, PostgreSQL for several processes
(:mod:`dokobot.store.postgres`), in memory for tests.

A table's journal is its history as records (see :mod:`dokobot.host.journal`), one JSON
object each; storing each accepted change before the answer goes out is enough to rebuild
every table after a restart. Checkpoints (see :mod:`dokobot.host.checkpoint`) spare a
restart most of the replaying.
"""

from __future__ import annotations

from .base import (
    Append,
    Checkpoint,
    MemoryStore,
    Store,
    StoreConflict,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreLocked,
    StoreUnavailable,
    StoreUnknown,
    Summary,
)
from .scope import Scope
from .sqlite import SqliteStore


def is_url(location: str | None) -> bool:
    """Whether ``location`` is a PostgreSQL url (``postgresql://…``)."""
    return bool(location) and str(location).startswith(("postgresql://", "postgres://"))


def open_store(
    path: str | None,
    *,
    readonly: bool = False,
    scope: Scope | None = None,
    lease_s: float = 10.0,
) -> Store:
    """PostgreSQL if ``path`` is a ``postgresql://`` url (serving the servers of ``scope``,
    see :class:`~dokobot.store.postgres.PostgresStore`), else SQLite at ``path``; ``None``
    or ``":memory:"`` keeps everything in memory."""
    if path is None or path == ":memory:":
        return MemoryStore()
    if is_url(path):
        from .postgres import PostgresStore

        return PostgresStore(path, scope=scope, lease_s=lease_s, readonly=readonly)
    return SqliteStore(path, readonly=readonly)


__all__ = [
    "Append",
    "Checkpoint",
    "MemoryStore",
    "Scope",
    "SqliteStore",
    "Store",
    "StoreConflict",
    "StoreDamaged",
    "StoreError",
    "StoreFull",
    "StoreLocked",
    "StoreUnavailable",
    "StoreUnknown",
    "Summary",
    "is_url",
    "open_store",
]
