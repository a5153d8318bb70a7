"""Play whole games between computer players (tests and the bench), the way the host does:
on a player's turn it is first asked for a call, then for its action; every action goes
through the checked :meth:`Game.play`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dokobot.engine import DEFAULT_RULES, Game, Phase, Result, Rules, observe, score

from .base import ComputerPlayer
from .legal import legal_actions

__all__ = ["GameRecord", "play_game"]


@dataclass(slots=True)
class GameRecord:
    game: Game
    result: Result
    times: list[list[float]] = field(default_factory=lambda: [[], [], [], []])
    """Seconds per decision (announce + decide of one turn), per seat: CPU time of the
    playing thread unless ``play_game`` gets another clock."""
    choices: list[list[bool]] = field(default_factory=lambda: [[], [], [], []])
    """Per seat and decision (as in ``times``): whether the turn had more than one legal action."""


def play_game(
    players: Sequence[ComputerPlayer],
    *,
    seed: int,
    dealer: int = 3,
    rules: Rules = DEFAULT_RULES,
    game: Game | None = None,
    clock: Callable[[], float] = time.thread_time,
) -> GameRecord:
    """Play one game to the end; ``players[s]`` sits at seat ``s``."""
    g = game if game is not None else Game.deal(rules, dealer, seed)
    times: list[list[float]] = [[], [], [], []]
    choices: list[list[bool]] = [[], [], [], []]
    while g.phase is not Phase.FINISHED:
        seat = g.turn
        player = players[seat]
        choices[seat].append(len(legal_actions(observe(g, seat))) > 1)
        t0 = clock()
        if g.phase is Phase.PLAYING:
            call = player.announce(observe(g, seat))
            if call is not None:
                g.play(seat, call)
        action = player.decide(observe(g, seat))
        times[seat].append(clock() - t0)
        g.play(seat, action)
    return GameRecord(g, score(g), times, choices)
