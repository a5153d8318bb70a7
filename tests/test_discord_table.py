"""The table flow on Discord: one lobby per table edited in place (Join, Leave, Start, a menu
to add computer players), a result with Next game and Score, a series driven by buttons."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.interaction import PRESS_ORDER_S
from dokobot.host.events import Input
from dokobot.host.options import TableOptions
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, Message, running
from discord_fake.harness import panel_in_a_game, settle
from discord_fake.server import Call


def lobby_of(fake: FakeDiscord, client: DiscordAdapter, where: int | None = None) -> Message:
    message_id = client.lobbies.message(where or fake.channel_id)
    assert message_id is not None
    return fake.messages[message_id]


def prompt_buttons(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


async def play_by_buttons(
    fake: FakeDiscord,
    client: DiscordAdapter,
    service: Service,
    people: list[FakeUser],
    where: int | None = None,
) -> None:
    """The people answer their prompts with buttons ("My cards" on the board, then the
    panel's buttons) until the game is over (in the channel ``where``, default the fake's)."""
    channel = f"discord:{where or fake.channel_id}"
    board = [m for m in fake.channel_messages(where) if m.embeds][-1]
    my_cards = board.button(lambda c: c.endswith(":hand"))
    assert my_cards is not None
    for person in people:
        await settle(fake, client, await fake.click(person, board, my_cards))
    for _ in range(300):
        await asyncio.wait_for(service.idle(), 20)
        await asyncio.wait_for(client.wait_idle(), 20)
        table = service.router.tables[channel]
        game = table.game
        assert game is not None
        if game.phase.name == "FINISHED":
            return
        user = next((p for p in people if f"discord:{p.id}" == table.seats[game.turn].user), None)
        if user is None:
            await asyncio.sleep(0.02)
            continue
        live = [m for m in fake.private_messages(user) if prompt_buttons(m)]
        if not live:
            await settle(fake, client, await fake.click(user, board, my_cards))
            continue
        prompt = live[-1]
        pick = next(
            (c for c in prompt_buttons(prompt) if c.endswith(":healthy") or ":play " in c),
            prompt_buttons(prompt)[0],
        )
        await settle(fake, client, await fake.click(user, prompt, pick))
    raise AssertionError("the game did not end")


async def test_a_series_driven_by_buttons_lobby_add_computer_start_play_next_game(
    fake: FakeDiscord,
) -> None:
    anna, ben = fake.users[0], fake.users[1]
    service = Service.in_memory(seed=5)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            # Anna opens the table; the lobby is one message
            await settle(fake, client, await fake.slash(anna, "join"))
            lobby = lobby_of(fake, client)
            assert fake.channel_messages() == [lobby]
            assert "1. **" in lobby.embed_text and "Anna" in lobby.embed_text
            join = lobby.button(lambda c: c.endswith(":join"))
            assert join is not None
            # Ben joins with the button: the same lobby is edited, no new message
            pressed = await settle(fake, client, await fake.click(ben, lobby, join))
            assert pressed.response_type in (6, 7) or pressed.ephemeral_messages
            assert fake.channel_messages() == [lobby] and "Ben" in lobby.embed_text
            # two computer players from the menu, at two levels
            [menu] = lobby.selects
            assert [o["value"] for o in menu["options"]] == ["random", "easy", "normal", "strong"]
            for level in ("easy", "normal"):
                await settle(
                    fake, client, await fake.choose(anna, lobby, menu["custom_id"], [level])
                )
            seats = service.router.tables[channel].seats
            assert [s.bot for s in seats] == [None, None, "easy", "normal"]
            assert "computer (easy)" in lobby.embed_text and lobby.selects == []
            # beside its Start button the lobby does not tell anybody to type /start
            assert "can press Start" in lobby.embed_text and "/start" not in lobby.embed_text
            assert fake.channel_messages() == [lobby]
            # Start from the lobby
            start = lobby.button(lambda c: c.endswith(":start"))
            assert start is not None
            await settle(fake, client, await fake.click(anna, lobby, start))
            assert "Game 1 is being played" in lobby.embed_text
            assert lobby.button(lambda c: c.endswith(":start")) is None
            await play_by_buttons(fake, client, service, [anna, ben])
            await asyncio.wait_for(client.wait_idle(), 10)
            # the result carries Next game and Score
            result = fake.channel_messages()[-1]
            assert "Game 1 is over" in result.content
            labels = [b["label"] for b in result.buttons]
            assert labels == ["Next game", "Score"]
            first_game = len(fake.channel_messages())
            assert first_game <= 3, [m.content[:40] for m in fake.channel_messages()]
            score = result.button(lambda c: c.endswith(":score"))
            assert score is not None
            shown = await settle(fake, client, await fake.click(ben, result, score))
            assert any("Anna" in m.content for m in shown.ephemeral_messages)
            after = result.button(lambda c: c.endswith(":start"))
            assert after is not None
            await settle(fake, client, await fake.click(anna, result, after))
            assert service.router.tables[channel].game_number == 2
            await play_by_buttons(fake, client, service, [anna, ben])
            await asyncio.wait_for(client.wait_idle(), 10)
            assert "Game 2 is over" in fake.channel_messages()[-1].content
            assert len(fake.channel_messages()) - first_game <= 2  # a board and a result
    finally:
        await service.close()
    assert fake.violations == []


async def test_a_call_is_made_only_by_the_second_press(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=4)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            panel = await panel_in_a_game(fake, client, anna)
            game = service.router.tables[channel].game
            assert game is not None
            for _ in range(40):  # to Anna's first turn in the card play
                await asyncio.wait_for(service.idle(), 10)
                await asyncio.wait_for(client.wait_idle(), 10)
                if panel.button(lambda c: ":ask " in c):
                    break
                healthy = panel.button(lambda c: c.endswith(":healthy"))
                assert healthy is not None, panel.custom_ids
                await settle(fake, client, await fake.click(anna, panel, healthy))
            ask = panel.button(lambda c: ":ask " in c)
            assert ask is not None, panel.custom_ids
            label = next(b["label"] for b in panel.buttons if b["custom_id"] == ask)
            assert label in ("Re", "Kontra")  # as players write them
            # the first press asks, and changes nothing
            first = await settle(fake, client, await fake.click(anna, panel, ask))
            assert game.calls == [] and ask in panel.custom_ids
            [question] = first.ephemeral_messages
            assert question.ephemeral and label in question.content
            [yes] = question.custom_ids
            assert yes.endswith(":" + label.lower()) and f":{game_marker(client, fake)}:" in yes
            # the second press makes the call
            await settle(fake, client, await fake.click(anna, question, yes))
            await asyncio.wait_for(service.idle(), 10)
            assert [seat for seat, _ in game.calls] == [0]
            assert question.custom_ids == []  # used up
    finally:
        await service.close()
    assert fake.violations == []


def game_marker(client: DiscordAdapter, fake: FakeDiscord) -> str:
    marker = client.decisions.current(fake.channel_id)
    assert marker is not None
    game, decision = marker
    return f"{game}.{decision}"


async def test_the_board_shows_the_deadline_and_a_computer_stands_in_after_it(
    fake: FakeDiscord,
) -> None:
    anna, ben = fake.users[0], fake.users[1]
    # a one-second clock (the option takes 10 s or more; a table's defaults may be shorter)
    service = Service.in_memory(seed=4, options=TableOptions(turn_timeout=1))
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            await settle(fake, client, await fake.slash(anna, "join"))
            await settle(fake, client, await fake.slash(ben, "join"))
            for _ in range(2):
                await settle(fake, client, await fake.slash(anna, "join", {"bot": True}))
            began = time.time()
            await settle(fake, client, await fake.slash(anna, "start"))
            table = service.router.tables[channel]
            game = table.game
            assert game is not None and game.turn == 0  # Anna's turn: she does nothing
            board = next(m for m in fake.channel_messages() if m.button(lambda c: ":hand" in c))
            [stamp] = re.findall(r"<t:(\d+):R>", board.embed_text)
            assert began + 1 <= int(stamp) <= time.time() + 2.5  # twice the timeout
            assert "computer plays <t:" in board.embed_text
            # after the deadline a computer player moves for Anna; the board says so
            await fake.wait_for(lambda: 0 in table.away, timeout=6)
            await asyncio.wait_for(service.idle(), 10)
            await fake.wait_for(lambda: "Computer stands in for" in board.embed_text, 5)
            # Ben's turn comes, he is reminded and idle: the board offers Anna (the owner)
            # a button that lets a computer player stand in for him at once
            await fake.wait_for(lambda: game.turn == 1 and 1 not in table.away, 10)
            await fake.wait_for(lambda: board.button(lambda c: c.endswith(":standin")), 5)
            standin = board.button(lambda c: c.endswith(":standin"))
            assert standin is not None and any("Ben" in b["label"] for b in board.buttons)
            refused = await settle(fake, client, await fake.click(ben, board, standin))
            assert 1 not in table.away and refused.ephemeral_messages  # not the owner
            await settle(fake, client, await fake.click(anna, board, standin))
            assert 1 in table.away
    finally:
        await service.close()
    assert fake.violations == []


def test_discord_tables_have_a_clock_by_default() -> None:
    """Discord and IRC tables have a turn clock by default (each its own, as its adapter
    declares it; tests/test_chat_defaults.py), the console's none."""
    from dokobot.adapters.discord.defaults import TABLE_DEFAULTS as DISCORD
    from dokobot.adapters.irc.settings import TABLE_DEFAULTS as IRC
    from dokobot.host.router import Router

    router = Router(seed=1)
    router.chats += [DISCORD, IRC]
    for name in ("anna", "ben"):
        for channel in ("discord:1", "irc:#doko", "console"):
            router.handle(Input(channel, f"{channel}:{name}", name, "/join"))
    assert router.tables["discord:1"].options.turn_timeout == 30
    assert router.tables["irc:#doko"].options.turn_timeout == 60
    assert router.tables["console"].options.turn_timeout == 0


async def test_a_game_in_a_thread_and_a_second_table_in_the_same_channel(
    fake: FakeDiscord,
) -> None:
    anna, ben, carl = fake.users[0], fake.users[1], fake.users[2]
    service = Service.in_memory(seed=6)
    try:
        async with running(DiscordAdapter(service, board_interval=0.05, threads=True)) as client:
            opened = await settle(fake, client, await fake.slash(anna, "join"))
            [(thread, (parent, name))] = fake.threads.items()
            assert parent == fake.channel_id and name == "Doppelkopf · Anna"
            assert f"<#{thread}>" in opened.ephemeral_messages[0].content
            # Ben's /join in the channel joins the same table, in its thread
            await settle(fake, client, await fake.slash(ben, "join"))
            assert len(fake.threads) == 1
            table = service.router.tables[f"discord:{thread}"]
            assert [s.name for s in table.seats] == ["Anna", "Ben"]
            lobby = lobby_of(fake, client, thread)
            assert lobby.channel_id == thread and "Ben" in lobby.embed_text
            [menu] = lobby.selects
            for _ in range(2):
                await settle(
                    fake, client, await fake.choose(anna, lobby, menu["custom_id"], ["easy"])
                )
                menus = lobby.selects
                menu = menus[0] if menus else menu
            start = lobby.button(lambda c: c.endswith(":start"))
            assert start is not None
            await settle(fake, client, await fake.click(anna, lobby, start))
            # a second table while the first one plays: Carl's /join opens the next thread
            await settle(fake, client, await fake.slash(carl, "join"))
            assert len(fake.threads) == 2
            # and the lobby's "New table" opens a third, with Dora seated at it
            dora = fake.users[3]
            new = lobby.button(lambda c: c.endswith(":newtable"))
            assert new is not None and new.split(":")[1] == str(fake.channel_id)
            pressed = await settle(fake, client, await fake.click(dora, lobby, new))
            assert len(fake.threads) == 3
            third = max(fake.threads)
            assert f"<#{third}>" in pressed.ephemeral_messages[0].content
            seated = service.router.tables[f"discord:{third}"].seats
            assert [s.name for s in seated] == ["Dora"]
            await play_by_buttons(fake, client, service, [anna, ben], where=thread)
            await asyncio.wait_for(client.wait_idle(), 10)
            shown = fake.channel_messages(thread)
            assert "Game 1 is over" in shown[-1].content
            assert len(shown) <= 3  # the lobby, the board, the result
            assert fake.channel_messages() == []  # nothing buries the channel's chat
            assert f"discord:{fake.channel_id}" not in service.router.tables
    finally:
        await service.close()
    assert fake.violations == []


async def test_joins_at_the_same_moment_in_a_channel_open_one_thread(fake: FakeDiscord) -> None:
    """Four people type /join in the channel at once: one thread, one table of four (the
    thread is decided under a lock per channel, and a thread whose table has no lobby yet
    is the one being opened)."""
    service = Service.in_memory(seed=6)
    try:
        async with running(DiscordAdapter(service, board_interval=0.05, threads=True)) as client:
            pressed = await asyncio.gather(*(fake.slash(u, "join") for u in fake.users[:4]))
            for interaction in pressed:
                await settle(fake, client, interaction)
            [thread] = fake.threads
            table = service.router.tables[f"discord:{thread}"]
            assert sorted(s.name for s in table.seats) == ["Anna", "Ben", "Carl", "Dora"]
    finally:
        await service.close()
    assert fake.violations == []


async def test_joins_are_acknowledged_while_their_thread_is_still_being_opened(
    fake: FakeDiscord,
) -> None:
    """Opening a thread can take longer than Discord's 3 s (a 429 on its route, a 502): the
    /join that opens it, and a /join that waits for it, are acknowledged before (found by
    bench/discord.py: a /join answered after 5.3 s)."""
    service = Service.in_memory(seed=6)
    try:
        async with running(DiscordAdapter(service, board_interval=0.05, threads=True)) as client:
            held = fake.stall(lambda c: c.method == "POST" and c.path.endswith("/threads"))
            anna, ben = fake.users[:2]
            first = await fake.slash(anna, "join")
            await fake.wait_answered(first)
            second = await fake.slash(ben, "join")
            await fake.wait_answered(second)
            assert (first.response_type, second.response_type) == (5, 5)  # deferred
            assert not fake.threads, "the thread is still being opened"
            held.set()
            for interaction in (first, second):
                await settle(fake, client, interaction)
            [thread] = fake.threads
            table = service.router.tables[f"discord:{thread}"]
            assert sorted(s.name for s in table.seats) == ["Anna", "Ben"]
            assert any(f"<#{thread}>" in m.content for m in first.ephemeral_messages)
    finally:
        await service.close()
    assert fake.violations == []


def stall_first_ack(fake: FakeDiscord) -> asyncio.Event:
    """Hold the next interaction callback (an acknowledgement) until the gate is set."""
    armed = [True]

    def first(call: Call) -> bool:
        hit = armed[0] and call.path.endswith("/callback")
        armed[0] = armed[0] and not hit
        return hit

    return fake.stall(first)


async def test_one_person_s_presses_reach_the_table_in_the_order_they_came(
    fake: FakeDiscord,
) -> None:
    """Each press is acknowledged before it goes to the host, and the acknowledgements may
    end in another order than the presses came: Ben's lobby "join" whose acknowledgement
    hangs a while, then his "leave", leave him unseated (before, the "leave" overtook the
    "join" and he was left seated). A press stuck longer holds his next one up at most
    ``PRESS_ORDER_S``."""
    service = Service.in_memory(seed=6)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            anna, ben = fake.users[:2]
            await settle(fake, client, await fake.slash(anna, "join"))
            lobby = lobby_of(fake, client)
            join = lobby.button(lambda c: c.endswith(":join"))
            leave = lobby.button(lambda c: c.endswith(":leave"))
            assert join is not None and leave is not None
            held = stall_first_ack(fake)
            joined = await fake.click(ben, lobby, join)
            await asyncio.sleep(0.1)  # (the join's acknowledgement hangs)
            left = await fake.click(ben, lobby, leave)
            await asyncio.sleep(0.3)
            table = service.router.tables[channel]
            assert [s.name for s in table.seats] == ["Anna"], "the leave waits for the join"
            held.set()
            for interaction in (joined, left):
                await settle(fake, client, interaction)
            assert [s.name for s in table.seats] == ["Anna"]
            # a press whose acknowledgement does not end holds the next one up only so long
            held = stall_first_ack(fake)
            stuck = await fake.click(ben, lobby, join)
            await asyncio.sleep(0.1)
            await fake.click(ben, lobby, join)
            came = time.monotonic()
            while len(table.seats) < 2 and time.monotonic() - came < PRESS_ORDER_S + 3:
                await asyncio.sleep(0.05)
            assert sorted(s.name for s in table.seats) == ["Anna", "Ben"]
            assert time.monotonic() - came > PRESS_ORDER_S - 0.5, "it waited for the stuck one"
            assert stuck.response_type is None
            held.set()
            await settle(fake, client, stuck)
    finally:
        await service.close()


@pytest.mark.long
async def test_a_table_of_five_plays_a_series_and_the_board_says_who_sits_out(
    fake: FakeDiscord,
) -> None:
    # RULES §12.9 through the fake: three people and two computer players at five seats;
    # each game the dealer sits out (the last seat first, then Anna).
    anna, ben, carl = fake.users[:3]
    service = Service.in_memory(seed=6)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            await settle(fake, client, await fake.slash(anna, "join"))
            five = {"name": "seats", "value": "5"}
            await settle(fake, client, await fake.slash(anna, "option", five))
            lobby = lobby_of(fake, client)
            join = lobby.button(lambda c: c.endswith(":join"))
            assert join is not None
            for person in (ben, carl):
                await settle(fake, client, await fake.click(person, lobby, join))
            [menu] = lobby.selects
            await settle(fake, client, await fake.choose(anna, lobby, menu["custom_id"], ["easy"]))
            # the lobby shows five seats, one of them free
            assert "5. free" in lobby.embed_text
            assert "4 of 5 seats taken" in lobby.embed_text
            [menu] = lobby.selects
            await settle(
                fake, client, await fake.choose(anna, lobby, menu["custom_id"], ["random"])
            )
            table = service.router.tables[channel]
            assert len(table.seats) == 5 and lobby.selects == []
            start = lobby.button(lambda c: c.endswith(":start"))
            assert start is not None
            await settle(fake, client, await fake.click(anna, lobby, start))
            people = [anna, ben, carl]
            for number, out in ((1, "Bot2"), (2, "Anna")):
                assert table.game_number == number and table.sitting_out() == [out]
                board = [m for m in fake.channel_messages() if m.embeds][-1]
                assert f"Sitting out: {out}" in board.embed_text
                away = next((p for p in people if p.name == out), None)
                before = len(fake.private_messages(away)) if away is not None else 0
                players = [p for p in people if p is not away]
                await play_by_buttons(fake, client, service, players)
                await asyncio.wait_for(client.wait_idle(), 10)
                if away is not None:  # nothing private reached the one who sat out
                    assert len(fake.private_messages(away)) == before
                result = fake.channel_messages()[-1]
                assert f"Game {number} is over" in result.content
                if number < 2:
                    after = result.button(lambda c: c.endswith(":start"))
                    assert after is not None
                    await settle(fake, client, await fake.click(anna, result, after))
            results = [r.as_json() for r in table.finished]
            assert [r["sitting_out"] for r in results] == [["Bot2"], ["Anna"]]
            assert all(sum(r["scores"].values()) == 0 for r in results)
            score = fake.channel_messages()[-1].button(lambda c: c.endswith(":score"))
            assert score is not None
            shown = await settle(
                fake, client, await fake.click(ben, fake.channel_messages()[-1], score)
            )
            assert any("out: sat out this game" in m.content for m in shown.ephemeral_messages)
    finally:
        await service.close()
    assert fake.violations == []


async def test_a_hint_button_answers_privately_and_keeps_the_panel(fake: FakeDiscord) -> None:
    """Where the table gives hints the panel has a Hint button; its answer is a message only
    the presser sees, and the panel keeps its buttons (a hint answers no prompt)."""
    anna = fake.users[0]
    service = Service.in_memory(seed=4, options=TableOptions(hints=True))
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            panel = await panel_in_a_game(fake, client, anna)
            hint = panel.button(lambda c: c.endswith(":hint"))
            assert hint is not None, panel.custom_ids
            before = list(panel.custom_ids)
            pressed = await settle(fake, client, await fake.click(anna, panel, hint))
            [answer] = [m for m in pressed.ephemeral_messages if m is not panel]
            assert answer.ephemeral and answer.content.startswith("Hint: "), answer.content
            assert panel.custom_ids == before
    finally:
        await service.close()
    assert fake.violations == []
