"""A picture Discord refuses as too large (413 Request Entity Too Large, code 40005): the
message goes without it and says so, in the reader's language; the game goes on."""

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

from discord_fake import FakeDiscord, running
from discord_fake.harness import make_client, open_my_cards, seat_with_bots, settle


async def test_my_cards_without_a_picture_too_large_for_discord(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    note = text("de", "discord.file_too_large")
    service = Service(Router(seed=4, bot_factory=default_bot_factory()))
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await settle(fake, client, await fake.slash(anna, "lang", {"language": "de"}))
            await seat_with_bots(fake, client, anna)
            await settle(fake, client, await fake.slash(anna, "start"))
            fake.upload_limit = 100  # a hand picture is a few KB: every upload is refused
            _, opened = await open_my_cards(fake, client, anna)
            # the response with the picture was refused; the panel came without it
            [refused] = fake.too_large
            # (the press is acknowledged at once: the panel is a follow-up of its token)
            assert refused.path.startswith("/webhooks/") and refused.status == 413
            assert refused.response["code"] == 40005
            [panel] = opened.ephemeral_messages
            assert panel.files == [] and panel.content.endswith(f"*{note}*")
            assert "1:" in panel.content and "Deine" in panel.content  # the hand as text
            healthy = panel.button(lambda c: c.endswith(":healthy"))
            assert healthy is not None
            # her press works, and her turn comes into the same panel, again without picture
            await settle(fake, client, await fake.click(anna, panel, healthy))
            await asyncio.wait_for(service.idle(), 10)
            await asyncio.wait_for(client.wait_idle(), 10)
            game = service.router.tables[f"discord:{fake.channel_id}"].game
            assert game is not None and game.phase.name == "PLAYING" and game.turn == 0
            assert len(fake.too_large) == 2  # the panel's edit with her turn's picture
            assert panel.button(lambda c: ":play " in c) is not None
            assert panel.files == [] and panel.content.endswith(f"*{note}*")
    finally:
        await service.close()
    assert fake.violations == []
