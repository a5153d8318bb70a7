"""Names of the things of the game: parties, game types, solos, calls, phases, actions.

Actions are small ints so that search can keep them in arrays:

* ``0..47`` play that card;
* :data:`HEALTHY`, :data:`RESERVATION` in the reservation round;
* :data:`DECLARE_WEDDING` and ``DECLARE_SOLO + solo`` in the declaration round;
* ``CALL_RE .. CALL_BLACK`` announcements (the word a player uses; the engine checks the party);
* the house-rule actions (RULES §12): :data:`DECLARE_POVERTY`, :data:`THROW_IN` in the
  declaration round, :data:`TAKE`, :data:`DECLINE` when a poverty is offered (in the exchange
  the cards given are card actions ``0..47``).

New actions are appended after :data:`CALL_BLACK`; ask :func:`is_call`, :func:`is_solo` and
:data:`N_ACTIONS` rather than comparing with fixed numbers.

>>> action_name(DECLARE_SOLO + Solo.QUEENS), action_name(CALL_NO90), action_name(5)
('solo queens', 'no90', '♣Q')
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from .cards import N_CARDS, card_str

Seat = int
"""A seat, 0..3, in the order the players joined; play runs in seat order."""
Action = int


class Party(IntEnum):
    RE = 0
    KONTRA = 1

    @property
    def other(self) -> Party:
        return Party(1 - self)

    @property
    def key(self) -> str:
        return "re" if self is Party.RE else "kontra"


class Solo(IntEnum):
    """The seven solos. The value indexes the trump scheme."""

    DIAMONDS = 0
    HEARTS = 1
    SPADES = 2
    CLUBS = 3
    QUEENS = 4
    JACKS = 5
    FLESHLESS = 6

    @property
    def key(self) -> str:
        return self.name.lower()

    @classmethod
    def from_key(cls, key: str) -> Solo:
        return cls[key.upper()]


class GameType(IntEnum):
    NORMAL = 0
    WEDDING = 1
    SILENT_WEDDING = 2
    SOLO = 3
    POVERTY = 4

    @property
    def key(self) -> str:
        return self.name.lower()


class Phase(IntEnum):
    RESERVATIONS = 0
    DECLARATIONS = 1
    PLAYING = 2
    FINISHED = 3
    EXCHANGE = 4
    """A poverty's exchange of cards (RULES §12.1), between the declarations and the play."""


class Call(IntEnum):
    """Announcement levels of a party. ``PARTY`` is re or kontra."""

    NONE = 0
    PARTY = 1
    NO90 = 2
    NO60 = 3
    NO30 = 4
    BLACK = 5


HEALTHY: Final = N_CARDS
RESERVATION: Final = 49
DECLARE_WEDDING: Final = 50
DECLARE_SOLO: Final = 51  # + Solo
CALL_RE: Final = 58
CALL_KONTRA: Final = 59
CALL_NO90: Final = 60
CALL_NO60: Final = 61
CALL_NO30: Final = 62
CALL_BLACK: Final = 63
DECLARE_POVERTY: Final = 64
THROW_IN: Final = 65
TAKE: Final = 66
DECLINE: Final = 67
N_ACTIONS: Final = 68
N_SOLOS: Final = len(Solo)

CALL_KEYS: Final = ("re", "kontra", "no90", "no60", "no30", "black")


def is_card(action: Action) -> bool:
    return 0 <= action < HEALTHY


def is_solo(action: Action) -> bool:
    """Whether ``action`` declares a solo."""
    return DECLARE_SOLO <= action < DECLARE_SOLO + N_SOLOS


def is_call(action: Action) -> bool:
    return CALL_RE <= action <= CALL_BLACK


def call_level(action: Action) -> int:
    """The level a call action reaches: re/kontra 1, no90 2 ... black 5."""
    return 1 if action <= CALL_KONTRA else action - CALL_KONTRA + 1


def call_key(action: Action) -> str:
    return CALL_KEYS[action - CALL_RE]


def action_name(action: Action) -> str:
    """A short English name for logs and tests."""
    if is_card(action):
        return card_str(action)
    if action == HEALTHY:
        return "healthy"
    if action == RESERVATION:
        return "reservation"
    if action == DECLARE_WEDDING:
        return "wedding"
    if is_solo(action):
        return "solo " + Solo(action - DECLARE_SOLO).key
    if is_call(action):
        return call_key(action)
    if action in _HOUSE_NAMES:
        return _HOUSE_NAMES[action]
    raise ValueError(f"no such action {action}")


_HOUSE_NAMES: Final = {
    DECLARE_POVERTY: "poverty",
    THROW_IN: "throw",
    TAKE: "take",
    DECLINE: "decline",
}
