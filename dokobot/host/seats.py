"""The seats of a table: who sits where, names that must not look alike, which computer
player a person replaces."""

from __future__ import annotations

from dataclasses import dataclass

from ..names import name_key
from .notes import Refusal


@dataclass(slots=True)
class SeatInfo:
    user: str
    """Stable user id; computer players have ``bot:NAME``."""
    name: str
    bot: str | None = None
    """Computer level if a computer plays this seat (also a stand-in)."""
    standin_for: str | None = None
    """User id of the person a stand-in computer player replaces."""

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


def check_name_free(seats: list[SeatInfo], name: str, seat: int | None = None) -> None:
    """Refuse ``name`` if another seat (not ``seat``) has a name that looks the same."""
    key = name_key(name)
    if any(name_key(s.name) == key for i, s in enumerate(seats) if i != seat):
        raise Refusal("name_taken", name=name)


def bot_name(seats: list[SeatInfo], counter: int) -> str:
    """The name of a new computer player: ``Bot{counter}``, or the next free number."""
    taken = {name_key(s.name) for s in seats}
    n = counter
    while f"bot{n}" in taken:
        n += 1
    return f"Bot{n}"


def seat_to_replace(seats: list[SeatInfo], user: str, target: str | None) -> int:
    """The computer player's seat that ``user`` takes (named ``target``, if given); a seat
    kept for this very person comes first."""
    bots = [i for i, s in enumerate(seats) if s.is_bot]
    if target:
        bots = [i for i in bots if seats[i].name.lower() == target.lower()]
    bots.sort(key=lambda i: seats[i].standin_for != user)
    if not bots:
        raise Refusal("no_bot_to_replace")
    return bots[0]


def replaced_key(info: SeatInfo, user: str) -> str:
    """The message for ``user`` taking the seat of the computer player ``info``."""
    if info.standin_for == user:
        return "replaced_own"
    if info.standin_for is not None:
        return "replaced_standin"
    return "replaced"
