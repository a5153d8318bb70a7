"""Durable journals of every table: SQLite by default, in memory for tests.

A table's journal is its history as replay lines (see :mod:`dokobot.host.replay`); storing
each accepted line before the answer goes out is enough to rebuild every table after a
restart.
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


def open_store(path: str | None) -> Store:
    """SQLite at ``path``; ``None`` or ``":memory:"`` keeps everything in memory."""
    if path is None or path == ":memory:":
        return MemoryStore()
    return SqliteStore(path)


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
