"""The rules of Doppelkopf (RULES.md), with no I/O: cards, the game, scoring, observations.

>>> from dokobot.engine import Game, DEFAULT_RULES, HEALTHY, Phase
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=1)
>>> g.play(0, HEALTHY)
>>> g.turn
1
"""

from .cards import Card, Mask, card_ascii, card_str, cards_of, mask_of, points
from .errors import IllegalAction, NotationError, RuleError
from .game import Game, Trick, hands_from_kinds, shuffled_deck
from .notation import parse_card, parse_cards, parse_kind
from .observation import Observation, observe
from .rules import DEFAULT_RULES, TOURNAMENT_RULES, Rules
from .scoring import Component, Result, score
from .types import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_NO30,
    CALL_NO60,
    CALL_NO90,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    Call,
    GameType,
    Party,
    Phase,
    Seat,
    Solo,
    action_name,
    call_level,
    is_call,
    is_card,
)

__all__ = [
    "CALL_BLACK",
    "CALL_KONTRA",
    "CALL_NO30",
    "CALL_NO60",
    "CALL_NO90",
    "CALL_RE",
    "DECLARE_SOLO",
    "DECLARE_WEDDING",
    "DEFAULT_RULES",
    "HEALTHY",
    "RESERVATION",
    "TOURNAMENT_RULES",
    "Action",
    "Call",
    "Card",
    "Component",
    "Game",
    "GameType",
    "IllegalAction",
    "Mask",
    "NotationError",
    "Observation",
    "Party",
    "Phase",
    "Result",
    "RuleError",
    "Rules",
    "Seat",
    "Solo",
    "Trick",
    "action_name",
    "call_level",
    "card_ascii",
    "card_str",
    "cards_of",
    "hands_from_kinds",
    "is_call",
    "is_card",
    "mask_of",
    "observe",
    "parse_card",
    "parse_cards",
    "parse_kind",
    "points",
    "score",
    "shuffled_deck",
]
