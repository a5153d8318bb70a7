"""Computer players at a table: what the table needs of one, and how its choice is asked
for and checked."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from ..engine.game import Game
from ..engine.observation import Observation, observe
from ..engine.types import N_ACTIONS, Action, action_name

log = logging.getLogger(__name__)


class Bot(Protocol):
    """What the table needs of a computer player (see :mod:`dokobot.ai`)."""

    name: str

    def decide(self, obs: Observation) -> Action: ...

    def announce(self, obs: Observation) -> Action | None: ...


BotFactory = Callable[[str, int, bool], Bot]
"""(level, seed, duel restrictions) -> a computer player."""


def decision(bot: Bot, game: Game, seat: int) -> tuple[Action | None, Action]:
    """What ``bot`` in ``seat`` does now: (call or None, turn action)."""
    obs = observe(game, seat)
    call = bot.announce(obs)
    if call is not None and game.call_problem(seat, call) is not None:
        call = None
    action = bot.decide(obs)
    return call, action


def checked_action(game: Game, seat: int, action: Action) -> Action:
    """``action`` if it is legal for ``seat`` now; otherwise (a computer player must only
    choose legal actions) say so loudly (the tests fail on this record) and keep the game
    going with the first legal action."""
    action = game.held(seat, action)
    problem = game.problem(seat, action)
    if problem is None:
        return action
    fallback = game.legal_actions()[0]
    log.error(
        "computer player illegal action: seat %d chose %s (%s); plays %s",
        seat,
        action_name(action) if 0 <= action < N_ACTIONS else action,
        problem[0],
        action_name(fallback),
    )
    return fallback
