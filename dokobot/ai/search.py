"""The strong player: UCT over sampled worlds (after Sievers and Helmert, KI 2015).

For a card decision the player deals the unseen cards several times consistently with its
observation (:meth:`Observation.sample_hands`), builds each world as a full game
(:meth:`Observation.world`) and runs UCT in it: every player in the tree picks the action
best for its own party, below the tree the game is played out with random cards
(:meth:`Game.playout`). The reward of a seat is its score plus its party's eyes / 500 (the
eyes break ties). The root values are pooled over the worlds.

Calls are decided inside the search (:class:`CallEval`): every rollout is scored as played
and, with the real scoring, as if the own party had reached each candidate call level (the
next :data:`MAX_CALL_STEP` levels, skips included), over the same sampled worlds and
rollouts. The call with the largest mean gain is made if the gain beats ``call_margin``
points per game (the margin covers the value of waiting for more information). The player
is asked again on each turn, so a call that is not yet worth it may come later.

Reservations: healthy, a wedding and the two solos the heuristic's hand evaluation likes
best (up to ``solo_candidate`` estimated losers) are compared over deals of the unseen cards,
each plan played out many times with the greedy full-information policy of
:func:`~dokobot.ai.rollout.greedy_playout` (random playouts price every solo as if the soloist
could not play); each plan's value includes the gain of its best opening call. A solo must
beat the best other plan by ``solo_margin`` points per game.

With ``greedy=True`` the card search also plays its rollouts with that policy (``eps_self``
and ``eps_others`` are the shares of random cards of the player and of the others).

Determinism: the work per decision is a number of iterations fixed from ``budget_s`` and the
cards left (calibrated for CPython on one core), not the clock, so the same seed and
observation give the same action on any machine; a hard stop guards
against a machine far slower than the calibration
(``1 s + 10 x budget_s``).
"""

from __future__ import annotations

import math
import random
import time
from typing import Final

from dokobot.engine import (
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    Game,
    Mask,
    Observation,
    Phase,
    Solo,
    call_level,
    score,
)
from dokobot.engine.cards import CLUB_QUEENS
from dokobot.engine.order import SCHEMES
from dokobot.engine.scoring import outcome_scores
from dokobot.engine.types import is_solo

from .base import Restrictions
from .heuristic import best_solo, losers, reservation_choice
from .legal import decision_rng, legal_actions, legal_calls
from .rollout import greedy_playout

__all__ = ["SearchPlayer", "SearchStats", "uct_search"]

DEFAULT_BUDGET_S: Final = 0.45
# Seconds per iteration ~ A + B * cards left (CPython 3.11, one core; see bench/ai.py).
# Measured 2026-11 on the shared 2-core machine under load: about 30, 48, 62, 81, 85 us
# at 6, 12, 24, 36, 48 cards left; the line stays a little above that.
_ITER_BASE_S: Final = 30e-6
_ITER_PER_CARD_S: Final = 1.9e-6
EYES_WEIGHT: Final = 1.0 / 500.0
CONTRACT_WORLDS: Final = 24
_GREEDY_PLAYOUT_S: Final = 250e-6
_GREEDY_PER_CARD_S: Final = 4.6e-6
SOLO_LOSERS_CANDIDATE: Final = 5.0
MAX_CALL_STEP: Final = 3
"""Call levels considered above the party's current one (re/kontra + no90 + no60)."""
SOLO_MARGIN: Final = 0.5
"""Points per game a solo must promise above the best normal choice."""


class _Node:
    __slots__ = ("children", "mover", "n", "untried", "w")

    def __init__(self, mover: int, untried: list[int]) -> None:
        self.n = 0
        self.w = 0.0
        self.mover = mover
        self.untried = untried
        self.children: dict[int, _Node] = {}


class SearchStats:
    """Pooled root statistics of one search."""

    __slots__ = ("iterations", "n", "w")

    def __init__(self) -> None:
        self.n: dict[Action, int] = {}
        self.w: dict[Action, float] = {}
        self.iterations = 0

    def best(self) -> Action:
        return max(self.n, key=lambda a: (self.w[a] / max(1, self.n[a]), self.n[a], -a))

    def mean(self, action: Action) -> float:
        return self.w[action] / max(1, self.n[action])


def _rewards(g: Game) -> list[float]:
    """Each seat's reward of the finished ``g``: its score, ties broken by its party's eyes."""
    r = score(g)
    re_eyes, ko_eyes = r.eyes
    re = g.re_seats
    return [r.scores[s] + (re_eyes if re >> s & 1 else ko_eyes) * EYES_WEIGHT for s in range(4)]


_OUTCOMES: dict[tuple[int, ...], tuple[int, int, int, int]] = {}
_OUTCOMES_MAX: Final = 200_000


def _call_scores(g: Game, re_eyes: int, re_won: int, lr: int, lk: int) -> tuple[int, ...]:
    """The seats' scores of ``g``'s outcome with the levels ``lr``, ``lk``, without the
    trick special points, which do not depend on calls (memoized: the function is pure)."""
    key = (g.re_seats, re_eyes, re_won, lr, lk, int(g.game_type))
    hit = _OUTCOMES.get(key)
    if hit is None:
        hit = outcome_scores(
            g.game_type, g.re_seats, re_eyes, re_won, (lr, lk), g.rules.hand_size
        )
        if len(_OUTCOMES) >= _OUTCOMES_MAX:
            _OUTCOMES.clear()
        _OUTCOMES[key] = hit
    return hit


class CallEval:
    """Paired evaluation of calls: for every rollout, the difference between ``me``'s score
    had ``me``'s party reached each call level in ``levels`` and as played (the real
    scoring with the level applied). ``gain[i]`` sums the differences."""

    __slots__ = ("gain", "levels", "n")

    def __init__(self, levels: list[int]) -> None:
        self.levels = levels
        self.gain = [0.0] * len(levels)
        self.n = 0

    def add(self, g: Game, me: int) -> None:
        re = g.re_seats
        eyes = g.eyes
        won = g.won
        re_eyes = sum(eyes[s] for s in range(4) if re >> s & 1)
        re_won = sum(won[s] for s in range(4) if re >> s & 1)
        lr, lk = g.level
        base = _call_scores(g, re_eyes, re_won, lr, lk)[me]
        gain = self.gain
        for i, lv in enumerate(self.levels):
            if re >> me & 1:
                gain[i] += _call_scores(g, re_eyes, re_won, lv, lk)[me] - base
            else:
                gain[i] += _call_scores(g, re_eyes, re_won, lr, lv)[me] - base
        self.n += 1

    def mean(self, i: int) -> float:
        return self.gain[i] / max(1, self.n)


def _uct_world(
    root_game: Game,
    me: int,
    rng: random.Random,
    iterations: int,
    c: float,
    stats: SearchStats,
    calls: CallEval | None = None,
    greedy: tuple[float, float, float, float] | None = None,
) -> float:
    """UCT in one world; adds the root statistics to ``stats`` (and the call gains to
    ``calls``); returns ``me``'s mean reward."""
    root = _Node(root_game.turn, root_game.legal_actions())
    log = math.log
    sqrt = math.sqrt
    total = 0.0
    for _ in range(iterations):
        g = root_game.copy()
        node = root
        path = [node]
        while g.phase is not Phase.FINISHED:
            if node.untried:
                i = int(rng.random() * len(node.untried))
                action = node.untried[i]
                node.untried[i] = node.untried[-1]
                node.untried.pop()
                g.push(node.mover, action)
                child = _Node(g.turn, g.legal_actions() if g.phase is Phase.PLAYING else [])
                node.children[action] = child
                path.append(child)
                break
            logn = log(node.n)
            best_v = -1e18
            best_a = -1
            for a, ch in node.children.items():
                v = ch.w / ch.n + c * sqrt(logn / ch.n)
                if v > best_v:
                    best_v, best_a = v, a
            g.push(node.mover, best_a)
            node = node.children[best_a]
            path.append(node)
        if g.phase is not Phase.FINISHED:
            if greedy:
                greedy_playout(g, rng, greedy)
            else:
                g.playout(rng)
        rewards = _rewards(g)
        total += rewards[me]
        if calls is not None:
            calls.add(g, me)
        root.n += 1
        for k in range(1, len(path)):
            ch = path[k]
            ch.n += 1
            ch.w += rewards[path[k - 1].mover]
        stats.iterations += 1
    if root.mover == me:
        for a, ch in root.children.items():
            stats.n[a] = stats.n.get(a, 0) + ch.n
            stats.w[a] = stats.w.get(a, 0.0) + ch.w
    return total / max(1, iterations)


def uct_search(
    obs: Observation,
    rng: random.Random,
    iterations: int,
    worlds: int,
    c: float,
    deadline: float,
    calls: CallEval | None = None,
    greedy: tuple[float, float, float, float] | None = None,
) -> SearchStats:
    """Ensemble UCT from the observing player's card turn."""
    stats = SearchStats()
    per_world = max(1, iterations // worlds)
    for _ in range(worlds):
        root_game = obs.world(obs.sample_hands(rng))
        _uct_world(root_game, obs.seat, rng, per_world, c, stats, calls, greedy)
        if time.perf_counter() > deadline:
            break
    return stats


def _contract_game(
    obs: Observation, hands: list[Mask], reserve: bool, declaration: Action | None
) -> Game:
    """The game at the start of the card play if the others say healthy and ``obs.seat``
    says ``reserve`` and declares ``declaration``."""
    g = Game.from_hands(
        obs.rules,
        obs.dealer,
        hands,
        mandatory_owed=obs.mandatory_owed,
        forced_soloist=obs.forced if obs.forced >= 0 else None,
    )
    while g.phase is Phase.RESERVATIONS or g.phase is Phase.DECLARATIONS:
        if g.phase is Phase.RESERVATIONS:
            g.push(g.turn, RESERVATION if g.turn == obs.seat and reserve else HEALTHY)
        else:
            g.push(g.turn, DECLARE_SOLO if declaration is None else declaration)
    return g


class SearchPlayer:
    """The ``strong`` level."""

    name = "search"

    def __init__(
        self,
        seed: int,
        restrictions: Restrictions,
        budget_s: float | None = None,
        *,
        worlds: int = 10,
        c: float = 24.0,
        call_share: float = 0.3,
        call_margin: float = 0.25,
        solo_candidate: float = SOLO_LOSERS_CANDIDATE,
        solo_margin: float = SOLO_MARGIN,
        contract_factor: float = 1.0,
        contract_worlds: int = CONTRACT_WORLDS,
        greedy: bool = False,
        eps_self: float = 0.1,
        eps_others: float = 0.1,
    ) -> None:
        self.seed = seed
        self.restrictions = restrictions
        self.budget_s = DEFAULT_BUDGET_S if budget_s is None else budget_s
        self.worlds = worlds
        self.c = c
        self.call_share = call_share
        self.call_margin = call_margin
        self.solo_candidate = solo_candidate
        self.solo_margin = solo_margin
        self.contract_factor = contract_factor
        self.contract_worlds = contract_worlds
        self.greedy = greedy
        self.eps_self = eps_self
        self.eps_others = eps_others

    def _eps(self, me: int) -> tuple[float, float, float, float]:
        e = [self.eps_others] * 4
        e[me] = self.eps_self
        return (e[0], e[1], e[2], e[3])

    def _per_iter(self, cards_left: int) -> float:
        per_card = _ITER_PER_CARD_S + (_GREEDY_PER_CARD_S if self.greedy else 0.0)
        return _ITER_BASE_S + per_card * cards_left

    def _iterations(self, obs: Observation, share: float) -> int:
        cards_left = obs.rules.deck_size - 4 * len(obs.tricks) - len(obs.trick)
        per_iter = self._per_iter(cards_left)
        return max(self.worlds * 20, int(self.budget_s * share / per_iter))

    def _search(
        self, obs: Observation, purpose: str, share: float, calls: CallEval | None = None
    ) -> SearchStats:
        rng = decision_rng(self.seed, obs, purpose)
        deadline = time.perf_counter() + 1.0 + 10 * self.budget_s * share
        return uct_search(
            obs,
            rng,
            self._iterations(obs, share),
            self.worlds,
            self.c,
            deadline,
            calls,
            self._eps(obs.seat) if self.greedy else None,
        )

    def decide(self, obs: Observation) -> Action:
        actions = legal_actions(obs)
        if not actions:
            raise ValueError("it is not this player's turn")
        from .house import house_action, house_plan  # (here: the import block is busy)

        house = house_action(obs)
        if house is not None:
            return house
        if obs.phase is Phase.RESERVATIONS:
            plan = self._contract(obs, with_healthy=True)
            return HEALTHY if plan is None and house_plan(obs) is None else RESERVATION
        if obs.phase is Phase.DECLARATIONS:
            plan = self._contract(obs, with_healthy=False)
            if plan is not None and is_solo(plan) and plan in actions:
                return plan
            hp = house_plan(obs)
            if hp is not None and hp in actions:
                return hp
            if plan is not None and plan in actions:
                return plan
            if DECLARE_WEDDING in actions:
                return DECLARE_WEDDING
            return DECLARE_SOLO + best_solo(obs.hand)[0]
        if len(actions) == 1:
            return actions[0]
        share = 1.0 - self.call_share if self._may_call(obs) else 1.0
        return self._search(obs, "decide", share).best()

    def _contract(self, obs: Observation, *, with_healthy: bool) -> Action | None:
        """The declaration to make (None: say healthy), chosen by greedy playouts over
        sampled deals among: healthy, a wedding (both ♣Q) and the two solos the hand evaluation
        likes best. A solo must beat the best other choice by :data:`SOLO_MARGIN`."""
        hand = obs.hand
        forced = obs.forced == obs.seat
        plans: list[Action | None] = []
        if with_healthy and not forced:
            plans.append(None)
        if hand & CLUB_QUEENS == CLUB_QUEENS and not forced:
            plans.append(DECLARE_WEDDING)
        if forced or not self.restrictions.no_solo:
            ranked = sorted(Solo, key=lambda solo: losers(hand, SCHEMES[int(solo)]))
            limit = 99.0 if forced else self.solo_candidate
            plans += [
                DECLARE_SOLO + solo for solo in ranked[:2] if losers(hand, SCHEMES[solo]) <= limit
            ]
        if not plans:
            return reservation_choice(hand, self.restrictions)[1]
        if len(plans) == 1:
            return plans[0]
        rng = random.Random(f"{self.seed}|contract|{obs.seat}|{obs.dealer}|{hand}|{forced}")
        budget = self.budget_s * self.contract_factor
        playouts = max(1, int(budget / _GREEDY_PLAYOUT_S) // (len(plans) * self.contract_worlds))
        values = [0.0] * len(plans)
        rest = [c for c in range(48) if obs.rules.deck >> c & 1 and not hand >> c & 1]
        n = obs.rules.hand_size
        evals = [
            None if self.restrictions.no_calls or plan == DECLARE_WEDDING else CallEval([1, 2])
            for plan in plans
        ]
        me = obs.seat
        for _ in range(self.contract_worlds):
            rng.shuffle(rest)
            hands: list[Mask] = []
            k = 0
            for seat in range(4):
                if seat == me:
                    hands.append(hand)
                else:
                    hands.append(sum(1 << c for c in rest[n * k : n * k + n]))
                    k += 1
            for i, plan in enumerate(plans):
                start = _contract_game(obs, hands, plan is not None, plan)
                ev = evals[i]
                total = 0.0
                for _p in range(playouts):
                    g = start.copy()
                    greedy_playout(g, rng, self._eps(me))
                    total += _rewards(g)[me]
                    if ev is not None:
                        ev.add(g, me)
                values[i] += total / playouts
        for i, ev in enumerate(evals):
            if ev is not None and ev.n:
                # the plan's value with the best opening call (made at the first card)
                gain = max(ev.mean(k) - self.call_margin for k in range(len(ev.levels)))
                values[i] += self.contract_worlds * max(0.0, gain)
        best = max(range(len(plans)), key=lambda i: values[i])
        plan = plans[best]
        if plan is not None and plan >= DECLARE_SOLO and not forced:
            others = [values[i] for i, p in enumerate(plans) if p is None or p < DECLARE_SOLO]
            if others and values[best] - max(others) < self.solo_margin * self.contract_worlds:
                return plans[values.index(max(others))]
        return plan

    def _may_call(self, obs: Observation) -> bool:
        return not self.restrictions.no_calls and bool(self._candidate_calls(obs))

    def _candidate_calls(self, obs: Observation) -> list[Action]:
        """The next few call levels the party may still reach now (skips included)."""
        party = obs.parties[obs.seat]
        if party is None:
            return []
        own = obs.level[party]
        return [a for a in legal_calls(obs) if call_level(a) <= own + MAX_CALL_STEP]

    def announce(self, obs: Observation) -> Action | None:
        """The call whose paired gain over the same worlds and rollouts (the real scoring
        with the call applied) is largest, if it beats :attr:`call_margin`."""
        if self.restrictions.no_calls or obs.turn != obs.seat:
            return None
        cands = self._candidate_calls(obs)
        if not cands:
            return None
        ev = CallEval([call_level(a) for a in cands])
        self._search(obs, "announce", self.call_share, ev)
        if not ev.n:
            return None
        best = max(range(len(cands)), key=lambda i: (ev.mean(i), -i))
        return cands[best] if ev.mean(best) > self.call_margin else None
