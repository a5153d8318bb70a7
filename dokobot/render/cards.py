"""Card faces as pictures, drawn with Pillow at twice the size a chat shows them.

A face is a white card with a dark edge (readable on Discord's dark and light themes, and on
the green table under it): the rank letter in the reader's language (German: B, D; English:
J, Q) in the top left corner with a small suit sign under it, and a large suit sign lower
right. There is one index only, upright: no upside-down corner, so a 9 never reads as a 6,
and the small sign keeps its distance from the large one (see :data:`CORNER_SIGN`,
:data:`BIG_SIGN`). The suits' colours are the reader's choice of deck (:data:`DECKS`).

Faces are drawn once per card kind, language and deck.

>>> face = card_face(4, "de")   # ♣D (a queen of clubs)
>>> face.size
(144, 208)
>>> face.getpixel(BIG_SIGN[:2])[:3]  # green in the four-colour deck (the default)
(16, 130, 60)
>>> card_face(4, "de", "classic").getpixel(BIG_SIGN[:2])[:3]  # black in the classic deck
(20, 20, 20)
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from dokobot.engine.cards import CLUBS, DIAMONDS, HEARTS, SPADES, SUIT_SYMBOLS
from dokobot.host.i18n import card_text

WIDTH: Final = 144
"""Width of a face in pixels: twice what a chat shows (sharp on high-density phones)."""
HEIGHT: Final = 208
RADIUS: Final = 14
EDGE_WIDTH: Final = 3

INDEX_SIZE: Final = 56
"""Font size (pixels) of the rank letter in the corner."""
INDEX_INK: Final = 39
"""The least height in pixels of a corner letter's ink at :data:`INDEX_SIZE` (capitals and
digits of Pillow's font: 39 or 40; measured by the tests)."""
INDEX_AT: Final = (10, 54)
"""Left end of the corner letter's baseline."""
INDEX_WIDTH: Final = 70
"""The widest corner letter ("10") is at most this wide (checked by the tests)."""
CORNER_SIGN: Final = (29, 80, 34)
"""(centre x, centre y, height) of the small suit sign under the corner letter."""
BIG_SIGN: Final = (86, 150, 72)
"""(centre x, centre y, height) of the large suit sign."""

Colour = tuple[int, int, int, int]

RED: Final[Colour] = (200, 30, 40, 255)
BLACK: Final[Colour] = (20, 20, 20, 255)
GREEN: Final[Colour] = (16, 130, 60, 255)
BLUE: Final[Colour] = (30, 90, 210, 255)
ACORN: Final[Colour] = (122, 74, 28, 255)
BELL: Final[Colour] = (168, 118, 0, 255)
"""The bells' gold, dark enough to read on white (contrast 3.9:1; a bright gold is 2.6)."""
EDGE: Final[Colour] = (40, 40, 40, 255)
PAPER: Final[Colour] = (252, 252, 248, 255)
FELT: Final[Colour] = (34, 110, 60, 255)

DECKS: Final[dict[str, tuple[Colour, Colour, Colour, Colour]]] = {
    "four": (GREEN, BLACK, RED, BLUE),
    "classic": (BLACK, BLACK, RED, RED),
    "german": (ACORN, GREEN, RED, BELL),
}
"""The decks a player may choose (``/deck``): the colours of ♣ ♠ ♥ ♦. ``four`` (the
default) tells every suit by its colour (♣ green, ♠ black, ♥ red, ♦ blue: the four-colour
deck of card rooms, and Discord's four button colours); ``classic`` has two colours, so ♥
and ♦ differ only by their sign; ``german`` has the colours of the German-suited deck
(acorns brown, leaves green, hearts red, bells gold). Every colour reads on the cards' white
with a contrast of at least 3:1 (WCAG's least for large text and signs; checked by the
tests)."""
SUIT_SIGNS: Final[tuple[str, ...]] = SUIT_SYMBOLS
"""The suits' signs in the order of a deck's colours: ♣ ♠ ♥ ♦."""
DEFAULT_DECK: Final = "four"
"""Four colours: in Doppelkopf ♦ is the trump suit and ♥ a plain one, and on a phone the
small sign is a few pixels high, so the colour tells them apart at a glance."""


def deck_of(name: str | None) -> str:
    """A known deck's name: ``name`` if it is one, else the default.

    >>> deck_of("classic"), deck_of(None), deck_of("pink")
    ('classic', 'four', 'four')
    """
    return name if name in DECKS else DEFAULT_DECK


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font (the same on every machine) at ``size`` pixels (loaded once per
    size and thread: a FreeType face must not draw in two threads at once)."""
    return _loaded(size, threading.get_ident())


@lru_cache(maxsize=64)
def _loaded(size: int, thread: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def sign_box(cx: float, cy: float, size: float) -> tuple[float, float, float, float]:
    """The box a suit sign of height ``size`` centred on (cx, cy) covers (left, top, right,
    bottom); the widest sign (hearts) is 1.04 times as wide as high."""
    half = size * 0.52
    return cx - half, cy - size / 2, cx + half, cy + size / 2


def suit_sign(
    draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float, colour: Colour
) -> None:
    """Draw a suit sign of height ``size`` centred on (cx, cy)."""
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
    assert suit == CLUBS
    r = s * 0.42  # clubs: three leaves and a stem
    draw.ellipse([cx - r, cy - s, cx + r, cy - s + 2 * r], colour)
    draw.ellipse([cx - 2.05 * r, cy - s * 0.25, cx - 0.05 * r, cy - s * 0.25 + 2 * r], colour)
    draw.ellipse([cx + 0.05 * r, cy - s * 0.25, cx + 2.05 * r, cy - s * 0.25 + 2 * r], colour)
    draw.ellipse([cx - r * 0.6, cy - s * 0.35, cx + r * 0.6, cy + s * 0.35], colour)
    draw.polygon(stem, colour)


def rank_letter(card: int, lang: str) -> str:
    """The corner letter of ``card`` in ``lang`` (the card's name without its suit sign).

    >>> rank_letter(4, "de"), rank_letter(4, "en"), rank_letter(8, "en")
    ('D', 'Q', '10')
    """
    return card_text(card, lang)[1:]


@lru_cache(maxsize=192)
def card_face(card: int, lang: str = "en", deck: str = DEFAULT_DECK) -> Image.Image:
    """The face of ``card`` (0..47, the engine's ids) with ``lang``'s rank letters in the
    colours of ``deck``."""
    suit = (card >> 1) // 6
    colour = DECKS[deck_of(deck)][suit]
    img = Image.new("RGBA", (WIDTH, HEIGHT), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle(
        [0, 0, WIDTH - 1, HEIGHT - 1], RADIUS, fill=PAPER, outline=EDGE, width=EDGE_WIDTH
    )
    draw.text(INDEX_AT, rank_letter(card, lang), font=font(INDEX_SIZE), fill=colour, anchor="ls")
    suit_sign(draw, suit, *CORNER_SIGN, colour)
    suit_sign(draw, suit, *BIG_SIGN, colour)
    return img


PALETTE: Final = 256
"""Colours of the pictures' palette: the felt, the cards' few colours and their anti-aliased
edges fit, and a palette PNG is half the bytes and a quarter of the time of a full-colour
one."""


def png(img: Image.Image, palette: Image.Image | None = None) -> bytes:
    """``img`` as PNG bytes; with a ``palette`` (a palette image), as an opaque picture of
    its colours (each pixel the nearest one)."""
    if palette is not None:
        img = img.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)
    return out.getvalue()


@lru_cache(maxsize=96)
def card_png(card: int, lang: str = "en", deck: str = DEFAULT_DECK) -> bytes:
    """One card face (PNG), e.g. for the web pages."""
    return png(card_face(card, lang, deck))
