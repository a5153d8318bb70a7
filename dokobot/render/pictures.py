"""Hands and tricks as PNG pictures: a :class:`~dokobot.render.layout.Layout` painted on the
table's green felt. Pictures are cached by what they show (cards, language, deck, names), so
a repeated picture costs nothing; drawing a new one takes a few milliseconds, so adapters
call these in a worker thread (:func:`drawn`).

>>> import asyncio
>>> hand = HandPicture((5, 4, 40), groups=(-1, -1, 3))
>>> asyncio.run(drawn(hand_png, hand)) is hand_png(hand)
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Final, TypeVar

from PIL import Image, ImageDraw

from dokobot.render.cards import DECKS, FELT, HEIGHT, PALETTE, RADIUS, WIDTH, card_face, png
from dokobot.render.layout import (
    FRAME,
    GOLD,
    HandPicture,
    Layout,
    TrickPicture,
    hand_layout,
    text_font,
    trick_layout,
)

DIM = (24, 40, 30, 150)
"""Laid over a card the reader may not play now."""
EMPTY = (255, 255, 255, 70)
"""The outline of a place where no card lies yet."""

Spec = TypeVar("Spec", HandPicture, TrickPicture)


def paint(layout: Layout) -> Image.Image:
    """The picture of ``layout`` (opaque: the felt fills it; outlines blend into it)."""
    img = Image.new("RGB", (layout.width, layout.height), FELT[:3])
    draw = ImageDraw.Draw(img, "RGBA")
    for placed in layout.cards:
        x, y = placed.x, placed.y
        if placed.framed:
            box = [x - FRAME, y - FRAME, x + WIDTH - 1 + FRAME, y + HEIGHT - 1 + FRAME]
            draw.rounded_rectangle(box, RADIUS + FRAME, fill=GOLD)
        if placed.card is None:
            box = [x, y, x + WIDTH - 1, y + HEIGHT - 1]
            draw.rounded_rectangle(box, RADIUS, outline=EMPTY, width=3)
            continue
        for piece, (dx, dy), mask in face_pieces(
            placed.card, layout.lang, layout.deck, placed.dimmed
        ):
            img.paste(piece, (x + dx, y + dy), mask)
    for label in layout.labels:
        mask, (dx, dy) = label_mask(label.text, label.size)
        draw.bitmap((label.x + dx, label.y + dy), mask, fill=label.colour)
    return img


MASK_PAD: Final = 2
"""Pixels around a label's box in its mask (empty: they leave the picture as it is)."""


@lru_cache(maxsize=512)
def label_mask(text: str, size: int) -> tuple[Image.Image, tuple[int, int]]:
    """The ink of ``text`` at ``size`` as a mask (what ``ImageDraw.text`` blends the colour
    with), and where its top left lies from the label's anchor (its top centre): drawn once
    per text, so a picture's numbers and names cost a paste each. A label holds no hidden
    information (a card's number, a seat's name, "led", "won"): it may be shared."""
    face = text_font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor="mt"))
    left, top = left - MASK_PAD, top - MASK_PAD
    mask = Image.new("L", (right - left + MASK_PAD, bottom - top + MASK_PAD), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=face, fill=255, anchor="mt")
    return mask, (left, top)


Piece = tuple[Image.Image, tuple[int, int], Image.Image | None]


@lru_cache(maxsize=192)
def face_pieces(card: int, lang: str, deck: str, dimmed: bool) -> tuple[Piece, ...]:
    """:func:`shown_face` cut for pasting: its four rounded corners with their transparency
    as a mask, the opaque rest without one (pasting through an alpha of 255 copies the pixel
    as it is, so the picture is the same, at a fraction of the work). A face is the same for
    every reader of a language and deck: no hidden information in the key."""
    face = shown_face(card, lang, deck, dimmed)
    rgb, alpha = face.convert("RGB"), face.getchannel("A")
    c = RADIUS + 1  # the corners' size: every pixel outside them is opaque
    boxes = [  # (left, top, right, bottom), masked or not
        ((0, 0, c, c), True),
        ((WIDTH - c, 0, WIDTH, c), True),
        ((0, HEIGHT - c, c, HEIGHT), True),
        ((WIDTH - c, HEIGHT - c, WIDTH, HEIGHT), True),
        ((c, 0, WIDTH - c, c), False),
        ((c, HEIGHT - c, WIDTH - c, HEIGHT), False),
        ((0, c, WIDTH, HEIGHT - c), False),
    ]
    pieces: list[Piece] = []
    for box, masked in boxes:
        part = alpha.crop(box)
        opaque = not masked and part.getextrema() == (255, 255)
        pieces.append((rgb.crop(box), box[:2], None if opaque else part))
    return tuple(pieces)


def shown_face(card: int, lang: str, deck: str, dimmed: bool) -> Image.Image:
    """A card's face as a picture shows it: dimmed when the reader may not play it now
    (kept as :func:`face_pieces`)."""
    face = card_face(card, lang, deck)
    if not dimmed:
        return face
    shaded = Image.alpha_composite(face, Image.new("RGBA", face.size, DIM))
    shaded.putalpha(face.getchannel("A"))
    return shaded


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """The colours of every picture (a palette image): found once, in pictures of every
    deck that show each kind of card, plain and dimmed, a won trick, who led, names and
    empty places. Mapping a picture to a fixed palette takes a fifth of the time of finding
    a palette for each picture."""
    names = ("Anna", "Ben", "Carl", "Dora")
    layouts = []
    for deck in DECKS:
        kinds = tuple(range(0, 48, 2))
        layouts.append(hand_layout(HandPicture(kinds, playable=kinds[::2], deck=deck)))
        played = ((0, 46), (1, 2), (2, 20))
        layouts.append(trick_layout(TrickPicture(names, played, winner=1, deck=deck)))
    pictures = [paint(layout) for layout in layouts]
    mosaic = Image.new("RGB", (max(p.width for p in pictures), sum(p.height for p in pictures)))
    top = 0
    for picture in pictures:
        mosaic.paste(picture, (0, top))
        top += picture.height
    return mosaic.quantize(PALETTE, method=Image.Quantize.FASTOCTREE)


@lru_cache(maxsize=512)
def hand_png(hand: HandPicture) -> bytes:
    """A hand (PNG)."""
    return png(paint(hand_layout(hand)), palette())


@lru_cache(maxsize=512)
def trick_png(trick: TrickPicture) -> bytes:
    """A trick on the table (PNG)."""
    return png(paint(trick_layout(trick)), palette())


DRAWERS: Final = 2
"""Threads that draw pictures: their own, so that a queue of pictures never holds up the
work of the default executor (the store's journal writes, which answers wait for)."""
_drawers = ThreadPoolExecutor(DRAWERS, thread_name_prefix="dokobot-draw")


async def prepare() -> None:
    """Find the pictures' palette ahead of the first picture (it takes a tenth of a second)."""
    await asyncio.get_running_loop().run_in_executor(_drawers, palette)


async def drawn(draw: Callable[[Spec], bytes], spec: Spec) -> bytes:
    """``draw(spec)`` in one of the drawing threads, so that drawing never holds up the
    event loop nor the default executor."""
    return await asyncio.get_running_loop().run_in_executor(_drawers, draw, spec)
