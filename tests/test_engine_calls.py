"""Announcements: deadlines, skipping, the reply rule, parties, wedding shift (RULES §7)."""

from __future__ import annotations

import random

import pytest

from dokobot.engine import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_NO30,
    CALL_NO60,
    CALL_NO90,
    CALL_RE,
    DECLARE_WEDDING,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    Game,
    GameType,
    IllegalAction,
    Party,
    Phase,
    hands_from_kinds,
    parse_cards,
    parse_kind,
)

CQ = parse_kind("CQ")
RE, KONTRA = Party.RE, Party.KONTRA
LOWER = (CALL_NO90, CALL_NO60, CALL_NO30, CALL_BLACK)


def party_call(party: Party) -> int:
    return CALL_RE if party is RE else CALL_KONTRA


def calls_up_to(party: Party, level: int) -> list[int]:
    """The call actions of ``party`` for levels 1..level."""
    return [party_call(party), *LOWER][:level]


def normal_game(seed: int = 0) -> Game:
    """Dealer 3, seat 0 leads; Re = seats 0 and 1, Kontra = seats 2 and 3."""
    rest = [k for k in range(24) for _ in range(2) if k != CQ]
    random.Random(seed).shuffle(rest)
    kinds: list[list[int]] = [[CQ], [CQ], [], []]
    for s in range(4):
        while len(kinds[s]) < 12:
            kinds[s].append(rest.pop())
    g = Game.from_hands(DEFAULT_RULES, 3, hands_from_kinds(kinds))
    for s in range(4):
        g.play(s, HEALTHY)
    assert g.game_type is GameType.NORMAL and g.re_seats == 0b0011
    return g


def step(g: Game) -> None:
    """The player to move plays his first legal card."""
    g.play(g.turn, g.legal_actions()[0])


def advance(g: Game, seat: int, held: int) -> None:
    """Play first legal cards until ``seat`` holds ``held`` cards."""
    while g.hands[seat].bit_count() > held:
        step(g)
    assert g.hands[seat].bit_count() == held


def refused(g: Game, seat: int, action: int) -> str:
    before = (g.level[:], g.closed[:], len(g.calls))
    with pytest.raises(IllegalAction) as info:
        g.play(seat, action)
    assert action not in g.legal_calls(seat)
    assert (g.level, g.closed, len(g.calls)) == before
    return info.value.reason


def allowed(g: Game, seat: int, action: int) -> None:
    assert g.call_problem(seat, action) is None
    assert action in g.legal_calls(seat)


# ------------------------------------------------------------------ normal deadlines


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
@pytest.mark.parametrize(("seat", "party"), [(0, RE), (1, RE), (2, KONTRA), (3, KONTRA)])
def test_deadline(level: int, seat: int, party: Party) -> None:
    """re/kontra until 11 cards, no90 10, no60 9, no30 8, black 7."""
    g = normal_game()
    for action in calls_up_to(party, level - 1):
        g.play(seat, action)
    action = calls_up_to(party, level)[-1]
    advance(g, seat, 12 - level)
    allowed(g, seat, action)
    late = g.copy()
    advance(late, seat, 11 - level)
    assert refused(late, seat, action) == "call_too_late"
    g.play(seat, action)
    assert g.level[party] == level and not g.closed[party]
    assert g.calls[-1] == (seat, action)


def test_calls_are_not_bound_to_the_turn() -> None:
    g = normal_game()
    step(g)
    assert g.turn == 1
    g.play(3, CALL_KONTRA)
    g.play(0, CALL_RE)
    assert g.level == [1, 1] and g.turn == 1


def test_calls_outside_the_card_play() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, normal_game().start_hands)
    assert refused(g, 0, CALL_RE) == "call_not_now"
    g.play(0, RESERVATION)
    for s in (1, 2, 3):
        g.play(s, HEALTHY)
    assert g.phase is Phase.DECLARATIONS
    assert refused(g, 0, CALL_RE) == "call_not_now"
    done = normal_game()
    while done.phase is not Phase.FINISHED:
        step(done)
    assert refused(done, 0, CALL_RE) == "game_over"
    assert done.legal_calls(0) == []


# ------------------------------------------------------------------ parties


def test_wrong_party_calls_are_refused() -> None:
    g = normal_game()
    assert refused(g, 2, CALL_RE) == "call_wrong_party"
    assert refused(g, 0, CALL_KONTRA) == "call_wrong_party"
    assert g.legal_calls(0) == [CALL_RE, *LOWER]
    assert g.legal_calls(3) == [CALL_KONTRA, *LOWER]
    g.play(2, CALL_NO90)  # no90 is said for one's own party (skipping kontra)
    assert g.level == [0, 2]


def test_same_call_twice_is_refused() -> None:
    g = normal_game()
    g.play(0, CALL_RE)
    assert refused(g, 1, CALL_RE) == "call_already_made"
    assert refused(g, 0, CALL_RE) == "call_already_made"
    g.play(1, CALL_NO90)
    assert refused(g, 0, CALL_NO90) == "call_already_made"
    assert refused(g, 0, CALL_RE) == "call_already_made"
    g.play(3, CALL_KONTRA)
    assert refused(g, 2, CALL_KONTRA) == "call_already_made"
    assert g.level == [2, 1]


# ------------------------------------------------------------------ skipping levels


def test_skip_to_black_at_the_start() -> None:
    g = normal_game()
    advance(g, 0, 11)
    allowed(g, 0, CALL_BLACK)
    g.play(0, CALL_BLACK)
    assert g.level[RE] == 5
    assert refused(g, 1, CALL_NO30) == "call_already_made"


@pytest.mark.parametrize("target", [CALL_NO60, CALL_NO30, CALL_BLACK])
def test_skip_allowed_while_every_skipped_level_is_in_time(target: int) -> None:
    g = normal_game()
    g.play(0, CALL_RE)
    advance(g, 0, 10)  # no90's last moment: no60, no30 and black may be reached too
    allowed(g, 0, target)
    g.play(0, target)
    assert g.level[RE] == target - CALL_KONTRA + 1


@pytest.mark.parametrize("target", [CALL_NO90, CALL_NO60, CALL_NO30, CALL_BLACK])
def test_a_missed_level_cannot_be_made_up(target: int) -> None:
    g = normal_game()
    g.play(0, CALL_RE)
    advance(g, 0, 9)  # no90 missed (needs 10); no60 would be in time by itself
    assert refused(g, 0, target) == "call_too_late"
    # the partner holds 9 or 10 cards; with 10 he may still call for the party
    assert g.hands[1].bit_count() == 10
    allowed(g, 1, target)


def test_lower_call_needs_the_party_call_first() -> None:
    g = normal_game()
    advance(g, 0, 10)  # re (11) missed
    assert refused(g, 0, CALL_NO90) == "call_needs_party_call"
    assert refused(g, 0, CALL_RE) == "call_too_late"
    g2 = normal_game()
    advance(g2, 0, 11)  # re is in time, so skipping to no60 (needs re 11, no90 10) is fine
    allowed(g2, 0, CALL_NO60)


# ------------------------------------------------------------------ the reply rule


@pytest.mark.parametrize(
    ("opp_calls", "reply_held"),
    [
        ([CALL_RE], 10),  # re needs 11, so kontra is a reply with 10
        ([CALL_RE, CALL_NO90], 9),  # latest call no90 needs 10
        ([CALL_NO60], 8),  # a skip: the latest call no60 needs 9
        ([CALL_RE, CALL_NO90, CALL_NO60, CALL_NO30], 7),
        ([CALL_BLACK], 6),
    ],
)
def test_kontra_reply_one_card_later(opp_calls: list[int], reply_held: int) -> None:
    g = normal_game()
    for a in opp_calls:
        g.play(0, a)
    advance(g, 2, reply_held)
    allowed(g, 2, CALL_KONTRA)
    assert refused(g, 2, CALL_NO90) == "call_needs_party_call"  # only a bare reply
    late = g.copy()
    advance(late, 2, reply_held - 1)
    assert refused(late, 2, CALL_KONTRA) == "call_too_late"
    g.play(2, CALL_KONTRA)
    assert g.level[KONTRA] == 1
    # a reply later than a normal kontra closes the party's calls
    assert g.closed == [False, True]
    assert refused(g, 2, CALL_NO90) == "call_closed"
    assert refused(g, 3, CALL_NO90) == "call_closed"
    assert g.legal_calls(3) == []


def test_re_reply_against_kontra_and_against_a_kontra_lower_call() -> None:
    g = normal_game()
    g.play(3, CALL_KONTRA)
    advance(g, 1, 10)
    allowed(g, 1, CALL_RE)
    g.play(1, CALL_RE)
    assert g.closed == [True, False]
    assert refused(g, 0, CALL_NO90) == "call_closed"
    # the other party is not affected
    assert g.hands[3].bit_count() >= 10
    g2 = normal_game()
    g2.play(3, CALL_NO90)
    advance(g2, 0, 9)
    allowed(g2, 0, CALL_RE)


def test_reply_in_normal_time_does_not_close() -> None:
    g = normal_game()
    g.play(0, CALL_RE)
    advance(g, 2, 11)
    g.play(2, CALL_KONTRA)
    assert g.closed == [False, False]
    advance(g, 3, 10)
    allowed(g, 3, CALL_NO90)


def test_no_reply_without_an_opponent_call() -> None:
    g = normal_game()
    advance(g, 2, 10)
    assert refused(g, 2, CALL_KONTRA) == "call_too_late"


# ------------------------------------------------------------------ weddings

# Seat 0 (the wedding player, first hand) holds both ♣Q and both ♥10, so he wins every
# trump lead; when he leads ♠9, seat 1 must play ♠A and takes the trick.
WEDDING = [
    "CQ CQ H10 H10 SQ SQ HQ HQ S9 S9 C9 C9",
    "SA SA CA CA HA HA DQ DQ CJ CJ SJ SJ",
    "S10 S10 C10 C10 HK HK HJ HJ DJ DJ DA DA",
    "SK SK CK CK H9 H9 D10 D10 DK DK D9 D9",
]


def wedding_game() -> Game:
    g = Game.from_hands(DEFAULT_RULES, 3, hands_from_kinds(parse_cards(h) for h in WEDDING))
    g.play(0, RESERVATION)
    for s in (1, 2, 3):
        g.play(s, HEALTHY)
    g.play(0, DECLARE_WEDDING)
    assert g.game_type is GameType.WEDDING and g.wedding_open and g.turn == 0
    return g


def lead_trick(g: Game, card: str) -> None:
    """The leader plays ``card``, the others their first legal card; checks of the
    'no call before clarification' rule in between."""
    kind = parse_kind(card)
    g.play(g.turn, next(a for a in g.legal_actions() if a >> 1 == kind))
    for _ in range(3):
        if g.wedding_open:
            for s in range(4):
                assert refused(g, s, party_call(g.party_of(s))) == "call_wedding_unclarified"
                assert g.legal_calls(s) == []
        step(g)


@pytest.mark.parametrize(
    ("leads", "shift", "partner"),
    [
        (["S9"], 0, 1),
        (["H10", "S9"], 1, 1),
        (["H10", "H10", "S9"], 2, 1),
        (["H10", "H10", "CQ"], 2, None),
    ],
    ids=["trick1", "trick2", "trick3", "no-partner"],
)
def test_wedding_clarification_shifts_deadlines(
    leads: list[str], shift: int, partner: int | None
) -> None:
    g = wedding_game()
    for card in leads:
        assert g.wedding_open
        lead_trick(g, card)
    assert not g.wedding_open and g.shift == shift
    n = len(leads)
    if partner is None:
        assert g.re_seats == 1 << 0 and g.wedding_trick == 0 and g.is_solo_scored
    else:
        assert g.re_seats == 1 << 0 | 1 << partner and g.wedding_trick == n
    assert g.call_deadline(1) == 11 - shift
    # right after the clarification trick everyone holds 12 - n cards
    held = 12 - n
    for s in range(4):
        if held >= 11 - shift:
            allowed(g, s, party_call(g.party_of(s)))
        else:
            assert refused(g, s, party_call(g.party_of(s))) == "call_too_late"
    # every deadline is shifted: the last moment of each level
    for level in range(1, 6):
        h = g.copy()
        if level > 1:  # reach the level below at once (skipping is in time now)
            h.play(0, calls_up_to(RE, level - 1)[-1])
        advance(h, 0, 12 - level - shift)
        allowed(h, 0, calls_up_to(RE, level)[-1])
        advance(h, 0, 11 - level - shift)
        assert refused(h, 0, calls_up_to(RE, level)[-1]) == "call_too_late"


def test_wedding_reply_deadline_is_shifted_too() -> None:
    g = wedding_game()
    for card in ("H10", "S9"):
        lead_trick(g, card)
    assert g.shift == 1 and g.re_seats == 0b0011
    g.play(0, CALL_RE)  # 10 cards: in time (re needs 10 after the shift)
    advance(g, 2, 9)
    allowed(g, 2, CALL_KONTRA)  # a reply with one card fewer
    h = g.copy()
    advance(h, 2, 8)
    assert refused(h, 2, CALL_KONTRA) == "call_too_late"
    g.play(2, CALL_KONTRA)
    assert g.closed == [False, True]


def test_silent_wedding_has_normal_deadlines() -> None:
    hands = hands_from_kinds(parse_cards(h) for h in WEDDING)
    g = Game.from_hands(DEFAULT_RULES, 3, hands)
    for s in range(4):
        g.play(s, HEALTHY)
    assert g.game_type is GameType.SILENT_WEDDING and g.shift == 0
    assert [g.party_of(s) for s in range(4)] == [RE, KONTRA, KONTRA, KONTRA]
    allowed(g, 0, CALL_RE)  # no clarification wait
    allowed(g, 3, CALL_KONTRA)
    advance(g, 0, 11)
    allowed(g, 0, CALL_RE)
    advance(g, 0, 10)
    assert refused(g, 0, CALL_RE) == "call_too_late"


def test_kontra_call_in_a_silent_wedding_reveals_no_re_player() -> None:
    """Seat 3 (Kontra) sees seat 1 call kontra: seats 0 and 2 are not known to be Re, since
    one of them may hold both ♣Q (here seat 0 does, and seat 2 is Kontra too)."""
    from dokobot.engine import observe

    hands = hands_from_kinds(parse_cards(h) for h in WEDDING)
    g = Game.from_hands(DEFAULT_RULES, 3, hands)
    for s in range(4):
        g.play(s, HEALTHY)
    g.play(1, CALL_KONTRA)
    obs = observe(g, 3)
    assert obs.parties == (None, KONTRA, None, KONTRA)
    worlds = [obs.world(obs.sample_hands(random.Random(i))) for i in range(40)]
    assert {w.game_type for w in worlds} == {GameType.NORMAL, GameType.SILENT_WEDDING}


def test_solo_calls_by_party() -> None:
    from dokobot.engine import DECLARE_SOLO, Solo

    g = Game.from_hands(DEFAULT_RULES, 3, normal_game().start_hands)
    g.play(0, HEALTHY)
    g.play(1, HEALTHY)
    g.play(2, RESERVATION)
    g.play(3, HEALTHY)
    g.play(2, DECLARE_SOLO + Solo.JACKS)
    assert [g.party_of(s) for s in range(4)] == [KONTRA, KONTRA, RE, KONTRA]
    assert refused(g, 0, CALL_RE) == "call_wrong_party"
    g.play(2, CALL_RE)
    g.play(0, CALL_KONTRA)
    assert refused(g, 1, CALL_KONTRA) == "call_already_made"
