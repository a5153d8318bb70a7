"""Card faces and card rows as PNG pictures, drawn with Pillow.

A face is a white card with a dark edge (readable on Discord's dark and light themes, and on
the green table under it), the rank letter in the table's language (German: B, D; English:
J, Q) and the suit drawn as a shape in two corners, and a large suit sign in the middle:
hearts and diamonds red, clubs and spades black. Faces are drawn once per card kind and
language; rows of cards are cached by their cards, so a repeated picture costs nothing.

>>> face = card_face(10, "de")   # ♣D (a queen of clubs)
>>> face.size
(72, 104)
>>> face.getpixel((36, 52))[:3]  # the middle of a clubs sign is black
(20, 20, 20)
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw, ImageFont

WIDTH: Final = 72
HEIGHT: Final = 104
RADIUS: Final = 8
GAP: Final = 8
PAD: Final = 10
HAND_STEP: Final = 40
"""Horizontal distance of two cards of a hand (they overlap; the corner stays visible)."""

RED: Final = (200, 30, 40, 255)
BLACK: Final = (20, 20, 20, 255)
EDGE: Final = (40, 40, 40, 255)
PAPER: Final = (252, 252, 248, 255)
FELT: Final = (34, 110, 60, 255)

RANKS: Final = {"en": ("9", "J", "Q", "K", "10", "A"), "de": ("9", "B", "D", "K", "10", "A")}
CLUBS, SPADES, HEARTS, DIAMONDS = range(4)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _suit(draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float) -> None:
    """Draw a suit sign of height ``size`` centred on (cx, cy)."""
    colour = RED if suit in (HEARTS, DIAMONDS) else BLACK
    s = size / 2
    if suit == DIAMONDS:
        draw.polygon([(cx, cy - s), (cx + s * 0.75, cy), (cx, cy + s), (cx - s * 0.75, cy)], colour)
        return
    if suit == HEARTS:
        r = s * 0.52
        draw.ellipse([cx - 2 * r, cy - s, cx, cy - s + 2 * r], colour)
        draw.ellipse([cx, cy - s, cx + 2 * r, cy - s + 2 * r], colour)
        draw.polygon([(cx - 1.95 * r, cy - s + 1.25 * r), (cx + 1.95 * r, cy - s + 1.25 * r),
                      (cx, cy + s)], colour)  # fmt: skip
        return
    stem = [(cx, cy + s * 0.1), (cx + s * 0.45, cy + s), (cx - s * 0.45, cy + s)]
    if suit == SPADES:
        r = s * 0.5
        draw.polygon([(cx, cy - s), (cx + 2 * r * 0.98, cy + s * 0.15),
                      (cx - 2 * r * 0.98, cy + s * 0.15)], colour)  # fmt: skip
        draw.ellipse([cx - 2 * r, cy - s * 0.2, cx, cy - s * 0.2 + 2 * r * 0.9], colour)
        draw.ellipse([cx, cy - s * 0.2, cx + 2 * r, cy - s * 0.2 + 2 * r * 0.9], colour)
        draw.polygon(stem, colour)
        return
    r = s * 0.42  # clubs: three leaves and a stem
    draw.ellipse([cx - r, cy - s, cx + r, cy - s + 2 * r], colour)
    draw.ellipse([cx - 2.05 * r, cy - s * 0.25, cx - 0.05 * r, cy - s * 0.25 + 2 * r], colour)
    draw.ellipse([cx + 0.05 * r, cy - s * 0.25, cx + 2.05 * r, cy - s * 0.25 + 2 * r], colour)
    draw.ellipse([cx - r * 0.6, cy - s * 0.35, cx + r * 0.6, cy + s * 0.35], colour)
    draw.polygon(stem, colour)


@lru_cache(maxsize=64)
def card_face(card: int, lang: str = "en") -> Image.Image:
    """The face of ``card`` (0..47, the engine's ids) with ``lang``'s rank letters."""
    kind = card >> 1
    suit, rank = divmod(kind, 6)
    letters = RANKS.get(lang, RANKS["en"])
    colour = RED if suit in (HEARTS, DIAMONDS) else BLACK
    img = Image.new("RGBA", (WIDTH, HEIGHT), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle([0, 0, WIDTH - 1, HEIGHT - 1], RADIUS, fill=PAPER, outline=EDGE, width=2)
    font = _font(20)
    label = letters[rank]
    draw.text((7, 4), label, font=font, fill=colour)
    _suit(draw, suit, 14, 36, 14)
    corner = Image.new("RGBA", (WIDTH, HEIGHT), (0, 0, 0, 0))
    cdraw = ImageDraw.Draw(corner)
    cdraw.text((7, 4), label, font=font, fill=colour)
    _suit(cdraw, suit, 14, 36, 14)
    img.alpha_composite(corner.rotate(180))
    _suit(draw, suit, WIDTH / 2, HEIGHT / 2, 34)
    return img


def _png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _row(cards: Sequence[int], lang: str, step: int) -> Image.Image:
    count = max(len(cards), 1)
    width = PAD * 2 + WIDTH + step * (count - 1)
    img = Image.new("RGBA", (width, HEIGHT + PAD * 2), FELT)
    for n, card in enumerate(cards):
        img.alpha_composite(card_face(card, lang), (PAD + n * step, PAD))
    return img


@lru_cache(maxsize=512)
def trick_png(cards: tuple[int, ...], lang: str = "en") -> bytes:
    """The cards on the table, side by side, in the order played (PNG)."""
    return _png(_row(cards, lang, WIDTH + GAP))


@lru_cache(maxsize=512)
def hand_png(cards: tuple[int, ...], lang: str = "en") -> bytes:
    """A hand, fanned out left to right in the order given (PNG)."""
    return _png(_row(cards, lang, HAND_STEP))


@lru_cache(maxsize=96)
def card_png(card: int, lang: str = "en") -> bytes:
    """One card face (PNG), e.g. for the web pages."""
    return _png(card_face(card, lang))
