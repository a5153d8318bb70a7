"""Folding: seat and option changes between games do not grow a table's journal without
bound.

Between games people join, leave, take a computer player's seat and change options; each
accepted command is a journal record. When more than :data:`FOLD_AFTER` such records follow
one another at the end of a journal, the service replaces them by one ``state`` record (the
seats, owner, options, waiting list and computer player counter they led to) and writes a
checkpoint after it, in one store transaction. The ``state`` record is the ``!table`` line of
the replay format, so a restore without the checkpoint and an export both still give exactly
the table the commands made.

>>> from dokobot.host.table import Table
>>> t = Table(channel="c")
>>> _ = t.join("u1", "anna"); _ = t.join_bot("anna", "easy", "u1")
>>> rec = state_record(t)
>>> u = Table(channel="c")
>>> _ = apply_state(u, rec.text)
>>> u.names(), u.owner, u.bot_counter
(['anna', 'Bot1'], 'u1', 1)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from .journal import Record
from .options import TableOptions
from .seats import SeatInfo
from .series import Series
from .table import Table

FOLD_AFTER: Final = 64
"""Between-games records at the end of a journal that are folded into one."""

FOLDABLE: Final = frozenset({"/join", "/leave", "/option", "/replace"})
"""Commands whose records, accepted between games, are folded. They change only what a
``state`` record holds."""


def foldable(records: Sequence[Record], table: Table) -> bool:
    """Whether ``records`` (just accepted at ``table``) are between-games changes that a
    ``state`` record can stand for."""
    if table.running or not records:
        return False
    return all(r.kind == "state" or (r.kind == "cmd" and _verb(r.text) in FOLDABLE)
               for r in records)  # fmt: skip


def _verb(text: str) -> str:
    words = text.split()
    return words[0] if words else ""


def state_record(table: Table) -> Record:
    """The ``state`` record of ``table`` between games (no hands: nothing is dealt)."""
    series = table.series
    data: dict[str, Any] = {
        "seats": [_seat(s) for s in table.ring()],
        "owner": table.owner,
        "options": table.options.as_dict(),
        "waiting": [list(w) for w in table.waiting],
        "bot_counter": table.bot_counter,
        "series": series.number,
        "fresh": series == Series(number=series.number),
    }
    return Record("state", text=json.dumps(data, separators=(",", ":")))  # one line, ASCII


def apply_state(table: Table, text: str) -> list[str]:
    """Set what a ``state`` record holds (``text``, its JSON); the people who sat or waited
    at the table before it and not after it (their user ids). ``ValueError`` if it is not
    a state this table can take."""
    if table.running:
        raise ValueError("a table state is set between games only")
    try:
        data = json.loads(text)
        seats = [_seat_of(list(x)) for x in data["seats"]]
        options = TableOptions.from_dict(dict(data["options"]))
        waiting = [(str(u), str(n)) for u, n in data["waiting"]]
        owner = _text(data["owner"])
        counter = int(data["bot_counter"])
        number, fresh = int(data["series"]), bool(data["fresh"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a table state: {exc}") from exc
    if len(seats) > options.seats:
        raise ValueError(f"more than {options.seats} seats")
    before = {s.user for s in table.seats if not s.is_bot} | {u for u, _ in table.waiting}
    table.seats = seats
    table.order = ()
    table.owner = owner
    table.options = options
    table.waiting = waiting
    table.bot_counter = counter
    table.bots.clear()
    if fresh:
        if table.series != Series(number=number):
            table.series = Series(number=number)
    elif table.series.number != number:
        raise ValueError(f"the table plays series {table.series.number}, not {number}")
    after = {s.user for s in seats if not s.is_bot} | {u for u, _ in waiting}
    return sorted(before - after)


def _seat(s: SeatInfo) -> list[Any]:
    """A seat as the state record writes it: user, name, level, stand-in for, and (only
    where a vote gave the seat away) the series of the vote and its waiting person."""
    out: list[Any] = [s.user, s.name, s.bot, s.standin_for]
    if s.given_away is not None or s.heir is not None:
        out += [s.given_away, list(s.heir) if s.heir else None]
    return out


def _seat_of(x: list[Any]) -> SeatInfo:
    info = SeatInfo(str(x[0]), str(x[1]), _text(x[2]), _text(x[3]))
    if len(x) > 4:
        info.given_away = None if x[4] is None else int(x[4])
        info.heir = None if x[5] is None else (str(x[5][0]), str(x[5][1]))
    return info


def _text(value: object) -> str | None:
    return None if value is None else str(value)
