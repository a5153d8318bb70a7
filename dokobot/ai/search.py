"""The strong player: UCT over sampled worlds (after Sievers and Helmert, KI 2015).

For a card decision the player deals the unseen cards several times consistently with its
observation (:meth:`Observation.sample_hands`), builds each world as a full game
(:meth:`Observation.world`) and runs UCT in it: every player in the tree picks the action
best for its own party, below the tree the game is played out by the greedy policy of
:func:`~dokobot.ai.rollout.greedy_playout`, which sees all cards of that world, with a
tenth of the cards random (``eps_self``, ``eps_others``). The reward of a seat is its score
plus its party's eyes / 500 (the eyes break ties). The card played is the one with the
highest mean over the worlds of its mean reward in each world: every world counts the same
(but a last world that the time budget cut short, which counts by its share of the work).
Pooling the visits of all worlds instead (``pooled=True``, the rule until December 2026)
weighs each world by how often UCT tried the card there, which is most often where the card
does well, so a card that is strong in a few worlds and poor in the rest was rated too high.
Measured (``bench/ai.py --fixed --games 240``, paired): +0.14 (CI -0.14..+0.42, seed 22000),
+0.10 (CI -0.23..+0.44, the same deals with ``--search-seed 1``), +0.54 (CI +0.24..+0.84,
seed 23000).

A declared lust solo says much about the soloist's hand: in the worlds of the others he holds
one he could have declared (:func:`model_soloist`). Uniform worlds gave him a random hand, so
the defenders played against a soloist who could not win and let real solos through. Measured
against the heuristic's defence on deals ``normal`` plays as a lust solo (strong defenders in
every defender seat and as a pair, budget 0.1 s): without the model -1.04 points per game
(CI -2.13..+0.05, 20 deals, 80 games), with it +0.45 (CI +0.09..+0.81); on 30 other deals
-1.09 (CI -1.84..-0.34) and +0.58 (CI +0.25..+0.91), the paired gain +1.68 (CI +1.03..+2.32);
with the default budget, with the model, on 20 more deals +0.45 (CI +0.14..+0.76).
Greedy rollouts in solos and a heuristic prior at the root did not add to that.

Calls are decided inside the search (:class:`CallEval`): every rollout is scored as played
and, with the real scoring, as if the own party had reached each candidate call level (the
next :data:`MAX_CALL_STEP` levels, skips included), over the same sampled worlds and
rollouts. The call with the largest mean gain is made if the gain beats ``call_margin``
points per game (the margin covers the value of waiting for more information) and lies
:data:`CALL_Z` standard errors above zero, world against world (``call_z``). The player is
asked again on each turn, so a call that is not yet worth it may come later. Without the
second test (``call_z=0``, the older levels) the best of a few noisy means passed the margin
by chance on some turn of most games: at 0.02 s four ``strong_uct`` players called Re in 191
of 200 games and Kontra in 141, a Kontra call worth -0.48 points (the party's score minus its
score without its calls, play unchanged; ``bench/calls.py``); with it the strong level called
Re in 148 and Kontra in 57, worth +0.86 and +0.46 a call, the calls of both parties together
+0.77 points per game against +0.26 (at the default budget, 100 games: +1.21 against +0.57).

Reservations: healthy, a wedding and the solos that pass a cheap prefilter
(:func:`solo_candidates`: up to ``solo_candidate`` estimated losers, at most
:data:`SOLO_CANDIDATES` of them, fewest losers first and more trumps among equal losers) are
compared over deals of the unseen cards,
each plan played out many times with the greedy full-information policy of
:func:`~dokobot.ai.rollout.greedy_playout` (random playouts price every solo as if the soloist
could not play); each plan's value includes the gain of its best opening call. A solo must
beat the best other plan by ``solo_margin`` points per game.

A poverty (RULES §12.1) is priced the same way (:meth:`SearchPlayer.exchange_values`): a
player asked to take compares taking with declining over sampled deals of what it cannot see,
the three cards passed among them (:meth:`Observation.sample_hands` keeps them in nobody's
hand), the rest of the exchange played by the rules of :mod:`~dokobot.ai.house` and the card
play by greedy playouts; as the taker it gives back the best-priced set among its six likeliest
cards (:func:`~dokobot.ai.house.return_candidates`).

``greedy=False`` plays the rollouts with uniformly random cards (:meth:`Game.playout`), about
five times cheaper. Random opponents never punish a weak lead, so they priced, say, a
Kontra player's early ♠Q lead like his ♣10 (README, "Computer players"). The greedy rollouts
won +0.44 points per game against the random ones (paired, CI +0.18..+0.71; ``bench/ai.py
--fixed --games 240 --seed 22000``, although their fixed work took a third less time), while
twice the thinking time with random rollouts gained nothing measurable (-0.05, CI
-0.72..+0.62, 120 games).

Settings for experiments, off by default because paired runs have not shown a gain
(README, "Computer players"): ``infer=k`` draws each world from ``k`` sampled deals in
proportion to :func:`play_likelihood` (how well the heuristic's reservation and card play
explain what the others did in that deal; about a sixth of uniformly sampled deals of a
normal game give a seat who said healthy both ♣Q); ``heuristic_margin=m`` plays the
heuristic's card unless the search rates it ``m`` points per game below its best.
A third, ``sound_leads``, leads in the playouts the cheapest sure winner, else the card
with the fewest points, instead of a random card (:class:`~dokobot.ai.rollout.Playout`):
against ``strong_uct`` at 0.02 s -0.02 points per game (CI -0.21..+0.17, 4,000 games,
docs/lab/2026-12-04-leads.md), no better than without it.

Learned inference (``inference=True``, the default): every world, sampled or enumerated, is
tilted by the card-location model of :mod:`~dokobot.ai.inference` (trained on the strong
level's own games; its input is the observation only). ``inference=False`` is the level as it
was before (``strong_prev``, for comparisons); ``wedding_tilt=False`` draws a wedding's worlds
uniformly (a probe: on 1,895 wedding games with fixed work it changed nothing measurable,
-0.02, CI -0.19..+0.15; docs/lab/2026-12-04-worlds.md).

Exact endgames: with :data:`EXACT_CARDS` cards or fewer in hand (``exact_cards``) the card is
the one with the best mean over worlds solved exactly (:mod:`~dokobot.ai.exact`, the
double-dummy solver of :mod:`~dokobot.ai.solver`): every consistent layout when they fit the
budget, else sampled worlds (with the soloist model) until the budget is spent. UCT with
greedy rollouts only estimates what the solver knows there. ``exact_cards=0`` is the level as
it was before (``strong_uct``, for comparisons). Against it, the level with the exact
endgame, the learned inference and the solo judgement together scored -0.13 points per game
(CI -0.41..+0.16; 2,000 games at 0.02 s, docs/lab/2026-12-04-strength.md), and with the call
rule (``call_z``) as well +0.05 (CI -0.13..+0.23; 4,000 games, docs/lab/2026-12-04-calls.md),
with one chain for a search's worlds as well +0.13 (CI -0.06..+0.32; 4,000 games on other
deals, docs/lab/2026-12-04-worlds.md), and at 0.1 s +0.03 (CI -0.21..+0.27; 2,000 games,
docs/lab/2026-12-05-half-budget.md): no gain measurable over all games.

Budget: each decision thinks for ``budget_s`` seconds of the searching thread's CPU time
(:class:`Budget`); the loops check the deadline after every iteration (card search) or every
round of playouts (reservations), so a faster machine searches more, not faster. More time
buys more worlds, not deeper trees (``more_worlds``): a world stops after its share of
:data:`STANDARD_WORK_S`, and further worlds use the rest of the budget; four times the
standard work in ten worlds played half a point per game worse than the standard work, in
forty worlds as well (README, "Computer players"). The host
journals every move a computer player makes, so replays never ask the player again and stay
exact although a decision now depends on how fast the machine was.

With ``fixed=True`` the work is instead a number of iterations fixed from ``budget_s`` and the
cards left (the old calibration, CPython on one slow core, about a quarter of the budget on a
current machine): the same seed and observation then give the same action on any machine
(tests, reproducible benchmarks; ``bench/ai.py --fixed``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Final, TypedDict

from dokobot.engine import (
    DECLARE_SOLO,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    Action,
    Game,
    GameType,
    Mask,
    Observation,
    Phase,
    Solo,
    call_level,
    observe,
    score,
)
from dokobot.engine.cards import CLUB_QUEENS, N_CARDS
from dokobot.engine.game import may_throw_in
from dokobot.engine.order import SCHEMES, TRUMP
from dokobot.engine.scoring import outcome_scores
from dokobot.engine.types import DECLINE, TAKE, is_solo

from .base import NO_RESTRICTIONS, Restrictions
from .budget import Budget
from .exact import MIN_WORLDS, SOLVE_S, exact_values, solvable
from .heuristic import best_solo, choose_card, losers, normal_strength, reservation_choice
from .house import (
    STRONG_THROW_IN_BELOW,
    exchange_choice,
    house_action,
    house_plan,
    return_candidates,
    return_choice,
)
from .legal import cards_in, decision_rng, legal_actions, legal_calls
from .paired import Z_SIGNIFICANT, Paired
from .rollout import Playout

__all__ = ["HEALTHY_PLAN", "NO_CALL", "Budget", "SearchPlayer", "SearchStats", "uct_search"]

EXACT_CARDS: Final = 3
"""With this many cards in hand or fewer the strong level plays the card with the best mean
over worlds solved exactly (:mod:`~dokobot.ai.exact`) instead of its UCT search."""
_FIXED_SHARE: Final = 0.25
"""The share of a budget the fixed mode's work takes on a current machine (see below)."""
DEFAULT_BUDGET_S: Final = 0.2
"""Thinking time per decision (``bots.search_budget``): the knee of the strength per CPU
second (``bench/ai.py --budgets``, docs/lab/2026-12-02-budgets.md): the best estimate of the
four budgets measured, 0.4 s no stronger, 0.1 and 0.05 s a little weaker (within the noise)."""
REVIEW_BUDGET_S: Final = 2 * DEFAULT_BUDGET_S
"""The game review's CPU seconds per decision (``bots.review_budget``; ``/hint`` thinks half
of it): twice the strong level's thinking, the most the review may take (issue 30), and the
budget its measurements were made with (docs/lab/2026-12-02-review.md)."""
STANDARD_WORK_S: Final = 0.45
"""The standard amount of search work, in the seconds of the fixed-mode calibration below
(about 0.11 s of CPU on a current machine): ``fixed=True`` with this budget does it in
:attr:`SearchPlayer.worlds` worlds, and with a time budget (``more_worlds``) each world stops
after its share of it while further worlds use the rest of the time."""
# Fixed mode: seconds per iteration ~ A + B * cards left (CPython 3.11, one core).
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
SOLO_MARGIN: Final = 4.0
"""Points per game a solo must promise above the best normal choice. The plan values rate a
solo too high against the normal game: on played-out deals (``bench/solo.py``, candidate
hands played both ways by four strong players) the solo's worth rose with the search's gap
but crossed 0 only at a gap of about 4 (docs/lab/2026-12-03-solo-judgement.md); at 0.5 the
declared solos lost points."""
SOLO_MODEL_LOSERS: Final = 4.5
"""The most estimated losers (:func:`~dokobot.ai.heuristic.losers`) a lust soloist's hand
has in the sampled worlds (the heuristic declares at 3.5, the strong level considers up to
:data:`SOLO_LOSERS_CANDIDATE`)."""
_SOLO_MODEL_SWAPS: Final = 80
SOLO_CANDIDATES: Final = 3
"""The most solo types the reservation search prices (:func:`solo_candidates`)."""


class SoloPrefilter(TypedDict):
    """The solo judgement's settings of :class:`SearchPlayer` (``solo_types``,
    ``solo_by_trumps``, ``solo_floor_s``, ``solo_margin``)."""

    solo_types: int
    solo_by_trumps: bool
    solo_floor_s: float
    solo_margin: float


CALL_Z: Final = Z_SIGNIFICANT
"""A call is made only when its paired gain over the search's worlds (:meth:`CallEval.paired`)
also lies this many standard errors above zero (``call_z``; 0: the mean gain alone, the rule
before December 4, 2026, kept by the older levels)."""


OLD_SOLO_PREFILTER: Final = SoloPrefilter(
    solo_types=2, solo_by_trumps=False, solo_floor_s=0.0, solo_margin=0.5
)
"""The solo judgement before December 3, 2026 (the two solo types with the fewest estimated
losers, ties in the order of the solos, priced in the player's budget however small, a
margin of 0.5), kept by the older levels (``strong_prev``, ``strong_uct``) so they play as
they did."""


def solo_candidates(
    hand: Mask, limit: float, count: int = SOLO_CANDIDATES, *, by_trumps: bool = True
) -> list[Solo]:
    """The solo types worth pricing by search for ``hand``, most promising first: the cheap
    prefilter of the reservation. A type passes with at most ``limit`` estimated losers
    (:func:`~dokobot.ai.heuristic.losers`); they are ranked by losers, and among equal
    losers by more trumps (a hand of ♥10, queens, jacks and four spades is a spades solo
    before it is a diamonds solo); at most ``count`` of them. ``by_trumps=False`` breaks
    ties in the order of :class:`Solo` instead (the rule before December 3, 2026, kept for
    ``strong_prev``)."""
    rated = []
    for solo in Solo:
        scheme = SCHEMES[int(solo)]
        lo = losers(hand, scheme)
        if lo <= limit:
            trumps = (hand & scheme.class_mask[TRUMP]).bit_count() if by_trumps else 0
            rated.append((lo, -trumps, int(solo)))
    return [Solo(s) for _, _, s in sorted(rated)[:count]]


def model_soloist(
    obs: Observation, hands: list[Mask], rng: random.Random, limit: float
) -> list[Mask]:
    """``hands`` (a sampled deal) changed so that the declarer of a lust solo held a hand of
    at most ``limit`` losers in the declared solo when he declared it, as far as that is
    reachable: cards are swapped between him and the other hidden hands (never into a
    class a seat has shown void in) while his estimated losers fall, at most
    :data:`_SOLO_MODEL_SWAPS` proposals. A forced or mandatory solo, a solo of the observing
    player and other games are left alone."""
    d = obs.declarer
    if (
        obs.game_type is not GameType.SOLO
        or obs.solo is None
        or obs.mandatory
        or obs.forced == d
        or d == obs.seat
    ):
        return hands
    scheme = SCHEMES[int(obs.solo)]
    cls = scheme.cls
    key = scheme.key
    played = obs.played_by()[d]
    hands = list(hands)
    cur = losers(hands[d] | played, scheme)
    others = [s for s in range(4) if s not in (d, obs.seat) and hands[s]]
    if not others or not hands[d]:
        return hands
    void_d = obs.voids[d]
    for _ in range(_SOLO_MODEL_SWAPS):
        if cur <= limit:
            break
        o = others[int(rng.random() * len(others))]
        mine = cards_in(hands[d])
        x = mine[int(rng.random() * len(mine))]
        if obs.voids[o] >> cls[x] & 1:
            continue
        better = [y for y in cards_in(hands[o]) if key[y] > key[x] and not void_d >> cls[y] & 1]
        if not better:
            continue
        y = better[int(rng.random() * len(better))]
        new_d = hands[d] ^ (1 << x) | (1 << y)
        new = losers(new_d | played, scheme)
        if new < cur:
            hands[o] = hands[o] ^ (1 << y) | (1 << x)
            hands[d] = new_d
            cur = new
    return hands


_INFER_RNG: Final = random.Random(0)  # choose_card draws nothing from it


def play_likelihood(obs: Observation, hands: list[Mask], miss: float) -> float:
    """How well the heuristic explains what the others did if they held ``hands`` (a
    sampled deal of the unseen cards): ``miss`` to the power of the number of their choices
    it would have made otherwise. In a normal game: each other seat said healthy, so a hand
    the heuristic would reserve with (both ♣Q, a solo hand; a silent wedding is rare) is one
    miss; then each card they played with a choice that
    :func:`~dokobot.ai.heuristic.choose_card` would not have played, the game replayed from
    the first card in the world of ``hands`` (each seat seeing what it saw then, the calls as
    they are now). Sound players follow the heuristic's craft (aces first, ♣Q shows the
    party, fox saved, points to the partner). Solos: the cards only. 1.0 for other games."""
    gt = obs.game_type
    if gt is not GameType.NORMAL and gt is not GameType.SOLO:
        return 1.0
    me = obs.seat
    plays = obs.plays()
    start = [h | p for h, p in zip(hands, obs.played_by(), strict=True)]
    w = 1.0
    if gt is GameType.NORMAL:
        for seat in range(4):
            if seat != me and reservation_choice(start[seat], NO_RESTRICTIONS)[0] != HEALTHY:
                w *= miss
    if not plays:
        return w
    g = obs.world(hands)
    g.hands = start
    g.tricks = []
    g.trick = []
    g.eyes = [0, 0, 0, 0]
    g.won = [0, 0, 0, 0]
    g.leader = g.turn = plays[0][0]
    for seat, c in plays:
        if (
            seat != me
            and len(g.legal_actions()) > 1
            and choose_card(observe(g, seat), _INFER_RNG) >> 1 != c >> 1
        ):
            w *= miss
        g.push(seat, c)
    return w


class _Node:
    __slots__ = ("children", "mover", "n", "untried", "w")

    def __init__(self, mover: int, untried: list[int]) -> None:
        self.n = 0
        self.w = 0.0
        self.mover = mover
        self.untried = untried
        self.children: dict[int, _Node] = {}


class SearchStats:
    """Root statistics of one search: pooled over the worlds, and each world's means."""

    __slots__ = (
        "iterations",
        "n",
        "seconds",
        "w",
        "world_means",
        "world_values",
        "world_weights",
        "worlds",
    )

    def __init__(self) -> None:
        self.n: dict[Action, int] = {}
        """Visits of each root action, summed over the worlds."""
        self.w: dict[Action, float] = {}
        """Rewards of each root action, summed over the worlds."""
        self.world_means: dict[Action, float] = {}
        """Each root action's mean reward in a world times the world's iterations, summed
        over the worlds in which it was tried."""
        self.world_weights: dict[Action, int] = {}
        """The iterations of the worlds in which each root action was tried."""
        self.world_values: list[tuple[dict[Action, float], int]] = []
        """Per world: each root action's mean reward there, and the world's iterations."""
        self.iterations = 0
        self.worlds = 0
        """Sampled worlds searched."""
        self.seconds = 0.0
        """Thread CPU seconds the search used."""

    def mean(self, action: Action) -> float:
        """The action's mean over the worlds of its mean reward in each world, each world
        weighed by its iterations (all alike but a last world the time budget cut short)."""
        return self.world_means[action] / self.world_weights[action]

    def pooled_mean(self, action: Action) -> float:
        """The action's mean reward over all its visits in all worlds."""
        return self.w[action] / max(1, self.n[action])

    def value(self, action: Action, *, pooled: bool = False) -> float:
        """The action's :meth:`mean` (``pooled``: its :meth:`pooled_mean`)."""
        return self.pooled_mean(action) if pooled else self.mean(action)

    def best(self, *, pooled: bool = False) -> Action:
        """The root action with the highest :meth:`value`."""
        return max(self.n, key=lambda a: (self.value(a, pooled=pooled), self.n[a], -a))

    def paired(self) -> Paired:
        """The root actions' means world by world (each world weighed by its iterations)."""
        p = Paired([v for v, _ in self.world_values], [float(w) for _, w in self.world_values])
        p.seconds = self.seconds
        return p


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
        hit = outcome_scores(g.game_type, g.re_seats, re_eyes, re_won, (lr, lk), g.rules.hand_size)
        if len(_OUTCOMES) >= _OUTCOMES_MAX:
            _OUTCOMES.clear()
        _OUTCOMES[key] = hit
    return hit


HEALTHY_PLAN: Final = -1
"""The plan "healthy" among the choices of :meth:`SearchPlayer.plan_evaluation`."""
NO_CALL: Final = -1
"""The choice "no call" of a paired call evaluation (:meth:`CallEval.paired`)."""


class CallEval:
    """Paired evaluation of calls: for every rollout, the difference between ``me``'s score
    had ``me``'s party reached each call level in ``levels`` and as played (the real
    scoring with the level applied). ``gain[i]`` sums the differences."""

    __slots__ = ("_mark", "gain", "levels", "n", "world_gains")

    def __init__(self, levels: list[int]) -> None:
        self.levels = levels
        self.gain = [0.0] * len(levels)
        self.n = 0
        self.world_gains: list[tuple[list[float], int]] = []
        """Per world: the mean gain of each level there, and the world's rollouts."""
        self._mark: tuple[list[float], int] = ([0.0] * len(levels), 0)

    def end_world(self) -> None:
        """Close the world whose rollouts were added since the last call."""
        before, n0 = self._mark
        n = self.n - n0
        if n:
            self.world_gains.append(
                ([(g - b) / n for g, b in zip(self.gain, before, strict=True)], n)
            )
        self._mark = (list(self.gain), self.n)

    def paired(self, choices: list[Action]) -> Paired:
        """The gains world by world as choices: ``choices[i]`` for level ``i``, and
        :data:`NO_CALL` with gain 0."""
        values = [
            {NO_CALL: 0.0, **{a: g[i] for i, a in enumerate(choices)}} for g, _ in self.world_gains
        ]
        return Paired(values, [float(n) for _, n in self.world_gains])

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
    stop: Budget,
    until: float | int,
    c: float,
    stats: SearchStats,
    calls: CallEval | None = None,
    greedy: Playout | None = None,
    cap: int | None = None,
) -> float:
    """UCT in one world until ``until`` (a number of iterations in fixed mode, else a thread
    CPU deadline, and then at most ``cap`` iterations; at least one iteration); adds the root
    statistics to ``stats`` (and the call gains to ``calls``); returns ``me``'s mean reward."""
    root = _Node(root_game.turn, root_game.legal_actions())
    log = math.log
    sqrt = math.sqrt
    total = 0.0
    fixed = stop.fixed
    done = 0
    if fixed or cap is None:
        cap = 1 << 62
    while not (done >= until if fixed else done and (done >= cap or stop.over(until))):
        done += 1
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
            if greedy is not None:
                greedy.run(g, rng)
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
    if calls is not None:
        calls.end_world()
    if root.mover == me:
        stats.world_values.append(({a: ch.w / ch.n for a, ch in root.children.items()}, done))
        for a, ch in root.children.items():
            stats.n[a] = stats.n.get(a, 0) + ch.n
            stats.w[a] = stats.w.get(a, 0.0) + ch.w
            stats.world_means[a] = stats.world_means.get(a, 0.0) + done * ch.w / ch.n
            stats.world_weights[a] = stats.world_weights.get(a, 0) + done
    return total / max(1, done)


def world_source(
    obs: Observation, tilt: list[list[float]] | None
) -> Callable[[random.Random], list[Mask]]:
    """How one search draws its worlds of ``obs``: uniformly, or (``tilt``: the learned
    scores) along one tilted chain (:class:`~dokobot.ai.inference.TiltedWorlds`)."""
    if tilt is None:
        return obs.sample_hands
    from .inference import TiltedWorlds  # (imported with the model: :meth:`SearchPlayer._tilt`)

    return TiltedWorlds(obs, tilt).draw


def uct_search(
    obs: Observation,
    rng: random.Random,
    budget: Budget,
    worlds: int,
    c: float,
    calls: CallEval | None = None,
    greedy: Playout | None = None,
    solo_model: float | None = None,
    infer: int = 1,
    miss: float = 0.2,
    world_cap: int | None = None,
    tilt: list[list[float]] | None = None,
) -> SearchStats:
    """Ensemble UCT from the observing player's card turn: ``worlds`` sampled worlds, each
    searched for an equal share of ``budget`` (world ``k`` until ``(k + 1) / worlds`` of it is
    spent, so a slow start is made up later). ``world_cap`` (time budget only): a world stops
    after that many iterations, and further worlds are searched until the budget is spent.
    ``solo_model``: the loser limit of a lust soloist's hand in the worlds
    (:func:`model_soloist`). ``infer`` > 1: each world is drawn from that many sampled deals in
    proportion to :func:`play_likelihood` (``miss``). ``tilt``: the learned scores of
    :meth:`~dokobot.ai.inference.CardModel.seat_scores`; each world is drawn from the
    uniform deals tilted by them, one chain for all the worlds
    (:class:`~dokobot.ai.inference.TiltedWorlds`)."""
    stats = SearchStats()
    draw = world_source(obs, tilt)
    k = 0
    while k < worlds or (world_cap is not None and not budget.fixed and not budget.spent()):
        cands = []
        for _ in range(max(1, infer)):
            hands = draw(rng)
            if solo_model is not None:
                hands = model_soloist(obs, hands, rng, solo_model)
            cands.append(hands)
        if len(cands) > 1:
            weights = [play_likelihood(obs, h, miss) for h in cands]
            hands = rng.choices(cands, weights)[0]
        root_game = obs.world(hands)
        if budget.iterations is not None:
            until: float | int = max(1, budget.iterations // worlds)
        else:
            until = budget.deadline(min(1.0, (k + 1) / worlds))
        _uct_world(root_game, obs.seat, rng, budget, until, c, stats, calls, greedy, world_cap)
        k += 1
        stats.worlds = k
        if not budget.fixed and Budget.wall_clock() >= budget.wall_stop:
            break
    stats.seconds = budget.used()
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


EXCHANGE_MIN_WORLDS: Final = 8
"""The fewest sampled worlds of a poverty decision (:meth:`SearchPlayer.exchange_values`)."""
TAKE_OPTION: Final = 0
DECLINE_OPTION: Final = -1
"""The options of :meth:`SearchPlayer.exchange_values` for taking and declining a poverty (a
set of cards to give back is its mask, never 0 or negative)."""


def _finish_exchange(g: Game) -> None:
    """Play the rest of a poverty's exchange in a world (all cards known) by the rules of
    :mod:`~dokobot.ai.house`: the poor player passes, candidates take by
    :func:`~dokobot.ai.house.takes_poverty`, the taker gives back by
    :func:`~dokobot.ai.house.return_choice`."""
    while g.phase is Phase.EXCHANGE:
        assert g.exchange is not None
        seat = g.turn
        g.push(seat, exchange_choice(g.hands[seat], g.legal_actions(), g.exchange.taker))


class SearchPlayer:
    """The ``strong`` level: thinks ``budget_s`` seconds of thread CPU time per decision
    (``fixed=True``: a fixed, deterministic amount of work instead; see the module)."""

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
        call_z: float = CALL_Z,
        solo_candidate: float = SOLO_LOSERS_CANDIDATE,
        solo_margin: float = SOLO_MARGIN,
        solo_types: int = SOLO_CANDIDATES,
        solo_by_trumps: bool = True,
        solo_floor_s: float = DEFAULT_BUDGET_S,
        contract_factor: float = 1.0,
        contract_worlds: int = CONTRACT_WORLDS,
        greedy: bool = True,
        solo_model: float | None = SOLO_MODEL_LOSERS,
        eps_self: float = 0.1,
        eps_others: float = 0.1,
        heuristic_margin: float = 0.0,
        infer: int = 1,
        infer_miss: float = 0.2,
        more_worlds: bool = True,
        pooled: bool = False,
        exact_cards: int = EXACT_CARDS,
        inference: bool = True,
        wedding_tilt: bool = True,
        sound_leads: bool = False,
        fixed: bool = False,
    ) -> None:
        self.seed = seed
        self.restrictions = restrictions
        self.budget_s = DEFAULT_BUDGET_S if budget_s is None else budget_s
        self.worlds = worlds
        self.c = c
        self.call_share = call_share
        self.call_margin = call_margin
        self.call_z = call_z
        self.solo_candidate = solo_candidate
        self.solo_margin = solo_margin
        self.solo_types = solo_types
        self.solo_by_trumps = solo_by_trumps
        self.solo_floor_s = solo_floor_s
        self.contract_factor = contract_factor
        self.contract_worlds = contract_worlds
        self.greedy = greedy
        self.solo_model = solo_model
        self.eps_self = eps_self
        self.eps_others = eps_others
        self.heuristic_margin = heuristic_margin
        self.infer = infer
        self.infer_miss = infer_miss
        self.more_worlds = more_worlds
        self.pooled = pooled
        self.exact_cards = exact_cards
        self.inference = inference
        self.wedding_tilt = wedding_tilt
        self.sound_leads = sound_leads
        self.fixed = fixed

    def _playout(self, me: int) -> Playout:
        e = [self.eps_others] * 4
        e[me] = self.eps_self
        return Playout((e[0], e[1], e[2], e[3]), self.sound_leads)

    def _per_iter(self, cards_left: int) -> float:
        per_card = _ITER_PER_CARD_S + (_GREEDY_PER_CARD_S if self.greedy else 0.0)
        return _ITER_BASE_S + per_card * cards_left

    def _iterations(self, obs: Observation, share: float, seconds: float) -> int:
        """The fixed-mode iterations of ``share`` of ``seconds`` (calibrated seconds)."""
        cards_left = obs.rules.deck_size - 4 * len(obs.tricks) - len(obs.trick)
        per_iter = self._per_iter(cards_left)
        return max(self.worlds * 20, int(seconds * share / per_iter))

    def _search(
        self, obs: Observation, purpose: str, share: float, calls: CallEval | None = None
    ) -> SearchStats:
        rng = decision_rng(self.seed, obs, purpose)
        fixed = self._iterations(obs, share, self.budget_s) if self.fixed else None
        cap = None
        if self.more_worlds and not self.fixed:  # the fixed mode's worlds are not capped
            cap = self._iterations(obs, share, STANDARD_WORK_S) // self.worlds
        return uct_search(
            obs,
            rng,
            Budget(self.budget_s * share, fixed),
            self.worlds,
            self.c,
            calls,
            self._playout(obs.seat) if self.greedy else None,
            self.solo_model,
            self.infer,
            self.infer_miss,
            cap,
            self._tilt(obs),
        )

    def _tilt(self, obs: Observation) -> list[list[float]] | None:
        """The learned scores the worlds of ``obs`` are tilted by (``None``: uniform
        worlds, the level without :attr:`inference`, a wedding without :attr:`wedding_tilt`, or
        outside the card play)."""
        if not self.inference or (not self.wedding_tilt and obs.game_type is GameType.WEDDING):
            return None
        from .inference import default_model  # numpy: only the levels that use the model

        return default_model().seat_scores(obs)

    def decide(self, obs: Observation) -> Action:
        actions = legal_actions(obs)
        if not actions:
            raise ValueError("it is not this player's turn")
        if obs.phase is Phase.EXCHANGE and obs.exchange is not None:
            ex = obs.exchange
            if TAKE in actions:
                return TAKE if self._takes(obs) else DECLINE
            if ex.taker == obs.seat and len(actions) > 1:
                return self._give_back(obs, actions)
        house = house_action(obs)
        if house is not None:
            return house
        if obs.phase is Phase.RESERVATIONS:
            plan = self._contract(obs, with_healthy=True)
            hp = house_plan(obs, throw=self._throws_in(obs))
            return HEALTHY if plan is None and hp is None else RESERVATION
        if obs.phase is Phase.DECLARATIONS:
            plan = self._contract(obs, with_healthy=False)
            if plan is not None and is_solo(plan) and plan in actions:
                return plan
            # a hand that said reservation only to throw in throws in
            other = DECLARE_WEDDING in actions or house_plan(obs, throw=False) is not None
            hp = house_plan(obs, throw=not other or self._throws_in(obs))
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
        exact = self._exact(obs, "decide", share) if solvable(obs, self.exact_cards) else None
        if exact is not None:
            values = {a: exact.mean(a) for a in exact.choices()}
            best = exact.best()
        else:
            stats = self._search(obs, "decide", share)
            values = {a: stats.value(a, pooled=self.pooled) for a in stats.n}
            best = stats.best(pooled=self.pooled)
        if self.heuristic_margin > 0.0:
            # the heuristic's card unless the search finds it clearly worse
            h = choose_card(obs, decision_rng(self.seed, obs, "heuristic"))
            h = h if h in values else h ^ 1
            if h in values and values[best] - values[h] < self.heuristic_margin:
                return h
        return best

    def _throws_in(self, obs: Observation) -> bool:
        """Whether to throw in (when the hand may): only if playing on is worth less than a
        redeal to this seat, which is so below :data:`~dokobot.ai.house.STRONG_THROW_IN_BELOW`
        (measured by playing such hands out; the search's own value of playing on is biased
        upward and does not decide)."""
        if not may_throw_in(obs.rules, obs.hand) or obs.forced >= 0:
            return False
        return normal_strength(obs.hand) < STRONG_THROW_IN_BELOW

    def _exchange_seconds(self) -> float:
        """The thinking time of a poverty decision: like a throw-in, at least the default
        budget (a poverty is rare and its choice is worth points)."""
        return max(self.budget_s, DEFAULT_BUDGET_S) * self.contract_factor

    def exchange_values(
        self, obs: Observation, options: list[Mask], seconds: float | None = None
    ) -> list[float]:
        """The expected score of ``obs.seat`` (points per game) after each of ``options`` in
        a poverty's exchange: a candidate's :data:`TAKE_OPTION` or :data:`DECLINE_OPTION`,
        or a set of cards for the taker to give back (their mask). Worlds of the hidden cards
        come from :meth:`Observation.sample_hands` (the cards in transit are hidden from
        all but the poor player and the taker); in each, every option is played on, the rest
        of the exchange by the rules of :mod:`~dokobot.ai.house` (later candidates take by
        :func:`~dokobot.ai.house.takes_poverty`, the taker gives back by
        :func:`~dokobot.ai.house.return_choice`), the card play by greedy playouts."""
        me = obs.seat
        playout = self._playout(me)
        rng = decision_rng(self.seed, obs, "exchange")
        seconds = self._exchange_seconds() if seconds is None else seconds
        per_world = len(options) * (_GREEDY_PLAYOUT_S + _GREEDY_PER_CARD_S * obs.rules.deck_size)
        worlds = max(EXCHANGE_MIN_WORLDS, int(seconds / per_world))
        budget = Budget(seconds, worlds if self.fixed else None)
        totals = [0.0] * len(options)
        n = 0
        while n < EXCHANGE_MIN_WORLDS or (n < worlds if budget.fixed else not budget.spent()):
            world = obs.world(obs.sample_hands(rng))
            for i, option in enumerate(options):
                g = world.copy()
                if option in (TAKE_OPTION, DECLINE_OPTION):
                    g.push(me, TAKE if option == TAKE_OPTION else DECLINE)
                else:
                    for card in cards_in(option):
                        g.push(me, card)
                _finish_exchange(g)
                if g.phase is Phase.PLAYING:
                    playout.run(g, rng)
                totals[i] += _rewards(g)[me] if g.phase is Phase.FINISHED else 0.0
            n += 1
        return [t / n for t in totals]

    def _takes(self, obs: Observation) -> bool:
        """Whether to take the poverty: if taking is worth more than declining (after which
        the next players may take, or nobody: a redeal, 0)."""
        take, decline = self.exchange_values(obs, [TAKE_OPTION, DECLINE_OPTION])
        return take > decline

    def _give_back(self, obs: Observation, actions: list[Action]) -> Action:
        """The next card to give back as the poverty's taker: the first of the best set of
        the cards still to give, priced by :meth:`exchange_values` among the sets of the
        most likely candidates (:func:`~dokobot.ai.house.return_candidates`)."""
        ex = obs.exchange
        assert ex is not None
        left = 3 - ex.returned.bit_count()
        cands = return_candidates(obs.hand, actions)
        sets = [sum(1 << c for c in combo) for combo in itertools.combinations(cands, left)]
        if len(sets) <= 1:
            return return_choice(obs.hand, actions)
        values = self.exchange_values(obs, sets)
        best = sets[max(range(len(sets)), key=lambda i: values[i])]
        return return_choice(obs.hand, [c for c in actions if best >> c & 1])

    def _contract(self, obs: Observation, *, with_healthy: bool) -> Action | None:
        """The declaration to make (None: say healthy), chosen by greedy playouts over
        sampled deals among: healthy, a wedding (both ♣Q) and the two solos the hand evaluation
        likes best (:meth:`plan_values`). A solo must beat the best other choice by
        :data:`SOLO_MARGIN`."""
        plans = self._plans(obs, with_healthy=with_healthy)
        if not plans:
            return reservation_choice(obs.hand, self.restrictions)[1]
        if len(plans) == 1:
            return plans[0]
        valued = self.plan_values(obs, with_healthy=with_healthy)
        values = [v for _, v in valued]
        best = max(range(len(plans)), key=lambda i: values[i])
        plan = plans[best]
        if plan is not None and plan >= DECLARE_SOLO and obs.forced != obs.seat:
            others = [values[i] for i, p in enumerate(plans) if p is None or p < DECLARE_SOLO]
            if others and values[best] - max(others) < self.solo_margin:
                return plans[values.index(max(others))]
        return plan

    def declares_solo(self, obs: Observation) -> Action | None:
        """The lust solo ``obs.seat`` declares at its reservation (``None``: none)."""
        plan = self._contract(obs, with_healthy=True)
        return plan if plan is not None and is_solo(plan) else None

    def _plans(self, obs: Observation, *, with_healthy: bool) -> list[Action | None]:
        """The plans :meth:`plan_values` compares (``None``: healthy)."""
        hand = obs.hand
        forced = obs.forced == obs.seat
        plans: list[Action | None] = []
        if with_healthy and not forced:
            plans.append(None)
        if hand & CLUB_QUEENS == CLUB_QUEENS and not forced:
            plans.append(DECLARE_WEDDING)
        if forced or not self.restrictions.no_solo:
            limit = 99.0 if forced else self.solo_candidate
            cands = solo_candidates(hand, limit, self.solo_types, by_trumps=self.solo_by_trumps)
            plans += [DECLARE_SOLO + solo for solo in cands]
        return plans

    def plan_values(
        self,
        obs: Observation,
        *,
        with_healthy: bool,
        salt: str = "",
        seconds: float | None = None,
        per_world: list[list[float]] | None = None,
    ) -> list[tuple[Action | None, float]]:
        """Each plan (``None``: healthy; a wedding; the two most promising solos) with its
        expected score for ``obs.seat`` in points per game, including the gain of its best
        opening call: greedy playouts over sampled deals of the unseen cards (``salt``: other
        deals and playouts for an independent second estimate; ``seconds``: another budget
        than the player's, which is at least ``solo_floor_s`` when a solo is priced: like a
        poverty, a solo candidate is rare and its choice is worth many points)."""
        hand = obs.hand
        forced = obs.forced == obs.seat
        plans = self._plans(obs, with_healthy=with_healthy)
        if not plans:
            return []
        rng = random.Random(f"{self.seed}|contract|{obs.seat}|{obs.dealer}|{hand}|{forced}" + salt)
        if seconds is None:
            floor = self.solo_floor_s if any(p is not None and is_solo(p) for p in plans) else 0.0
            seconds = max(self.budget_s, floor) * self.contract_factor
        fixed = max(1, int(seconds / _GREEDY_PLAYOUT_S) // (len(plans) * self.contract_worlds))
        budget = Budget(seconds, fixed if self.fixed else None)
        values = [0.0] * len(plans)
        rest = [c for c in range(N_CARDS) if obs.rules.deck >> c & 1 and not hand >> c & 1]
        n = obs.rules.hand_size
        evals = [
            None if self.restrictions.no_calls or plan == DECLARE_WEDDING else CallEval([1, 2])
            for plan in plans
        ]
        me = obs.seat
        playout = self._playout(me)
        for w in range(self.contract_worlds):
            rng.shuffle(rest)
            hands: list[Mask] = []
            k = 0
            for seat in range(4):
                if seat == me:
                    hands.append(hand)
                else:
                    hands.append(sum(1 << c for c in rest[n * k : n * k + n]))
                    k += 1
            starts = [_contract_game(obs, hands, plan is not None, plan) for plan in plans]
            totals = [0.0] * len(plans)
            deadline = budget.deadline((w + 1) / self.contract_worlds)
            rounds = 0
            # rounds of one playout per plan until this deal's share of the budget is spent
            while not (rounds >= fixed if budget.fixed else rounds and budget.over(deadline)):
                rounds += 1
                for i, start in enumerate(starts):
                    g = start.copy()
                    playout.run(g, rng)
                    totals[i] += _rewards(g)[me]
                    ev = evals[i]
                    if ev is not None:
                        ev.add(g, me)
            for i in range(len(plans)):
                values[i] += totals[i] / rounds
            if per_world is not None:
                per_world.append([t / rounds for t in totals])
        for i, ev in enumerate(evals):
            if ev is not None and ev.n:
                # the plan's value with the best opening call (made at the first card)
                gain = max(0.0, max(ev.mean(k) - self.call_margin for k in range(len(ev.levels))))
                values[i] += self.contract_worlds * gain
                for world in per_world or ():
                    world[i] += gain
        return [(plan, values[i] / self.contract_worlds) for i, plan in enumerate(plans)]

    def _exact(
        self,
        obs: Observation,
        purpose: str,
        share: float,
        enumerate_cap: float = 1.0,
        min_worlds: int = 0,
    ) -> Paired | None:
        """The cards' values by exact solving (:func:`~dokobot.ai.exact.exact_values`) with
        ``share`` of the budget; worlds drawn as the card search draws them."""
        rng = decision_rng(self.seed, obs, purpose + "|exact")
        seconds = self.budget_s * share
        fixed = None
        if self.fixed:
            per = SOLVE_S[obs.hand.bit_count()]
            fixed = max(MIN_WORLDS, int(seconds * _FIXED_SHARE / per))
        limit = self.solo_model
        tilt = self._tilt(obs)
        source = world_source(obs, tilt)
        if tilt is not None:
            from .inference import layout_weight

        def draw(r: random.Random) -> list[Mask]:
            hands = source(r)
            return hands if limit is None else model_soloist(obs, hands, r, limit)

        return exact_values(
            obs,
            rng,
            Budget(seconds, fixed),
            draw,
            enumerate_cap=enumerate_cap,
            min_worlds=min_worlds,
            weigh=None if tilt is None else lambda hands: layout_weight(tilt, hands, obs.seat),
        )

    def card_evaluation(
        self,
        obs: Observation,
        purpose: str = "values",
        *,
        share: float = 1.0,
        enumerate_cap: float = 1.0,
        min_worlds: int = 0,
    ) -> Paired:
        """Each card ``obs.seat`` may play (one of twins) valued world by world in points
        per game: solved exactly in the last :data:`~dokobot.ai.solver.MAX_TRICKS` tricks,
        else the card search of :meth:`decide` (another ``purpose``: other worlds and
        rollouts, an independent estimate; ``enumerate_cap``, ``min_worlds``: see
        :func:`~dokobot.ai.exact.exact_values`)."""
        if solvable(obs):
            exact = self._exact(obs, purpose, share, enumerate_cap, min_worlds)
            if exact is not None:
                return exact
        return self._search(obs, purpose, share).paired()

    def call_evaluation(
        self, obs: Observation, calls: list[Action], purpose: str = "calls"
    ) -> Paired:
        """The gain of making each of ``calls`` now, and of none (:data:`NO_CALL`, 0),
        world by world over the same worlds and rollouts."""
        ev = CallEval([call_level(a) for a in calls])
        self._search(obs, purpose, self.call_share, ev)
        return ev.paired(calls)

    def plan_evaluation(self, obs: Observation, salt: str = "") -> Paired:
        """The plans of :meth:`plan_values` (healthy included, as :data:`HEALTHY_PLAN`)
        valued deal by deal over the same deals and playouts."""
        per_world: list[list[float]] = []
        plans = [
            p for p, _ in self.plan_values(obs, with_healthy=True, salt=salt, per_world=per_world)
        ]
        keys = [HEALTHY_PLAN if p is None else p for p in plans]
        values = [dict(zip(keys, world, strict=True)) for world in per_world]
        return Paired(values, [1.0] * len(values))

    def card_values(self, obs: Observation, purpose: str = "values") -> dict[Action, float]:
        """The expected score of each card ``obs.seat`` may play (one card of each pair of
        twins), in points per game: the card search of :meth:`decide` with the whole budget
        (another ``purpose``: other worlds and rollouts, an independent estimate)."""
        stats = self._search(obs, purpose, 1.0)
        return {a: stats.value(a, pooled=self.pooled) for a in stats.n}

    def call_gain(self, obs: Observation, call: Action) -> float | None:
        """The expected gain in points per game of making ``call`` now rather than not
        (``None`` if ``obs.seat`` is not on turn or the search saw no rollout)."""
        if obs.turn != obs.seat:
            return None
        ev = CallEval([call_level(call)])
        self._search(obs, "call-gain", self.call_share, ev)
        return ev.mean(0) if ev.n else None

    def _may_call(self, obs: Observation) -> bool:
        return not self.restrictions.no_calls and bool(self.candidate_calls(obs))

    def candidate_calls(self, obs: Observation) -> list[Action]:
        """The next few call levels the party may still reach now (skips included)."""
        party = obs.parties[obs.seat]
        if party is None:
            return []
        own = obs.level[party]
        return [a for a in legal_calls(obs) if call_level(a) <= own + MAX_CALL_STEP]

    def announce(self, obs: Observation) -> Action | None:
        """The call whose paired gain over the same worlds and rollouts (the real scoring
        with the call applied) is largest, if it beats :attr:`call_margin` and lies
        :attr:`call_z` standard errors above zero."""
        if self.restrictions.no_calls or obs.turn != obs.seat:
            return None
        cands = self.candidate_calls(obs)
        if not cands:
            return None
        ev = self.call_evaluation(obs, cands, "announce")
        best = max(cands, key=lambda a: (ev.mean(a), -cands.index(a)))
        gain, se = ev.gap(best, NO_CALL)
        sure = self.call_z == 0.0 or gain >= self.call_z * se
        return best if gain > self.call_margin and sure else None
