"""Learned card-location inference (dokobot.ai.inference): its inputs are the observation
alone, its draws keep every constraint and follow the tilted law, and the shipped model was
better than uniform sampling on its held-out games."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from importlib import resources

import pytest

from dokobot.ai.arena import wedding_deals
from dokobot.ai.base import NO_RESTRICTIONS, ComputerPlayer
from dokobot.ai.heuristic import HeuristicPlayer
from dokobot.ai.inference import (
    CardModel,
    TiltedWorlds,
    default_model,
    features,
    layout_weight,
    tilt_hands,
)
from dokobot.ai.layouts import layouts
from dokobot.ai.legal import legal_actions
from dokobot.ai.levels import make_player
from dokobot.ai.search import SearchPlayer
from dokobot.engine import DEFAULT_RULES, Game, GameType, Observation, Phase, observe
from dokobot.engine.cards import CLUB_QUEENS


def _positions(
    seeds: range, every: int = 5, make: Callable[[int], ComputerPlayer] | None = None
) -> Iterator[tuple[Game, Observation]]:
    """Every ``every``-th card turn of games of four ``normal`` players (or of ``make``'s)."""
    for seed in seeds:
        players = [
            make_player("normal", seed=seed * 4 + s) if make is None else make(seed * 4 + s)
            for s in range(4)
        ]
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        k = 0
        while g.phase is not Phase.FINISHED:
            seat = g.turn
            if g.phase is Phase.PLAYING:
                call = players[seat].announce(observe(g, seat))
                if call is not None:
                    g.play(seat, call)
                k += 1
                if k % every == 0:
                    yield g, observe(g, seat)
            g.play(seat, players[seat].decide(observe(g, seat)))


def test_the_model_sees_only_the_observation() -> None:
    """A world consistent with the observation, with other hidden cards, gives the same
    observation and so the same scores; the true hands never enter."""
    model = default_model()
    rng = random.Random(3)
    checked = 0
    for g, obs in _positions(range(1, 4), every=7):
        scores = model.seat_scores(obs)
        assert scores is not None
        other = obs.world(obs.sample_hands(rng))
        assert other.hands != g.hands or obs.unseen.bit_count() <= 1
        assert model.seat_scores(observe(other, obs.seat)) == scores
        checked += 1
    assert checked >= 10


def test_probabilities_respect_the_constraints() -> None:
    model = default_model()
    for _, obs in _positions(range(5, 8), every=6):
        allowed, known, _, _ = obs.constraints()
        probs = model.probabilities(obs)
        assert set(probs) == {c for c in range(48) if obs.unseen >> c & 1}
        for c, row in probs.items():
            assert row[obs.seat] == 0.0
            assert abs(sum(row) - 1.0) < 1e-9
            for s in range(4):
                if row[s] > 0.0:
                    assert s != obs.seat and allowed[s] >> c & 1
                if known[s] >> c & 1:
                    assert row[s] == 1.0


def test_tilted_draws_keep_every_constraint() -> None:
    """Sizes, voids, known cards and a revealed Re player's ♣Q survive any tilt (here a
    strong one towards seat order), in a fresh draw and along one search's chain of worlds."""
    rng = random.Random(5)
    for _, obs in _positions(range(10, 14), every=4):
        allowed, known, must_q, _ = obs.constraints()
        scores = [[float(s * (c % 3)) for s in range(4)] for c in range(48)]
        chain = TiltedWorlds(obs, scores)
        for _ in range(5):
            chain.draw(rng)
        for hands in (
            tilt_hands(obs, obs.sample_hands(rng), scores, rng, swaps=300),
            chain.draw(rng),
        ):
            _assert_consistent(obs, hands, allowed, known, must_q)


def _assert_consistent(
    obs: Observation, hands: list[int], allowed: list[int], known: list[int], must_q: int
) -> None:
    """``hands`` is a deal ``obs`` allows."""
    assert hands[obs.seat] == obs.hand
    for s in range(4):
        assert hands[s].bit_count() == obs.hand_sizes[s]
        if s == obs.seat:
            continue
        assert hands[s] & ~allowed[s] & ~known[s] == 0
        assert hands[s] & known[s] == known[s]
        if must_q >> s & 1:
            assert hands[s] & CLUB_QUEENS
    assert sum(h.bit_count() for h in hands) + obs.played.bit_count() == 48


def _late_position(rules_alone: bool) -> Observation:
    """The first card turn with 3 cards in hand and 10 to 30 layouts, in games of four
    ``normal`` players, or of ``normal``'s rules alone (without its exact endgame)."""

    def rules(seed: int) -> ComputerPlayer:
        return HeuristicPlayer(seed, NO_RESTRICTIONS)

    for _, obs in _positions(range(20, 40), every=1, make=rules if rules_alone else None):
        found = layouts(obs, 30)
        if obs.hand.bit_count() == 3 and found is not None and len(found) >= 10:
            return obs
    raise AssertionError("no position with 10 to 30 layouts")


# normal's position: 6 unseen cards, 18 layouts; with 4 proposals per unseen card (24)
# the draws were off by a total variation of 0.126 (see inference.MIN_SWAPS)
@pytest.mark.parametrize("chain", [False, True], ids=["fresh", "chain"])
@pytest.mark.parametrize("rules_alone", [True, False], ids=["rules", "normal"])
def test_tilted_draws_follow_the_tilted_law(rules_alone: bool, chain: bool) -> None:
    """Over every layout of a late position the chain's draws come out in proportion to
    each layout's weight times its tilt (total variation under 0.1), and not uniformly:
    fresh draws (a uniform deal moved along a chain each), and the successive worlds of one
    search (:class:`TiltedWorlds`, one chain moved on between them)."""
    obs = _late_position(rules_alone)
    found = layouts(obs, 30)
    assert found is not None
    rng = random.Random(11)
    scores = [[rng.uniform(-1.5, 1.5) for _ in range(4)] for _ in range(48)]
    target = {}
    for hands, w in found:
        key = _canonical(hands)
        target[key] = target.get(key, 0.0) + w * layout_weight(scores, hands, obs.seat)
    total = sum(target.values())
    target = {k: v / total for k, v in target.items()}
    draws = 2000
    worlds = TiltedWorlds(obs, scores)

    def draw() -> list[int]:
        if chain:
            return worlds.draw(rng)
        return tilt_hands(obs, obs.sample_hands(rng), scores, rng)

    seen = Counter(_canonical(draw()) for _ in range(draws))
    tv = 0.5 * sum(abs(seen[k] / draws - p) for k, p in target.items())
    assert tv < 0.1, tv
    untilted = Counter(_canonical(obs.sample_hands(rng)) for _ in range(draws))
    tv_uniform = 0.5 * sum(abs(untilted[k] / draws - p) for k, p in target.items())
    assert tv_uniform > tv + 0.05, (tv_uniform, tv)


def _canonical(hands: list[int]) -> tuple[tuple[int, ...], ...]:
    """A layout by the kinds each seat holds (twins are one card for the rules)."""
    return tuple(tuple(sorted(c >> 1 for c in range(48) if h >> c & 1)) for h in hands)


def test_the_shipped_model_beat_uniform_sampling_held_out() -> None:
    """The weights file says how it was trained and what it scored on held-out games; the
    model there was better than uniform sampling over consistent layouts."""
    text = resources.files("dokobot.ai").joinpath("inference.json").read_text("utf-8")
    meta = json.loads(text)
    held = meta["held_out"]
    assert held["cards"] >= 10_000
    assert held["model_logloss"] < held["uniform_logloss"]
    assert held["model_top1"] > held["uniform_top1"]
    assert "bench/train_inference.py" in meta["trained"]
    model = CardModel.from_json(text)
    assert model.bilinear.any()


def test_features_outside_the_card_play_are_none() -> None:
    g = Game.deal(DEFAULT_RULES, 3, 2)
    assert features(observe(g, 0)) is None
    assert default_model().seat_scores(observe(g, 0)) is None


@pytest.mark.parametrize(("level", "tilted"), [("strong", True), ("strong_prev", False)])
def test_the_strong_level_draws_by_the_model_and_strong_prev_does_not(
    level: str, tilted: bool
) -> None:
    """``strong`` tilts its worlds in the card play, ``strong_prev`` (the level as it was)
    draws them uniformly; both play legal cards."""
    player = make_player(level, seed=1, budget_s=0.01, fixed=True)
    assert isinstance(player, SearchPlayer)
    for _, obs in _positions(range(3, 4), every=9):
        assert (player._tilt(obs) is not None) is tilted
        assert player.decide(obs) in legal_actions(obs)


def test_without_the_wedding_tilt_a_wedding_draws_uniform_worlds() -> None:
    """``wedding_tilt=False``: the worlds of a wedding are drawn uniformly, those of other
    games by the model (and with it the wedding's too)."""
    with_tilt = SearchPlayer(1, NO_RESTRICTIONS, 0.01, fixed=True)
    without = SearchPlayer(1, NO_RESTRICTIONS, 0.01, fixed=True, wedding_tilt=False)
    kinds = set()
    for seed in wedding_deals(0, 6) + list(range(6)):
        for _, obs in _positions(range(seed, seed + 1), every=7):
            wedding = obs.game_type is GameType.WEDDING
            kinds.add(wedding)
            assert with_tilt._tilt(obs) is not None
            assert (without._tilt(obs) is None) is wedding
    assert kinds == {True, False}
