"""Deck decoding: a shuffled deck from a random draw (the same on every platform), and hands
from lists of card kinds."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

from .cards import N_CARDS, Card, Mask, card_str

__all__ = ["deck_from_bits", "hands_from_kinds", "shuffled_deck"]


def _deck_chunks() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The radices 48, 47, ..., 2 of :func:`shuffled_deck` in groups whose product fits
    one CPython digit (30 bits), so that the divisions are on small ints."""
    chunks: list[tuple[int, tuple[int, ...]]] = []
    group: list[int] = []
    product = 1
    for radix in range(N_CARDS, 1, -1):
        if product * radix >= 1 << 30:
            chunks.append((product, tuple(group)))
            group, product = [], 1
        group.append(radix)
        product *= radix
    chunks.append((product, tuple(group)))
    return tuple(chunks)


_DECK_CHUNKS: Final = _deck_chunks()


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A uniformly shuffled deck from ``rng``, the same on every platform.

    One 256-bit draw, decoded as a mixed-radix number (48! < 2**204, so the bias is
    below 2**-52).

    >>> shuffled_deck(random.Random(1))[:6]
    [12, 36, 16, 41, 39, 4]
    """
    return deck_from_bits(rng.getrandbits(256))


def deck_from_bits(x: int) -> list[Card]:
    """The deck of :func:`shuffled_deck` for the 256-bit draw ``x``."""
    deck = list(range(N_CARDS))
    # Fisher-Yates for i = 47 .. 1 with j = digit of radix i + 1; the digits are taken
    # a group at a time (x mod 48*47*...*k first), which gives the same digits.
    i = 47
    for product, radices in _DECK_CHUNKS:
        x, r = divmod(x, product)
        for radix in radices:
            j = r % radix
            r //= radix
            deck[i], deck[j] = deck[j], deck[i]
            i -= 1
    return deck


def hands_from_kinds(kinds: Iterable[Iterable[int]]) -> list[Mask]:
    """Hands from lists of card kinds (0..23); the two copies of a kind are told apart
    in the order they appear.

    >>> [h.bit_count() for h in hands_from_kinds([[0, 0], [1]])]
    [2, 1]
    """
    used = 0
    hands: list[Mask] = []
    for hand_kinds in kinds:
        hand = 0
        for kind in hand_kinds:
            card = kind * 2
            if used >> card & 1:
                card += 1
            if used >> card & 1:
                raise ValueError(f"{card_str(card)} is dealt more than twice")
            used |= 1 << card
            hand |= 1 << card
        hands.append(hand)
    return hands
