"""Checkpoints: a table's whole state at the end of a game, so that a restart loads it
instead of replaying the table's whole history.

A checkpoint is the pickled :class:`~dokobot.host.table.Table` without its computer players,
its factory, its (shared) chip ledger and its older finished games (a durable service keeps
only the latest in memory; the store has every one); its settlements are kept apart, so that the ledger
of a server can be rebuilt without loading its tables. A checkpoint is used only by the code
that wrote it (:func:`version`): any other version replays the journal instead. Checkpoints
come from the store, which only the bot's user may read or write (mode 0600).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import pickle
from typing import Any

from .. import __version__
from ..engine.game import Game
from .options import TableOptions
from .series import GameRecord, Series
from .stakes import Ledger, LedgerEntry
from .table import SeatInfo, Table


@functools.cache
def version() -> str:
    """dokobot's version and the shape of every class a checkpoint holds."""
    shape: list[Any] = [__version__]
    for cls in (Table, SeatInfo, Series, GameRecord, TableOptions, LedgerEntry):
        shape.append((cls.__qualname__, [f.name for f in dataclasses.fields(cls)]))
    shape.append(("Game", sorted(getattr(Game, "__slots__", ()))))
    return hashlib.sha256(repr(shape).encode()).hexdigest()[:16]


def dump(table: Table) -> tuple[bytes, bytes, list[str]]:
    """(state, settlements, seated people's user ids) of ``table``."""
    saved = (table.bots, table.bot_factory, table.ledger, table.journal, table.archive)
    table.bots, table.bot_factory, table.journal, table.archive = {}, None, [], None
    table.ledger = Ledger(server=saved[2].server)
    try:
        state = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        table.bots, table.bot_factory, table.ledger, table.journal, table.archive = saved
    settlements = pickle.dumps(
        (table.ledger.server, table.settlements), protocol=pickle.HIGHEST_PROTOCOL
    )
    users = [s.user for s in table.seats if not s.is_bot]
    return state, settlements, users


def load(state: bytes) -> Table:
    table = pickle.loads(state)
    if not isinstance(table, Table):
        raise ValueError("not a table checkpoint")
    return table


def settlements(data: bytes) -> tuple[str, list[LedgerEntry]]:
    """(server, settlements) of a checkpoint."""
    server, entries = pickle.loads(data)
    if not isinstance(server, str) or not isinstance(entries, list):
        raise ValueError("not the settlements of a table")
    return server, entries
