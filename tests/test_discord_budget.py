"""Discord as it really is: the bot token's request budget, prompts that are never lost, and a
board that comes back (all in the strict fake, see tests/discord_fake/limits.py)."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import math
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from discord_fake import FakeDiscord, FakeUser, Message, running
from discord_fake.harness import Listener, ScriptedService, make_client, seat_with_bots, settle

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.budget import SLACK, RequestBudget, default_rps
from dokobot.adapters.discord.slash import guild_only
from dokobot.host.board import BoardView
from dokobot.host.commands import COMMANDS
from dokobot.host.events import Board, Choice, Event, Input, Private, Public
from dokobot.host.service import Service


def choice_ids(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


def board_of(fake: FakeDiscord) -> Message:
    return [m for m in fake.channel_messages() if m.button(lambda c: c.endswith(":hand"))][-1]


async def play_from_my_cards(
    fake: FakeDiscord, client: DiscordAdapter, service: Service, user: FakeUser, moves: int = 400
) -> int:
    """``user`` plays (default prompts: the "My cards" panel, opened from the newest board
    when he has no live prompt) until the game ends or ``moves`` clicks are made."""
    channel = f"discord:{fake.channel_id}"
    clicks = 0
    for _ in range(600):
        await asyncio.wait_for(service.idle(), 10)
        await asyncio.wait_for(client.wait_idle(), 10)
        table = service.router.tables[channel]
        if table.game.phase.name == "FINISHED" or clicks >= moves:
            return clicks
        if table.seats[table.game.turn].user != f"discord:{user.id}":
            await asyncio.sleep(0.02)
            continue
        live = [m for m in fake.private_messages(user) if choice_ids(m)]
        if not live:
            board = board_of(fake)
            hand = board.button(lambda c: c.endswith(":hand"))
            assert hand is not None
            await settle(fake, client, await fake.click(user, board, hand))
            continue
        prompt = live[-1]
        pick = next(
            (c for c in choice_ids(prompt) if c.endswith(":healthy") or ":play " in c),
            choice_ids(prompt)[0],
        )
        await settle(fake, client, await fake.click(user, prompt, pick))
        clicks += 1
    raise AssertionError("the game did not end")


async def test_a_deleted_board_comes_back_once_with_a_notice_and_the_game_ends(
    fake: FakeDiscord,
) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=5)
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            await settle(fake, client, await fake.slash(anna, "start"))
            first = board_of(fake)
            await play_from_my_cards(fake, client, service, anna, moves=3)
            first.deleted = True  # somebody deleted the board message
            await play_from_my_cards(fake, client, service, anna)
            await asyncio.wait_for(client.wait_idle(), 10)
    finally:
        await service.close()
    boards = [m for m in fake.channel_messages() if m.button(lambda c: c.endswith(":hand"))]
    assert len(boards) == 1 and boards[0] is not first
    again = boards[0]
    assert "board message was gone" in again.history[0]
    assert "Game over" in again.embed_text
    # the lost board was posted again once: no edit went to the deleted message after its 404
    gone = [c for c in fake.calls if c.path.endswith(f"/messages/{first.id}")]
    assert [c.status for c in gone][-1] == 404 and sum(c.status == 404 for c in gone) == 1
    assert fake.violations == []


async def test_board_edits_are_coalesced_never_identical_and_counted(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=11)
    try:
        async with running(make_client(service, board_interval=0.3)) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            await settle(fake, client, await fake.slash(anna, "start"))
            board = board_of(fake)
            # presses that change nothing on the board do not edit it
            hand = board.button(lambda c: c.endswith(":hand"))
            assert hand is not None
            edits = board.edits
            for _ in range(3):
                await settle(fake, client, await fake.click(anna, board, hand))
                await settle(fake, client, await fake.slash(anna, "table"))
            await asyncio.sleep(0.4)
            await asyncio.wait_for(client.wait_idle(), 10)
            assert board.edits == edits
            await play_from_my_cards(fake, client, service, anna)
            await asyncio.wait_for(client.wait_idle(), 10)
            budget = client.budget
    finally:
        await service.close()
    shown = list(zip(board.history, board.embed_history, strict=True))
    assert all(a != b for a, b in itertools.pairwise(shown))
    # far fewer edits than moves: 48 cards and 4 reservations made at most 12 + 1 quick edits
    # for the tricks taken and the end, and 13 for Anna's moves (the board named her)
    patches = [c for c in fake.calls if c.method == "PATCH" and c.path.endswith(f"/{board.id}")]
    gaps = [b.at - a.at for a, b in itertools.pairwise(patches)]
    assert sum(gap < 0.28 for gap in gaps) <= 12 + 1 + 13, gaps
    assert len(patches) < 52
    # every request was counted: the fake saw as many as the budget
    assert budget.counted == sum(c.counted for c in fake.calls)
    assert budget.counts["interaction"] > 0 and budget.global_429s == 0
    assert not fake.dms(anna)  # no DM by default
    assert fake.violations == []


async def test_a_global_429_is_counted_and_reported(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    service = ScriptedService(lambda inp: [Public(ch, "ok")])
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        # a bot over its bot-wide limit for a while (one request a second, at 1000x: the
        # window is 1 s of real time, wide enough for both requests on a loaded machine)
        fake.global_limit = (1, 1000.0)
        fake.speed = 1000.0  # ... that ends within a second
        assert service.listener is not None
        await service.listener([Public(ch, "one"), Public("discord:0", "x")])
        await service.listener([Public(ch, "two")])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert client.budget.global_429s >= 1
        assert "global 429s" in client.budget.report()
    assert fake.global_429s == client.budget.global_429s
    assert [m.content for m in fake.channel_messages()] == ["one", "two"]


async def test_a_failed_dm_is_retried_and_a_lost_one_names_the_player(
    fake: FakeDiscord,
) -> None:
    ch = f"discord:{fake.channel_id}"
    ben, carl = fake.users[1], fake.users[2]
    sent: list[tuple[str, str]] = []

    class Timers(ScriptedService):
        def prompt_sent(self, channel: str, user: str) -> None:
            sent.append((channel, user))

    def script(inp: Input) -> list[Event]:
        return [Public(ch, f"{inp.name}: {inp.text}")]

    service = Timers(script)
    turn = (Choice("♣Q", "/play CQ"),)
    client = make_client(service, prompts_default="dm", dm_retries=(0.05, 0.1, 0.2))
    async with running(client):
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        # Ben's DM meets a server error once: tried again, delivered, his timer starts then
        refused = fake.inject_status  # a refusal that is not 403 (e.g. 40003)
        refused(lambda c: c.path.endswith("/messages") and "components" in str(c.body), 400)
        await service.listener([Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn")])
        await fake.wait_for(lambda: bool(fake.dms(ben)), timeout=10)
        await asyncio.wait_for(client.wait_idle(), 10)
        assert [m.content for m in fake.dms(ben)] == ["Your turn."]
        assert sent == [(ch, f"discord:{ben.id}")]
        # Carl's DMs fail every time: the channel names him, and no DM is opened on every prompt
        fake.inject_status(lambda c: c.path == "/users/@me/channels", 400, count=100)
        for n in range(3):
            text = f"Your turn {n}."
            await service.listener([Private(ch, f"discord:{carl.id}", text, turn, kind="turn")])
            await asyncio.wait_for(client.wait_idle(), 20)
        opens = [c for c in fake.calls if c.path == "/users/@me/channels"]
        carl_opens = [c for c in opens if c.body["recipient_id"] in (carl.id, str(carl.id))]
        assert len(carl_opens) == 4  # the first prompt: one try and three more; then resting
        calls = [m for m in fake.channel_messages() if carl.mention in m.content]
        assert len(calls) == 1 and calls[0].custom_ids == [f"doko:{fake.channel_id}:hand"]
        assert (ch, f"discord:{carl.id}") in sent
    assert fake.violations == []


async def test_a_double_click_that_moved_shows_no_error(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=4)
    try:
        async with running(make_client(service, prompts_default="dm")) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            await settle(fake, client, await fake.slash(anna, "start"))
            [prompt] = [m for m in fake.private_messages(anna) if choice_ids(m)]
            healthy = prompt.button(lambda c: c.endswith(":healthy"))
            assert healthy is not None
            first = await settle(fake, client, await fake.click(anna, prompt, healthy))
            assert first.response_type == 6  # acknowledged at once (and used up)
            # the second click of a double click, on the copy the client still shows
            second = await fake.click(anna, prompt, healthy, stale=True)
            await settle(fake, client, second)
            assert second.response_type == 6  # acknowledged, and nothing said
            assert [m for m in fake.messages.values() if m.interaction_id == second.id] == []
    finally:
        await service.close()
    assert fake.violations == []


async def test_the_commands_are_uploaded_only_when_they_changed_and_some_are_guild_only(
    fake: FakeDiscord,
) -> None:
    service = Service.in_memory(seed=1)

    def uploads() -> int:
        return sum(1 for c in fake.calls if c.method == "PUT" and c.path.endswith("/commands"))

    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            digest = client.upload.digest()
        assert uploads() == 1
        async with running(make_client(service)):  # a restart (or another process)
            pass
        assert uploads() == 1
        await service.remember_preference("discord:application", "command_tree_hash", "old")
        async with running(make_client(service)):  # a new version of the commands
            pass
        assert uploads() == 2
        assert await service.preference_of("discord:application", "command_tree_hash") == digest
    finally:
        await service.close()
    by_name = {c["name"]: c for c in fake.commands}
    # those that act on a channel's table or need an admin or owner: not in DMs
    uploaded = {name: spec for name, spec in COMMANDS.items() if name in by_name}
    assert {"join", "start", "play"} <= set(uploaded)
    for name, spec in uploaded.items():
        command = by_name[name]
        in_servers_only = command.get("contexts") == [0] or command.get("dm_permission") is False
        assert in_servers_only == guild_only(spec), name


SEATS = ("Anna", "Ben", "Carl", "Dora")


def table_view(ch: str, decision: int, turn: int, **fields: object) -> BoardView:
    """A board state of game 1 at ``ch`` (playing, no card on the table unless given)."""
    base: dict[str, Any] = {"phase": "playing", "trick_number": 1, "images": False}
    return BoardView(ch, 1, decision, seats=SEATS, dealer=0, turn=turn, **(base | fields))


async def test_each_waiting_turn_pings_once_and_the_ping_goes_with_the_move(
    fake: FakeDiscord,
) -> None:
    """Discord notifies a mention only in a new message: each turn that waits for a player
    gets one short message that mentions only him (with "My cards"); the reminder edits it
    (no second notification); it is deleted once the turn is past, and his next turn gets
    a new one. The board's edits notify nobody."""
    ch = f"discord:{fake.channel_id}"
    ben = fake.users[1]
    turn = (Choice("♣Q", "/play CQ"),)
    prompt = Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn")
    reminder = Private(ch, f"discord:{ben.id}", "Still your turn.", kind="reminder")
    async with running(make_client(ScriptedService(lambda inp: []))) as client:
        assert isinstance(client, DiscordAdapter)
        assert client.service.listener is not None
        push = client.service.listener
        await push([Board(ch, table_view(ch, 0, 0))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = fake.channel_messages()
        # Ben never used a command here (no panel, no token): a message pings him at once
        await push([Board(ch, table_view(ch, 1, 1)), prompt])
        await asyncio.wait_for(client.wait_idle(), 10)
        [ping] = fake.notified(ben)
        assert ping.custom_ids == [f"doko:{fake.channel_id}:hand"]
        assert ben.mention in ping.content and fake.users[0].mention not in ping.content
        # the same prompt again, and the clock's reminder: no second notification
        await push([prompt, reminder])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert fake.notified(ben) == [ping]
        assert "Still your turn." in ping.content and ping.edits == 1
        assert fake.channel_messages() == [board, ping]
        # his move (the next decision): the ping is deleted; his next turn pings him again
        await push([Board(ch, table_view(ch, 2, 2))])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert ping.deleted and fake.channel_messages() == [board]
        await push([Board(ch, table_view(ch, 5, 1)), prompt])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert len(fake.notified(ben)) == 2
        assert board not in fake.notified(ben)  # the board's edits pinged nobody
    assert fake.violations == []


async def test_a_player_with_a_live_token_gets_a_new_panel_and_a_ping_if_he_does_not_move(
    fake: FakeDiscord,
) -> None:
    """Whoever used a command at the table lately gets his prompt as a new "My cards" panel
    through that interaction's token (free). An ephemeral message notifies nobody and may
    be gone (a reload): unless he moves within the grace, a message pings him, and only
    that counts as delivered for the turn clock."""
    ch = f"discord:{fake.channel_id}"
    ben = fake.users[1]
    sent: list[tuple[str, str]] = []

    class Timers(ScriptedService):
        def prompt_sent(self, channel: str, user: str) -> None:
            sent.append((channel, user))

    service = Timers(lambda inp: [Public(ch, f"{inp.name} joined.")])
    turn = (Choice("♣Q", "/play CQ"),)
    async with running(make_client(service, ping_grace=0.3)) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        await settle(fake, client, await fake.slash(ben, "join"))
        await service.listener([Board(ch, table_view(ch, 0, 1))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = [m for m in fake.channel_messages() if m.embeds]
        counted = sum(c.counted for c in fake.calls)
        prompt = Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn")
        await service.listener([prompt])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert sum(c.counted for c in fake.calls) == counted  # a follow-up does not count
        [panel] = [m for m in fake.private_messages(ben) if choice_ids(m)]
        assert panel.ephemeral and [c.split(":")[-1] for c in choice_ids(panel)] == ["play CQ"]
        assert "Your turn." in panel.content
        assert not any(ben.mention in h for h in board.history)
        assert sent == [] and fake.notified(ben) == []  # a panel is only a belief
        await fake.wait_for(lambda: bool(fake.notified(ben)), 5)
        await asyncio.wait_for(client.wait_idle(), 10)
        [ping] = fake.notified(ben)
        assert ben.mention in ping.content and not ping.ephemeral
        assert sent == [(ch, f"discord:{ben.id}")]  # delivered: a visible notification
        # the next prompt updates that panel in place
        await service.listener([Private(ch, f"discord:{ben.id}", "Again.", turn, kind="turn")])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert [m for m in fake.private_messages(ben) if choice_ids(m)] == [panel]
        assert "Again." in panel.content
    assert fake.violations == []


@contextlib.asynccontextmanager
async def board_only(interval: float) -> AsyncIterator[tuple[DiscordAdapter, Listener]]:
    """A client of a service that answers nothing; the board states a test pushes."""
    service = ScriptedService(lambda inp: [])
    async with running(make_client(service, board_interval=interval)) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        yield client, service.listener


COMPUTERS = {"computers": (0, 1, 2, 3)}
"""A table of computer players (their single moves may wait; a person's never do)."""


async def test_a_single_move_waits_for_the_next_one_then_is_shown(fake: FakeDiscord) -> None:
    """A computer player's first card of a trick (and reservation) waits a few board
    intervals: a second card soon after is shown in the same edit; alone, it is shown after
    the wait."""
    ch = f"discord:{fake.channel_id}"
    async with board_only(0.5) as (client, push):
        taken = {"trick_number": 2, "last_trick": ((0, 1), (1, 2), (2, 3), (3, 4)),
                 "last_winner": 0, **COMPUTERS}  # fmt: skip
        await push([Board(ch, table_view(ch, 8, 0, **taken))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = fake.channel_messages()
        await asyncio.sleep(0.6)  # longer than the interval: no edit is due any more
        await push([Board(ch, table_view(ch, 9, 1, trick=((0, 5),), **taken))])
        await asyncio.sleep(0.05)
        await push([Board(ch, table_view(ch, 10, 2, trick=((0, 5), (1, 6)), **taken))])
        await asyncio.wait_for(client.wait_idle(), 10)
        descriptions = [str(e[0]["description"]) for e in board.embed_history]
        assert len(descriptions) == 2, descriptions  # the first card waited for the second
        assert "**Carl** to play" in descriptions[-1]
        # a single reservation at a slow pace: shown after the wait (the latest state)
        reservation = table_view(ch, 1, 1, phase="reservations", trick_number=0, **COMPUTERS)
        await push([Board(ch, reservation)])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Ben** to play" in str(board.embeds[0]["description"])
    assert fake.violations == []


async def test_the_first_board_post_notifies_everybody_seated_and_counts_for_their_first_turn(
    fake: FakeDiscord,
) -> None:
    """A new game's board post mentions (and so notifies) everybody seated, also those with
    a token (a panel is only a belief); that post is the notification of each one's first
    turn of the game, the next turn gets a ping of its own."""
    ch = f"discord:{fake.channel_id}"
    anna, ben = fake.users[0], fake.users[1]
    turn = (Choice("♣Q", "/play CQ"),)
    service = ScriptedService(lambda inp: [Public(ch, f"{inp.name} joined.")])
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        await settle(fake, client, await fake.slash(anna, "join"))  # Anna has a token
        before = fake.channel_messages()
        hands = [Private(ch, f"discord:{u.id}", "Your hand: ♣Q", kind="hand") for u in (anna, ben)]
        await service.listener([Board(ch, table_view(ch, 0, 0)), *hands])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = [m for m in fake.channel_messages() if m not in before]
        assert ben.mention in board.content and anna.mention in board.content
        assert fake.notified(ben) == [board] and fake.notified(anna) == [board]
        # his first turn: the post called him, no message of its own
        prompt = Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn")
        await service.listener([Board(ch, table_view(ch, 1, 1)), prompt])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert fake.notified(ben) == [board]
        assert [m for m in fake.channel_messages() if m not in before] == [board]
        # his second turn: a ping
        await service.listener([Board(ch, table_view(ch, 5, 1)), prompt])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert len(fake.notified(ben)) == 2 and fake.notified(anna) == [board]
    assert fake.violations == []


async def test_a_board_edit_that_lands_late_holds_back_no_later_move(fake: FakeDiscord) -> None:
    """A board edit repeated after a 429 can land after the game moved on: the message then
    names a player who has moved. The board notes the state the message shows (not the one
    it knows when the edit returns), so the next move is measured against that and shown at
    the board's pace, never held for the move after it while the board names a player who
    moved two moves ago (bench/discord.py counted such turns as lost prompts). (Computer
    players: a person's move is shown at once anyway.)"""
    ch = f"discord:{fake.channel_id}"
    reservations = {"phase": "reservations", "trick_number": 0, **COMPUTERS}
    async with board_only(1.0) as (client, push):
        await push([Board(ch, table_view(ch, 0, 0, **reservations))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [message] = fake.channel_messages()
        board = client.boards.messages[fake.channel_id]
        edit = f"/channels/{fake.channel_id}/messages/{message.id}"
        fake.inject_429(lambda c: c.method == "PATCH" and c.path == edit, retry_after=0.5)
        await asyncio.sleep(1.1)  # past the interval: the next edit leaves at once
        await push([Board(ch, table_view(ch, 2, 2, **reservations))])  # Carl to play
        await fake.wait_for(lambda: any(c.status == 429 for c in fake.calls), 5)
        await push([Board(ch, table_view(ch, 3, 3, **reservations))])  # he moved meanwhile
        for _ in range(500):  # the edit is repeated after its 429 and lands
            if board.edits:
                break
            await asyncio.sleep(0.01)
        assert "**Carl** to play" in message.embed_text  # late: Carl has moved
        assert board.shown_view is not None and board.shown_view.decision == 2
        await push([Board(ch, table_view(ch, 4, 0, **reservations))])  # Dora moved too
        assert board.held is None  # the message shows decision 2: nothing to hold for
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Anna** to play" in message.embed_text
    assert fake.violations == []


async def test_a_persons_move_is_shown_at_once_while_the_board_names_him(
    fake: FakeDiscord,
) -> None:
    """Once the person the board names as the one to play has moved, the board's next edit
    is urgent: neither held for the next move (a reservation) nor after the board interval
    (30 s here), also when the edit that names him was still on its way when he moved (it
    lands after his move: he sees his name and no prompt). Urgent edits keep to the
    channel's edit bucket (no 429). A computer player's move still waits."""
    ch = f"discord:{fake.channel_id}"
    dora = {"phase": "reservations", "trick_number": 0, "computers": (3,)}  # Dora: a computer
    async with board_only(30.0) as (client, push):
        await push([Board(ch, table_view(ch, 0, 0, **dora))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [message] = fake.channel_messages()
        board = client.boards.messages[fake.channel_id]
        await push([Board(ch, table_view(ch, 1, 1, **dora))])  # Anna moved
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Ben** to play" in message.embed_text
        edit = f"/channels/{fake.channel_id}/messages/{message.id}"
        gate = fake.stall(lambda c: c.path == edit and "Carl" in str(c.body))
        await push([Board(ch, table_view(ch, 2, 2, **dora))])  # Ben moved: Carl to play
        for _ in range(500):  # until that edit waits at Discord
            if any("Carl" in str(c.body) for c in fake.calls):
                break
            await asyncio.sleep(0.01)
        await push([Board(ch, table_view(ch, 3, 0, **dora))])  # Carl moved meanwhile
        gate.set()  # the edit that names Carl lands after his move
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Anna** to play" in message.embed_text
        for decision in range(4, 24):  # the people move fast: each move is urgent
            await push([Board(ch, table_view(ch, decision, decision % 3, **dora))])
            await asyncio.sleep(0.02)
        await asyncio.wait_for(client.wait_idle(), 15)
        assert board.shown_view is not None and board.shown_view.decision == 23
        assert not [c for c in fake.calls if c.status == 429]
        await push([Board(ch, table_view(ch, 24, 3, **dora))])  # Carl moved: Dora to play
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Dora** to play" in message.embed_text
        edits = len(message.embed_history)
        await push([Board(ch, table_view(ch, 25, 0, **dora))])  # Dora moved
        await asyncio.sleep(0.3)
        assert len(message.embed_history) == edits  # held for the next move
    assert fake.violations == []


async def test_a_busy_budget_holds_the_third_card_too(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Near its share of the bot-wide limit (:meth:`RequestBudget.busy`) the board shows two
    of the computer players' cards per edit: the third card of a trick waits for the fourth
    like the first; with room to spare it is shown at the board's pace."""
    ch = f"discord:{fake.channel_id}"
    async with board_only(0.3) as (client, push):
        two = ((0, 5), (1, 6))
        await push([Board(ch, table_view(ch, 10, 2, trick=two, **COMPUTERS))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = fake.channel_messages()
        await asyncio.sleep(0.4)  # longer than the interval: an edit would be due at once
        busy = [True]
        monkeypatch.setattr(client.budget, "busy", lambda now: busy[0])
        await push([Board(ch, table_view(ch, 11, 3, trick=(*two, (2, 7)), **COMPUTERS))])
        await asyncio.sleep(0.6)  # two intervals: still held
        assert "**Dora** to play" not in board.embed_text
        taken = {"trick_number": 2, "last_trick": (*two, (2, 7), (3, 8)), "last_winner": 2,
                 **COMPUTERS}  # fmt: skip
        await push([Board(ch, table_view(ch, 12, 2, **taken))])
        await asyncio.wait_for(client.wait_idle(), 10)
        assert "**Carl** to play" in board.embed_text
        edits = len(board.embed_history)
        # with room to spare, the third card of the next trick is shown alone
        busy[0] = False
        three = ((2, 9), (3, 10), (0, 11))
        await push([Board(ch, table_view(ch, 15, 1, trick=three, **taken))])
        await asyncio.sleep(0.6)
        assert "**Ben** to play" in board.embed_text and len(board.embed_history) == edits + 1
    assert fake.violations == []


def _paced(budget: RequestBudget, start: float, end: float) -> list[float]:
    """When the counted requests of a process that always has one to send leave between
    ``start`` and ``end`` (each answered at once), on a simulated clock."""
    starts: list[float] = []
    now = start
    while (at := budget.slot(now)) < end:
        budget.answered(budget.leave(at), at)
        starts.append(at)
        now = at
    return starts


def test_a_single_global_429_slows_the_process_for_seconds_not_a_minute() -> None:
    """A global 429 holds every counted request for its Retry-After; then the pace is cut by
    a fifth and regained within 10 s (the code before: half the pace for a minute after a
    single 429). A run of them cuts deeper, to half at most, and is regained too."""
    budget = RequestBudget(rps=50)
    share = 50 / (1 + SLACK)
    budget.back_off(100.0, "1")
    assert budget.slot(100.2) == 101.0  # nothing before Retry-After
    first = _paced(budget, 100.2, 111.0)
    later = _paced(budget, 111.0, 121.0)
    assert 0.8 * share * 10 <= len(first) < share * 10
    assert len(later) >= 0.97 * share * 10  # its whole share again
    for k in range(6):  # a run of them
        budget.back_off(200.0 + k, "1")
    assert budget.pace(206.0) == 0.5
    assert len(_paced(budget, 206.0, 207.0)) <= share / 2 + 1
    assert budget.pace(231.0) == 1.0


def test_paced_requests_leave_room_in_every_second_of_discords() -> None:
    """At its share of 50 per second, a process keeps a tenth of a second to spare in every
    run of 51 requests: a request held up on its way cannot put a 51st into one of Discord's
    seconds (paced exactly at 50, 51 requests spanned exactly 1 s). Requests that leave late
    (the process was busy) do not leave together afterwards."""
    budget = RequestBudget(rps=50)
    starts: list[float] = []
    for n in range(500):
        at = budget.slot(100.0)
        if n % 100 == 99:
            at += 0.3  # the process was busy: this one leaves late
        budget.answered(budget.leave(at), at)
        starts.append(at)
    spans = [starts[i + 50] - starts[i] for i in range(len(starts) - 50)]
    assert min(spans) > 1.09
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert min(gaps) > 1.09 / 50 and sorted(gaps)[len(gaps) // 2] < 1.11 / 50  # about 45/s
    assert budget.slot(starts[-1] + 5.0) == starts[-1] + 5.0  # after a pause: at once
    shared = RequestBudget(rps=default_rps(4))  # each of four processes: a quarter
    quarter: list[float] = []
    for _ in range(100):
        quarter.append(shared.slot(0.0))
        shared.answered(shared.leave(quarter[-1]), quarter[-1])
    assert min(quarter[i + 12] - quarter[i] for i in range(88)) > 1.0


def starved_loop(
    budget: RequestBudget,
    seconds: float,
    late: float,
    seed: int,
    answer: tuple[float, float] = (0.05, 0.05),
    answers: list[float] | None = None,
) -> list[float]:
    """A process with a backlog of counted requests on a loop that wakes up 0.5 to 1 times
    ``late`` seconds after every timer (its probe measured a lag of ``late``), from loop
    time 100: at each wake-up every request whose slot came leaves (as
    :meth:`RequestBudget.wait_turn` lets them go) and gets its answer within ``answer``
    seconds (appended to ``answers``). Returns when they left."""
    rng = random.Random(seed)
    budget.note_lag(late)
    left: list[float] = []
    pending: list[tuple[float, int]] = []
    now = 100.0
    while now < 100.0 + seconds:
        pending.sort()
        while pending and pending[0][0] <= now:  # the answers that came meanwhile
            at, ticket = pending.pop(0)
            budget.answered(ticket, at)
        at = min(budget.slot(now), pending[0][0] if pending else math.inf)
        if at > now:
            now = at + rng.uniform(late / 2, late)
            continue
        answered = now + rng.uniform(*answer)
        pending.append((answered, budget.leave(now)))
        left.append(now)
        if answers is not None:
            answers.append(answered)
    return left


def at_discord(left: list[float], seed: int) -> list[float]:
    """When the requests that left at ``left`` reach Discord: the requests let go at one
    wake-up are written one after the other, each taking 1 to 12 ms (a busier or a calmer
    moment of the loop), so a bunch spreads out and the next one may not."""
    rng = random.Random(seed)
    reach: list[float] = []
    written, write, before = 0.0, 0.001, None
    for at in left:
        if at != before:
            write = rng.choice((0.001, 0.004, 0.012))
        written, before = max(written, at) + write, at
        reach.append(written)
    return reach


def most_within(times: list[float], seconds: float) -> int:
    """The most of ``times`` within any ``seconds`` (a half-open window)."""
    times = sorted(times)
    return max(bisect.bisect_left(times, t + seconds) - k for k, t in enumerate(times))


@pytest.mark.parametrize("late", [0.05, 0.2, 0.5])
def test_a_loop_that_wakes_late_still_makes_its_share(late: float) -> None:
    """The slots stay on their timeline: a late wake-up lets the passed slots go together
    instead of pushing every later one back. Spaced from each late departure, a loop 0.2 s
    late sent 5.6 requests a second (45 is the share); now about the share stretched by the
    lag, 45 / (1 + lag), less what the wake-ups after a full window lose."""
    budget = RequestBudget(rps=50)
    left = starved_loop(budget, 30.0, late, seed=1)
    share = 50 / (1 + SLACK) / (1 + late)
    assert len(left) / 30.0 >= 0.75 * share, len(left) / 30.0


@pytest.mark.parametrize("late", [0.0, 0.05, 0.2, 0.5])
def test_a_late_loop_sends_no_bunch_discord_could_count_twice(late: float) -> None:
    """No second of a late loop's requests carries more than the share, none of Discord's
    more than its 50, and the requests let go together are at most a late wake-up's worth.
    (Counting requests in a window of 1 + lag seconds let up to 45 go at one wake-up; a
    slowly written bunch and a quickly written one then put 60 to 87 requests into one of
    Discord's seconds.)"""
    budget = RequestBudget(rps=50)
    left = starved_loop(budget, 30.0, late, seed=2)
    assert most_within(left, 1.0) <= 50 / (1 + SLACK)
    assert most_within(at_discord(left, seed=3), 1.0) <= 50
    assert most_within(left, 1e-9) <= late / budget.gap(0.0) + 1


def most_seen_within_a_second(left: list[float], answers: list[float]) -> int:
    """The most requests Discord could see within one second, each seen at any time between
    its departure (``left``) and its answer: the most spans that reach into one window."""
    spans = list(zip(left, answers, strict=True))
    return max(sum(d <= start + 1.0 and e > start for d, e in spans) for start, _ in spans)


@pytest.mark.parametrize("late", [0.0, 0.2])
def test_requests_written_late_never_crowd_one_of_discords_seconds(late: float) -> None:
    """A request that left may reach Discord late (a stalled write, a queue for a
    connection, a slow upload): Discord sees it somewhere between its departure and its
    answer. With answers that take up to 1.5 s, no second of Discord's can hold more than the
    share, wherever in their spans the requests land (paced by departures alone, a stall
    could put all the requests of 1.5 s into one second)."""
    budget = RequestBudget(rps=50)
    answers: list[float] = []
    left = starved_loop(budget, 20.0, late, seed=4, answer=(0.01, 1.5), answers=answers)
    assert most_seen_within_a_second(left, answers) <= 50 / (1 + SLACK)
    assert len(left) / 20.0 >= 10  # still a pace (the spans hold their share a while)


async def test_a_starved_loop_lets_every_due_request_go_at_one_wake_up() -> None:
    """Through :meth:`RequestBudget.wait_turn` on a real loop that is stopped for 0.3 s: the
    requests whose slots passed leave together at the next wake-up (not one per wake-up),
    at most a lag's worth, in the order they came; a cancelled one is skipped."""
    budget = RequestBudget(rps=50)
    budget.note_lag(0.3)
    order: list[int] = []

    async def request(n: int) -> None:
        await budget.wait_turn()
        order.append(n)

    tasks = [asyncio.create_task(request(n)) for n in range(40)]
    await asyncio.sleep(0)
    tasks[20].cancel()
    time.sleep(0.3)  # the loop is starved
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    await budget.close()
    assert order == [n for n in range(40) if n != 20]
    left = list(budget._left)
    together = max(left.count(t) for t in left[1:])
    # 0.3 s of slots, each 1.1 * 1.3 / 50 s apart (0.4 s if the lag probe saw a longer
    # stop): about 10, never the window's 45
    assert 5 <= together <= 0.4 / (1.1 * 1.4 / 50) + 1, left
