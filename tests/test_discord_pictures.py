"""Card pictures on Discord: each player's hand picture in his own language and deck (the
``/deck`` choice, kept by the service), the board's trick picture with the players' names."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

from PIL import Image

from dokobot import languages
from dokobot.adapters.discord import DiscordAdapter
from dokobot.adapters.discord.board_messages import trick_picture
from dokobot.host.board import board_view
from dokobot.host.prompts import shown_cards
from dokobot.host.service import Service
from dokobot.host.table import sorted_hand
from dokobot.render import HandPicture, hand_png, trick_png
from dokobot.render.layout import BOARD_ROOM

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
            assert await service.preference_of(f"discord:{anna.id}", "deck") == "four"
            # the board's picture is the trick with the players' names (the table's language)
            view = board_view(table)
            assert view is not None
            picture = trick_picture(view)
            assert picture.seats == tuple(table.names()) and picture.lang == "en"
            img = Image.open(io.BytesIO(trick_png(picture)))
            assert 2 * (4 * 72 + 3 * 8 + 20) * 0.9 <= img.width <= BOARD_ROOM
    finally:
        await service.close()
    assert fake.violations == []


async def test_card_buttons_have_their_suits_colours(fake: FakeDiscord) -> None:
    """Discord's four button styles are the four-colour deck's: ♣ green (success), ♠ grey
    (secondary, for black), ♥ red (danger), ♦ blurple (primary, for blue); they were all grey,
    and ♥ and ♦ differed only by the sign in the label."""
    anna = fake.users[0]
    service = Service.in_memory(seed=4)
    styles = {"♣": 3, "♠": 2, "♥": 4, "♦": 1}  # Discord's numbers of those styles
    try:
        async with running(make_client(service, prompts_default="dm")) as client:
            await seat_with_bots(fake, client, anna)
            await settle(fake, client, await fake.slash(anna, "prompts", {"where": "here"}))
            await settle(fake, client, await fake.slash(anna, "start"))
            _, opened = await open_my_cards(fake, client, anna)
            [panel] = opened.ephemeral_messages
            healthy = panel.button(lambda c: c.endswith(":healthy"))
            assert healthy is not None
            await settle(fake, client, await fake.click(anna, panel, healthy))
            await asyncio.wait_for(service.idle(), 10)
            await asyncio.wait_for(client.wait_idle(), 10)
            cards = [b for b in panel.buttons if ":play " in b["custom_id"]]
            assert len(cards) >= 5, panel.content
            for button in cards:
                assert button["style"] == styles[button["label"][0]], button
            assert len({b["style"] for b in cards}) >= 3  # this hand holds three suits or more
            others = [b for b in panel.buttons if ":play " not in b["custom_id"]]
            assert all(b["label"][0] not in styles for b in others)
    finally:
        await service.close()
    assert fake.violations == []


def test_the_board_fits_a_phone_with_my_cards_above_the_fold() -> None:
    """The board as a phone 360 px wide shows it (text wrapped at its width, the picture
    272 px wide in the embed, the buttons): "My cards" ends above the fold of a small phone
    (640 px high, less the message bar), also on a busy board in every language. It ended
    at about 680 px: "Latest" repeated the cards, tricks and calls, the text the picture."""
    import dataclasses

    from dokobot.adapters.discord.board import board_embed, embed_text
    from dokobot.adapters.discord.preview import FOLD, _game, board_screen

    assert FOLD == 640 - 56
    game = _game()
    screen = board_screen(game.board, game.news)
    screen.draw()
    assert 0 < screen.buttons_end <= FOLD - 80  # the docs' board, with room to spare
    busy = dataclasses.replace(
        game.board,
        seats=("Lena", "Jonas", "Sophie", "Lukas"),
        calls=((0, "re"), (1, "kontra")),
        parties=((0, "re"), (1, "kontra"), (2, "re"), (3, "kontra")),
        marks=("bock",),
        away=(3,),
        idle=True,  # the stand-in button too
    )
    news = ["A computer plays for Lukas from now on: he let two turns pass without a card."] * 3
    for lang in languages.codes():
        screen = board_screen(dataclasses.replace(busy, language=lang), news, lang)
        screen.draw()
        assert 0 < screen.buttons_end <= FOLD, (lang, screen.buttons_end)
    # nothing is said twice: the cards on the table are the picture's (its alt text says
    # them), the last trick is written only while the picture shows the next one, and
    # "Latest" holds no card, trick, turn, contract or call
    shown = embed_text(board_embed(game.board, game.news, "en", picture=True))
    assert "On the table" not in shown and "Last trick" in shown
    assert "Carl calls Kontra!" not in shown and "Normal game." not in shown
    assert "Game 1: Dora deals" in shown  # news the board says nowhere else
    between = dataclasses.replace(game.board, trick=())
    assert "Last trick" not in embed_text(board_embed(between, [], "en", picture=True))
    assert "On the table" in embed_text(board_embed(game.board, [], "en", picture=False))


async def test_the_boards_picture_says_its_cards_in_its_alt_text() -> None:
    """The embed no longer writes the cards the picture shows: screen readers read them in
    the picture's alt text (the attachment's description)."""
    import dataclasses
    from typing import Any, cast

    from dokobot.adapters.discord.board_messages import BoardMessages
    from dokobot.adapters.discord.interaction import _BoardMessage
    from dokobot.adapters.discord.preview import _game

    view = _game().board
    board = _BoardMessage(1, view)
    file = await BoardMessages._picture_file(cast(Any, None), board)
    assert file.description == "On the table: Ben ♣J  Carl ♦J  Dora ♣10"
    assert file.to_dict(0)["description"] == file.description  # sent with the upload
    board.view = dataclasses.replace(view, trick=(), language="de")
    file = await BoardMessages._picture_file(cast(Any, None), board)
    assert file.description == "Letzter Stich: ♦D ♥B ♦A ♣B → Ben"
