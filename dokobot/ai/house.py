"""House-rule choices of the computer players (RULES §12): throw in, announce or take a
poverty, which cards to pass and to give back. Shared by every level above ``random``; the
``strong`` level decides taking a poverty and what to give back by its search instead
(:meth:`~dokobot.ai.search.SearchPlayer.exchange_values`). The thresholds are measured by
playing deals out (``bench/house.py``), never by the search's biased values.

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
    "STRONG_THROW_IN_BELOW",
    "TAKE_TRUMPS",
    "THROW_IN_BELOW",
    "house_action",
    "house_plan",
    "pass_choice",
    "return_candidates",
    "return_choice",
    "takes_poverty",
]

_NORMAL: Final = SCHEMES[NORMAL_SCHEME]
TAKE_TRUMPS: Final = 9
"""The ``normal`` and ``easy`` levels take a poverty with at least this many trumps of their
own (the taker gets at most 3 more). Measured by playing each take-or-decline decision of
four ``normal`` players both ways to the end (``python bench/house.py``, deals from 10000
on): the gain of taking over declining is negative up to 8 trumps and positive from 9,
whether the other players take from 8, 9 or 10 trumps (with 8 trumps -0.71, -0.38, -0.83
points per game; with 9 +0.70, +1.20, +1.07; ± 0.1 to 0.3; four ``easy`` players: -0.38 and
+1.57). The old rule, from 7, lost 2.0 points each time it took with 7
(docs/lab/2026-12-02-house-rule-judgement.md)."""

THROW_IN_BELOW: Final = 8.5
"""The ``normal`` and ``easy`` levels throw in (when they may) only a hand whose normal-game
strength (:func:`~dokobot.ai.heuristic.normal_strength`) is below this: where playing on is worth
less than a redeal. Measured without any search by playing every hand that may throw in
to the end with four ``normal`` players (``python bench/house.py``: 5,321 hands of 40,000
deals, seeds 10000..; its seat's score minus the seat's mean score, what a redeal is worth
to it), points per game by strength (± one standard error): below 4 -2.87 (±0.10), 5..5.5
-1.91, 6..6.5 -1.29 (±0.12), 7..7.5 -0.56 (±0.13), 7.5..8 -0.49, 8..8.5 +0.06 (±0.16),
8.5..9 -0.09, 9..10 +0.37, 10 and up +1.29; a least-squares line over 4..10 crosses 0 at
8.48 (±0.13); for four ``easy`` players at 8.34 (±0.16). The strong level's playout values
had put that point near 7: they are biased upward
(docs/lab/2026-12-02-house-rule-judgement.md)."""


STRONG_THROW_IN_BELOW: Final = 8.0
"""The ``strong`` level throws in (when it may) a hand whose normal-game strength is below
this; it plays better than ``normal``, so playing on is worth a redeal to it from a weaker
hand. Measured (``python bench/house.py --parts strong``): 100 hands that may throw in, of
strength 6 to 8, each played on by ``strong`` against three ``normal`` players scored -0.77
(± 0.37) points a game (6..7: -0.90 ± 0.48, 7..8: -0.60 ± 0.59; ``normal`` in its place -1.29),
while its search priced them at -0.10: the playout values are biased upward (+0.67 ± 0.38 on
these hands), so the search no longer decides a throw-in
(docs/lab/2026-12-02-house-rule-judgement.md)."""


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


def takes_poverty(hand: Mask, take_trumps: int = TAKE_TRUMPS) -> bool:
    """Whether a player with ``hand`` takes a poverty offered to him by the rule of the
    ``easy`` and ``normal`` levels: with at least ``take_trumps`` trumps of his own."""
    return (hand & _NORMAL.class_mask[TRUMP]).bit_count() >= take_trumps


def house_action(obs: Observation, take_trumps: int = TAKE_TRUMPS) -> Action | None:
    """The action for a house-rule decision now (the exchange of a poverty), or None if the
    turn is no such decision. ``take_trumps``: see :func:`takes_poverty`."""
    if obs.phase is not Phase.EXCHANGE or obs.turn != obs.seat or obs.exchange is None:
        return None
    return exchange_choice(obs.hand, legal_actions(obs), obs.exchange.taker, take_trumps)


def exchange_choice(
    hand: Mask, actions: list[Action], taker: int, take_trumps: int = TAKE_TRUMPS
) -> Action:
    """The rules' choice in a poverty's exchange for the player to move with ``hand``:
    take or decline (:func:`takes_poverty`), else, with no taker yet, the poor player's
    next card to pass (:func:`pass_choice`), else the taker's next card to give back
    (:func:`return_choice`)."""
    if TAKE in actions:
        return TAKE if takes_poverty(hand, take_trumps) else DECLINE
    if taker < 0:
        return pass_choice(hand, actions)
    return return_choice(hand, actions)


def pass_choice(hand: Mask, actions: list[Action]) -> Action:
    """The next card the poor player passes (one of ``actions``): his trumps are forced
    first, then the plain cards he can spare best: no aces, fewest eyes, from the shortest
    suit."""
    return min(actions, key=lambda c: _spare_key(hand, c))


def _spare_key(hand: Mask, card: int) -> tuple[int, int, int, int]:
    cls = _NORMAL.cls[card]
    if cls == TRUMP:
        return (0, 0, 0, card)
    length = (hand & _NORMAL.class_mask[cls]).bit_count()
    ace = int(POINTS[card] == 11)
    return (1, ace, length, POINTS[card])


def _return_key(hand: Mask, card: int) -> tuple[int, int, int, int]:
    cls = _NORMAL.cls[card]
    if cls == TRUMP:
        return (1, _NORMAL.key[card], 0, card)
    length = (hand & _NORMAL.class_mask[cls]).bit_count()
    return (0, int(POINTS[card] == 11), length, -POINTS[card])


def return_choice(hand: Mask, actions: list[Action]) -> Action:
    """The next card a poverty's taker gives back (one of ``actions``, the cards he may
    give): plain cards of his shortest suits first (voids to trump in), no aces while other
    plain cards remain, trumps only if he must."""
    cards = actions or distinct_cards(hand)
    return min(cards, key=lambda c: _return_key(hand, c))


RETURN_CANDIDATES: Final = 6
"""The cards among which the ``strong`` level prices the sets to give back."""


def return_candidates(hand: Mask, actions: list[Action]) -> list[Action]:
    """The cards (of ``actions``) whose sets the ``strong`` level prices when it gives back a
    poverty's cards: the :data:`RETURN_CANDIDATES` - 1 that :func:`return_choice` would
    give first, and his lowest trump (so that giving one back is priced too)."""
    ranked = sorted(actions, key=lambda c: _return_key(hand, c))
    out = ranked[: RETURN_CANDIDATES - 1]
    trumps = [c for c in ranked if _NORMAL.cls[c] == TRUMP and c not in out]
    return out + trumps[:1] if trumps else ranked[:RETURN_CANDIDATES]
