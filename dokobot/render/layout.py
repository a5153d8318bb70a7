"""Where everything goes on a picture: a hand or a trick as placed cards and text labels.

A layout is plain data (:class:`Layout`), so tests can read what a picture shows (which
cards are dimmed, which names are written) without looking at pixels;
:mod:`dokobot.render.pictures` paints it.

Pictures are made for a phone: Discord shows a picture :data:`PHONE_WIDTH` pixels wide on a
phone 360 pixels wide (:data:`BOARD_WIDTH` inside an embed), and there a corner letter's ink
must be at least :data:`PHONE_TEXT` pixels high and a suit sign at least :data:`PHONE_SIGN`
(:func:`shown_size`). So no picture is wider than :data:`ROW_ROOM` (a board's trick:
:data:`BOARD_ROOM`).

A **hand** (:class:`HandPicture`) is fanned out left to right in display order, with a gap
between trumps and each plain suit; under each card its number (what ``/play N`` takes); on
the reader's turn the cards he may not play are dimmed. A hand that would be wider than
:data:`ROW_ROOM` in one row (from 7 to 9 cards on, by its gaps; always from 10) lies in two
rows, split where a suit (or the trumps) ends if the rows stay about as long, else where the
wider row is narrowest.

A **trick** (:class:`TrickPicture`) shows the four seats side by side in seat order, each
with its player's name over its card (an empty place before he plays); the card that led is
marked, and so is the winning card once the trick is taken.

>>> hand = hand_layout(HandPicture((5, 4, 40), groups=(-1, -1, 3), playable=(5, 4)))
>>> [(p.card, p.dimmed) for p in hand.cards], [lb.text for lb in hand.labels]
([(5, False), (4, False), (40, True)], ['1', '2', '3'])
>>> hand.cards[2].x - hand.cards[1].x == STEP + GROUP_GAP
True
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from PIL import ImageFont

from dokobot.host.i18n import text
from dokobot.render.cards import CORNER_SIGN, DEFAULT_DECK, HEIGHT, INDEX_INK, WIDTH, Colour, font

PAD: Final = 16
STEP: Final = 84
"""Horizontal distance of two neighbouring cards of a hand (they overlap; the corner letter
and the small sign stay visible)."""
GROUP_GAP: Final = 32
"""Extra room between trumps and a plain suit, and between two plain suits."""
NUMBER_SIZE: Final = 44
NUMBER_GAP: Final = 6
ROW_GAP: Final = 8
"""Room between the two rows of a hand."""
SLOT_GAP: Final = 16
"""Room between the four places of a trick."""
NAME_SIZE: Final = 34
TAG_SIZE: Final = 30
FRAME: Final = 6
"""Width of the frame around the winning card."""

PHONE_WIDTH: Final = 294
"""The width (CSS pixels) at which Discord shows a picture on a phone 360 pixels wide: the
chat's width less the avatars' column (54) and the margin (12)."""
BOARD_WIDTH: Final = 272
"""The width at which it shows a picture inside an embed (the board's trick): 22 less."""
PHONE_TEXT: Final = 16
"""The least height in pixels of a corner letter's ink as a phone shows it."""
PHONE_SIGN: Final = 12
"""The least height in pixels of the small suit sign as a phone shows it."""
ROW_ROOM: Final = PHONE_WIDTH * INDEX_INK // PHONE_TEXT
"""The widest picture whose corner letters a phone shows :data:`PHONE_TEXT` high (716)."""
BOARD_ROOM: Final = BOARD_WIDTH * INDEX_INK // PHONE_TEXT
"""The same for a picture inside an embed (663)."""
assert CORNER_SIGN[2] * BOARD_WIDTH >= PHONE_SIGN * BOARD_ROOM  # the signs are large enough

TEXT: Final[Colour] = (245, 245, 240, 255)
MUTED: Final[Colour] = (150, 170, 155, 255)
GOLD: Final[Colour] = (250, 200, 40, 255)


@dataclass(frozen=True, slots=True)
class HandPicture:
    """What a hand picture shows: ``cards`` in display order, ``groups`` (one per card; a
    gap wherever it changes: trumps, then each plain suit) and, on the reader's turn, the
    cards he may play (``playable``; None: nothing is dimmed). ``lang``: the reader's
    language; ``deck``: his choice of colours."""

    cards: tuple[int, ...] = field(repr=False)
    groups: tuple[int, ...] = field(default=(), repr=False)
    playable: tuple[int, ...] | None = field(default=None, repr=False)
    lang: str = "en"
    deck: str = DEFAULT_DECK
    """(A hand is never in a repr: it may reach a log.)"""


@dataclass(frozen=True, slots=True)
class TrickPicture:
    """What a trick picture shows: the players' names by seat, the cards played as (seat,
    card) in the order played (the first led), and who won the trick once it is taken."""

    seats: tuple[str, ...]
    played: tuple[tuple[int, int], ...]
    winner: int | None = None
    lang: str = "en"
    deck: str = DEFAULT_DECK


@dataclass(frozen=True, slots=True)
class Placed:
    """A card face (or, with ``card`` None, an empty place) with its top left at (x, y)."""

    card: int | None
    x: int
    y: int
    dimmed: bool = False
    framed: bool = False


@dataclass(frozen=True, slots=True)
class Label:
    """A line of text whose top centre is at (x, y)."""

    text: str
    x: int
    y: int
    size: int
    colour: Colour = TEXT


@dataclass(frozen=True, slots=True)
class Layout:
    width: int
    height: int
    cards: tuple[Placed, ...]
    labels: tuple[Label, ...]
    lang: str
    deck: str


def shown_size(size: float, width: int, shown: int = PHONE_WIDTH) -> float:
    """How high ``size`` pixels of a picture ``width`` pixels wide are on a phone that shows
    it ``shown`` pixels wide (a narrower picture is not enlarged).

    >>> shown_size(56, 1176), shown_size(56, 200)
    (14.0, 56)
    """
    return size * shown / width if width > shown else size


ROW_SKEW: Final = 2
"""How many cards more one row of a hand may hold than the other to keep a group whole."""
ROW_HEIGHT: Final = HEIGHT + NUMBER_GAP + NUMBER_SIZE
"""A row of a hand: the cards and their numbers under them."""


def row_width(groups: tuple[int, ...]) -> int:
    """The width of a picture of one row of cards of ``groups`` (a gap where it changes).

    >>> row_width((0, 0, 1)) == 2 * PAD + 2 * STEP + GROUP_GAP + WIDTH
    True
    """
    if not groups:
        return 2 * PAD
    gaps = sum(1 for a, b in itertools.pairwise(groups) if a != b)
    return 2 * PAD + (len(groups) - 1) * STEP + gaps * GROUP_GAP + WIDTH


def hand_rows(groups: tuple[int, ...]) -> tuple[int, ...]:
    """How many cards of a hand of ``groups`` lie in each row: one row if it is no wider than
    :data:`ROW_ROOM`, else two: split where a group ends (trumps or a suit stay in one row)
    if both rows fit and differ by at most :data:`ROW_SKEW` cards, the nearest to the middle;
    else where the wider row is narrowest.

    >>> hand_rows((0, 0, 1, 2)), hand_rows((0,) * 6 + (1,) * 3 + (2,) * 3)
    ((4,), (6, 6))
    >>> hand_rows((0,) * 6 + (1, 1, 2, 2))  # the trumps in one row
    (6, 4)
    >>> hand_rows((0,) * 12)
    (6, 6)
    """
    n = len(groups)
    if row_width(groups) <= ROW_ROOM or n < 2:
        return (n,)

    def widest(k: int) -> int:
        return max(row_width(groups[:k]), row_width(groups[k:]))

    ends = [
        k
        for k in range(1, n)
        if groups[k] != groups[k - 1] and abs(2 * k - n) <= ROW_SKEW and widest(k) <= ROW_ROOM
    ]
    if ends:
        split = min(ends, key=lambda k: abs(2 * k - n))
    else:
        split = min(range(1, n), key=lambda k: (widest(k), abs(2 * k - n)))
    return split, n - split


def hand_layout(hand: HandPicture) -> Layout:
    """The layout of a hand picture."""
    cards: list[Placed] = []
    labels: list[Label] = []
    groups = tuple(hand.groups[: len(hand.cards)])
    groups += (0,) * (len(hand.cards) - len(groups))
    playable = None if hand.playable is None else set(hand.playable)
    first = 0
    for row, count in enumerate(hand_rows(groups)):
        x = PAD
        y = PAD + row * (ROW_HEIGHT + ROW_GAP)
        for n in range(first, first + count):
            if n > first and groups[n] != groups[n - 1]:
                x += GROUP_GAP
            card = hand.cards[n]
            dimmed = playable is not None and card not in playable
            cards.append(Placed(card, x, y, dimmed=dimmed))
            labels.append(
                Label(
                    str(n + 1), x + STEP // 2, y + HEIGHT + NUMBER_GAP, NUMBER_SIZE,
                    MUTED if dimmed else TEXT,
                )
            )  # fmt: skip
            x += STEP
        first += count
    rows = hand_rows(groups)
    widths = [row_width(groups[sum(rows[:r]) : sum(rows[: r + 1])]) for r in range(len(rows))]
    height = 2 * PAD + len(rows) * ROW_HEIGHT + (len(rows) - 1) * ROW_GAP
    return Layout(max(widths), height, tuple(cards), tuple(labels), hand.lang, hand.deck)


@lru_cache(maxsize=1024)
def fitted(name: str, size: int, room: int) -> str:
    """``name`` cut (with an ellipsis) to fit ``room`` pixels at ``size`` (cached: a table's
    names are measured once, not on every trick picture).

    >>> fitted("Anna", 34, 160), fitted("A" * 40, 34, 160).endswith("…")
    ('Anna', True)
    """
    face = text_font(size)
    if face.getlength(name) <= room:
        return name
    while name and face.getlength(name + "…") > room:
        name = name[:-1]
    return name + "…"


def text_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A font for names (any script): DejaVu Sans if the system has it, else Pillow's
    (loaded once per size and thread, like :func:`~dokobot.render.cards.font`)."""
    return _text_font(size, threading.get_ident())


@lru_cache(maxsize=64)
def _text_font(size: int, thread: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return font(size)


def trick_layout(trick: TrickPicture) -> Layout:
    """The layout of a trick picture: four places in seat order."""
    played = dict(trick.played)
    leader = trick.played[0][0] if trick.played else None
    cards: list[Placed] = []
    labels: list[Label] = []
    top = PAD + NAME_SIZE + 10
    for seat in range(4):
        x = PAD + seat * (WIDTH + SLOT_GAP)
        name = trick.seats[seat] if seat < len(trick.seats) else "?"
        centre = x + WIDTH // 2
        labels.append(Label(fitted(name, NAME_SIZE, WIDTH + SLOT_GAP - 4), centre, PAD, NAME_SIZE))
        won = trick.winner == seat
        cards.append(Placed(played.get(seat), x, top, framed=won))
        tags = [text(trick.lang, "picture." + key) for key, on in
                (("led", seat == leader), ("won", won)) if on]  # fmt: skip
        if tags:
            tag = fitted(" · ".join(tags), TAG_SIZE, WIDTH + SLOT_GAP - 4)
            colour = GOLD if won else TEXT
            labels.append(Label(tag, centre, top + HEIGHT + FRAME + 6, TAG_SIZE, colour))
    width = 2 * PAD + 4 * WIDTH + 3 * SLOT_GAP
    height = top + HEIGHT + FRAME + 6 + TAG_SIZE + PAD
    return Layout(width, height, tuple(cards), tuple(labels), trick.lang, trick.deck)
