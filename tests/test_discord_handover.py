"""Issue 37, item 8 on Discord: once a computer player stands in for a person, the board
offers the others a button to vote on giving that seat away (``/handover``), and the slash
command does the same."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.options import TableOptions
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, running
from discord_fake.harness import settle


async def test_a_button_and_the_slash_command_give_an_absent_persons_seat_away(
    fake: FakeDiscord,
) -> None:
    anna, ben, carl = fake.users[0], fake.users[1], fake.users[2]
    service = Service.in_memory(seed=4, options=TableOptions(turn_timeout=1))
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(DiscordAdapter(service, board_interval=0.05)) as client:
            for person in (anna, ben, carl):
                await settle(fake, client, await fake.slash(person, "join"))
            await settle(fake, client, await fake.slash(anna, "join", {"bot": True}))
            await settle(fake, client, await fake.slash(anna, "start"))
            table = service.router.tables[channel]
            game = table.game
            assert game is not None and game.turn == 0  # Anna's turn: she does nothing
            board = next(m for m in fake.channel_messages() if m.button(lambda c: ":hand" in c))
            assert board.button(lambda c: ":handover " in c) is None  # nobody absent yet
            await fake.wait_for(lambda: 0 in table.away, timeout=6)
            await fake.wait_for(lambda: board.button(lambda c: ":handover " in c), 5)
            vote = board.button(lambda c: ":handover " in c)
            assert vote is not None
            label = next(b["label"] for b in board.buttons if b["custom_id"] == vote)
            assert label == "Vote: seat of Anna to the computer"
            await settle(fake, client, await fake.click(ben, board, vote))
            assert table.seat_vote is not None and table.seats[0].user == f"discord:{anna.id}"
            await settle(fake, client, await fake.slash(carl, "handover", {"player": "Anna"}))
            assert table.seat_vote is None
            assert table.seats[0].is_bot and table.seats[0].standin_for == f"discord:{anna.id}"
            await fake.wait_for(lambda: "gave the seat of Anna to the" in board.embed_text, 5)
            # the seat is the computer player's: the vote button is gone from the board
            await asyncio.wait_for(service.idle(), 10)
            await fake.wait_for(lambda: board.button(lambda c: ":handover " in c) is None, 5)
    finally:
        await service.close()
    assert fake.violations == []
