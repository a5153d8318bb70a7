"""Static rule settings of a game (the rule options of RULES §11 and the house rules of §12
that touch play), and the deck they imply.

>>> r = Rules(nines=False)
>>> r.hand_size, r.deck.bit_count(), r.call_deadline(1)
(10, 40, 9)
>>> DEFAULT_RULES.hand_size, DEFAULT_RULES.call_deadline(1)
(12, 11)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .cards import FULL_DECK, NINE, SUITS, Mask, both

#: Which trick clarifies an announced wedding (RULES §12.6), the option's values.
WEDDING_TRICKS: Final = ("first", "trump", "plain")
NINES: Final[Mask] = sum(both(s, NINE) for s in SUITS)
"""The eight nines (they leave the deck without nines)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Rule variant of one game. Immutable, shared by every state of the game.

    ``tournament``: precedence mandatory solo > lust solo > wedding, mandatory solos lead.
    ``lust_solo_leads``: a lust solo's soloist leads trick 1 (off: first hand leads).
    ``second_heart10_wins``: of two ♥10 in a trick the second wins.
    House rules (RULES §12; the defaults are the plain game): ``nines`` (off: 40 cards),
    ``wedding_trick`` (one of :data:`WEDDING_TRICKS`), ``piglets``, ``poverty``,
    ``throw_in``. Bock rounds are a matter of the series, not of one game.
    """

    tournament: bool = False
    lust_solo_leads: bool = False
    second_heart10_wins: bool = False
    nines: bool = True
    wedding_trick: str = "first"
    piglets: bool = False
    poverty: bool = False
    throw_in: bool = False
    deck: Mask = field(init=False, repr=False, compare=False)
    """The cards in play."""
    hand_size: int = field(init=False, repr=False, compare=False)
    """Cards per hand, which is also the number of tricks."""

    def __post_init__(self) -> None:
        if self.wedding_trick not in WEDDING_TRICKS:
            raise ValueError(f"wedding_trick must be one of {WEDDING_TRICKS}")
        deck = FULL_DECK if self.nines else FULL_DECK & ~NINES
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "hand_size", deck.bit_count() // 4)

    @property
    def deck_size(self) -> int:
        return self.hand_size * 4

    def call_deadline(self, level: int, shift: int = 0) -> int:
        """Cards a player must still hold to make a call of ``level`` (1 re/kontra .. 5
        black) normally; ``shift`` tricks later after a late wedding clarification."""
        return self.hand_size - level - shift


DEFAULT_RULES = Rules()
TOURNAMENT_RULES = Rules(tournament=True)
