"""Game review: does it tell the levels apart, are its flags right, and what does it cost?

Each deal is played four times, by four computer players of one level each time (random,
easy, normal, strong: the same deals for every level), and every decision of every seat is
reviewed (:func:`dokobot.ai.review.review_game`, the budget per decision of ``/review``).
A review that marks everything or nothing cannot tell the levels apart; a good one finds the
most mistakes in the random level's games and the fewest in the strong level's. Each step
(random - easy, easy - normal, normal - strong) is tested on the same deals (a paired
design: the deal's luck is in both games of a pair): the mean difference of mistakes per game
over the deals and its z (mean / standard error), and the same for the points the flagged
decisions lost per game (each mistake weighted by its gap: a thrown-away ten counts more than
a slightly worse discard, and the counts' noise of small flags weighs less).

Are the flags right? Every flagged card played with 4 or fewer cards in hand is solved
exactly over every layout of the unseen cards consistent with what the player saw
(:func:`~dokobot.ai.layouts.layouts`, :func:`~dokobot.ai.solver.solve`, each layout by its
weight times the learned inference's tilt, :func:`~dokobot.ai.inference.layout_weight`, as
the review weighs it): a flag is confirmed if the card the review named is better than the card played by
that exact mean (by more than 0.001 points). ``false_flags`` is the share of such flags not
confirmed; a position with more than ``--ff-layouts`` layouts is not checked (counted apart).
The share of flags whose exact loss is also at least the review's threshold (0.5) is
printed too, and how many of the flags the review judged from sampled layouts (those it
enumerated are exact by construction: the check tests the sampled ones).

    python bench/review.py                 # 24 deals
    python bench/review.py --deals 2 --budget 0.05 --strong-budget 0.05   # a smoke run

Ends with ``review_s_per_game: X mistakes_per_game random: R easy: E normal: N strong: S
false_flags: FF``, X the CPU seconds of the review of one game (all four seats).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

from dokobot.ai.arena import play_game
from dokobot.ai.exact import SOLVE_S
from dokobot.ai.inference import default_model, layout_weight
from dokobot.ai.layouts import layouts
from dokobot.ai.levels import OFFERED_LEVELS, make_player
from dokobot.ai.review import ENUMERATE_CAP, MIN_WORLDS, MISTAKE, Mistake, review_game
from dokobot.ai.search import DEFAULT_BUDGET_S, REVIEW_BUDGET_S
from dokobot.ai.solver import MAX_TRICKS, solve
from dokobot.engine import Game, observe


def exact_loss(
    game: Game, m: Mistake, max_layouts: int, budget: float
) -> tuple[float | None, bool]:
    """The exact mean loss of the card played against the card the review named, over
    every consistent layout (None: more than ``max_layouts`` layouts), and whether the
    review judged it from sampled layouts (more than it enumerates at ``budget``)."""
    g = game.redealt()
    for seat, action in game.log[: m.index]:
        g.play(seat, action)
    obs = observe(g, m.seat)
    cards = obs.hand.bit_count()
    sampled = layouts(obs, max(MIN_WORLDS, int(budget * ENUMERATE_CAP / SOLVE_S[cards]))) is None
    found = layouts(obs, max_layouts)
    if found is None:
        return None, sampled
    assert m.played is not None and m.better is not None
    tilt = default_model().seat_scores(obs)
    total = weight = 0.0
    for hands, w0 in found:
        w = w0 * (1.0 if tilt is None else layout_weight(tilt, hands, obs.seat))
        v = solve(obs.world(hands))
        played = m.played if m.played in v else m.played ^ 1
        better = m.better if m.better in v else m.better ^ 1
        total += w * (v[better] - v[played])
        weight += w
    return total / weight, sampled


def paired_step(a: list[int] | list[float], b: list[int] | list[float]) -> tuple[float, float]:
    """The mean of ``a - b`` over the deals (both played on the same deals) and its standard
    error."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
    return mean, math.sqrt(var / len(diffs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=24, help="deals played by each level")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument(
        "--budget",
        type=float,
        default=REVIEW_BUDGET_S,
        help=f"the review's CPU seconds per decision (default {REVIEW_BUDGET_S})",
    )
    parser.add_argument(
        "--strong-budget",
        type=float,
        default=DEFAULT_BUDGET_S,
        help="the strong players' CPU seconds per decision",
    )
    parser.add_argument(
        "--ff-layouts",
        type=int,
        default=3000,
        help="the most layouts of a flagged position the false-flag check solves",
    )
    args = parser.parse_args(argv)

    per_deal: dict[str, list[int]] = {}
    lost: dict[str, list[float]] = {}
    seconds = 0.0
    games = 0
    checked = unconfirmed = small = unchecked = sampled_flags = sampled_wrong = 0
    check_s = 0.0
    for level in OFFERED_LEVELS:
        per_deal[level] = []
        lost[level] = []
    for k in range(args.deals):  # deal after deal, every level in turn (a run cut short is fair)
        seed = args.seed + k
        for level in OFFERED_LEVELS:
            players = [
                make_player(level, seed=seed * 4 + s, budget_s=args.strong_budget) for s in range(4)
            ]
            game = play_game(players, seed=seed, dealer=k % 4).game
            review = review_game(game, budget_s=args.budget, seed=seed)
            per_deal[level].append(len(review.mistakes))
            lost[level].append(sum(m.loss for m in review.mistakes))
            seconds += review.seconds
            games += 1
            t0 = time.thread_time()
            late = exact = wrong = from_samples = 0
            for m in review.mistakes:
                if m.kind != "card" or m.trick <= game.rules.hand_size - MAX_TRICKS:
                    continue
                late += 1
                loss, sampled = exact_loss(game, m, args.ff_layouts, args.budget)
                if loss is None:
                    unchecked += 1
                    continue
                exact += 1
                checked += 1
                from_samples += sampled
                sampled_flags += sampled
                sampled_wrong += sampled and loss <= 1e-3
                wrong += loss <= 1e-3
                unconfirmed += loss <= 1e-3
                small += loss < MISTAKE
            check_s += time.thread_time() - t0
            serious = sum(m.serious for m in review.mistakes)
            print(
                f"{level:7} deal {seed}: {review.decisions} decisions, "
                f"{len(review.mistakes)} mistakes ({serious} serious), "
                f"{lost[level][-1]:.2f} points lost, {review.seconds:.1f} s; "
                f"late flags {late}, checked {exact}, not confirmed {wrong}, "
                f"judged from samples {from_samples}",
                flush=True,
            )
    per_game = {level: sum(v) / args.deals for level, v in per_deal.items()}
    for a, b in itertools.pairwise(OFFERED_LEVELS):
        for what, values in (("mistakes", per_deal), ("points lost", lost)):
            mean, se = paired_step(values[a], values[b])
            z = mean / se if se else math.inf
            print(f"{a} - {b}: {mean:+.2f} {what} per game (se {se:.2f}, z {z:.1f})")
    ff = unconfirmed / checked if checked else 0.0
    print(
        f"flags with {MAX_TRICKS} or fewer cards in hand: {checked} checked exactly "
        f"({unchecked} with more than {args.ff_layouts} layouts not checked), "
        f"{unconfirmed} not confirmed, {small} with an exact loss below {MISTAKE}; "
        f"{sampled_flags} judged from sampled layouts, {sampled_wrong} of them not confirmed; "
        f"check {check_s:.0f} s"
    )
    print(
        f"review_s_per_game: {seconds / games:.1f} mistakes_per_game "
        + " ".join(f"{level}: {per_game[level]:.2f}" for level in OFFERED_LEVELS)
        + f" false_flags: {ff:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
