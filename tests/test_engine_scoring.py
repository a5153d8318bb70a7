"""Winner, game value, special points and per-player scores (RULES §8).

Finished games are fabricated: ``score()`` reads only the tricks, the eyes and tricks won
per seat, the call levels, the Re seats and the game type, so each case sets exactly those
and goes through the real :func:`score`.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dokobot.engine import (
    DEFAULT_RULES,
    HEALTHY,
    Game,
    GameType,
    Party,
    Phase,
    Result,
    hands_from_kinds,
    parse_cards,
    score,
)

RE, KO = Party.RE, Party.KONTRA
BASE = hands_from_kinds(
    parse_cards(h)
    for h in (
        "CQ SQ SQ HQ HQ DQ DQ CJ CJ SJ SJ HJ",
        "CQ HJ DJ DJ DA DA D10 D10 DK DK D9 D9",
        "H10 H10 CA CA C10 C10 CK CK C9 C9 SA SA",
        "S10 S10 SK SK S9 S9 HA HA HK HK H9 H9",
    )
)

Trick = tuple[int, tuple[int, ...], int]


def finished(
    re_eyes: int,
    re_tricks: int,
    level: tuple[int, int] = (0, 0),
    *,
    game_type: GameType = GameType.NORMAL,
    re_seats: int = 0b0011,
    tricks: list[Trick] | None = None,
) -> Game:
    """A finished game: Re's eyes and tricks on the lowest Re seat, Kontra's on the
    lowest Kontra seat."""
    g = Game.from_hands(DEFAULT_RULES, 3, BASE)
    for s in range(4):
        g.play(s, HEALTHY)
    g.phase = Phase.FINISHED
    g.game_type = game_type
    g.re_seats = re_seats
    if game_type in (GameType.SOLO, GameType.SILENT_WEDDING, GameType.WEDDING):
        g.declarer = (re_seats & -re_seats).bit_length() - 1
    r = next(s for s in range(4) if re_seats >> s & 1)
    k = next(s for s in range(4) if not re_seats >> s & 1)
    g.eyes = [0, 0, 0, 0]
    g.won = [0, 0, 0, 0]
    g.eyes[r], g.eyes[k] = re_eyes, 240 - re_eyes
    g.won[r], g.won[k] = re_tricks, 12 - re_tricks
    g.level = list(level)
    g.tricks = tricks or []
    g.trick = []
    return g


def items(result: Result, *, special: bool = True) -> Counter[tuple[Party, str, int]]:
    skip = () if special else ("doppelkopf", "fox", "karlchen", "against_club_queens")
    return Counter((c.party, c.item, c.points) for c in result.components if c.item not in skip)


def check_consistency(result: Result, g: Game) -> None:
    assert result.re_total == sum(
        c.points if c.party is RE else -c.points for c in result.components
    )
    assert sum(result.scores) == 0
    assert result.value == abs(result.re_total)
    solo = g.re_seats.bit_count() == 1
    for s in range(4):
        if g.re_seats >> s & 1:
            assert result.scores[s] == (3 if solo else 1) * result.re_total
        else:
            assert result.scores[s] == -result.re_total
    assert result.solo_scored == solo


def C(party: Party, item: str, pts: int = 1) -> tuple[Party, str, int]:
    return (party, item, pts)


# ------------------------------------------------------------------ the value table

VALUE_ROWS = [
    # id, re eyes, re tricks, (re level, kontra level), winner, value items (no special points)
    ("won", 121, 6, (0, 0), RE, [C(RE, "won")]),
    ("under_90", 151, 8, (0, 0), RE, [C(RE, "won"), C(RE, "under_90")]),
    ("under_60", 181, 9, (0, 0), RE, [C(RE, "won"), C(RE, "under_90"), C(RE, "under_60")]),
    (
        "under_30",
        211,
        10,
        (0, 0),
        RE,
        [C(RE, "won"), C(RE, "under_90"), C(RE, "under_60"), C(RE, "under_30")],
    ),
    (
        "black",
        240,
        12,
        (0, 0),
        RE,
        [C(RE, "won"), C(RE, "under_90"), C(RE, "under_60"), C(RE, "under_30"), C(RE, "black")],
    ),
    (
        "zero-eyes-one-trick-not-black",
        240,
        11,
        (0, 0),
        RE,
        [C(RE, "won"), C(RE, "under_90"), C(RE, "under_60"), C(RE, "under_30")],
    ),
    ("kontra-under_90", 89, 3, (0, 0), KO, [C(KO, "won"), C(KO, "under_90")]),
    ("re_called", 121, 6, (1, 0), RE, [C(RE, "won"), C(RE, "re_called", 2)]),
    ("kontra_called", 119, 6, (0, 1), KO, [C(KO, "won"), C(KO, "kontra_called", 2)]),
    (
        "both_called",
        150,
        7,
        (1, 1),
        RE,
        [C(RE, "won"), C(RE, "re_called", 2), C(RE, "kontra_called", 2)],
    ),
    ("re-lost-kontra-gets-re_called", 120, 6, (1, 0), KO, [C(KO, "won"), C(KO, "re_called", 2)]),
    (
        "no90_called",
        151,
        8,
        (2, 0),
        RE,
        [C(RE, "won"), C(RE, "under_90"), C(RE, "re_called", 2), C(RE, "no90_called")],
    ),
    (
        "no60_called-skipped-no90-counts",
        181,
        9,
        (3, 0),
        RE,
        [
            C(RE, "won"),
            C(RE, "under_90"),
            C(RE, "under_60"),
            C(RE, "re_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
        ],
    ),
    (
        "no30_called",
        211,
        10,
        (4, 0),
        RE,
        [
            C(RE, "won"),
            C(RE, "under_90"),
            C(RE, "under_60"),
            C(RE, "under_30"),
            C(RE, "re_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
        ],
    ),
    (
        "black_called",
        240,
        12,
        (5, 0),
        RE,
        [
            C(RE, "won"),
            C(RE, "under_90"),
            C(RE, "under_60"),
            C(RE, "under_30"),
            C(RE, "black"),
            C(RE, "re_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
            C(RE, "black_called"),
        ],
    ),
    (
        "kontra-no90-won",
        89,
        3,
        (0, 2),
        KO,
        [C(KO, "won"), C(KO, "under_90"), C(KO, "kontra_called", 2), C(KO, "no90_called")],
    ),
    (
        "lost-no90-counts-for-winner",
        150,
        8,
        (2, 0),
        KO,
        [C(KO, "won"), C(KO, "re_called", 2), C(KO, "no90_called")],
    ),
    (
        "reached_120_against_no90",
        120,
        6,
        (0, 2),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "reached_120_against_no90"),
        ],
    ),
    (
        "119-against-no90-not-reached",
        119,
        6,
        (0, 2),
        RE,
        [C(RE, "won"), C(RE, "kontra_called", 2), C(RE, "no90_called")],
    ),
    (
        "reached_90_against_no60",
        90,
        5,
        (0, 3),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "reached_90_against_no60"),
        ],
    ),
    (
        "reached_60_against_no30",
        60,
        3,
        (0, 4),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
            C(RE, "reached_60_against_no30"),
        ],
    ),
    (
        "reached_30_against_black",
        30,
        1,
        (0, 5),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
            C(RE, "black_called"),
            C(RE, "reached_30_against_black"),
        ],
    ),
    (
        "one-trick-no-eyes-against-black",
        0,
        1,
        (0, 5),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
            C(RE, "black_called"),
        ],
    ),
    (
        "reached-all-four",
        130,
        5,
        (0, 5),
        RE,
        [
            C(RE, "won"),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no60_called"),
            C(RE, "no30_called"),
            C(RE, "black_called"),
            C(RE, "reached_120_against_no90"),
            C(RE, "reached_90_against_no60"),
            C(RE, "reached_60_against_no30"),
            C(RE, "reached_30_against_black"),
        ],
    ),
    (
        "kontra-reached_120_against_re_no90",
        120,
        6,
        (2, 0),
        KO,
        [
            C(KO, "won"),
            C(KO, "re_called", 2),
            C(KO, "no90_called"),
            C(KO, "reached_120_against_no90"),
        ],
    ),
    (
        "both-lower-calls-re-wins",
        151,
        8,
        (2, 2),
        RE,
        [
            C(RE, "won"),
            C(RE, "under_90"),
            C(RE, "re_called", 2),
            C(RE, "kontra_called", 2),
            C(RE, "no90_called"),
            C(RE, "no90_called"),
            C(RE, "reached_120_against_no90"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("re_eyes", "re_tricks", "level", "winner", "expected"),
    [r[1:] for r in VALUE_ROWS],
    ids=[r[0] for r in VALUE_ROWS],
)
def test_value_table(
    re_eyes: int,
    re_tricks: int,
    level: tuple[int, int],
    winner: Party,
    expected: list[tuple[Party, str, int]],
) -> None:
    g = finished(re_eyes, re_tricks, level)
    r = score(g)
    assert r.winner is winner
    assert items(r, special=False) == Counter(expected)
    value = sum(p for _, _, p in expected)
    # the only special point without tricks: Kontra won a normal game
    club_queens = winner is KO
    assert items(r) - items(r, special=False) == (
        Counter([C(KO, "against_club_queens")]) if club_queens else Counter()
    )
    sign = 1 if winner is RE else -1
    assert r.re_total == sign * (value + club_queens)
    assert r.eyes == (re_eyes, 240 - re_eyes) and r.tricks == (re_tricks, 12 - re_tricks)
    check_consistency(r, g)
    assert r.scores == (r.re_total, r.re_total, -r.re_total, -r.re_total)


# ------------------------------------------------------------------ win thresholds

THRESHOLDS = [
    # id, re eyes, re tricks, levels, winner
    ("121-wins", 121, 6, (0, 0), RE),
    ("120-loses", 120, 6, (0, 0), KO),
    ("only-kontra-called-re-120-wins", 120, 6, (0, 1), RE),
    ("only-kontra-called-kontra-needs-121", 119, 6, (0, 1), KO),
    ("re-called-re-needs-121", 120, 6, (1, 0), KO),
    ("re-called-121", 121, 6, (1, 0), RE),
    ("both-called-121", 121, 6, (1, 1), RE),
    ("both-called-120-kontra", 120, 6, (1, 1), KO),
    ("no90-151", 151, 8, (2, 0), RE),
    ("no90-150-kontra-90", 150, 8, (2, 0), KO),
    ("no60-181", 181, 9, (3, 0), RE),
    ("no60-180-kontra-60", 180, 9, (3, 0), KO),
    ("no30-211", 211, 10, (4, 0), RE),
    ("no30-210-kontra-30", 210, 10, (4, 0), KO),
    ("black-all-tricks", 240, 12, (5, 0), RE),
    ("black-one-trick-short", 240, 11, (5, 0), KO),
    ("against-no90-90", 90, 5, (0, 2), RE),
    ("against-no90-89", 89, 5, (0, 2), KO),
    ("against-no60-60", 60, 4, (1, 3), RE),
    ("against-no60-59", 59, 4, (1, 3), KO),
    ("against-no30-30", 30, 2, (0, 4), RE),
    ("against-no30-29", 29, 2, (0, 4), KO),
    ("against-black-one-trick", 0, 1, (0, 5), RE),
    ("against-black-no-trick", 0, 0, (0, 5), KO),
    ("kontra-against-re-no90-90", 150, 8, (2, 1), KO),
    ("kontra-no90-151", 89, 4, (1, 2), KO),
    ("kontra-no90-150-re-90", 90, 4, (1, 2), RE),
    ("nobody-no90-both", 140, 7, (2, 2), None),
    ("nobody-no60-vs-no90", 170, 8, (3, 2), None),
    ("nobody-black-vs-black", 200, 10, (5, 5), None),
]


@pytest.mark.parametrize(
    ("re_eyes", "re_tricks", "level", "winner"),
    [t[1:] for t in THRESHOLDS],
    ids=[t[0] for t in THRESHOLDS],
)
def test_win_thresholds(
    re_eyes: int, re_tricks: int, level: tuple[int, int], winner: Party | None
) -> None:
    g = finished(re_eyes, re_tricks, level)
    r = score(g)
    assert r.winner is winner
    if winner is not None:
        assert (C(winner, "won") in items(r)) and r.re_total * (1 if winner is RE else -1) > 0
    check_consistency(r, g)


@pytest.mark.parametrize(
    ("re_eyes", "level", "expected"),
    [
        # each party scores its "under" levels against the other and its "reached" items
        (140, (2, 2), [C(RE, "reached_120_against_no90")]),
        (120, (2, 2), [C(RE, "reached_120_against_no90"), C(KO, "reached_120_against_no90")]),
        (170, (3, 2), [C(RE, "under_90"), C(RE, "reached_120_against_no90")]),
        (100, (2, 3), [C(KO, "reached_120_against_no90"), C(RE, "reached_90_against_no60")]),
        (65, (2, 3), [C(KO, "under_90"), C(KO, "reached_120_against_no90")]),
        (
            40,
            (4, 4),
            [
                C(KO, "under_90"),
                C(KO, "under_60"),
                C(KO, "reached_120_against_no90"),
                C(KO, "reached_90_against_no60"),
                C(KO, "reached_60_against_no30"),
            ],
        ),
    ],
)
def test_nobody_wins(
    re_eyes: int, level: tuple[int, int], expected: list[tuple[Party, str, int]]
) -> None:
    g = finished(re_eyes, 6, level)
    r = score(g)
    assert r.winner is None
    assert items(r) == Counter(expected)  # no "won", no call points, no club queens
    check_consistency(r, g)


def test_nobody_wins_keeps_special_points_but_not_against_club_queens() -> None:
    g = finished(140, 7, (2, 2), tricks=[(0, trick("CA CA HA HA"), 2)])
    r = score(g)
    assert r.winner is None
    assert items(r) == Counter([C(RE, "reached_120_against_no90"), C(KO, "doppelkopf")])
    assert r.re_total == 0


# ------------------------------------------------------------------ special points


def trick(text: str) -> tuple[int, ...]:
    seen: set[int] = set()
    out = []
    for k in parse_cards(text):
        c = 2 * k + (1 if 2 * k in seen else 0)
        seen.add(c)
        out.append(c)
    return tuple(out)


FILLER: Trick = (0, trick("C9 C9 S9 S9"), 0)  # no special point in it

SPECIAL = [
    # id, tricks (leader, cards, winner seat) with Re = seats 0 and 1, expected specials
    ("doppelkopf-44", [(0, trick("CA CA HA HA"), 2), FILLER], [C(KO, "doppelkopf")]),
    ("doppelkopf-40", [(1, trick("H10 H10 C10 C10"), 1), FILLER], [C(RE, "doppelkopf")]),
    ("37-no-doppelkopf", [(1, trick("CA SA HA CK"), 1), FILLER], []),
    ("fox-caught", [(0, trick("DA D9 D9 DK"), 2), FILLER], [C(KO, "fox")]),
    ("fox-led-by-kontra-won-by-re", [(2, trick("DA D9 CQ DK"), 0), FILLER], [C(RE, "fox")]),
    ("own-fox-kept", [(2, trick("DA D9 D10 DK"), 3), FILLER], []),
    ("fox-won-by-partner", [(0, trick("DA CQ D9 DK"), 1), FILLER], []),
    ("two-foxes", [(0, trick("DA DA HJ D9"), 2), FILLER], [C(KO, "fox"), C(KO, "fox")]),
    (
        "fox-and-doppelkopf",
        [(1, trick("DA DA D10 D10"), 3), FILLER],
        [C(KO, "fox"), C(KO, "doppelkopf")],
    ),
    ("karlchen", [FILLER, (1, trick("C9 CJ S9 S9"), 2)], [C(KO, "karlchen")]),
    ("karlchen-re", [FILLER, (3, trick("CJ D9 DK D10"), 3)], [C(KO, "karlchen")]),
    ("karlchen-re-party", [FILLER, (1, trick("D9 DK CJ D10"), 3)], [C(KO, "karlchen")]),
    ("karlchen-re-party2", [FILLER, (3, trick("D9 CJ DK D10"), 0)], [C(RE, "karlchen")]),
    ("cj-beaten-in-last-trick", [FILLER, (0, trick("CJ SQ D9 D9"), 1)], []),
    ("cj-wins-earlier-trick", [(0, trick("CJ D9 D9 DK"), 0), FILLER], []),
    (
        "netted",
        [(0, trick("CA CA HA HA"), 0), (0, trick("DA D9 D9 DK"), 2), FILLER],
        [C(RE, "doppelkopf"), C(KO, "fox")],
    ),
]


@pytest.mark.parametrize(
    ("tricks", "expected"), [s[1:] for s in SPECIAL], ids=[s[0] for s in SPECIAL]
)
def test_special_points_normal_game(
    tricks: list[Trick], expected: list[tuple[Party, str, int]]
) -> None:
    g = finished(121, 6, tricks=tricks)
    r = score(g)
    assert r.winner is RE
    assert items(r) - items(r, special=False) == Counter(expected)
    net = sum(p if party is RE else -p for party, _, p in expected)
    assert r.re_total == 1 + net
    check_consistency(r, g)


@pytest.mark.parametrize(
    ("tricks", "expected"), [s[1:] for s in SPECIAL], ids=[s[0] for s in SPECIAL]
)
def test_special_points_wedding_with_partner(
    tricks: list[Trick], expected: list[tuple[Party, str, int]]
) -> None:
    g = finished(121, 6, game_type=GameType.WEDDING, tricks=tricks)
    assert items(score(g)) - items(score(g), special=False) == Counter(expected)


@pytest.mark.parametrize(
    "game_type",
    [GameType.SOLO, GameType.SILENT_WEDDING, GameType.WEDDING],
    ids=["solo", "silent-wedding", "wedding-without-partner"],
)
@pytest.mark.parametrize("tricks", [s[1] for s in SPECIAL], ids=[s[0] for s in SPECIAL])
def test_no_special_points_when_scored_as_solo(game_type: GameType, tricks: list[Trick]) -> None:
    for re_eyes in (121, 100):
        g = finished(re_eyes, 6, game_type=game_type, re_seats=0b0001, tricks=tricks)
        r = score(g)
        assert r.solo_scored
        assert items(r) == items(r, special=False)
        check_consistency(r, g)


@pytest.mark.parametrize(
    ("game_type", "re_seats", "bonus"),
    [
        (GameType.NORMAL, 0b0011, True),
        (GameType.WEDDING, 0b0011, True),
        (GameType.WEDDING, 0b0001, False),
        (GameType.SILENT_WEDDING, 0b0001, False),
        (GameType.SOLO, 0b0001, False),
    ],
)
def test_against_the_club_queens(game_type: GameType, re_seats: int, bonus: bool) -> None:
    g = finished(100, 5, game_type=game_type, re_seats=re_seats)
    r = score(g)
    assert r.winner is KO
    assert (C(KO, "against_club_queens") in items(r)) is bonus
    # ...and never when Re wins
    assert C(KO, "against_club_queens") not in items(score(finished(130, 6)))


# ------------------------------------------------------------------ per-player scores


def test_solo_scores_triple_for_the_soloist() -> None:
    g = finished(121, 6, (1, 0), game_type=GameType.SOLO, re_seats=0b0100)
    r = score(g)
    assert r.re_total == 3  # won + re called
    assert r.scores == (-3, -3, 9, -3)
    g = finished(119, 6, (0, 1), game_type=GameType.SOLO, re_seats=0b0100)
    r = score(g)
    assert r.winner is KO and r.re_total == -3  # no club queens bonus in a solo
    assert r.scores == (3, 3, -9, 3)


def test_normal_game_scores_per_party() -> None:
    g = finished(89, 4, (0, 0), re_seats=0b1010)
    r = score(g)
    assert r.winner is KO and r.re_total == -3  # won, under 90, against the club queens
    assert r.scores == (3, -3, 3, -3)


def test_score_needs_a_finished_game() -> None:
    g = Game.from_hands(DEFAULT_RULES, 3, BASE)
    with pytest.raises(ValueError, match="not finished"):
        score(g)


# ------------------------------------------------------------------ a reference model


def ref_value(re_eyes: int, re_tricks: int, lr: int, lk: int) -> tuple[Party | None, int]:
    """Winner and Re total (value items only, normal game without tricks), from RULES §8."""
    eyes = {RE: re_eyes, KO: 240 - re_eyes}
    tricks = {RE: re_tricks, KO: 12 - re_tricks}
    lv = {RE: lr, KO: lk}
    own_need = {2: 151, 3: 181, 4: 211}
    against_need = {2: 90, 3: 60, 4: 30}
    reached = {2: 120, 3: 90, 4: 60, 5: 30}

    def meets(p: Party) -> bool:
        o = p.other
        if lv[p] == 5:
            return tricks[o] == 0
        if lv[p] >= 2:
            return eyes[p] >= own_need[lv[p]]
        if lv[o] == 5:
            return tricks[p] >= 1
        if lv[o] >= 2:
            return eyes[p] >= against_need[lv[o]]
        only_kontra = lk >= 1 and lr == 0
        if p is RE:
            return eyes[RE] >= (120 if only_kontra else 121)
        return eyes[KO] >= (121 if only_kontra else 120)

    def perf(p: Party) -> int:
        o = p.other
        n = sum(eyes[o] < x for x in (90, 60, 30)) + (tricks[o] == 0)
        return n + sum(eyes[p] >= reached[x] for x in range(2, lv[o] + 1))

    winners = [p for p in (RE, KO) if meets(p)]
    assert len(winners) <= 1
    if not winners:
        return None, perf(RE) - perf(KO)
    w = winners[0]
    value = 1 + perf(w) + 2 * (lr >= 1) + 2 * (lk >= 1) + max(lr - 1, 0) + max(lk - 1, 0)
    value += w is KO  # against the club queens
    return w, value if w is RE else -value


@st.composite
def outcomes(draw: st.DrawFn) -> tuple[int, int, int, int]:
    re_tricks = draw(st.integers(0, 12))
    if re_tricks == 0:
        re_eyes = 0
    elif re_tricks == 12:
        re_eyes = 240
    else:
        re_eyes = draw(
            st.sampled_from(
                [
                    0,
                    1,
                    29,
                    30,
                    59,
                    60,
                    89,
                    90,
                    119,
                    120,
                    121,
                    150,
                    151,
                    180,
                    181,
                    210,
                    211,
                    239,
                    240,
                ]
            )
            | st.integers(0, 240)
        )
    return re_eyes, re_tricks, draw(st.integers(0, 5)), draw(st.integers(0, 5))


@given(outcomes())
def test_score_matches_reference_model(outcome: tuple[int, int, int, int]) -> None:
    re_eyes, re_tricks, lr, lk = outcome
    g = finished(re_eyes, re_tricks, (lr, lk))
    r = score(g)
    assert (r.winner, r.re_total) == ref_value(re_eyes, re_tricks, lr, lk)
    check_consistency(r, g)
