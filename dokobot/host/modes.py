"""Table modes (RULES §9): series lengths, settlement kinds, and the rules of the duel.

* ``free``: an open-ended score list, no chips (``tournament`` on: a TSR series).
* ``single``: every game is settled on its own: stake × game value per player, capped by
  ``limit``.
* ``fixed4``: series of four games; the series winner takes the fixed stake from each loser.
* ``duel``: two people opposite each other and two computer players, four games, fixed stake
  between the two people. The deal puts the people into different parties of a normal game;
  weddings follow the duel rules (:func:`duel_wedding_after_trick`).

>>> from dokobot.host.options import TableOptions
>>> series_length(TableOptions()), series_length(TableOptions(mode="duel"))
(None, 4)
>>> series_length(TableOptions(tournament=True, series_length=8)), settlement_kind(TableOptions(mode="single"))
(8, 'game')
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Final

from ..engine.cards import CLUB_QUEENS, Mask
from ..engine.game import Game
from ..engine.rules import Rules
from ..engine.types import GameType
from .notes import Refusal
from .options import TableOptions
from .stakes import Kind

FIXED_SERIES: Final = 4
"""Games of a ``fixed4`` or ``duel`` series."""

DUEL_ALLOW_WEDDINGS: Final = True
"""Duel deals may give both ♣Q to one player (the duel's wedding rules then apply).

Off, every duel deal is a normal game with the two people in different parties.
"""

MAX_DEAL_ATTEMPTS: Final = 512


def series_length(options: TableOptions) -> int | None:
    """Counted games of a series, or None for an open-ended score list."""
    if options.tournament:
        return options.series_length
    if options.mode in ("fixed4", "duel"):
        return FIXED_SERIES
    return None


def settlement_kind(options: TableOptions) -> Kind | None:
    """How chips are settled: per ``game``, per ``series``, or not at all."""
    if options.mode == "single":
        return "game"
    if options.mode in ("fixed4", "duel"):
        return "series"
    return None


# ---------------------------------------------------------------------- duel seating
def duel_order(is_bot: Sequence[bool]) -> list[int] | None:
    """The new seat order that puts the two people opposite, or None if they already are.

    Refuses (``duel_seating``) unless exactly two people and two computer players sit.

    >>> duel_order([False, True, False, True]) is None, duel_order([True, False, True, False])
    (True, None)
    >>> duel_order([False, False, True, True])
    [0, 2, 1, 3]
    """
    people = [i for i, b in enumerate(is_bot) if not b]
    bots = [i for i, b in enumerate(is_bot) if b]
    if len(is_bot) != 4 or len(people) != 2:
        raise Refusal("duel_seating", people=len(people), bots=len(bots))
    if people[1] - people[0] == 2:
        return None
    return [people[0], bots[0], people[1], bots[1]]


# ---------------------------------------------------------------------- duel deal
def duel_deal_ok(hands: Sequence[Mask], people: Sequence[int]) -> bool:
    """Whether a deal is fit for a duel.

    Fit: exactly one of the two people holds exactly one ♣Q and the other ♣Q is with a
    computer player (a normal game then has one person in each party); with
    :data:`DUEL_ALLOW_WEDDINGS`, also any deal in which one player holds both ♣Q.
    """
    counts = [(h & CLUB_QUEENS).bit_count() for h in hands]
    if 2 in counts:
        return DUEL_ALLOW_WEDDINGS
    return sorted(counts[p] for p in people) == [0, 1]


def derive_seed(seed: int, attempt: int) -> int:
    """The seed of redraw ``attempt`` (1, 2, ...) of a deal with ``seed``."""
    if attempt == 0:
        return seed
    return (seed * 6_364_136_223_846_793_005 + attempt * 1_442_695_040_888_963_407) % (1 << 62)


def duel_deal(
    rules: Rules,
    dealer: int,
    seed: int,
    people: Sequence[int],
    *,
    mandatory_owed: Sequence[bool] = (False, False, False, False),
    forced_soloist: int | None = None,
) -> Game:
    """A game dealt from ``seed``, redrawn from derived seeds until :func:`duel_deal_ok`.

    >>> from dokobot.engine.rules import DEFAULT_RULES
    >>> g = duel_deal(DEFAULT_RULES, 3, 12345, (0, 2))
    >>> duel_deal_ok(g.start_hands, (0, 2))
    True
    """
    game = None
    for attempt in range(MAX_DEAL_ATTEMPTS):
        game = Game.deal(
            rules,
            dealer,
            derive_seed(seed, attempt),
            mandatory_owed=mandatory_owed,
            forced_soloist=forced_soloist,
        )
        if duel_deal_ok(game.start_hands, people):
            return game
    assert game is not None  # pragma: no cover - about 1 in 10**300
    return game  # pragma: no cover


# ---------------------------------------------------------------------- duel wedding
class DuelWedding(Enum):
    """What a trick among the first three does to an announced wedding in a duel."""

    OPEN = "open"
    """Not clarified yet (a trick by the wrong player does not count)."""
    PARTNER = "partner"
    ALONE = "alone"
    """The person who announced won all three tricks: he plays on as a solo."""
    CANCEL = "cancel"


def clarifies(declarer: int, winner: int, people: Sequence[int]) -> bool:
    """Whether a trick won by ``winner`` clarifies the wedding of ``declarer`` in a duel:
    a person's wedding only by a computer player, a computer's wedding only by a person."""
    if winner == declarer:
        return False
    return (winner in people) != (declarer in people)


def duel_wedding_after_trick(game: Game, people: Sequence[int]) -> DuelWedding:
    """Apply the duel's wedding rules after trick 1, 2 or 3 of an open wedding.

    The engine makes any other trick winner the partner; in a duel only a computer player
    clarifies a person's wedding and only a person a computer's wedding. This sets the
    game's parties accordingly (as if the engine had decided so) and says what happened;
    on :attr:`DuelWedding.CANCEL` the caller ends the game without score.
    """
    if game.game_type is not GameType.WEDDING:
        raise ValueError("not a wedding")
    declarer = game.declarer
    winners = [w for _, _, w in game.tricks[:3]]
    for k, winner in enumerate(winners, 1):
        if clarifies(declarer, winner, people):
            game.re_seats = 1 << declarer | 1 << winner
            game.wedding_open = False
            game.wedding_trick = k
            game.shift = k - 1
            return DuelWedding.PARTNER
    game.re_seats = 1 << declarer
    if len(winners) < 3:
        game.wedding_open = True
        game.wedding_trick = 0
        game.shift = 0
        return DuelWedding.OPEN
    game.wedding_open = False
    game.wedding_trick = 0
    game.shift = 2
    if declarer in people and all(w == declarer for w in winners):
        return DuelWedding.ALONE
    return DuelWedding.CANCEL
