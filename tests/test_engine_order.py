"""Trump and suit orders of every game type, and who wins a trick (RULES §4, §6)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dokobot.engine import (
    DECLARE_SOLO,
    DEFAULT_RULES,
    HEALTHY,
    Game,
    Phase,
    Rules,
    Solo,
    card_str,
    parse_cards,
    parse_kind,
)
from dokobot.engine.order import SCHEMES, TRUMP, scheme_for

# RULES §4, written out: trumps highest first, then each plain suit highest first.
SUIT_TRUMPS = "H10 CQ SQ HQ DQ CJ SJ HJ DJ"
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "normal": (
        SUIT_TRUMPS + " DA D10 DK D9",
        {"C": "CA C10 CK C9", "S": "SA S10 SK S9", "H": "HA HK H9"},
    ),
    "diamonds": (
        SUIT_TRUMPS + " DA D10 DK D9",
        {"C": "CA C10 CK C9", "S": "SA S10 SK S9", "H": "HA HK H9"},
    ),
    "clubs": (
        SUIT_TRUMPS + " CA C10 CK C9",
        {"S": "SA S10 SK S9", "H": "HA HK H9", "D": "DA D10 DK D9"},
    ),
    "spades": (
        SUIT_TRUMPS + " SA S10 SK S9",
        {"C": "CA C10 CK C9", "H": "HA HK H9", "D": "DA D10 DK D9"},
    ),
    "hearts": (
        SUIT_TRUMPS + " HA HK H9",
        {"C": "CA C10 CK C9", "S": "SA S10 SK S9", "D": "DA D10 DK D9"},
    ),
    "queens": (
        "CQ SQ HQ DQ",
        {s: f"{s}A {s}10 {s}K {s}J {s}9" for s in "CSHD"},
    ),
    "jacks": (
        "CJ SJ HJ DJ",
        {s: f"{s}A {s}10 {s}K {s}Q {s}9" for s in "CSHD"},
    ),
    "fleshless": (
        "",
        {s: f"{s}A {s}10 {s}K {s}Q {s}J {s}9" for s in "CSHD"},
    ),
}
SOLO_OF = {"normal": None, **{s.key: s for s in Solo}}
SUIT_INDEX = {"C": 0, "S": 1, "H": 2, "D": 3}


def ref_class_and_rank(game: str) -> dict[int, tuple[str, int]]:
    """Kind -> (class, strength) from the table; higher strength wins."""
    trumps, plain = TABLES[game]
    out: dict[int, tuple[str, int]] = {}
    for i, k in enumerate(parse_cards(trumps)):
        out[k] = ("T", 100 - i)
    for suit, order in plain.items():
        for i, k in enumerate(parse_cards(order)):
            out[k] = (suit, 50 - i)
    return out


def ref_winner(game: str, cards: list[int], second_h10: bool = False) -> int:
    """Index of the winning card in a trick of card ids, from the RULES tables alone."""
    table = ref_class_and_rank(game)
    h10 = parse_kind("H10")
    led = table[cards[0] >> 1][0]
    best = 0
    for i in range(1, 4):
        cls, strength = table[cards[i] >> 1]
        bcls, bstrength = table[cards[best] >> 1]
        if cls not in ("T", led):
            continue
        higher = (cls == "T" and bcls != "T") or (cls == bcls and strength > bstrength)
        later_h10 = cls == "T" and cards[i] >> 1 == h10 == cards[best] >> 1
        if higher or (second_h10 and later_h10):
            best = i
    return best


@pytest.mark.parametrize("game", list(TABLES))
def test_tables_cover_the_deck_once(game: str) -> None:
    table = ref_class_and_rank(game)
    assert sorted(table) == list(range(24))


@pytest.mark.parametrize("game", list(TABLES))
def test_engine_order_matches_rules_table(game: str) -> None:
    scheme = scheme_for(SOLO_OF[game])
    trumps, plain = TABLES[game]
    assert [c >> 1 for c in scheme.trumps_high_to_low] == parse_cards(trumps)
    assert scheme.class_mask[TRUMP].bit_count() == 2 * len(parse_cards(trumps))
    for copy in (0, 1):
        # every trump in the table order, strictly decreasing
        keys = [scheme.key[k * 2 + copy] for k in parse_cards(trumps)]
        assert all(scheme.cls[k * 2 + copy] == TRUMP for k in parse_cards(trumps))
        assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
        for suit, order in plain.items():
            kinds = parse_cards(order)
            assert all(scheme.cls[k * 2 + copy] == SUIT_INDEX[suit] for k in kinds)
            keys = [scheme.key[k * 2 + copy] for k in kinds]
            assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
            if scheme.trumps_high_to_low:  # every trump above every plain card
                assert min(scheme.key[c] for c in scheme.trumps_high_to_low) > max(keys)
        # classes not in the table do not exist (e.g. no plain diamonds in a normal game)
        present = {"T"} | set(plain) if trumps else set(plain)
        for cls in range(4):
            if "CSHD"[cls] not in present:
                assert scheme.class_mask[cls] == 0


def test_schemes_are_distinct_and_normal_is_diamonds() -> None:
    assert scheme_for(None) is scheme_for(Solo.DIAMONDS)
    # 7 solos, piglets and superpiglets (with and without nines)
    assert len({s.key for s in SCHEMES}) == len(SCHEMES) == 10


# ------------------------------------------------------------- tricks through a real game


def _started(game: str, rules: Rules, leader: int) -> Game:
    """A game of type ``game`` in the card play, ``leader`` to lead."""
    solo = SOLO_OF[game]
    if solo is None:
        g = Game.deal(rules, (leader - 1) % 4, 0)
        for _ in range(4):
            g.play(g.turn, HEALTHY)
    else:
        g = Game.deal(rules, (leader - 1) % 4, 0, forced_soloist=leader)
        g.play(leader, DECLARE_SOLO + solo)
    assert g.phase is Phase.PLAYING and g.turn == leader
    return g


def _trick_game(game: str, rules: Rules, leader: int, cards: list[int]) -> Game:
    """A game at its last trick, ``leader`` to lead, the seats holding ``cards`` in play
    order (one card each)."""
    g = _started(game, rules, leader)
    g.hands = [0, 0, 0, 0]
    for i, c in enumerate(cards):
        g.hands[(leader + i) % 4] |= 1 << c
    g.tricks = [(0, (0, 0, 0, 0), 0)] * 11
    return g


def engine_winners(
    game: str, cards: list[int], rules: Rules = DEFAULT_RULES, leader: int = 1
) -> tuple[int, int]:
    """(index of the winning card by push(), the path of play(), and by playout())."""
    g = _trick_game(game, rules, leader, cards)
    p = g.copy()
    for i, c in enumerate(cards):
        g.push((leader + i) % 4, c)
    p.playout(random.Random(0))
    assert p.tricks[-1][1] == tuple(cards)
    return (g.tricks[-1][2] - leader) % 4, (p.tricks[-1][2] - leader) % 4


def trick(text: str) -> list[int]:
    """Card ids of a trick; a repeated kind gets the second copy."""
    seen: set[int] = set()
    out = []
    for k in parse_cards(text):
        c = 2 * k + (1 if 2 * k in seen else 0)
        seen.add(c)
        out.append(c)
    return out


CASES = [
    # (game, trick, winner index, why)
    ("normal", "H10 CQ SQ DJ", 0, "♥10 is the highest trump"),
    ("normal", "CQ H10 SQ DJ", 1, "♥10 beats ♣Q"),
    ("normal", "H10 H10 CQ DJ", 0, "first of two ♥10 wins"),
    ("normal", "CQ CQ H10 D9", 2, "♥10 after two ♣Q"),
    ("normal", "CQ CQ SQ D9", 0, "first of two equal trumps"),
    ("normal", "CA CA C10 CK", 0, "first of two equal plain cards"),
    ("normal", "CA D9 CA C10", 1, "lowest trump beats a plain ace"),
    ("normal", "CA SA HA C9", 0, "off-suit aces do not win"),
    ("normal", "HA H10 HK H9", 1, "♥10 is trump even on a heart lead"),
    ("normal", "D9 DA DK D10", 1, "♦A is the highest diamond trump"),
    ("normal", "DJ DQ DA D10", 1, "queens over jacks over ♦A"),
    ("normal", "HK HA H9 SA", 1, "hearts A K 9"),
    ("diamonds", "H10 H10 CQ DJ", 0, "diamonds solo: first ♥10"),
    ("clubs", "SA CA SK S9", 1, "clubs solo: ♣A is trump"),
    ("clubs", "DA D10 D9 DK", 0, "clubs solo: diamonds plain"),
    ("clubs", "C9 DJ C10 CA", 1, "clubs solo: jacks over ♣A"),
    ("spades", "S9 SA CQ HJ", 2, "spades solo: queens over ♠A"),
    ("spades", "DA S9 D10 DK", 1, "spades solo: ♠9 trumps ♦A"),
    ("hearts", "HK HA H9 H10", 3, "hearts solo: ♥10 tops hearts"),
    ("hearts", "DA H9 D10 DK", 1, "hearts solo: ♥9 trumps"),
    ("queens", "HA H10 HK HJ", 0, "queens solo: ♥10 is plain, below ♥A"),
    ("queens", "H10 H10 HA DQ", 3, "queens solo: any queen beats ♥10"),
    ("queens", "CJ CA C10 C9", 1, "queens solo: jacks are plain"),
    ("queens", "HK HJ H9 H10", 3, "queens solo: ♥ A 10 K J 9"),
    ("jacks", "CQ CK CA C9", 2, "jacks solo: ♣Q plain, below ♣K"),
    ("jacks", "CA DJ CJ C10", 2, "jacks solo: ♣J highest"),
    ("jacks", "HQ HK H9 HJ", 3, "jacks solo: ♥J trump"),
    ("fleshless", "CQ CJ C9 CK", 3, "fleshless: K over Q over J"),
    ("fleshless", "H9 H10 HA CA", 2, "fleshless: ♥A over ♥10, ♣A off-suit"),
    ("fleshless", "DJ CQ SQ HQ", 0, "fleshless: no trumps at all"),
    ("fleshless", "H10 H10 H9 HK", 0, "fleshless: first ♥10"),
]


@pytest.mark.parametrize(("game", "text", "winner", "why"), CASES, ids=[c[3] for c in CASES])
def test_trick_winner(game: str, text: str, winner: int, why: str) -> None:
    cards = trick(text)
    assert ref_winner(game, cards) == winner, "reference model disagrees with the case"
    for leader in (0, 3):
        assert engine_winners(game, cards, leader=leader) == (winner, winner), why


SECOND_H10 = Rules(second_heart10_wins=True)


@pytest.mark.parametrize(
    ("game", "text", "default", "option"),
    [
        ("normal", "H10 H10 CQ DJ", 0, 1),
        ("normal", "CQ H10 H10 D9", 1, 2),
        ("normal", "H10 CQ SQ H10", 0, 3),
        ("hearts", "H10 HA H10 H9", 0, 2),
        ("clubs", "H10 H10 C9 CA", 0, 1),
        ("normal", "CA CA C10 CK", 0, 0),  # the option is only about ♥10
        ("normal", "CQ CQ SQ HQ", 0, 0),
        # where ♥10 is a plain card the option does not apply
        ("queens", "H10 H10 HK H9", 0, 0),
        ("jacks", "H10 H9 H10 HK", 0, 0),
        ("fleshless", "HK H10 H10 H9", 1, 1),
    ],
)
def test_second_heart10_option(game: str, text: str, default: int, option: int) -> None:
    cards = trick(text)
    assert ref_winner(game, cards) == default
    assert ref_winner(game, cards, second_h10=True) == option
    assert engine_winners(game, cards) == (default, default)
    assert engine_winners(game, cards, SECOND_H10) == (option, option)


@given(
    game=st.sampled_from(list(TABLES)),
    second_h10=st.booleans(),
    kinds=st.lists(st.integers(0, 23), min_size=4, max_size=4),
    leader=st.integers(0, 3),
)
def test_random_tricks_match_reference(
    game: str, second_h10: bool, kinds: list[int], leader: int
) -> None:
    if any(kinds.count(k) > 2 for k in kinds):
        return
    cards = trick(" ".join(card_str(2 * k) for k in kinds))
    want = ref_winner(game, cards, second_h10)
    got = engine_winners(game, cards, Rules(second_heart10_wins=second_h10), leader)
    assert got == (want, want)


@pytest.mark.parametrize("game", list(TABLES))
def test_following_uses_the_trump_class(game: str) -> None:
    """Must follow the led class (trump counts as one suit), else play anything."""
    table = ref_class_and_rank(game)
    rng = random.Random(game)
    for _ in range(30):
        kinds = [k for k in range(24) for _ in range(2)]
        rng.shuffle(kinds)
        lead, hand = kinds[0], kinds[1:13]
        cards = trick(" ".join(card_str(2 * k) for k in [lead, *hand]))
        g = _started(game, DEFAULT_RULES, 0)
        g.hands = [1 << cards[0], 0, 0, 0]
        for c in cards[1:]:
            g.hands[1] |= 1 << c
        g.push(0, cards[0])
        legal = {c >> 1 for c in range(48) if g.legal_cards(1) >> c & 1}
        led = table[lead][0]
        follow = {k for k in hand if table[k][0] == led}
        assert legal == (follow or set(hand))
        assert set(g.legal_actions()) == {min(c for c in cards[1:] if c >> 1 == k) for k in legal}
