"""The ``easy`` level plays visibly weaker than ``normal``: a beginner's slips at a seeded rate."""

from __future__ import annotations

import statistics
from collections import Counter

from dokobot.ai.arena import baseline_game, estimate, play_duplicate, play_game
from dokobot.ai.base import ComputerPlayer
from dokobot.ai.heuristic import FOX_CARDS, SLIP_EYES, slip_card, trick_winner
from dokobot.ai.legal import legal_actions, obs_scheme
from dokobot.ai.levels import EASY_SLIPS, make_player
from dokobot.engine import Card, Observation, Phase, is_card, observe
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


def _kind_of_slip(obs: Observation, card: Card) -> str:
    """Which of the beginner's mistakes ``card`` is (asserting it is one of them)."""
    s = obs_scheme(obs)
    legal = legal_actions(obs)
    assert card in legal
    if not obs.trick:
        assert card in FOX_CARDS and s.cls[card] == TRUMP
        return "fox led"
    top = obs.trick[trick_winner(obs.trick, s, obs.rules.second_heart10_takes(len(obs.tricks)))]
    holder = (obs.leader + obs.trick.index(top)) & 3
    mine = obs.parties[obs.seat]
    assert mine is None or obs.parties[holder] is not mine, "never onto the partner's trick"
    h10 = obs.rules.second_heart10_takes(len(obs.tricks))
    winners = [c for c in legal if s.beats(c, top, h10)]
    if len(obs.trick) == 3 and winners:
        if card in winners:
            assert s.key[card] == max(s.key[c] for c in winners) > min(s.key[c] for c in winners)
            return "dear win in the last seat"
        assert sum(POINTS[c] for c in obs.trick) >= SLIP_EYES
        return "trick let go in the last seat"
    assert card not in winners
    if card in FOX_CARDS and s.cls[card] == TRUMP:
        return "fox given"
    assert mine is not None and obs.parties[holder] is not None
    assert POINTS[card] >= SLIP_EYES
    return "eyes given to an opponent"


def test_slip_card_is_a_beginners_mistake() -> None:
    """Where a beginner errs, the slip is one of the classic mistakes (the fox led or thrown
    away, a dear win or a fat trick let go in the last seat, a ten onto a known opponent's
    trick), always legal; elsewhere (a trick the partner holds, most turns) none."""
    kinds: Counter[str] = Counter()
    turns = 0
    for seed in range(12):
        players = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        g = play_game(players, seed=seed, dealer=seed % 4).game
        h = g.redealt()
        for seat, action in g.log:
            if h.phase is Phase.PLAYING and h.turn == seat and is_card(action):
                obs = observe(h, seat)
                turns += 1
                card = slip_card(obs)
                if card is not None:
                    kinds[_kind_of_slip(obs, card)] += 1
            h.play(seat, action)
    assert set(kinds) == {
        "fox led",
        "fox given",
        "dear win in the last seat",
        "trick let go in the last seat",
        "eyes given to an opponent",
    }, kinds
    assert sum(kinds.values()) < turns / 3, (kinds, turns)


def test_easy_slips_at_its_seeded_rate() -> None:
    """Over the card decisions with a choice in seeded games, easy plays the beginner's card
    where normal would not about as often as its rate says (the slips that happen to be
    normal's card too are not seen), and the same seeds give the same game."""
    slips = choices = 0
    for seed in range(16):
        players = [make_player("easy", seed=seed * 4 + s) for s in range(4)]
        g = play_game(players, seed=seed, dealer=seed % 4).game
        again = play_game(
            [make_player("easy", seed=seed * 4 + s) for s in range(4)], seed=seed, dealer=seed % 4
        ).game
        assert again.log == g.log
        normals = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        h = g.redealt()
        for seat, action in g.log:
            if h.phase is Phase.PLAYING and h.turn == seat and is_card(action):
                obs = observe(h, seat)
                if len(legal_actions(obs)) > 1:
                    normal = normals[seat].decide(obs)
                    slip = slip_card(obs)
                    if slip is not None and slip & ~1 != normal & ~1:
                        choices += 1
                        slips += action & ~1 != normal & ~1
            h.play(seat, action)
    assert choices > 100
    assert abs(slips / choices - EASY_SLIPS) < 0.12, (slips, choices)
