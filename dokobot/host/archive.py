"""Finished games on demand: what a durable table keeps of its older games, and how they
come back from the store; the record of a game a table has just finished
(:func:`finished_game`).

A table keeps its latest finished games in memory (the score list shows them); every
finished game is stored (``game_results``) with its score list line and the chips settled
with it, so /score N, /score csv, /score chart and /export read older ones from the store.
The settlements a table has made are kept as one *carry* entry: per account what it won
or lost at the table, and the commission, which is all the server's ledger needs.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..engine.types import CALL_KEYS, CALL_RE, Phase, is_call, is_card
from ..stats.record import CallMade, FinishedGame, SeatRecord, Trick
from .seats import PLAYERS
from .series import GameRecord
from .stakes import ZERO, Kind, LedgerEntry, Settlement

if TYPE_CHECKING:
    from .table import Table


def carry(entries: list[LedgerEntry], channel: str) -> LedgerEntry | None:
    """One entry that books what ``entries`` (a carry among them, too) booked together."""
    net: dict[str, Decimal] = {}
    names: dict[str, str] = {}
    commission = ZERO
    for e in entries:
        commission += e.settlement.commission
        for account, name, amount in zip(e.accounts, e.names, e.settlement.net, strict=True):
            if account is not None:
                net[account] = net.get(account, ZERO) + amount
                names[account] = name
    if not entries:
        return None
    amounts = tuple(net.values())
    st = Settlement("game", 0, 0, ZERO, amounts, commission, amounts)
    return LedgerEntry(channel, tuple(net), tuple(names[a] for a in net), st)


def chips_of(table: Table, rec: GameRecord) -> list[LedgerEntry]:
    """The settlements made with game ``rec``: its own, and its series' if it ended it."""
    last_of_series = max(r.number for r in table.finished if r.series == rec.series)
    out = []
    for e in table.settlements:
        st = e.settlement
        if (st.kind == "game" and st.game == rec.number) or (
            st.kind == "series" and st.series == rec.series and rec.number == last_of_series
        ):
            out.append(e)
    return out


def entry_json(e: LedgerEntry) -> dict[str, Any]:
    st = e.settlement
    return {
        "channel": e.channel,
        "accounts": list(e.accounts),
        "names": list(e.names),
        "kind": st.kind,
        "series": st.series,
        "game": st.game,
        "unit": str(st.unit),
        "gross": [str(x) for x in st.gross],
        "commission": str(st.commission),
        "net": [str(x) for x in st.net],
    }


def entry_from_json(d: dict[str, Any]) -> LedgerEntry:
    kind: Kind = "series" if d["kind"] == "series" else "game"
    st = Settlement(
        kind,
        int(d["series"]),
        None if d["game"] is None else int(d["game"]),
        Decimal(d["unit"]),
        tuple(Decimal(x) for x in d["gross"]),
        Decimal(d["commission"]),
        tuple(Decimal(x) for x in d["net"]),
    )
    accounts = tuple(None if a is None else str(a) for a in d["accounts"])
    return LedgerEntry(str(d["channel"]), accounts, tuple(str(n) for n in d["names"]), st)


def history(games: list[FinishedGame]) -> tuple[list[GameRecord], list[LedgerEntry]]:
    """The score list lines and the settlements of stored games."""
    records = [stored_record(g) for g in games]
    entries = [entry_from_json(d) for g in games for d in (g.row or {}).get("chips", ())]
    return records, entries


def stored_record(game: FinishedGame) -> GameRecord:
    """The score list line of a stored game: its own copy, or (records of older versions)
    one rebuilt from its result, where a game counts unless aborted, its value is the
    smallest score and no solo was forced."""
    if game.row is not None:
        return GameRecord.from_row(game.row)
    r = game.result
    names = list(r["scores"])
    seat = {n: i for i, n in enumerate(names)}
    scores = tuple(int(r["scores"][n]) for n in names)
    cancelled = bool(r["cancelled"])
    return GameRecord(
        number=int(r["game"]),
        dealer=seat.get(r["dealer"], 0),
        type=str(r["type"]),
        solo=r["solo"],
        mandatory=bool(r["mandatory_solo"]),
        declarer=None if r["declarer"] is None else seat[r["declarer"]],
        re=[seat[n] for n in r["re"]],
        kontra=[seat[n] for n in r["kontra"]],
        eyes=(int(r["eyes"]["re"]), int(r["eyes"]["kontra"])),
        tricks=(int(r["tricks"]["re"]), int(r["tricks"]["kontra"])),
        calls=[(seat[c["player"]], str(c["call"])) for c in r["calls"]],
        winner=r["winner"],
        cancelled=cancelled,
        components=[(str(c["party"]), str(c["item"]), int(c["points"])) for c in r["components"]],
        scores=(scores[0], scores[1], scores[2], scores[3]),
        totals=tuple(int(r["totals"][n]) for n in names),  # type: ignore[arg-type]
        counted=not cancelled,
        value=0 if cancelled else min((abs(x) for x in scores), default=0),
        series=game.series,
        names=names,
        multiplier=int(r.get("multiplier", 1)),
    )


def seat_records(table: Table) -> tuple[SeatRecord, ...]:
    """The seats of the game just finished: a stand-in stands for the person who left
    during it, and for nobody (a computer player) if it played the whole game."""
    out = []
    for i, s in enumerate(table.seats[:PLAYERS]):  # those who sat out played nothing
        if s.standin_for is not None and i not in table.standins:
            out.append(SeatRecord(s.standin_for, s.name))
        else:
            out.append(SeatRecord(s.user, s.name, s.is_bot, s.bot))
    return tuple(out)


def is_rated(table: Table) -> bool:
    """Whether the table's running (or just finished) game is stored as rated
    (:meth:`Table.rated`, the people of :func:`seat_records`)."""
    return table.rated()


def finished_game(table: Table, rec: GameRecord, *, now: float | None = None) -> FinishedGame:
    """The record of ``rec``, the game that ``table`` has just finished or aborted."""
    game = table.game
    tricks: tuple[Trick, ...] = ()
    calls: tuple[CallMade, ...] = ()
    turns: tuple[tuple[int, int], ...] = ()
    if game is not None and table.game_number == rec.number:
        turns = table.turn_count.pairs()
        tricks = tuple((lead, tuple(cards), win) for lead, cards, win in game.tricks)
        made: list[CallMade] = []
        played = 0
        # Replayed alongside, so that cards given in a poverty's exchange (card actions
        # too) are not counted as played.
        again = game.redealt()
        for seat, action in game.log:
            if is_card(action) and again.phase is Phase.PLAYING:
                played += 1
            elif is_call(action):
                made.append((seat, CALL_KEYS[action - CALL_RE], played))
            again.push(seat, action)
        calls = tuple(made)
    seats = seat_records(table)
    return FinishedGame(
        server=table.ledger.server,
        channel=table.channel,
        game=rec.number,
        series=rec.series,
        finished_at=time.time() if now is None else now,
        seats=seats,
        result=rec.as_json(),
        tricks=tricks,
        calls=calls,
        rated=is_rated(table),
        row=rec.to_row(),
        turns=turns[: len(seats)] if len(turns) >= len(seats) else (),
    )
