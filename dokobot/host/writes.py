"""Storing what the tables did: the journal's new records (appended in batches), the
between-games records folded into one, the finished games' results and the checkpoints
after them; and what the stored journal holds for a reader's snapshot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Final

from ..stats.record import FinishedGame
from ..store import Checkpoint, Store
from . import archive, checkpoint, fold
from .events import Event
from .groupcommit import GroupCommit
from .journal import Record
from .reviewlink import ReviewLink
from .router import Router
from .series import GameRecord
from .stakes import LedgerEntry
from .table import Table

log = logging.getLogger(__name__)

KEEP_GAMES: Final = 12
"""Finished games a table keeps in memory once they are stored (the score list shows as
many); /score N, /score csv, /score chart and /export read older ones from the store."""


class Writes:
    """What each table has in the store, and the writes that bring it there."""

    def __init__(self, router: Router, store: Store, reviews: ReviewLink) -> None:
        self.router = router
        self.store = store
        self.reviews = reviews
        self._appends = GroupCommit(store)
        self.known: set[str] = set()
        """Channels whose table has a journal in the store."""
        self.stored: dict[str, int] = {}
        """Per table in memory: how many records its stored journal holds (what a reader's
        snapshot reads of it)."""
        self._checkpointed: dict[str, int] = {}
        """Per table: the number of the last finished game in its latest checkpoint (one
        per game end)."""
        self._between: dict[str, tuple[int, int]] = {}
        """Per table: (first, count) of the between-games records that end its stored
        journal, folded into one when there are more than :data:`fold.FOLD_AFTER`."""
        self._saving: dict[str, asyncio.Task[None]] = {}
        """Checkpoints being written (in the background), per table."""
        self._results_done: dict[str, int] = {}
        """Per channel: the number of the table's last finished game that is in the store."""
        self._reading: dict[str, int] = {}
        """Per table: slow commands reading a snapshot now (its journal is not folded
        meanwhile, so the stored records they read stay as they were)."""
        self._bounds: dict[int, int] = {}
        """Per snapshot (by id): the stored records it stands on."""

    # ---------------------------------------------------------------- what is stored
    def loading(self, channel: str) -> None:
        """The table of ``channel`` is being loaded: its between-games records are read
        anew."""
        self._between.pop(channel, None)

    def restored(self, channel: str, table: Table) -> None:
        """``table`` was rebuilt from the store: its finished games are stored, and in its
        checkpoint."""
        self._checkpointed[channel] = _last_game(table)
        self._results_done[channel] = _last_game(table)

    def forget(self, channel: str) -> None:
        """The table of ``channel`` left memory."""
        self._checkpointed.pop(channel, None)
        self._between.pop(channel, None)
        self.stored.pop(channel, None)

    def writing(self, channel: str) -> bool:
        """Whether an append of ``channel`` is being written now (it may still commit)."""
        return self._appends.writing(channel)

    def saving(self, channel: str) -> bool:
        """Whether a checkpoint of ``channel`` is being written."""
        return channel in self._saving

    def history(self, table: Table) -> list[Record]:
        """Every record of ``table`` (a snapshot: those stored when it was taken)."""
        lines = self.store.load_journal(table.channel)
        bound = self._bounds.get(id(table))
        if bound is not None:  # a snapshot: the records stored when it was taken
            lines = lines[:bound]
        return [Record.decode(x) for x in lines] + table.journal

    def archived(self, channel: str) -> tuple[list[GameRecord], list[LedgerEntry]]:
        """The stored finished games of ``channel`` and their settlements (a table's
        :attr:`Table.archive`)."""
        return archive.history(self.store.table_results(channel))

    def begin_read(self, channel: str, snapshot: Table, bound: int) -> None:
        """A slow command reads ``snapshot`` of ``channel``, which stands on the first
        ``bound`` stored records (not folded meanwhile)."""
        self._bounds[id(snapshot)] = bound
        self._reading[channel] = self._reading.get(channel, 0) + 1

    def end_read(self, channel: str, snapshot: Table) -> None:
        """The slow command reading ``snapshot`` is done."""
        del self._bounds[id(snapshot)]
        self._reading[channel] -= 1
        if not self._reading[channel]:
            del self._reading[channel]

    # ---------------------------------------------------------------- writes
    async def persist(self, channel: str) -> list[Event]:
        """Store the new journal lines, then the games finished by them; the links to
        those games' web pages, if any, as channel messages."""
        table = self.router.tables.get(channel)
        if table is None:
            return []
        new = table.journal[:]
        if new:
            at = self.stored.get(channel, 0)
            length = await self._appends.append(channel, [r.encode() for r in new], at)
            self.stored[channel] = length
            self.known.add(channel)
            # The store holds them now; keeping them in memory too would grow every table
            # by ~100 KB over a long series.
            del table.journal[: len(new)]
            length = self.stored[channel] = await self._fold(channel, table, new, length)
            # The results of finished games first, the checkpoint after them: a table that
            # rests at a checkpoint has every result stored.
            links = await self._store_results(channel, table)
            if links is None:
                return []  # no checkpoint either: the next start stores the results
            ended = _last_game(table)
            if not table.running and ended and ended != self._checkpointed.get(channel):
                self._checkpoint(channel, table, length)
            return links
        return await self._store_results(channel, table) or []

    async def _fold(self, channel: str, table: Table, new: list[Record], length: int) -> int:
        """Note the records ``new`` (stored; the journal has ``length`` now); fold the
        between-games records at the journal's end into one ``state`` record and a
        checkpoint after it when there are too many. The journal's length after that."""
        if not fold.foldable(new, table):
            self._between.pop(channel, None)
            return length
        first, count = self._between.get(channel, (length - len(new), 0))
        count += len(new)
        self._between[channel] = (first, count)
        if count <= fold.FOLD_AFTER or self._reading.get(channel):
            return length  # (a reader's snapshot stands on these records: folded later)
        self.stored.pop(channel, None)  # no snapshot while the journal is rewritten
        try:
            record = fold.state_record(table)
            state, settlements, users = checkpoint.dump(table)
            cp = Checkpoint(first + 1, checkpoint.version(), state, settlements, tuple(users))
            length = await asyncio.to_thread(self.store.fold, channel, first, record.encode(), cp)
        except Exception:
            # Nothing lost: the records stay as they are (folded at the next try); the
            # journal's length is known again after the next append.
            log.warning("between-games records of %s not folded", channel, exc_info=True)
            return length
        self.stored[channel] = length
        self._between[channel] = (first, 1)
        return length

    async def _store_results(self, channel: str, table: Table) -> list[Event] | None:
        """Store the games ``table`` finished since the last call (for the statistics);
        the links to their web pages as channel messages. A failure (None) loses nothing:
        the journal has the games, and a start stores a missing result again."""
        done = self._results_done.get(channel, 0)
        if _last_game(table) <= done:
            return []
        games = [result(table, rec) for rec in table.finished if rec.number > done]
        try:
            stored = [await asyncio.to_thread(self.store.add_result, g) for g in games]
        except Exception:
            log.warning("results of %s not stored (recovered at the next start)", channel,
                        exc_info=True)  # fmt: skip
            return None
        self._results_done[channel] = _last_game(table)
        keep_latest(table, carry=True)  # the store has the older ones
        self.reviews.submit(channel, table, done)
        return self.router.game_links(table, stored)

    def _checkpoint(self, channel: str, table: Table, length: int) -> None:
        """Keep the state of ``table`` after its journal's first ``length`` records (between
        games); a failure costs only restart time. The state is taken now; it is written in
        the background, so the action that ended the game is answered without waiting for
        it (the checkpoint only spares a restart work)."""
        try:
            state, settlements, users = checkpoint.dump(table)
        except Exception:
            log.warning("checkpoint of %s not saved", channel, exc_info=True)
            return
        cp = Checkpoint(length, checkpoint.version(), state, settlements, tuple(users))
        ended = self._checkpointed[channel] = _last_game(table)
        before = self._saving.get(channel)
        task = asyncio.get_running_loop().create_task(
            self._save_checkpoint(channel, cp, ended, before)
        )
        self._saving[channel] = task
        task.add_done_callback(
            lambda t: self._saving.pop(channel) if self._saving.get(channel) is t else None
        )

    async def _save_checkpoint(
        self, channel: str, cp: Checkpoint, ended: int, before: asyncio.Task[None] | None
    ) -> None:
        if before is not None:  # the table's checkpoints are written in order
            await asyncio.gather(before, return_exceptions=True)
        try:
            await asyncio.to_thread(self.store.save_checkpoint, channel, cp)
        except Exception:
            log.warning("checkpoint of %s not saved", channel, exc_info=True)
            if self._checkpointed.get(channel) == ended:  # the next write tries again
                del self._checkpointed[channel]

    async def close(self) -> None:
        """Wait for the appends and the checkpoints under way."""
        await self._appends.drain()
        while self._saving:  # the checkpoints under way
            await asyncio.gather(*self._saving.values(), return_exceptions=True)


def _last_game(table: Table) -> int:
    """The number of the table's last finished game (0: none)."""
    return table.finished[-1].number if table.finished else 0


def keep_latest(table: Table, *, carry: bool = False) -> None:
    """Forget the table's older finished games; ``carry``: every game is stored, so its
    settlements become one carry entry."""
    if len(table.finished) > KEEP_GAMES:
        del table.finished[:-KEEP_GAMES]
    if carry and len(table.settlements) > 1:
        folded = archive.carry(table.settlements, table.channel)
        table.settlements[:] = [] if folded is None else [folded]
        # the server's ledger too: the same sums, one entry for this table
        ledger = table.ledger
        ledger.entries[:] = [e for e in ledger.entries if e.channel != table.channel]
        ledger.entries += table.settlements


def result(table: Table, rec: GameRecord) -> FinishedGame:
    """The stored record of game ``rec``, with its score list line and its settlements."""
    game = archive.finished_game(table, rec)
    row = {
        **(game.row or {}),
        "chips": [archive.entry_json(e) for e in archive.chips_of(table, rec)],
    }
    return dataclasses.replace(game, row=row)
