"""The computer players' levels: one declaration per level, and the factory.

This module imports the players; the players import only :mod:`dokobot.ai.base`.

>>> from dokobot.engine import DEFAULT_RULES, Game, observe
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=2)
>>> p = make_player("random", seed=1)
>>> p.name, p.decide(observe(g, 0)), p.announce(observe(g, 0))
('random', 48, None)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .base import NO_RESTRICTIONS, ComputerPlayer, Restrictions
from .heuristic import HeuristicPlayer
from .search import OLD_SOLO_PREFILTER, SearchPlayer
from .simple import ChaosPlayer, RandomPlayer

__all__ = [
    "EASY_SLIPS",
    "LEVELS",
    "NORMAL_EXACT_CARDS",
    "NORMAL_EXACT_WORLDS",
    "OFFERED_LEVELS",
    "SEARCHING_LEVELS",
    "Level",
    "make_player",
]

EASY_SLIPS = 0.9
"""The share of ``easy``'s card turns where a beginner errs (:func:`~dokobot.ai.heuristic.slip_card`:
the fox led or thrown away, a dear win or a fat trick let go in the last seat, a ten onto a
known opponent's trick) that it plays the mistake. Chosen for the same strength in play as
the easy level of December 3: one easy player against three normal ones on the same deals
loses 0.51 points per game (400 games; 0.8: 0.44, 1.0: 0.57; docs/lab/2026-12-04-review.md)."""

NORMAL_EXACT_CARDS = 3
NORMAL_EXACT_WORLDS = 8
"""``normal`` (and ``easy`` where it does not slip) plays its last :data:`NORMAL_EXACT_CARDS`
cards by the double-dummy solver: the card with the best mean over every consistent layout,
or over :data:`NORMAL_EXACT_WORLDS` sampled ones (uniform, fixed work). Its rules alone
misplayed the last tricks (the review flagged more of ``normal``'s cards there than of
``easy``'s). One such player among three with the rules alone gains 0.17 points per game
(se 0.03, 200 deals, each seat) for about 55 ms of CPU per game of four players (the rules alone:
11 ms); 16, 32 and 64 worlds gained 0.16, 0.19 and 0.21 on the same deals at 2, 3 and 5 times
the cost, the last four cards with 16 worlds 0.23 at 17 times (docs/lab/2026-12-04-review.md)."""


@dataclass(frozen=True, slots=True)
class Level:
    """One computer level: its name, whether players may choose it, and how to make one
    (seed, restrictions, time budget in seconds, fixed work); ``searches``: it searches
    within the time budget (the other levels ignore the budget), and its own seeds drive
    its search."""

    name: str
    offered: bool
    make: Callable[[int, Restrictions, float | None, bool], ComputerPlayer]
    searches: bool = False


_EXACT: Final = {"exact_cards": NORMAL_EXACT_CARDS, "exact_worlds": NORMAL_EXACT_WORLDS}

REGISTRY: tuple[Level, ...] = (
    Level("random", True, lambda seed, r, _budget, _fixed: RandomPlayer(seed, r)),
    Level("chaos", False, lambda seed, r, _budget, _fixed: ChaosPlayer(seed, r)),
    Level(
        "easy",
        True,
        lambda seed, r, _budget, _fixed: HeuristicPlayer(seed, r, slips=EASY_SLIPS, **_EXACT),
    ),
    Level("normal", True, lambda seed, r, _budget, _fixed: HeuristicPlayer(seed, r, **_EXACT)),
    Level(
        "strong",
        True,
        lambda seed, r, budget, fixed: SearchPlayer(seed, r, budget_s=budget, fixed=fixed),
        searches=True,
    ),
    Level(
        "strong_prev",
        False,
        lambda seed, r, budget, fixed: SearchPlayer(
            seed, r, budget_s=budget, fixed=fixed, inference=False, call_z=0.0, **OLD_SOLO_PREFILTER
        ),
        searches=True,
    ),
    Level(
        "strong_uct",
        False,
        lambda seed, r, budget, fixed: SearchPlayer(
            seed,
            r,
            budget_s=budget,
            fixed=fixed,
            exact_cards=0,
            inference=False,
            call_z=0.0,
            **OLD_SOLO_PREFILTER,
        ),
        searches=True,
    ),
)
"""Every level, weakest first (``chaos`` is for fuzzing and not offered; ``strong_uct`` is
the strong level as it was before exact endgames, UCT to the last card, and ``strong_prev``
the strong level as it was before learned inference, worlds drawn uniformly: both kept for
``bench/ai.py`` to compare with, and both with the solo prefilter of their day)."""

LEVELS = tuple(level.name for level in REGISTRY)
OFFERED_LEVELS = tuple(level.name for level in REGISTRY if level.offered)
"""The levels players may choose: options, commands, config and the command line all take
them from here."""
SEARCHING_LEVELS = tuple(level.name for level in REGISTRY if level.searches)
"""The levels that search within a time budget (``bench/ai.py`` shifts their seeds with
``--search-seed``)."""

_BY_NAME = {level.name: level for level in REGISTRY}


def make_player(
    level: str,
    *,
    seed: int,
    restrictions: Restrictions | None = None,
    budget_s: float | None = None,
    fixed: bool = False,
) -> ComputerPlayer:
    """A computer player of ``level`` (one of :data:`LEVELS`).

    ``budget_s`` is the thinking time per decision of the ``strong`` player (CPU seconds of
    its thread); with ``fixed`` it does a fixed amount of work derived from ``budget_s``
    instead, and decides the same on every machine. Both are ignored by the other levels.
    """
    found = _BY_NAME.get(level)
    if found is None:
        raise ValueError(f"unknown computer level {level!r}; expected one of {', '.join(LEVELS)}")
    return found.make(seed, restrictions or NO_RESTRICTIONS, budget_s, fixed)
