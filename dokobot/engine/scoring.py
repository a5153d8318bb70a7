"""Winner and game value (RULES §8, TSR 7.1 and 7.2).

>>> from dokobot.engine.game import Game
>>> from dokobot.engine.types import HEALTHY
>>> import random
>>> g = Game.deal(DEFAULT_RULES, 0, seed=3)
>>> for s in (1, 2, 3, 0):
...     g.play(s, HEALTHY)
>>> g.playout(random.Random(3))
>>> r = score(g)
>>> sum(r.scores), r.eyes[0] + r.eyes[1]
(0, 240)
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from .cards import CLUB_JACKS, DIAMOND_ACES, FULL_DECK, POINTS, cards_of
from .game import Game
from .rules import DEFAULT_RULES
from .types import CALL_KEYS, GameType, Party, Phase

__all__ = ["DEFAULT_RULES", "Component", "Result", "bock_trigger", "outcome_scores", "score"]

# Eyes the loser stays under, and what the winner must reach against a lower call.
_UNDER = ((90, "under_90"), (60, "under_60"), (30, "under_30"))
_REACHED = {
    2: (120, "reached_120_against_no90"),
    3: (90, "reached_90_against_no60"),
    4: (60, "reached_60_against_no30"),
    5: (30, "reached_30_against_black"),
}
_OWN_TARGET = {2: 151, 3: 181, 4: 211}
_AGAINST_TARGET = {2: 90, 3: 60, 4: 30}


@dataclass(frozen=True, slots=True)
class Component:
    """One named item of the game value, credited to ``party``."""

    party: Party
    item: str
    points: int


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game."""

    eyes: tuple[int, int]
    """Eyes of Re and Kontra."""
    tricks: tuple[int, int]
    winner: Party | None
    components: tuple[Component, ...]
    re_total: int
    """The Re party's total (the Kontra total is its negative)."""
    scores: tuple[int, int, int, int]
    """Per seat."""
    solo_scored: bool

    @property
    def value(self) -> int:
        return abs(self.re_total)


def _meets(party: int, eyes: list[int], tricks: list[int], level: list[int]) -> bool:
    own, opp = level[party], level[1 - party]
    if own >= 5:
        return tricks[1 - party] == 0
    if own >= 2:
        return eyes[party] >= _OWN_TARGET[own]
    if opp >= 5:
        return tricks[party] >= 1
    if opp >= 2:
        return eyes[party] >= _AGAINST_TARGET[opp]
    only_kontra_called = level[1] >= 1 and level[0] == 0
    if party == 0:
        return eyes[0] >= (120 if only_kontra_called else 121)
    return eyes[1] >= (121 if only_kontra_called else 120)


# Components are immutable values, so score() hands out shared instances (creating a
# frozen dataclass costs more than the rest of the scoring).
_PARTIES: Final = (Party.RE, Party.KONTRA)
_RE: Final = Party.RE
_FINISHED: Final = Phase.FINISHED
# "Against the club queens" (RULES §8); a poverty has "special points as in a normal game"
# (§12.1).
_CLUB_QUEEN_GAMES: Final = (GameType.NORMAL, GameType.WEDDING, GameType.POVERTY)
_COMPONENTS: Final[dict[tuple[int, str, int], Component]] = {
    (p, item, pts): Component(_PARTIES[p], item, pts)
    for p in (0, 1)
    for item, pts in [
        ("won", 1),
        *((name, 1) for _, name in _UNDER),
        ("black", 1),
        ("re_called", 2),
        ("kontra_called", 2),
        *((f"{CALL_KEYS[lv]}_called", 1) for lv in range(2, 6)),
        *((name, 1) for _, name in _REACHED.values()),
        ("against_club_queens", 1),
        ("doppelkopf", 1),
        ("fox", 1),
        ("karlchen", 1),
    ]
}
SCORE_ITEMS: Final = tuple(dict.fromkeys(item for _, item, _ in _COMPONENTS))
"""Every value item a score can hold, in the order of the score list (each has its label
``item.NAME`` in the catalogues)."""
_UNDER_C: Final = tuple(
    tuple((limit, _COMPONENTS[p, name, 1]) for limit, name in _UNDER) for p in (0, 1)
)
_REACHED_C: Final = tuple(
    {lv: (need, _COMPONENTS[p, name, 1]) for lv, (need, name) in _REACHED.items()} for p in (0, 1)
)
_WON_C: Final = (_COMPONENTS[0, "won", 1], _COMPONENTS[1, "won", 1])
_PARTY_CALLED_C: Final = tuple(
    (_COMPONENTS[p, "re_called", 2], _COMPONENTS[p, "kontra_called", 2]) for p in (0, 1)
)
_LOWER_CALLED_C: Final = tuple(
    {lv: _COMPONENTS[p, f"{CALL_KEYS[lv]}_called", 1] for lv in range(2, 6)} for p in (0, 1)
)
# score() builds its Result through the slot descriptors (what the generated __init__ of
# the frozen dataclass does through object.__setattr__, at half the cost).
_new_object: Final = object.__new__
_RESULT_SLOTS: Final = tuple(f.name for f in fields(Result))
assert _RESULT_SLOTS == (
    "eyes",
    "tricks",
    "winner",
    "components",
    "re_total",
    "scores",
    "solo_scored",
), "update score() for the fields of Result"
(
    _set_eyes,
    _set_tricks,
    _set_winner,
    _set_components,
    _set_re_total,
    _set_scores,
    _set_solo_scored,
) = (getattr(Result, name).__set__ for name in _RESULT_SLOTS)
_FOX_MIN: Final = min(cards_of(DIAMOND_ACES))
# The two ♦A are the highest card ids, so "card >= _FOX_MIN" finds them.
assert DIAMOND_ACES == FULL_DECK & ~((1 << _FOX_MIN) - 1)


def _lows(party: int, eyes: list[int], tricks: list[int], out: list[Component]) -> None:
    """The "under" and "black" items of ``party`` against the other party."""
    opp_eyes = eyes[1 - party]
    for limit, comp in _UNDER_C[party]:
        if opp_eyes < limit:
            out.append(comp)
    if tricks[1 - party] == 0:
        out.append(_COMPONENTS[party, "black", 1])


def _reached(party: int, eyes: list[int], level: list[int], out: list[Component]) -> None:
    """The "reached ... against" items of ``party`` against the other party's calls."""
    own_eyes = eyes[party]
    reached = _REACHED_C[party]
    for lv in range(2, level[1 - party] + 1):
        need, comp = reached[lv]
        if own_eyes >= need:
            out.append(comp)


def _value(eyes: list[int], tricks: list[int], level: list[int]) -> tuple[int, list[Component]]:
    """The winner (0 Re, 1 Kontra, -1 nobody) and the value items, without special points."""
    comps: list[Component] = []
    lr, lk = level
    if lr < 2 and lk < 2:  # no lower call: the thresholds 121/120 of _meets, inline
        only_kontra_called = lk >= 1 and lr == 0
        if eyes[0] >= (120 if only_kontra_called else 121):
            w = 0
        elif eyes[1] >= (121 if only_kontra_called else 120):
            w = 1
        else:
            w = -1
    elif _meets(0, eyes, tricks, level):
        w = 0
    elif _meets(1, eyes, tricks, level):
        w = 1
    else:
        w = -1
    if w >= 0:
        comps.append(_WON_C[w])
        loser_eyes = eyes[1 - w]
        if loser_eyes < 90:
            _lows(w, eyes, tricks, comps)
        if lr or lk:
            called = _PARTY_CALLED_C[w]
            if lr >= 1:
                comps.append(called[0])
            if lk >= 1:
                comps.append(called[1])
            lower = _LOWER_CALLED_C[w]
            for lv in range(2, lr + 1):
                comps.append(lower[lv])
            for lv in range(2, lk + 1):
                comps.append(lower[lv])
            if level[1 - w] >= 2:
                _reached(w, eyes, level, comps)
    else:
        for p in (0, 1):
            _lows(p, eyes, tricks, comps)
            _reached(p, eyes, level, comps)
    return w, comps


def outcome_scores(
    game_type: GameType,
    re_seats: int,
    eyes_re: int,
    tricks_re: int,
    level: tuple[int, int] | list[int],
    n_tricks: int = DEFAULT_RULES.hand_size,
) -> tuple[int, int, int, int]:
    """Per-seat scores of an outcome from the eyes and tricks of Re and the call levels,
    without the special points that depend on single tricks (Doppelkopf, fox, Karlchen).
    Search uses it to price calls it has not made.

    >>> outcome_scores(GameType.SOLO, 0b0001, 130, 7, (1, 0))  # a solo won after "re"
    (9, -3, -3, -3)
    >>> outcome_scores(GameType.NORMAL, 0b0011, 100, 5, (0, 1))  # kontra won, called
    (-4, -4, 4, 4)
    """
    w, comps = _value([eyes_re, 240 - eyes_re], [tricks_re, n_tricks - tricks_re], list(level))
    solo_scored = re_seats.bit_count() == 1
    if w == 1 and not solo_scored and game_type in _CLUB_QUEEN_GAMES:
        comps.append(_COMPONENTS[1, "against_club_queens", 1])
    re_total = 0
    for c in comps:
        re_total += c.points if c.party is _RE else -c.points
    m = 3 if solo_scored else 1
    return (
        m * re_total if re_seats & 1 else -re_total,
        m * re_total if re_seats & 2 else -re_total,
        m * re_total if re_seats & 4 else -re_total,
        m * re_total if re_seats & 8 else -re_total,
    )


def score(game: Game) -> Result:
    """Score a finished game."""
    if game.phase is not _FINISHED:
        raise ValueError("the game is not finished")
    if game.cancelled:
        return _UNPLAYED
    re_seats = game.re_seats
    e0, e1, e2, e3 = game.eyes
    w0, w1, w2, w3 = game.won
    re_eyes = (
        (e0 if re_seats & 1 else 0)
        + (e1 if re_seats & 2 else 0)
        + (e2 if re_seats & 4 else 0)
        + (e3 if re_seats & 8 else 0)
    )
    re_won = (
        (w0 if re_seats & 1 else 0)
        + (w1 if re_seats & 2 else 0)
        + (w2 if re_seats & 4 else 0)
        + (w3 if re_seats & 8 else 0)
    )
    eyes = [re_eyes, e0 + e1 + e2 + e3 - re_eyes]
    tricks = [re_won, w0 + w1 + w2 + w3 - re_won]
    w, comps = _value(eyes, tricks, game.level)
    winner = None if w < 0 else _PARTIES[w]
    solo_scored = re_seats.bit_count() == 1
    if not solo_scored:
        _special_points(game, w, comps)
    re_total = 0
    for c in comps:
        if c.party is _RE:
            re_total += c.points
        else:
            re_total -= c.points
    m = 3 if solo_scored else 1
    scores = (
        m * re_total if re_seats & 1 else -re_total,
        m * re_total if re_seats & 2 else -re_total,
        m * re_total if re_seats & 4 else -re_total,
        m * re_total if re_seats & 8 else -re_total,
    )
    r = _new_object(Result)
    _set_eyes(r, (eyes[0], eyes[1]))
    _set_tricks(r, (tricks[0], tricks[1]))
    _set_winner(r, winner)
    _set_components(r, tuple(comps))
    _set_re_total(r, re_total)
    _set_scores(r, scores)
    _set_solo_scored(r, solo_scored)
    return r


def _special_points(game: Game, winner: int, out: list[Component]) -> None:
    """Special points of a normal game (also a wedding with partner), appended to ``out``.

    ``winner``: 0 Re, 1 Kontra, -1 nobody.
    """
    if winner == 1 and game.game_type in _CLUB_QUEEN_GAMES:
        out.append(_COMPONENTS[1, "against_club_queens", 1])
    re_seats = game.re_seats
    side_of = (
        0 if re_seats & 1 else 1,
        0 if re_seats & 2 else 1,
        0 if re_seats & 4 else 1,
        0 if re_seats & 8 else 1,
    )
    fox = _FOX_MIN if game.piglets < 0 else 48  # no fox points for piglets (RULES §12.3)
    tricks = game.tricks
    points = POINTS
    for leader, (c0, c1, c2, c3), taker in tricks:
        # 40 eyes or more in four cards: only if every card is a ten or an ace
        # (with a king or less the most is 11 + 11 + 11 + 4 = 37).
        if points[c0] >= 10 and points[c1] >= 10 and points[c2] >= 10 and points[c3] >= 10:
            out.append(_COMPONENTS[side_of[taker], "doppelkopf", 1])
        if c0 >= fox or c1 >= fox or c2 >= fox or c3 >= fox:
            side = side_of[taker]
            for i, card in enumerate((c0, c1, c2, c3)):
                if card >= fox and side_of[(leader + i) & 3] != side:
                    out.append(_COMPONENTS[side, "fox", 1])
    if tricks:
        leader, cards, taker = tricks[-1]
        if (1 << cards[(taker - leader) & 3]) & CLUB_JACKS:
            out.append(_COMPONENTS[side_of[taker], "karlchen", 1])


_UNPLAYED: Final = Result((0, 0), (0, 0), None, (), 0, (0, 0, 0, 0), False)
"""The result of a game that ended unplayed (a throw-in, a poverty nobody took)."""


def bock_trigger(game: Game, result: Result) -> bool:
    """Whether ``game`` starts bock games (RULES §12.4): 120 : 120 eyes, both re and kontra
    called, or a lost solo. A game not played triggers nothing."""
    if game.cancelled:
        return False
    if result.eyes == (120, 120):
        return True
    if game.level[0] >= 1 and game.level[1] >= 1:
        return True
    return game.game_type is GameType.SOLO and result.winner is not Party.RE
