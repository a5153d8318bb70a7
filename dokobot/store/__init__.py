"""Durable journals of every table: SQLite by default, in memory for tests.

A table's journal is its history as records (see :mod:`dokobot.host.journal`), one JSON
object each; storing each accepted change before the answer goes out is enough to rebuild
every table after a restart. Checkpoints (see :mod:`dokobot.host.checkpoint`) spare a
restart most of the replaying.
"""

from __future__ import annotations

from .base import (
    Checkpoint,
    MemoryStore,
    Store,
    StoreDamaged,
    StoreError,
    StoreLocked,
    Summary,
)
from .sqlite import SqliteStore


def open_store(path: str | None, *, readonly: bool = False) -> Store:
    """SQLite at ``path``; ``None`` or ``":memory:"`` keeps everything in memory."""
    if path is None or path == ":memory:":
        return MemoryStore()
    return SqliteStore(path, readonly=readonly)


__all__ = [
    "Checkpoint",
    "MemoryStore",
    "SqliteStore",
    "Store",
    "StoreDamaged",
    "StoreError",
    "StoreLocked",
    "Summary",
    "open_store",
]
