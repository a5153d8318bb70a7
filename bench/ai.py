"""Duplicate matches between computer players.

Each match puts one player of type A against three of type B. Every deal is played four
times with A in each seat, so A plays every hand from every seat; a deal's result is the
mean of A's four scores, and the 95 % confidence interval comes from the spread over deals.

    python bench/ai.py --games 400            # search/heuristic and heuristic/random
    python bench/ai.py --games 400 --vs-random

``--games`` counts games per match (deals x 4). Decision times are process CPU time of the
single-threaded worker (one core), per turn (a call plus the turn action).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.ai import make_player
from dokobot.ai.arena import play_game
from dokobot.ai.base import ComputerPlayer
from dokobot.engine import GameType

Task = tuple[str, str, str, int, int, float | None]


def _run(task: Task) -> tuple[str, int, int, float, list[float], list[float], str]:
    """One game: (match, deal, focal seat, A's score, A's times, B's times, game kind)."""
    match, a, b, deal, seat, budget = task
    players: list[ComputerPlayer] = []
    for s in range(4):
        level = a if s == seat else b
        players.append(make_player(level, seed=1000 * deal + s, budget_s=budget))
    rec = play_game(players, seed=deal, dealer=deal % 4)
    g = rec.game
    kind = g.game_type.key
    if g.game_type is GameType.SOLO:
        kind = "solo-A" if g.declarer == seat else "solo-B"
    a_times = rec.times[seat]
    b_times = [t for s in range(4) if s != seat for t in rec.times[s]]
    return match, deal, seat, float(rec.result.scores[seat]), a_times, b_times, kind


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games per match (deals x 4)")
    ap.add_argument("--vs-random", action="store_true", help="also one search vs three random")
    ap.add_argument("--budget", type=float, default=None, help="search seconds per decision")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="first deal seed")
    ap.add_argument("--only", default="", help="comma list of matches to run")
    args = ap.parse_args()
    deals = max(1, args.games // 4)
    matches = [
        ("search_vs_heuristic", "strong", "normal"),
        ("heuristic_vs_random", "normal", "random"),
    ]
    if args.vs_random:
        matches.append(("search_vs_random", "strong", "random"))
    if args.only:
        keep = set(args.only.split(","))
        matches = [m for m in matches if m[0] in keep]
    tasks: list[Task] = [
        (name, a, b, args.seed + d, seat, args.budget)
        for name, a, b in matches
        for d in range(deals)
        for seat in range(4)
    ]
    t0 = time.time()
    per_deal: dict[str, dict[int, list[float]]] = {m[0]: {} for m in matches}
    times: dict[str, list[float]] = {}
    kinds: dict[str, Counter[str]] = {m[0]: Counter() for m in matches}
    with mp.Pool(args.procs) as pool:
        results = pool.imap_unordered(_run, tasks, chunksize=1)
        for done, (match, deal, _seat, sc, at, bt, kind) in enumerate(results, 1):
            if done % 100 == 0 or done == len(tasks):
                print(
                    f"  {done}/{len(tasks)} games, {time.time() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            per_deal[match].setdefault(deal, []).append(sc)
            a_level, b_level = next((a, b) for n, a, b in matches if n == match)
            times.setdefault(a_level, []).extend(at)
            times.setdefault(b_level, []).extend(bt)
            kinds[match][kind] += 1
    wall = time.time() - t0
    ppg: dict[str, tuple[float, float, float]] = {}
    for name, a, b in matches:
        means = [statistics.fmean(v) for v in per_deal[name].values()]
        m = statistics.fmean(means)
        half = 1.96 * statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else 0.0
        ppg[name] = (m, m - half, m + half)
        print(
            f"{name}: {a} scores {m:+.3f} points/game (95% CI {m - half:+.3f}..{m + half:+.3f}) "
            f"against 3x {b}, {len(means)} deals x 4 seats; game kinds {dict(kinds[name])}"
        )
    for level, ts in sorted(times.items()):
        print(
            f"decision time {level}: p50 {_pct(ts, 0.5) * 1000:.1f} ms  "
            f"p95 {_pct(ts, 0.95) * 1000:.1f} ms  max {max(ts) * 1000:.1f} ms  (n={len(ts)})"
        )
    print(f"wall time {wall:.0f} s on {args.procs} processes")
    nan = float("nan")
    svh = ppg.get("search_vs_heuristic", (nan, nan, nan))
    hvr = ppg.get("heuristic_vs_random", (nan, nan, nan))
    sp95 = _pct(times.get("strong", []), 0.95)
    line = (
        f"search_vs_heuristic_ppg: {svh[0]:.3f} ci95: {svh[1]:.3f}..{svh[2]:.3f} "
        f"heuristic_vs_random_ppg: {hvr[0]:.3f} search_p95_s: {sp95:.3f}"
    )
    if "search_vs_random" in ppg:
        print(f"search_vs_random_ppg: {ppg['search_vs_random'][0]:.3f}")
    print(line)


if __name__ == "__main__":
    main()
