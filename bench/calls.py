"""What the calls of a level were worth in its own games.

Four players of one level (``--level``; or the strong level with ``--strong name=value,...``
as in ``bench/ai.py``) play the deals ``--seed`` .. (dealer 3, the players seeded by deal
and seat), each decision with ``--budget`` seconds of CPU (``--fixed``: the fixed work of that
budget). After each game, for each party that called (Re, Kontra and the lower calls), the
call's worth is the party's score as played minus its score had the party made no call at all,
the eyes and tricks as played (:func:`~dokobot.engine.scoring.outcome_scores`; a soloist's
score counts three times). It leaves out what a call changed in the play (the partner who
learns the party, the other side's answer), so it prices the judgement "we will win", not
the call's whole effect. A party that did not call gets the hindsight worth of its first call
(Re or Kontra alone): what calling would have gained, knowing the outcome.

    python bench/calls.py --level strong_uct --games 200 --budget 0.02 --procs 2
    python bench/calls.py --level strong --games 200 --budget 0.02 --procs 2
    python bench/calls.py --strong call_z=0 --games 200 --budget 0.02 --procs 2   # old rule

The last line is ``games: G re_calls: R re_worth: A kontra_calls: K kontra_worth: B
call_points_per_game: P`` (R, K: the parties that called, per game; A, B: the mean worth of
one party's calls; P: the calls' worth summed over both parties, per game).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ai import Params, strong_params
from bench.ai import _make as make_seat
from dokobot.ai.arena import mean_se, play_game
from dokobot.engine import Game
from dokobot.engine.scoring import outcome_scores

PARTIES = ("re", "kontra")


def call_worths(g: Game) -> tuple[list[float | None], list[float]]:
    """Per party (Re, Kontra) of the finished ``g``: the worth of its calls (``None`` if it
    made none), and the hindsight worth of its first call had it made one (0 where it called)."""
    re = g.re_seats
    re_eyes = sum(g.eyes[s] for s in range(4) if re >> s & 1)
    re_won = sum(g.won[s] for s in range(4) if re >> s & 1)
    levels = list(g.level)
    n = g.rules.hand_size
    played = outcome_scores(g.game_type, re, re_eyes, re_won, levels, n)
    worth: list[float | None] = [None, None]
    missed = [0.0, 0.0]
    for party in range(2):
        seat = next(s for s in range(4) if (re >> s & 1) == (party == 0))
        other = levels[:]
        other[party] = 0 if levels[party] else 1
        alt = outcome_scores(g.game_type, re, re_eyes, re_won, other, n)
        if levels[party]:
            worth[party] = float(played[seat] - alt[seat])
        else:
            missed[party] = float(alt[seat] - played[seat])
    return worth, missed


def play(
    level: str, params: Params, budget: float, fixed: bool, deal: int
) -> tuple[list[float | None], list[float]]:
    """One deal played by four players of the level: :func:`call_worths` of its game."""
    make = partial(make_seat, budget, fixed, params, 0, "strong" if params else level)
    players = [make(deal * 10 + s) for s in range(4)]
    return call_worths(play_game(players, seed=deal).game)


def report(rows: Sequence[tuple[list[float | None], list[float]]]) -> str:
    """The report's lines; the last one is the line the module describes."""
    games = len(rows)
    lines = []
    made: list[list[float]] = []
    for party, name in enumerate(PARTIES):
        worths = [w[party] for w, _ in rows if w[party] is not None]
        made.append([x for x in worths if x is not None])
        missed = [m[party] for w, m in rows if w[party] is None]
        mean, se = mean_se(made[party])
        m_mean, m_se = mean_se(missed)
        won = sum(x > 0 for x in made[party])
        lines.append(
            f"{name}: called in {len(made[party])} of {games} games, worth {mean:+.2f} "
            f"(±{1.96 * se:.2f}) per call, {won} won; not called in {len(missed)}, "
            f"hindsight worth of calling {m_mean:+.2f} (±{1.96 * m_se:.2f})"
        )
    total = sum(sum(x) for x in made) / games
    (re_mean, _), (ko_mean, _) = (mean_se(x) for x in made)
    lines.append(
        f"games: {games} re_calls: {len(made[0]) / games:.2f} re_worth: {re_mean:+.2f} "
        f"kontra_calls: {len(made[1]) / games:.2f} kontra_worth: {ko_mean:+.2f} "
        f"call_points_per_game: {total:+.2f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="strong", help="the level of all four players")
    ap.add_argument("--strong", default="", help="the strong level with these settings")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5001, help="the first deal")
    ap.add_argument("--budget", type=float, default=0.02, help="CPU seconds per decision")
    ap.add_argument("--fixed", action="store_true", help="the fixed work of the budget")
    ap.add_argument("--procs", type=int, default=2)
    args = ap.parse_args(argv)
    run = partial(play, args.level, strong_params(args.strong), args.budget, args.fixed)
    deals = range(args.seed, args.seed + args.games)
    if args.procs > 1:
        with mp.Pool(args.procs) as pool:
            rows = pool.map(run, deals)
    else:
        rows = [run(d) for d in deals]
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
