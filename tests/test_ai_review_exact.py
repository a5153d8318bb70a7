"""The review's statistics (dokobot.ai.review with dokobot.ai.exact): cards that are exactly
equal over every consistent layout are never flagged, a real mistake is flagged with its
reason, a call the hand was worth is flagged when it was never made, and a hint marks a close
call as close."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from dokobot.ai.base import Restrictions
from dokobot.ai.layouts import layouts
from dokobot.ai.levels import make_player
from dokobot.ai.review import MISTAKE, card_hint, review_game
from dokobot.ai.solver import solve
from dokobot.engine import DEFAULT_RULES, Game, Observation, Phase, observe
from dokobot.engine.cards import POINTS, card_of
from dokobot.engine.types import is_card

BUDGET = 0.4  # the review's budget per decision, fixed work (in the last tricks: exact)


def _positions(seeds: range, max_cards: int = 3) -> Iterator[tuple[Game, Observation]]:
    """Card turns with at most ``max_cards`` in hand in games of four ``normal`` players."""
    for seed in seeds:
        players = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        while g.phase is not Phase.FINISHED:
            seat = g.turn
            if g.phase is Phase.PLAYING:
                if g.hands[seat].bit_count() <= max_cards and not g.wedding_open:
                    yield g, observe(g, seat)
                call = players[seat].announce(observe(g, seat))
                if call is not None:
                    g.play(seat, call)
            g.play(seat, players[seat].decide(observe(g, seat)))


def _exact_means(obs: Observation) -> dict[int, float]:
    """Each card's mean score over every consistent layout (by their weights)."""
    found = layouts(obs, 100_000)
    assert found is not None
    total: dict[int, float] = {}
    weight = sum(w for _, w in found)
    for hands, w in found:
        for c, v in solve(obs.world(hands)).items():
            total[c] = total.get(c, 0.0) + w * v / weight
    return total


def _every_layout_equal(obs: Observation, a: int, b: int) -> bool:
    found = layouts(obs, 100_000)
    assert found is not None
    return all((v := solve(obs.world(hands)))[a] == v[b] for hands, _ in found)


def _verdict(g: Game, seat: int, card: int) -> list[object]:
    """The review's mistakes at the card ``seat`` plays now."""
    h = g.copy()
    h.log = list(g.log)
    index = len(h.log)
    h.play(seat, card)
    review = review_game(h, seats=(seat,), budget_s=BUDGET, fixed=True, seed=5, at=(index,))
    return [m for m in review.mistakes if m.index == index]


def test_cards_equal_over_every_consistent_layout_are_never_flagged(
    request: pytest.FixtureRequest,
) -> None:
    """Where the review enumerates the layouts and where it samples worlds (``--slow``: more
    positions)."""
    want, want_sampled = (8, 2) if request.config.getoption("--slow") else (3, 1)
    checked = 0
    sampled = 0
    for g, obs in _positions(range(60), max_cards=4):
        if layouts(obs, 200) is None:
            continue  # too many layouts to check every one quickly
        cards = sorted(solve(obs.world(obs.sample_hands(random.Random(0)))))
        pairs = [(a, b) for i, a in enumerate(cards) for b in cards[i + 1 :]]
        for a, b in pairs:
            if _every_layout_equal(obs, a, b):
                sampled += layouts(obs, 33 * 4) is None  # the review samples worlds here
                assert _verdict(g, obs.seat, a) == [] and _verdict(g, obs.seat, b) == []
                checked += 1
                break
        if checked >= want and sampled >= want_sampled:
            break
    assert checked >= want and sampled >= want_sampled, (checked, sampled)


def _real_mistake(
    wanted: Callable[[Observation, int, int], bool],
) -> tuple[Game, Observation, int, int]:
    """A position with a card ``bad`` that loses at least 1 point against ``good`` over every
    consistent layout, exactly, and ``wanted(obs, good, bad)``."""
    for g, obs in _positions(range(200)):
        if layouts(obs, 100) is None:
            continue
        means = _exact_means(obs)
        for good in means:
            for bad in means:
                if means[good] - means[bad] >= 1.0 and wanted(obs, good, bad):
                    return g, obs, good, bad
    raise AssertionError("no such position")


def _last_in_trick_partner_winning(obs: Observation, good: int, bad: int) -> bool:
    """Last to play, the known partner wins the trick and neither card beats him, and the
    good card has more eyes (a card the partner's trick needed)."""
    if len(obs.trick) != 3:
        return False
    rank = obs.scheme.rank[obs.scheme.cls[obs.trick[0]]]
    top = max(range(3), key=lambda i: (rank[obs.trick[i]], -i))
    winner = (obs.leader + top) & 3
    mine = obs.parties[obs.seat]
    best = rank[obs.trick[top]]
    return (
        mine is not None
        and winner != obs.seat
        and obs.parties[winner] == mine
        and rank[good] <= best
        and rank[bad] <= best
        and POINTS[good] > POINTS[bad]
    )


def test_a_real_mistake_is_flagged_with_its_reason() -> None:
    g, obs, good, bad = _real_mistake(_last_in_trick_partner_winning)
    [mistake] = _verdict(g, obs.seat, bad)
    assert mistake.better is not None and mistake.better >> 1 == good >> 1  # type: ignore[attr-defined]
    assert mistake.reason == "partner_points"  # type: ignore[attr-defined]
    assert mistake.loss >= 1.0 - 1e-9  # type: ignore[attr-defined]
    assert _verdict(g, obs.seat, good) == []


def test_a_call_the_hand_was_worth_and_never_made_is_flagged() -> None:
    """Seat 0 holds the top of the trumps and the partner's ♣Q is out; its player may make
    no call. The review finds the re it never said."""
    from dokobot.engine.cards import ACE, CLUBS, DIAMONDS, HEARTS, JACK, QUEEN, SPADES, TEN

    top = [card_of(HEARTS, TEN, k) for k in (0, 1)] + [card_of(CLUBS, QUEEN, 0)]
    top += [card_of(SPADES, QUEEN, k) for k in (0, 1)] + [card_of(HEARTS, QUEEN, k) for k in (0, 1)]
    top += [card_of(DIAMONDS, QUEEN, k) for k in (0, 1)] + [card_of(CLUBS, JACK, k) for k in (0, 1)]
    top += [card_of(CLUBS, ACE, 0)]
    mine = sum(1 << c for c in top)
    rest = [c for c in range(48) if not mine >> c & 1]
    random.Random(4).shuffle(rest)
    hands = [mine] + [sum(1 << c for c in rest[12 * k : 12 * k + 12]) for k in range(3)]
    g = Game.from_hands(DEFAULT_RULES, 3, hands)
    players = [make_player("normal", seed=s) for s in range(4)]
    players[0] = make_player("normal", seed=0, restrictions=Restrictions(no_calls=True))
    while g.phase is not Phase.FINISHED:
        seat = g.turn
        if g.phase is Phase.PLAYING and seat != 0:
            call = players[seat].announce(observe(g, seat))
            if call is not None:
                g.play(seat, call)
        g.play(seat, players[seat].decide(observe(g, seat)))
    early = [i for i, (s, a) in enumerate(g.log) if s == 0 and is_card(a)][:3]
    review = review_game(g, seats=(0,), budget_s=BUDGET, fixed=True, seed=1, at=early)
    missed = [m for m in review.mistakes if m.kind == "call"]
    assert len(missed) == 1 and missed[0].played is None and missed[0].reason == "missed_call"
    assert missed[0].better is not None and missed[0].loss >= MISTAKE


def test_a_hint_marks_a_close_call_as_close() -> None:
    """Between cards that are exactly equal the hint says close, with no margin; where one
    card is exactly better by a point or more it gives that card, not close."""
    seen_close = seen_clear = False
    for _g, obs in _positions(range(40), max_cards=3):
        if layouts(obs, 16 * 4) is None:
            continue  # the hint enumerates at most what its budget solves
        means = _exact_means(obs)
        if len(means) < 2:
            continue
        found = card_hint(obs, seed=1, budget_s=BUDGET, fixed=True)
        assert found is not None and found.runner_up is not None
        ranked = sorted(means.values(), reverse=True)
        if ranked[0] == ranked[1]:
            assert found.close and found.margin == 0.0
            seen_close = True
        elif ranked[0] - ranked[1] >= 1.0:
            assert not found.close and means[found.choice] == ranked[0]
            seen_clear = True
        if seen_close and seen_clear:
            return
    raise AssertionError(f"close seen: {seen_close}, clear seen: {seen_clear}")
