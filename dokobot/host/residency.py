"""Which tables live in memory, and that they are what the store holds.

A table is loaded from the store (its checkpoint, then the records after it) at the start
or when somebody uses it again; a table without a running game that nobody used for a
while leaves memory. An action counts only once it is stored (:meth:`Residency.commit`): if
the write fails the table is rebuilt from the store (as a restart would) and the sender is
told that nothing was changed; when the store cannot say whether it was stored, the table
waits for the store and is rebuilt once it answers. A table whose journal cannot be
restored is on hold (:attr:`Residency.damaged`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

from ..store import Store, StoreError, StoreUnknown
from . import checkpoint
from .delivery import Delivery
from .events import Event, Public
from .i18n import render
from .journal import Record
from .liveboard import LiveBoard
from .locks import TableLocks
from .notes import ALL, Note
from .replay import RestoreError, restore
from .router import Router
from .stakes import ZERO, Ledger
from .table import Table
from .userlangs import StoredLanguages
from .writes import Writes, keep_latest, result

log = logging.getLogger(__name__)

RETRY_FIRST_S: Final = 0.5
"""A computer player whose move the store refused tries again after this long, then after
twice as long each time, up to :data:`RETRY_MAX_S`."""
RETRY_MAX_S: Final = 5.0


class Residency:
    """The tables in memory and those in the store only; their holds and rebuilds.

    ``after_change(channel)``: the table of ``channel`` may move by itself again (its
    computer players, its turn clock); ``unload(channel)``: it leaves memory (its background
    work stops)."""

    def __init__(
        self,
        router: Router,
        store: Store,
        locks: TableLocks,
        board: LiveBoard,
        delivery: Delivery,
        writes: Writes,
        *,
        after_change: Callable[[str], None],
        unload: Callable[[str], None],
        langs: StoredLanguages,
        idle_s: float = 900.0,
    ) -> None:
        self.router = router
        self.store = store
        self.locks = locks
        self.board = board
        self.delivery = delivery
        self.writes = writes
        self.after_change = after_change
        self.unload = unload
        self.langs = langs
        self.closed = False
        self.idle_s = idle_s
        """A table without a running game that nobody used for this long leaves memory; it
        is loaded again (from its checkpoint) when somebody uses it."""
        self.held: set[str] = set()
        """Channels whose table could not be rebuilt from the store after a failed write;
        every input there is refused until a rebuild succeeds."""
        self.damaged: dict[str, str] = {}
        """Channels whose journal holds a record that cannot be applied, with the reason:
        the table is on hold (every input refused, nothing written) until an operator
        repairs the store; nothing of the journal is dropped."""
        self.lazy: set[str] = set()
        """Known channels whose table is not in memory (idle)."""
        self._used: dict[str, float] = {}
        self._last_sweep = 0.0
        self._recovering: dict[str, asyncio.Task[None]] = {}
        """Per table: the task that waits for the store after a refused write."""
        self._retry_wait: dict[str, float] = {}
        """Per table whose writes are refused: how long its next recovery waits."""
        self._unknown: set[str] = set()
        """Held tables whose last write's outcome is not known yet: when the store is back,
        their rebuild tells the channel where the game stands."""

    def holds(self, channel: str) -> bool:
        """Whether this process holds the table of ``channel`` (in memory or in its store,
        not yet loaded)."""
        return channel in self.router.tables or channel in self.lazy

    def touch(self, channel: str) -> None:
        """Somebody used the table of ``channel`` now."""
        self._used[channel] = time.monotonic()

    def untouch(self, channel: str) -> None:
        """Forget when the table of ``channel`` was used (it is not in memory)."""
        self._used.pop(channel, None)

    def recovering(self) -> list[asyncio.Task[None]]:
        """The tasks that wait for the store (to stop them)."""
        return list(self._recovering.values())

    # ---------------------------------------------------------------- loading
    async def start(self) -> list[Event]:
        """Rebuild the tables from the store; events saying the games continue.

        A table whose journal ends with its checkpoint (nothing happened since its last game
        ended) stays in the store until somebody uses it; its chips are booked on the
        ledger now. Every other table is loaded: its checkpoint, then the records after it.
        """
        events: list[Event] = []
        current = checkpoint.version()
        for summary in await asyncio.to_thread(self.store.summaries):
            channel, cp = summary.channel, summary.checkpoint
            self.writes.known.add(channel)
            if cp is not None and cp.version == current and cp.upto == summary.length:
                try:
                    server, entries = checkpoint.settlements(cp.settlements)
                except Exception:
                    log.warning("checkpoint of %s unreadable; replaying its journal", channel)
                else:
                    ledger = self.router.ledgers.setdefault(server, Ledger(server=server))
                    for e in entries:
                        ledger.book(e.channel, e.accounts, e.names, e.settlement)
                    for user in cp.users:
                        self.router.user_table[user] = channel
                    self.lazy.add(channel)
                    continue
            events += self.board.with_board(channel, await self.load(channel, private_ledger=False))
            await asyncio.to_thread(self._recover_result, channel)
        return events

    async def _read(self, channel: str) -> tuple[Table | None, int, list[str]]:
        """The stored table of ``channel``: its checkpoint's table (None if there is none of
        this version, or it cannot be read), where the records after it start, and those
        records; raises :class:`StoreError` if the store cannot be read."""
        cp = await asyncio.to_thread(self.store.load_checkpoint, channel)
        base: Table | None = None
        if cp is not None and cp.version == checkpoint.version():
            try:
                base = checkpoint.load(cp.state)
            except Exception:
                log.warning("checkpoint of %s unreadable; replaying its journal", channel)
        start = cp.upto if base is not None and cp is not None else 0
        journal = await asyncio.to_thread(self.store.load_journal, channel, start)
        return base, start, journal

    async def load(self, channel: str, *, private_ledger: bool) -> list[Event]:
        """Put the table of ``channel`` in memory: its checkpoint, if one of this version
        exists, then the records after it. ``private_ledger``: its settlements are on the
        server's ledger already (a table that left memory)."""
        lazy = channel in self.lazy
        self.lazy.discard(channel)
        self.writes.loading(channel)
        try:
            base, start, journal = await self._read(channel)
        except StoreError:
            if lazy:  # nothing changed: loaded at the next try
                self.lazy.add(channel)
            raise
        self.writes.stored[channel] = start + len(journal)
        await self.langs.fetch(_people(base, journal))  # (what it says is in theirs)
        ledgers = self.router.ledgers
        if private_ledger:
            self.router.ledgers = {}
        try:
            if base is not None:
                base.bot_factory = self.router.bot_factory
                server = base.ledger.server
                base.ledger = self.router.ledgers.setdefault(server, Ledger(server=server))
                for e in base.settlements:
                    base.ledger.book(e.channel, e.accounts, e.names, e.settlement)
                self.router.tables[channel] = base
            return self._restore(channel, journal)
        finally:
            if private_ledger:
                self.router.ledgers = ledgers
                table = self.router.tables.get(channel)
                if table is not None:
                    server = table.ledger.server
                    table.ledger = ledgers.setdefault(server, Ledger(server=server))

    def _restore(self, channel: str, journal: list[str]) -> list[Event]:
        if not journal and channel not in self.router.tables:
            return []
        table = self.router.table(channel)
        table.journal.clear()
        table.scripted_bots = True
        try:
            restore(self.router, channel, [Record.decode(x) for x in journal])
        except (RestoreError, ValueError) as exc:
            self.damaged[channel] = str(exc)
            log.error("table %s is on hold: its journal cannot be restored: %s", channel, exc)
        finally:
            table.scripted_bots = False
        for seat in table.seats:
            if not seat.is_bot:
                self.router.user_table[seat.user] = channel
        table.journal.clear()  # the store has it
        table.archive = self.writes.archived
        self.touch(channel)
        self.writes.restored(channel, table)
        keep_latest(table)
        if channel in self.damaged:
            text = render(table.options.language, "table_damaged")
            return [Public(channel, text, lang=table.options.language)]
        if not table.running:
            return []
        notes = [Note(ALL, "restored"), *table.prompt()]
        return self.router.render_notes(table, notes, None)

    def _recover_result(self, channel: str) -> None:
        """Store the result of a table's last game if a stop came between its journal
        lines and its result (a stored result is kept as it is). A table on hold writes
        nothing: what it restored is not all of its journal."""
        table = self.router.tables.get(channel)
        if table is None or not table.finished or table.running or table.game is None:
            return
        if channel in self.damaged:
            return
        if table.finished[-1].number == table.game_number:
            self.store.add_result(result(table, table.finished[-1]))

    # ---------------------------------------------------------------- durable changes
    async def commit(self, channel: str) -> list[Event] | str:
        """Store what changed in ``channel``: the events that follow from it (links to
        finished games' pages), or, if the write failed and the change was undone, the
        refusal to tell its sender (``store_unknown`` when the store cannot say whether it
        was stored: the table is rebuilt from the store once it answers)."""
        try:
            links = await self.writes.persist(channel)
        except StoreUnknown:
            log.exception("store write in %s: not known whether it was stored; the table "
                          "waits for the store", channel)  # fmt: skip
            self.wait_for_store(channel)
            return "store_unknown"
        except StoreError as exc:  # the store's own refusal (fenced, locked): one line
            log.warning("store write failed in %s; the change is undone: %s", channel, exc)
            await self.rebuild(channel)
            self._recover_soon(channel)
            return "store_failed"
        except Exception:
            log.exception("store write failed in %s; the change is undone", channel)
            await self.rebuild(channel)
            self._recover_soon(channel)
            return "store_failed"
        self._retry_wait.pop(channel, None)
        return links

    def wait_for_store(self, channel: str) -> None:
        """Whether the last write at ``channel`` was stored is not known: the table waits
        for the store, and is rebuilt from it once it answers."""
        self._hold(channel)
        self._unknown.add(channel)
        self._recover_soon(channel)

    def _hold(self, channel: str) -> None:
        """Take the table of ``channel`` out of memory until it is rebuilt from the store;
        every input there is refused until then."""
        old = self.router.tables.pop(channel, None)
        if old is not None:
            _forget_settlements(old)
        for user in [u for u, ch in self.router.user_table.items() if ch == channel]:
            del self.router.user_table[user]
        self.held.add(channel)

    def _recover_soon(self, channel: str) -> None:
        """After a refused write: rebuild the table (if it is held) once the store answers,
        then let its computer players move again, without waiting for anybody to type."""
        task = self._recovering.get(channel)
        if self.closed or (task is not None and not task.done()):
            return
        self._recovering[channel] = asyncio.get_running_loop().create_task(self._recover(channel))

    async def _recover(self, channel: str) -> None:
        while not self.closed:
            wait = self._retry_wait.get(channel, RETRY_FIRST_S)
            self._retry_wait[channel] = min(2 * wait, RETRY_MAX_S)
            await asyncio.sleep(wait)
            events: list[Event] = []
            async with self.locks.channel(channel):
                if channel in self.held:
                    rebuilt = await self.rebuild(channel)
                    if rebuilt is None:
                        continue  # the store is still down
                    events = rebuilt
            await self.delivery.emit(events)
            self.after_change(channel)
            return

    async def rebuild(self, channel: str) -> list[Event] | None:
        """Replace the table of ``channel`` by what the store holds: the events that say
        where its game stands if its last write's outcome was not known (None: the store
        could not be read, or a write of the table may still commit; the channel stays on
        hold). A write whose caller stopped waiting (the watchdog freed it) is still under
        way: the table is read back only once it is over, so that no record lands behind
        the rebuilt table's back (the store itself holds back a table whose lost write's
        session may still commit)."""
        self._hold(channel)
        if self.writes.writing(channel):
            log.warning("table %s waits for its write under way before it is rebuilt", channel)
            return None
        try:
            events = await self.load(channel, private_ledger=False)
        except Exception:
            log.exception("store cannot be read; table %s is on hold", channel)
            self.router.tables.pop(channel, None)
            return None
        self.held.discard(channel)
        if channel in self._unknown:  # what the store holds is the truth: say it
            self._unknown.discard(channel)
            return self.board.with_board(channel, events)
        return []

    # ---------------------------------------------------------------- leaving memory
    def drop_if_empty(self, channel: str) -> bool:
        """Forget a table that was made by a command in a channel nobody has joined."""
        table = self.router.tables.get(channel)
        if table is None or channel in self.writes.known:
            return False
        if table.seats or table.waiting or table.finished:
            return False
        del self.router.tables[channel]
        return True

    def sweep(self) -> None:
        """Tables without a running game that nobody used for :attr:`idle_s` leave memory."""
        now = time.monotonic()
        if now - self._last_sweep < min(60.0, self.idle_s):
            return
        self._last_sweep = now
        for channel, table in list(self.router.tables.items()):
            used = self._used.get(channel, now)
            if (
                now - used < self.idle_s
                or table.running
                or table.journal
                or channel not in self.writes.known
                or channel in self.damaged
                or channel in self.held
                or self.locks.users(channel)
                or self.writes.saving(channel)
            ):
                continue
            self.unload(channel)
            del self.router.tables[channel]
            self.locks.forget(channel)
            self._used.pop(channel, None)
            self.writes.forget(channel)
            self.lazy.add(channel)


def _people(base: Table | None, journal: list[str]) -> set[str]:
    """The people (no computer players) at a table loaded from ``base`` and the records
    ``journal`` after it."""
    people = {s.user for s in base.seats if not s.is_bot} if base is not None else set()
    for line in journal:
        try:
            user = Record.decode(line).user
        except Exception:  # (its restore says what is wrong)
            continue
        if user and not user.startswith("bot:"):
            people.add(user)
    return people


def _forget_settlements(table: Table) -> None:
    """Take ``table``'s settlements off its (shared) ledger before the table is rebuilt
    from its journal, which books them again: the ledger is recomputed from the others."""
    ledger = table.ledger
    keep = [e for e in ledger.entries if e.channel != table.channel]
    if len(keep) == len(ledger.entries):
        return
    ledger.entries.clear()
    ledger.balances.clear()
    ledger.names.clear()
    ledger.house = ZERO
    for entry in keep:
        ledger.book(entry.channel, entry.accounts, entry.names, entry.settlement)
