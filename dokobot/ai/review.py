"""Game review: where a player lost points, judged from his own seat.

For every decision a reviewed seat made (the reservation, each call, each card with a
choice), the strong search evaluates, from that seat's :class:`Observation` at that moment
(never the hidden cards), the expected score of what was done and of the best alternative.
A decision whose expected score is at least :data:`MISTAKE` points below the best one is a
:class:`Mistake` (at least :data:`SERIOUS`: a serious one).

Both choices are valued in the same worlds, world by world (:class:`~dokobot.ai.paired.Paired`):

- with :data:`~dokobot.ai.solver.MAX_TRICKS` cards or fewer in hand, exactly
  (:func:`~dokobot.ai.exact.exact_values`): every consistent layout if they fit
  :data:`ENUMERATE_CAP` times the budget (the gap is then exact), else at least
  :data:`MIN_WORLDS` sampled layouts, each solved double-dummy;
- earlier, by the strong level's machinery (:meth:`SearchPlayer.card_evaluation`,
  :meth:`SearchPlayer.plan_evaluation`, :meth:`SearchPlayer.call_evaluation`).

Unless exact, the first evaluation only chooses the better choice: it picked it as the best
of several noisy values and overrates its lead, so a second, independent evaluation (other
worlds and rollouts) must find the paired gap significant (:meth:`Paired.significant`: at
least :data:`MISTAKE` and two standard errors above zero), and its mean is the loss. A call
the seat could have made and never made is reviewed the same way (once per game and seat),
and each card flagged names a :data:`Reason`. The budget per decision is by default
:data:`~dokobot.ai.search.REVIEW_BUDGET_S` (0.4 s). With ``fixed=True`` the work is fixed
and the review is the same on every machine (tests, the bench).

>>> from dokobot.engine import DEFAULT_RULES, Game, observe
>>> from dokobot.ai.levels import make_player
>>> from dokobot.ai.arena import play_game
>>> g = play_game([make_player("random", seed=s) for s in range(4)], seed=5).game
>>> r = review_game(g, seats=(0,), budget_s=0.01, fixed=True, seed=1)
>>> r.decisions > 0, all(m.seat == 0 and m.loss >= MISTAKE for m in r.mistakes)
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

from dokobot.engine import Game, GameType, Observation, Phase, observe
from dokobot.engine.cards import ACE, DIAMOND_ACES, POINTS, rank_of
from dokobot.engine.order import TRUMP
from dokobot.engine.types import (
    DECLARE_POVERTY,
    DECLARE_WEDDING,
    HEALTHY,
    RESERVATION,
    THROW_IN,
    Action,
    is_call,
    is_card,
    is_solo,
)

from .base import NO_RESTRICTIONS
from .legal import legal_actions, legal_calls
from .paired import Paired
from .search import HEALTHY_PLAN, NO_CALL, REVIEW_BUDGET_S, SearchPlayer

__all__ = [
    "MISTAKE",
    "REASONS",
    "SERIOUS",
    "Hint",
    "Mistake",
    "Reason",
    "Review",
    "call_hint",
    "card_hint",
    "card_losses",
    "plan_evaluation",
    "plan_hint",
    "review_game",
]

MISTAKE: Final = 0.5
"""Points of expected score a decision must lose against the best one to be a mistake."""
SERIOUS: Final = 1.5
"""Points a serious mistake loses."""

ENUMERATE_CAP: Final = 4.0
"""In the last tricks the review solves every consistent layout if that takes at most this
many times its budget per decision (:func:`~dokobot.ai.exact.exact_values`)..."""
MIN_WORLDS: Final = 16
"""... and else at least this many sampled worlds, each solved exactly."""

Kind = Literal["reservation", "call", "card"]
Reason = Literal[
    "cheaper_win",
    "partner_points",
    "overtook_partner",
    "trump_kept",
    "take_trick",
    "richer_win",
    "trump_spent",
    "trump_thrown",
    "points_given",
    "high_trump",
    "fox_led",
    "fresh_ace",
    "lead",
    "missed_call",
    "bad_call",
    "other",
]
"""Why a decision lost points, as the catalogues say it (``review.reason.NAME``; ``other``:
no reason beyond the values, and a reservation, whose choice says it all)."""
REASONS: Final[tuple[Reason, ...]] = get_args(Reason)


@dataclass(frozen=True, slots=True)
class Mistake:
    """One decision that lost at least :data:`MISTAKE` points of expected score."""

    index: int
    """The position of the decision in the game's log."""
    seat: int
    trick: int
    """The trick the decision was made in, from 1 (0: before the card play)."""
    kind: Kind
    played: Action | None
    """What was done (``None``: said healthy, or made no call)."""
    better: Action | None
    """The best choice the review found (``None``: healthy, or no call)."""
    loss: float
    """Expected points lost against ``better``."""
    reason: Reason = "other"

    @property
    def serious(self) -> bool:
        return self.loss >= SERIOUS


@dataclass(slots=True)
class Review:
    """The review of some seats' decisions in one game."""

    decisions: int = 0
    """Decisions reviewed (decisions without a choice are not counted)."""
    mistakes: list[Mistake] = field(default_factory=list)
    seconds: float = 0.0
    """CPU seconds of the reviewing thread."""

    def of(self, seat: int) -> list[Mistake]:
        return [m for m in self.mistakes if m.seat == seat]


def _declared(game: Game, start: int, seat: int) -> Action | None:
    """What ``seat`` declared after saying "reservation" at log position ``start`` (None:
    a better declaration won before his turn, and nobody learned his)."""
    for s, action in game.log[start + 1 :]:
        if s == seat and (
            action in (DECLARE_WEDDING, DECLARE_POVERTY, THROW_IN) or is_solo(action)
        ):
            return action
    return None


def review_game(
    game: Game,
    seats: Iterable[int] = range(4),
    *,
    budget_s: float = REVIEW_BUDGET_S,
    fixed: bool = False,
    seed: int = 0,
    at: Container[int] | None = None,
) -> Review:
    """Review the decisions of ``seats`` in ``game`` (finished or not) by replaying its log
    from the deal; each decision is judged from the deciding seat's observation only
    (``at``: only the decisions at these positions of the log)."""
    reviewed = frozenset(seats)
    judge = SearchPlayer(seed, NO_RESTRICTIONS, budget_s, fixed=fixed)
    g = game.redealt()
    review = Review()
    missed_seen: set[int] = set()  # seats already flagged for a missed call
    t0 = time.thread_time()
    for index, (seat, action) in enumerate(game.log):
        if seat in reviewed and (at is None or index in at):
            found = _judge(judge, g, game, index, seat, action)
            if found is not None:
                review.decisions += 1
                if found.loss >= MISTAKE:
                    review.mistakes.append(found)
            if seat not in missed_seen and _no_call_now(game, index, seat, action, g):
                missed = _missed_call(judge, g, game, index, seat)
                if missed is not None:
                    missed_seen.add(seat)
                    review.mistakes.append(missed)
        g.play(seat, action)
    review.seconds = time.thread_time() - t0
    return review


def _judge(
    judge: SearchPlayer, g: Game, game: Game, index: int, seat: int, action: Action
) -> Mistake | None:
    """The verdict on one decision (its loss may be below :data:`MISTAKE`), or ``None`` when
    the decision is not reviewed (no choice, or a kind the review does not judge)."""
    obs = observe(g, seat)
    trick = len(g.tricks) + 1 if g.phase is Phase.PLAYING else 0
    if g.phase is Phase.RESERVATIONS and action in (HEALTHY, RESERVATION):
        if obs.forced == seat:
            return None
        chosen = None if action == HEALTHY else _declared(game, index, seat)
        if action == RESERVATION and chosen is None:
            return None  # his reservation was never declared: not "healthy", and private
        return _judge_plan(judge, obs, index, seat, chosen)
    if g.phase is not Phase.PLAYING:
        return None
    if is_call(action):
        return _judge_call(judge, obs, index, seat, trick, action)
    if not is_card(action):
        return None
    found = card_losses(judge, obs, [action])
    if found is None or action not in found[1]:
        return None
    better, losses = found
    loss = losses[action]
    reason = _card_reason(obs, action, better) if loss >= MISTAKE else "other"
    return Mistake(index, seat, trick, "card", action, better, loss, reason)


def card_losses(
    judge: SearchPlayer, obs: Observation, cards: Iterable[Action]
) -> tuple[Action, dict[Action, float]] | None:
    """The best card the review finds on ``obs.seat``'s card turn, and what each of ``cards``
    loses against it, all judged in one evaluation of the position (``None``: fewer than two
    cards to choose from; a card the evaluation did not value is left out). Unless exact, a
    loss of :data:`MISTAKE` or more is measured again by an independent second evaluation
    (one for all ``cards``): its paired mean if significant, else 0."""
    if len({a & ~1 for a in legal_actions(obs) if is_card(a)}) < 2:
        return None
    first = evaluate(judge, obs, "values")
    choices = first.choices()
    better = first.best()
    second: Paired | None = None
    losses: dict[Action, float] = {}
    for card in cards:
        played = card if card in choices else card ^ 1
        if played not in choices:
            continue
        loss, _ = first.gap(better, played)
        if loss >= MISTAKE and not first.exact:
            # the first evaluation chose ``better`` as the best of several noisy values, so
            # it overstates the gap (the winner's curse): an independent one on other worlds
            # must find it significant, and its paired mean is the loss
            second = second or evaluate(judge, obs, "confirm")
            loss = _confirmed(second, better, played)
        losses[card] = loss
    return better, losses


def evaluate(judge: SearchPlayer, obs: Observation, purpose: str) -> Paired:
    """The cards' values as the review and the hints judge them (exact in the last tricks:
    :data:`ENUMERATE_CAP`, :data:`MIN_WORLDS`)."""
    return judge.card_evaluation(obs, purpose, enumerate_cap=ENUMERATE_CAP, min_worlds=MIN_WORLDS)


def _confirmed(second: Paired, better: Action, played: Action) -> float:
    """The loss of ``played`` against ``better`` by an independent evaluation: its paired
    mean if significant (:meth:`Paired.significant`), else 0."""
    if not second.significant(better, played, MISTAKE):
        return 0.0
    return second.gap(better, played)[0]


def _judge_plan(
    judge: SearchPlayer, obs: Observation, index: int, seat: int, chosen: Action | None
) -> Mistake | None:
    """The reservation: healthy, a wedding or a solo, each plan valued deal by deal."""
    first = plan_evaluation(judge, obs)
    keys = first.choices()
    key = _plan_key(chosen)
    if len(keys) < 2 or key not in keys:
        return None
    best = first.best()
    loss, _ = first.gap(best, key)
    if loss >= MISTAKE:
        loss = _confirmed(plan_evaluation(judge, obs, "|confirm"), best, key)
    better = None if best == HEALTHY_PLAN else best
    return Mistake(index, seat, 0, "reservation", chosen, better, loss)


def plan_evaluation(judge: SearchPlayer, obs: Observation, salt: str = "") -> Paired:
    """The reservation's plans (:meth:`SearchPlayer.plan_evaluation`) valued deal by deal,
    each solo less the strong level's ``solo_margin``: the greedy playouts rate a solo that
    much too high against the other plans (on played-out deals, solos the search rated up to
    about 4 points above the normal game lost points on average;
    docs/lab/2026-12-03-solo-judgement.md), so a reservation is judged, and hinted, as the
    strong level itself declares: no "healthy instead of a solo" it would not play."""
    raw = judge.plan_evaluation(obs, salt)
    cut = judge.solo_margin
    values = [{k: v - cut if is_solo(k) else v for k, v in world.items()} for world in raw.values]
    return Paired(values, raw.weights, raw.exact, raw.seconds)


def _plan_key(plan: Action | None) -> int:
    return HEALTHY_PLAN if plan is None else plan


def _judge_call(
    judge: SearchPlayer, obs: Observation, index: int, seat: int, trick: int, call: Action
) -> Mistake | None:
    """A call that was made: its gain against no call, world by world."""
    if obs.turn != seat:
        return None
    first = judge.call_evaluation(obs, [call], "call-gain")
    if not first.values:
        return None
    loss, _ = first.gap(NO_CALL, call)
    if loss >= MISTAKE:
        loss = _confirmed(judge.call_evaluation(obs, [call], "call-gain|confirm"), NO_CALL, call)
    return Mistake(index, seat, trick, "call", call, None, max(0.0, loss), "bad_call")


def _no_call_now(game: Game, index: int, seat: int, action: Action, g: Game) -> bool:
    """Whether ``action`` is a card ``seat`` played without a call on this turn while it
    could call, and its party never reached a higher level later in the game."""
    if g.phase is not Phase.PLAYING or not is_card(action) or g.turn != seat:
        return False
    if index and game.log[index - 1][0] == seat and is_call(game.log[index - 1][1]):
        return False
    if not legal_calls(observe(g, seat)):
        return False
    return not any(s == seat and is_call(a) for s, a in game.log[index:])


def _missed_call(judge: SearchPlayer, g: Game, game: Game, index: int, seat: int) -> Mistake | None:
    """A call ``seat`` could have made before this card and never made: flagged if making
    the best of the next calls now is significantly worth :data:`MISTAKE` points or more."""
    found = worth_calling(judge, observe(g, seat), "missed")
    if found is None:
        return None
    best, loss = found
    return Mistake(index, seat, len(g.tricks) + 1, "call", None, best, loss, "missed_call")


def worth_calling(judge: SearchPlayer, obs: Observation, salt: str) -> tuple[Action, float] | None:
    """The best of the next calls ``obs.seat`` may make now and what making it now is worth
    in points per game, if that is significantly :data:`MISTAKE` or more: a first evaluation
    picks the call, an independent second one (``salt`` + "|confirm") measures it."""
    calls = judge.candidate_calls(obs)
    if not calls:
        return None
    first = judge.call_evaluation(obs, calls, salt)
    if not first.values:
        return None
    best = max(calls, key=first.mean)
    if first.mean(best) < MISTAKE:
        return None
    gain = _confirmed(judge.call_evaluation(obs, calls, salt + "|confirm"), best, NO_CALL)
    return None if gain < MISTAKE else (best, gain)


def call_hint(
    obs: Observation, *, seed: int, budget_s: float, fixed: bool = False
) -> tuple[Action, float] | None:
    """A call worth making on ``obs.seat``'s card turn, judged as the review judges a missed
    call (:func:`worth_calling`; ``None``: none is, or it is not his card turn)."""
    if obs.phase is not Phase.PLAYING or obs.turn != obs.seat:
        return None
    judge = SearchPlayer(seed, NO_RESTRICTIONS, budget_s / 2, fixed=fixed)
    return worth_calling(judge, obs, "hint-call")


def _card_reason(obs: Observation, played: Action, better: Action) -> Reason:
    """Why ``better`` was the better card, read from the trick as it stood."""
    if not obs.trick:
        if _fox(obs, played) and not _fox(obs, better):
            return "fox_led"
        return "fresh_ace" if _fresh_ace(obs, better) and not _fresh_ace(obs, played) else "lead"
    scheme = obs.scheme
    cls = scheme.cls
    rank = scheme.rank[cls[obs.trick[0]]]
    # a later trump ♥10 takes a first one ahead, by the rules of this trick (RULES §12.7)
    h10 = scheme.heart10 if obs.rules.second_heart10_takes(len(obs.tricks)) else -2
    top = -1
    winner = obs.leader
    for i, c in enumerate(obs.trick):
        if rank[c] > top or rank[c] == top == h10:
            top = rank[c]
            winner = (obs.leader + i) & 3
    p_wins = rank[played] > top or rank[played] == top == h10
    b_wins = rank[better] > top or rank[better] == top == h10
    mine = obs.parties[obs.seat]
    partner_leads = mine is not None and obs.parties[winner] == mine
    if p_wins and b_wins and scheme.key[better] < scheme.key[played]:
        return "cheaper_win"
    if partner_leads and p_wins and not b_wins:
        return "overtook_partner"
    if partner_leads and not p_wins and POINTS[better] > POINTS[played]:
        return "partner_points"
    if b_wins and not p_wins:
        return "trump_kept" if cls[better] == TRUMP else "take_trick"
    if p_wins and b_wins and POINTS[better] > POINTS[played]:
        return "richer_win"
    if p_wins and not b_wins and cls[played] == TRUMP and cls[better] != TRUMP:
        return "trump_spent"  # (not the partner's trick: that is overtook_partner above)
    if not p_wins and not b_wins and cls[played] == TRUMP and cls[better] != TRUMP:
        return "trump_thrown"  # (a plain card would have done; the trump may take a later trick)
    if not p_wins and not b_wins and POINTS[played] > POINTS[better]:
        return "points_given"
    if cls[played] == TRUMP and cls[better] == TRUMP and scheme.key[played] > scheme.key[better]:
        return "high_trump"
    return "other"


FOX_GAMES: Final = frozenset((GameType.NORMAL, GameType.WEDDING, GameType.POVERTY))
"""The games whose special points include a caught fox (RULES §8)."""


def _fox(obs: Observation, card: Action) -> bool:
    """Whether ``card`` is a fox (♦A) whose catching scores a point for the other party: in
    a normal game, a wedding or a poverty, unless piglets are known (RULES §8, §12.3)."""
    return bool(DIAMOND_ACES >> card & 1) and obs.game_type in FOX_GAMES and obs.piglets < 0


def _fresh_ace(obs: Observation, card: Action) -> bool:
    """Whether ``card`` is a plain ace of a suit no trick has been led with yet (the first
    round of a suit: the ace usually takes its trick)."""
    cls = obs.scheme.cls
    if cls[card] == TRUMP or rank_of(card) != ACE:
        return False
    return all(cls[cards[0]] != cls[card] for _, cards, _ in obs.tricks)


@dataclass(frozen=True, slots=True)
class Hint:
    """The strong level's choice for a turn (a card, or a reservation's plan), and how sure
    it is of it."""

    choice: Action
    """A card, or a plan: :data:`HEALTHY_PLAN`, a wedding, a solo (:func:`plan_hint`)."""
    runner_up: Action | None
    """The next best choice (``None``: there is no other)."""
    margin: float
    """How much better ``choice`` is than ``runner_up`` in points per game: exact, or the
    paired mean of an independent second evaluation (not the first's, which chose ``choice``
    as the best of noisy values and overstates its lead)."""
    close: bool
    """Whether the review would let ``runner_up`` pass (no significant :data:`MISTAKE`)."""


def card_hint(obs: Observation, *, seed: int, budget_s: float, fixed: bool = False) -> Hint | None:
    """The hint for ``obs.seat``'s card turn (``None``: not its card turn): two evaluations
    of ``budget_s`` / 2 each, one to choose the card and one to measure its lead."""
    judge = SearchPlayer(seed, NO_RESTRICTIONS, budget_s / 2, fixed=fixed)
    if obs.phase is not Phase.PLAYING or obs.turn != obs.seat:
        return None
    cards = {a & ~1 for a in legal_actions(obs) if is_card(a)}
    if len(cards) < 2:
        only = next(a for a in legal_actions(obs) if is_card(a))
        return Hint(only, None, 0.0, False)
    first = evaluate(judge, obs, "hint")
    best = first.best()
    runner_up = max((a for a in first.choices() if a != best), key=first.mean)
    if first.exact:
        margin = first.gap(best, runner_up)[0]
        return Hint(best, runner_up, margin, margin < MISTAKE)
    return _measured(best, runner_up, evaluate(judge, obs, "hint|confirm"))


def _measured(best: Action, runner_up: Action, second: Paired) -> Hint:
    """``best``'s lead over ``runner_up`` by an independent evaluation ``second``: its
    paired mean (never below 0), and a close call unless significantly :data:`MISTAKE`."""
    margin = max(0.0, second.gap(best, runner_up)[0])
    return Hint(best, runner_up, margin, not second.significant(best, runner_up, MISTAKE))


def plan_hint(obs: Observation, *, seed: int, budget_s: float, fixed: bool = False) -> Hint | None:
    """The hint for ``obs.seat``'s reservation (``None``: not its turn to say healthy or
    reservation, or to declare; or nothing the evaluation prices): the plan the review rates
    best (:func:`plan_evaluation`; once the seat said "reservation", healthy is no choice),
    its lead measured by a second, independent evaluation, as :func:`card_hint` does."""
    if obs.turn != obs.seat or obs.phase not in (Phase.RESERVATIONS, Phase.DECLARATIONS):
        return None
    judge = SearchPlayer(seed, NO_RESTRICTIONS, budget_s / 2, fixed=fixed)
    first = plan_evaluation(judge, obs, "|hint")
    keys = [k for k in first.choices() if obs.phase is Phase.RESERVATIONS or k != HEALTHY_PLAN]
    if not keys:
        return None
    best = max(keys, key=first.mean)
    if len(keys) == 1:
        return Hint(best, None, 0.0, False)
    runner_up = max((k for k in keys if k != best), key=first.mean)
    return _measured(best, runner_up, plan_evaluation(judge, obs, "|hint|confirm"))
