"""House rules in the engine (RULES §12): poverty, throw-in, piglets, bock, nines, wedding trick.

The contract (copied from the project's rules, section 12) is quoted sentence by sentence in
the comments of the tests that check it.
"""

from __future__ import annotations

import random

import pytest

from dokobot.engine import (
    CALL_KONTRA,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Game,
    GameType,
    IllegalAction,
    Party,
    Phase,
    Rules,
    Solo,
    hands_from_kinds,
    observe,
    parse_cards,
    score,
)
from dokobot.engine.cards import ACE, DIAMOND_ACES, DIAMONDS, HEARTS, TEN, card_of
from dokobot.engine.game import declaration_actions
from dokobot.engine.observation import public_parties
from dokobot.engine.order import NORMAL_SCHEME, PIGLETS_SCHEME, SCHEMES, TRUMP
from dokobot.engine.rules import NINES, WEDDING_TRICKS
from dokobot.engine.scoring import bock_trigger
from dokobot.engine.types import DECLARE_POVERTY, DECLINE, TAKE, THROW_IN

NORMAL_TRUMPS = SCHEMES[NORMAL_SCHEME].class_mask[TRUMP]


def deal(rules: Rules, fixed: dict[int, str], seed: int = 0) -> list[int]:
    """Hands in which seat ``s`` holds the cards ``fixed[s]``; the rest is shuffled."""
    kinds: list[list[int]] = [parse_cards(fixed.get(s, "")) for s in range(4)]
    pool = [c >> 1 for c in range(48) if rules.deck >> c & 1]
    for hand in kinds:
        for k in hand:
            pool.remove(k)
    random.Random(seed).shuffle(pool)
    for hand in kinds:
        while len(hand) < rules.hand_size:
            hand.append(pool.pop())
    return hands_from_kinds(kinds)


def reserve(g: Game, reserving: set[int]) -> None:
    for i in range(4):
        seat = (g.dealer + 1 + i) % 4
        g.play(seat, RESERVATION if seat in reserving else HEALTHY)


def play_out(g: Game, seed: int = 1) -> None:
    rng = random.Random(seed)
    while g.phase is Phase.PLAYING:
        g.play(g.turn, rng.choice(g.legal_actions()))


def reason(g: Game, seat: int, action: int) -> str:
    with pytest.raises(IllegalAction) as info:
        g.play(seat, action)
    return info.value.reason


# ------------------------------------------------------------------------------- nines


def test_without_nines_the_deck_has_40_cards_and_10_tricks() -> None:
    # "The four ♦9 ♣9 ♠9 ♥9 pairs leave the deck: 40 cards, 10 each, 10 tricks, 22 trumps in
    # a normal game. ... Eyes still total 240; everything else unchanged."
    # (26 trumps less the two ♦9 are 24: the contract's "22" is a slip, reported.)
    rules = Rules(nines=False)
    assert rules.deck.bit_count() == 40 and rules.hand_size == 10
    assert (rules.deck & NORMAL_TRUMPS).bit_count() == 24
    for seed in range(20):
        g = Game.deal(rules, 3, seed)
        assert [h.bit_count() for h in g.hands] == [10] * 4
        assert not any(h & NINES for h in g.hands)
        reserve(g, set())
        play_out(g, seed)
        assert g.phase is Phase.FINISHED and len(g.tricks) == 10 and sum(g.eyes) == 240
        r = score(g)
        assert sum(r.scores) == 0 and r.eyes[0] + r.eyes[1] == 240 and sum(r.tricks) == 10


def test_nines_off_refuses_hands_with_nines() -> None:
    with pytest.raises(ValueError):
        Game.from_hands(Rules(nines=False), 0, deal(Rules(), {}))


def test_deadlines_without_nines_drop_by_two_cards() -> None:
    # "Every call deadline drops by 2 cards (re/kontra ≥ 9 cards in hand, no90 ≥ 8, … black
    # ≥ 5; wedding and reply rules shift the same way)."
    rules = Rules(nines=False)
    assert [rules.call_deadline(lv) for lv in range(1, 6)] == [9, 8, 7, 6, 5]
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ", 1: "CQ"}))
    reserve(g, set())
    assert CALL_RE in g.legal_calls(0)  # 10 cards
    g.play(0, g.legal_actions()[0])
    for _ in range(3):
        g.play(g.turn, g.legal_actions()[0])
    assert g.hands[0].bit_count() == 9
    # after one trick (9 cards) re/kontra is still possible, after two (8) it is not
    re_seat = next(s for s in range(4) if g.party_of(s) is Party.RE)
    assert g.call_problem(re_seat, CALL_RE) is None
    for _ in range(4):
        g.play(g.turn, g.legal_actions()[0])
    assert g.call_problem(re_seat, CALL_RE) is not None
    kontra = next(s for s in range(4) if g.party_of(s) is Party.KONTRA)
    assert g.call_problem(kontra, CALL_KONTRA) is not None


def test_nines_off_reply_deadline_shifts_too() -> None:
    rules = Rules(nines=False)
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ", 1: "CQ"}, seed=4))
    reserve(g, set())
    for _ in range(4):
        g.play(g.turn, g.legal_actions()[0])
    re_seat = next(s for s in range(4) if g.party_of(s) is Party.RE)
    kontra = next(s for s in range(4) if g.party_of(s) is Party.KONTRA)
    g.play(re_seat, CALL_RE)  # 9 cards: in time
    for _ in range(4):
        g.play(g.turn, g.legal_actions()[0])
    # 8 cards: a reply to re is still allowed (one card later than the deadline)
    assert g.call_problem(kontra, CALL_KONTRA) is None


# ------------------------------------------------------------------------- wedding trick


def _wedding(rules: Rules, seed: int) -> Game:
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ CQ"}, seed))
    reserve(g, {0})
    g.play(0, DECLARE_WEDDING)
    assert g.wedding_open
    return g


@pytest.mark.parametrize("kind", WEDDING_TRICKS)
def test_wedding_trick_kinds(kind: str) -> None:
    # "the first trick won by another player (first), the first trump-led trick won by
    # another player (trump), or the first plain-led trick won by another player (plain).
    # A trick of the other kind does not clarify; after three tricks without a clarifying
    # trick the wedding player plays alone"
    rules = Rules(wedding_trick=kind)
    seen = {"clarified": 0, "alone": 0}
    for seed in range(60):
        g = _wedding(rules, seed)
        rng = random.Random(seed)
        while g.wedding_open:
            g.play(g.turn, rng.choice(g.legal_actions()))
        clarifying = [
            i
            for i, (_, cards, winner) in enumerate(g.tricks[:3])
            if winner != 0
            and (
                kind == "first"
                or (SCHEMES[NORMAL_SCHEME].cls[cards[0]] == TRUMP) == (kind == "trump")
            )
        ]
        if clarifying:
            n = clarifying[0] + 1
            assert len(g.tricks) == n and g.wedding_trick == n
            partner = g.tricks[n - 1][2]
            assert g.re_seats == 1 | 1 << partner
            seen["clarified"] += 1
        else:
            assert len(g.tricks) == 3 and g.re_seats == 1 and g.is_solo_scored
            seen["alone"] += 1
    assert seen["clarified"] and seen["alone"]


# ---------------------------------------------------------------------------- piglets


def test_piglets_rank_above_heart_ten_and_score_no_fox() -> None:
    # "a player who holds both ♦A ... has the two highest trumps: both ♦A rank above ♥10.
    # ... No fox points are scored for piglets."
    rules = Rules(piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {1: "DA DA", 0: "H10 H10"}))
    reserve(g, set())
    assert g.piglets == 1 and g.scheme is SCHEMES[PIGLETS_SCHEME]
    da, h10 = card_of(DIAMONDS, ACE), card_of(HEARTS, TEN)
    g.play(0, h10)
    g.play(1, da)
    g.play(2, g.legal_actions()[0])
    g.play(3, g.legal_actions()[0])
    assert g.tricks[0][2] == 1
    play_out(g)
    assert all(c.item != "fox" for c in score(g).components)


def test_piglets_off_or_split_aces_change_nothing() -> None:
    g = Game.from_hands(Rules(), 3, deal(Rules(), {1: "DA DA"}))
    reserve(g, set())
    assert g.piglets == -1 and g.scheme is SCHEMES[NORMAL_SCHEME]
    rules = Rules(piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {1: "DA", 2: "DA"}))
    reserve(g, set())
    assert g.piglets == -1 and g.scheme is SCHEMES[NORMAL_SCHEME]


def test_piglets_in_a_diamonds_solo_not_in_a_hearts_solo() -> None:
    # "In a game whose trumps are the normal ones (normal, wedding, silent wedding, poverty,
    # diamonds solo)"
    rules = Rules(piglets=True)
    for solo, expected in ((Solo.DIAMONDS, 2), (Solo.HEARTS, -1), (Solo.QUEENS, -1)):
        g = Game.from_hands(rules, 3, deal(rules, {2: "DA DA"}))
        reserve(g, {2})
        g.play(2, DECLARE_SOLO + solo)
        assert g.piglets == expected
        assert (g.scheme is SCHEMES[PIGLETS_SCHEME]) == (expected >= 0)


def test_piglets_in_wedding_and_silent_wedding() -> None:
    rules = Rules(piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ CQ DA DA"}))
    reserve(g, set())
    assert g.game_type is GameType.SILENT_WEDDING and g.piglets == 0
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ CQ", 3: "DA DA"}))
    reserve(g, {0})
    g.play(0, DECLARE_WEDDING)
    assert g.piglets == 3


def test_piglets_become_public_when_the_first_is_played() -> None:
    # "It becomes public when he plays the first of them"
    rules = Rules(piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "DA DA"}))
    reserve(g, set())
    assert observe(g, 0).piglets == 0 and observe(g, 0).scheme is SCHEMES[PIGLETS_SCHEME]
    assert observe(g, 1).piglets == -1 and observe(g, 1).scheme is SCHEMES[NORMAL_SCHEME]
    g.play(0, card_of(DIAMONDS, ACE))
    assert observe(g, 1).piglets == 0 and observe(g, -1).scheme is SCHEMES[PIGLETS_SCHEME]


def test_sampled_worlds_respect_piglets() -> None:
    rules = Rules(piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "DA DA"}))
    reserve(g, set())
    g.play(0, card_of(DIAMONDS, ACE))
    obs = observe(g, 1)
    for i in range(10):
        hands = obs.sample_hands(random.Random(i))
        assert hands[0] & DIAMOND_ACES  # the second ♦A stays with the holder
        w = obs.world(hands)
        assert w.scheme is SCHEMES[PIGLETS_SCHEME]


# ------------------------------------------------------------------------------- bock


def _finished(rules: Rules, seed: int, solo: Solo | None = None) -> Game:
    g = Game.deal(rules, 3, seed)
    reserve(g, {0} if solo is not None else set())
    if solo is not None:
        g.play(0, DECLARE_SOLO + solo)
    play_out(g, seed)
    return g


def test_bock_triggers() -> None:
    # "After a game that ends 120 : 120 eyes, or in which both re and kontra were called,
    # or in which a solo was lost"
    rules = Rules()
    draws = lost_solos = won_solos = plain = 0
    for seed in range(300):
        g = _finished(rules, seed, Solo.QUEENS if seed % 2 else None)
        r = score(g)
        trig = bock_trigger(g, r)
        if r.eyes == (120, 120):
            assert trig
            draws += 1
        elif g.game_type is GameType.SOLO:
            assert trig == (r.winner is not Party.RE)
            lost_solos += trig
            won_solos += not trig
        else:
            assert not trig  # no calls in these games
            plain += 1
    assert lost_solos and won_solos and plain
    # both parties called
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ", 1: "CQ"}))
    reserve(g, set())
    g.play(0, CALL_RE)
    g.play(2, CALL_KONTRA)
    play_out(g)
    assert bock_trigger(g, score(g))
    g = Game.from_hands(rules, 3, deal(rules, {0: "CQ", 1: "CQ"}))
    reserve(g, set())
    g.play(0, CALL_RE)
    play_out(g)
    r = score(g)
    assert bock_trigger(g, r) == (r.eyes == (120, 120))


# ---------------------------------------------------------------------------- throw-in


def test_throw_in_needs_five_nines_or_kings_and_the_option() -> None:
    # "A player holding 5 or more nines, or 5 or more kings, may name /throw"
    rules = Rules(throw_in=True)
    five_kings = deal(rules, {1: "CK CK SK SK HK"})
    four_kings = deal(rules, {1: "CK CK SK SK D9", 2: "HK HK DK DK"})
    five_nines = deal(rules, {1: "C9 C9 S9 S9 H9", 2: "CK CK SK SK DK"})
    assert THROW_IN in declaration_actions(rules, five_kings[1], False)
    assert THROW_IN in declaration_actions(rules, five_nines[1], False)
    assert THROW_IN not in declaration_actions(rules, four_kings[1], False)
    assert THROW_IN not in declaration_actions(Rules(), five_kings[1], False)
    g = Game.from_hands(Rules(), 3, five_kings)
    reserve(g, {1})
    assert reason(g, 1, THROW_IN) == "house_rule_off"
    g = Game.from_hands(rules, 3, four_kings)
    reserve(g, {1})
    assert reason(g, 1, THROW_IN) == "throw_in_needs_cards"


def test_throw_in_beats_every_reservation_and_ends_unplayed() -> None:
    # "It beats every other reservation: the hands are shown to nobody, the game ends
    # unplayed with no score"
    rules = Rules(throw_in=True, poverty=True)
    g = Game.from_hands(rules, 3, deal(rules, {1: "CK CK SK SK HK", 0: "CQ CQ"}))
    reserve(g, {0, 1})
    g.play(0, DECLARE_SOLO + Solo.CLUBS)
    g.play(1, THROW_IN)
    assert g.phase is Phase.FINISHED and g.cancelled == "thrown" and g.declarer == 1
    r = score(g)
    assert r.scores == (0, 0, 0, 0) and r.winner is None
    assert not bock_trigger(g, r)


# ----------------------------------------------------------------------------- poverty

POOR = "HJ DA D10 HA HA HK HK SA SA SK SK C10"  # three trumps: ♥J ♦A ♦10


def _poverty(fixed: dict[int, str], reserving: set[int], seed: int = 0) -> Game:
    rules = Rules(poverty=True)
    g = Game.from_hands(rules, 3, deal(rules, fixed, seed))
    reserve(g, reserving)
    return g


def test_poverty_needs_at_most_three_trumps_and_the_option() -> None:
    # "A player with at most 3 trumps (♦A counts as trump) may announce poverty"
    rules = Rules(poverty=True)
    hands = deal(rules, {0: POOR})
    assert DECLARE_POVERTY in declaration_actions(rules, hands[0], False)
    assert DECLARE_POVERTY not in declaration_actions(Rules(), hands[0], False)
    rich = deal(rules, {0: "HJ DA D10 DK HA HK HK SA SA SK SK C10"})
    assert DECLARE_POVERTY not in declaration_actions(rules, rich[0], False)
    assert DECLARE_POVERTY not in declaration_actions(rules, hands[0], True)  # forced solo


def test_poverty_beats_wedding_and_solo_beats_poverty() -> None:
    # "Precedence: any solo > poverty > wedding; among several poverties the player sitting
    # further ahead."
    g = _poverty({0: "CQ CQ", 1: POOR}, {0, 1})
    g.play(0, DECLARE_WEDDING)
    g.play(1, DECLARE_POVERTY)
    assert g.game_type is GameType.POVERTY and g.declarer == 1 and g.phase is Phase.EXCHANGE
    g = _poverty({0: POOR, 2: "CQ CQ"}, {0, 2})
    g.play(0, DECLARE_POVERTY)
    g.play(2, DECLARE_WEDDING)
    assert g.game_type is GameType.POVERTY and g.declarer == 0
    g = _poverty({0: POOR}, {0, 1})
    g.play(0, DECLARE_POVERTY)
    g.play(1, DECLARE_SOLO + Solo.JACKS)
    assert g.game_type is GameType.SOLO and g.declarer == 1
    g = _poverty({0: POOR, 2: "CJ DQ H9 H9 S10 S9 C9 C10 CA CA CK CK"}, {0, 2})
    g.play(0, DECLARE_POVERTY)
    g.play(2, DECLARE_POVERTY)
    assert g.game_type is GameType.POVERTY and g.declarer == 0  # further ahead (first hand)


def test_poverty_exchange_with_three_trumps() -> None:
    # "with exactly 3 trumps they go at once. The others are asked in seat order from the
    # poor player's left ... The first who takes receives the 3 cards and gives back 3
    # cards of his choice; the table is told how many trumps came back ... The poor player
    # and the taker are Re, the other two Kontra; parties are public from then on. ... first
    # hand leads."
    g = _poverty({1: POOR}, {1})
    g.play(1, DECLARE_POVERTY)
    assert g.phase is Phase.EXCHANGE and g.hands[1].bit_count() == 9
    assert g.exchange is not None and g.exchange.passed == g.start_hands[1] & NORMAL_TRUMPS
    assert g.turn == 2 and g.legal_actions() == [TAKE, DECLINE]
    assert reason(g, 3, TAKE) == "not_your_turn"
    g.play(2, DECLINE)
    assert g.turn == 3 and public_parties(g) == [None, Party.RE, None, None]
    g.play(3, TAKE)
    assert g.hands[3].bit_count() == 15
    back = [c for c in g.legal_actions()][:3]
    for c in back:
        g.play(3, c)
    assert g.phase is Phase.PLAYING and g.turn == g.leader == 0
    assert g.hands[1].bit_count() == g.hands[3].bit_count() == 12
    ex = g.exchange
    assert ex is not None and ex.taker == 3
    assert ex.trumps_back == sum(1 for c in back if NORMAL_TRUMPS >> c & 1)
    assert g.re_seats == 0b1010 and public_parties(g) == [
        Party.KONTRA,
        Party.RE,
        Party.KONTRA,
        Party.RE,
    ]
    # the exchange is private: the others see who, not which cards
    for seat in (0, 2, -1):
        o = observe(g, seat).exchange
        assert (
            o is not None and o.passed == 0 and o.returned == 0 and o.trumps_back == ex.trumps_back
        )
    mine = [observe(g, s, canonical=False).exchange for s in (1, 3)]  # the game's card ids
    assert mine == [ex, ex]
    play_out(g)
    r = score(g)
    assert sum(r.scores) == 0 and r.eyes[0] + r.eyes[1] == 240
    assert r.scores[1] == r.scores[3] == -r.scores[0]


def test_poverty_with_fewer_trumps_passes_trumps_first() -> None:
    # "passes 3 cards face down: all his trumps, filled up with plain cards of his choice"
    g = _poverty({0: "DA D10 HA HA HK HK SA SA SK SK C10 CA"}, {0})
    g.play(0, DECLARE_POVERTY)
    assert g.turn == 0 and {c >> 1 for c in g.legal_actions()} == {
        c >> 1 for c in (card_of(DIAMONDS, ACE), card_of(DIAMONDS, TEN))
    }
    ha = parse_cards("HA")[0] * 2
    assert reason(g, 0, ha) == "poverty_trumps_first"
    g.play(0, card_of(DIAMONDS, ACE))
    g.play(0, card_of(DIAMONDS, TEN))
    assert len(g.legal_actions()) == 6  # any plain kind now
    g.play(0, ha)
    assert g.turn == 1 and g.exchange is not None and g.exchange.passed.bit_count() == 3


def test_poverty_nobody_takes_is_redealt() -> None:
    # "If all three decline, the same dealer deals again (the game is not played and not
    # counted; JSON: a line with type poverty and cancelled: true)."
    g = _poverty({2: POOR}, {2})
    g.play(2, DECLARE_POVERTY)
    for seat in (3, 0, 1):
        assert g.turn == seat
        g.play(seat, DECLINE)
    assert g.phase is Phase.FINISHED and g.cancelled == "poverty"
    assert score(g).scores == (0, 0, 0, 0) and not bock_trigger(g, score(g))


def test_poverty_push_pop_restores_every_step() -> None:
    g = _poverty({1: "DA HA HA HK HK SA SA SK SK C10 CA CK"}, {1})
    before = [(g.phase, g.turn, g.hands[:], g.exchange)]
    steps = [DECLARE_POVERTY]
    g.push(1, DECLARE_POVERTY)
    rng = random.Random(3)
    while g.phase is Phase.EXCHANGE:
        before.append((g.phase, g.turn, g.hands[:], g.exchange))
        a = rng.choice([a for a in g.legal_actions() if a != DECLINE] or g.legal_actions())
        steps.append(a)
        g.push(g.turn, a)
    assert g.phase is Phase.PLAYING
    for state in reversed(before):
        g.pop()
        assert (g.phase, g.turn, g.hands[:], g.exchange) == state


def test_sampled_worlds_respect_the_exchange() -> None:
    g = _poverty({1: POOR}, {1}, seed=5)
    g.play(1, DECLARE_POVERTY)
    g.play(2, TAKE)
    back = g.legal_actions()[-3:]
    for c in back:
        g.play(2, c)
    ex = g.exchange
    assert ex is not None
    # in the game's own card ids (the canonical numbering is tested in test_engine_props)
    poor_view, taker_view, other = (observe(g, s, canonical=False) for s in (1, 2, 0))
    for i in range(10):
        rng = random.Random(i)
        assert poor_view.sample_hands(rng)[2] & (ex.passed & ~ex.returned) == (
            ex.passed & ~ex.returned
        )
        assert taker_view.sample_hands(rng)[1] & ex.returned == ex.returned
        h = other.sample_hands(rng)
        assert (h[1] & NORMAL_TRUMPS).bit_count() == ex.trumps_back
        w = poor_view.world(poor_view.sample_hands(rng))
        assert w.re_seats == 0b0110 and w.game_type is GameType.POVERTY


def test_worlds_are_sampled_at_every_step_of_the_exchange() -> None:
    # The cards in transit (passed and not yet taken, given back and not yet arrived) are
    # in nobody's hand; sample_hands used to look for a hand for them and never returned.
    for seed in range(12):
        g = _poverty({0: "DA HA HA HK HK SA SA SK SK C10 CA CK"}, {0}, seed)
        g.play(0, DECLARE_POVERTY)
        rng = random.Random(seed)
        while g.phase is Phase.EXCHANGE:
            ex = g.exchange
            assert ex is not None
            for seat in range(4):
                obs = observe(g, seat, canonical=False)  # the game's own card ids
                hands = obs.sample_hands(random.Random(seed * 4 + seat))
                assert [h.bit_count() for h in hands] == [h.bit_count() for h in g.hands]
                assert hands[seat] == g.hands[seat]
                held = hands[0] | hands[1] | hands[2] | hands[3]
                assert held.bit_count() == sum(h.bit_count() for h in hands)  # disjoint
                if seat == 0 or seat == ex.taker:  # they know the cards in transit
                    assert held == sum(g.hands)
                passed_all = g.hands[0].bit_count() == 9
                if seat != 0 and passed_all:  # all his trumps are passed
                    assert not hands[0] & NORMAL_TRUMPS
                w = obs.world(hands)
                assert w.phase is Phase.EXCHANGE and w.turn == g.turn
                if seat == g.turn:
                    assert w.legal_actions() == g.legal_actions()
                for _ in range(60):  # the world plays on to the end
                    if w.phase is Phase.FINISHED:
                        break
                    w.push(w.turn, rng.choice(w.legal_actions()))
                assert w.phase is Phase.FINISHED and sum(w.eyes) in (0, 240)
            actions = g.legal_actions()
            g.play(g.turn, rng.choice([a for a in actions if a != DECLINE] or actions))


def test_computer_players_see_the_same_legal_actions_in_the_exchange() -> None:
    from dokobot.ai.legal import legal_actions

    for seed in range(20):
        g = _poverty({0: "DA D10 HA HA HK HK SA SA SK SK C10 CA"}, {0}, seed)
        g.play(0, DECLARE_POVERTY)
        rng = random.Random(seed)
        while g.phase is Phase.EXCHANGE:
            obs = observe(g, g.turn, canonical=False)  # the game's own card ids
            assert legal_actions(obs) == g.legal_actions()
            g.play(g.turn, rng.choice(g.legal_actions()))
        assert g.phase in (Phase.PLAYING, Phase.FINISHED)


def test_piglets_are_found_after_the_poverty_exchange() -> None:
    # "a player who holds both ♦A after any poverty exchange"
    rules = Rules(poverty=True, piglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {1: POOR, 2: "DA"}))
    reserve(g, {1})
    g.play(1, DECLARE_POVERTY)  # passes ♥J ♦A ♦10
    g.play(2, TAKE)
    assert g.piglets == -1  # not before the exchange is over
    rng = random.Random(0)
    while g.phase is Phase.EXCHANGE:
        g.play(2, rng.choice([a for a in g.legal_actions() if a >> 1 != 23]))
    assert g.piglets == 2 and g.scheme is SCHEMES[PIGLETS_SCHEME]


def test_poverty_deadlines_are_those_of_a_normal_game() -> None:
    # "Deadlines and special points as in a normal game"
    g = _poverty({1: POOR}, {1})
    g.play(1, DECLARE_POVERTY)
    g.play(2, TAKE)
    for c in g.legal_actions()[:3]:
        g.play(2, c)
    assert g.call_problem(1, CALL_RE) is None and g.call_problem(0, CALL_KONTRA) is None
    assert g.call_deadline(1) == 11


def test_without_nines_a_late_wedding_shifts_the_deadlines() -> None:
    # "wedding and reply rules shift the same way"
    rules = Rules(nines=False)
    for seed in range(40):
        g = Game.from_hands(rules, 3, deal(rules, {0: "CQ CQ"}, seed))
        reserve(g, {0})
        g.play(0, DECLARE_WEDDING)
        rng = random.Random(seed)
        while g.wedding_open:
            g.play(g.turn, rng.choice(g.legal_actions()))
        if g.wedding_trick == 2:
            assert g.call_deadline(1) == 10 - 1 - 1
            return
    pytest.fail("no wedding clarified in trick 2")
