"""Trump and suit order of each game type (RULES §4), as lookup tables.

For each scheme, every card has a *class* (0..3 its plain suit, :data:`TRUMP` for trumps)
and a *key*: within one class, the higher key wins; every trump key is above every plain key.

>>> from dokobot.engine.cards import card_str
>>> s = SCHEMES[NORMAL_SCHEME]
>>> [card_str(c) for c in s.trumps_high_to_low[:6]]
['♥10', '♣Q', '♠Q', '♥Q', '♦Q', '♣J']
>>> len(s.trumps_high_to_low), s.class_mask[TRUMP].bit_count()
(13, 26)
>>> SCHEMES[FLESHLESS_SCHEME].class_mask[TRUMP]
0
>>> [card_str(c) for c in SCHEMES[PIGLETS_SCHEME].trumps_high_to_low[:3]]
['♦A', '♥10', '♣Q']
>>> [card_str(c) for c in SCHEMES[SUPERPIGLETS_SCHEME].trumps_high_to_low[:3]]
['♦9', '♦A', '♥10']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    N_CARDS,
    NINE,
    QUEEN,
    SPADES,
    TEN,
    Card,
    Mask,
    card_of,
)
from .types import Solo

TRUMP: Final = 4

# Scheme indices: the solo value, the normal game shares the diamonds solo's order.
NORMAL_SCHEME: Final = int(Solo.DIAMONDS)
FLESHLESS_SCHEME: Final = int(Solo.FLESHLESS)
PIGLETS_SCHEME: Final = len(Solo)
"""The normal order with both ♦A above ♥10 (RULES §12.3: one player holds both)."""
SUPERPIGLETS_SCHEME: Final = PIGLETS_SCHEME + 1
"""The piglets' order with both ♦9 above the ♦A (RULES §12.8)."""
SUPERPIGLETS_NO_NINES_SCHEME: Final = PIGLETS_SCHEME + 2
"""The piglets' order with both ♦K above the ♦A (RULES §12.8, without nines)."""


@dataclass(frozen=True, slots=True)
class Scheme:
    """The order of one game type."""

    name: str
    cls: tuple[int, ...]
    """Class of each card (suit 0..3, or TRUMP)."""
    key: tuple[int, ...]
    """Strength of each card; compare only within a class, trumps above all."""
    class_mask: tuple[Mask, ...]
    """Cards of each class (index 0..4)."""
    trumps_high_to_low: tuple[Card, ...]
    """Trump kinds, highest first (copy 0 of each kind)."""
    rank: tuple[tuple[int, ...], ...] = ()
    """Per led class (0..4), each card's strength in such a trick: its key if it is of
    that class or a trump, else -1. A card takes the trick from the best so far iff its
    rank is higher (the same as :meth:`beats`)."""
    heart10: int = -2
    """The key of ♥10 if it is a trump in this game, else -2 (no rank equals it)."""
    index: int = 0
    """This scheme's place in :data:`SCHEMES` (tables of other modules are indexed by it)."""

    def beats(self, card: Card, best: Card, second_heart10: bool = False) -> bool:
        """Whether ``card``, played after ``best``, takes the trick from it;
        ``second_heart10``: a later trump ♥10 takes it from the first too (the answer of
        :meth:`~dokobot.engine.rules.Rules.second_heart10_takes` for this trick)."""
        if self.cls[card] != self.cls[best] and self.cls[card] != TRUMP:
            return False
        k = self.key[card]
        return k > self.key[best] or (second_heart10 and k == self.heart10 == self.key[best])


def _build(index: int, name: str, trump_kinds: list[tuple[int, int]]) -> Scheme:
    cls = [0] * N_CARDS
    key = [0] * N_CARDS
    n = len(trump_kinds)
    trump_rank = {suit * 6 + rank: n - i for i, (suit, rank) in enumerate(trump_kinds)}
    masks = [0] * 5
    for card in range(N_CARDS):
        kind = card >> 1
        if kind in trump_rank:
            cls[card] = TRUMP
            key[card] = 100 + trump_rank[kind]
        else:
            cls[card] = kind // 6
            key[card] = kind % 6  # rank order 9 < J < Q < K < 10 < A
        masks[cls[card]] |= 1 << card
    rank = tuple(
        tuple(key[c] if cls[c] == led or cls[c] == TRUMP else -1 for c in range(N_CARDS))
        for led in range(5)
    )
    h10 = card_of(HEARTS, TEN)
    return Scheme(
        name,
        tuple(cls),
        tuple(key),
        tuple(masks),
        tuple(card_of(s, r) for s, r in trump_kinds),
        rank,
        key[h10] if cls[h10] == TRUMP else -2,
        index,
    )


def _above(top: tuple[int, int], kinds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``kinds`` with ``top`` moved to the front (the highest trump)."""
    return [top] + [k for k in kinds if k != top]


def _suit_trumps(suit: int) -> list[tuple[int, int]]:
    top = [(HEARTS, TEN)] + [(s, QUEEN) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]
    top += [(s, JACK) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]
    ranks = (ACE, KING, NINE) if suit == HEARTS else (ACE, TEN, KING, NINE)
    return top + [(suit, r) for r in ranks]


SCHEMES: Final[tuple[Scheme, ...]] = (
    _build(0, "diamonds", _suit_trumps(DIAMONDS)),
    _build(1, "hearts", _suit_trumps(HEARTS)),
    _build(2, "spades", _suit_trumps(SPADES)),
    _build(3, "clubs", _suit_trumps(CLUBS)),
    _build(4, "queens", [(s, QUEEN) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]),
    _build(5, "jacks", [(s, JACK) for s in (CLUBS, SPADES, HEARTS, DIAMONDS)]),
    _build(6, "fleshless", []),
    _build(PIGLETS_SCHEME, "piglets", _above((DIAMONDS, ACE), _suit_trumps(DIAMONDS))),
    _build(
        SUPERPIGLETS_SCHEME,
        "superpiglets",
        _above((DIAMONDS, NINE), _above((DIAMONDS, ACE), _suit_trumps(DIAMONDS))),
    ),
    _build(
        SUPERPIGLETS_NO_NINES_SCHEME,
        "superpiglets",
        _above((DIAMONDS, KING), _above((DIAMONDS, ACE), _suit_trumps(DIAMONDS))),
    ),
)


def scheme_for(solo: Solo | None) -> Scheme:
    """The order of a solo, or of the normal game (``None``)."""
    return SCHEMES[NORMAL_SCHEME if solo is None else int(solo)]
