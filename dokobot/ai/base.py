"""The interface between the host and computer players.

>>> from dokobot.engine import DEFAULT_RULES, Game, observe
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=2)
>>> p = make_player("random", seed=1)
>>> p.name, p.decide(observe(g, 0)), p.announce(observe(g, 0))
('random', 48, None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from dokobot.engine import Action, Observation

__all__ = ["LEVELS", "ComputerPlayer", "Restrictions", "make_player"]

LEVELS = ("random", "chaos", "easy", "normal", "strong")
OFFERED_LEVELS = ("random", "easy", "normal", "strong")
"""The levels players may choose (``chaos`` is for fuzzing): options, commands, config and
the command line all take them from here."""


@dataclass(frozen=True, slots=True)
class Restrictions:
    """Limits on a computer player (duel mode, RULES §9): no announcements, no solo.

    A wedding may still be announced; a forced solo (tournament) is still played.
    """

    no_calls: bool = False
    no_solo: bool = False


NO_RESTRICTIONS = Restrictions()


class ComputerPlayer(Protocol):
    """What the host asks a computer player.

    ``decide`` returns the turn action (reservation, declaration or card); ``announce`` an
    optional call to make now (asked before ``decide`` on the player's turn). Both see only
    the :class:`Observation` and must return legal actions. All levels but ``strong`` are
    deterministic given the player's seed and the observation; ``strong`` thinks for a time
    budget, so its decisions also depend on the machine's speed (the host journals every
    computer player's move, so replays stay exact; ``fixed=True`` in :func:`make_player`
    makes it deterministic too). An instance keeps no mutable state between calls, so it
    may be used from a worker thread.
    """

    name: str

    def decide(self, obs: Observation) -> Action: ...

    def announce(self, obs: Observation) -> Action | None: ...


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
    r = restrictions or NO_RESTRICTIONS
    if level == "random":
        from .simple import RandomPlayer

        return RandomPlayer(seed, r)
    if level == "chaos":
        from .simple import ChaosPlayer

        return ChaosPlayer(seed, r)
    if level in ("easy", "normal"):
        from .heuristic import HeuristicPlayer

        return HeuristicPlayer(seed, r, noise=0.25 if level == "easy" else 0.0)
    if level == "strong":
        from .search import SearchPlayer

        return SearchPlayer(seed, r, budget_s=budget_s, fixed=fixed)
    raise ValueError(f"unknown computer level {level!r}; expected one of {', '.join(LEVELS)}")
