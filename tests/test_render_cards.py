"""Card pictures drawn by dokobot (dokobot.render): colours, letters, speed, cache."""

from __future__ import annotations

import io

from PIL import Image

from dokobot.engine.cards import card_ascii
from dokobot.render import card_face, hand_png, trick_png
from dokobot.render.cards import BLACK, FELT, HEIGHT, RED, WIDTH


def centre(card: int) -> tuple[int, ...]:
    return tuple(card_face(card, "en").getpixel((WIDTH // 2, HEIGHT // 2)))


def test_red_hearts_and_diamonds_black_clubs_and_spades() -> None:
    for card in range(0, 48, 2):
        suit = card_ascii(card)[0]
        assert centre(card) == (RED if suit in "HD" else BLACK), card_ascii(card)


def test_corner_letters_follow_the_language() -> None:
    queen = next(c for c in range(48) if card_ascii(c) == "CQ")
    nine = next(c for c in range(48) if card_ascii(c) == "C9")
    assert card_face(queen, "de").tobytes() != card_face(queen, "en").tobytes()  # D / Q
    assert card_face(nine, "de").tobytes() == card_face(nine, "en").tobytes()  # 9 / 9


def test_pictures_are_pngs_on_the_table_green() -> None:
    img = Image.open(io.BytesIO(trick_png((0, 12, 24, 36), "en")))
    assert img.format == "PNG" and img.size == (4 * WIDTH + 3 * 8 + 20, HEIGHT + 20)
    assert img.getpixel((2, 2)) == FELT  # readable on Discord's dark and light themes
    hand = Image.open(io.BytesIO(hand_png(tuple(range(0, 48, 4)), "de")))
    assert hand.width < 12 * WIDTH  # fanned out


def test_repeated_renders_are_cached_and_equal_to_fresh_ones() -> None:
    cards = (2, 4, 6)
    first = trick_png(cards, "en")
    assert trick_png(cards, "en") is first  # cached: the same bytes object
    hand = hand_png((1, 3, 40), "de")
    hand_png.cache_clear()
    assert hand_png((1, 3, 40), "de") == hand  # a fresh render draws the same picture


def test_the_readme_pictures_come_from_the_real_board() -> None:
    from dokobot.adapters.discord.preview import board_picture, hand_picture

    board = Image.open(io.BytesIO(board_picture()))
    hand = Image.open(io.BytesIO(hand_picture()))
    assert board.format == hand.format == "PNG"
    assert board.height > 300 and hand.width > WIDTH
