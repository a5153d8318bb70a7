"""House-rule choices of the computer players (RULES §12): throw in, announce or take a
poverty, which cards to pass and to give back. Shared by every level above ``random``.

Piglets and the game without nines need no choice here: the observation's trump order
(:attr:`Observation.scheme`) and deadlines already follow them.

>>> from dokobot.engine import Game, Rules, observe
>>> g = Game.deal(Rules(poverty=True), dealer=3, seed=5)
>>> house_action(observe(g, 0)) is None  # the reservation round: nothing to decide here
True
"""

from __future__ import annotations

from typing import Final

from dokobot.engine import Action, Mask, Observation, Phase
from dokobot.engine.cards import POINTS, distinct_cards
from dokobot.engine.game import POVERTY_MAX_TRUMPS, may_throw_in
from dokobot.engine.order import NORMAL_SCHEME, SCHEMES, TRUMP
from dokobot.engine.types import DECLARE_POVERTY, DECLINE, TAKE, THROW_IN

from .legal import legal_actions

__all__ = [
    "PLAY_ON_SURE",
    "TAKE_TRUMPS",
    "THROW_IN_BELOW",
    "THROW_IN_SURE",
    "house_action",
    "house_plan",
    "return_choice",
]

_NORMAL: Final = SCHEMES[NORMAL_SCHEME]
TAKE_TRUMPS: Final = 7
"""A player takes a poverty with at least this many trumps of his own (he gets at most 3)."""

THROW_IN_BELOW: Final = 7.0
"""The ``normal`` level throws in (when it may) only a hand whose normal-game strength
(:func:`~dokobot.ai.heuristic.normal_strength`) is below this: where playing on is worth
less than a redeal, which is worth 0 to every seat. Calibrated against the strong level's
value of playing on (its best plan, healthy or a solo, priced by
:meth:`~dokobot.ai.search.SearchPlayer.plan_values`, fixed budget 0.4) over the 398 hands
that may throw in among 3,050 deals (seeds 150..3199, nines on), points per game by
strength (± one standard error): below 4 -0.92 (±0.09), 4..5 -0.83, 5..5.5 -0.70, 5.5..6
-0.64, 6..6.5 -0.33 (±0.12), 6.5..7 -0.15 (±0.15), 7..7.5 -0.04 (±0.12), 7.5..8 +0.23,
8..9 +0.63, 9 and above +1.64. Below 7 playing on costs points; from 7 on it does not
(docs/lab/2026-12-02-house-rule-judgement.md)."""


THROW_IN_SURE: Final = 6.0
PLAY_ON_SURE: Final = 8.0
"""The ``strong`` level throws in a hand below strength :data:`THROW_IN_SURE` and plays on
from :data:`PLAY_ON_SURE` without a search (in the calibration every group of hands below 6
lost 0.6 points a game or more by playing on, every group from 8 won 0.6 or more); between
them its search prices playing on, whose estimate with the default budget still varies by
about a point from one search to the next."""


def house_plan(obs: Observation, *, throw: bool = True) -> Action | None:
    """The house-rule reservation this hand would make (a throw-in or a poverty), if any;
    a player with such a plan says reservation. ``throw``: whether the player wants to throw
    in if he may (each level decides it by what playing on is worth to it, see
    :func:`throws_in`)."""
    if obs.forced >= 0:
        return None
    if throw and may_throw_in(obs.rules, obs.hand):
        return THROW_IN
    trumps = (obs.hand & _NORMAL.class_mask[TRUMP]).bit_count()
    if obs.rules.poverty and trumps <= POVERTY_MAX_TRUMPS:
        return DECLARE_POVERTY
    return None


def house_action(obs: Observation) -> Action | None:
    """The action for a house-rule decision now (the exchange of a poverty), or None if the
    turn is no such decision."""
    if obs.phase is not Phase.EXCHANGE or obs.turn != obs.seat or obs.exchange is None:
        return None
    actions = legal_actions(obs)
    ex = obs.exchange
    if TAKE in actions:
        trumps = (obs.hand & _NORMAL.class_mask[TRUMP]).bit_count()
        return TAKE if trumps >= TAKE_TRUMPS else DECLINE
    if ex.taker < 0:
        # The poor player: his trumps are forced first, then the plain cards he can spare
        # best: no aces, fewest eyes, from the shortest suit.
        return min(actions, key=lambda c: _spare_key(obs.hand, c))
    return return_choice(obs.hand, actions)


def _spare_key(hand: Mask, card: int) -> tuple[int, int, int, int]:
    cls = _NORMAL.cls[card]
    if cls == TRUMP:
        return (0, 0, 0, card)
    length = (hand & _NORMAL.class_mask[cls]).bit_count()
    ace = int(POINTS[card] == 11)
    return (1, ace, length, POINTS[card])


def return_choice(hand: Mask, actions: list[Action]) -> Action:
    """The next card a poverty's taker gives back (one of ``actions``, the cards he may
    give): plain cards of his shortest suits first (voids to trump in), no aces while other
    plain cards remain, trumps only if he must."""
    cards = actions or distinct_cards(hand)

    def key(card: int) -> tuple[int, int, int, int]:
        cls = _NORMAL.cls[card]
        if cls == TRUMP:
            return (1, _NORMAL.key[card], 0, card)
        length = (hand & _NORMAL.class_mask[cls]).bit_count()
        return (0, int(POINTS[card] == 11), length, -POINTS[card])

    return min(cards, key=key)
