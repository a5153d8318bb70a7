"""Cards and card notation (RULES §1), as an English reader's line is read (English words
first, the engine's code, then the other languages' words)."""

from __future__ import annotations

import pytest

from dokobot import languages
from dokobot.engine import NotationError, card_ascii, card_str, hands_from_kinds, mask_of, points
from dokobot.engine import parse_card as engine_parse_card
from dokobot.engine import parse_cards as engine_parse_cards
from dokobot.engine import parse_kind as engine_parse_kind
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


def parse_kind(token: str, lang: str = "en") -> int:
    return engine_parse_kind(token, languages.notations(lang))


def parse_cards(text: str) -> list[int]:
    return engine_parse_cards(text, languages.notations("en"))


def parse_card(token: str, hand: int | None = None) -> int:
    return engine_parse_card(token, hand, languages.notations("en"))


def kind(suit: int, rank: int) -> int:
    return suit * 6 + rank


# Every form RULES §1 names, plus the long forms the parser documents.
FORMS = [
    ("CQ", CLUBS, QUEEN),
    ("♣Q", CLUBS, QUEEN),
    ("cq", CLUBS, QUEEN),
    ("KrD", CLUBS, QUEEN),
    ("krd", CLUBS, QUEEN),
    ("KRD", CLUBS, QUEEN),
    ("Kreuz Dame", CLUBS, QUEEN),
    ("kreuz dame", CLUBS, QUEEN),
    ("queen of clubs", CLUBS, QUEEN),
    ("QC", CLUBS, QUEEN),
    ("H10", HEARTS, TEN),
    ("h10", HEARTS, TEN),
    ("♥10", HEARTS, TEN),
    ("♥️10", HEARTS, TEN),  # with the emoji variation selector
    ("10H", HEARTS, TEN),
    ("Herz Zehn", HEARTS, TEN),
    ("DA", DIAMONDS, ACE),
    ("da", DIAMONDS, ACE),
    ("AD", DIAMONDS, ACE),
    ("KaA", DIAMONDS, ACE),
    ("kaa", DIAMONDS, ACE),
    ("♦A", DIAMONDS, ACE),
    ("Karo Ass", DIAMONDS, ACE),
    ("S9", SPADES, NINE),
    ("s9", SPADES, NINE),
    ("P9", SPADES, NINE),
    ("♠9", SPADES, NINE),
    ("Pik Neun", SPADES, NINE),
    ("DK", DIAMONDS, KING),
    ("KaK", DIAMONDS, KING),
    ("KD", DIAMONDS, KING),  # K is the king, D the suit
    ("KaD", DIAMONDS, QUEEN),  # Ka is diamonds, D the Dame
    ("KrK", CLUBS, KING),
    ("KrB", CLUBS, JACK),
    ("CJ", CLUBS, JACK),
    ("Pik Bube", SPADES, JACK),
    ("HA", HEARTS, ACE),
    ("AH", HEARTS, ACE),
    ("Kr10", CLUBS, TEN),
    (" c a ", CLUBS, ACE),
]


@pytest.mark.parametrize(("token", "suit", "rank"), FORMS, ids=[f[0] for f in FORMS])
def test_parse_kind_forms(token: str, suit: int, rank: int) -> None:
    assert parse_kind(token) == kind(suit, rank)


def test_every_kind_round_trips_in_both_renderings() -> None:
    for k in range(24):
        assert parse_kind(card_ascii(2 * k)) == k
        assert parse_kind(card_str(2 * k)) == k
        assert parse_kind(card_ascii(2 * k).lower()) == k
        assert parse_kind(card_str(2 * k + 1)) == k


@pytest.mark.parametrize(
    ("token", "candidates"),
    [
        ("Dame", ["♣Q", "♠Q", "♥Q", "♦Q"]),
        ("Q", ["♣Q", "♠Q", "♥Q", "♦Q"]),
        ("10", ["♣10", "♠10", "♥10", "♦10"]),
        ("K", ["♣K", "♠K", "♥K", "♦K"]),
        ("Herz", ["♥9", "♥J", "♥Q", "♥K", "♥10", "♥A"]),
        ("Ka", ["♦9", "♦J", "♦Q", "♦K", "♦10", "♦A"]),
    ],
)
def test_ambiguous_tokens_list_their_readings(token: str, candidates: list[str]) -> None:
    with pytest.raises(NotationError) as info:
        parse_kind(token)
    assert info.value.reason == "card_ambiguous"
    assert info.value.params["candidates"] == candidates
    for name in candidates:
        assert name in str(info.value)
    assert isinstance(info.value, ValueError)


def test_single_d_is_diamonds_in_english_and_the_dame_in_german() -> None:
    with pytest.raises(NotationError) as info:
        parse_kind("D")
    assert info.value.params["candidates"] == ["♦9", "♦J", "♦Q", "♦K", "♦10", "♦A"]
    with pytest.raises(NotationError) as info:
        parse_kind("D", "de")
    assert info.value.params["candidates"] == ["♣Q", "♠Q", "♥Q", "♦Q"]


def test_the_engine_alone_reads_only_its_own_code_and_the_symbols() -> None:
    assert engine_parse_kind("CQ") == engine_parse_kind("♣Q") == kind(CLUBS, QUEEN)
    with pytest.raises(NotationError):
        engine_parse_kind("KrD")


@pytest.mark.parametrize("token", ["X7", "KK", "", "C11", "H1", "ZZ", "Kreuz Sieben", "7"])
def test_unknown_tokens(token: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_kind(token)
    assert info.value.reason == "card_unknown"


def test_k_is_never_diamonds_and_ka_never_a_king() -> None:
    # K alone, or K before a suit, is always the king.
    for token, expect in [
        ("KC", kind(CLUBS, KING)),
        ("KH", kind(HEARTS, KING)),
        ("KS", kind(SPADES, KING)),
        ("KD", kind(DIAMONDS, KING)),
    ]:
        assert parse_kind(token) == expect
    # Ka before a rank is always diamonds.
    for rank in (ACE, TEN, KING, QUEEN, JACK, NINE):
        token = "Ka" + ["9", "B", "D", "K", "10", "A"][rank]
        assert parse_kind(token) == kind(DIAMONDS, rank)


def test_parse_cards_and_parse_card_with_hand() -> None:
    assert parse_cards("CQ, H10 ♦A  KaK,P9") == [
        kind(CLUBS, QUEEN),
        kind(HEARTS, TEN),
        kind(DIAMONDS, ACE),
        kind(DIAMONDS, KING),
        kind(SPADES, NINE),
    ]
    assert parse_cards("   ") == []
    cq0, cq1 = card_of(CLUBS, QUEEN, 0), card_of(CLUBS, QUEEN, 1)
    assert parse_card("CQ") == cq0
    assert parse_card("CQ", mask_of([cq1])) == cq1
    assert parse_card("CQ", mask_of([cq0, cq1])) == cq0
    with pytest.raises(NotationError):
        parse_cards("CQ XX")


def test_points_and_deck() -> None:
    assert [points(card_of(HEARTS, r)) for r in (ACE, TEN, KING, QUEEN, JACK, NINE)] == [
        11,
        10,
        4,
        3,
        2,
        0,
    ]
    assert sum(points(c) for c in range(48)) == 240
    assert sorted(card_str(c) for c in range(48)).count("♥10") == 2


def test_hands_from_kinds_copies_and_third_copy() -> None:
    h = hands_from_kinds([parse_cards("CQ CQ"), parse_cards("H10")])
    assert h[0] == mask_of([card_of(CLUBS, QUEEN, 0), card_of(CLUBS, QUEEN, 1)])
    assert h[1] == mask_of([card_of(HEARTS, TEN, 0)])
    with pytest.raises(ValueError, match="more than twice"):
        hands_from_kinds([parse_cards("CQ CQ"), parse_cards("CQ")])
