"""Watching (RULES §13, option ``kibitz``): a person who is not seated follows one seated
person's hand.

A watcher receives the hand of the person he watches, privately, each time that person is
shown it (the deal, a new trump order, a poverty's exchange, his turns in the card play)
and when he starts watching;
nothing else of the game reaches him that the channel does not see. The watched person is
told who watches. While a game runs a watcher cannot take a seat at that table.

Watching is not journaled (nothing a person who is not seated types leaves a record, as
with the queue of :attr:`~dokobot.host.table.Table.waiting`): a restart ends it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.types import Phase
from ..names import normalize_name
from .notes import Refusal
from .seats import SeatInfo


@dataclass(frozen=True, slots=True)
class Watch:
    """``user`` (shown as ``name``) watches the person ``watched`` (a user id)."""

    user: str
    name: str
    watched: str


def refusal(
    *,
    kibitz: bool,
    tournament: bool,
    rated: bool,
    watcher_seated: bool,
    target_seat: int | None,
    target_is_bot: bool,
) -> Refusal | None:
    """Why a watch is refused, in the order of RULES §13: the table's rules (``kibitz``
    off, tournament mode, a rated table), the watcher (seated players play, they do not
    watch), the person named (a person seated at this table)."""
    if tournament:
        return Refusal("watch_tournament")
    if not kibitz:
        return Refusal("watch_off")
    if rated:
        return Refusal("watch_rated")
    if watcher_seated:
        return Refusal("watch_seated")
    if target_seat is None or target_is_bot:
        return Refusal("watch_unknown")
    return None


def shows_hand(kind: str, phase: Phase) -> bool:
    """Whether a private note of ``kind`` to the watched person, in ``phase``, goes to his
    watchers as his hand: his hand itself (the deal, a new trump order, a poverty's
    exchange, ``/hand``), and his turn in the card play (the hand as it is then)."""
    return kind == "hand" or (kind == "turn" and phase is Phase.PLAYING)


def watchers_of(watches: list[Watch], user: str) -> list[Watch]:
    """The watches of the person ``user``."""
    return [w for w in watches if w.watched == user]


def without(watches: list[Watch], user: str) -> list[Watch]:
    """``watches`` without the watch of ``user`` (he stops watching)."""
    return [w for w in watches if w.user != user]


def seat_named(seats: list[SeatInfo], name: str) -> int | None:
    """The seat of the person called ``name`` (any case), or None."""
    wanted = normalize_name(name).casefold()
    for i, s in enumerate(seats):
        if s.name.casefold() == wanted:
            return i
    return None
