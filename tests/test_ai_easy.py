"""The ``easy`` level plays visibly weaker than ``normal``: a beginner's slips at a seeded rate."""

from __future__ import annotations

import statistics

from dokobot.ai.arena import baseline_game, estimate, play_duplicate, play_game
from dokobot.ai.base import ComputerPlayer
from dokobot.ai.heuristic import choose_card, slip_card
from dokobot.ai.legal import decision_rng, legal_actions, obs_scheme
from dokobot.ai.levels import EASY_SLIPS, make_player
from dokobot.engine import Phase, is_card, observe
from dokobot.engine.cards import POINTS
from dokobot.engine.order import TRUMP


def _make(level: str, seed: int) -> ComputerPlayer:
    return make_player(level, seed=seed)


def test_easy_loses_points_to_normal_on_the_same_deals() -> None:
    """Two easy partners against two normal players, on each side once, against the same deal
    played by four normal players (normal games of two against two): easy loses points,
    significantly (its 95 % interval below 0). With the former easy (a quarter of its cards
    at random) this interval was -0.59..+0.22: not told apart from normal."""
    per_deal = []
    deal = 0
    while len(per_deal) < 24:
        base = baseline_game(_make, "normal", deal)
        re = [s for s in range(4) if base.re_seats >> s & 1]
        if len(re) == 2:
            kontra = [s for s in range(4) if s not in re]
            games = [play_duplicate(_make, "easy", "normal", deal, p, base) for p in (re, kontra)]
            per_deal.append(statistics.fmean(g.diff for g in games))
        deal += 1
    est = estimate(per_deal, 2 * len(per_deal))
    assert est.high < 0, est


def test_slip_card_is_a_beginners_card() -> None:
    """Leading with a trump in hand: the highest trump; otherwise the legal card with the most
    eyes. Always legal."""
    leads = follows = 0
    for seed in range(6):
        players = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        g = play_game(players, seed=seed, dealer=seed % 4).game
        h = g.redealt()
        for seat, action in g.log:
            if h.phase is Phase.PLAYING and h.turn == seat and is_card(action):
                obs = observe(h, seat)
                legal = legal_actions(obs)
                card = slip_card(obs)
                assert card in legal
                s = obs_scheme(obs)
                trumps = [c for c in legal if s.cls[c] == TRUMP]
                if not obs.trick and trumps:
                    leads += 1
                    assert s.key[card] == max(s.key[c] for c in trumps)
                else:
                    follows += 1
                    assert POINTS[card] == max(POINTS[c] for c in legal)
            h.play(seat, action)
    assert leads > 10 and follows > 100


def test_easy_slips_at_its_seeded_rate() -> None:
    """Over the card decisions with a choice in seeded games, easy plays the beginner's card
    where normal would not about as often as its rate says (the slips that happen to be
    normal's card too are not seen), and the same seeds give the same game."""
    slips = choices = 0
    for seed in range(8):
        players = [make_player("easy", seed=seed * 4 + s) for s in range(4)]
        g = play_game(players, seed=seed, dealer=seed % 4).game
        again = play_game(
            [make_player("easy", seed=seed * 4 + s) for s in range(4)], seed=seed, dealer=seed % 4
        ).game
        assert again.log == g.log
        h = g.redealt()
        for seat, action in g.log:
            if h.phase is Phase.PLAYING and h.turn == seat and is_card(action):
                obs = observe(h, seat)
                if len(legal_actions(obs)) > 1:
                    normal = choose_card(obs, decision_rng(seed * 4 + seat, obs, "decide"))
                    if slip_card(obs) & ~1 != normal & ~1:
                        choices += 1
                        slips += action & ~1 != normal & ~1
            h.play(seat, action)
    assert choices > 100
    assert abs(slips / choices - EASY_SLIPS) < 0.12, (slips, choices)
