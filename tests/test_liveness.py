"""A table never stands still: the turn clock and the stand-in never wait for a delivery, a
table's lock held too long is named and freed by the watchdog, and so is a channel's turn
in the Discord adapter (issue 36)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import json
import logging
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.board import BoardView, LobbyView
from dokobot.host.contract import BareHost
from dokobot.host.events import Board, Choice, Event, Input, Lobby, Private, Public
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore
from dokobot.store.base import Append

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, running
from discord_fake.harness import ScriptedService, make_client, panel_in_a_game


def _inp(ch: str, name: str, text: str) -> Input:
    return Input(ch, f"u:{name}", name, text)


async def _four_people(svc: Service, timeout: float) -> int:
    """Four people at table "c", a game started, the turn clock at ``timeout`` seconds: the
    seat whose turn it is."""
    for n in ("anna", "ben", "carl", "dora"):
        await svc.handle(_inp("c", n, "/join"))
    table = svc.router.tables["c"]
    table.options = dataclasses.replace(table.options, turn_timeout=timeout)  # type: ignore[arg-type]
    await svc.handle(_inp("c", "anna", "/start"))
    assert table.game is not None
    return table.game.turn


async def test_the_stand_in_comes_on_time_while_a_delivery_never_returns() -> None:
    svc = Service.in_memory(seed=5)
    never = asyncio.Event()
    handed: list[list[Event]] = []

    async def stuck_listener(events: list[Event]) -> None:
        handed.append(events)
        await never.wait()  # a platform that never answers

    svc.listener = stuck_listener
    first = await _four_people(svc, 0.2)
    table = svc.router.tables["c"]
    await asyncio.sleep(1.0)  # reminder after 0.2 s, stand-in 0.2 s later
    assert first in table.away, "the stand-in waited for the reminder's delivery"
    assert table.game is not None and table.game.reserved[first] != -1
    assert any("did not act in time" in str(e) for batch in handed for e in batch)
    never.set()
    await svc.close()


async def test_computer_players_go_on_while_a_delivery_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("dokobot.host.delivery.EMIT_WAIT_S", 0.05)
    svc = Service.in_memory(seed=3)
    never = asyncio.Event()

    async def stuck_listener(events: list[Event]) -> None:
        await never.wait()

    await svc.handle(_inp("c", "anna", "/join"))
    for _ in range(3):
        await svc.handle(_inp("c", "anna", "/join bot random"))
    svc.listener = stuck_listener
    await svc.handle(_inp("c", "anna", "/start"))
    table = svc.router.tables["c"]
    assert table.game is not None
    game = table.game
    for _ in range(2):  # anna's reservation, then her first card
        await asyncio.wait_for(svc.idle(), 5)
        assert game.turn == 0
        before = len(game.log)
        hand = await svc.handle(_inp("c", "anna", "/hand"))
        choices = [c for e in hand if isinstance(e, Private) for c in e.choices]
        await svc.handle(_inp("c", "anna", choices[0].command))
        await asyncio.wait_for(svc.idle(), 5)
        # the computer players moved up to anna's next turn, nobody waiting for Discord
        assert game.turn == 0 and len(game.log) >= before + 4
    never.set()
    await svc.close()


async def test_the_watchdog_names_and_frees_a_table_lock_held_too_long(
    caplog: pytest.LogCaptureFixture,
) -> None:
    svc = Service.in_memory(seed=1)
    await svc.handle(_inp("c", "anna", "/join"))
    holding = asyncio.Event()
    never = asyncio.Event()

    async def hold() -> None:
        async with svc.locks.channel("c"):
            holding.set()
            await never.wait()  # e.g. a store call that never returns

    holder = asyncio.create_task(hold())
    await holding.wait()
    waiting = asyncio.create_task(svc.handle(_inp("c", "ben", "/join")))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    now = asyncio.get_running_loop().time()
    with caplog.at_level(logging.WARNING, logger="dokobot.host.locks"):
        assert svc.locks.free_overdue_locks(now + 6.0) == []  # named, not freed yet
        assert "table c holds its lock" in caplog.text
        assert svc.locks.free_overdue_locks(now + 11.0) == ["c"]
        assert "table c held its lock" in caplog.text and "freed" in caplog.text
    with pytest.raises(Exception, match="c"):
        await holder
    events = await asyncio.wait_for(waiting, 5)  # the waiting input goes on
    assert any(isinstance(e, Private) or "ben" in str(e) for e in events)
    await asyncio.wait_for(svc.handle(_inp("c", "carl", "/join")), 5)
    assert {s.name for s in svc.router.tables["c"].seats} >= {"anna", "carl"}
    await svc.close()


class _SlowStore(MemoryStore):
    """A store whose journal writes wait, while :attr:`gate` is shut, until it opens (a
    commit that takes long: a lock wait, a slow disk); :attr:`entered` when one waits."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.waiting = 0
        self.early_reads: list[str] = []
        """Journals read while a write waits (that may still commit)."""

    def append_many(self, appends: Sequence[Append]) -> list[int | Exception]:
        if not self.gate.is_set():
            self.waiting += 1
            self.entered.set()
            self.gate.wait(10)
            self.waiting -= 1
        return super().append_many(appends)

    def load_journal(self, channel: str, start: int = 0) -> list[str]:
        if self.waiting:
            self.early_reads.append(channel)
        return super().load_journal(channel, start)


async def test_the_watchdog_never_rebuilds_a_table_while_its_write_may_still_commit() -> None:
    store = _SlowStore()
    svc = Service(Router(seed=5, bot_factory=default_bot_factory()), store)
    first = await _four_people(svc, 600)
    table = svc.router.tables["c"]
    name = table.seats[first].name
    hand = await svc.handle(_inp("c", name, "/hand"))
    [move] = [c for e in hand if isinstance(e, Private) for c in e.choices][:1]
    store.gate.clear()
    moving = asyncio.create_task(svc.handle(_inp("c", name, move.command)))
    await asyncio.to_thread(store.entered.wait, 5)  # its write is under way, and waits
    other = next(s.name for n, s in enumerate(table.seats) if n != first)
    waiting = asyncio.create_task(svc.handle(_inp("c", other, "/hand")))
    await asyncio.sleep(0.05)
    assert svc.locks.free_overdue_locks(asyncio.get_running_loop().time() + 11.0) == ["c"]
    said = await asyncio.wait_for(moving, 5)
    assert "not known yet" in " ".join(
        e.text for e in said
    )  # the mover is told the truth: not known yet
    await asyncio.wait_for(waiting, 5)  # the other input goes on (refused: the table waits)
    await asyncio.sleep(2.0)  # the table tries to come back meanwhile (every 0.5 s, 1 s, ...)
    store.gate.set()  # now the write commits
    for _ in range(100):
        rebuilt = svc.router.tables.get("c")
        if rebuilt is not None and "c" not in svc.residency.held:
            break
        await asyncio.sleep(0.1)
    assert store.early_reads == [], "the table was rebuilt while its write could commit"
    stored = store.load_journal("c")
    assert svc.writes.stored["c"] == len(stored)
    rebuilt = svc.router.tables["c"]
    assert rebuilt.game is not None and rebuilt.game.reserved[first] != -1
    # and the table goes on: the next person's move is stored after it
    nxt = rebuilt.game.turn
    hand = await svc.handle(_inp("c", rebuilt.seats[nxt].name, "/hand"))
    [move] = [c for e in hand if isinstance(e, Private) for c in e.choices][:1]
    await svc.handle(_inp("c", rebuilt.seats[nxt].name, move.command))
    assert len(store.load_journal("c")) == len(stored) + 1
    await svc.close()


# -- the Discord adapter -----------------------------------------------------------------------


class _Unanswered(BareHost):
    """A service whose answer never comes (a starved process: the game work takes long)."""

    def __init__(self) -> None:
        self.listener: Any = None
        self.inputs: list[Input] = []
        self.never = asyncio.Event()

    async def handle(self, inp: Input) -> list[Event]:
        self.inputs.append(inp)
        await self.never.wait()
        return []

    async def start(self) -> list[Event]:
        return []

    async def close(self) -> None:
        self.never.set()


async def test_a_press_is_acknowledged_before_any_game_work(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]
    service = _Unanswered()
    turn = (Choice("♣Q", "/play CQ"), Choice("♠A", "/play SA"))
    # a deferral timer that a starved loop runs late (here: never within Discord's 3 s)
    async with running(make_client(service, prompts_default="dm", defer_after=30.0)) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        await service.listener([Private(ch, f"discord:{anna.id}", "Your turn.", turn, kind="turn")])
        await asyncio.wait_for(client.wait_idle(), 5)
        [prompt] = fake.dms(anna)
        click = await fake.click(anna, prompt, prompt.custom_ids[0])
        await fake.wait_answered(click, timeout=2)
        assert click.response_type == 6 and service.inputs  # deferred, then handed on
        service.never.set()
    assert fake.violations == []


async def test_a_channel_send_that_never_returns_holds_up_no_later_batch(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("dokobot.adapters.discord.order.SEND_TURN_S", 0.2)
    ch = f"discord:{fake.channel_id}"
    service = ScriptedService(lambda inp: [])
    # a request that gets no answer fails after 0.5 s (it holds its route's bucket so long)
    async with running(make_client(service, request_timeout=0.5)) as client:
        assert service.listener is not None
        first = fake.stall(lambda c: c.method == "POST" and "first" in json.dumps(c.body))
        stuck = asyncio.create_task(service.listener([Public(ch, "first")]))
        for _ in range(200):  # until the first message's request hangs at Discord
            if any("first" in json.dumps(c.body) for c in fake.calls):
                break
            await asyncio.sleep(0.01)
        await asyncio.wait_for(service.listener([Public(ch, "second")]), 5)
        await fake.wait_for(lambda: len(fake.channel_messages()) == 1, timeout=3)
        assert [m.content for m in fake.channel_messages()] == ["second"]
        await asyncio.wait_for(stuck, 5)  # the first one failed (and was logged)
        first.set()
        await asyncio.wait_for(client.wait_idle(), 5)


def _board(ch: str, decision: int, turn: int) -> BoardView:
    """A board of game 1 at ``ch`` in its reservations."""
    seats = ("Anna", "Ben", "Carl", "Dora")
    return BoardView(ch, 1, decision, seats=seats, dealer=3, turn=turn, phase="reservations",
                     trick_number=0, images=False)  # fmt: skip


async def test_a_slow_first_post_of_a_board_is_never_posted_twice(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The channel goes on while a game's first board post hangs at Discord; the changes
    meanwhile wait for that post and edit it: a second board would be one that the people
    see and the bot never edits again (the table looks frozen)."""
    monkeypatch.setattr("dokobot.adapters.discord.order.SEND_TURN_S", 0.2)
    ch = f"discord:{fake.channel_id}"
    posts = itertools.count()
    gate = fake.stall(lambda c: fake.is_channel_send(c) and next(posts) == 0)
    async with running(make_client(ScriptedService(lambda inp: []))) as client:
        assert isinstance(client, DiscordAdapter)
        push = client.service.listener
        assert push is not None
        first = asyncio.create_task(push([Board(ch, _board(ch, 0, 0))]))
        for _ in range(200):  # until the post hangs at Discord
            if any(fake.is_channel_send(c) for c in fake.calls):
                break
            await asyncio.sleep(0.01)
        await asyncio.wait_for(push([Board(ch, _board(ch, 1, 1))]), 5)  # the game goes on
        await asyncio.wait_for(push([Board(ch, _board(ch, 2, 2))]), 5)
        await asyncio.sleep(0.5)  # the board's editor meanwhile
        gate.set()  # the first post is answered at last
        await asyncio.wait_for(first, 5)
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = [m for m in fake.channel_messages() if m.embeds]
        assert "**Carl**" in str(board.embeds[0].get("description")), "not the latest state"


async def test_a_slow_first_post_of_a_lobby_is_never_posted_twice(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """People join while the table's first lobby post hangs at Discord: one lobby, edited
    to the latest seats once the post is answered (a lobby per join would cost a counted
    request each, and under load they queued up before every board's edits)."""
    monkeypatch.setattr("dokobot.adapters.discord.order.SEND_TURN_S", 0.2)
    ch = f"discord:{fake.channel_id}"
    names = ("Anna", "Ben", "Carl")
    posts = itertools.count()
    gate = fake.stall(lambda c: fake.is_channel_send(c) and next(posts) == 0)
    async with running(make_client(ScriptedService(lambda inp: []))) as client:
        assert isinstance(client, DiscordAdapter)
        push = client.service.listener
        assert push is not None

        def joined(n: int) -> list[Event]:
            seats = tuple((name, "") for name in names[: n + 1])
            return [
                Public(ch, f"{names[n]} joined."),
                Lobby(ch, LobbyView(ch, seats, "Anna", False, 0)),
            ]

        first = asyncio.create_task(push(joined(0)))
        for _ in range(200):  # until the post hangs at Discord
            if any(fake.is_channel_send(c) for c in fake.calls):
                break
            await asyncio.sleep(0.01)
        await asyncio.wait_for(push(joined(1)), 5)
        await asyncio.wait_for(push(joined(2)), 5)
        await asyncio.sleep(0.3)
        gate.set()
        await asyncio.wait_for(first, 5)
        await asyncio.wait_for(client.wait_idle(), 10)
        [lobby] = [m for m in fake.channel_messages() if m.embeds]
        assert "**Carl**" in str(lobby.embeds[0].get("description")), "not the latest seats"


async def test_joins_while_a_lobby_edit_is_slow_queue_one_edit(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a lobby edit hangs at Discord, the joins after it send nothing; one edit with
    the latest seats follows it (not one edit per join, each a counted request that waits
    for the request budget ahead of the boards' edits)."""
    monkeypatch.setattr("dokobot.adapters.discord.order.SEND_TURN_S", 0.2)
    ch = f"discord:{fake.channel_id}"
    names = ("Anna", "Ben", "Carl", "Dora")

    def joined(n: int) -> list[Event]:
        seats = tuple((name, "") for name in names[: n + 1])
        view = LobbyView(ch, seats, "Anna", False, 0)
        return [Public(ch, f"{names[n]} joined."), Lobby(ch, view)]

    def edit(call: Any) -> bool:
        return call.method == "PATCH" and f"/channels/{fake.channel_id}/messages/" in call.path

    async with running(make_client(ScriptedService(lambda inp: []))) as client:
        assert isinstance(client, DiscordAdapter)
        push = client.service.listener
        assert push is not None
        await push(joined(0))
        await asyncio.wait_for(client.wait_idle(), 10)
        edits = itertools.count()
        gate = fake.stall(lambda c: edit(c) and next(edits) == 0)
        slow = asyncio.create_task(push(joined(1)))
        for _ in range(200):  # until the edit hangs at Discord
            if any(edit(c) for c in fake.calls):
                break
            await asyncio.sleep(0.01)
        for n in (2, 3):
            await asyncio.wait_for(push(joined(n)), 5)
        await asyncio.sleep(0.3)
        gate.set()
        await asyncio.wait_for(slow, 5)
        await asyncio.wait_for(client.wait_idle(), 10)
        assert sum(edit(c) for c in fake.calls) == 2, "an edit per join"
        [lobby] = [m for m in fake.channel_messages() if m.embeds]
        assert "**Dora**" in str(lobby.embeds[0].get("description")), "not the latest seats"


async def test_the_watchdog_names_and_frees_a_channel_turn_held_too_long(
    fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    service = ScriptedService(lambda inp: [])
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        turns = client.order.of("discord:5")
        held = turns.take()  # a batch that never gives its turn back
        later = asyncio.create_task(turns.wait(turns.take()))
        await asyncio.sleep(0.05)
        now = asyncio.get_running_loop().time()
        assert client.order.free_overdue(now + 1.0) == [] and not later.done()
        with caplog.at_level(logging.WARNING, logger="dokobot.adapters.discord.order"):
            assert client.order.free_overdue(now + 9.0) == ["discord:5"]
        assert "table discord:5 held its turn" in caplog.text
        await asyncio.wait_for(later, 1)  # the next batch goes on
        turns.release(held)  # the late holder gives back a turn already freed: no harm
        assert turns.ready(1) and not turns.ready(2)
        turns.release(1)
        assert turns.ready(2)


async def test_a_burst_of_late_acknowledgements_leaves_the_table_going(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service(Router(seed=4, bot_factory=default_bot_factory()))
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await panel_in_a_game(fake, client, anna)
            table = service.router.tables[f"discord:{fake.channel_id}"]
            game = table.game
            assert game is not None
            late: list[int] = []
            for n in range(6):  # a burst of late presses (10062) among presses in time
                await asyncio.wait_for(service.idle(), 10)
                await asyncio.wait_for(client.wait_idle(), 10)
                decision = service.decision(table.channel)
                assert decision is not None
                now = ":{}.{}:".format(*decision)  # the current decision, as buttons carry it
                prompts = [m for m in fake.private_messages(anna) if now in " ".join(_choices(m))]
                assert prompts, "anna has no current prompt: the table stopped"
                before = _moves(game)
                click = await fake.click(anna, prompts[-1], _choices(prompts[-1])[0])
                if n % 2 == 0:
                    fake.age(click, 5.0)  # past Discord's 3 s before the bot could answer
                    late.append(click.id)
                    await fake.wait_for(functools.partial(_refused_late, fake, click.id))
                else:
                    await fake.wait_answered(click)
                await asyncio.wait_for(client.wait_idle(), 10)
                await asyncio.wait_for(service.idle(), 10)
                if n % 2 == 0:  # Discord told anna it failed: it changed nothing
                    assert _moves(game) == before and click.response_type is None
                else:  # the press in time counted, and the computer players went on
                    assert _moves(game) > before and click.response_type == 6
            # the only complaints of the fake are the late answers
            assert all(any(str(i) in v for i in late) for v in fake.violations)
    finally:
        await service.close()


def _refused_late(fake: FakeDiscord, interaction: int) -> bool:
    return any(str(interaction) in v for v in fake.violations)


def _moves(game: Any) -> int:
    """Reservations and cards played so far."""
    return len(game.log) + sum(r != -1 for r in game.reserved)


def _choices(message: Any) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


async def test_delivery_reports_never_put_the_stand_in_off() -> None:
    svc = Service.in_memory(seed=5)
    first = await _four_people(svc, 0.3)
    table = svc.router.tables["c"]
    user = table.seats[first].user
    assert user is not None
    for _ in range(15):  # the adapter reports the prompt again and again (every board edit)
        svc.prompt_sent("c", user)
        await asyncio.sleep(0.1)
    assert first in table.away, "each report restarted the turn clock: no stand-in"
    await svc.close()


async def test_inputs_at_the_table_never_put_the_stand_in_off() -> None:
    svc = Service.in_memory(seed=5)
    first = await _four_people(svc, 0.3)
    table = svc.router.tables["c"]
    other = next(s.name for n, s in enumerate(table.seats) if n != first)
    for _ in range(15):  # somebody else at the table asks for his cards again and again
        await svc.handle(_inp("c", other, "/hand"))
        await asyncio.sleep(0.1)
    assert first in table.away, "each input restarted the turn clock: no stand-in"
    await svc.close()
