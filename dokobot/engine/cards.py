"""Cards as small ints, hands as 48-bit masks.

A card is an int ``0..47``: ``card = kind * 2 + copy``, where ``kind = suit * 6 + rank``.
Both copies of a kind are the same card for the rules; they only keep the deck's 48 cards
apart. A hand is a bitmask with bit ``card`` set for each card held.

>>> card_str(card_of(CLUBS, QUEEN))
'♣Q'
>>> points(card_of(HEARTS, TEN)), points(card_of(SPADES, NINE))
(10, 0)
>>> sum(points(c) for c in range(N_CARDS))
240
>>> [card_str(c) for c in cards_of(mask_of([0, 47, 11]))]
['♣9', '♣A', '♦A']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

Card = int
"""A card id, 0..47."""
Kind = int
"""A card kind (suit and rank), 0..23; both copies of a card share it."""
Mask = int
"""A set of cards as a 48-bit mask."""
Suit = int
Rank = int

CLUBS: Final = 0
SPADES: Final = 1
HEARTS: Final = 2
DIAMONDS: Final = 3
SUITS: Final = (CLUBS, SPADES, HEARTS, DIAMONDS)

NINE: Final = 0
JACK: Final = 1
QUEEN: Final = 2
KING: Final = 3
TEN: Final = 4
ACE: Final = 5
RANKS: Final = (NINE, JACK, QUEEN, KING, TEN, ACE)

RANK_POINTS: Final = (0, 2, 3, 4, 10, 11)
SUIT_SYMBOLS: Final = ("♣", "♠", "♥", "♦")
SUIT_LETTERS: Final = ("C", "S", "H", "D")
RANK_NAMES: Final = ("9", "J", "Q", "K", "10", "A")

N_CARDS: Final = 48
"""Card ids are 0 … 47: the 24 kinds twice (a variant's deck is a subset, :attr:`Rules.deck`)."""
FULL_DECK: Final[Mask] = (1 << N_CARDS) - 1

#: Eyes of each card, indexed by card id.
POINTS: Final[tuple[int, ...]] = tuple(RANK_POINTS[(c >> 1) % 6] for c in range(N_CARDS))
CARD_OF_BIT: Final[dict[Mask, Card]] = {1 << c: c for c in range(48)}
"""The card of a one-bit mask (fast loops over the bits of a hand)."""


def card_of(suit: Suit, rank: Rank, copy: int = 0) -> Card:
    """The card id of ``suit`` and ``rank`` (``copy`` 0 or 1)."""
    return (suit * 6 + rank) * 2 + copy


def kind_of(card: Card) -> Kind:
    return card >> 1


def suit_of(card: Card) -> Suit:
    """The printed suit (not the trump class).

    >>> suit_of(card_of(DIAMONDS, ACE))
    3
    """
    return (card >> 1) // 6


def rank_of(card: Card) -> Rank:
    return (card >> 1) % 6


def points(card: Card) -> int:
    return POINTS[card]


def both(suit: Suit, rank: Rank) -> Mask:
    """Mask of both copies of a kind."""
    return 3 << ((suit * 6 + rank) * 2)


def mask_of(cards: Iterable[Card]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: Mask) -> Iterator[Card]:
    """The cards of a mask, lowest id first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def distinct_cards(mask: Mask) -> list[Card]:
    """One card of each kind in ``mask``, lowest id first: of two equal cards only one is a
    separate choice.

    >>> distinct_cards(mask_of([4, 5, 9]))
    [4, 9]
    """
    out: list[Card] = []
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        out.append(card)
        mask ^= low
        if not card & 1:
            mask &= ~(1 << (card + 1))
    return out


def count(mask: Mask) -> int:
    return mask.bit_count()


def mask_points(mask: Mask) -> int:
    """Eyes of all cards in a mask.

    >>> mask_points(FULL_DECK)
    240
    """
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total


def card_str(card: Card) -> str:
    """Canonical rendering with the suit symbol, e.g. ``♥10``."""
    k = card >> 1
    return SUIT_SYMBOLS[k // 6] + RANK_NAMES[k % 6]


def card_ascii(card: Card) -> str:
    """ASCII rendering, e.g. ``H10``; :func:`dokobot.engine.notation.parse_card` reads it."""
    k = card >> 1
    return SUIT_LETTERS[k // 6] + RANK_NAMES[k % 6]


def same_kind(a: Card, b: Card) -> bool:
    return a >> 1 == b >> 1


CLUB_QUEENS: Final[Mask] = both(CLUBS, QUEEN)
HEART_TENS: Final[Mask] = both(HEARTS, TEN)
DIAMOND_ACES: Final[Mask] = both(DIAMONDS, ACE)
CLUB_JACKS: Final[Mask] = both(CLUBS, JACK)
