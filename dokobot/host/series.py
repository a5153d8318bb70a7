"""The score list of a table and the tournament bookkeeping (RULES §9).

>>> s = Series()
>>> s.forced_soloist(dealer=3, tournament=True, length=4)
0
>>> s.forced_soloist(dealer=3, tournament=True, length=24) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.game import Game
from ..engine.scoring import Result
from ..engine.types import CALL_KEYS, CALL_RE, Party


@dataclass(slots=True)
class GameRecord:
    """One line of the score list."""

    number: int
    dealer: int
    type: str
    solo: str | None
    mandatory: bool
    declarer: int | None
    re: list[int]
    kontra: list[int]
    eyes: tuple[int, int]
    tricks: tuple[int, int]
    calls: list[tuple[int, str]]
    winner: str | None
    cancelled: bool
    components: list[tuple[str, str, int]]
    scores: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]
    counted: bool
    value: int
    forced: bool = False
    series: int = 1
    names: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The object `dokobot replay --json` prints for this game."""
        names = self.names
        return {
            "game": self.number,
            "dealer": names[self.dealer],
            "type": self.type,
            "solo": self.solo,
            "mandatory_solo": self.mandatory,
            "declarer": None if self.declarer is None else names[self.declarer],
            "re": [names[s] for s in self.re],
            "kontra": [names[s] for s in self.kontra],
            "eyes": {"re": self.eyes[0], "kontra": self.eyes[1]},
            "tricks": {"re": self.tricks[0], "kontra": self.tricks[1]},
            "calls": [{"player": names[s], "call": c} for s, c in self.calls],
            "winner": self.winner,
            "cancelled": self.cancelled,
            "components": [
                {"party": p, "item": i, "points": n} for p, i, n in self.components
            ],
            "scores": {names[s]: self.scores[s] for s in range(4)},
            "totals": {names[s]: self.totals[s] for s in range(4)},
        }


@dataclass(slots=True)
class Series:
    """Games of one series: the running totals and who still owes a mandatory solo."""

    records: list[GameRecord] = field(default_factory=list)
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    owed: list[bool] = field(default_factory=lambda: [True, True, True, True])
    counted: int = 0
    number: int = 1
    """Which series of the table this is (1-based)."""

    def games_left(self, length: int) -> int:
        return max(0, length - self.counted)

    def finished(self, tournament: bool, length: int) -> bool:
        return tournament and self.counted >= length

    def forced_soloist(self, dealer: int, tournament: bool, length: int) -> int | None:
        """The seat that must play a forced solo in the next game, if any."""
        if not tournament:
            return None
        missing = sum(self.owed)
        if missing == 0 or missing < self.games_left(length):
            return None
        for i in range(1, 5):
            seat = (dealer + i) % 4
            if self.owed[seat]:
                return seat
        return None  # pragma: no cover

    def record(self, game: Game, result: Result, number: int, names: list[str]) -> GameRecord:
        """Add a finished game; return its line."""
        calls: list[tuple[int, str]] = [(s, CALL_KEYS[a - CALL_RE]) for s, a in game.calls]
        for s in range(4):
            self.totals[s] += result.scores[s]
        counted = not (game.mandatory and game.forced < 0 and game.rules.tournament)
        if game.mandatory:
            self.owed[game.declarer] = False
        if counted:
            self.counted += 1
        rec = GameRecord(
            number=number,
            dealer=game.dealer,
            type=game.game_type.key,
            solo=None if game.solo is None else game.solo.key,
            mandatory=game.mandatory,
            declarer=None if game.declarer < 0 else game.declarer,
            re=game.seats_of(Party.RE),
            kontra=game.seats_of(Party.KONTRA),
            eyes=result.eyes,
            tricks=result.tricks,
            calls=calls,
            winner=None if result.winner is None else result.winner.key,
            cancelled=False,
            components=[(c.party.key, c.item, c.points) for c in result.components],
            scores=result.scores,
            totals=(self.totals[0], self.totals[1], self.totals[2], self.totals[3]),
            counted=counted,
            value=result.value,
            forced=game.forced >= 0,
            series=self.number,
            names=list(names),
        )
        self.records.append(rec)
        return rec

    def record_cancelled(self, game: Game, number: int, names: list[str]) -> GameRecord:
        """A game that ends without score (abort vote, duel cancellation)."""
        rec = GameRecord(
            number=number,
            dealer=game.dealer,
            type=game.game_type.key,
            solo=None if game.solo is None else game.solo.key,
            mandatory=False,
            declarer=None if game.declarer < 0 else game.declarer,
            re=game.seats_of(Party.RE),
            kontra=game.seats_of(Party.KONTRA),
            eyes=(0, 0),
            tricks=(0, 0),
            calls=[(s, CALL_KEYS[a - CALL_RE]) for s, a in game.calls],
            winner=None,
            cancelled=True,
            components=[],
            scores=(0, 0, 0, 0),
            totals=(self.totals[0], self.totals[1], self.totals[2], self.totals[3]),
            counted=False,
            value=0,
            series=self.number,
            names=list(names),
        )
        self.records.append(rec)
        return rec

    def ranking(self) -> list[int]:
        """Seats by total, best first (ties: seat order)."""
        return sorted(range(4), key=lambda s: (-self.totals[s], s))
