"""The interface between the host and computer players (the players import this module;
the levels and the factory are in :mod:`dokobot.ai.levels`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from dokobot.engine import Action, Observation

__all__ = ["NO_RESTRICTIONS", "ComputerPlayer", "Restrictions"]


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
    computer player's move, so replays stay exact; ``fixed=True`` in
    :func:`~dokobot.ai.levels.make_player`
    makes it deterministic too). An instance keeps no mutable state between calls, so it
    may be used from a worker thread.
    """

    name: str

    def decide(self, obs: Observation) -> Action: ...

    def announce(self, obs: Observation) -> Action | None: ...
