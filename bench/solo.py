"""The strong level's solo judgement, measured on played-out deals.

For every hand of the deals ``--seed`` .. (nines on, dealer = deal mod 4) that is a solo
candidate by the hand evaluation (its best solo has at most ``--losers`` estimated losers,
:func:`~dokobot.ai.heuristic.losers`), the strong level's reservation search
(:meth:`~dokobot.ai.search.SearchPlayer.plan_values`, fixed work of ``--decide-budget``,
the others' hands unknown to it) values healthy, a wedding and the candidate solos. Then the
deal is played out twice with four strong players (fixed work of ``--budget`` per decision,
seeds as in ``bench/ai.py``): once with the candidate seat declaring the solo its search
values highest, once with it playing the best other plan (healthy, or a wedding), the others
deciding as they would. The candidate's score difference (solo minus the other game) is what
the solo was worth on that deal.

The report gives how far the search's values of the solo and of the other game lie above
what they scored when played (its bias), then by the search's gap (the solo's value minus the
best other plan's) and by estimated losers how many hands there are and what the solo was
worth when played (± s.e.), and what declaring from other margins of the gap would have
gained.
Then the strong level's own decision (:meth:`~dokobot.ai.search.SearchPlayer.declares_solo`)
and the ``normal`` level's (at most 3.5 losers): how often each declared, how often the
decision was right (it declared and the solo scored more than the other game, or it did not
and the solo scored less or the same), and the mean gain of its decision over never
declaring a solo, per candidate hand (± s.e.).

    nice -n 10 python bench/solo.py --hands 300 --procs 2 --rows solo.jsonl   # the lab's run
    python bench/solo.py --hands 2 --budget 0.01 --decide-budget 0.05        # a quick look

``--rows FILE`` writes a JSON line per hand (and, if FILE exists, plays only the hands it
lacks, so an interrupted run goes on).

The last line is ``hands: N declared: D right_pct: R gain: G se: E normal_gain: H zero_at:
Z`` (D: the strong level's solos among the N candidate hands; R: the share of its decisions
that were right; G ± E: its mean gain per candidate hand over never declaring; H: the same
for the ``normal`` level's rule on the same hands; Z: the search's gap from which a solo was
worth more than the other game, where the least-squares line of the worth on the gap crosses
0: the margin the measurement calls for).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing as mp
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.house import zero_crossing
from dokobot.ai.arena import mean_se
from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.heuristic import SOLO_LOSERS_MAX, best_solo, losers
from dokobot.ai.legal import legal_actions
from dokobot.ai.search import SearchPlayer
from dokobot.engine import (
    DECLARE_SOLO,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    Action,
    Game,
    Observation,
    Phase,
    observe,
)
from dokobot.engine.order import SCHEMES
from dokobot.engine.scoring import score

Row = dict[str, Any]


class _Planned:
    """A strong player whose reservation is fixed: ``plan`` (None: healthy)."""

    name = "strong"

    def __init__(self, player: SearchPlayer, plan: Action | None) -> None:
        self.player = player
        self.plan = plan

    def decide(self, obs: Observation) -> Action:
        if obs.phase is Phase.RESERVATIONS:
            return HEALTHY if self.plan is None else RESERVATION
        if obs.phase is Phase.DECLARATIONS and self.plan in legal_actions(obs):
            assert self.plan is not None
            return self.plan
        return self.player.decide(obs)

    def announce(self, obs: Observation) -> Action | None:
        return self.player.announce(obs)


def _strong(seed: int, budget: float) -> SearchPlayer:
    return SearchPlayer(seed, NO_RESTRICTIONS, budget_s=budget, fixed=True)


def _play(deal: int, seat: int, plan: Action | None, budget: float) -> float:
    """Seat ``seat``'s score of deal ``deal`` played by four strong players, ``seat`` with
    its reservation fixed to ``plan``."""
    g = Game.deal(DEFAULT_RULES, deal % 4, deal)
    players = [_strong(1000 * deal + s, budget) for s in range(4)]
    while g.phase is not Phase.FINISHED:
        turn = g.turn
        p = players[turn]
        player: SearchPlayer | _Planned = _Planned(p, plan) if turn == seat else p
        if g.phase is Phase.PLAYING:
            call = player.announce(observe(g, turn))
            if call is not None:
                g.play(turn, call)
        g.play(turn, player.decide(observe(g, turn)))
    return float(score(g).scores[seat])


def _reservation_obs(deal: int, seat: int) -> Observation:
    """What ``seat`` sees at its reservation (the seats before it said healthy)."""
    g = Game.deal(DEFAULT_RULES, deal % 4, deal)
    while g.turn != seat:
        g.play(g.turn, HEALTHY)
    return observe(g, seat)


def candidates(first: int, limit: float) -> Any:
    """(deal, seat) of every hand from deal ``first`` on whose best solo has at most
    ``limit`` estimated losers."""
    deal = first
    while True:
        g = Game.deal(DEFAULT_RULES, deal % 4, deal)
        for s in range(4):
            if best_solo(g.hands[s])[1] <= limit:
                yield deal, s
        deal += 1


def measure(task: tuple[int, int, float, float, float]) -> Row:
    """One candidate hand: the search's values (of the solos up to ``limit`` losers), the
    strong level's decision, both games played out."""
    deal, seat, budget, decide_budget, limit = task
    obs = _reservation_obs(deal, seat)
    player = _strong(1000 * deal + seat, decide_budget)
    probe = _strong(1000 * deal + seat, decide_budget)
    probe.solo_candidate = max(limit, player.solo_candidate)
    values = probe.plan_values(obs, with_healthy=True)
    solos = [(p, v) for p, v in values if p is not None and p >= DECLARE_SOLO]
    others = [(p, v) for p, v in values if p is None or p < DECLARE_SOLO]
    row: Row = {
        "deal": deal,
        "seat": seat,
        "losers": best_solo(obs.hand)[1],
        "values": [[p, v] for p, v in values],
        "declares": player.declares_solo(obs),
    }
    if not solos or not others:
        return row
    solo, solo_v = max(solos, key=lambda pv: pv[1])
    other, other_v = max(others, key=lambda pv: pv[1])
    row.update(
        solo=solo,
        solo_losers=losers(obs.hand, SCHEMES[solo - DECLARE_SOLO]),
        gap=solo_v - other_v,
        played_solo=_play(deal, seat, solo, budget),
        played_other=_play(deal, seat, other, budget),
    )
    return row


def _other(r: Row) -> Action | None:
    """The best plan of ``r`` by the search that is no solo."""
    others = [(p, v) for p, v in r["values"] if p is None or p < DECLARE_SOLO]
    return max(others, key=lambda pv: float(pv[1]))[0]  # type: ignore[no-any-return]


def _worth(r: Row) -> float:
    return float(r["played_solo"] - r["played_other"])


def judge(rows: list[Row], declares: list[bool]) -> tuple[float, float, float]:
    """(share right in percent, mean gain over never declaring, its s.e.) of decisions."""
    right = [(_worth(r) > 0) == d for r, d in zip(rows, declares, strict=True)]
    gain, se = mean_se([_worth(r) if d else 0.0 for r, d in zip(rows, declares, strict=True)])
    return 100.0 * sum(right) / max(1, len(rows)), gain, se


def _value(r: Row, plan: Action | None) -> float:
    return float(next(v for p, v in r["values"] if p == plan))


def report(rows: list[Row]) -> float:
    """Print the tables; return the gap from which a solo is worth declaring (the least-squares
    line of the worth on the gap crosses 0 there)."""
    played = [r for r in rows if "gap" in r]
    deals = max((r["deal"] for r in rows), default=0) - min((r["deal"] for r in rows), default=0)
    print(
        f"{len(played)} candidate hands played both ways (of {len(rows)} candidates,"
        f" {deals + 1} deals)"
    )
    for name, plan, key in (("the solo", "solo", "played_solo"), ("the other", None, "")):
        xs = [_value(r, r[plan] if plan else _other(r)) - r[key or "played_other"] for r in played]
        m, se = mean_se(xs)
        print(f"  the search's value of {name} minus its score when played {m:+.2f} (±{se:.2f})")
    print(f"  {'search gap':<12} {'hands':>6}  the solo's worth when played (± s.e.)")
    edges = [-math.inf, -6.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0, math.inf]
    for lo, hi in itertools.pairwise(edges):
        xs = [_worth(r) for r in played if lo <= r["gap"] < hi]
        m, se = mean_se(xs)
        print(f"  {lo:>5g}..{hi:<5g} {len(xs):>6}  {m:+.2f} (±{se:.2f})")
    print("  declaring the solo when the search's gap is at least M (the level's margin: 0.5):")
    for margin in (-2.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0):
        declares = [r["gap"] >= margin for r in played]
        right, gain, se = judge(played, declares)
        print(
            f"    M {margin:+4.1f}: declares {sum(declares):>4}, right {right:5.1f} %,"
            f" gain {gain:+.2f} (±{se:.2f}) per candidate hand"
        )
    x0, x0_se = zero_crossing([(r["gap"], _worth(r)) for r in played], -math.inf, math.inf)
    print(f"  least squares of the worth on the gap: 0 at a gap of {x0:.2f} (±{x0_se:.2f})")
    print(f"  {'losers':<12} {'hands':>6}  the solo's worth when played (± s.e.)")
    for lo, hi in ((0.0, 2.5), (2.5, 3.5), (3.5, 4.5), (4.5, 5.5), (5.5, 99.0)):
        xs = [_worth(r) for r in played if lo <= r["solo_losers"] < hi]
        m, se = mean_se(xs)
        print(f"  {lo:>5g}..{hi:<5g} {len(xs):>6}  {m:+.2f} (±{se:.2f})")
    return x0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=300, help="candidate hands to measure")
    ap.add_argument("--seed", type=int, default=60_000, help="the first deal")
    ap.add_argument("--losers", type=float, default=6.0, help="candidate: best solo's losers")
    ap.add_argument("--budget", type=float, default=0.2, help="fixed work per card decision")
    ap.add_argument("--decide-budget", type=float, default=0.8, help="fixed work, reservation")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--rows", default=None, help="JSON lines of the hands (resumes)")
    args = ap.parse_args(argv)
    rows: list[Row] = []
    path = Path(args.rows) if args.rows else None
    if path is not None and path.exists():
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    done = {(r["deal"], r["seat"]) for r in rows}
    tasks = []
    for deal, seat in candidates(args.seed, args.losers):
        if len(tasks) + len(done) >= args.hands:
            break
        if (deal, seat) not in done:
            tasks.append((deal, seat, args.budget, args.decide_budget, args.losers))
    out = path.open("a") if path is not None else None
    try:
        with mp.Pool(args.procs) if args.procs > 1 else _Serial() as pool:
            for row in pool.imap_unordered(measure, tasks):
                rows.append(row)
                if out is not None:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
    finally:
        if out is not None:
            out.close()
    rows.sort(key=lambda r: (r["deal"], r["seat"]))
    x0 = report(rows)
    played = [r for r in rows if "gap" in r]
    strong = [bool(r["declares"]) for r in played]
    normal = [r["losers"] <= SOLO_LOSERS_MAX for r in played]
    right, gain, se = judge(played, strong)
    n_right, n_gain, n_se = judge(played, normal)
    print(
        f"  strong declares {sum(strong)}: right {right:.1f} %, gain {gain:+.2f} (±{se:.2f});"
        f" normal's rule declares {sum(normal)}: right {n_right:.1f} %,"
        f" gain {n_gain:+.2f} (±{n_se:.2f})"
    )
    print(
        f"hands: {len(played)} declared: {sum(strong)} right_pct: {right:.1f} gain: {gain:+.2f}"
        f" se: {se:.2f} normal_gain: {n_gain:+.2f} zero_at: {x0:.2f}"
    )
    return 0


class _Serial:
    """A pool of one process: the tasks in this process, in order."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn: Any, tasks: list[Any]) -> Any:
        return map(fn, tasks)


if __name__ == "__main__":
    raise SystemExit(main())
