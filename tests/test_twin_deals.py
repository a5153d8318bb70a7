"""Twin deals: the two copies of some kinds exchanged between the seats that hold them.

Nobody at the table can tell such a deal from the original (the two copies of a card are
the same card), so every observation, and with it every computer player's choice, hint
and review, must be the same in both (issue 36, item 13: the copy numbers used to leak the
other copy's seat into the observation, and twin pairs got different hints).
"""

from __future__ import annotations

import random

import pytest

from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.levels import make_player
from dokobot.ai.review import review_game
from dokobot.ai.search import SearchPlayer
from dokobot.engine import DEFAULT_RULES, Game, Phase, observe
from dokobot.engine.rules import Rules
from dokobot.host.reviews import answer

from .test_ai import FAST

HOUSE = Rules(piglets=True, poverty=True, throw_in=True)


def twin_deal(g: Game, rng: random.Random) -> list[int]:
    """``g``'s start hands with the copies of about half the kinds held by two different
    seats exchanged (at least one)."""
    hands = list(g.start_hands)
    split = [
        k
        for k in range(24)
        if [s for s in range(4) if hands[s] >> (2 * k) & 1]
        != [s for s in range(4) if hands[s] >> (2 * k + 1) & 1]
    ]
    chosen = [k for k in split if rng.random() < 0.5] or split[:1]
    for k in chosen:
        for s in range(4):
            if (hands[s] >> (2 * k) & 3) in (1, 2):
                hands[s] ^= 3 << (2 * k)
    return hands


def twins(seed: int, rules: Rules = DEFAULT_RULES) -> tuple[Game, Game]:
    g = Game.deal(rules, seed % 4, seed)
    h = Game.from_hands(rules, g.dealer, twin_deal(g, random.Random(seed)))
    assert h.start_hands != g.start_hands
    return g, h


@pytest.mark.long
def test_twin_deals_give_every_seat_the_same_observation_and_choice(
    request: pytest.FixtureRequest,
) -> None:
    """Four ``normal`` players play each deal; the twin replays the same moves (each card
    as the copy its player holds there). At every step every seat and a spectator see the
    same; at some card turns the strong level (same seed, fixed work) chooses the same card
    and the hint's card values are the same (20 deals; ``--slow``: 200)."""
    strong_checked = 0
    for seed in range(200 if request.config.getoption("--slow") else 20):
        g, h = twins(seed, HOUSE if seed % 2 else DEFAULT_RULES)
        players = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        while g.phase is not Phase.FINISHED:
            for s in range(-1, 4):
                assert observe(g, s) == observe(h, s), (seed, s, len(g.log))
            seat = g.turn
            obs = observe(g, seat)
            if g.phase is Phase.PLAYING and seed < 8 and len(g.tricks) in (2, 7):
                a = make_player("strong", seed=seed, budget_s=FAST, fixed=True)
                b = make_player("strong", seed=seed, budget_s=FAST, fixed=True)
                assert a.decide(obs) == b.decide(observe(h, seat))
                hint = SearchPlayer(seed, NO_RESTRICTIONS, FAST, fixed=True)
                again = SearchPlayer(seed, NO_RESTRICTIONS, FAST, fixed=True)
                assert hint.card_values(obs, "hint") == again.card_values(observe(h, seat), "hint")
                strong_checked += 1
            action = players[seat].decide(obs)
            g.play(seat, action)
            h.play(seat, action)  # the copy this seat holds in the twin deal
        assert [observe(g, s) for s in range(4)] == [observe(h, s) for s in range(4)]
    assert strong_checked >= 8


def test_twin_deals_get_the_same_review() -> None:
    reviewed = 0
    for seed in range(40):
        g, h = twins(seed)
        players = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        for _ in range(24):
            if g.phase is Phase.FINISHED:
                break
            action = players[g.turn].decide(observe(g, g.turn))
            g.play(g.turn, action)
            h.play(h.turn, action)
        if g.phase is not Phase.PLAYING:
            continue
        seat = g.turn
        a = review_game(g, seats=(seat,), budget_s=0.02, fixed=True, seed=seed)
        b = review_game(h, seats=(seat,), budget_s=0.02, fixed=True, seed=seed)
        assert a.decisions == b.decisions > 0
        assert [(m.index, m.better, m.loss) for m in a.mistakes] == [
            (m.index, m.better, m.loss) for m in b.mistakes
        ]
        for lang in ("en", "de"):
            assert answer(lang, 1, a.decisions, a.mistakes) == answer(
                lang, 1, b.decisions, b.mistakes
            )
        reviewed += 1
        if reviewed == 3:
            break
    assert reviewed == 3
