"""The table's policy for absent people, and how often a computer player had to move for
each person (reliability).

After a computer player stood in for a person (the person timed out and the stand-in
moves until they act, or they left during a game), the others seated may vote with
``/handover NAME [WAITER]`` to give NAME's seat to a computer player for the rest of the
series, or to a person waiting for a seat. A majority of the other people seated carries it
(computer players do not vote; with three others, two). The absent person acting before it
carries ends the vote (:func:`back`); once it carried, nothing they do takes the seat back
before the series ends. A waiting person named by a vote that carries during a game takes
the seat at the next deal (the computer player plays the rest of the game); a tournament
table gives a seat to a computer player only (a tournament's ranking is of the people who
began the series).

Every step is a journal record: the votes are the voters' ``cmd`` records, the waiting
person a vote names is written as a ``waiting`` record before it (a waiting list is not
journaled during a game), the person's return (any input of theirs at the table, a slow
command's too, which ends a vote) as a ``back`` record; so a restore gives the same seats.

:class:`TurnCount` counts each seat's turns in the running game and the ones a computer
player made for the seat's person; a finished game's record carries them to the statistics
(``/stats``: the share of turns a computer played for a person).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..names import name_key
from .bots import Bot
from .journal import Record, cmd
from .modes import series_length
from .notes import ALL, Note, Refusal
from .options import TableOptions
from .seats import SeatInfo, check_name_free
from .series import Series

__all__ = ["Handover", "SeatVote", "TurnCount", "absent_seat", "back", "handover", "may_reclaim"]

VERB = "/handover"
"""How the journal writes the command (its English name)."""


@dataclass(frozen=True, slots=True)
class SeatVote:
    """An open vote to give the seat of an absent person away."""

    person: str
    """The user id of the absent person."""
    name: str
    """The name of the seat when the vote began."""
    heir: tuple[str, str] | None
    """The waiting person (user id, name) who would get the seat; None: a computer player."""
    voters: frozenset[str]
    """The user ids of the people who voted for it."""


@dataclass(frozen=True, slots=True)
class TurnCount:
    """Per seat: the turns of the running game, and those a computer player made for the
    seat (every action a seat takes on its turn counts, calls do not).

    >>> TurnCount.fresh(4).add(1, computer=False).add(1, computer=True).stood_in
    (0, 1, 0, 0)
    """

    turns: tuple[int, ...] = ()
    stood_in: tuple[int, ...] = ()

    @classmethod
    def fresh(cls, seats: int) -> TurnCount:
        return cls((0,) * seats, (0,) * seats)

    def add(self, seat: int, *, computer: bool) -> TurnCount:
        if seat >= len(self.turns):
            return self
        turns = list(self.turns)
        turns[seat] += 1
        if not computer:
            return TurnCount(tuple(turns), self.stood_in)
        stood = list(self.stood_in)
        stood[seat] += 1
        return TurnCount(tuple(turns), tuple(stood))

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """``(turns, stood-in turns)`` per seat."""
        return tuple(zip(self.turns, self.stood_in, strict=True))


@dataclass(frozen=True, slots=True)
class Handover:
    """What a ``/handover`` vote did: the channel's notes, and private messages to people
    who are not seated (the absent person, the waiting person): ``(user, key, params)``."""

    notes: list[Note]
    told: list[tuple[str, str, dict[str, Any]]]
    seated: tuple[str, ...] = ()
    """People who took a seat by it (the router knows them at this table from now on)."""
    unseated: tuple[str, ...] = ()
    """People who lost their seat by it."""


class SeatedTable(Protocol):
    """What a vote reads and changes of a :class:`~dokobot.host.table.Table` (which holds
    this module's state, so the module does not import it)."""

    seats: list[SeatInfo]
    options: TableOptions
    owner: str | None
    series: Series
    bots: dict[int, Bot]
    away: set[int]
    waiting: list[tuple[str, str]]
    seat_vote: SeatVote | None

    @property
    def running(self) -> bool: ...

    def _log(self, record: Record | str) -> None: ...


def absent_seat(table: SeatedTable, person: str) -> int | None:
    """The seat of ``person`` if a computer player stands in for them there (they timed
    out, or left during a game and the seat is kept for them), and the table has not given
    it away already."""
    for i, s in enumerate(table.seats):
        if s.user == person and i in table.away and not s.is_bot:
            return i
        if s.is_bot and s.standin_for == person and not given_away(table, i):
            return i
    return None


def given_away(table: SeatedTable, seat: int) -> bool:
    """Whether the table gave ``seat`` away from its person by a vote, in this series."""
    info = table.seats[seat]
    return info.given_away is not None and info.given_away == table.series.number


def may_reclaim(table: SeatedTable, seat: int, user: str) -> None:
    """Refuse ``user`` taking back ``seat`` if the table gave it away from them in this
    series (a series that is over lets them back at the next one)."""
    info = table.seats[seat]
    if info.standin_for != user or not given_away(table, seat):
        return
    if table.series.is_over(series_length(table.options)):
        return
    raise Refusal("handover.seat_given", player=info.name)


def _split(table: SeatedTable, args: list[str]) -> tuple[int, str, str]:
    """(the seat named first, its name, the rest of the words) of ``/handover``'s
    arguments: the seat's name may have several words (the longest that names a seat)."""
    for k in range(len(args), 0, -1):
        key = name_key(" ".join(args[:k]))
        for i, s in enumerate(table.seats):
            if name_key(s.name) == key:
                return i, s.name, " ".join(args[k:])
    raise Refusal("handover.no_player", player=" ".join(args[:1]))


def _current(table: SeatedTable) -> SeatVote | None:
    """The open vote, if its absent person is still absent (else it ended)."""
    vote = table.seat_vote
    if vote is not None and absent_seat(table, vote.person) is None:
        table.seat_vote = vote = None
    return vote


def handover(table: SeatedTable, voter: int, args: list[str]) -> Handover:
    """The person in seat ``voter`` votes to give the seat named in ``args`` (a seat's
    name, then optionally a waiting person's name) away. Refuses without changing anything
    when the vote is not possible."""
    if not args:
        raise Refusal("handover.usage")
    seat, name, rest = _split(table, args)
    info = table.seats[seat]
    person = info.standin_for if info.is_bot else info.user
    if person is None or absent_seat(table, person) != seat:
        raise Refusal("handover.not_absent", player=name)
    me = table.seats[voter]
    heir: tuple[str, str] | None = None
    if rest:
        if table.options.tournament or table.options.mode == "duel":
            raise Refusal("handover.computer_only")
        key = name_key(rest)
        found = [w for w in table.waiting if name_key(w[1]) == key]
        if not found:
            vote = table.seat_vote
            if vote is not None and vote.heir is not None and name_key(vote.heir[1]) == key:
                found = [vote.heir]
            else:
                raise Refusal("handover.not_waiting", player=rest)
        heir = found[0]
        check_name_free(table.seats, heir[1], seat)
    vote = _current(table)
    if vote is not None and (vote.person != person or vote.heir != heir):
        raise Refusal("handover.other_vote", player=vote.name)
    if vote is not None and me.user in vote.voters:
        raise Refusal("handover.voted_already", **_count(table, vote, seat))
    text = f"{VERB} {name}" + (f" {heir[1]}" if heir else "")
    if vote is None:
        vote = SeatVote(person, name, heir, frozenset())
        if heir is not None:  # the waiting list is not journaled during a game: this place is
            table._log(Record("waiting", user=heir[0], name=heir[1]))
    vote = SeatVote(vote.person, vote.name, vote.heir, vote.voters | {me.user})
    table.seat_vote = vote
    table._log(cmd(me.user, me.name, voter, text))
    count = _count(table, vote, seat)
    if count["votes"] < count["need"]:
        key, to = ("handover.vote", {}) if heir is None else ("handover.vote_to", {"to": heir[1]})
        return Handover([Note(ALL, key, {"player": me.name, "absent": name, **to, **count})], [])
    return _carry(table, seat, vote)


def _count(table: SeatedTable, vote: SeatVote, seat: int) -> dict[str, int]:
    """The votes of the people seated now (but the absent one) and the majority needed."""
    people = {s.user for i, s in enumerate(table.seats) if not s.is_bot and i != seat}
    return {"votes": len(vote.voters & people), "need": len(people) // 2 + 1}


def _carry(table: SeatedTable, seat: int, vote: SeatVote) -> Handover:
    """The vote carried: the seat is the computer player's for the rest of the series, or
    (between games; during one: from the next deal) the waiting person's."""
    table.seat_vote = None
    info = table.seats[seat]
    name = info.name
    unseated: tuple[str, ...] = ()
    if not info.is_bot:  # timed out: the stand-in keeps the seat
        unseated = (info.user,)
        info.standin_for = info.user
        info.user = f"bot:{info.name}"
        info.bot = table.options.bot_level
        table.away.discard(seat)
        table.bots.pop(seat, None)
    info.given_away = table.series.number
    notes: list[Note] = []
    told: list[tuple[str, str, dict[str, Any]]] = []
    seated: tuple[str, ...] = ()
    heir = vote.heir
    if heir is None:
        notes.append(Note(ALL, "handover.carried", {"player": name}))
        told.append((vote.person, "handover.you_lost", {"player": name}))
    else:
        table.waiting = [w for w in table.waiting if w[0] != heir[0]]
        info.heir = heir
        told.append((vote.person, "handover.you_lost_to", {"player": name, "to": heir[1]}))
        if table.running:
            notes.append(Note(ALL, "handover.carried_next", {"player": name, "to": heir[1]}))
            told.append((heir[0], "handover.you_get_next", {"player": name}))
        else:
            notes.append(Note(ALL, "handover.carried_to", {"player": name, "to": heir[1]}))
            told.append((heir[0], "handover.you_get", {"player": name}))
            seated = seat_heirs(table)
    if table.owner == vote.person:
        humans = [s for s in table.seats if not s.is_bot]
        table.owner = humans[0].user if humans else None
        if humans:
            notes.append(Note(ALL, "new_owner", {"player": humans[0].name}))
    return Handover(notes, told, seated, unseated)


def seat_heirs(table: SeatedTable) -> tuple[str, ...]:
    """Between games: the waiting people whom a vote gave a seat take it (their user ids)."""
    out: list[str] = []
    for i, s in enumerate(table.seats):
        if s.heir is None:
            continue
        user, name = s.heir
        try:
            check_name_free(table.seats, name, i)
        except Refusal:
            name = f"{name} ({i + 1})"
        table.seats[i] = SeatInfo(user, name)
        table.bots.pop(i, None)
        out.append(user)
    return tuple(out)


def back(table: SeatedTable, seat: int) -> list[Note]:
    """The person in ``seat`` acted again after a timeout: a vote on their seat ends (the
    table journals the return as ``back``, so that a restore ends it at the same point)."""
    vote = table.seat_vote
    info = table.seats[seat]
    if vote is None or vote.person != info.user:
        return []
    table.seat_vote = None
    return [Note(ALL, "handover.ended_back", {"player": info.name})]
