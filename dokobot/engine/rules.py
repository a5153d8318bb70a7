"""Static rule settings of a game (the rule options of RULES §11 and the house rules of §12
that touch play), and the deck they imply.

>>> r = Rules(nines=False)
>>> r.hand_size, r.deck.bit_count(), r.call_deadline(1)
(10, 40, 9)
>>> DEFAULT_RULES.hand_size, DEFAULT_RULES.call_deadline(1)
(12, 11)
>>> r = Rules(dullen="second_except_last")
>>> r.heart10_second, r.heart10_last_first
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .cards import DIAMONDS, FULL_DECK, KING, NINE, SUITS, Mask, both

#: Which trick clarifies an announced wedding (RULES §12.6), the option's values.
WEDDING_TRICKS: Final = ("first", "trump", "plain")
#: Which of two ♥10 in one trick wins (RULES §12.7), the option's values.
DULLEN: Final = ("first", "second", "second_except_last")
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
    ``throw_in``, ``dullen`` (one of :data:`DULLEN`), ``superpiglets`` (only with
    ``piglets``). Bock rounds are a matter of the series, not of one game.

    ``dullen`` other than ``first`` decides which ♥10 wins; with ``dullen first`` the
    option ``second_heart10_wins`` does (the §11 option, which tournament mode allows).
    """

    tournament: bool = False
    lust_solo_leads: bool = False
    second_heart10_wins: bool = False
    nines: bool = True
    wedding_trick: str = "first"
    piglets: bool = False
    poverty: bool = False
    throw_in: bool = False
    dullen: str = "first"
    superpiglets: bool = False
    deck: Mask = field(init=False, repr=False, compare=False)
    """The cards in play."""
    hand_size: int = field(init=False, repr=False, compare=False)
    """Cards per hand, which is also the number of tricks."""
    heart10_second: bool = field(init=False, repr=False, compare=False)
    """Of two trump ♥10 in a trick the second wins (RULES §12.7; §11's option)..."""
    heart10_last_first: bool = field(init=False, repr=False, compare=False)
    """... except in the last trick, where the first wins (``second_except_last``)."""
    trump_nines: Mask = field(init=False, repr=False, compare=False)
    """The superpiglets (RULES §12.8): both ♦9, both ♦K without nines; 0 with the rule off."""

    def __post_init__(self) -> None:
        if self.wedding_trick not in WEDDING_TRICKS:
            raise ValueError(f"wedding_trick must be one of {WEDDING_TRICKS}")
        if self.dullen not in DULLEN:
            raise ValueError(f"dullen must be one of {DULLEN}")
        deck = FULL_DECK if self.nines else FULL_DECK & ~NINES
        set_ = object.__setattr__
        set_(self, "deck", deck)
        set_(self, "hand_size", deck.bit_count() // 4)
        second = self.dullen != "first" or self.second_heart10_wins
        set_(self, "heart10_second", second)
        set_(self, "heart10_last_first", self.dullen == "second_except_last")
        nines = both(DIAMONDS, NINE if self.nines else KING)
        set_(self, "trump_nines", nines if self.superpiglets and self.piglets else 0)

    @property
    def deck_size(self) -> int:
        return self.hand_size * 4

    def second_heart10_takes(self, trick: int) -> bool:
        """Whether of two trump ♥10 in trick number ``trick`` (0 the first) the second wins
        (RULES §12.7 and the §11 option)."""
        return self.heart10_second and not (self.heart10_last_first and trick == self.hand_size - 1)

    def heart10_ranks(self, heart10: int) -> tuple[int, int]:
        """The rank at which a later trump ♥10 takes the trick from the first (``heart10``,
        the scheme's rank of the ♥10, -2 where it is no trump) in every trick but the last,
        and in the last; -2 where it does not (RULES §12.7 and the §11 option). The fast
        paths (the game, the playouts, the rollouts) read it once, not the rule.

        >>> Rules().heart10_ranks(12), Rules(dullen="second_except_last").heart10_ranks(12)
        ((-2, -2), (12, -2))
        """
        h10 = heart10 if self.heart10_second else -2
        return h10, -2 if self.heart10_last_first else h10

    def call_deadline(self, level: int, shift: int = 0) -> int:
        """Cards a player must still hold to make a call of ``level`` (1 re/kontra .. 5
        black) normally; ``shift`` tricks later after a late wedding clarification."""
        return self.hand_size - level - shift


DEFAULT_RULES = Rules()
TOURNAMENT_RULES = Rules(tournament=True)
