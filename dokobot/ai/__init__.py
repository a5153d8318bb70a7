"""Computer players: random, chaos, heuristic (easy / normal) and search (strong).

They see only an :class:`~dokobot.engine.Observation`; :func:`make_player` builds them.
"""

from .base import ComputerPlayer, Restrictions
from .legal import legal_actions, legal_calls
from .levels import LEVELS, make_player

__all__ = [
    "LEVELS",
    "ComputerPlayer",
    "Restrictions",
    "legal_actions",
    "legal_calls",
    "make_player",
]
