"""Throwing in (house rule throw_in) by what playing on is worth: the computer players no
longer throw in every hand that may."""

from __future__ import annotations

import math

from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.heuristic import HeuristicPlayer, normal_strength
from dokobot.ai.house import STRONG_THROW_IN_BELOW, THROW_IN_BELOW
from dokobot.ai.search import SearchPlayer
from dokobot.engine import Game, Phase, Rules, observe
from dokobot.engine.game import may_throw_in
from dokobot.engine.types import THROW_IN

RULES = Rules(throw_in=True)


def _reservations(seed: int, players: list[HeuristicPlayer] | list[SearchPlayer]) -> Game:
    g = Game.deal(RULES, seed % 4, seed)
    while g.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
        g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
    return g


def _thrown(below: float, seeds: range) -> list[tuple[int, int]]:
    """(seed, thrower) of every deal four ``normal`` players throw in."""
    found = []
    for seed in seeds:
        players = [
            HeuristicPlayer(seed * 4 + s, NO_RESTRICTIONS, throw_in_below=below) for s in range(4)
        ]
        g = _reservations(seed, players)
        throwers = [s for s, a in g.log if a == THROW_IN]
        if throwers:
            assert g.phase is Phase.FINISHED and g.cancelled == "thrown"
            found.append((seed, throwers[0]))
    return found


def test_normal_throws_in_only_hands_worth_less_than_a_redeal() -> None:
    seeds = range(600)
    always = _thrown(math.inf, seeds)  # the old rule: every hand that may
    judged = _thrown(THROW_IN_BELOW, seeds)
    assert 0 < len(judged) < len(always)
    for seed, seat in judged:
        hand = Game.deal(RULES, seed % 4, seed).start_hands[seat]
        assert may_throw_in(RULES, hand) and normal_strength(hand) < THROW_IN_BELOW
    # the hands kept are the strong ones
    kept = {s for s, _ in always} - {s for s, _ in judged}
    assert kept


def test_strong_throws_in_only_when_playing_on_is_worth_less_than_a_redeal() -> None:
    # measured: below STRONG_THROW_IN_BELOW playing on costs the strong level points
    threw = played = 0
    for seed in range(300):
        g = Game.deal(RULES, seed % 4, seed)
        for seat in range(4):
            hand = g.start_hands[seat]
            if not may_throw_in(RULES, hand):
                continue
            throws = SearchPlayer(seed, NO_RESTRICTIONS, 0.05, fixed=True)._throws_in(
                observe(g, seat)
            )
            assert throws == (normal_strength(hand) < STRONG_THROW_IN_BELOW)
            threw += throws
            played += not throws
    assert threw and played
    # four strong players: a deal with a hand below the threshold is thrown in, by such a hand
    seed = next(
        s
        for s in range(300)
        if any(
            may_throw_in(RULES, h) and normal_strength(h) < STRONG_THROW_IN_BELOW
            for h in Game.deal(RULES, s % 4, s).start_hands
        )
    )
    players = [SearchPlayer(seed * 4 + s, NO_RESTRICTIONS, 0.05, fixed=True) for s in range(4)]
    g = _reservations(seed, players)
    throwers = [s for s, a in g.log if a == THROW_IN]
    assert g.cancelled == "thrown" and len(throwers) == 1
    assert normal_strength(g.start_hands[throwers[0]]) < STRONG_THROW_IN_BELOW
