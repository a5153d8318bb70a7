"""The record of one finished game, as the statistics and the web page read it.

A :class:`FinishedGame` holds only what everybody at the table has seen by the end of the
game: the seats, the result exactly as :meth:`GameRecord.as_json` gives it, the tricks
taken (leader, cards in playing order, winner) and the calls with the moment they were made.
No hand, no card still held (an aborted game keeps only its completed tricks), no seed.

>>> seat = SeatRecord("replay:anna", "anna")
>>> g = FinishedGame("srv", "srv:1", 1, 1, 0.0, (seat,) * 4, {"game": 1}, ((0, (1, 2, 3, 4), 2),),
...                  ((0, "re", 0),), True)
>>> FinishedGame.from_json(g.to_json()) == g
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

Trick = tuple[int, tuple[int, ...], int]
"""(leader seat, the four cards in playing order, winner seat)."""
CallMade = tuple[int, str, int]
"""(seat, call key such as ``"re"`` or ``"no90"``, cards played before the call)."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sat in a seat when the game finished."""

    user: str
    """Stable, platform-qualified user id; a computer player has ``bot:NAME``. A stand-in
    computer player is recorded as the person it replaces (as the chip ledger does)."""
    name: str
    computer: bool = False
    level: str | None = None
    """The computer level of a computer player."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One finished (or aborted) game of a table; see the module text."""

    server: str
    channel: str
    game: int
    series: int
    finished_at: float
    """Unix time, seconds."""
    seats: tuple[SeatRecord, ...]
    result: dict[str, Any] = field(compare=True)
    """:meth:`dokobot.host.series.GameRecord.as_json` of the game."""
    tricks: tuple[Trick, ...]
    calls: tuple[CallMade, ...]
    rated: bool
    """Whether the game counts for the rating (the table option ``rated``)."""
    id: int = 0
    """The store's number of this record (0 until stored)."""
    row: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """The table's score list line of the game (:meth:`GameRecord.to_row`), read back when
    a table shows its older games (records of older versions have none)."""
    turns: tuple[tuple[int, int], ...] = ()
    """Per seat: (its turns in this game, those a computer player made for its person);
    records of older versions have none."""

    # ------------------------------------------------------------ derived figures
    @property
    def cancelled(self) -> bool:
        return bool(self.result.get("cancelled"))

    def scores(self) -> list[int]:
        """Each seat's points in this game."""
        scores = self.result["scores"]
        return [int(scores[s.name]) for s in self.seats]

    def parties(self) -> list[str]:
        """Each seat's party, ``"re"`` or ``"kontra"`` (``""`` if never known)."""
        re = set(self.result["re"])
        kontra = set(self.result["kontra"])
        return ["re" if s.name in re else "kontra" if s.name in kontra else "" for s in self.seats]

    def declarer(self) -> int | None:
        name = self.result.get("declarer")
        return next((i for i, s in enumerate(self.seats) if s.name == name), None)

    # ------------------------------------------------------------ JSON
    def to_json(self) -> str:
        data = {
            "server": self.server,
            "channel": self.channel,
            "game": self.game,
            "series": self.series,
            "finished_at": self.finished_at,
            "seats": [[s.user, s.name, s.computer, s.level] for s in self.seats],
            "result": self.result,
            "tricks": [[lead, list(cards), win] for lead, cards, win in self.tricks],
            "calls": [list(c) for c in self.calls],
            "rated": self.rated,
        }
        if self.row is not None:
            data["row"] = self.row
        if self.turns:
            data["turns"] = [list(t) for t in self.turns]
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, id: int = 0) -> FinishedGame:
        d = json.loads(text)
        return cls(
            server=str(d["server"]),
            channel=str(d["channel"]),
            game=int(d["game"]),
            series=int(d["series"]),
            finished_at=float(d["finished_at"]),
            seats=tuple(SeatRecord(str(u), str(n), bool(c), lv) for u, n, c, lv in d["seats"]),
            result=dict(d["result"]),
            tricks=tuple((a, tuple(cs), w) for a, cs, w in d.get("tricks", ())),
            calls=tuple((s, k, n) for s, k, n in d["calls"]),
            rated=bool(d["rated"]),
            id=id,
            row=d.get("row"),
            turns=tuple((int(t), int(s)) for t, s in d.get("turns", ())),
        )

    def with_id(self, id: int) -> FinishedGame:
        return replace(self, id=id)
