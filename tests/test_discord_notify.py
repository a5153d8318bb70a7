"""Who is notified on Discord, and the thread of a table: one ping per turn that waits for a
person (deleted once he moved), also after his client lost the "My cards" panel (a reload);
seated players added to the thread once; an archived thread; a burst of panel edits inside
the interaction token's own rate-limit bucket."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.board import BoardView
from dokobot.host.events import Board, Choice, Private
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, Interaction, Message, running
from discord_fake.harness import ScriptedService, make_client, settle

DAY = 24 * 3600.0


async def pressed(
    fake: FakeDiscord, client: DiscordAdapter, interaction: Interaction
) -> Interaction:
    """``settle`` with room for a loaded machine."""
    await fake.wait_answered(interaction, 15)
    await asyncio.wait_for(client.wait_idle(), 15)
    return interaction


def prompt_buttons(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


def pick(message: Message) -> str:
    buttons = prompt_buttons(message)
    return next((c for c in buttons if c.endswith(":healthy") or ":play " in c), buttons[0])


async def her_turn(service: Service, channel: str, user: FakeUser) -> bool:
    """Wait until the game at ``channel`` waits for ``user`` (True) or is over (False)."""
    for _ in range(500):
        await asyncio.wait_for(service.idle(), 20)
        table = service.router.tables[channel]
        game = table.game
        assert game is not None
        if game.phase.name == "FINISHED":
            return False
        if table.seats[game.turn].user == f"discord:{user.id}":
            return True
        await asyncio.sleep(0.01)
    raise AssertionError("the game stands still")


async def test_one_ping_per_waiting_turn_also_after_a_reload_and_each_goes_with_the_move(
    fake: FakeDiscord,
) -> None:
    """Anna plays a whole game with three computer players and acts only on what notifies
    her; after each move her client reloads (the panel is gone, the bot does not know). She
    gets exactly one notification per turn (the board's first post for the first), each
    ping is deleted after her move, and a computer never stands in for her."""
    anna = fake.users[0]
    service = Service.in_memory(seed=11)
    channel = f"discord:{fake.channel_id}"
    try:
        client = make_client(service, ping_grace=0.2)
        async with running(client):
            await settle(fake, client, await fake.slash(anna, "join"))
            for _ in range(3):
                await settle(fake, client, await fake.slash(anna, "join", {"bot": True}))
            await settle(fake, client, await fake.slash(anna, "start"))
            turns = 0
            while await her_turn(service, channel, anna):
                await fake.wait_for(lambda t=turns: len(fake.notified(anna)) > t, 15)
                await asyncio.wait_for(client.wait_idle(), 10)
                assert len(fake.notified(anna)) == turns + 1  # exactly one for this turn
                note = fake.notified(anna)[-1]
                assert not note.deleted
                my_cards = note.button(lambda c: c.endswith(":hand"))
                assert my_cards is not None
                opened = await pressed(fake, client, await fake.click(anna, note, my_cards))
                [panel] = [m for m in opened.ephemeral_messages if prompt_buttons(m)]
                await pressed(fake, client, await fake.click(anna, panel, pick(panel)))
                turns += 1
                fake.reload(anna)
                if note.embeds:  # the board's first post stays
                    continue
                await fake.wait_for(lambda n=note: n.deleted, 15)
            table = service.router.tables[channel]
            assert turns >= 12 and not table.away
            assert len(fake.notified(anna)) == turns
            pings = fake.notified(anna)[1:]
            assert all(p.deleted and anna.mention in p.history[0] for p in pings)
            assert fake.notified(anna)[0].embeds  # the first: the board's post
    finally:
        await service.close()
    assert fake.violations == []


async def test_seated_players_are_added_to_the_thread_once(fake: FakeDiscord) -> None:
    anna, ben = fake.users[0], fake.users[1]
    service = Service.in_memory(seed=6)
    try:
        async with running(make_client(service, threads=True)) as client:
            await settle(fake, client, await fake.slash(anna, "join"))
            [thread] = fake.threads
            await settle(fake, client, await fake.slash(ben, "join"))
            assert fake.thread_members(thread) >= {anna.id, ben.id}
            for _ in range(2):
                await settle(fake, client, await fake.slash(anna, "join", {"bot": True}))
            await settle(fake, client, await fake.slash(anna, "start", channel_id=thread))
            await settle(fake, client, await fake.slash(ben, "table", channel_id=thread))
            adds = [c.path.rsplit("/", 1)[1] for c in fake.calls if "/thread-members/" in c.path]
            assert sorted(adds) == sorted([str(anna.id), str(ben.id)])  # once each
            assert all(c.status == 204 for c in fake.calls if "/thread-members/" in c.path)
    finally:
        await service.close()
    assert fake.violations == []


async def test_an_archived_thread_gets_a_fresh_lobby_and_its_table_goes_on(
    fake: FakeDiscord,
) -> None:
    """A day without a new message archives a table's thread (edits do not count). The
    next /join in the channel goes to that table: its lobby edit is refused (50083), so a
    fresh lobby is posted, which unarchives the thread."""
    anna, ben = fake.users[0], fake.users[1]
    service = Service.in_memory(seed=6)
    try:
        async with running(make_client(service, threads=True)) as client:
            await settle(fake, client, await fake.slash(anna, "join"))
            [thread] = fake.threads
            lobby = client.lobbies.message(thread)
            fake.advance(DAY + 60)
            assert fake.archived(thread)
            joined = await settle(fake, client, await fake.slash(ben, "join"))
            assert f"<#{thread}>" in joined.ephemeral_messages[0].content
            refused = [c for c in fake.calls if c.status == 400 and c.response["code"] == 50083]
            assert refused, "the lobby's edit should meet the archived thread"
            assert not fake.archived(thread)
            fresh = client.lobbies.message(thread)
            assert fresh is not None and fresh != lobby
            assert "Ben" in fake.messages[fresh].embed_text
            table = service.router.tables[f"discord:{thread}"]
            assert [s.name for s in table.seats] == ["Anna", "Ben"]
            # an edit alone does not keep a thread active
            fake.advance(DAY + 60)
            assert fake.archived(thread)
    finally:
        await service.close()
    assert fake.violations == []


async def test_a_burst_of_panel_edits_stays_inside_the_tokens_bucket(fake: FakeDiscord) -> None:
    """Each interaction token has its own bucket (5 per 2 s on the fake, announced by its
    headers): twenty prompts in a burst to one open "My cards" panel never meet a 429, and
    the panel shows the latest."""
    ch = f"discord:{fake.channel_id}"
    anna = fake.users[0]
    turn = (Choice("♣Q", "/play CQ"),)
    service = ScriptedService(lambda inp: [])
    async with running(make_client(service)) as client:
        assert service.listener is not None
        await service.listener([Board(ch, _view(ch, 0))])
        await asyncio.wait_for(client.wait_idle(), 10)
        [board] = fake.channel_messages()
        my_cards = board.button(lambda c: c.endswith(":hand"))
        assert my_cards is not None
        await settle(fake, client, await fake.click(anna, board, my_cards))
        burst = [
            Private(ch, f"discord:{anna.id}", f"Prompt {n}.", turn, kind="turn") for n in range(20)
        ]
        await asyncio.gather(*(service.listener([p]) for p in burst))
        await asyncio.wait_for(client.wait_idle(), 30)
        webhook = [c for c in fake.calls if c.path.startswith("/webhooks/")]
        assert len(webhook) >= 20
        assert not [c for c in webhook if c.status == 429]
        [panel] = [m for m in fake.private_messages(anna) if prompt_buttons(m)]
        assert "Prompt 19." in panel.content
    assert fake.violations == []


def _view(ch: str, decision: int) -> BoardView:
    seats = ("Anna", "Ben", "Carl", "Dora")
    return BoardView(ch, 1, decision, seats=seats, dealer=0, turn=0, phase="playing",
                     trick_number=1, images=False)  # fmt: skip
