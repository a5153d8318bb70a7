"""The bot loses a permission in a table's channel mid-game: it says so once, in the channel
while it may still write there, else by DM to the server's owner (who can grant it); the
game goes on in the players' "My cards" panels."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from dokobot.adapters.discord import DiscordAdapter
from dokobot.host.i18n import text
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import Call, FakeDiscord, Message, running
from discord_fake.harness import make_client, panel_in_a_game
from discord_fake.server import ALL_PERMISSIONS, EMBED_LINKS, SEND_MESSAGES


async def _play_after_losing(fake: FakeDiscord, lost: int) -> None:
    """Anna and three computer players start a game; the bot loses ``lost`` in the channel;
    Anna declares and plays three cards from her panel (the board cannot follow)."""
    anna = fake.users[0]
    service = Service(Router(seed=4, bot_factory=default_bot_factory()))
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            panel = await panel_in_a_game(fake, client, anna)
            fake.bot_permissions = ALL_PERMISSIONS & ~lost
            for want in (":healthy", ":play ", ":play ", ":play "):
                await _press(fake, service, panel, want)
            # the board keeps trying (with longer and longer pauses)
            await fake.wait_for(lambda: len(_refused_boards(fake)) >= 3, timeout=10)
    finally:
        await service.close()


def _refused_boards(fake: FakeDiscord) -> list[Call]:
    return [c for c in fake.calls if c.status == 403 and c.body and "embeds" in c.body]


async def _press(fake: FakeDiscord, service: Service, panel: Message, want: str) -> None:
    """Anna presses ``want`` in her panel (the board, retrying, keeps the adapter busy)."""
    await fake.wait_for(lambda: panel.button(lambda c: want in c) is not None, timeout=10)
    button = panel.button(lambda c: want in c)
    assert button is not None
    await fake.wait_answered(await fake.click(fake.users[0], panel, button))
    await asyncio.wait_for(service.idle(), 10)


async def test_without_send_messages_the_server_owner_is_told_once_by_dm(
    fake: FakeDiscord,
) -> None:
    await _play_after_losing(fake, SEND_MESSAGES)
    owner = fake.owner
    notice = text("en", "discord.board_forbidden_owner").format(channel=f"<#{fake.channel_id}>")
    assert [m.content for m in fake.dms(owner)] == [notice]
    said = text("en", "discord.board_forbidden")
    assert all(m.content != said for m in fake.channel_messages())


async def test_without_embed_links_the_channel_is_told_once(fake: FakeDiscord) -> None:
    await _play_after_losing(fake, EMBED_LINKS)
    said = text("en", "discord.board_forbidden")
    assert [m.content for m in fake.channel_messages() if m.content == said] == [said]
    assert fake.dms(fake.owner) == []
