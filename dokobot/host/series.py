"""The score list of a table and the tournament bookkeeping (RULES §9).

>>> s = Series()
>>> s.forced_soloist(dealer=3, tournament=True, length=4)
0
>>> s.forced_soloist(dealer=3, tournament=True, length=24) is None
True
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, Protocol

from ..engine.game import Game
from ..engine.observation import public_parties
from ..engine.scoring import Result
from ..engine.types import CALL_KEYS, CALL_RE, GameType, Party
from .i18n import Term, render, text
from .stakes import LedgerEntry


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
    multiplier: int = 1
    """2 in a bock game (RULES §12.4): the scores and the value are already multiplied."""
    out: list[str] = field(default_factory=list)
    """Who sat out this game at a table of five or six (RULES §12.9), the dealer first;
    :attr:`names` are the four who played, and :attr:`dealer` the engine's dealer among
    them (the player before first hand)."""

    @property
    def dealer_name(self) -> str:
        """Who dealt: the first who sat out, else the player in seat :attr:`dealer`."""
        if self.out:
            return self.out[0]
        return self.names[self.dealer] if self.dealer < len(self.names) else "?"

    def to_row(self) -> dict[str, Any]:
        """Every field, as JSON data (:meth:`from_row` gives the record back)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> GameRecord:
        """The record of :meth:`to_row` (read from the store)."""
        kw = {f.name: row[f.name] for f in fields(cls) if f.name in row}
        for name in ("eyes", "tricks", "scores", "totals"):
            kw[name] = tuple(kw[name])
        kw["calls"] = [(int(s), str(c)) for s, c in kw["calls"]]
        kw["components"] = [(str(p), str(i), int(n)) for p, i, n in kw["components"]]
        return cls(**kw)

    def as_json(self) -> dict[str, Any]:
        """The object `dokobot replay --json` prints for this game."""
        names = self.names
        seats = {"sitting_out": list(self.out)} if self.out else {}
        return {
            "game": self.number,
            "dealer": self.dealer_name,
            **seats,
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
            "components": [{"party": p, "item": i, "points": n} for p, i, n in self.components],
            "scores": {names[s]: self.scores[s] for s in range(4)},
            "totals": {names[s]: self.totals[s] for s in range(4)},
            "multiplier": self.multiplier,
        }


@dataclass(slots=True)
class Series:
    """Games of one series: the running totals and who still owes a mandatory solo."""

    games: int = 0
    """Games recorded in this series (aborted ones too); their records are the table's
    (:meth:`dokobot.host.table.Table.all_games`)."""
    by_player: dict[str, int] = field(default_factory=dict)
    """Each player's total in this series, by name, in the order they first played."""
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    owed: list[bool] = field(default_factory=lambda: [True, True, True, True])
    counted: int = 0
    number: int = 1
    """Which series of the table this is (1-based)."""
    bock_left: int = 0
    """Bock games still to play (RULES §12.4; a trigger adds 4, never doubles again)."""

    def games_left(self, length: int) -> int:
        return max(0, length - self.counted)

    def is_over(self, length: int | None) -> bool:
        """Whether a series of ``length`` counted games (None: open-ended) is complete."""
        return length is not None and self.counted >= length

    def missing_solos(self) -> list[int]:
        """Seats that still owe their mandatory solo (tournament mode)."""
        return [s for s in range(4) if self.owed[s]]

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

    def record(
        self,
        game: Game,
        result: Result,
        number: int,
        names: list[str],
        *,
        multiplier: int = 1,
        out: Sequence[str] = (),
    ) -> GameRecord:
        """Add a finished game (its scores times ``multiplier``; ``names`` the four who
        played it, ``out`` who sat out); return its line."""
        calls: list[tuple[int, str]] = [(s, CALL_KEYS[a - CALL_RE]) for s, a in game.calls]
        m = multiplier
        scores = (
            m * result.scores[0],
            m * result.scores[1],
            m * result.scores[2],
            m * result.scores[3],
        )
        for s in range(4):
            self.totals[s] += scores[s]
        totals = (self.totals[0], self.totals[1], self.totals[2], self.totals[3])
        if out:  # at five or six the seats' players change each game: by player
            totals = self._player_totals(names, scores)
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
            scores=scores,
            totals=totals,
            counted=counted,
            value=m * result.value,
            forced=game.forced >= 0,
            series=self.number,
            names=list(names),
            multiplier=m,
            out=list(out),
        )
        self._add(rec)
        return rec

    def record_cancelled(
        self, game: Game, number: int, names: list[str], out: Sequence[str] = ()
    ) -> GameRecord:
        """A game that ends without score (abort vote, duel cancellation).

        It records only what was public when it ended: an aborted game's cards stay
        hidden, so neither the parties nor a silent wedding may show in the score list.
        """
        public = public_parties(game)
        game_type = game.game_type
        if game_type is GameType.SILENT_WEDDING:
            game_type = GameType.NORMAL
        declared = game.declarer >= 0 and game_type in (
            GameType.SOLO,
            GameType.WEDDING,
            GameType.POVERTY,
        )
        kind = game_type.key
        if game.cancelled == "thrown":  # RULES §12.2: type "thrown", the thrower declared
            kind, declared = "thrown", True
        rec = GameRecord(
            number=number,
            dealer=game.dealer,
            type=kind,
            solo=None if game.solo is None else game.solo.key,
            mandatory=False,
            declarer=game.declarer if declared else None,
            re=[s for s in range(4) if public[s] is Party.RE],
            kontra=[s for s in range(4) if public[s] is Party.KONTRA],
            eyes=(0, 0),
            tricks=(0, 0),
            calls=[(s, CALL_KEYS[a - CALL_RE]) for s, a in game.calls],
            winner=None,
            cancelled=True,
            components=[],
            scores=(0, 0, 0, 0),
            totals=(
                self._player_totals(names, (0, 0, 0, 0))
                if out
                else (self.totals[0], self.totals[1], self.totals[2], self.totals[3])
            ),
            counted=False,
            value=0,
            series=self.number,
            names=list(names),
            out=list(out),
        )
        self._add(rec)
        return rec

    def _player_totals(
        self, names: Sequence[str], scores: tuple[int, int, int, int]
    ) -> tuple[int, int, int, int]:
        """The series totals of the four ``names`` after a game that scored ``scores``."""
        a, b, c, d = (self.by_player.get(n, 0) + x for n, x in zip(names, scores, strict=True))
        return a, b, c, d

    def _add(self, rec: GameRecord) -> None:
        self.games += 1
        for name, score in zip(rec.names, rec.scores, strict=False):
            self.by_player[name] = self.by_player.get(name, 0) + score

    def totals_by_player(self) -> dict[str, int]:
        """Each player's total in this series, by name (seats may change between games)."""
        return dict(self.by_player)

    def player_standings(self) -> list[tuple[int, str, int]]:
        """(place, name, total) best first, by player; equal totals share a place.

        >>> s = Series()
        >>> s._add(GameRecord(1, 0, "normal", None, False, None, [0, 1], [2, 3], (130, 110),
        ...     (7, 5), [], "re", False, [], (1, 1, -1, -1), (1, 1, -1, -1), True, 1,
        ...     names=["anna", "ben", "carl", "dora"]))
        >>> s.player_standings()
        [(1, 'anna', 1), (1, 'ben', 1), (3, 'carl', -1), (3, 'dora', -1)]
        """
        totals = self.totals_by_player()
        order = sorted(totals, key=lambda name: -totals[name])
        out: list[tuple[int, str, int]] = []
        for i, name in enumerate(order):
            place = out[-1][0] if i and totals[name] == out[-1][2] else i + 1
            out.append((place, name, totals[name]))
        return out

    def ranking(self) -> list[int]:
        """Seats by total, best first (ties: seat order)."""
        return sorted(range(4), key=lambda s: (-self.totals[s], s))

    def standings(self) -> list[tuple[int, int]]:
        """(place, seat) best first; equal totals share a place (1, 2, 2, 4).

        >>> s = Series(totals=[3, 5, 3, -11])
        >>> s.standings()
        [(1, 1), (2, 0), (2, 2), (4, 3)]
        """
        order = self.ranking()
        out: list[tuple[int, int]] = []
        for i, seat in enumerate(order):
            if i and self.totals[seat] == self.totals[order[i - 1]]:
                out.append((out[-1][0], seat))
            else:
                out.append((i + 1, seat))
        return out


# ---------------------------------------------------------------------- the score list
NAME_WIDTH: Final = 6
"""Names are cut to this width in the columns of the score list."""


def type_label(rec: GameRecord, lang: str) -> str:
    """The short name of a game in the score list, with its mark.

    Marks: ``*`` a mandatory solo, ``!`` a forced solo (Vorführung, also mandatory).
    """
    if rec.cancelled and rec.type in ("thrown", "poverty"):
        base = text(lang, "score.type." + rec.type) + " " + text(lang, "score.type.redealt")
    elif rec.cancelled:
        base = text(lang, "score.type.cancelled")
    elif rec.solo is not None:
        base = text(lang, "score.solo." + rec.solo)
    elif rec.type == "wedding" and len(rec.re) == 1:
        base = text(lang, "score.type.wedding_alone")
    else:
        base = text(lang, "score.type." + rec.type)
    bock = " ×2" if rec.multiplier > 1 else ""
    return base + ("!" if rec.forced else "*" if rec.mandatory else "") + bock


def signed(x: int) -> str:
    """``+3``, ``-3``, and ``0`` without a sign."""
    return f"{x:+d}" if x else "0"


def _grid(rows: list[list[str]], left: set[int]) -> list[str]:
    """Rows of cells as aligned text; columns in ``left`` are left-aligned, the rest right.

    A row of one cell is printed as it is (a separator line).
    """
    widths: dict[int, int] = {}
    for row in rows:
        if len(row) > 1:
            for i, cell in enumerate(row):
                widths[i] = max(widths.get(i, 0), len(cell))
    out = []
    for row in rows:
        if len(row) == 1:
            out.append(row[0])
            continue
        cells = [
            cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        ]
        out.append(" ".join(cells).rstrip())
    return out


def score_sheet(
    records: Sequence[GameRecord],
    names: Sequence[str],
    series: Series,
    lang: str,
    *,
    last: int = 12,
    length: int | None = None,
    tournament: bool = False,
    seated_first: bool = False,
) -> list[str]:
    """The score list as lines of aligned text: a progress line, one row per game (the last
    ``last``; a line says how many earlier ones are left out), the totals of the running
    series and a legend of the marks.

    Columns: game number, dealer, game, value, each player's result, ``|``, each player's
    running total in the game's series. The players' columns are in the order they first
    played; ``seated_first`` (five or six at a table): those seated (``names``, in the order
    they sat down) first, then those who left.
    """
    counted = series.counted
    if tournament and length is not None:
        owed: list[Any] = [names[s] for s in series.missing_solos() if s < len(names)]
        progress = render(
            lang,
            "score.progress_tournament",
            {
                "series": series.number,
                "counted": counted,
                "length": length,
                "owed": owed or [Term("score.nobody")],
            },
        )
    elif length is not None:
        progress = render(
            lang,
            "score.progress_fixed",
            {"series": series.number, "counted": counted, "length": length},
        )
    else:
        progress = render(
            lang, "score.progress_open", {"series": series.number, "counted": counted}
        )
    lines = [progress]
    # Only the running series: earlier ones are named, their games stay in /score N. Every
    # series before the running one has games (a new series starts only after some).
    earlier = list(range(1, series.number))
    records = [r for r in records if r.series == series.number][-series.games :]
    if earlier:
        lines.append(render(lang, "score.earlier_series", {"series": [str(n) for n in earlier]}))
    if not series.games or not records:
        lines.append(text(lang, "score.empty"))
        return lines
    # Columns belong to players, not seats: whoever sat in a game of the series has one,
    # and a game's row fills the columns of the four who played it.
    first = [*names, *series.by_player] if seated_first else [*series.by_player, *names]
    players = list(dict.fromkeys(first))
    running = {n: series.by_player.get(n, 0) for n in players}
    shown = list(records[-last:]) if last > 0 else list(records)
    # the running totals after each shown game, back from the series' totals
    totals_after: list[dict[str, int]] = []
    after = dict(running)
    for rec in reversed(shown):
        totals_after.append(dict(after))
        for name, score in zip(rec.names, rec.scores, strict=False):
            after[name] -= score
    totals_after.reverse()
    if len(shown) < series.games:
        lines.append(render(lang, "score.earlier", {"n": series.games - len(shown)}))
    short = [n[:NAME_WIDTH] for n in players]
    rows: list[list[str]] = [
        [
            text(lang, "score.col.game"),
            text(lang, "score.col.dealer"),
            text(lang, "score.col.type"),
            text(lang, "score.col.value"),
            *short,
            "|",
            *short,
        ]
    ]
    marks = False
    sat_out = text(lang, "score.sat_out")
    outs = False
    for rec, after in zip(shown, totals_after, strict=True):
        marks = marks or rec.mandatory or rec.forced
        outs = outs or bool(rec.out)
        dealer = rec.dealer_name
        scores = dict(zip(rec.names, rec.scores, strict=False))
        if rec.cancelled:
            results = ["-" if n in scores else "" for n in players]
            value = "-"
        else:
            results = [signed(scores[n]) if n in scores else "" for n in players]
            value = str(rec.value)
        # RULES §12.9: who sat out this game has its mark, not a blank
        results = [
            sat_out if n in rec.out else cell for n, cell in zip(players, results, strict=True)
        ]
        rows.append(
            [
                str(rec.number),
                dealer[:NAME_WIDTH],
                type_label(rec, lang),
                value,
                *results,
                "|",
                *(signed(after[n]) for n in players),
            ]
        )
    rows.append(
        ["", "", text(lang, "score.total"), "", *([""] * len(players)), "|"]
        + [signed(running[n]) for n in players]
    )
    grid = _grid(rows, left={1, 2})
    # over the two blocks of names: which are this game's scores, which the running totals
    bar = grid[0].index("|")
    over = text(lang, "score.col.scores").rjust(bar - 1) + " | " + text(lang, "score.col.totals")
    lines += [over, *grid]
    if marks:
        lines.append(text(lang, "score.legend"))
    if outs:
        lines.append(render(lang, "score.legend_out", {"mark": sat_out}))
    return lines


def game_lines(rec: GameRecord, lang: str) -> list[str]:
    """One game of the score list in detail: parties, eyes, value components, results."""
    names = rec.names
    head = render(
        lang,
        "score.game_head",
        {
            "n": rec.number,
            "series": rec.series,
            "type": type_label(rec, lang),
            "dealer": rec.dealer_name,
        },
    )
    if rec.out:
        head += " " + render(lang, "score.game_sat_out", {"players": rec.out})
    if rec.cancelled:
        return [head, text(lang, "score.game_cancelled")]
    lines = [
        head,
        render(
            lang,
            "score.game_result",
            {
                "re": [names[s] for s in rec.re],
                "kontra": [names[s] for s in rec.kontra],
                "eyes_re": rec.eyes[0],
                "eyes_kontra": rec.eyes[1],
                "winner": Term("party." + (rec.winner or "nobody")),
            },
        ),
    ]
    if rec.calls:
        calls = [f"{names[s]}: {text(lang, 'call.' + c)}" for s, c in rec.calls]
        lines.append(render(lang, "score.calls", {"calls": calls}))
    lines += [render(lang, key, params) for key, params in value_lines(rec)]
    return lines


def value_lines(rec: GameRecord) -> list[tuple[str, dict[str, Any]]]:
    """How a game was valued, as (catalogue key, parameters): each value item in words with
    its points, the game value, and the four players' scores."""
    names = rec.names
    out: list[tuple[str, dict[str, Any]]] = [
        (
            "component",
            {"party": Term("party." + party), "item": Term("item." + item), "points": f"{pts:+d}"},
        )
        for party, item, pts in rec.components
    ]
    winner = Term("party." + (rec.winner or "nobody"))
    if rec.multiplier > 1:  # a bock game: the items add up to the value before doubling
        base = rec.value // rec.multiplier
        out.append(("score.bock", {"base": base, "times": rec.multiplier, "value": rec.value}))
    out.append(("score.value", {"value": rec.value, "winner": winner}))
    out.append(("game_scores", {"scores": [f"{names[s]} {rec.scores[s]:+d}" for s in range(4)]}))
    return out


CSV_COLUMNS: Final = (
    "row",
    "series",
    "game",
    "dealer",
    "type",
    "solo",
    "mandatory_solo",
    "forced_solo",
    "cancelled",
    "counted",
    "declarer",
    "re",
    "kontra",
    "eyes_re",
    "eyes_kontra",
    "winner",
    "value",
    "components",
    *(f"player{i}" for i in range(1, 5)),
    *(f"score{i}" for i in range(1, 5)),
    *(f"total{i}" for i in range(1, 5)),
    *(f"chips{i}" for i in range(1, 5)),
    "commission",
    "sitting_out",
)


class ScoreHistory(Protocol):
    """What :func:`series_csv` reads of a table (a :class:`~dokobot.host.table.Table`)."""

    def history(self) -> tuple[list[GameRecord], list[LedgerEntry]]:
        """Every finished game, oldest first, and every settlement."""
        ...


def series_csv(table: ScoreHistory) -> str:
    """The table's score list as CSV (every game of every series, for ``/export``).

    One ``game`` row per game; a ``settlement`` row after a series settled with a fixed
    stake. Players are columns by seat (``player1`` … ``player4`` name them in each row,
    since seats may change hands); ``total1`` … ``total4`` are the running totals of the
    series of the player named in that row's column, by player as the score list counts
    them (a seat's new holder does not inherit the old one's points). Chips are decimal
    strings (``10.56``);
    ``components`` lists ``party:item:points`` separated by ``;``. Flags are 0/1. At five or
    six at a table (RULES §12.9) ``player1`` … ``player4`` are the four who played the game,
    ``sitting_out`` names who sat it out (the dealer first, separated by spaces).
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    games, entries = table.history()
    by_game = {e.settlement.game: e for e in entries if e.settlement.kind == "game"}
    by_series = {e.settlement.series: e for e in entries if e.settlement.kind == "series"}
    empty4 = ["", "", "", ""]
    by_player: dict[str, int] = {}
    for i, rec in enumerate(games):
        names = list(rec.names) + ["?"] * (4 - len(rec.names))
        if i == 0 or games[i - 1].series != rec.series:
            by_player = {}
        for name, points in zip(names, rec.scores, strict=False):
            by_player[name] = by_player.get(name, 0) + points
        totals = [by_player.get(name, 0) for name in names[:4]]
        entry = by_game.get(rec.number)
        chips_cells = empty4
        commission = ""
        if entry is not None:
            chips_cells = [str(x) for x in entry.settlement.net]
            commission = str(entry.settlement.commission)
        writer.writerow(
            [
                "game",
                rec.series,
                rec.number,
                rec.dealer_name,
                "cancelled" if rec.cancelled else rec.type,
                rec.solo or "",
                int(rec.mandatory),
                int(rec.forced),
                int(rec.cancelled),
                int(rec.counted),
                "" if rec.declarer is None else names[rec.declarer],
                " ".join(names[s] for s in rec.re),
                " ".join(names[s] for s in rec.kontra),
                rec.eyes[0],
                rec.eyes[1],
                rec.winner or "",
                rec.value,
                ";".join(f"{p}:{item}:{pts}" for p, item, pts in rec.components),
                *names[:4],
                *rec.scores,
                *totals,
                *chips_cells,
                commission,
                " ".join(rec.out),
            ]
        )
        end_of_series = i + 1 == len(games) or games[i + 1].series != rec.series
        series_entry = by_series.get(rec.series)
        if end_of_series and series_entry is not None:
            st = series_entry.settlement
            snames = list(series_entry.names) + ["?"] * (4 - len(series_entry.names))
            writer.writerow(
                [
                    "settlement",
                    rec.series,
                    *([""] * 16),
                    *snames[:4],
                    *empty4,
                    *(by_player.get(name, 0) for name in snames[:4]),
                    *(str(x) for x in st.net),
                    str(st.commission),
                    "",
                ]
            )
    return buf.getvalue()
