"""Play whole games between computer players (tests and the bench), the way the host does:
on a player's turn it is first asked for a call, then for its action; every action goes
through the checked :meth:`Game.play`.

Duplicate matches (``bench/ai.py``) compare a player A with a player B on the same deals:
each deal is played by B in every seat (the baseline) and with A in some seats (a layout);
A's result in a game is A's score minus B's score in the same seat of the baseline, so luck
of the cards cancels, and it is attributed to a game kind (:data:`KINDS`).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from dokobot.engine import DEFAULT_RULES, Game, GameType, Phase, Result, Rules, observe, score
from dokobot.engine.cards import CLUB_QUEENS
from dokobot.engine.scoring import bock_trigger

from .base import ComputerPlayer
from .legal import legal_actions

__all__ = [
    "KINDS",
    "DuplicateGame",
    "Estimate",
    "GameRecord",
    "by_kind",
    "game_kind",
    "mean_se",
    "overall",
    "paired",
    "play_duplicate",
    "play_game",
]


@dataclass(slots=True)
class GameRecord:
    game: Game
    result: Result
    times: list[list[float]] = field(default_factory=lambda: [[], [], [], []])
    """Seconds per decision (announce + decide of one turn), per seat: CPU time of the
    playing thread unless ``play_game`` gets another clock."""
    choices: list[list[bool]] = field(default_factory=lambda: [[], [], [], []])
    """Per seat and decision (as in ``times``): whether the turn had more than one legal action."""


def play_game(
    players: Sequence[ComputerPlayer],
    *,
    seed: int,
    dealer: int = 3,
    rules: Rules = DEFAULT_RULES,
    game: Game | None = None,
    clock: Callable[[], float] = time.thread_time,
) -> GameRecord:
    """Play one game to the end; ``players[s]`` sits at seat ``s``."""
    g = game if game is not None else Game.deal(rules, dealer, seed)
    times: list[list[float]] = [[], [], [], []]
    choices: list[list[bool]] = [[], [], [], []]
    while g.phase is not Phase.FINISHED:
        seat = g.turn
        player = players[seat]
        choices[seat].append(len(legal_actions(observe(g, seat))) > 1)
        t0 = clock()
        if g.phase is Phase.PLAYING:
            call = player.announce(observe(g, seat))
            if call is not None:
                g.play(seat, call)
        action = player.decide(observe(g, seat))
        times[seat].append(clock() - t0)
        g.play(seat, action)
    return GameRecord(g, score(g), times, choices)


# ------------------------------------------------------------------ duplicate matches

KINDS: Final = ("normal-partners", "normal-mixed", "wedding", "solo-A", "solo-B")
"""Game kinds of a duplicate game, from player A's side: a normal game (or silent wedding)
in which two A players are partners, or in which A's partners are B players; a wedding; a solo
declared by an A player or by a B player."""
SOLO_KINDS: Final = ("solo-A", "solo-B")
SINGLE_LAYOUTS: Final = ((0,), (1,), (2,), (3,))
"""One A player against three B players, in each seat once."""
PAIR_LAYOUTS: Final = ((0, 2), (1, 3))
"""Two A players against two B players, in each seat once."""


def game_kind(game: Game, baseline: Game, a_seats: Sequence[int]) -> str:
    """The kind (one of :data:`KINDS`) of ``game``, played by A in ``a_seats``, compared
    with ``baseline``, the same deal played by B in every seat: if either is a solo, a solo
    of the side of its soloist (an A player who declares a solo, or who declines the solo B
    would have played in his seat, is ``solo-A``); else a wedding if either is one; else a
    normal game with A partners if all A seats share a party, mixed otherwise."""
    for g in (game, baseline):
        if g.game_type is GameType.SOLO:
            return "solo-A" if g.declarer in a_seats else "solo-B"
    if GameType.WEDDING in (game.game_type, baseline.game_type):
        return "wedding"
    parties = {game.re_seats >> s & 1 for s in a_seats}
    return "normal-partners" if len(a_seats) > 1 and len(parties) == 1 else "normal-mixed"


@dataclass(frozen=True, slots=True)
class DuplicateGame:
    """One game of a duplicate match and what it says about A."""

    deal: int
    a_seats: tuple[int, ...]
    kind: str
    diff: float
    """Mean over A's seats of A's score minus B's score in that seat in the baseline game."""
    a_times: tuple[float, ...]
    a_choices: tuple[bool, ...]
    b_times: tuple[float, ...]
    baseline_bock: bool = False
    """The baseline game would start bock games (RULES §12.4; for ``--rules bock``)."""


def play_duplicate(
    make: Callable[[str, int], ComputerPlayer],
    a_level: str,
    b_level: str,
    deal: int,
    a_seats: Sequence[int],
    baseline: Game | None = None,
    rules: Rules = DEFAULT_RULES,
) -> DuplicateGame:
    """Play deal ``deal`` (dealer ``deal % 4``) with ``a_level`` in ``a_seats`` and
    ``b_level`` elsewhere and compare it with the all-B ``baseline`` (played if not given).
    ``make(level, seed)`` builds a player; the player in seat ``s`` gets seed
    ``1000 * deal + s`` in both games, so a B player decides alike in both as long as the
    game looks alike to him."""
    if baseline is None:
        baseline = baseline_game(make, b_level, deal, rules)
    players = [make(a_level if s in a_seats else b_level, 1000 * deal + s) for s in range(4)]
    rec = play_game(players, seed=deal, dealer=deal % 4, rules=rules)
    base_result = score(baseline)
    base = base_result.scores
    diff = sum(rec.result.scores[s] - base[s] for s in a_seats) / len(a_seats)
    return DuplicateGame(
        deal,
        tuple(a_seats),
        game_kind(rec.game, baseline, a_seats),
        float(diff),
        tuple(t for s in a_seats for t in rec.times[s]),
        tuple(c for s in a_seats for c in rec.choices[s]),
        tuple(t for s in range(4) if s not in a_seats for t in rec.times[s]),
        bock_trigger(baseline, base_result),
    )


def baseline_game(
    make: Callable[[str, int], ComputerPlayer], level: str, deal: int,
    rules: Rules = DEFAULT_RULES,
) -> Game:  # fmt: skip
    """Deal ``deal`` played by ``level`` in every seat (seeds as in :func:`play_duplicate`)."""
    players = [make(level, 1000 * deal + s) for s in range(4)]
    return play_game(players, seed=deal, dealer=deal % 4, rules=rules).game


def with_bock(games: Sequence[DuplicateGame]) -> list[DuplicateGame]:
    """``games`` with bock rounds (RULES §12.4) applied alike to A and to the baseline: the
    deals in order are one series whose triggers are the baseline's, so both sides of every
    comparison count double in the same games (a trigger during a run adds 4 more)."""
    triggers: dict[int, bool] = {}
    for g in games:
        triggers[g.deal] = triggers.get(g.deal, False) or g.baseline_bock
    factor: dict[int, int] = {}
    left = 0
    for deal in sorted(triggers):
        factor[deal] = 2 if left else 1
        left = max(0, left - 1) + (4 if triggers[deal] else 0)
    return [replace(g, diff=g.diff * factor[g.deal]) for g in games]


def solo_deals(
    make: Callable[[str, int], ComputerPlayer], level: str, first: int, count: int
) -> list[int]:
    """Up to ``count`` deals from ``first`` on that ``level`` plays as a solo (its baseline
    is one), among at most 3000 deals per deal wanted. A deal is played only if some hand is a
    solo candidate by the hand evaluation (:func:`~dokobot.ai.heuristic.best_solo` at most
    :data:`~dokobot.ai.search.SOLO_LOSERS_CANDIDATE` losers, the strong level's limit)."""
    from .heuristic import best_solo
    from .search import SOLO_LOSERS_CANDIDATE

    out: list[int] = []
    for deal in range(first, first + 3000 * count):
        if len(out) == count:
            break
        hands = Game.deal(DEFAULT_RULES, deal % 4, deal).hands
        if min(best_solo(h)[1] for h in hands) > SOLO_LOSERS_CANDIDATE:
            continue
        if baseline_game(make, level, deal).game_type is GameType.SOLO:
            out.append(deal)
    return out


def wedding_deals(first: int, count: int) -> list[int]:
    """The first ``count`` deals from ``first`` on in which a hand holds both ♣Q (its
    player may declare a wedding; about one deal in four)."""
    out: list[int] = []
    deal = first
    while len(out) < count:
        if any(
            h & CLUB_QUEENS == CLUB_QUEENS for h in Game.deal(DEFAULT_RULES, deal % 4, deal).hands
        ):
            out.append(deal)
        deal += 1
    return out


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean with its 95 % confidence interval from the spread over ``deals`` deals."""

    mean: float
    low: float
    high: float
    deals: int
    games: int


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (nan where there are too few)."""
    if not xs:
        return math.nan, math.nan
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.nan
    return statistics.fmean(xs), se


def estimate(per_deal: Sequence[float], games: int) -> Estimate:
    m, se = mean_se(per_deal)
    return Estimate(m, m - 1.96 * se, m + 1.96 * se, len(per_deal), games)


def overall(games: Sequence[DuplicateGame]) -> Estimate:
    """A's advantage in points per game: per deal the mean ``diff`` of its games."""
    per: dict[int, list[float]] = {}
    for g in games:
        per.setdefault(g.deal, []).append(g.diff)
    return estimate([statistics.fmean(v) for v in per.values()], len(games))


def by_kind(games: Sequence[DuplicateGame]) -> dict[str, Estimate]:
    """:func:`overall` per game kind (every kind of :data:`KINDS`, empty ones with NaN)."""
    return {k: overall([g for g in games if g.kind == k]) for k in KINDS}


def worst_solo_lower(kinds: dict[str, Estimate]) -> float:
    """The lowest CI lower bound over the solo kinds that were played (NaN if none, or if a
    solo kind came from a single deal and has no interval)."""
    lows = [kinds[k].low for k in SOLO_KINDS if kinds[k].deals]
    return min(lows) if lows else float("nan")


def paired(games: Sequence[DuplicateGame], before: Sequence[DuplicateGame]) -> dict[str, Estimate]:
    """How much better A did in ``games`` than in ``before``, a run of the same deals and
    layouts (an A/B test of a change on the same seeds): per deal the mean over the layouts
    played in both of ``diff`` minus the ``diff`` of ``before``, with its 95 % interval from
    the spread over deals; ``all`` over every such game, and per kind of :data:`KINDS` (the
    kind in ``before``, so that a change that alters the kind of a game stays comparable)."""
    old = {(g.deal, g.a_seats): g for g in before}
    pairs = [(g, old[(g.deal, g.a_seats)]) for g in games if (g.deal, g.a_seats) in old]
    out: dict[str, Estimate] = {}
    for k in ("all", *KINDS):
        per: dict[int, list[float]] = {}
        for new, base in pairs:
            if k == "all" or base.kind == k:
                per.setdefault(new.deal, []).append(new.diff - base.diff)
        n = sum(len(v) for v in per.values())
        out[k] = estimate([statistics.fmean(v) for v in per.values()], n)
    return out
