"""Game review: where a player lost points, judged from his own seat.

For every decision a reviewed seat made (the reservation, each call, each card with a
choice), the strong search evaluates, from that seat's :class:`Observation` at that moment
(never the hidden cards), the expected score of what was done and of the best alternative.
A decision whose expected score is at least :data:`MISTAKE` points below the best one is a
:class:`Mistake` (at least :data:`SERIOUS`: a serious one).

The evaluation is the strong level's own machinery (:meth:`SearchPlayer.card_values`,
:meth:`SearchPlayer.call_gain`, :meth:`SearchPlayer.plan_values`) with its budget per
decision, by default :data:`~dokobot.ai.search.REVIEW_BUDGET_S` (0.4 s). With
``fixed=True`` the work is fixed and the review is the same on every machine (tests, the
bench).

>>> from dokobot.engine import DEFAULT_RULES, Game, observe
>>> from dokobot.ai.levels import make_player
>>> from dokobot.ai.arena import play_game
>>> g = play_game([make_player("random", seed=s) for s in range(4)], seed=5).game
>>> r = review_game(g, seats=(0,), budget_s=0.01, fixed=True, seed=1)
>>> r.decisions > 0, all(m.seat == 0 and m.loss >= MISTAKE for m in r.mistakes)
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

from dokobot.engine import Game, Phase, observe
from dokobot.engine.types import (
    DECLARE_POVERTY,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    THROW_IN,
    Action,
    is_call,
    is_card,
    is_solo,
)

from .base import NO_RESTRICTIONS
from .legal import legal_actions
from .search import REVIEW_BUDGET_S, SearchPlayer

__all__ = ["MISTAKE", "SERIOUS", "Mistake", "Review", "review_game"]

MISTAKE: Final = 0.5
"""Points of expected score a decision must lose against the best one to be a mistake."""
SERIOUS: Final = 1.5
"""Points a serious mistake loses."""

Kind = Literal["reservation", "call", "card"]


@dataclass(frozen=True, slots=True)
class Mistake:
    """One decision that lost at least :data:`MISTAKE` points of expected score."""

    index: int
    """The position of the decision in the game's log."""
    seat: int
    trick: int
    """The trick the decision was made in, from 1 (0: before the card play)."""
    kind: Kind
    played: Action | None
    """What was done (``None``: said healthy, or made no call)."""
    better: Action | None
    """The best choice the review found (``None``: healthy, or no call)."""
    loss: float
    """Expected points lost against ``better``."""

    @property
    def serious(self) -> bool:
        return self.loss >= SERIOUS


@dataclass(slots=True)
class Review:
    """The review of some seats' decisions in one game."""

    decisions: int = 0
    """Decisions reviewed (decisions without a choice are not counted)."""
    mistakes: list[Mistake] = field(default_factory=list)
    seconds: float = 0.0
    """CPU seconds of the reviewing thread."""

    def of(self, seat: int) -> list[Mistake]:
        return [m for m in self.mistakes if m.seat == seat]


def _declared(game: Game, start: int, seat: int) -> Action | None:
    """What ``seat`` declared after saying "reservation" at log position ``start`` (None:
    a better declaration won before his turn, and nobody learned his)."""
    for s, action in game.log[start + 1 :]:
        if s == seat and (
            action in (DECLARE_WEDDING, DECLARE_POVERTY, THROW_IN) or is_solo(action)
        ):
            return action
    return None


def review_game(
    game: Game,
    seats: Iterable[int] = range(4),
    *,
    budget_s: float = REVIEW_BUDGET_S,
    fixed: bool = False,
    seed: int = 0,
) -> Review:
    """Review the decisions of ``seats`` in ``game`` (finished or not) by replaying its log
    from the deal; each decision is judged from the deciding seat's observation only."""
    reviewed = frozenset(seats)
    judge = SearchPlayer(seed, NO_RESTRICTIONS, budget_s, fixed=fixed)
    g = game.redealt()
    review = Review()
    t0 = time.thread_time()
    for index, (seat, action) in enumerate(game.log):
        if seat in reviewed:
            found = _judge(judge, g, game, index, seat, action)
            if found is not None:
                review.decisions += 1
                if found.loss >= MISTAKE:
                    review.mistakes.append(found)
        g.play(seat, action)
    review.seconds = time.thread_time() - t0
    return review


def _judge(
    judge: SearchPlayer, g: Game, game: Game, index: int, seat: int, action: Action
) -> Mistake | None:
    """The verdict on one decision (its loss may be below :data:`MISTAKE`), or ``None`` when
    the decision is not reviewed (no choice, or a kind the review does not judge)."""
    obs = observe(g, seat)
    trick = len(g.tricks) + 1 if g.phase is Phase.PLAYING else 0
    if g.phase is Phase.RESERVATIONS and action in (HEALTHY, RESERVATION):
        if obs.forced == seat:
            return None
        chosen = None if action == HEALTHY else _declared(game, index, seat)
        if action == RESERVATION and chosen is None:
            return None  # his reservation was never declared: not "healthy", and private
        plans = judge.plan_values(obs, with_healthy=True)
        planned = dict(plans)
        if len(plans) < 2 or chosen not in planned:
            return None
        better = max(planned, key=lambda p: planned[p])
        loss = planned[better] - planned[chosen]
        if loss >= MISTAKE:  # confirmed by an independent estimate (see _confirmed)
            again = dict(judge.plan_values(obs, with_healthy=True, salt="|confirm"))
            loss = _confirmed(loss, again[better] - again[chosen])
        return Mistake(index, seat, 0, "reservation", chosen, better, loss)
    if g.phase is not Phase.PLAYING:
        return None
    if is_call(action):
        gain = judge.call_gain(obs, action)
        if gain is None:
            return None
        return Mistake(index, seat, trick, "call", action, None, max(0.0, -gain))
    if not is_card(action):
        return None
    cards = {a & ~1 for a in legal_actions(obs) if is_card(a)}
    if len(cards) < 2:
        return None
    values = judge.card_values(obs)
    played = action if action in values else action ^ 1
    if played not in values:
        return None
    better = max(values, key=lambda a: values[a])
    loss = values[better] - values[played]
    if loss >= MISTAKE:  # confirmed by an independent estimate (see _confirmed)
        second = judge.card_values(obs, "confirm")
        if better in second and played in second:
            loss = _confirmed(loss, second[better] - second[played])
    return Mistake(index, seat, trick, "card", action, better, loss)


def _confirmed(first: float, second: float) -> float:
    """The loss of a decision from two independent estimates. The first chose ``better`` as
    the best of several noisy values, so it overstates the loss (the winner's curse); the
    second, made with other worlds and rollouts, does not. A mistake needs both, and counts
    what the smaller says."""
    return max(0.0, min(first, second))
