"""The async service: computer players in the background, timeouts, store, concurrency."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

from dokobot.host.events import Board, Event, Input, Private, Public
from dokobot.host.journal import Record
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore, Store


def _lines(store: Store, channel: str) -> list[str]:
    return [Record.decode(x).line() for x in store.load_journal(channel)]


def _inp(ch: str, name: str, text: str) -> Input:
    return Input(ch, f"u:{name}", name, text)


async def test_one_person_plays_a_whole_game_against_computer_players() -> None:
    svc = Service.in_memory(seed=3)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    await svc.handle(_inp("c", "anna", "/join"))
    for _ in range(3):
        await svc.handle(_inp("c", "anna", "/join bot random"))
    await svc.handle(_inp("c", "anna", "/start"))
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    for _ in range(400):
        await svc.idle()
        if not table.running:
            break
        assert game.turn == 0, "computer players have moved until anna must act"
        choices = [
            c
            for e in await svc.handle(_inp("c", "anna", "/hand"))
            if isinstance(e, Private)
            for c in e.choices
        ]
        pushed.extend(await svc.handle(_inp("c", "anna", choices[0].command)))
    assert not table.running
    assert any(isinstance(e, Public) and "Game 1 is over" in e.text for e in pushed)
    assert not any(isinstance(e, Private) and e.user.startswith("bot:") for e in pushed)
    await svc.close()


async def test_turn_timeout_reminds_then_stands_in() -> None:
    svc = Service.in_memory(seed=5)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    for n in ("anna", "ben", "carl", "dora"):
        await svc.handle(_inp("c", n, "/join"))
    table = svc.router.tables["c"]
    table.options = dataclasses.replace(table.options, turn_timeout=0.05)  # type: ignore[arg-type]
    await svc.handle(_inp("c", "anna", "/start"))
    game = table.game
    assert game is not None
    first = game.turn
    await asyncio.sleep(0.3)
    assert any(
        isinstance(e, Private)
        and e.user == table.seats[first].user
        and "your turn" in e.text.lower()
        for e in pushed
    )
    assert any(isinstance(e, Public) and "did not act in time" in e.text for e in pushed)
    assert game.reserved[first] != -1, "the stand-in made the move"
    assert first in table.away
    await svc.idle()
    # The person comes back: from now on they play themselves again.
    name = table.seats[first].name
    events = await svc.handle(_inp("c", name, "/hand"))
    assert any(isinstance(e, Public) and f"{name} is back" in e.text for e in events)
    assert first not in table.away
    assert f"!away {name}" in _lines(svc.store, "c")
    await svc.close()


async def test_the_turn_clock_runs_from_the_turns_start_as_the_boards_countdown_says() -> None:
    """The board's countdown counts from the turn's start; a report that the prompt was
    delivered later does not re-arm the clock (a stand-in never waits for a delivery), except
    on a channel whose adapter paces its sends (the clock starts when the prompt left)."""
    svc = Service.in_memory(seed=5)
    svc.boards = True
    boards: list[Board] = []

    async def listener(events: list[Event]) -> None:
        boards.extend(e for e in events if isinstance(e, Board))

    svc.listener = listener
    svc.pace("irc:")
    for channel, people in (("c", "abcd"), ("irc:#doko", "efgh")):
        for n in people:
            await svc.handle(_inp(channel, n, "/join"))
        table = svc.router.tables[channel]
        table.options = dataclasses.replace(table.options, turn_timeout=30)
        shown = [
            e for e in await svc.handle(_inp(channel, people[0], "/start")) if isinstance(e, Board)
        ]
        game = table.game
        assert game is not None
        began = svc.board.turns[channel][1]
        assert shown[-1].view.deadline == int(began + 60)
        timer = svc.turns._timers.get(channel)
        await asyncio.sleep(0.05)
        svc.prompt_sent(channel, table.seats[game.turn].user)
        if channel == "c":
            assert svc.turns._timers[channel] is timer and svc.board.turns[channel][1] == began
        else:
            assert svc.turns._timers[channel] is not timer and svc.board.turns[channel][1] > began
    await svc.close()


class SlowStore(MemoryStore):
    """Writes for channel 'slow' take a long time."""

    def __init__(self) -> None:
        super().__init__()
        self.slow_started = threading.Event()
        self.release = threading.Event()

    def append(self, channel: str, lines: list[str]) -> int:
        if channel == "slow":
            self.slow_started.set()
            self.release.wait(30)  # until the test has seen the other channel answered
        return super().append(channel, lines)


async def test_slow_store_write_does_not_stall_other_channels() -> None:
    store = SlowStore()
    svc = Service(Router(seed=1), store)
    slow = asyncio.create_task(svc.handle(_inp("slow", "anna", "/join")))
    while not store.slow_started.is_set():
        await asyncio.sleep(0.01)
    events = await svc.handle(_inp("fast", "ben", "/join"))  # answered while "slow" writes
    assert "ben joined" in events[0].text
    assert not slow.done() and not store.release.is_set()
    store.release.set()
    await slow
    assert store.load_journal("slow") and store.load_journal("fast")
    await svc.close()


async def test_answer_comes_only_after_the_action_is_stored() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=1), store)
    await svc.handle(_inp("c", "anna", "/join"))
    assert "anna: /join" in _lines(store, "c")
    before = len(store.load_journal("c"))
    await svc.handle(_inp("c", "anna", "/nonsense"))
    assert len(store.load_journal("c")) == before, "refused input is not journaled"
    await svc.close()


async def test_language_choice_survives_restart() -> None:
    store = MemoryStore()
    svc = Service(Router(seed=1), store)
    await svc.handle(_inp("c", "anna", "/lang de"))
    svc2 = Service(Router(seed=1), store)
    await svc2.start()
    ev = await svc2.handle(_inp("c", "anna", "/hilfe"))
    assert "Befehle" in ev[0].text


def test_bot_factory_exists() -> None:
    factory = default_bot_factory()
    assert factory is not None
    bot = factory("random", 1, False)
    assert hasattr(bot, "decide") and hasattr(bot, "announce")
