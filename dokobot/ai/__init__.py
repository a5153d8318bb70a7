"""Computer players: random, chaos, heuristic (easy / normal) and search (strong).

They see only an :class:`~dokobot.engine.Observation`; :func:`make_player` builds them.
"""

from .base import LEVELS, ComputerPlayer, Restrictions, make_player
from .legal import legal_actions, legal_calls

__all__ = [
    "LEVELS",
    "ComputerPlayer",
    "Restrictions",
    "legal_actions",
    "legal_calls",
    "make_player",
]
