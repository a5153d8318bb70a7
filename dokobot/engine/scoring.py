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

from dataclasses import dataclass

from .cards import CLUB_JACKS, DIAMOND_ACES, POINTS
from .game import Game
from .rules import DEFAULT_RULES
from .types import CALL_KEYS, GameType, Party, Phase

__all__ = ["DEFAULT_RULES", "Component", "Result", "score"]

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
    if party == Party.RE:
        return eyes[0] >= (120 if only_kontra_called else 121)
    return eyes[1] >= (121 if only_kontra_called else 120)


def _performance(party: int, eyes: list[int], tricks: list[int], level: list[int]) -> list[str]:
    """Items a party earns from the opponents' low eyes and from beating their calls."""
    opp = 1 - party
    items = [name for limit, name in _UNDER if eyes[opp] < limit]
    if tricks[opp] == 0:
        items.append("black")
    for lv in range(2, level[opp] + 1):
        need, name = _REACHED[lv]
        if eyes[party] >= need:
            items.append(name)
    return items


def score(game: Game) -> Result:
    """Score a finished game."""
    if game.phase is not Phase.FINISHED:
        raise ValueError("the game is not finished")
    re_seats = game.re_seats
    eyes = [0, 0]
    tricks = [0, 0]
    for seat in range(4):
        p = 0 if re_seats >> seat & 1 else 1
        eyes[p] += game.eyes[seat]
        tricks[p] += game.won[seat]
    level = game.level
    comps: list[Component] = []
    winner: Party | None = None
    if _meets(0, eyes, tricks, level):
        winner = Party.RE
    elif _meets(1, eyes, tricks, level):
        winner = Party.KONTRA
    if winner is not None:
        comps.append(Component(winner, "won", 1))
        comps += [
            Component(winner, n, 1)
            for n in _performance(winner, eyes, tricks, level)
            if not n.startswith("reached")
        ]
        for p in (Party.RE, Party.KONTRA):
            if level[p] >= 1:
                comps.append(Component(winner, f"{p.key}_called", 2))
        for p in (Party.RE, Party.KONTRA):
            for lv in range(2, level[p] + 1):
                comps.append(Component(winner, f"{CALL_KEYS[lv]}_called", 1))
        comps += [
            Component(winner, n, 1)
            for n in _performance(winner, eyes, tricks, level)
            if n.startswith("reached")
        ]
    else:
        for p in (Party.RE, Party.KONTRA):
            comps += [Component(p, n, 1) for n in _performance(p, eyes, tricks, level)]
    solo_scored = re_seats.bit_count() == 1
    if not solo_scored:
        comps += _special_points(game, winner)
    re_total = sum(c.points if c.party is Party.RE else -c.points for c in comps)
    if solo_scored:
        scores = tuple(3 * re_total if re_seats >> s & 1 else -re_total for s in range(4))
    else:
        scores = tuple(re_total if re_seats >> s & 1 else -re_total for s in range(4))
    return Result(
        (eyes[0], eyes[1]),
        (tricks[0], tricks[1]),
        winner,
        tuple(comps),
        re_total,
        (scores[0], scores[1], scores[2], scores[3]),
        solo_scored,
    )


def _special_points(game: Game, winner: Party | None) -> list[Component]:
    """Special points of a normal game (also a wedding with partner)."""
    out: list[Component] = []
    if winner is Party.KONTRA and game.game_type in (GameType.NORMAL, GameType.WEDDING):
        out.append(Component(Party.KONTRA, "against_club_queens", 1))
    party_of = game.party_of
    last = len(game.tricks) - 1
    for n, (leader, cards, taker) in enumerate(game.tricks):
        side = party_of(taker)
        if sum(POINTS[c] for c in cards) >= 40:
            out.append(Component(side, "doppelkopf", 1))
        for i, card in enumerate(cards):
            if (1 << card) & DIAMOND_ACES and party_of((leader + i) & 3) is not side:
                out.append(Component(side, "fox", 1))
        if n == last and (1 << cards[(taker - leader) & 3]) & CLUB_JACKS:
            out.append(Component(side, "karlchen", 1))
    return out
