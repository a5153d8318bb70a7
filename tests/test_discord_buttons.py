"""Buttons that never fail, and the board: the Discord adapter against the fake Discord.

Each numbered defect of issue 11 has a test here that failed before the fix:
1. a 429 on the table channel delayed the answer to a click beyond Discord's 3 seconds;
2. old prompts kept live buttons, and a stale press was accepted whenever it was legal;
3. a game put one channel message per batch (57 in a traced game) into the channel.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

import discord
import pytest

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.interaction import _Prompt
from dokobot.host.events import Choice, Event, Input, Private, Public
from dokobot.host.prompts import shown_cards
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import sorted_hand
from dokobot.render import HandPicture, hand_png

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, Interaction, Message, running
from discord_fake.harness import (
    ScriptedService,
    make_client,
    open_my_cards,
    seat_with_bots,
    settle,
)


def choice_ids(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


# -- defect 1 ----------------------------------------------------------------------------------


async def test_a_429_on_the_channel_never_delays_the_answer_to_a_click(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]

    def script(inp: Input) -> list[Event]:
        return [Public(ch, f"{inp.name} plays ♣Q"), Public(ch, "Ben's turn.")]

    service = ScriptedService(script)
    turn = (Choice("♣Q", "/play CQ"), Choice("♠A", "/play SA"))
    async with running(make_client(service, prompts_default="dm")) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        await service.listener([Private(ch, f"discord:{anna.id}", "Your turn.", turn, kind="turn")])
        await asyncio.wait_for(client.wait_idle(), 5)
        [prompt] = fake.dms(anna)
        # the next message into the table channel gets a 429 with retry_after 3.2 s
        fake.inject_429(fake.is_channel_send, retry_after=3.2)
        click = await fake.click(anna, prompt, prompt.custom_ids[0])
        await fake.wait_answered(click, timeout=2)
        assert click.answered_after is not None and click.answered_after < 1.0
        assert click.response_type == 6  # acknowledged at once, the prompt edited: used up
        await fake.wait_for(lambda: prompt.custom_ids == [], timeout=1.0)  # not after the 429
        assert prompt.content.endswith("→ ♣Q")
        await asyncio.wait_for(client.wait_idle(), 10)
    assert len(fake.rate_limited) == 1
    assert [m.content for m in fake.channel_messages()] == ["Anna plays ♣Q\nBen's turn."]
    assert fake.violations == []


# -- defect 2 ----------------------------------------------------------------------------------


class Table:
    """Four members at a real host; every prompt comes by DM with a decision marker."""

    def __init__(self, fake: FakeDiscord, client: DiscordAdapter, service: Service) -> None:
        self.fake = fake
        self.client = client
        self.service = service
        self.channel = f"discord:{fake.channel_id}"

    @property
    def game(self) -> Any:
        return self.service.router.tables[self.channel].game

    def member(self, seat: int) -> FakeUser:
        user = self.service.router.tables[self.channel].seats[seat].user
        return next(u for u in self.fake.users if f"discord:{u.id}" == user)

    def prompt(self, user: FakeUser) -> Message:
        """The newest prompt (DM or ephemeral) of ``user`` with live buttons."""
        live = [m for m in self.fake.private_messages(user) if choice_ids(m)]
        assert live, f"{user.name} has no prompt"
        return live[-1]

    async def click(self, user: FakeUser, message: Message, custom_id: str) -> Interaction:
        return await settle(self.fake, self.client, await self.fake.click(user, message, custom_id))

    async def slash(self, user: FakeUser, name: str, options: dict[str, Any] | None = None) -> Any:
        return await settle(self.fake, self.client, await self.fake.slash(user, name, options))

    async def through_reservations(self) -> None:
        while self.game.phase.name == "RESERVATIONS":
            user = self.member(self.game.turn)
            prompt = self.prompt(user)
            healthy = next(c for c in prompt.custom_ids if c.endswith(":healthy"))
            await self.click(user, prompt, healthy)


async def test_old_prompts_lose_their_buttons_and_a_stale_press_changes_nothing(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Service(Router(seed=5))
    try:
        async with running(make_client(service, prompts_default="dm")) as client:
            assert isinstance(client, DiscordAdapter)
            table = Table(fake, client, service)
            for user in fake.users:
                await table.slash(user, "join")
            await table.slash(fake.users[0], "start")
            await table.through_reservations()
            # custom_ids carry table, game and decision: doko:<channel>:<game>.<decision>:cmd
            first = table.member(table.game.turn)
            prompt = table.prompt(first)
            assert all(c.startswith(f"doko:{fake.channel_id}:1.4:") for c in choice_ids(prompt))
            # one whole round: everybody plays with /play, not with the DM's buttons, so every
            # DM prompt is superseded by a move made elsewhere
            old: dict[int, Message] = {}
            for _ in range(4):
                user = table.member(table.game.turn)
                prompt = table.prompt(user)
                old[user.id] = prompt
                card = choice_ids(prompt)[0].rsplit("play ", 1)[1]
                before = len(table.game.log)
                await table.slash(user, "play", {"card": card})
                assert len(table.game.log) == before + 1
                assert prompt.custom_ids == []  # superseded: its buttons are gone
            # a stale press whose card is legal again: refused, ephemerally, nothing changes
            stale_press = None
            for _ in range(40):
                user = table.member(table.game.turn)
                current = {c.split(":", 3)[3] for c in choice_ids(table.prompt(user))}
                stale = [c for c in old[user.id].first_custom_ids if c.split(":", 3)[3] in current]
                if stale:
                    stale_press = (user, stale[0])
                    break
                prompt = table.prompt(user)
                old[user.id] = prompt
                await table.click(user, prompt, choice_ids(prompt)[0])
            assert stale_press is not None, "no stale card became legal again"
            user, custom_id = stale_press
            log_before = list(table.game.log)
            press = await settle(
                fake, client, await fake.click(user, old[user.id], custom_id, stale=True)
            )
            assert table.game.log == log_before
            assert press.response_type == 6  # acknowledged at once, answered by a follow-up
            [answer] = press.ephemeral_messages
            assert "no longer current" in answer.content
            # the current prompt still works; the press's message is read into a View once
            # (by discord.py, to route it: the adapter looks at its components as they came)
            views = []
            from_message = discord.ui.View.from_message.__func__  # type: ignore[attr-defined]

            def counted(cls: type[discord.ui.View], *args: Any, **kwargs: Any) -> Any:
                views.append(args[0])
                return from_message(cls, *args, **kwargs)

            monkeypatch.setattr(discord.ui.View, "from_message", classmethod(counted))
            prompt = table.prompt(user)
            await table.click(user, prompt, choice_ids(prompt)[0])
            assert len(table.game.log) == len(log_before) + 1
            assert len(views) == 1
            # every DM prompt but the newest of each member has lost its buttons
            for member in fake.users:
                live = [m for m in fake.private_messages(member) if choice_ids(m)]
                assert len(live) <= 1, (member.name, [m.content for m in live])
    finally:
        await service.close()
    assert fake.violations == []


# -- defect 3: one board per game --------------------------------------------------------------


async def play_with_buttons(fake: FakeDiscord, client: DiscordAdapter, service: Service) -> int:
    """Anna answers every prompt with its first button until the game is over; clicks."""
    anna = fake.users[0]
    channel = f"discord:{fake.channel_id}"
    for clicks in range(200):
        await asyncio.wait_for(service.idle(), 10)
        await asyncio.wait_for(client.wait_idle(), 10)
        game = service.router.tables[channel].game
        if game.phase.name == "FINISHED":
            return clicks
        live = [m for m in fake.private_messages(anna) if choice_ids(m)]
        assert live, "Anna has no prompt"
        prompt = live[-1]
        choice = next(
            (c for c in choice_ids(prompt) if c.endswith(":healthy") or ":play " in c),
            choice_ids(prompt)[0],
        )
        await settle(fake, client, await fake.click(anna, prompt, choice))
    raise AssertionError("the game did not end")


async def test_a_game_is_one_board_edited_in_place_and_a_result(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=11)
    try:
        async with running(
            make_client(service, board_interval=0.2, prompts_default="dm")
        ) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            before = len(fake.channel_messages())
            await settle(fake, client, await fake.slash(anna, "start"))
            clicks = await play_with_buttons(fake, client, service)
            assert clicks >= 12
            await asyncio.wait_for(client.wait_idle(), 10)
    finally:
        await service.close()
    game_messages = fake.channel_messages()[before:]
    boards = [m for m in game_messages if m.embeds]
    assert len(boards) == 1 and len(game_messages) <= 4, [m.content for m in game_messages]
    board = boards[0]
    # the board: one "My cards" button, the latest state, edited in place
    assert [b["label"] for b in board.buttons] == ["My cards"]
    assert 1 <= board.edits <= 60
    assert "Game 1" in board.embed_text and "Game over" in board.embed_text
    assert ("table.png", True) in [(name, data[:4] == b"\x89PNG") for name, data in board.files]
    # coalesced: no two edits of the board closer than the interval, but for a trick taken
    # or the end of the game (at most 12 + 1 of them) and Anna's moves while the board named
    # her (at most 13: 12 cards and her reservation), and never an identical edit
    edits = [c for c in fake.calls if c.method == "PATCH" and c.path.endswith(f"/{board.id}")]
    assert len(edits) == board.edits
    gaps = [b.at - a.at for a, b in itertools.pairwise(edits)]
    assert sum(gap < 0.18 for gap in gaps) <= 12 + 1 + 13, gaps
    shown = [(c, e) for c, e in zip(board.history, board.embed_history, strict=True)]
    assert all(a != b for a, b in itertools.pairwise(shown))
    # the picture is uploaded only when its cards changed
    uploads = [c for c in edits if c.files]
    assert len(uploads) < len(edits)
    # the result stays readable as a message of its own
    assert "Game 1 is over" in game_messages[-1].content
    # no hand reaches the channel: the board only shows cards that were played
    hands = [m.content for m in fake.private_messages(anna) if m.content.startswith("Your hand")]
    assert hands
    for embeds in board.embed_history:
        for embed in embeds:
            assert "Your hand" not in str(embed)
    assert fake.violations == []


# -- "My cards" ----------------------------------------------------------------------------------


async def test_my_cards_is_one_picture_with_buttons_kept_up_to_date_until_its_token_ends(
    fake: FakeDiscord,
) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=4)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(make_client(service, token_life=4.0, prompts_default="dm")) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            here = await settle(fake, client, await fake.slash(anna, "prompts", {"where": "here"}))
            assert "My cards" in here.ephemeral_messages[0].content
            await settle(fake, client, await fake.slash(anna, "start"))
            _, opened = await open_my_cards(fake, client, anna)
            [panel] = opened.ephemeral_messages
            assert (
                panel.content.startswith("Your hand") and "Kept up to date until" in panel.content
            )
            assert [name for name, _ in panel.files] == ["hand.png"]
            assert panel.files[0][1][:4] == b"\x89PNG"
            # Anna is first hand: the reservation buttons are in the panel
            healthy = panel.button(lambda c: c.endswith(":healthy"))
            assert healthy is not None
            dms_before = len(fake.dms(anna))
            await settle(fake, client, await fake.click(anna, panel, healthy))
            await asyncio.wait_for(service.idle(), 10)
            await asyncio.wait_for(client.wait_idle(), 10)
            game = service.router.tables[channel].game
            # the computer players moved; Anna's turn came into the same panel, not by DM
            assert game.turn == 0 and game.phase.name == "PLAYING"
            card = panel.button(lambda c: ":play " in c)
            assert card is not None, panel.content
            assert card.split(":")[2] == f"1.{client.decisions.current(fake.channel_id)[1]}"
            assert panel.edits >= 2 and len(fake.dms(anna)) == dms_before
            # the picture is her whole hand now, not only the cards she may play
            shown = shown_cards(game, sorted_hand(game, game.hands[0]))
            legal = tuple([c for c in shown.cards if game.legal_cards(0) >> c & 1])
            picture = HandPicture(shown.cards, shown.groups, legal, "en")
            assert panel.files == [("hand.png", hand_png(picture))]
            await settle(fake, client, await fake.click(anna, panel, card))
            assert card not in panel.custom_ids  # used up (or already her next turn)
            # a press in the panel renews its token: after the first token ran out, her next
            # prompt still comes into the panel, not by DM
            await asyncio.sleep(4.0)
            await asyncio.wait_for(service.idle(), 10)
            await asyncio.wait_for(client.wait_idle(), 10)
            card = panel.button(lambda c: ":play " in c)
            assert card is not None
            await settle(fake, client, await fake.click(anna, panel, card))
            await asyncio.wait_for(service.idle(), 10)
            await asyncio.wait_for(client.wait_idle(), 10)
            assert panel.button(lambda c: ":play " in c) is not None, panel.content
            assert not [m for m in fake.dms(anna) if choice_ids(m)]
    finally:
        await service.close()
    assert fake.violations == []


async def test_images_off_keeps_the_board_text_only(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=11)
    try:
        async with running(make_client(service, prompts_default="dm")) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            off = {"name": "images", "value": "off"}
            await settle(fake, client, await fake.slash(anna, "option", off))
            await settle(fake, client, await fake.slash(anna, "start"))
            await play_with_buttons(fake, client, service)
            await asyncio.wait_for(client.wait_idle(), 10)
            board, panel = await open_my_cards(fake, client, anna)
    finally:
        await service.close()
    assert board.edits > 0 and board.files == []
    assert all("image" not in e for embeds in board.embed_history for e in embeds)
    assert any("Trick" in str(embeds) for embeds in board.embed_history[1:])
    assert all(m.files == [] for m in panel.ephemeral_messages)
    assert fake.violations == []


async def test_a_deferred_my_cards_panel_is_updated_in_itself_never_in_the_board(
    fake: FakeDiscord,
) -> None:
    """After a deferred click the "original response" is the message the button sits on
    (the public board): updating the panel must edit the panel's own follow-up."""
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]

    class Slow(ScriptedService):
        async def handle(self, inp: Input) -> list[Event]:
            await asyncio.sleep(0.3)
            return await super().handle(inp)

    def script(inp: Input) -> list[Event]:
        if inp.text == "/hand":
            return [Private(ch, inp.user, "Your hand: ♣Q ♠A", reply=True, kind="hand")]
        return [Public(ch, "A game starts.")]

    service = Slow(script)
    async with running(make_client(service, defer_after=0.05)) as client:
        assert isinstance(client, DiscordAdapter)
        await settle(fake, client, await fake.slash(anna, "join"))
        table = fake.channel_messages()[-1]
        my_cards = table.button(lambda c: c.endswith(":hand"))
        assert my_cards is not None
        click = await settle(fake, client, await fake.click(anna, table, my_cards))
        assert click.response_type == 6  # deferred: the panel is a follow-up
        [panel] = click.followups
        public_before = table.content
        assert service.listener is not None
        turn = (Choice("♠A", "/play SA"),)
        await service.listener(
            [Private(ch, f"discord:{anna.id}", "Your turn: ♠A", turn, kind="turn")]
        )
        await asyncio.wait_for(client.wait_idle(), 5)
    assert panel.content.startswith("Your turn: ♠A") and panel.custom_ids
    assert table.content == public_before and "Your" not in "".join(table.history)
    assert fake.violations == []


async def test_a_pressed_house_rule_button_is_used_up_like_a_card(fake: FakeDiscord) -> None:
    # Issue 14: the commands that answer a prompt are declared (Command.answers_prompt);
    # before, a pressed Poverty (Throw in, Take, Decline, a card to give) kept its buttons.
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]
    service = ScriptedService(lambda inp: [Public(ch, f"{inp.name}: poverty")])
    asked = (Choice("Poverty", "/poverty"), Choice("Solo", "/solo queens"))
    async with running(make_client(service, prompts_default="dm")) as client:
        assert service.listener is not None
        await service.listener([Private(ch, f"discord:{anna.id}", "Your reservation?", asked,
                                        kind="reservation")])  # fmt: skip
        await asyncio.wait_for(client.wait_idle(), 5)
        [prompt] = fake.dms(anna)
        click = await fake.click(anna, prompt, prompt.custom_ids[0])
        await fake.wait_answered(click, timeout=2)
        assert click.response_type == 6  # acknowledged at once, the prompt edited: used up
        await fake.wait_for(lambda: prompt.custom_ids == [], timeout=2.0)
        assert prompt.content.endswith("→ Poverty")
        await asyncio.wait_for(client.wait_idle(), 10)
    assert fake.violations == []


async def test_a_used_prompt_is_forgotten_in_its_users_list_without_touching_the_others() -> None:
    """A press looks at the presser's prompts at his table, not at every user's (a press
    would cost more with every table); a prompt kept elsewhere is still found."""
    client = make_client(ScriptedService(lambda inp: []))
    delivery = client.delivery

    async def strip() -> None:
        return None

    def prompt(message_id: int, decision: int) -> _Prompt:
        return _Prompt((1, decision), message_id, strip, 0.0)

    for n in range(50):
        delivery.add_prompt(100 + n, 200 + n, prompt(n, n))
    delivery.add_prompt(100, 200, prompt(1000, 0))  # a copy of the same decision: both kept
    assert len(delivery._prompts[(100, 200)]) == 2
    others = {key: delivery._prompts[key] for key in list(delivery._prompts) if key != (100, 200)}
    delivery.forget_prompt(0, 100, 200)
    assert [p.message_id for p in delivery._prompts[(100, 200)]] == [1000]
    assert all(delivery._prompts.get(key) is kept for key, kept in others.items())
    delivery.forget_prompt(7, 100, 200)  # not under this user: looked for everywhere
    assert (107, 207) not in delivery._prompts and len(delivery._prompts) == 49
