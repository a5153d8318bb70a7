"""The glue between a table and the chip ledger: settling a game or a series, and the notes
and lines that show settlements and balances."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .i18n import Labelled, Standings, render
from .notes import ALL, Note
from .options import TableOptions
from .series import GameRecord, Series
from .stakes import Ledger, LedgerEntry, Settlement, chip_numbers


def settle_game(
    ledger: Ledger,
    channel: str,
    accounts: list[str | None],
    names: list[str],
    rec: GameRecord,
    opts: TableOptions,
) -> LedgerEntry:
    """Settle the game ``rec`` in chips; the ledger's new entry."""
    ledger.settle_game(
        channel,
        accounts,
        names,
        rec.scores,
        rec.value,
        stake=opts.stake,
        limit=opts.limit,
        rate=opts.commission_rate,
        series=rec.series,
        game=rec.number,
    )
    return ledger.entries[-1]


def settle_series(
    ledger: Ledger,
    channel: str,
    accounts: list[str | None],
    names: list[str],
    series: Series,
    opts: TableOptions,
) -> LedgerEntry:
    """Settle the finished ``series`` in chips; the ledger's new entry."""
    ledger.settle_series(
        channel,
        accounts,
        names,
        series.totals,
        stake=opts.stake,
        rate=opts.commission_rate,
        series=series.number,
    )
    return ledger.entries[-1]


def settlement_note(entry: LedgerEntry) -> Note:
    st: Settlement = entry.settlement
    seats = [s for s in range(len(st.net)) if entry.accounts[s] is not None]
    shown = chip_numbers([st.net[s] for s in seats])
    amounts = [Labelled(entry.names[s], x) for s, x in zip(seats, shown, strict=True)]
    params: dict[str, Any] = {"chips": amounts, "unit": chip_numbers([st.unit], signed=False)[0]}
    key = "settlement_" + st.kind
    if st.commission > 0:
        params["commission"] = chip_numbers([st.commission], signed=False)[0]
        key += "_commission"
    return Note(ALL, key, params)


def chips_lines(
    ledger: Ledger, channel: str, names: Sequence[str], accounts: Sequence[str | None], lang: str
) -> list[str]:
    """The chip lines of the score list: this table's result and the balances of the seats
    with an account (``accounts`` by seat)."""
    here = ledger.channel_totals(channel)
    seats = [s for s in range(len(accounts)) if accounts[s] is not None]
    held = [a for a in (accounts[s] for s in seats) if a is not None]
    here_all = chip_numbers([here.get(a, Decimal(0)) for a in held])
    balance_all = chip_numbers([ledger.balance(a) for a in held])
    rows_here = [Labelled(names[s], x) for s, x in zip(seats, here_all, strict=True)]
    rows_all = [Labelled(names[s], x) for s, x in zip(seats, balance_all, strict=True)]
    return [
        render(lang, "score.chips_table", {"chips": rows_here}),
        render(lang, "score.chips_server", {"chips": rows_all}),
    ]


def ledger_note(ledger: Ledger, top: int = 20) -> Note:
    """The chip balances of the ledger (a ``/ledger`` command)."""
    standings = ledger.standings()[:top]
    if not standings:
        return Note(ALL, "ledger_empty")
    amounts = chip_numbers([balance for _, _, balance in standings])
    rows = tuple(Labelled(name, x) for (_, name, _), x in zip(standings, amounts, strict=True))
    house = chip_numbers([ledger.house], signed=False)[0]
    return Note(ALL, "ledger_list", {"rows": Standings(rows), "house": house})
