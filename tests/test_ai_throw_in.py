"""Throwing in (house rule throw_in) by what playing on is worth: the computer players no
longer throw in every hand that may."""

from __future__ import annotations

import math

from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.heuristic import HeuristicPlayer, normal_strength
from dokobot.ai.house import PLAY_ON_SURE, THROW_IN_BELOW, THROW_IN_SURE
from dokobot.ai.search import DEFAULT_BUDGET_S, SearchPlayer
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
    threw = played = searched = 0
    for seed in range(400):
        g = Game.deal(RULES, seed % 4, seed)
        for seat in range(4):
            hand = g.start_hands[seat]
            if not may_throw_in(RULES, hand):
                continue
            player = SearchPlayer(seed, NO_RESTRICTIONS, 0.05, fixed=True)
            obs = observe(g, seat)
            throws = player._throws_in(obs)
            strength = normal_strength(hand)
            if strength < THROW_IN_SURE or strength >= PLAY_ON_SURE:
                assert throws == (strength < THROW_IN_SURE)
            else:  # priced by the search, with at least the default budget
                seconds = DEFAULT_BUDGET_S * player.contract_factor
                values = player.plan_values(obs, with_healthy=True, seconds=seconds)
                assert throws == (max(v for _, v in values) < 0)
                searched += 1
            threw += throws
            played += not throws
        if threw and played and searched >= 3:
            return
    raise AssertionError(f"threw {threw}, played on {played}, searched {searched}")
