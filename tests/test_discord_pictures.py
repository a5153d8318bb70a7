"""Card pictures on Discord: each player's hand picture in his own language and deck (the
``/deck`` choice, kept by the service), the board's trick picture with the players' names."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.board_messages import trick_picture
from dokobot.host.board import board_view
from dokobot.host.prompts import shown_cards
from dokobot.host.service import Service
from dokobot.host.table import sorted_hand
from dokobot.render import HandPicture, hand_png, trick_png

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, running
from discord_fake.harness import make_client, open_my_cards, seat_with_bots, settle


async def test_the_hand_picture_is_in_the_players_language_and_deck(fake: FakeDiscord) -> None:
    anna = fake.users[0]
    service = Service.in_memory(seed=4)
    channel = f"discord:{fake.channel_id}"
    try:
        async with running(make_client(service)) as client:
            assert isinstance(client, DiscordAdapter)
            await seat_with_bots(fake, client, anna)
            chosen = await settle(fake, client, await fake.slash(anna, "deck", {"colours": "four"}))
            assert "four colours" in chosen.ephemeral_messages[0].content
            await settle(fake, client, await fake.slash(anna, "lang", {"language": "de"}))
            await settle(fake, client, await fake.slash(anna, "start"))
            _, opened = await open_my_cards(fake, client, anna)
            [panel] = opened.ephemeral_messages
            table = service.router.tables[channel]
            game = table.game
            assert game is not None and table.options.language == "en"
            shown = shown_cards(game, sorted_hand(game, game.hands[0]))
            mine = HandPicture(shown.cards, shown.groups, None, "de", "four")
            assert panel.files == [("hand.png", hand_png(mine))]
            english = HandPicture(shown.cards, shown.groups, None, "en", "classic")
            assert hand_png(english) != hand_png(mine)
            # the choice is kept by the service: a new adapter reads it back
            assert service.preference_of(f"discord:{anna.id}", "deck") == "four"
            # the board's picture is the trick with the players' names (the table's language)
            view = board_view(table)
            assert view is not None
            picture = trick_picture(view)
            assert picture.seats == tuple(table.names()) and picture.lang == "en"
            img = Image.open(io.BytesIO(trick_png(picture)))
            assert img.width >= 2 * (4 * 72 + 3 * 8 + 20)
    finally:
        await service.close()
    assert fake.violations == []
