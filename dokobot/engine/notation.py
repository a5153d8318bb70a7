"""Reading card names as people type them, in a notation given as data.

The engine knows no language: a :class:`Notation` is the words of one language for the four
suits and six ranks (the host makes one per language from its files, see
:mod:`dokobot.languages`). Every notation also reads the suit symbols (``♣Q``) and the
engine's own ASCII code (:func:`~dokobot.engine.cards.card_ascii`: ``CQ``, ``H10``, the form of
journals and buttons) is :data:`CANONICAL`. A token is read suit-first or rank-first
(``CQ``, ``QC``, ``queen of clubs`` once the filler words are gone), case-insensitively.

Given several notations, the first that reads the token at all decides: a reader's own words
come first, and a word of another notation counts only where the reader's own know nothing.

>>> from dokobot.engine.cards import card_str
>>> [card_str(parse_kind(t) * 2) for t in ["CQ", "♣q", "h10", "10h", "DA", "S9", "♠9"]]
['♣Q', '♣Q', '♥10', '♥10', '♦A', '♠9', '♠9']
>>> italian = Notation.of({0: ["fi", "fiori"]}, {2: ["d", "donna"]}, ["di"])
>>> card_str(parse_kind("donna di fiori", (italian, CANONICAL)) * 2)
'♣Q'
>>> parse_kind("Q")
Traceback (most recent call last):
...
dokobot.engine.errors.NotationError: 'Q' is ambiguous: ♣Q, ♠Q, ♥Q, ♦Q
>>> parse_kind("X7")
Traceback (most recent call last):
...
dokobot.engine.errors.NotationError: unknown card 'X7'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from .cards import RANK_NAMES, SUIT_LETTERS, Card, Kind, Mask, card_str
from .errors import NotationError

_SYMBOLS: Final = (("♣", "♧"), ("♠", "♤"), ("♥", "♡"), ("♦", "♢"))
_SPACES: Final = re.compile(r"[\s\-_.,/'’\ufe0f]+")  # "l'asso": an elided article


@dataclass(frozen=True, slots=True)
class Notation:
    """The words of one notation: word -> suit (0-3), word -> rank (0-5), filler words."""

    suits: Mapping[str, int]
    ranks: Mapping[str, int]
    fillers: frozenset[str] = frozenset()
    _cache: dict[str, frozenset[Kind]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        suits: Mapping[int, Iterable[str]],
        ranks: Mapping[int, Iterable[str]],
        fillers: Iterable[str] = (),
    ) -> Notation:
        """A notation of these words (any case) and the suit symbols."""
        suit_words = {w.lower(): s for s, ws in suits.items() for w in ws}
        suit_words.update({sym: s for s, syms in enumerate(_SYMBOLS) for sym in syms})
        rank_words = {w.lower(): r for r, ws in ranks.items() for w in ws}
        return cls(suit_words, rank_words, frozenset(w.lower() for w in fillers))

    def readings(self, token: str) -> frozenset[Kind]:
        """Every card kind ``token`` may name in this notation (empty: none)."""
        hit = self._cache.get(token)
        if hit is not None:
            return hit
        words = [w for w in _SPACES.split(token.strip().lower()) if w and w not in self.fillers]
        text = "".join(words)
        suits, ranks = self.suits, self.ranks
        found: set[Kind] = set()
        for i in range(1, len(text)):
            head, tail = text[:i], text[i:]
            if head in suits and tail in ranks:
                found.add(suits[head] * 6 + ranks[tail])
            if head in ranks and tail in suits:
                found.add(suits[tail] * 6 + ranks[head])
        if not found:  # a lone rank or suit
            if text in ranks:
                found = {s * 6 + ranks[text] for s in range(4)}
            if text in suits:
                found |= {suits[text] * 6 + r for r in range(6)}
        out = frozenset(found)
        if len(self._cache) < 4096:
            self._cache[token] = out
        return out


CANONICAL: Final = Notation.of(
    {s: [letter] for s, letter in enumerate(SUIT_LETTERS)},
    {r: [name] for r, name in enumerate(RANK_NAMES)},
)
"""The engine's ASCII code (``CQ``, ``H10``) and the suit symbols."""


def parse_kind(token: str, notations: Sequence[Notation] = (CANONICAL,)) -> Kind:
    """The card kind (0..23) that ``token`` names in the first of ``notations`` that reads it.

    Raises :class:`NotationError` (``reason`` ``"card_unknown"`` or ``"card_ambiguous"``,
    the latter with the candidates in ``params["candidates"]``).
    """
    found: frozenset[Kind] = frozenset()
    for notation in notations:
        found = notation.readings(token)
        if found:
            break
    if len(found) == 1:
        return next(iter(found))
    if not found:
        raise NotationError("card_unknown", f"unknown card {token.strip()!r}", token=token.strip())
    names = [card_str(k * 2) for k in sorted(found)]
    raise NotationError(
        "card_ambiguous",
        f"{token.strip()!r} is ambiguous: {', '.join(names)}",
        token=token.strip(),
        candidates=names,
    )


def parse_card(
    token: str, hand: Mask | None = None, notations: Sequence[Notation] = (CANONICAL,)
) -> Card:
    """The card id that ``token`` names; with ``hand``, a copy from that hand.

    >>> from dokobot.engine.cards import mask_of
    >>> parse_card("♣Q", mask_of([5]))
    5
    """
    kind = parse_kind(token, notations)
    if hand is not None:
        if hand >> (kind * 2) & 1:
            return kind * 2
        if hand >> (kind * 2 + 1) & 1:
            return kind * 2 + 1
    return kind * 2


def parse_cards(text: str, notations: Sequence[Notation] = (CANONICAL,)) -> list[Kind]:
    """A list of card kinds separated by spaces or commas (as in ``!deal`` lines).

    Multi-word names are not allowed here; use the compact forms.

    >>> [card_str(k * 2) for k in parse_cards("CQ, H10 ♦A")]
    ['♣Q', '♥10', '♦A']
    """
    return [parse_kind(t, notations) for t in re.split(r"[\s,]+", text.strip()) if t]
