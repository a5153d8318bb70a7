"""Who sits at a table: a person joins (or waits for a seat while a game runs), a computer
player joins, a person leaves (a stand-in keeps their seat during a game) or takes a
computer player's seat, a seat's name changes.

Functions of a :class:`JoiningTable`, the part of a :class:`~dokobot.host.table.Table` they
read and change (the table holds the state; this module does not import it). Each change is
journaled as the command that made it.
"""

from __future__ import annotations

from typing import Protocol

from . import absence
from .absence import SeatedTable
from .i18n import OptionValue
from .journal import Record, cmd
from .notes import ALL, READY, Note, Refusal
from .seats import PLAYERS, SeatInfo, bot_name, check_name_free, replaced_key, seat_to_replace
from .watching import Watch

__all__ = ["JoiningTable", "join", "join_bot", "leave", "rename", "replace"]


class JoiningTable(SeatedTable, Protocol):
    """What joining and leaving read and change of a :class:`~dokobot.host.table.Table`:
    what a seat vote does, and more."""

    watches: list[Watch]
    bot_counter: int

    def seat_of(self, user: str) -> int | None: ...

    def _unhold(self) -> None: ...


def join(table: JoiningTable, user: str, name: str) -> list[Note]:
    if table.seat_of(user) is not None:
        raise Refusal("already_seated")
    if any(w.user == user for w in table.watches):
        if table.running:  # RULES §13: no seat for a watcher until the game ends
            raise Refusal("watch_no_join")
        table.watches = [w for w in table.watches if w.user != user]
    table._unhold()
    if len(table.seats) >= table.options.seats:
        if table.running:  # one place per person, kept in memory only: no record
            if any(w[0] == user for w in table.waiting):
                raise Refusal("already_waiting")
            table.waiting.append((user, name))
            return [Note(ALL, "waiting_for_seat", {"player": name})]
        kept = [i for i, s in enumerate(table.seats) if s.standin_for == user]
        if not table.running and kept:
            absence.may_reclaim(table, kept[0], user)
            return replace(table, user, name, None)  # back to the seat kept for them
        if any(s.is_bot for s in table.seats) and not table.running:
            raise Refusal("table_full_replace")
        raise _full(table)
    check_name_free(table.seats, name)
    table.seats.append(SeatInfo(user, name))
    if table.owner is None:
        table.owner = user
    table._log(cmd(user, name, len(table.seats) - 1, "/join"))
    of = table.options.seats
    notes = [Note(ALL, "joined", {"player": name, "n": len(table.seats), "of": of})]
    if len(table.seats) == of:
        notes.append(Note(ALL, "table_complete", kind=READY))
    return notes


def _full(table: JoiningTable) -> Refusal:
    """The table is full (four, five or six seats, the option ``seats``)."""
    if table.options.seats > PLAYERS:
        return Refusal("table_full_of", of=table.options.seats)
    return Refusal("table_full")


def rename(table: JoiningTable, seat: int, name: str) -> None:
    """The person in ``seat`` goes by ``name`` now (journaled as ``!rename OLD=NEW``)."""
    old = table.seats[seat].name
    if name == old:
        return
    if not name:
        raise Refusal("name_taken", name=name)
    check_name_free(table.seats, name, seat)
    table.seats[seat].name = name
    table._log(Record("rename", seat=seat, name=name, text=old))


def join_bot(table: JoiningTable, by: str, level: str | None, by_user: str = "") -> list[Note]:
    table._unhold()
    if len(table.seats) >= table.options.seats:
        raise _full(table)
    level = level or table.options.bot_level
    table.bot_counter += 1
    name = bot_name(table.seats, table.bot_counter)
    table.seats.append(SeatInfo(f"bot:{name}", name, bot=level))
    table._log(cmd(by_user, by, table.seat_of(by_user), f"/join bot {level}"))
    shown = OptionValue(level)
    of = table.options.seats
    params = {"player": name, "level": shown, "n": len(table.seats), "of": of}
    notes = [Note(ALL, "bot_joined", params)]
    if len(table.seats) == of:
        notes.append(Note(ALL, "table_complete", kind=READY))
    return notes


def leave(table: JoiningTable, user: str) -> list[Note]:
    table._unhold()
    seat = table.seat_of(user)
    waiting = [w for w in table.waiting if w[0] == user]
    if seat is None:
        if waiting:
            table.waiting.remove(waiting[0])
            return [Note(ALL, "left", {"player": waiting[0][1]})]
        raise Refusal("not_seated")
    info = table.seats[seat]
    if table.running and not table.options.standin:
        raise Refusal("leave_during_game")
    table._log(cmd(user, info.name, seat, "/leave"))
    if table.running:
        info.standin_for = info.user
        info.bot = table.options.bot_level
        info.user = f"bot:{info.name}"
        table.bots.pop(seat, None)
        notes = [Note(ALL, "left_standin", {"player": info.name})]
    else:
        del table.seats[seat]
        notes = [Note(ALL, "left", {"player": info.name})]
    if table.owner == user:
        humans = [s for s in table.seats if not s.is_bot]
        table.owner = humans[0].user if humans else None
        if humans:
            notes.append(Note(ALL, "new_owner", {"player": humans[0].name}))
    return notes


def replace(table: JoiningTable, user: str, name: str, target: str | None) -> list[Note]:
    """A waiting person takes a computer player's seat, between games."""
    if table.running:
        raise Refusal("only_between_games")
    if table.seat_of(user) is not None:
        raise Refusal("already_seated")
    table._unhold()
    seat = seat_to_replace(table.seats, user, target)
    absence.may_reclaim(table, seat, user)
    info = table.seats[seat]
    old = info.name
    check_name_free(table.seats, name, seat)
    table.seats[seat] = SeatInfo(user, name)
    if table.owner is None:
        table.owner = user
    table.bots.pop(seat, None)
    table.waiting = [w for w in table.waiting if w[0] != user]
    table._log(cmd(user, name, seat, f"/replace {old}"))
    return [Note(ALL, replaced_key(info, user), {"player": name, "old": old})]
