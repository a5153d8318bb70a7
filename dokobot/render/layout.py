"""Where everything goes on a picture: a hand or a trick as placed cards and text labels.

A layout is plain data (:class:`Layout`), so tests can read what a picture shows (which
cards are dimmed, which names are written) without looking at pixels;
:mod:`dokobot.render.pictures` paints it.

A **hand** (:class:`HandPicture`) is fanned out left to right in display order, with a gap
between trumps and each plain suit; under each card its number (what ``/play N`` takes); on
the reader's turn the cards he may not play are dimmed. Its width is chosen so that the
corner letters are at least :data:`PHONE_TEXT` pixels high on a phone that shows the picture
:data:`PHONE_WIDTH` pixels wide (:func:`shown_size`).

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

import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from PIL import ImageFont

from dokobot.host.i18n import text
from dokobot.render.cards import DEFAULT_DECK, HEIGHT, WIDTH, Colour, font

PAD: Final = 16
STEP: Final = 84
"""Horizontal distance of two neighbouring cards of a hand (they overlap; the corner letter
and the small sign stay visible)."""
GROUP_GAP: Final = 32
"""Extra room between trumps and a plain suit, and between two plain suits."""
NUMBER_SIZE: Final = 44
NUMBER_GAP: Final = 6
SLOT_GAP: Final = 24
"""Room between the four places of a trick."""
NAME_SIZE: Final = 34
TAG_SIZE: Final = 30
FRAME: Final = 6
"""Width of the frame around the winning card."""

PHONE_WIDTH: Final = 360
"""The width (CSS pixels) at which a phone shows a picture that fills the chat's width."""
PHONE_TEXT: Final = 16
"""The least height in pixels of a corner letter at :data:`PHONE_WIDTH`."""

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


def shown_size(size: float, width: int) -> float:
    """How high ``size`` pixels of a picture ``width`` pixels wide are on a phone that shows
    it :data:`PHONE_WIDTH` pixels wide (a narrower picture is not enlarged).

    >>> shown_size(56, 1120), shown_size(56, 200)
    (18.0, 56)
    """
    return size * PHONE_WIDTH / width if width > PHONE_WIDTH else size


def hand_layout(hand: HandPicture) -> Layout:
    """The layout of a hand picture."""
    cards: list[Placed] = []
    labels: list[Label] = []
    x = PAD
    playable = None if hand.playable is None else set(hand.playable)
    for n, card in enumerate(hand.cards):
        if n and hand.groups[n : n + 1] != hand.groups[n - 1 : n]:
            x += GROUP_GAP
        dimmed = playable is not None and card not in playable
        cards.append(Placed(card, x, PAD, dimmed=dimmed))
        labels.append(
            Label(
                str(n + 1), x + STEP // 2, PAD + HEIGHT + NUMBER_GAP, NUMBER_SIZE,
                MUTED if dimmed else TEXT,
            )
        )  # fmt: skip
        x += STEP
    width = (x - STEP if cards else x) + WIDTH + PAD
    height = PAD + HEIGHT + NUMBER_GAP + NUMBER_SIZE + PAD
    return Layout(width, height, tuple(cards), tuple(labels), hand.lang, hand.deck)


def fitted(name: str, size: int, room: int) -> str:
    """``name`` cut (with an ellipsis) to fit ``room`` pixels at ``size``.

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
