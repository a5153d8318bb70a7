"""A change of a table's option (``/option NAME VALUE``): between games only, except the
language (a few times a game); a change of the mode or the tournament option, or a
tournament's series length that the series has passed, starts a new series.

Functions of an :class:`OptionTable`, the part of a :class:`~dokobot.host.table.Table` they
read and change (the table holds the state; this module does not import it).
"""

from __future__ import annotations

from typing import Final, Protocol

from .bots import Bot
from .i18n import OptionName, OptionValue
from .journal import Record, cmd
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .seats import SeatInfo
from .series import Series

__all__ = ["LANGUAGE_CHANGES_PER_GAME", "OptionTable", "new_series", "set_option"]

LANGUAGE_CHANGES_PER_GAME: Final = 4
"""How often the table's language may change during one game."""


class OptionTable(Protocol):
    """What an option change reads and changes of a :class:`~dokobot.host.table.Table`."""

    seats: list[SeatInfo]
    options: TableOptions
    series: Series
    bots: dict[int, Bot]
    language_changes: int

    @property
    def running(self) -> bool: ...

    def seat_of(self, user: str) -> int | None: ...

    def _unhold(self) -> None: ...

    def _log(self, record: Record | str) -> None: ...


def set_option(table: OptionTable, name: str, raw: str, by: str, by_user: str = "") -> list[Note]:
    clean = TableOptions.canonical(name)
    # The language changes no rule: it may change during a game, a few times (each
    # change is a journal record, and a game's journal stays bounded).
    if table.running and clean != "language":
        raise Refusal("only_between_games")
    if table.running and table.language_changes >= LANGUAGE_CHANGES_PER_GAME:
        raise Refusal("language_changes_spent", n=LANGUAGE_CHANGES_PER_GAME)
    old = table.options
    new = table.options.set(name, raw)
    if new == old:  # changes nothing: no record, so repeating it cannot grow the journal
        raise Refusal(
            "option_unchanged", name=OptionName(clean), value=OptionValue(old.show(clean))
        )
    if new.seats < len(table.seats):
        raise Refusal("seats_taken", n=len(table.seats), seats=new.seats)
    table._unhold()
    if table.running:
        table.language_changes += 1
    table.options = new
    table._log(cmd(by_user, by, table.seat_of(by_user), f"/option {clean} {raw.strip()}"))
    shown = OptionValue(table.options.show(clean))
    notes = [Note(ALL, "option_set", {"name": OptionName(clean), "value": shown})]
    if clean == "mode":
        table.bots.clear()  # computer players are made with or without duel limits
    if clean == "tournament" or (clean == "mode" and old.mode != table.options.mode):
        notes += new_series(table)
    elif clean == "series_length" and table.options.tournament:
        left = table.series.games_left(table.options.series_length)
        if table.series.counted >= table.options.series_length or sum(table.series.owed) > left:
            notes += new_series(table)
    return notes


def new_series(table: OptionTable) -> list[Note]:
    """Start a new series now (a started one is closed as it is)."""
    if not table.series.games:
        table.series = Series(number=table.series.number)
        return []
    table.series = Series(number=table.series.number + 1)
    return [Note(ALL, "series_new", {"n": table.series.number})]
