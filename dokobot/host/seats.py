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
    given_away: int | None = None
    """The series in which the table voted this seat away from the person it stands in
    for (:mod:`~dokobot.host.absence`): they cannot take it back in that series."""
    heir: tuple[str, str] | None = None
    """The waiting person (user id, name) a vote gave this seat to, from the next deal on."""

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
    bots = [i for i, s in enumerate(seats) if s.is_bot and s.heir is None]
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


PLAYERS = 4
"""The players of every game: the engine plays a game of four (RULES §2)."""


def sitting_out(seats: int, dealer: int) -> tuple[int, ...]:
    """The seats (in join order, the table's ring) that sit out the game ``dealer`` deals at
    a table of ``seats`` (RULES §12.9): nobody at four, the dealer at five, the dealer and
    the player opposite him (the third to his left) at six.

    >>> sitting_out(4, 2), sitting_out(5, 2), sitting_out(6, 4)
    ((), (2,), (4, 1))
    """
    if seats <= PLAYERS:
        return ()
    if seats == PLAYERS + 1:
        return (dealer,)
    return (dealer, (dealer + 3) % seats)


def arrangement(seats: int, dealer: int) -> tuple[tuple[int, ...], int]:
    """How a table of ``seats`` sits for the game ``dealer`` (a seat of the ring) deals:
    (the ring's seats in the order the table holds them for this game, the engine's dealer).

    The four who play come first, in ring order, so the engine's seats 0-3 are theirs and
    play runs clockwise; those who sit out follow. The engine's dealer is the player before
    first hand (the first player to the dealer's left), so the engine's first hand is his;
    at four seats nothing moves.

    >>> arrangement(4, 1)
    ((0, 1, 2, 3), 1)
    >>> arrangement(5, 2)  # 3 is first hand: the engine deals from 1, the seat before him
    ((0, 1, 3, 4, 2), 1)
    >>> arrangement(6, 0)  # 0 and 3 sit out; 1 is first hand
    ((1, 2, 4, 5, 0, 3), 3)
    """
    out = sitting_out(seats, dealer)
    playing = [s for s in range(seats) if s not in out]
    if not out:
        return tuple(playing), dealer
    first = next((dealer + k) % seats for k in range(1, seats) if (dealer + k) % seats not in out)
    return (*playing, *out), (playing.index(first) - 1) % PLAYERS
