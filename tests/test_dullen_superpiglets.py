"""House rules dullen and superpiglets in the engine, the observations and the computer
players (RULES §12.7, §12.8), and random games with every house rule on.

The contract (copied from the project's rules, section 12) is quoted in the comments of the
tests that check it.
"""

from __future__ import annotations

import random
from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from dokobot.ai.heuristic import trick_winner
from dokobot.ai.rollout import greedy_playout
from dokobot.engine import (
    DECLARE_SOLO,
    Game,
    Phase,
    Rules,
    Solo,
    observe,
    score,
)
from dokobot.engine.cards import (
    ACE,
    DIAMONDS,
    HEART_TENS,
    HEARTS,
    KING,
    NINE,
    QUEEN,
    TEN,
    both,
    card_of,
    cards_of,
)
from dokobot.engine.order import (
    NORMAL_SCHEME,
    PIGLETS_SCHEME,
    SCHEMES,
    SUPERPIGLETS_NO_NINES_SCHEME,
    SUPERPIGLETS_SCHEME,
)
from dokobot.engine.types import DECLARE_POVERTY, DECLINE, HEALTHY
from dokobot.host.options import HOUSE_RULES, OPTIONS, RULE_OPTIONS, TableOptions
from tests.test_house_engine import deal, reserve

H10 = card_of(HEARTS, TEN)
H10B = H10 + 1
DA = card_of(DIAMONDS, ACE)
D9 = card_of(DIAMONDS, NINE)
D9S = both(DIAMONDS, NINE)

# ------------------------------------------------------------------------------ dullen


def _h10_lead(rules: Rules) -> Game:
    """Seat 0 leads ♥10, seat 1 must follow with the other ♥10 (its only trump)."""
    g = Game.from_hands(
        rules,
        3,
        deal(rules, {0: "H10", 1: "H10 SA SA S10 S10 SK SK S9 S9 HA HA HK"}),
    )
    reserve(g, set())
    g.play(0, H10)
    g.play(1, H10B)
    g.play(2, g.legal_actions()[0])
    g.play(3, g.legal_actions()[0])
    return g


def test_dullen_which_heart_ten_wins() -> None:
    # "Which of two ♥10 in one trick wins: the first played (TSR), the second played, or
    # the second except in the last trick"
    assert _h10_lead(Rules()).tricks[0][2] == 0
    assert _h10_lead(Rules(dullen="second")).tricks[0][2] == 1
    assert _h10_lead(Rules(dullen="second_except_last")).tricks[0][2] == 1
    # the §11 option decides only while dullen is "first"
    assert _h10_lead(Rules(second_heart10_wins=True)).tricks[0][2] == 1
    assert Rules(dullen="second_except_last", second_heart10_wins=True).heart10_last_first


def _last_trick_with_both_tens(seed: int) -> Game | None:
    """A game whose last trick holds both ♥10 from two players: the players keep their
    ♥10 as long as they may."""
    rules = Rules(dullen="second_except_last")
    g = Game.deal(rules, seed % 4, seed)
    for _ in range(4):
        g.play(g.turn, HEALTHY)
    if g.phase is not Phase.PLAYING:
        return None
    rng = random.Random(seed)
    while len(g.tricks) < rules.hand_size - 1:
        acts = g.legal_actions()
        g.play(g.turn, rng.choice([a for a in acts if HEART_TENS >> a & 1 == 0] or acts))
    holders = [s for s in range(4) if g.hands[s] & HEART_TENS]
    return g if len(holders) == 2 else None


def test_dullen_second_except_last_lets_the_first_win_the_last_trick() -> None:
    # "or the second except in the last trick (there the first wins)"
    found = 0
    for seed in range(400):
        g = _last_trick_with_both_tens(seed)
        if g is None:
            continue
        before = g.copy()
        while g.phase is not Phase.FINISHED:
            g.play(g.turn, g.legal_actions()[0])
        leader, cards, winner = g.tricks[-1]
        first = next(i for i, c in enumerate(cards) if HEART_TENS >> c & 1)
        if g.scheme.cls[cards[0]] != 4 or any(g.scheme.key[c] > g.scheme.heart10 for c in cards):
            continue  # a plain lead under a ♥10 discard, or piglets: not the case asked
        found += 1
        assert winner == (leader + first) & 3
        # the fast paths agree: the random playout and the greedy rollout (one card each)
        p = before.copy()
        p.playout(random.Random(0))
        assert p.tricks[-1] == g.tricks[-1]
        q = before.copy()
        greedy_playout(q, random.Random(0))
        assert q.tricks[-1] == g.tricks[-1]
        # the same cards with dullen "second": the second ♥10 wins the last trick too
        r = Game.from_hands(Rules(dullen="second"), g.dealer, list(g.start_hands))
        for seat, action in g.log:
            r.play(seat, action)
        second = max(i for i, c in enumerate(cards) if HEART_TENS >> c & 1)
        assert r.tricks[-1][2] == (leader + second) & 3
    assert found >= 3


def test_dullen_keeps_the_plain_rule_where_heart_ten_is_plain() -> None:
    # "in solos where ♥10 is a plain card the plain-card rule (first played wins) stays"
    rules = Rules(dullen="second")
    hands = deal(rules, {0: "H10 H9", 1: "H10 HK"})
    g = Game.from_hands(rules, 3, hands)
    reserve(g, {0})
    g.play(0, DECLARE_SOLO + Solo.QUEENS)
    g.play(0, H10)
    g.play(1, H10B)
    for _ in range(2):
        acts = g.legal_actions()
        g.play(g.turn, min(acts, key=lambda c: g.scheme.key[c]))
    # nobody beats ♥10 but the other ♥10 (♥A unless held by 2 or 3): the first stays ahead
    _, cards, winner = g.tricks[0]
    if not any(g.scheme.key[c] > g.scheme.key[H10] for c in cards[2:]):
        assert winner == 0


def test_the_heuristic_players_know_which_heart_ten_wins() -> None:
    s = SCHEMES[NORMAL_SCHEME]
    assert trick_winner([H10, H10B], s) == 0
    assert trick_winner([H10, H10B], s, True) == 1
    assert s.beats(H10B, H10, True) and not s.beats(H10B, H10)
    rules = Rules(dullen="second_except_last")
    assert rules.second_heart10_takes(0) and not rules.second_heart10_takes(11)
    assert not Rules().second_heart10_takes(0)


# ------------------------------------------------------------------------ superpiglets


def test_superpiglets_rank_above_piglets() -> None:
    # "a player who holds both trump nines (both ♦9 ...) has the two highest trumps, above
    # the piglets"
    rules = Rules(piglets=True, superpiglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "D9 D9", 1: "DA DA"}))
    reserve(g, set())
    assert g.piglets == 1 and g.superpiglets == 0
    assert g.scheme is SCHEMES[SUPERPIGLETS_SCHEME]
    assert g.scheme.trumps_high_to_low[:3] == (D9, DA, H10)
    g.play(0, D9)
    g.play(1, DA)
    for _ in range(2):
        g.play(g.turn, g.legal_actions()[0])
    assert g.tricks[0][2] == 0
    while g.phase is not Phase.FINISHED:
        g.play(g.turn, g.legal_actions()[0])
    assert all(c.item != "fox" for c in score(g).components)  # still piglets: no fox


def test_superpiglets_need_piglets_and_the_option() -> None:
    # "In a game in which a player has piglets (item 3)"
    rules = Rules(piglets=True, superpiglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "D9 D9", 1: "DA", 2: "DA"}))
    reserve(g, set())
    assert g.superpiglets == -1 and g.scheme is SCHEMES[NORMAL_SCHEME]
    g = Game.from_hands(Rules(piglets=True), 3, deal(rules, {0: "D9 D9", 1: "DA DA"}))
    reserve(g, set())
    assert g.superpiglets == -1 and g.scheme is SCHEMES[PIGLETS_SCHEME]
    # the engine ignores superpiglets without piglets (the option refuses that state)
    assert Rules(superpiglets=True).trump_nines == 0


def test_superpiglets_without_nines_are_the_diamond_kings() -> None:
    # "both ♦K when nines is off"
    rules = Rules(piglets=True, superpiglets=True, nines=False)
    g = Game.from_hands(rules, 3, deal(rules, {2: "DK DK", 2 + 1: "DA DA"}))
    reserve(g, set())
    assert g.superpiglets == 2 and g.scheme is SCHEMES[SUPERPIGLETS_NO_NINES_SCHEME]
    assert g.scheme.trumps_high_to_low[0] == card_of(DIAMONDS, KING)


def test_superpiglets_in_a_diamonds_solo_and_after_a_poverty() -> None:
    rules = Rules(piglets=True, superpiglets=True, poverty=True)
    g = Game.from_hands(rules, 3, deal(rules, {1: "DA DA D9 D9"}))
    reserve(g, {1})
    g.play(1, DECLARE_SOLO + Solo.DIAMONDS)
    assert g.piglets == 1 == g.superpiglets and g.scheme is SCHEMES[SUPERPIGLETS_SCHEME]
    g = Game.from_hands(rules, 3, deal(rules, {1: "HA HA HK HK SA SA SK SK C10 CA CK D9"}))
    reserve(g, {1})
    g.play(1, DECLARE_POVERTY)  # one trump, ♦9
    assert g.superpiglets == -1  # not before the exchange is over


def test_superpiglets_become_public_when_the_first_is_played() -> None:
    # "It becomes public when he plays the first of them."
    rules = Rules(piglets=True, superpiglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "D9 D9 CQ", 2: "DA DA"}))
    reserve(g, set())
    pig, sup, other = observe(g, 2), observe(g, 0), observe(g, 1)
    # the holder of the nines does not know yet that somebody has piglets
    assert sup.superpiglets == -1 and sup.scheme is SCHEMES[NORMAL_SCHEME]
    assert pig.piglets == 2 and pig.superpiglets == -1 and pig.scheme is SCHEMES[PIGLETS_SCHEME]
    assert other.scheme is SCHEMES[NORMAL_SCHEME] and other.superpiglets == -1
    assert observe(g, -1).scheme is SCHEMES[NORMAL_SCHEME]
    g.play(0, card_of(0, QUEEN))  # ♣Q: nothing shown
    g.play(1, g.legal_actions()[0])
    g.play(2, DA)  # piglets shown
    assert observe(g, 0).superpiglets == 0 and observe(g, 0).scheme is g.scheme
    assert observe(g, 1).superpiglets == -1 and observe(g, 1).scheme is SCHEMES[PIGLETS_SCHEME]
    g.play(3, g.legal_actions()[0])
    while g.turn != 0:
        g.play(g.turn, g.legal_actions()[0])
    g.play(0, D9)
    for seat in (1, -1):
        assert observe(g, seat).superpiglets == 0 and observe(g, seat).scheme is g.scheme


def test_sampled_worlds_respect_superpiglets() -> None:
    rules = Rules(piglets=True, superpiglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "D9 D9 DA DA"}))
    reserve(g, set())
    g.play(0, D9)
    obs = observe(g, 1)
    assert obs.superpiglets == 0 and obs.piglets == -1
    for i in range(10):
        hands = obs.sample_hands(random.Random(i))
        assert hands[0] & D9S  # the second ♦9 stays with the holder
        w = obs.world(hands)
        assert w.superpiglets == 0 and w.scheme is g.scheme
    # the piglets holder has shown nothing: a world may give them to anybody
    g.play(1, g.legal_actions()[0])
    obs = observe(g, 1)
    assert obs.world(obs.sample_hands(random.Random(0))).scheme is g.scheme


def test_a_seat_that_played_a_trump_nine_unshown_holds_no_second() -> None:
    # once piglets are known, a ♦9 played without superpiglets means no second ♦9
    rules = Rules(piglets=True, superpiglets=True)
    g = Game.from_hands(rules, 3, deal(rules, {0: "DA DA", 1: "D9", 2: "D9"}))
    reserve(g, set())
    g.play(0, DA)
    g.play(1, D9)
    obs = observe(g, 3)
    assert obs.piglets == 0
    for i in range(10):
        assert not obs.sample_hands(random.Random(i))[1] & D9S


# ---------------------------------------------------- random games, every house rule on


def _every_house_rule() -> list[Rules]:
    """Every house rule the engine plays, from the declarations: those that the plain game
    leaves off, on; the others (``nines``, the rules of a few values) at each of their
    values, in every combination."""
    plain = TableOptions()
    played = [n for n in HOUSE_RULES if n in RULE_OPTIONS]
    each = [
        OPTIONS[n].values or ((True,) if getattr(plain, n) is False else (True, False))
        for n in played
    ]
    return [Rules(**dict(zip(played, values, strict=True))) for values in product(*each)]


HOUSE = _every_house_rule()


@given(st.integers(0, 2**63), st.sampled_from(HOUSE), st.integers(0, 3))
def test_random_games_with_every_house_rule(seed: int, rules: Rules, dealer: int) -> None:
    """Legal play, 240 eyes, scores summing to zero, push/pop, the playout's tricks, and no
    observation shows another hand."""
    rng = random.Random(seed)
    g = Game.deal(rules, dealer, seed)
    while g.phase is not Phase.FINISHED:
        acts = g.legal_actions()
        if g.phase is Phase.RESERVATIONS:
            action = acts[rng.random() < 0.3]
        elif g.phase is Phase.EXCHANGE and DECLINE in acts and rng.random() < 0.7:
            action = acts[0]  # mostly take
        else:
            action = rng.choice(acts)
        if g.phase is Phase.PLAYING:
            assert g.legal_cards() >> action & 1
            if rng.random() < 0.1:
                calls = g.legal_calls(caller := rng.randrange(4))
                if calls:
                    g.play(caller, rng.choice(calls))
            if rng.random() < 0.1:  # the fast path plays the rest like the checked one
                fast = g.copy()
                fast.playout(random.Random(seed))
                assert sum(fast.eyes) == 240 and len(fast.tricks) == rules.hand_size
                for s in (-1, 0, 1, 2, 3):
                    o = observe(g, s)
                    own = g.hands[s] if s >= 0 else 0  # the same cards (copies numbered anew)
                    assert sorted(c >> 1 for c in cards_of(o.hand)) == sorted(
                        c >> 1 for c in cards_of(own)
                    )
                    hands = o.sample_hands(random.Random(seed))
                    assert o.world(hands).phase is Phase.PLAYING
        g.play(g.turn, action)
    if g.cancelled:
        assert score(g).scores == (0, 0, 0, 0)
        return
    assert sum(g.eyes) == 240 and len(g.tricks) == rules.hand_size
    assert sum(score(g).scores) == 0
    played = [c for _, cards, _ in g.tricks for c in cards]
    assert sorted(played) == [c for c in range(48) if rules.deck >> c & 1]
    # the computer players' trick winner agrees with the engine's, trick by trick
    for i, (leader, cards, winner) in enumerate(g.tricks):
        second = rules.second_heart10_takes(i)
        assert (leader + trick_winner(cards, g.scheme, second)) & 3 == winner


def test_a_second_heart_ten_does_not_take_the_piglets() -> None:
    # A later ♥10 takes only a first ♥10 that is ahead, never a higher trump (the piglets'
    # ♦A): the engine and the random playout used to let it win.
    rules = Rules(piglets=True, dullen="second")
    hands = deal(rules, {0: "H10 CQ", 1: "DA DA", 2: "H10 DJ"})
    g = Game.from_hands(rules, 3, hands)
    reserve(g, set())
    g.play(0, H10)
    g.play(1, DA)
    g.play(2, H10B)
    g.play(3, g.legal_actions()[0])
    assert g.tricks[0][2] == 1
    seen = 0
    for seed in range(40):
        p = Game.from_hands(rules, 3, hands)
        reserve(p, set())
        p.play(0, H10)
        p.play(1, DA)
        p.playout(random.Random(seed))
        if HEART_TENS >> p.tricks[0][1][2] & 1:
            seen += 1
            assert p.tricks[0][2] == 1
    assert seen


def test_the_endgame_solver_plays_by_the_house_rules() -> None:
    """The exact solver scores endgames with both ♥10 still out (dullen
    second_except_last, piglets, superpiglets) as the engine's own minimax does."""
    from dokobot.ai.solver import solve, solve_brute

    rules = Rules(piglets=True, superpiglets=True, dullen="second_except_last")
    both_out = 0
    for seed in range(60):
        g = Game.deal(rules, seed % 4, seed)
        for _ in range(4):
            g.play(g.turn, HEALTHY)
        if g.phase is not Phase.PLAYING or g.wedding_open:
            continue
        rng = random.Random(seed)
        while len(g.tricks) < rules.hand_size - 3:
            acts = g.legal_actions()
            g.play(g.turn, rng.choice([a for a in acts if not HEART_TENS >> a & 1] or acts))
        if g.wedding_open:
            continue
        both_out += (sum(g.hands) & HEART_TENS) == HEART_TENS
        assert solve(g) == solve_brute(g), seed
    assert both_out >= 5


def test_the_review_reads_the_trick_by_the_dullen_rule() -> None:
    # Playing the second ♥10 takes the trick with dullen second: not "points given away"
    from dokobot.ai.review import _card_reason

    for dullen, reason in (("first", "points_given"), ("second", "high_trump")):
        rules = Rules(dullen=dullen)
        g = Game.from_hands(
            rules, 3, deal(rules, {0: "H10", 1: "H10 DJ SA SA S10 S10 SK SK S9 S9 HA HA"})
        )
        reserve(g, set())
        g.play(0, H10)
        low = card_of(DIAMONDS, 1)  # ♦J
        assert _card_reason(observe(g, 1), H10B, low) == reason
