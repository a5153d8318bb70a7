"""Exact endgames (dokobot.ai.solver, dokobot.ai.layouts): the double-dummy solver agrees
with plain minimax on the engine's moves and scoring, and the enumeration of layouts finds
exactly the layouts a brute force over every deal of the unseen cards finds consistent."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from dokobot.ai.layouts import layouts
from dokobot.ai.levels import make_player
from dokobot.ai.solver import solve, solve_brute
from dokobot.engine import DEFAULT_RULES, Game, Observation, Party, Phase, observe
from dokobot.engine.cards import CLUB_QUEENS, Mask, cards_of
from dokobot.engine.types import is_card


def _endgame(seed: int, tricks: int, level: str = "normal") -> Game | None:
    """A game of four ``level`` players stopped in trick ``tricks + 1`` after a random
    number of its cards (None: it ended otherwise, or a wedding is still open)."""
    players = [make_player(level, seed=seed * 4 + s) for s in range(4)]
    g = Game.deal(DEFAULT_RULES, seed % 4, seed)
    extra = random.Random(seed).randrange(4)
    while g.phase is not Phase.FINISHED and not (len(g.tricks) == tricks and len(g.trick) == extra):
        seat = g.turn
        if g.phase is Phase.PLAYING:
            call = players[seat].announce(observe(g, seat))
            if call is not None:
                g.play(seat, call)
        g.play(seat, players[seat].decide(observe(g, seat)))
    return g if g.phase is Phase.PLAYING and not g.wedding_open else None


def test_the_solver_agrees_with_plain_minimax_on_random_endgames() -> None:
    checked = Counter[str]()
    for seed in range(120):
        g = _endgame(seed, 9 + seed % 2, "normal" if seed % 3 else "random")
        if g is None:
            continue
        assert solve(g) == solve_brute(g), seed
        checked["solo" if g.re_seats.bit_count() == 1 else "normal"] += 1
        checked["called"] += any(g.level)
    assert checked["normal"] >= 60 and checked["solo"] >= 1 and checked["called"] >= 5, checked


def _consistent(obs: Observation, g: Game, hands: list[Mask]) -> bool:
    """Whether the others holding ``hands`` now explains everything ``obs.seat`` saw: each
    card played was legal, and in a normal game the parties it knows are those of the
    club queens."""
    start = [h | p for h, p in zip(hands, obs.played_by(), strict=True)]
    h = Game.from_hands(DEFAULT_RULES, g.dealer, start)
    for seat, action in g.log:
        if h.phase is Phase.PLAYING and is_card(action):
            # the observation numbers the copies of a card its own way: either copy is it
            action = action if h.hands[seat] >> action & 1 else action ^ 1
            if h.problem(seat, action) is not None:
                return False
        h.play(seat, action)
    for s in range(4):
        holds_q = bool(start[s] & CLUB_QUEENS)
        if obs.parties[s] is not None and holds_q != (obs.parties[s] is Party.RE):
            return False
    return True


def _kind_layout(hands: list[Mask]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(sorted(c >> 1 for c in cards_of(h))) for h in hands)


def test_enumeration_finds_exactly_the_consistent_layouts_with_their_weights() -> None:
    compared = 0
    for seed in range(60):
        g = _endgame(seed, 10)
        if g is None or g.game_type.name != "NORMAL":
            continue
        me = g.turn
        obs = observe(g, me)
        found = layouts(obs, 10_000)
        assert found is not None
        others = [s for s in range(4) if s != me]
        unseen = list(cards_of(obs.unseen))
        brute = Counter[tuple[tuple[int, ...], ...]]()
        # every assignment of the unseen cards to the other seats with their sizes
        sizes = [obs.hand_sizes[s] for s in others]
        for combo in itertools.combinations(unseen, sizes[0]):
            rest = [c for c in unseen if c not in combo]
            for combo2 in itertools.combinations(rest, sizes[1]):
                third = [c for c in rest if c not in combo2]
                hands = [0, 0, 0, 0]
                hands[me] = obs.hand
                for s, cs in zip(others, (combo, combo2, third), strict=True):
                    hands[s] = sum(1 << c for c in cs)
                if _consistent(obs, g, hands):
                    brute[_kind_layout(hands)] += 1
        listed = Counter[tuple[tuple[int, ...], ...]]()
        for hands, weight in found:
            listed[_kind_layout(hands)] += weight
        assert listed == brute, seed
        assert _kind_layout(g.hands) in listed
        compared += 1
    assert compared >= 20


def test_the_strong_level_plays_its_last_cards_by_the_exact_values() -> None:
    """With three cards or fewer and few layouts, the strong level's card has the best mean
    over every consistent layout solved exactly (the old level, ``strong_uct``, searches)."""
    from dokobot.ai.base import NO_RESTRICTIONS
    from dokobot.ai.search import SearchPlayer

    checked = 0
    for seed in range(40):
        g = _endgame(seed, 9 + seed % 3)
        if g is None or g.hands[g.turn].bit_count() > 3:
            continue
        obs = observe(g, g.turn)
        found = layouts(obs, 16)  # what the fixed work of a 0.2 s budget enumerates
        if found is None:
            continue
        means: dict[int, float] = {}
        for hands, w in found:
            for c, v in solve(obs.world(hands)).items():
                means[c] = means.get(c, 0.0) + w * v
        if len(means) < 2:
            continue
        card = SearchPlayer(seed, NO_RESTRICTIONS, 0.2, fixed=True).decide(obs)
        card = card if card in means else card ^ 1
        assert means[card] == max(means.values()), seed
        checked += 1
    assert checked >= 5
