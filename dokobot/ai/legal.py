"""Legal actions computed from an :class:`Observation` alone (computer players never see a Game).

>>> from dokobot.engine import DEFAULT_RULES, Game, HEALTHY, observe
>>> g = Game.deal(DEFAULT_RULES, dealer=3, seed=5)
>>> legal_actions(observe(g, 0)) == g.legal_actions()
True
"""

from __future__ import annotations

import random

from dokobot.engine import (
    CALL_BLACK,
    CALL_KONTRA,
    CALL_RE,
    HEALTHY,
    RESERVATION,
    Action,
    Card,
    Mask,
    Observation,
    Party,
    Phase,
    call_level,
)
from dokobot.engine.cards import distinct_cards
from dokobot.engine.game import declaration_actions, exchange_actions
from dokobot.engine.order import Scheme

__all__ = [
    "cards_in",
    "decision_rng",
    "legal_actions",
    "legal_calls",
    "legal_cards",
    "my_party",
    "obs_scheme",
]


def obs_scheme(obs: Observation) -> Scheme:
    """The trump order of the game being played as the player knows it (the engine's
    answer; the normal order before the card play)."""
    return obs.scheme


def cards_in(mask: Mask) -> list[Card]:
    """The cards of a mask, lowest id first (both copies listed)."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def legal_cards(obs: Observation) -> Mask:
    """Mask of the cards the observing player may play now (0 if it is not his card turn)."""
    if obs.phase is not Phase.PLAYING or obs.turn != obs.seat:
        return 0
    if not obs.trick:
        return obs.hand
    scheme = obs_scheme(obs)
    follow = obs.hand & scheme.class_mask[scheme.cls[obs.trick[0]]]
    return follow or obs.hand


def legal_actions(obs: Observation) -> list[Action]:
    """The turn actions of the observing player, as :meth:`Game.legal_actions` lists them
    (one copy of each card kind). Empty if it is not his turn."""
    if obs.turn != obs.seat:
        return []
    if obs.phase is Phase.PLAYING:
        return distinct_cards(legal_cards(obs))
    if obs.phase is Phase.RESERVATIONS:
        return [HEALTHY, RESERVATION]
    if obs.phase is Phase.DECLARATIONS:
        return declaration_actions(obs.rules, obs.hand, obs.forced >= 0)
    if obs.phase is Phase.EXCHANGE and obs.exchange is not None:
        return exchange_actions(obs.exchange, obs.seat, obs.hand)
    return []


def my_party(obs: Observation) -> Party | None:
    """The observing player's party, if the card play has started and it is settled."""
    return obs.parties[obs.seat]


def legal_calls(obs: Observation) -> list[Action]:
    """The announcements the observing player may make now (mirrors ``Game.call_problem``)."""
    if obs.phase is not Phase.PLAYING or obs.wedding_open:
        return []
    party = my_party(obs)
    if party is None:
        return []
    if obs.closed[party]:
        return []
    own = obs.level[party]
    opp = obs.level[1 - party]
    held = obs.hand.bit_count()
    need = obs.rules.call_deadline(own + 1, obs.shift)
    out: list[Action] = []
    for action in range(CALL_RE, CALL_BLACK + 1):
        if action == CALL_RE and party is not Party.RE:
            continue
        if action == CALL_KONTRA and party is not Party.KONTRA:
            continue
        target = call_level(action)
        if target <= own:
            continue
        if held >= need or (
            target == 1 and opp >= 1 and held >= obs.rules.call_deadline(opp, obs.shift) - 1
        ):
            out.append(action)
    return out


def decision_rng(seed: int, obs: Observation, purpose: str) -> random.Random:
    """A generator fixed by the player's seed and what the player has seen.

    The same seed and observation always give the same stream (string seeds are hashed
    with SHA-512 by :class:`random.Random`, independent of ``PYTHONHASHSEED``), so a player
    needs no mutable state and replays exactly.
    """
    history = ",".join(f"{leader}:{cards}" for leader, cards, _ in obs.tricks)
    key = (
        f"{seed}|{purpose}|{obs.seat}|{obs.dealer}|{int(obs.phase)}|{obs.hand}|{obs.reserved}|"
        f"{obs.declarer}|{obs.solo}|{history}|{obs.trick}|{obs.calls}"
    )
    return random.Random(key)
