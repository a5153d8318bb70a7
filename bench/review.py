"""Game review: does it tell the levels apart, and what does it cost?

Each deal is played four times, by four computer players of one level each time (random,
easy, normal, strong: the same deals for every level), and every decision of every seat is
reviewed (:func:`dokobot.ai.review.review_game`, the budget per decision of ``/review``).
A review that marks everything or nothing cannot tell the levels apart; a good one finds the
most mistakes in the random level's games and the fewest in the strong level's.

    python bench/review.py                 # 6 deals
    python bench/review.py --deals 2 --budget 0.05 --strong-budget 0.05   # a smoke run

Ends with ``review_s_per_game: X mistakes_per_game random: R easy: E normal: N strong: S``,
X the CPU seconds of the review of one game (all four seats).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.ai.arena import play_game
from dokobot.ai.levels import OFFERED_LEVELS, make_player
from dokobot.ai.review import review_game
from dokobot.ai.search import DEFAULT_BUDGET_S, REVIEW_BUDGET_S


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=6, help="deals played by each level")
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
    args = parser.parse_args(argv)

    mistakes: dict[str, int] = {}
    seconds = 0.0
    games = 0
    for level in OFFERED_LEVELS:
        mistakes[level] = 0
        for k in range(args.deals):
            seed = args.seed + k
            players = [
                make_player(level, seed=seed * 4 + s, budget_s=args.strong_budget) for s in range(4)
            ]
            game = play_game(players, seed=seed, dealer=k % 4).game
            review = review_game(game, budget_s=args.budget, seed=seed)
            mistakes[level] += len(review.mistakes)
            seconds += review.seconds
            games += 1
            serious = sum(m.serious for m in review.mistakes)
            print(
                f"{level:7} deal {seed}: {review.decisions} decisions, "
                f"{len(review.mistakes)} mistakes ({serious} serious), {review.seconds:.1f} s",
                flush=True,
            )
    per_game = {level: mistakes[level] / args.deals for level in OFFERED_LEVELS}
    print(
        f"review_s_per_game: {seconds / games:.1f} mistakes_per_game "
        + " ".join(f"{level}: {per_game[level]:.2f}" for level in OFFERED_LEVELS)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
