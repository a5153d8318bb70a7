"""Taking a poverty by value (RULES §12.1): the strong level prices taking against declining
over worlds of the hidden cards (the poor player's passed cards among them), the other
levels take by a rule measured by playing both ways (``bench/house.py``)."""

from __future__ import annotations

from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.heuristic import HeuristicPlayer
from dokobot.ai.house import TAKE_TRUMPS
from dokobot.ai.legal import legal_actions
from dokobot.ai.search import DECLINE_OPTION, TAKE_OPTION, SearchPlayer
from dokobot.engine import Game, Phase, Rules, observe
from dokobot.engine.types import DECLARE_POVERTY, DECLINE, TAKE
from tests.test_house_engine import deal, reserve

RULES = Rules(poverty=True)
OPTIONS = [TAKE_OPTION, DECLINE_OPTION]
POOR = "HJ DA D10 HA HA HK HK SA SA SK SK C10"  # three trumps, passed at once
OTHER_POOR = "DJ DK D9 HA HA HK HK SA SA SK SK C10"
STRONG_HAND = "CQ CQ SQ SQ HQ H10 H10 DQ CJ CJ CA CA"  # ten high trumps
WEAK_HAND = "DJ DK D9 D9 H9 H9 S10 S10 S9 S9 C9 CK"  # four low trumps


def _offered_last(hand: str, poor: str = POOR, seed: int = 0) -> Game:
    """Seat 1 is poor, seats 2 and 3 declined: seat 0 (holding ``hand``) is asked last, so
    declining means a redeal (0 points)."""
    g = Game.from_hands(RULES, 3, deal(RULES, {0: hand, 1: poor}, seed))
    reserve(g, {1})
    g.play(1, DECLARE_POVERTY)
    g.play(2, DECLINE)
    g.play(3, DECLINE)
    assert g.phase is Phase.EXCHANGE and g.turn == 0
    return g


def _strong(seed: int) -> SearchPlayer:
    return SearchPlayer(seed, NO_RESTRICTIONS, 0.05, fixed=True)


def test_strong_takes_a_good_poverty_and_declines_a_bad_one() -> None:
    for seed in range(2):
        good = observe(_offered_last(STRONG_HAND, seed=seed), 0)
        take, decline = _strong(seed).exchange_values(good, OPTIONS)
        assert decline == 0.0 and take > 2.0  # the last candidate: declining is a redeal
        assert _strong(seed).decide(good) == TAKE
        bad = observe(_offered_last(WEAK_HAND, seed=seed), 0)
        take, decline = _strong(seed).exchange_values(bad, OPTIONS)
        assert decline == 0.0 and take < -2.0
        assert _strong(seed).decide(bad) == DECLINE


def test_strong_reads_only_its_observation_at_the_exchange() -> None:
    # Two deals that look alike to seat 0: other passed cards, other hands elsewhere.
    a = _offered_last(STRONG_HAND, POOR, seed=1)
    b = _offered_last(STRONG_HAND, OTHER_POOR, seed=2)
    assert a.exchange is not None and b.exchange is not None
    assert a.exchange.passed != b.exchange.passed and a.hands[2] != b.hands[2]
    oa, ob = observe(a, 0), observe(b, 0)
    assert oa == ob and oa.exchange is not None and oa.exchange.passed == 0
    player = _strong(5)
    assert player.exchange_values(oa, OPTIONS) == player.exchange_values(ob, OPTIONS)
    assert player.decide(oa) == player.decide(ob)


def test_strong_gives_back_three_cards_it_priced() -> None:
    g = Game.from_hands(RULES, 3, deal(RULES, {1: POOR, 2: STRONG_HAND}, 3))
    reserve(g, {1})
    g.play(1, DECLARE_POVERTY)
    g.play(2, TAKE)
    player = _strong(3)
    while g.phase is Phase.EXCHANGE:
        obs = observe(g, 2)
        card = player.decide(obs)
        assert card in legal_actions(obs)
        g.play(2, card)
    assert g.exchange is not None and g.exchange.returned.bit_count() == 3
    assert g.phase is Phase.PLAYING


def test_normal_takes_from_the_measured_trump_count() -> None:
    # TAKE_TRUMPS trumps: take; one fewer: decline (a hand of plain cards otherwise)
    trumps = ["CQ", "CQ", "SQ", "SQ", "HQ", "HQ", "DQ", "DQ", "CJ", "CJ", "SJ", "SJ"]
    plain = ["C9", "C9", "S9", "S9", "H9", "H9", "CK", "CK", "SK", "SK", "CA", "CA"]
    for n, expected in ((TAKE_TRUMPS, TAKE), (TAKE_TRUMPS - 1, DECLINE)):
        hand = " ".join(trumps[:n] + plain[: 12 - n])
        g = _offered_last(hand)
        assert HeuristicPlayer(0, NO_RESTRICTIONS).decide(observe(g, 0)) == expected
