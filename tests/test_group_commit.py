"""Group commit: the journal appends of several tables that are ready at the same time go to
the store in one call (one worker-thread hop, one transaction); each action is still
acknowledged only after its write committed, and a refused write refuses only its action."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import pytest

from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.groupcommit import GroupCommit
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import Append, Checkpoint, MemoryStore

CHANNELS = ("c1", "c2", "c3", "c4", "c5")


class CountingStore(MemoryStore):
    """Records each :meth:`append_many` call; ``gate`` (if set) holds every write until it
    is opened; appends of the channels in ``refuse`` fail."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []
        self.gate: threading.Event | None = None
        self.refuse: set[str] = set()
        self.entered = threading.Event()
        self.fail_all = False

    def append_many(self, appends: Sequence[Append]) -> list[int | Exception]:
        self.calls.append([channel for channel, *_ in appends])
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(5)
        if self.fail_all:
            raise OSError(5, "Input/output error")
        return super().append_many(appends)

    def append(self, channel: str, lines: list[str]) -> int:
        if channel in self.refuse:
            raise OSError(28, "No space left on device")
        return super().append(channel, lines)


def _join(channel: str, name: str) -> Input:
    return Input(channel, f"u:{channel}:{name}", name, "/join")


async def _known(svc: Service, name: str) -> None:
    """``name``'s /lang at every table is in memory (a person's first input reads it in a
    worker thread before it goes on, so the order in which inputs reach the store would
    be that of the reads)."""
    await svc.langs.fetch(f"u:{ch}:{name}" for ch in CHANNELS)


async def test_appends_of_tables_ready_together_share_one_store_write() -> None:
    store = CountingStore()
    svc = Service(Router(seed=1), store)
    await _known(svc, "anna")
    answers = await asyncio.gather(*(svc.handle(_join(ch, "anna")) for ch in CHANNELS))
    assert store.calls == [list(CHANNELS)], "one write for the five tables"
    assert all("anna joined" in a[0].text for a in answers)
    assert all(store.load_journal(ch) for ch in CHANNELS)
    # one table alone is written at once, not held back for company
    await svc.handle(_join("c1", "ben"))
    assert store.calls[-1] == ["c1"]
    await svc.close()


async def test_an_action_is_answered_only_after_its_write_committed() -> None:
    store = CountingStore()
    store.gate = threading.Event()
    svc = Service(Router(seed=1), store)
    tasks = [asyncio.create_task(svc.handle(_join(ch, "anna"))) for ch in CHANNELS[:3]]
    while not store.entered.is_set():
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    assert not any(t.done() for t in tasks), "no answer while the write is under way"
    assert not any(store.load_journal(ch) for ch in CHANNELS[:3])
    store.gate.set()
    answers = await asyncio.gather(*tasks)
    assert all("anna joined" in a[0].text for a in answers)
    await svc.close()


async def test_writes_gather_while_others_are_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """While :attr:`GroupCommit.IN_FLIGHT` writes are under way (and not slow), new appends
    wait and go to the store together in the next write."""
    monkeypatch.setattr(GroupCommit, "SLOW_S", 60.0)  # (a busy machine: none turns slow)
    store = CountingStore()
    store.gate = threading.Event()
    svc = Service(Router(seed=1), store)
    await _known(svc, "anna")
    first = []
    for n, ch in enumerate(CHANNELS[:2]):  # the second goes while the first is under way
        first.append(asyncio.create_task(svc.handle(_join(ch, "anna"))))
        while len(store.calls) <= n:
            await asyncio.sleep(0.01)
    assert GroupCommit.IN_FLIGHT == 2 and store.calls == [["c1"], ["c2"]]
    rest = [asyncio.create_task(svc.handle(_join(ch, "anna"))) for ch in CHANNELS[2:]]
    await asyncio.sleep(0.1)
    assert len(store.calls) == 2, "the others wait for a write to finish"
    store.gate.set()
    await asyncio.gather(*first, *rest)
    assert store.calls[2:] == [list(CHANNELS[2:])]
    await svc.close()


async def test_a_write_goes_out_beside_writes_that_are_stalled() -> None:
    """Two writes under way do not answer (stalled, e.g. paused database server processes
    that the store cuts only after its deadline): once both are slow, one more write goes
    out beside them, and no more than that."""
    store = CountingStore()
    store.gate = threading.Event()
    svc = Service(Router(seed=1), store)
    await _known(svc, "anna")
    first = []
    for n, ch in enumerate(CHANNELS[:2]):
        first.append(asyncio.create_task(svc.handle(_join(ch, "anna"))))
        while len(store.calls) <= n:
            await asyncio.sleep(0.01)
    third = asyncio.create_task(svc.handle(_join(CHANNELS[2], "anna")))
    waited = time.monotonic()
    while len(store.calls) < 3:  # (a generous bound: a busy machine)
        assert time.monotonic() < waited + 10, "it never went out beside them"
        await asyncio.sleep(0.02)
    assert store.calls == [["c1"], ["c2"], ["c3"]]
    rest = [asyncio.create_task(svc.handle(_join(ch, "anna"))) for ch in CHANNELS[3:]]
    await asyncio.sleep(GroupCommit.SLOW_S + 0.2)
    assert len(store.calls) == 3, "no more than one beside them"
    store.gate.set()
    await asyncio.gather(*first, third, *rest)
    assert store.calls[3:] == [list(CHANNELS[3:])]
    await svc.close()


def _state(svc: Service, channel: str) -> tuple[object, ...]:
    table = svc.router.tables.get(channel)
    return () if table is None else (table.names(), len(table.journal))


async def test_a_refused_append_refuses_only_its_own_action() -> None:
    store = CountingStore()
    svc = Service(Router(seed=1), store)
    for ch in CHANNELS:
        await svc.handle(_join(ch, "anna"))
    store.calls.clear()
    await _known(svc, "ben")
    store.refuse = {"c2"}
    before, stored = _state(svc, "c2"), {ch: len(store.load_journal(ch)) for ch in CHANNELS}
    answers = await asyncio.gather(*(svc.handle(_join(ch, "ben")) for ch in CHANNELS))
    assert store.calls[0] == list(CHANNELS), "they went to the store together"
    refused = answers[1]
    assert len(refused) == 1 and isinstance(refused[0], Private)
    assert refused[0].text == render("en", "store_failed")
    assert _state(svc, "c2") == before, "the refused join is not applied"
    assert len(store.load_journal("c2")) == stored["c2"]
    for ch, events in zip(CHANNELS, answers, strict=True):
        if ch != "c2":
            assert any(isinstance(e, Public) and "ben joined" in e.text for e in events)
            assert len(store.load_journal(ch)) == stored[ch] + 1
    await svc.close()


async def test_a_failed_write_refuses_every_action_in_it() -> None:
    store = CountingStore()
    svc = Service(Router(seed=1), store)
    for ch in CHANNELS:
        await svc.handle(_join(ch, "anna"))
    store.fail_all = True
    answers: list[list[Event]] = await asyncio.gather(
        *(svc.handle(_join(ch, "ben")) for ch in CHANNELS)
    )
    assert all([e.text for e in a] == [render("en", "store_failed")] for a in answers)
    assert all(svc.router.tables[ch].names() == ["anna"] for ch in CHANNELS)
    store.fail_all = False
    answers = await asyncio.gather(*(svc.handle(_join(ch, "ben")) for ch in CHANNELS))
    assert all("ben joined" in a[0].text for a in answers)
    await svc.close()


class SlowCheckpoints(MemoryStore):
    """Checkpoint writes wait until ``gate`` opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.saving = threading.Event()

    def save_checkpoint(self, channel: str, checkpoint: Checkpoint) -> None:
        self.saving.set()
        self.gate.wait(5)
        super().save_checkpoint(channel, checkpoint)


async def test_the_last_card_is_answered_without_waiting_for_the_checkpoint() -> None:
    store = SlowCheckpoints()
    svc = Service(Router(seed=2), store)
    for name in ("anna", "ben", "carl", "dora"):
        await svc.handle(Input("c", f"u:{name}", name, "/join"))
    await svc.handle(Input("c", "u:anna", "anna", "/start"))
    table = svc.router.tables["c"]
    while not table.finished:
        game = table.game
        assert game is not None
        seat = table.seats[game.turn]
        t0 = time.monotonic()
        await svc.handle(Input("c", seat.user, seat.name, command_for(game.legal_actions()[0])))
        assert time.monotonic() - t0 < 2, "no action waits for the checkpoint"
    while not store.saving.is_set():
        await asyncio.sleep(0.01)
    assert store.load_checkpoint("c") is None, "the checkpoint is still being written"
    closing = asyncio.create_task(svc.close())
    await asyncio.sleep(0.1)
    assert not closing.done(), "close waits for the checkpoint"
    store.gate.set()
    await closing
    cp = store.load_checkpoint("c")
    assert cp is not None and cp.upto == len(store.load_journal("c"))
