"""The greedy playout policy: legal play, sound craft, and the contract choice built on it."""

from __future__ import annotations

import random
import statistics

import pytest

from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.rollout import greedy_playout
from dokobot.ai.search import SearchPlayer
from dokobot.engine import (
    DECLARE_SOLO,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    TOURNAMENT_RULES,
    Game,
    GameType,
    Phase,
    observe,
    score,
)
from dokobot.engine.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SPADES,
    TEN,
    card_of,
)


def _replay_checked(g: Game) -> Game:
    """The finished game ``g`` played again through the checked :meth:`Game.play`."""
    h = Game.from_hands(g.rules, g.dealer, list(g.start_hands))
    for seat, action in g.log:
        h.play(seat, action)
    done = sum(1 for _, a in g.log if a < 48)
    played = [((leader + i) & 3, c) for leader, cards, _ in g.tricks for i, c in enumerate(cards)]
    for seat, card in played[done:]:
        h.play(seat, card)
    return h


@pytest.mark.parametrize("rules", [DEFAULT_RULES, TOURNAMENT_RULES])
@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0])
def test_greedy_playout_plays_legal_games(rules: object, eps: float) -> None:
    rng = random.Random(7)
    for seed in range(60):
        g = Game.deal(rules, seed % 4, seed)  # type: ignore[arg-type]
        solo = seed % 9
        while g.phase is not Phase.PLAYING:
            if g.phase is Phase.RESERVATIONS:
                g.push(g.turn, RESERVATION if solo < 7 and g.turn == 1 else HEALTHY)
            else:
                g.push(g.turn, DECLARE_SOLO + solo)
        # start in the middle of a trick now and then
        for _ in range(seed % 7):
            g.push(g.turn, g.legal_actions()[0])
        greedy_playout(g, rng, (eps, eps, eps, eps))
        assert g.phase is Phase.FINISHED
        assert sum(g.eyes) == 240 and sum(g.won) == 12 and not any(g.hands)
        h = _replay_checked(g)
        assert h.phase is Phase.FINISHED
        assert h.eyes == g.eyes and h.re_seats == g.re_seats
        assert score(h).scores == score(g).scores


def test_greedy_playout_refuses_before_the_play() -> None:
    g = Game.deal(DEFAULT_RULES, 3, 1)
    with pytest.raises(ValueError):
        greedy_playout(g, random.Random(1))


def test_greedy_player_beats_random_players() -> None:
    """One greedy seat among three random ones wins clearly more than half of the normal
    games and scores positive on average; a random seat in its place does not."""
    rng = random.Random(11)
    results: dict[float, list[int]] = {0.0: [], 1.0: []}
    for eps in results:
        for seed in range(600):
            g = Game.deal(DEFAULT_RULES, 3, seed)
            for _ in range(4):
                g.push(g.turn, HEALTHY)
            if g.game_type is not GameType.NORMAL:
                continue
            greedy_playout(g, rng, (eps, 1.0, 1.0, 1.0))
            results[eps].append(score(g).scores[0])
    assert statistics.fmean(results[0.0]) > 0.8
    assert abs(statistics.fmean(results[1.0])) < 0.5


def _deal(fixed: dict[int, list[int]], void: dict[int, int], seed: int) -> list[int]:
    """Hands with the ``fixed`` cards, the rest dealt at random; ``void[s]``: a suit whose
    plain cards (normal game) seat ``s`` must not hold."""
    rng = random.Random(seed)
    taken = {c for cs in fixed.values() for c in cs}
    for _ in range(1000):
        rest = [c for c in range(48) if c not in taken]
        rng.shuffle(rest)
        hands = []
        for s in range(4):
            need = 12 - len(fixed.get(s, []))
            hands.append(fixed.get(s, []) + rest[:need])
            rest = rest[need:]
        if all(
            not any(c // 12 == void[s] and (c >> 1) % 6 not in (QUEEN, JACK) for c in hands[s])
            for s in void
        ):
            return [sum(1 << c for c in h) for h in hands]
    raise AssertionError("no deal")


def _trick_card(masks: list[int], first: list[int], seat: int) -> int:
    """The card ``seat`` plays after ``first`` were played from the leader (dealer 2:
    seat 3 leads), by the greedy policy without random cards."""
    g = Game.from_hands(DEFAULT_RULES, 2, masks)
    for _ in range(4):
        g.push(g.turn, HEALTHY)
    for c in first:
        g.push(g.turn, c)
    greedy_playout(g, random.Random(1), (0.0, 0.0, 0.0, 0.0))
    _leader, cards, _ = g.tricks[0]
    return cards[(seat - 3) & 3]


def test_greedy_serves_a_partner_with_the_fox() -> None:
    """Last to play, the partner's ♣Q holds the trick: give it the fox (♦A)."""
    d9, dj, dA, d10 = (card_of(DIAMONDS, r) for r in (NINE, JACK, ACE, TEN))
    cq0, cq1 = card_of(CLUBS, QUEEN, 0), card_of(CLUBS, QUEEN, 1)
    masks = _deal({3: [d9], 0: [dj], 1: [cq0], 2: [cq1, dA, d10]}, {}, 3)
    assert _trick_card(masks, [d9, dj, cq0], 2) >> 1 == dA >> 1


def test_greedy_wins_an_opponents_trick_with_the_cheapest_trump() -> None:
    """Last to play and void in spades against the opponent's ♠A: trump with ♦9."""
    sA, s9, sK = (card_of(SPADES, r) for r in (ACE, NINE, KING))
    d9 = card_of(DIAMONDS, NINE)
    cq0, cq1 = card_of(CLUBS, QUEEN, 0), card_of(CLUBS, QUEEN, 1)
    masks = _deal({3: [sA], 0: [s9, cq0], 1: [sK], 2: [cq1, d9]}, {2: SPADES}, 5)
    assert _trick_card(masks, [sA, s9, sK], 2) >> 1 == d9 >> 1


def test_contract_prefers_an_overwhelming_solo() -> None:
    """A hand of the twelve highest trumps but one ♣Q is played as a solo (priced by greedy
    playouts), not as a normal game."""
    high = [card_of(HEARTS, TEN, i) for i in (0, 1)] + [card_of(CLUBS, QUEEN)]
    high += [card_of(s, QUEEN, i) for s in (SPADES, HEARTS, DIAMONDS) for i in (0, 1)]
    high += [card_of(s, JACK, i) for s in (CLUBS, SPADES) for i in (0, 1)][:3]
    hand = sum(1 << c for c in high)
    rest = [c for c in range(48) if not hand >> c & 1]
    masks = [hand] + [sum(1 << c for c in rest[12 * k : 12 * k + 12]) for k in range(3)]
    g = Game.from_hands(DEFAULT_RULES, 3, masks)
    p = SearchPlayer(1, NO_RESTRICTIONS, budget_s=0.05)
    assert p.decide(observe(g, 0)) == RESERVATION


def _sure_winners(g: Game) -> set[int]:
    """The cards the leader of ``g`` (a trick's start) may lead that win the trick for his
    party whatever the others play (every combination of their legal cards, by the engine)."""
    leader = g.turn
    party = g.re_seats >> leader & 1
    sure = set()
    for c in g.legal_actions():
        ok = True
        stack = [g.copy()]
        stack[0].push(leader, c)
        while stack and ok:
            h = stack.pop()
            if not h.trick:  # closed: the trick's winner is the next leader
                ok = h.re_seats >> h.tricks[-1][2] & 1 == party
                continue
            for r in h.legal_actions():
                k = h.copy()
                k.push(k.turn, r)
                stack.append(k)
        if ok:
            sure.add(c)
    return sure


def test_sound_leads_lead_a_sure_winner_when_there_is_one() -> None:
    """``sound_leads`` without a fresh ace: a card no opponent can beat (checked against every
    reply the engine allows) where there is one, else not a ten or an ace while a cheaper card
    is there. The policy sees only the opponents, so a card that wins only because the
    partner must overtake counts as no winner: nearly every time, not every time. A random
    lead (without it) finds a sure winner far less often."""
    from dokobot.engine.cards import POINTS
    from dokobot.engine.order import TRUMP

    hits = {True: 0, False: 0}
    with_sure = 0
    for seed in range(300):
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        for _ in range(4):
            g.push(g.turn, HEALTHY)
        rng = random.Random(seed)
        while len(g.tricks) < 8 or g.trick:
            g.push(g.turn, rng.choice(g.legal_actions()))
        hand = g.hands[g.turn]
        led = {g.scheme.cls[cards[0]] for _, cards, _ in g.tricks} | {TRUMP}
        fresh_ace = any(
            hand >> c & 1 and (c >> 1) % 6 == ACE and g.scheme.cls[c] not in led for c in range(48)
        )
        if fresh_ace or g.re_seats.bit_count() != 2:
            continue  # the fresh ace and the lone player's trump come first
        sure = _sure_winners(g)
        for sound in (True, False):
            p = g.copy()
            greedy_playout(p, random.Random(seed), (0.0, 0.0, 0.0, 0.0), sound_leads=sound)
            lead = p.tricks[8][1][0]
            hits[sound] += lead in sure
            if sound and not sure:
                assert POINTS[lead] < 10 or all(POINTS[c] >= 10 for c in range(48) if hand >> c & 1)
        with_sure += bool(sure)
    assert with_sure >= 30
    assert hits[True] >= 0.9 * with_sure
    assert hits[False] <= hits[True] - 0.2 * with_sure
