"""Reading card names as people type them.

Accepted, case-insensitive: ``CQ``, ``♣Q``, ``cq``, ``KrD``, ``Kreuz Dame``, ``H10``, ``♥10``,
``DA``, ``KaA``, ``S9``, ``P9``, ``queen of clubs``, and rank-first forms such as ``QC`` or
``10H``. ``K`` is always the king and ``Ka`` always diamonds (Karo).

>>> from dokobot.engine.cards import card_str
>>> tokens = ["CQ", "♣q", "KrD", "Kreuz Dame", "h10", "DA", "KaA", "P9"]
>>> [card_str(parse_kind(t) * 2) for t in tokens]
['♣Q', '♣Q', '♣Q', '♣Q', '♥10', '♦A', '♦A', '♠9']
>>> card_str(parse_kind("DK") * 2), card_str(parse_kind("KaK") * 2)
('♦K', '♦K')
>>> parse_kind("Dame")
Traceback (most recent call last):
...
dokobot.engine.errors.NotationError: 'Dame' is ambiguous: ♣Q, ♠Q, ♥Q, ♦Q
>>> parse_kind("X7")
Traceback (most recent call last):
...
dokobot.engine.errors.NotationError: unknown card 'X7'
"""

from __future__ import annotations

import re
from typing import Final

from .cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SPADES,
    TEN,
    Card,
    Kind,
    Mask,
    card_str,
)
from .errors import NotationError

_SUIT_NAMES: Final[tuple[tuple[tuple[str, ...], int], ...]] = (
    (("c", "♣", "♧", "kr", "kreuz", "club", "clubs", "eichel"), CLUBS),
    (("s", "♠", "♤", "p", "pik", "spade", "spades", "grün", "gruen"), SPADES),
    (("h", "♥", "♡", "herz", "heart", "hearts", "rot"), HEARTS),
    (("d", "♦", "♢", "ka", "karo", "diamond", "diamonds", "schellen", "schelle"), DIAMONDS),
)
_SUITS: Final[dict[str, int]] = {n: suit for names, suit in _SUIT_NAMES for n in names}

_RANK_NAMES: Final[tuple[tuple[tuple[str, ...], int], ...]] = (
    (("a", "as", "ass", "ace"), ACE),
    (("10", "ten", "zehn"), TEN),
    (("k", "king", "könig", "koenig", "kö", "koe"), KING),
    (("q", "queen", "d", "dame", "da", "ober"), QUEEN),
    (("j", "jack", "b", "bube", "bub", "bauer", "unter"), JACK),
    (("9", "nine", "neun"), NINE),
)
_RANKS: Final[dict[str, int]] = {n: rank for names, rank in _RANK_NAMES for n in names}

_FILLER: Final = re.compile(r"[\s\-_.,/]+|\bof\b|\bdi\b|\ufe0f")


_KIND_CACHE: dict[str, Kind] = {}


def _normalise(token: str) -> str:
    return _FILLER.sub("", token.strip().lower().replace("\ufe0f", ""))


def _readings(text: str) -> set[Kind]:
    found: set[Kind] = set()
    for i in range(1, len(text)):
        head, tail = text[:i], text[i:]
        if head in _SUITS and tail in _RANKS:
            found.add(_SUITS[head] * 6 + _RANKS[tail])
        if head in _RANKS and tail in _SUITS:
            found.add(_SUITS[tail] * 6 + _RANKS[head])
    return found


def parse_kind(token: str) -> Kind:
    """The card kind (0..23) that ``token`` names.

    Raises :class:`NotationError` (``reason`` ``"card_unknown"`` or ``"card_ambiguous"``,
    the latter with the candidates in ``params["candidates"]``).
    """
    cached = _KIND_CACHE.get(token)
    if cached is not None:
        return cached
    text = _normalise(token)
    found = _readings(text)
    if not found:
        # A lone rank or suit; "D" is both (Dame and diamonds), so both readings count.
        if text in _RANKS:
            found = {s * 6 + _RANKS[text] for s in range(4)}
        if text in _SUITS:
            found |= {_SUITS[text] * 6 + r for r in range(6)}
    if len(found) == 1:
        kind = found.pop()
        if len(_KIND_CACHE) < 4096:
            _KIND_CACHE[token] = kind
        return kind
    if not found:
        raise NotationError("card_unknown", f"unknown card {token.strip()!r}", token=token.strip())
    names = [card_str(k * 2) for k in sorted(found)]
    raise NotationError(
        "card_ambiguous",
        f"{token.strip()!r} is ambiguous: {', '.join(names)}",
        token=token.strip(),
        candidates=names,
    )


def parse_card(token: str, hand: Mask | None = None) -> Card:
    """The card id that ``token`` names; with ``hand``, a copy from that hand.

    >>> from dokobot.engine.cards import mask_of
    >>> parse_card("♣Q", mask_of([5]))
    5
    """
    kind = parse_kind(token)
    if hand is not None:
        if hand >> (kind * 2) & 1:
            return kind * 2
        if hand >> (kind * 2 + 1) & 1:
            return kind * 2 + 1
    return kind * 2


def parse_cards(text: str) -> list[Kind]:
    """A list of card kinds separated by spaces or commas (as in ``!deal`` lines).

    Multi-word names are not allowed here; use the compact forms.

    >>> [card_str(k * 2) for k in parse_cards("CQ, H10 ♦A")]
    ['♣Q', '♥10', '♦A']
    """
    return [parse_kind(t) for t in re.split(r"[\s,]+", text.strip()) if t]
