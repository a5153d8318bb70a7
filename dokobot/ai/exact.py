"""Card values in the last tricks by exact solving over layouts of the unseen cards.

With :data:`~dokobot.ai.solver.MAX_TRICKS` cards or fewer in hand, every card the player may
play is valued in each world by the double-dummy solver (:func:`~dokobot.ai.solver.solve`):
the score it leads to with perfect play of everybody in that world. If the layouts
consistent with the observation are few (:func:`~dokobot.ai.layouts.layouts`), each is
solved once with its weight and the result is exact for the uniform prior over deals; else
worlds are sampled until the budget is spent. Both are :class:`~dokobot.ai.paired.Paired`.

>>> import random
>>> from dokobot.engine import DEFAULT_RULES, Game, HEALTHY, observe
>>> from dokobot.ai.budget import Budget
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> for _ in range(4):
...     g.push(g.turn, HEALTHY)
>>> rng = random.Random(1)
>>> while len(g.tricks) < 11:
...     g.push(g.turn, rng.choice(g.legal_actions()))
>>> p = exact_values(observe(g, g.turn), random.Random(2), Budget(1.0, 100))
>>> p is not None and p.exact
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from dokobot.engine import Mask, Observation, Phase

from .budget import Budget
from .layouts import layouts
from .paired import Paired
from .solver import MAX_TRICKS, solve

__all__ = ["SOLVE_S", "exact_values", "solvable"]

SOLVE_S: Final = (0.0, 0.0002, 0.0005, 0.003, 0.05)
"""About the CPU seconds of one solve by cards in hand (CPython, a current core): how many
layouts a budget may enumerate."""
MIN_WORLDS: Final = 8
"""The fewest sampled worlds of an evaluation (whatever the budget)."""


def solvable(obs: Observation, max_cards: int = MAX_TRICKS) -> bool:
    """Whether ``obs`` is a card turn the solver handles: at most ``max_cards`` in hand,
    the parties settled, a choice of cards."""
    return (
        obs.phase is Phase.PLAYING
        and obs.turn == obs.seat
        and 0 < obs.hand.bit_count() <= min(max_cards, MAX_TRICKS)
        and not obs.wedding_open
    )


def exact_values(
    obs: Observation,
    rng: random.Random,
    budget: Budget,
    sampler: Callable[[random.Random], list[Mask]] | None = None,
    *,
    enumerate_cap: float = 1.0,
    min_worlds: int = 0,
    weigh: Callable[[list[Mask]], float] | None = None,
) -> Paired | None:
    """Each legal card's score (one of twins) in each world, solved exactly (``None``: not a
    position for the solver). The layouts are enumerated if all fit in ``enumerate_cap``
    times the budget (in fixed mode: if there are at most ``budget.iterations``); else
    worlds come from ``sampler`` (default: :meth:`Observation.sample_hands`) until the budget
    is spent (fixed: ``budget.iterations`` worlds), at least :data:`MIN_WORLDS` (or
    ``min_worlds``). ``weigh``: a factor on each enumerated layout's weight (the learned
    inference's tilt, :func:`~dokobot.ai.inference.layout_weight`)."""
    if not solvable(obs):
        return None
    per = SOLVE_S[obs.hand.bit_count()]
    if budget.iterations is not None:
        limit = int(budget.iterations * enumerate_cap)
    else:
        limit = max(MIN_WORLDS, int(budget.seconds * enumerate_cap / per))
    least = max(MIN_WORLDS, min_worlds)
    found = layouts(obs, limit)
    if found is not None:
        values = [_values(obs, hands) for hands, _ in found]
        weights = [float(w) * (1.0 if weigh is None else weigh(h)) for h, w in found]
        p = Paired(values, weights, exact=True)
        p.seconds = budget.used()
        return p
    draw = sampler or obs.sample_hands
    values = []
    while len(values) < least or (
        len(values) < (budget.iterations or 0) if budget.fixed else not budget.spent()
    ):
        values.append(_values(obs, draw(rng)))
    p = Paired(values, [1.0] * len(values))
    p.seconds = budget.used()
    return p


def _values(obs: Observation, hands: list[Mask]) -> dict[int, float]:
    return {c: float(v) for c, v in solve(obs.world(hands)).items()}
