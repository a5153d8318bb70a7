"""Static rule settings of a game (the rule options of RULES §11 that touch play)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rules:
    """Rule variant of one game. Immutable, shared by every state of the game.

    ``tournament``: precedence mandatory solo > lust solo > wedding, mandatory solos lead.
    ``lust_solo_leads``: a lust solo's soloist leads trick 1 (off: first hand leads).
    ``second_heart10_wins``: of two ♥10 in a trick the second wins.
    """

    tournament: bool = False
    lust_solo_leads: bool = False
    second_heart10_wins: bool = False


DEFAULT_RULES = Rules()
TOURNAMENT_RULES = Rules(tournament=True)
