"""A review never shows a reservation the table did not hear (issue 36, item 11).

A player who said "reservation" and whose turn to declare never came (a better declaration
won first) told nobody what he had in mind. His review used to treat that as "healthy" and
published "Healthy instead of Wedding" in the channel's summary and on the web page.
"""

from __future__ import annotations

import random

import pytest

from dokobot.ai import review as ai_review
from dokobot.ai.review import Mistake, review_game
from dokobot.engine import Game, Phase
from dokobot.engine.rules import Rules
from dokobot.engine.types import DECLARE_WEDDING, HEALTHY, RESERVATION
from dokobot.host.reviews import GameReview, is_public, summary

HOUSE = Rules(piglets=True, poverty=True, throw_in=True)


def _declared_game(seed: int) -> Game:
    """A deal played through the reservations (each seat says "reservation" half the time)
    and the declarations (random legal ones), to the first card or the end."""
    rng = random.Random(seed)
    g = Game.deal(HOUSE if seed % 2 else Rules(), seed % 4, seed)
    while g.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS, Phase.EXCHANGE):
        if g.phase is Phase.RESERVATIONS:
            g.play(g.turn, RESERVATION if rng.random() < 0.5 else HEALTHY)
        else:
            g.play(g.turn, rng.choice(g.legal_actions()))
    return g


def _unheard(g: Game) -> set[int]:
    """Log positions of the "reservation" words whose declaration never came."""
    out = set()
    for i, (seat, action) in enumerate(g.log):
        if action == RESERVATION and g.declarations[seat] < 0:
            out.add(i)
    return out


def test_a_lost_reservation_is_never_public() -> None:
    """The publishing rule alone: a "reservation" mistake of a seat that never declared is
    private whatever the review says it was."""
    for seed in range(200):
        g = _declared_game(seed)
        for i in _unheard(g):
            seat = g.log[i][0]
            for played in (None, DECLARE_WEDDING, g.declarations[g.declarer]):
                m = Mistake(i, seat, 0, "reservation", played, DECLARE_WEDDING, 3.0)
                assert not is_public(g, m)
            return
    raise AssertionError("no deal with a reservation that was never declared")


def test_reviews_over_many_deals_show_only_reservations_the_table_heard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every judged reservation is recorded (the mistake threshold taken away); across many
    deals with lost reservations, none of them is judged, and every public one is what the
    table heard: "healthy" said, or the declaration that became the game."""
    monkeypatch.setattr(ai_review, "MISTAKE", float("-inf"))
    unheard = public = 0
    for seed in range(120):
        g = _declared_game(seed)
        lost = _unheard(g)
        if not lost and seed % 4:
            continue
        unheard += len(lost)
        found = review_game(g, budget_s=0.002, fixed=True, seed=seed)
        reservations = [m for m in found.mistakes if m.kind == "reservation"]
        assert not lost & {m.index for m in reservations}, seed
        review = GameReview(seed, ("u:a", "u:b", "u:c", "u:d"), ("a", "b", "c", "d"))
        review.decisions = {s: 1 for s in range(4)}
        review.mistakes = reservations
        review.hidden = frozenset(m.index for m in reservations if not is_public(g, m))
        for m in reservations:
            if m.index in review.hidden:
                continue
            public += 1
            said = g.log[m.index][1]
            if said == HEALTHY:
                assert m.played is None
            else:
                assert m.seat == g.declarer and m.played == g.declarations[m.seat]
        text = summary("en", review, None)
        for i in lost:
            assert review.names[g.log[i][0]] + ", costly" not in text
    assert unheard >= 10 and public >= 10
