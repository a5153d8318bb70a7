"""Reservations, declarations, precedence, lead and forced solo (RULES §3, §5, §9)."""

from __future__ import annotations

import random

import pytest

from dokobot.engine import (
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    TOURNAMENT_RULES,
    Game,
    GameType,
    IllegalAction,
    Party,
    Phase,
    Rules,
    Solo,
    hands_from_kinds,
    parse_kind,
)
from dokobot.engine.order import SCHEMES
from dokobot.engine.types import N_ACTIONS

CQ = parse_kind("CQ")


def hands(cq: tuple[int, int], seed: int = 0) -> list[int]:
    """A deal in which the two ♣Q go to seats ``cq``; the rest is shuffled."""
    rest = [k for k in range(24) for _ in range(2) if k != CQ]
    random.Random(seed).shuffle(rest)
    kinds: list[list[int]] = [[], [], [], []]
    for s in cq:
        kinds[s].append(CQ)
    for s in range(4):
        while len(kinds[s]) < 12:
            kinds[s].append(rest.pop())
    return hands_from_kinds(kinds)


def reserve(g: Game, reserving: set[int]) -> None:
    """The reservation round; ``reserving`` say reservation, the others healthy."""
    for i in range(4):
        seat = (g.dealer + 1 + i) % 4
        assert g.phase is Phase.RESERVATIONS and g.turn == seat
        assert g.legal_actions() == [HEALTHY, RESERVATION]
        g.play(seat, RESERVATION if seat in reserving else HEALTHY)


def reason(g: Game, seat: int, action: int) -> str:
    with pytest.raises(IllegalAction) as info:
        g.play(seat, action)
    assert g.problem(seat, action) is not None
    return info.value.reason


SOLO = {s: DECLARE_SOLO + s for s in Solo}


# ------------------------------------------------------------------ no reservation


def test_all_healthy_is_a_normal_game() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, hands((0, 2)))
    reserve(g, set())
    assert g.phase is Phase.PLAYING and g.game_type is GameType.NORMAL
    assert g.re_seats == 0b0101
    assert [g.party_of(s) for s in range(4)] == [Party.RE, Party.KONTRA] * 2
    assert g.leader == g.turn == 0 and not g.is_solo_scored
    assert g.scheme is SCHEMES[Solo.DIAMONDS]


def test_both_club_queens_healthy_is_a_silent_wedding() -> None:
    g = Game.from_hands(DEFAULT_RULES, 0, hands((2, 2)))
    reserve(g, set())
    assert g.game_type is GameType.SILENT_WEDDING
    assert g.declarer == 2 and g.re_seats == 1 << 2 and g.is_solo_scored
    assert g.leader == g.turn == 1
    assert not g.mandatory


def test_reservation_round_runs_clockwise_from_first_hand() -> None:
    g = Game.from_hands(DEFAULT_RULES, 2, hands((0, 1)))
    assert g.turn == 3  # first hand is the seat after the dealer
    assert reason(g, 0, HEALTHY) == "not_your_turn"
    assert reason(g, 3, DECLARE_WEDDING) == "not_declaration_round"
    assert reason(g, 3, 5) == "not_playing_yet"
    assert reason(g, 3, CALL_RE) == "call_not_now"
    assert reason(g, 7, HEALTHY) == "no_such_seat"
    assert reason(g, 3, N_ACTIONS) == "no_such_action"
    g.play(3, HEALTHY)
    assert g.turn == 0
    assert g.reserved == [-1, -1, -1, 0]


# ------------------------------------------------------------------ default precedence


@pytest.mark.parametrize("dealer", range(4))
def test_default_two_solos_the_further_ahead_wins_and_the_other_is_not_asked(
    dealer: int,
) -> None:
    first = (dealer + 1) % 4
    ahead, behind = (first + 1) % 4, (first + 3) % 4
    g = Game.from_hands(DEFAULT_RULES, dealer, hands((first, first)))
    reserve(g, {ahead, behind})
    assert g.phase is Phase.DECLARATIONS and g.turn == ahead
    assert reason(g, behind, SOLO[Solo.QUEENS]) == "not_your_turn"
    assert reason(g, ahead, HEALTHY) == "not_reservation_round"
    assert reason(g, ahead, DECLARE_WEDDING) == "wedding_needs_club_queens"
    assert DECLARE_WEDDING not in g.legal_actions()
    assert g.legal_actions() == [DECLARE_SOLO + s for s in Solo]
    g.play(ahead, SOLO[Solo.HEARTS])
    assert g.phase is Phase.PLAYING
    assert g.game_type is GameType.SOLO and g.solo is Solo.HEARTS and g.declarer == ahead
    assert g.declarations[behind] == -1  # never asked, his reason never known
    assert g.re_seats == 1 << ahead
    assert g.leader == g.turn == first  # default: first hand leads a solo too
    assert not g.mandatory
    assert g.scheme is SCHEMES[Solo.HEARTS]


def test_default_wedding_ahead_loses_to_a_later_solo() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, hands((0, 0)))
    reserve(g, {0, 2})
    assert g.turn == 0
    assert g.legal_actions() == [DECLARE_WEDDING, *(DECLARE_SOLO + s for s in Solo)]
    g.play(0, DECLARE_WEDDING)
    assert g.phase is Phase.DECLARATIONS and g.turn == 2  # the solo player must be asked
    assert g.legal_actions() == [DECLARE_SOLO + s for s in Solo]
    g.play(2, SOLO[Solo.FLESHLESS])
    assert g.game_type is GameType.SOLO and g.declarer == 2 and g.solo is Solo.FLESHLESS
    assert g.leader == 0


def test_default_solo_ahead_the_wedding_player_is_not_asked() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, hands((1, 1)))
    reserve(g, {0, 1})
    g.play(0, SOLO[Solo.JACKS])
    assert g.phase is Phase.PLAYING and g.game_type is GameType.SOLO and g.declarer == 0
    assert g.declarations[1] == -1


def test_wedding_as_sole_reservation() -> None:
    g = Game.from_hands(DEFAULT_RULES, 1, hands((3, 3)))
    reserve(g, {3})
    assert g.turn == 3
    g.play(3, DECLARE_WEDDING)
    assert g.phase is Phase.PLAYING and g.game_type is GameType.WEDDING
    assert g.declarer == 3 and g.re_seats == 1 << 3 and g.wedding_open
    assert g.leader == g.turn == 2
    assert g.scheme is SCHEMES[Solo.DIAMONDS]


def test_wedding_player_may_declare_a_solo_instead() -> None:
    g = Game.from_hands(DEFAULT_RULES, 1, hands((3, 3)))
    reserve(g, {3})
    g.play(3, SOLO[Solo.CLUBS])
    assert g.game_type is GameType.SOLO and g.solo is Solo.CLUBS and g.declarer == 3


def test_solo_changes_the_follow_classes() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, hands((1, 2)))
    reserve(g, {2})
    g.play(2, SOLO[Solo.FLESHLESS])
    assert g.scheme is SCHEMES[Solo.FLESHLESS]
    lead = min(c for c in range(48) if g.hands[0] >> c & 1)
    g.play(0, lead)
    suit_mask = SCHEMES[Solo.FLESHLESS].class_mask[(lead >> 1) // 6]
    assert g.legal_cards() == (g.hands[1] & suit_mask or g.hands[1])


# ------------------------------------------------------------------ tournament

T = TOURNAMENT_RULES


def owed(*seats: int) -> tuple[bool, ...]:
    return tuple(s in seats for s in range(4))


def test_tournament_lust_ahead_mandatory_behind_is_asked_and_wins() -> None:
    g = Game.from_hands(T, 3, hands((1, 3)), mandatory_owed=owed(2, 3))
    reserve(g, {0, 2, 3})
    g.play(0, SOLO[Solo.QUEENS])  # a lust solo
    assert g.phase is Phase.DECLARATIONS and g.turn == 2
    g.play(2, SOLO[Solo.CLUBS])  # a mandatory solo outranks it
    # seat 3 also owes one but cannot outrank a mandatory solo further ahead
    assert g.phase is Phase.PLAYING and g.declarations[3] == -1
    assert g.declarer == 2 and g.solo is Solo.CLUBS and g.mandatory
    assert g.leader == g.turn == 2  # a mandatory solo leads


def test_tournament_lust_ahead_lust_behind_is_not_asked() -> None:
    g = Game.from_hands(T, 3, hands((1, 3)), mandatory_owed=owed(0))
    reserve(g, {1, 3})
    g.play(1, SOLO[Solo.SPADES])
    assert g.phase is Phase.PLAYING and g.declarations[3] == -1
    assert g.declarer == 1 and not g.mandatory
    assert g.leader == 0  # a lust solo does not lead


def test_tournament_lust_solo_leads_option() -> None:
    g = Game.from_hands(Rules(tournament=True, lust_solo_leads=True), 3, hands((1, 3)))
    reserve(g, {1})
    g.play(1, SOLO[Solo.SPADES])
    assert not g.mandatory and g.leader == g.turn == 1


def test_default_mode_lust_solo_leads_option() -> None:
    g = Game.from_hands(Rules(lust_solo_leads=True), 3, hands((1, 3)))
    reserve(g, {2})
    g.play(2, SOLO[Solo.DIAMONDS])
    assert g.leader == g.turn == 2
    # ...but a wedding or normal game is still led by first hand
    g = Game.from_hands(Rules(lust_solo_leads=True), 3, hands((2, 2)))
    reserve(g, {2})
    g.play(2, DECLARE_WEDDING)
    assert g.leader == 0


def test_tournament_mandatory_ahead_nobody_else_is_asked() -> None:
    g = Game.from_hands(T, 0, hands((2, 2)), mandatory_owed=owed(1, 2, 3))
    reserve(g, {1, 2, 3})
    g.play(1, SOLO[Solo.HEARTS])
    assert g.phase is Phase.PLAYING and g.declarations[2:] == [-1, -1]
    assert g.mandatory and g.leader == 1


def test_tournament_two_lust_then_mandatory_at_the_end() -> None:
    g = Game.from_hands(T, 0, hands((2, 2)), mandatory_owed=owed(0))
    reserve(g, {1, 2, 0})
    g.play(1, SOLO[Solo.HEARTS])
    assert g.turn == 0  # seat 2 (lust) skipped, seat 0 owes his mandatory solo
    assert g.declarations[2] == -1
    g.play(0, SOLO[Solo.JACKS])
    assert g.declarer == 0 and g.mandatory and g.leader == 0


def test_tournament_lust_beats_wedding_ahead() -> None:
    g = Game.from_hands(T, 3, hands((0, 0)))
    reserve(g, {0, 1})
    g.play(0, DECLARE_WEDDING)
    assert g.turn == 1
    g.play(1, SOLO[Solo.DIAMONDS])
    assert g.declarer == 1 and g.game_type is GameType.SOLO and not g.mandatory
    assert g.leader == 0


def test_tournament_wedding_alone_wins_even_if_owing_a_solo() -> None:
    g = Game.from_hands(T, 3, hands((2, 2)), mandatory_owed=owed(2))
    reserve(g, {2})
    g.play(2, DECLARE_WEDDING)
    assert g.game_type is GameType.WEDDING and not g.mandatory and g.leader == 0


def test_tournament_owing_wedding_player_behind_a_lust_solo_is_asked_but_loses() -> None:
    g = Game.from_hands(T, 3, hands((2, 2)), mandatory_owed=owed(2))
    reserve(g, {1, 2})
    g.play(1, SOLO[Solo.QUEENS])
    # seat 2 owes a mandatory solo, so he is asked; he could still outrank it
    assert g.turn == 2
    g.play(2, DECLARE_WEDDING)  # a wedding never wins against another reservation
    assert g.phase is Phase.PLAYING and g.declarer == 1 and g.game_type is GameType.SOLO


def test_default_mode_ignores_mandatory_owed() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, hands((1, 3)), mandatory_owed=owed(2))
    reserve(g, {0, 2})
    g.play(0, SOLO[Solo.QUEENS])
    assert g.phase is Phase.PLAYING and g.declarer == 0 and not g.mandatory
    assert g.declarations[2] == -1


# ------------------------------------------------------------------ forced solo


@pytest.mark.parametrize("rules", [T, DEFAULT_RULES])
def test_forced_solo(rules: Rules) -> None:
    g = Game.from_hands(rules, 0, hands((2, 2)), forced_soloist=2, mandatory_owed=owed(2))
    assert g.phase is Phase.DECLARATIONS and g.turn == 2
    assert g.legal_actions() == [DECLARE_SOLO + s for s in Solo]  # no wedding
    assert reason(g, 2, DECLARE_WEDDING) == "forced_solo_only"
    assert reason(g, 2, HEALTHY) == "not_reservation_round"
    assert reason(g, 1, SOLO[Solo.CLUBS]) == "not_your_turn"
    g.play(2, SOLO[Solo.QUEENS])
    assert g.phase is Phase.PLAYING and g.game_type is GameType.SOLO
    assert g.solo is Solo.QUEENS and g.declarer == 2 and g.mandatory
    assert g.leader == g.turn == 2
    assert g.reserved == [-1, -1, -1, -1]
