"""The strong player's time budget: it thinks for its whole budget and stops in time.

The search reads its clocks through :class:`Budget` (``Budget.cpu_clock``, thread CPU time,
and ``Budget.wall_clock``, the safety cap). Here both are one counting clock that moves
:data:`TICK` seconds at every reading, so "time" is the number of deadline checks the search
made: the tolerances (10 %) hold on any machine however loaded, and still fail if a deadline
is ignored (the search would run to the cap) or the budget is left unused (the old fixed work
used about a quarter of it). The suite times nothing; ``bench/ai.py`` measures real CPU.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator

import pytest

from dokobot.ai import make_player
from dokobot.ai.arena import play_game
from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.legal import legal_actions
from dokobot.ai.search import Budget, SearchPlayer, uct_search
from dokobot.engine import DEFAULT_RULES, HEALTHY, Game, Observation, Phase, observe
from dokobot.engine.cards import CLUBS, DIAMONDS, HEARTS, JACK, QUEEN, SPADES, TEN, card_of

TICK = 1e-4
"""Seconds the counting clock moves at each reading."""


class CountingClock:
    """A clock that moves :data:`TICK` at every reading."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return self.readings * TICK


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[CountingClock]:
    counting = CountingClock()
    monkeypatch.setattr(Budget, "cpu_clock", staticmethod(counting))
    monkeypatch.setattr(Budget, "wall_clock", staticmethod(counting))
    yield counting


def _card_turns(n: int) -> list[Observation]:
    """Observations of ``n`` card turns with a choice, early, middle and late in a game."""
    out: list[Observation] = []
    driver = make_player("normal", seed=3)
    seed = 0
    while len(out) < n:
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        for _ in range(4):
            g.play(g.turn, HEALTHY)
        steps = (7 * seed) % 40
        for _ in range(steps):
            g.play(g.turn, driver.decide(observe(g, g.turn)))
        seed += 1
        if g.phase is Phase.PLAYING and len(legal_actions(observe(g, g.turn))) > 1:
            out.append(observe(g, g.turn))
    return out


def test_search_stops_within_ten_percent_of_its_budget(clock: CountingClock) -> None:
    """``uct_search`` spends 90..110 % of its budget, whatever the budget and cards left."""
    for budget_s in (0.03, 0.12):
        for k, obs in enumerate(_card_turns(4)):
            t0 = clock()
            stats = uct_search(obs, random.Random(k), Budget(budget_s), worlds=10, c=24.0)
            used = clock() - t0
            assert stats.iterations > 0
            assert used <= 1.1 * budget_s, (budget_s, used)
            assert used >= 0.9 * budget_s, (budget_s, used)
            assert abs(stats.seconds - used) <= 0.05 * budget_s


def test_fixed_mode_does_a_fixed_amount_of_work() -> None:
    """In fixed mode the clock plays no part: the same iterations however large the budget."""
    obs = _card_turns(1)[0]
    counts = set()
    for seconds in (0.0, 100.0):
        stats = uct_search(obs, random.Random(1), Budget(seconds, 300), worlds=10, c=24.0)
        counts.add(stats.iterations)
    assert counts == {300}


def test_player_uses_its_budget_per_turn(clock: CountingClock) -> None:
    """Over a whole game, a turn with a choice (a call and a card, or the reservation) costs
    the strong player its budget: never more than 110 %, and at least 60 % at the median."""
    budget_s = 0.06
    players = [make_player("strong", seed=1, budget_s=budget_s)]
    players += [make_player("normal", seed=s) for s in (2, 3, 4)]
    shares: list[float] = []
    for seed in (5, 6):
        rec = play_game(players, seed=seed, dealer=seed % 4, clock=clock)
        for t, choice in zip(rec.times[0], rec.choices[0], strict=True):
            if choice:
                shares.append(t / budget_s)
    assert len(shares) >= 10
    assert max(shares) <= 1.1, shares
    assert statistics.median(shares) >= 0.6, shares


@pytest.mark.parametrize("budget_s", [0.1, 0.3])
def test_reservation_search_uses_its_budget(clock: CountingClock, budget_s: float) -> None:
    """Pricing several contracts (healthy, wedding, solos) is timed like the card search: the
    player's budget, but at least ``solo_floor_s`` when a solo is priced (this hand, eight
    queens, always prices one)."""
    hand = (
        sum(1 << card_of(HEARTS, TEN, i) for i in (0, 1))
        | sum(1 << card_of(s, QUEEN, i) for s in (CLUBS, SPADES, HEARTS, DIAMONDS) for i in (0, 1))
        | sum(1 << card_of(s, JACK, 0) for s in (CLUBS, SPADES))
    )
    rest = [c for c in range(48) if not hand >> c & 1]
    random.Random(3).shuffle(rest)
    hands = [hand] + [sum(1 << c for c in rest[12 * k : 12 * k + 12]) for k in range(3)]
    obs = observe(Game.from_hands(DEFAULT_RULES, 3, hands), 0)
    p = SearchPlayer(1, NO_RESTRICTIONS, budget_s=budget_s)
    expected = max(budget_s, p.solo_floor_s)
    t0 = clock()
    p.decide(obs)
    used = clock() - t0
    assert 0.9 * expected <= used <= 1.1 * expected, used


def _solo_observation(deal: int, cards: int) -> tuple[Game, Observation]:
    """A lust solo of the normal level, ``cards`` cards into the play, seen by a defender."""
    players = [make_player("normal", seed=1000 * deal + s) for s in range(4)]
    g = Game.deal(DEFAULT_RULES, deal % 4, deal)
    while g.phase is not Phase.PLAYING:
        g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
    for _ in range(cards):
        g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
    return g, observe(g, (g.declarer + 1 + cards % 3) & 3)


def test_sampled_worlds_model_a_declared_soloist() -> None:
    """In the worlds of a defender, the lust soloist holds a solo hand (few losers in the
    declared solo), while every sampled deal stays consistent with the observation."""
    from dokobot.ai.arena import solo_deals
    from dokobot.ai.heuristic import losers
    from dokobot.ai.search import SOLO_MODEL_LOSERS, model_soloist
    from dokobot.engine.order import SCHEMES

    deals = solo_deals(lambda lv, s: make_player(lv, seed=s), "normal", 0, 4)
    for k, deal in enumerate(deals):
        g, obs = _solo_observation(deal, 3 * k + 1)
        d = obs.declarer
        scheme = SCHEMES[int(g.solo or 0)]
        played = g.start_hands[d] & ~g.hands[d]
        rng = random.Random(k)
        before: list[float] = []
        after: list[float] = []
        for _ in range(30):
            hands = obs.sample_hands(rng)
            modelled = model_soloist(obs, hands, rng, SOLO_MODEL_LOSERS)
            assert modelled[obs.seat] == obs.hand
            assert [h.bit_count() for h in modelled] == [h.bit_count() for h in hands]
            assert sum(modelled) == sum(hands)  # the same cards, dealt otherwise
            for s in range(4):
                for c in range(5):
                    if obs.voids[s] >> c & 1:
                        assert not modelled[s] & scheme.class_mask[c]
            obs.world(modelled)  # a consistent world
            before.append(losers(hands[d] | played, scheme))
            after.append(losers(modelled[d] | played, scheme))
        assert statistics.median(after) <= SOLO_MODEL_LOSERS < statistics.median(before)


def test_more_time_buys_more_worlds_not_deeper_trees(clock: CountingClock) -> None:
    """With ``world_cap`` a world stops after that many iterations and further worlds are
    searched until the budget is spent: the whole budget, more than ``worlds`` worlds, no
    world over its cap. A fixed amount of work ignores the cap."""
    for k, obs in enumerate(_card_turns(3)):
        t0 = clock()
        stats = uct_search(obs, random.Random(k), Budget(0.12), worlds=10, c=24.0, world_cap=20)
        used = clock() - t0
        assert 0.9 * 0.12 <= used <= 1.1 * 0.12, used
        assert stats.worlds > 10
        assert stats.iterations <= 20 * stats.worlds
        assert stats.iterations >= 20 * (stats.worlds - 1)  # only the last one cut short
        plain = uct_search(obs, random.Random(k), Budget(0.12), worlds=10, c=24.0)
        assert plain.worlds == 10 and plain.iterations > 20 * 10
    fixed = uct_search(
        _card_turns(1)[0], random.Random(1), Budget(0.0, 300), worlds=10, c=24.0, world_cap=5
    )
    assert (fixed.worlds, fixed.iterations) == (10, 300)
