"""The random player (a baseline) and the chaos player (any legal action, for fuzzing)."""

from __future__ import annotations

from dokobot.engine import (
    DECLARE_WEDDING,
    HEALTHY,
    Action,
    Observation,
    Phase,
)
from dokobot.engine.cards import CLUB_QUEENS
from dokobot.engine.types import is_solo

from .base import Restrictions
from .legal import decision_rng, legal_actions, legal_calls

__all__ = ["ChaosPlayer", "RandomPlayer"]


class RandomPlayer:
    """Says healthy, never calls, plays a uniformly random legal card."""

    name = "random"

    def __init__(self, seed: int, restrictions: Restrictions) -> None:
        self.seed = seed
        self.restrictions = restrictions

    def decide(self, obs: Observation) -> Action:
        actions = legal_actions(obs)
        if not actions:
            raise ValueError("it is not this player's turn")
        if obs.phase is Phase.RESERVATIONS:
            return HEALTHY
        rng = decision_rng(self.seed, obs, "decide")
        if obs.phase is Phase.DECLARATIONS:
            # Only reached when forced (or after a reservation it never makes).
            if DECLARE_WEDDING in actions:
                return DECLARE_WEDDING
            return rng.choice([a for a in actions if is_solo(a)])
        return rng.choice(actions)

    def announce(self, obs: Observation) -> Action | None:
        return None


class ChaosPlayer:
    """Any legal action at all: random reservations and declarations, calls at random times.

    Restrictions are honoured (no calls / no solo unless forced to).
    """

    name = "chaos"

    def __init__(self, seed: int, restrictions: Restrictions, call_rate: float = 0.15) -> None:
        self.seed = seed
        self.restrictions = restrictions
        self.call_rate = call_rate

    def decide(self, obs: Observation) -> Action:
        actions = legal_actions(obs)
        if not actions:
            raise ValueError("it is not this player's turn")
        rng = decision_rng(self.seed, obs, "decide")
        if self.restrictions.no_solo and obs.forced < 0:
            if obs.phase is Phase.RESERVATIONS and obs.hand & CLUB_QUEENS != CLUB_QUEENS:
                return HEALTHY
            if obs.phase is Phase.DECLARATIONS and DECLARE_WEDDING in actions:
                return DECLARE_WEDDING
        return rng.choice(actions)

    def announce(self, obs: Observation) -> Action | None:
        if self.restrictions.no_calls:
            return None
        calls = legal_calls(obs)
        if not calls:
            return None
        rng = decision_rng(self.seed, obs, "announce")
        if rng.random() >= self.call_rate:
            return None
        return rng.choice(calls)
