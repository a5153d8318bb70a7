"""Duplicate matches between computer players, with the strength per game kind.

A match compares player A with player B on the same deals. Each deal is played by B in all
four seats (the baseline) and then in layouts with A in some seats: A alone in each seat (one
A against three B) and, unless ``--layouts single``, two A players in opposite seats (0 and 2,
then 1 and 3). A's result in a game is A's score minus B's score in the same seat of the
baseline (the luck of the cards cancels); a deal's result is the mean over its games, and the
95 % confidence intervals come from the spread over deals.

    python bench/ai.py --games 2000 --solo-games 480 --procs 2 --by-kind   # the issue's run
    python bench/ai.py --games 2000 --solo-games 480 --procs 2 --by-kind --resume run.jsonl
    python bench/ai.py --games 80 --procs 1 --solo-deals --only search_vs_heuristic
    python bench/ai.py --games 400 --rules poverty,piglets,bock --by-kind   # house rules on
    python bench/ai.py --games 600 --procs 1 --only search_vs_heuristic --house-rules  # all
    python bench/ai.py --games 2000 --procs 2 --only search_vs_heuristic,search_vs_previous
    nice -n 10 python bench/ai.py --games 2000 --procs 2 --layouts single --budget 0.05 \\
        --only inference_vs_previous --resume inference.jsonl     # learned inference

``--games`` counts the games with A per match (deals x layouts). ``--by-kind`` adds a table
per game kind: normal with A partners, normal with B partners (mixed), wedding, a solo
declared by A, a solo declared by B (a game is a solo if the A game or the baseline is one).
``--solo-deals`` keeps only deals whose baseline is a solo (probes of solo play),
``--wedding-deals`` only deals in which a hand holds both ♣Q (probes of weddings).
``--solo-games N`` adds N games on deals whose baseline is a solo (B lust solos are rare, about
one deal in 100 for ``normal``): they count in the solo kinds of the table and in W, not in the
overall points per game, which stay those of a plain sample of deals.

Decision times are CPU time of the playing thread, per turn (a call plus the turn action);
the budget share is that time over the budget, at the median over the turns where the strong
player had a choice. ``--fixed`` plays the strong level with its fixed, deterministic amount of
work instead of its time budget (by default the standard work,
:data:`~dokobot.ai.search.STANDARD_WORK_S`).

A/B tests of a change on the same seeds: ``--save FILE`` writes every game of the strong
match (:func:`compared_match`: ``search_vs_heuristic``, or with ``--only`` the first match
the strong level plays as A) (deal, layout, kind, difference) as JSON; a later run with the same options and
``--compare FILE`` prints the paired difference, this run minus the saved one, overall and per
kind with 95 % intervals over deals (``--fixed`` makes both runs deterministic, so only the
games the change altered differ). ``--strong name=value,...`` sets keyword parameters of the strong
player (:class:`~dokobot.ai.search.SearchPlayer`: ``c``, ``worlds``, ``greedy``, ``infer``,
``heuristic_margin``, ...) for such a test. ``--search-seed K`` changes only the strong
player's random choices (the deals and the other players stay): a run against the same one
with another ``K`` shows how far a change-free comparison strays, the floor under which a
paired change means nothing.

Long runs: ``--resume FILE`` writes every finished game to FILE (a JSON line each, after a
first line with the run's options) and, if FILE exists, plays only the games it lacks; the
options must be the same. An interrupted run (a killed process, the end of a working session,
a restart) goes on where it stopped and ends with the figures of all its games; the wall time
it reports adds up the parts.

``--rules`` sets table options as ``/option`` takes them (RULES §11, §12): a comma list of
``NAME=VALUE``, or ``NAME`` for ``NAME=on``, e.g. ``poverty,nines=off,wedding_trick=trump``;
``--house-rules`` adds every house rule that is off in the plain game (poverty, throw-in,
piglets, bock, superpiglets); ``bock`` plays bock rounds over the deals in order, triggered by the baseline
games, so A and B count double in the same games.

Strength per CPU second: ``--budgets 0.05,0.1,0.2,0.4`` plays only strong against normal, at
each budget (seconds per decision) on the same deals and layouts, deal after deal with every
budget of a deal in turn, so a load that changes during the run falls alike on every budget.
The strong player keeps its time budget (the live mode; ``--fixed`` is another player, ten
worlds of more or less work): a budget counts the CPU time of the searching thread, which the
load of a shared machine changes far less than the wall clock, and the wall-clock cap that lets
a starved live table answer in time is lifted here, since a niced run may wait seconds for a
core. Per budget it prints strong - normal with its 95 % interval, the strong seats' CPU per
game and seat (all their turns) and per decision with a choice, the budget share, and the
paired change between each two budgets (same deals, same seeds). ``--layouts single`` spends
every strong seat on a game whose result is its own (two strong partners' results cancel when
they sit on opposite sides).

    nice -n 19 python bench/ai.py --budgets 0.05,0.1,0.2,0.4 --games 368 --layouts single \\
        --procs 1 --by-kind --resume budgets.jsonl

The last line is
``strong_vs_normal_ppg: X ci95: A..B worst_kind_lower: W budget_share_p50: S search_p95_s: Z``
(W: the lowest CI lower bound over the solo kinds); with ``--budgets 0.05,0.1,…`` it is
``budget 0.05: X ci95: A..B cpu_s_per_game: C budget 0.1: X ci95: A..B cpu_s_per_game: C …``
(X: strong - normal points per game; C: the strong seats' CPU seconds per game and seat).
"""

from __future__ import annotations

import argparse
import inspect
import json
import multiprocessing as mp
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.ai import budget as search_budget
from dokobot.ai.arena import (
    KINDS,
    PAIR_LAYOUTS,
    SINGLE_LAYOUTS,
    DuplicateGame,
    Estimate,
    by_kind,
    overall,
    paired,
    play_duplicate,
    solo_deals,
    wedding_deals,
    with_bock,
    worst_solo_lower,
)
from dokobot.ai.base import NO_RESTRICTIONS, ComputerPlayer
from dokobot.ai.levels import SEARCHING_LEVELS, make_player
from dokobot.ai.search import DEFAULT_BUDGET_S, STANDARD_WORK_S, SearchPlayer
from dokobot.engine import Rules
from dokobot.host.options import HOUSE_RULES, OptionError, TableOptions

MATCHES = {
    "search_vs_heuristic": ("strong", "normal"),
    "heuristic_vs_random": ("normal", "random"),
    "search_vs_random": ("strong", "random"),
    "search_vs_previous": ("strong", "strong_uct"),
    "inference_vs_previous": ("strong", "strong_prev"),
    "endgame_vs_previous": ("strong_prev", "strong_uct"),
}
"""``search_vs_previous``: the strong level against itself as it was before exact endgames
(``strong_uct``: UCT to the last card); ``inference_vs_previous``: against itself as it was
before learned inference (``strong_prev``: worlds drawn uniformly); ``endgame_vs_previous``:
the exact endgame alone (``strong_prev`` against ``strong_uct``, which differ in nothing
else); all on the same deals at the same budget."""


def compared_match(names: Sequence[str]) -> str | None:
    """The match whose games ``--save`` writes and ``--compare`` compares: the strong match
    among the matches run (``search_vs_heuristic`` when it runs, else the first one in which
    the strong level plays A), or ``None``.

    >>> compared_match(["search_vs_heuristic", "heuristic_vs_random"])
    'search_vs_heuristic'
    >>> compared_match(["heuristic_vs_random", "search_vs_previous"])
    'search_vs_previous'
    >>> compared_match(["heuristic_vs_random", "endgame_vs_previous"]) is None
    True
    """
    if "search_vs_heuristic" in names:
        return "search_vs_heuristic"
    return next((n for n in names if MATCHES[n][0] == "strong"), None)


Params = tuple[tuple[str, float | int | bool], ...]
Task = tuple[str, int, tuple[int, ...], float, bool, Rules, Params, int]


def strong_params(spec: str) -> Params:
    """The ``--strong`` settings: ``name=value`` pairs of :class:`SearchPlayer`'s keyword
    parameters, each converted to the type of its default.

    >>> strong_params("c=12,worlds=20,greedy=true")
    (('c', 12.0), ('worlds', 20), ('greedy', True))
    """
    defaults = {
        p.name: p.default
        for p in inspect.signature(SearchPlayer).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }
    out: list[tuple[str, float | int | bool]] = []
    for item in filter(None, (x.strip() for x in spec.split(","))):
        name, _, raw = item.partition("=")
        if name not in defaults or not raw:
            raise SystemExit(f"bench/ai.py: --strong takes name=value of {sorted(defaults)}")
        d = defaults[name]
        if isinstance(d, bool):
            out.append((name, raw.lower() in ("1", "true", "yes", "on")))
        elif isinstance(d, int):
            out.append((name, int(raw)))
        else:
            out.append((name, float(raw)))
    return tuple(out)


SEARCH_SEED_STEP: Final = 1_000_003
"""``--search-seed K`` adds ``K`` times this to the strong player's seeds (never a seat's)."""


def _make(
    budget: float, fixed: bool, params: Params, search_seed: int, level: str, seed: int
) -> ComputerPlayer:
    if level in SEARCHING_LEVELS:
        seed += search_seed * SEARCH_SEED_STEP
    if level == "strong" and params:
        return SearchPlayer(seed, NO_RESTRICTIONS, budget, fixed=fixed, **dict(params))  # type: ignore[arg-type]
    return make_player(level, seed=seed, budget_s=budget, fixed=fixed)


def _run(task: Task) -> tuple[Task, DuplicateGame]:
    match, deal, a_seats, budget, fixed, rules, params, search_seed = task
    a, b = MATCHES[match]
    make = partial(_make, budget, fixed, params, search_seed)
    return task, play_duplicate(make, a, b, deal, a_seats, rules=rules)


def _lift_wall_cap() -> None:
    """``--budgets``: no wall-clock cap on a search (see the module), in each worker."""
    setattr(search_budget, "WALL_CAP_BASE_S", float("inf"))  # noqa: B010 (the bench's own setting)


def budget_label(match: str, budget: float) -> str:
    """The name of a ``--budgets`` run's match at one budget (its results, its journal rows).

    >>> budget_label("search_vs_heuristic", 0.1)
    'search_vs_heuristic@0.1'
    """
    return f"{match}@{budget:g}"


def all_house_rules() -> str:
    """The ``--rules`` of ``--house-rules``: every house rule (RULES §12) that is off in the
    plain game, on.

    >>> all_house_rules()
    'poverty,throw_in,piglets,bock,superpiglets'
    """
    plain = TableOptions()
    return ",".join(n for n in HOUSE_RULES if plain.get(n) is False)


def house_rules(spec: str) -> tuple[Rules, bool]:
    """(the rules, whether bock rounds are on) of a ``--rules`` list: table options as
    ``/option`` takes them, ``NAME=VALUE`` or ``NAME`` for ``NAME=on``.

    >>> rules, bock = house_rules("poverty,bock,wedding_trick=trump,nines=off")
    >>> rules.poverty, rules.piglets, rules.wedding_trick, rules.nines, bock
    (True, False, 'trump', False, True)
    """
    options = TableOptions()
    for item in filter(None, (r.strip() for r in spec.split(","))):
        name, _, value = item.partition("=")
        try:
            options = options.set(name, value or "on")
        except OptionError as exc:
            raise SystemExit(f"bench/ai.py --rules: {exc}") from exc
    return options.rules, options.bock


def _pct(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def _ci(e: Estimate) -> str:
    return f"{e.mean:+.3f} (95% CI {e.low:+.3f}..{e.high:+.3f})"


def kind_table(games: Sequence[DuplicateGame]) -> list[str]:
    """The ``--by-kind`` table: per game kind the games, the deals and A's points per game."""
    kinds = by_kind(games)
    total = max(1, len(games))
    lines = [f"  {'kind':<16} {'games':>6} {'share':>6} {'deals':>6}  points/game (95% CI)"]
    for k in KINDS:
        e = kinds[k]
        share = 100.0 * e.games / total
        lines.append(f"  {k:<16} {e.games:>6} {share:>5.1f}% {e.deals:>6}  {_ci(e)}")
    return lines


def save_games(path: str, games: Sequence[DuplicateGame]) -> None:
    """Write ``games`` for a later ``--compare`` (only what the comparison needs)."""
    rows = [
        {"deal": g.deal, "a_seats": list(g.a_seats), "kind": g.kind, "diff": g.diff} for g in games
    ]
    Path(path).write_text(json.dumps(rows) + "\n", encoding="utf-8")


def game_of_row(r: dict[str, Any]) -> DuplicateGame:
    """The game of a row written by :func:`save_games` or :class:`Journal` (a saved game has
    no times); raises ``KeyError``, ``ValueError`` or ``TypeError`` on a damaged row."""
    return DuplicateGame(
        int(r["deal"]),
        tuple(int(x) for x in r["a_seats"]),
        str(r["kind"]),
        float(r["diff"]),
        tuple(float(x) for x in r.get("a_times", ())),
        tuple(bool(x) for x in r.get("a_choices", ())),
        tuple(float(x) for x in r.get("b_times", ())),
        bool(r.get("bock", False)),
    )


def load_games(path: str) -> list[DuplicateGame]:
    """The games written by :func:`save_games` (without times)."""
    return [game_of_row(r) for r in json.loads(Path(path).read_text(encoding="utf-8"))]


def compare_table(games: Sequence[DuplicateGame], before: Sequence[DuplicateGame]) -> list[str]:
    """The ``--compare`` table: per kind (of the saved run) this run minus the saved one."""
    lines = [f"  {'kind':<16} {'games':>6} {'deals':>6}  change, points/game (95% CI)"]
    for k, e in paired(games, before).items():
        if e.games:
            lines.append(f"  {k:<16} {e.games:>6} {e.deals:>6}  {_ci(e)}")
    return lines


JOURNAL_OPTIONS: Final = (
    "games", "solo_games", "seed", "budget", "budgets", "fixed", "only", "layouts",
    "solo_deals", "vs_random", "strong", "rules", "search_seed", "wedding_deals",
)  # fmt: skip
"""The options that define a run: a journal written with others is refused."""


class Journal:
    """The games a run has finished, on disk (``--resume``): the first line holds the run's
    options, each further line one game of a match with all its figures and the run's wall
    time so far. A last line cut short by a crash is ignored (the game is played again)."""

    def __init__(self, path: str, options: dict[str, object]) -> None:
        self.path = Path(path)
        self.done: dict[tuple[str, int, tuple[int, ...]], DuplicateGame] = {}
        self.wall_before = 0.0
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        if lines:
            try:
                head = json.loads(lines[0])
            except ValueError:
                head = None
            old = head.get("options") if isinstance(head, dict) else None
            if old != options:
                diff = (
                    ", ".join(
                        f"{k} {old.get(k)!r} there, {v!r} here"
                        for k, v in options.items()
                        if old.get(k) != v
                    )
                    if isinstance(old, dict)
                    else "its first line is not a run's options"
                )
                raise SystemExit(f"bench/ai.py: {path} belongs to another run: {diff}")
            for line in lines[1:]:
                try:
                    r = json.loads(line)
                    g = game_of_row(r)
                    match = str(r["match"])
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue  # a line cut short
                self.done[(match, g.deal, g.a_seats)] = g
                self.wall_before = max(self.wall_before, float(r.get("wall", 0.0)))
        # rewrite what was read, without a damaged tail, then append
        self._out = self.path.open("w", encoding="utf-8")
        self._out.write(json.dumps({"options": options}) + "\n")
        for (match, _, _), g in self.done.items():
            self._write(match, g, self.wall_before)
        self._out.flush()

    def _write(self, match: str, g: DuplicateGame, wall: float) -> None:
        row = {
            "match": match,
            "deal": g.deal,
            "a_seats": list(g.a_seats),
            "kind": g.kind,
            "diff": g.diff,
            "a_times": [round(t, 6) for t in g.a_times],
            "a_choices": list(g.a_choices),
            "b_times": [round(t, 6) for t in g.b_times],
            "bock": g.baseline_bock,
            "wall": round(wall, 1),
        }
        self._out.write(json.dumps(row) + "\n")

    def add(self, match: str, g: DuplicateGame, wall: float) -> None:
        """Record a finished game (``wall``: this part's seconds so far)."""
        self.done[(match, g.deal, g.a_seats)] = g
        self._write(match, g, self.wall_before + wall)
        self._out.flush()

    def close(self) -> None:
        self._out.close()


def final_line(
    games: Sequence[DuplicateGame], extra: set[int], shares: Sequence[float], times: Sequence[float]
) -> str:
    """The last line: overall points per game of the strong-vs-normal ``games`` (without the
    ``extra`` solo deals), the worst solo kind's lower bound (with them), the median budget
    share and the 95th percentile of the decision times."""
    e = overall([g for g in games if g.deal not in extra])
    worst = worst_solo_lower(by_kind(games))
    return (
        f"strong_vs_normal_ppg: {e.mean:.3f} ci95: {e.low:.3f}..{e.high:.3f} "
        f"worst_kind_lower: {worst:.3f} budget_share_p50: {_pct(shares, 0.5):.3f} "
        f"search_p95_s: {_pct(times, 0.95):.3f}"
    )


def budget_lines(
    runs: dict[float, Sequence[DuplicateGame]], extra: set[int]
) -> tuple[list[str], str]:
    """The ``--budgets`` report and its last line. ``runs``: the games of each budget,
    smallest budget first, on the same deals; the ``extra`` solo deals count nowhere. A line
    per budget: strong - normal with its interval, the games, the strong seats' CPU per game
    and seat (all their turns) and per decision with a choice, the median budget share; then
    a line per pair of budgets: the paired change from the smaller to the larger one."""
    lines: list[str] = []
    last: list[str] = []
    plain = {b: [g for g in played if g.deal not in extra] for b, played in runs.items()}
    for budget, games in plain.items():
        e = overall(games)
        seat_games = max(1, sum(len(g.a_seats) for g in games))
        cpu = sum(t for g in games for t in g.a_times)
        chosen = [t for g in games for t, c in zip(g.a_times, g.a_choices, strict=True) if c]
        per_decision = sum(chosen) / len(chosen) if chosen else float("nan")
        share = _pct([t / budget for t in chosen], 0.5)
        lines.append(
            f"budget {budget:g} s: strong - normal {_ci(e)} points/game, {e.deals} deals, "
            f"{e.games} games; strong CPU {cpu / seat_games:.2f} s per game and seat, "
            f"{per_decision:.3f} s per decision with a choice (budget share p50 {share:.2f})"
        )
        last.append(
            f"budget {budget:g}: {e.mean:+.2f} ci95: {e.low:+.2f}..{e.high:+.2f} "
            f"cpu_s_per_game: {cpu / seat_games:.2f}"
        )
    budgets = list(plain)
    for i, low in enumerate(budgets):
        for high in budgets[i + 1 :]:
            step = paired(plain[high], plain[low])["all"]
            lines.append(f"budget {high:g} s against {low:g} s, paired: {_ci(step)}")
    return lines, " ".join(last)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games with A per match")
    ap.add_argument("--vs-random", action="store_true", help="also one search vs three random")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help=f"search seconds (default {DEFAULT_BUDGET_S}; with --fixed {STANDARD_WORK_S})",
    )
    ap.add_argument("--fixed", action="store_true", help="strong: fixed work, not time")
    ap.add_argument(
        "--budgets",
        default="",
        help="comma list of budgets: strong vs normal at each, on the same deals",
    )
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="first deal seed")
    ap.add_argument("--only", default="", help="comma list of matches to run")
    ap.add_argument("--layouts", choices=["single", "both"], default="both")
    ap.add_argument("--by-kind", action="store_true", help="a table per game kind")
    ap.add_argument("--solo-deals", action="store_true", help="only deals B plays as a solo")
    ap.add_argument(
        "--wedding-deals", action="store_true", help="only deals in which a hand holds both ♣Q"
    )
    ap.add_argument(
        "--solo-games", type=int, default=0, help="games on extra deals B plays as a solo"
    )
    ap.add_argument(
        "--strong", default="", help="strong's settings, e.g. c=12,worlds=20 (A/B tests)"
    )
    ap.add_argument("--save", default="", help="write the strong match's games (JSON)")
    ap.add_argument(
        "--search-seed", type=int, default=0, help="other random choices of the strong player"
    )
    ap.add_argument("--resume", default="", help="journal of finished games: go on from it")
    ap.add_argument("--compare", default="", help="paired change against a --save file")
    ap.add_argument(
        "--rules",
        default="",
        help="table options as /option takes them, NAME=VALUE or NAME for on, e.g. house rules "
        + ",".join(HOUSE_RULES),
    )
    ap.add_argument(
        "--house-rules", action="store_true", help="every house rule on (added to --rules)"
    )
    args = ap.parse_args()
    if args.house_rules:
        args.rules = ",".join(filter(None, (all_house_rules(), args.rules)))
    if args.budget is None:
        args.budget = STANDARD_WORK_S if args.fixed else DEFAULT_BUDGET_S
    try:
        budgets = sorted({float(b) for b in args.budgets.split(",") if b.strip()})
    except ValueError:
        raise SystemExit(f"bench/ai.py: --budgets takes numbers, not {args.budgets!r}") from None
    if budgets and (min(budgets) <= 0 or args.save or args.compare or args.only):
        raise SystemExit(
            "bench/ai.py: --budgets takes positive seconds and plays strong vs normal only "
            "(no --only, --save, --compare)"
        )
    rules, bock = house_rules(args.rules)
    layouts = SINGLE_LAYOUTS + (PAIR_LAYOUTS if args.layouts == "both" else ())
    deals_n = max(1, args.games // len(layouts))
    names = ["search_vs_heuristic", "heuristic_vs_random"]
    if args.vs_random:
        names.append("search_vs_random")
    if budgets:
        names = ["search_vs_heuristic"]
    if args.only:
        keep = set(args.only.split(","))
        names = [m for m in MATCHES if m in keep]
    if (args.save or args.compare) and compared_match(names) is None:
        raise SystemExit(
            "bench/ai.py: --save and --compare need a match in which strong plays A "
            f"(one of {[m for m, (a, _) in MATCHES.items() if a == 'strong']})"
        )
    if args.solo_deals and args.wedding_deals:
        raise SystemExit("bench/ai.py: --solo-deals or --wedding-deals, not both")
    tasks: list[Task] = []
    params = strong_params(args.strong)
    make = partial(_make, args.budget, args.fixed, params, args.search_seed)
    extra: set[int] = set()
    for name in names:
        b = MATCHES[name][1]
        if args.solo_deals:
            deals = solo_deals(make, b, args.seed, deals_n)
        elif args.wedding_deals:
            deals = wedding_deals(args.seed, deals_n)
        else:
            deals = list(range(args.seed, args.seed + deals_n))
        if args.solo_games and b != "random":  # random players never declare
            # far from the regular deals, so that none is drawn twice
            more = solo_deals(make, b, args.seed + 1_000_000, args.solo_games // len(layouts))
            extra.update(more)
            deals += more
        # deal by deal, every budget of a deal after another: a load that changes during
        # the run falls alike on every budget
        tasks += [
            (name, d, lay, budget, args.fixed, rules, params, args.search_seed)
            for d in deals
            for lay in layouts
            for budget in budgets or [args.budget]
        ]

    def label(t: Task) -> str:
        return budget_label(t[0], t[3]) if budgets else t[0]

    t0 = time.time()
    labels = [budget_label(n, b) for n in names for b in budgets] if budgets else names
    results: dict[str, list[DuplicateGame]] = {lab: [] for lab in labels}
    journal = None
    if args.resume:
        options = {k: getattr(args, k) for k in JOURNAL_OPTIONS}
        if budgets:  # --budget plays no part (nor does the default budget of the day)
            options["budget"] = None
        journal = Journal(args.resume, options)
        todo = []
        for t in tasks:
            old = journal.done.get((label(t), t[1], t[2]))
            if old is None:
                todo.append(t)
            else:
                results[label(t)].append(old)
        if len(todo) < len(tasks):
            print(f"  {len(tasks) - len(todo)} games from {args.resume}", file=sys.stderr)
        tasks = todo
    # --budgets: the budget is CPU time of the searching thread, and no wall-clock cap cuts a
    # search short on a loaded machine (a niced run may wait for a core for seconds)
    # (the same for the match of two strong levels: both must get the same CPU)
    lift = budgets or "inference_vs_previous" in names
    with mp.Pool(args.procs, initializer=_lift_wall_cap if lift else None) as pool:
        for done, (task, game) in enumerate(pool.imap_unordered(_run, tasks, chunksize=1), 1):
            if done % 100 == 0 or done == len(tasks):
                print(f"  {done}/{len(tasks)} games, {time.time() - t0:.0f} s", file=sys.stderr)
            results[label(task)].append(game)
            if journal is not None:
                journal.add(label(task), game, time.time() - t0)
    wall = time.time() - t0
    if journal is not None:
        wall += journal.wall_before
        journal.close()
    if bock:
        results = {n: with_bock(games) for n, games in results.items()}
    if args.rules:
        print(f"house rules: {args.rules}")
    if budgets:
        runs = {b: results[budget_label(names[0], b)] for b in budgets}
        if args.by_kind:
            for b, games in runs.items():
                print(f"budget {b:g} s:")
                print("\n".join(kind_table(games)))
        lines, last = budget_lines(runs, extra)
        print("\n".join(lines))
        print(f"wall time {wall:.0f} s on {args.procs} processes")
        print(last)
        return
    times: dict[str, list[float]] = {}
    shares: list[float] = []
    for name in names:
        a, b = MATCHES[name]
        games = results[name]
        e = overall([g for g in games if g.deal not in extra])
        print(
            f"{name}: {a} scores {_ci(e)} points/game against {b}, {e.deals} deals, {e.games} games"
        )
        if games:
            a_cpu = sum(t for g in games for t in g.a_times) / sum(len(g.a_seats) for g in games)
            b_cpu = sum(t for g in games for t in g.b_times) / sum(
                4 - len(g.a_seats) for g in games
            )
            print(f"{name}: CPU per game and seat: {a} {a_cpu:.2f} s, {b} {b_cpu:.2f} s")
        if args.by_kind:
            print("\n".join(kind_table(games)))
        for g in games:
            times.setdefault(a, []).extend(g.a_times)
            times.setdefault(b, []).extend(g.b_times)
            if a == "strong":
                shares += [
                    t / args.budget for t, c in zip(g.a_times, g.a_choices, strict=True) if c
                ]
    for level, ts in sorted(times.items()):
        print(
            f"decision time {level}: p50 {_pct(ts, 0.5) * 1000:.1f} ms  "
            f"p95 {_pct(ts, 0.95) * 1000:.1f} ms  max {max(ts) * 1000:.1f} ms  (n={len(ts)})"
        )
    print(f"wall time {wall:.0f} s on {args.procs} processes")
    svh = results.get("search_vs_heuristic", [])
    strong_match = compared_match(names)
    compared = results.get(strong_match, []) if strong_match is not None else []
    if args.save:
        save_games(args.save, compared)
    if args.compare:
        print(f"change of {strong_match} against {args.compare} (same deals and layouts):")
        print("\n".join(compare_table(compared, load_games(args.compare))))
    print(final_line(svh, extra, shares, times.get("strong", [])))


if __name__ == "__main__":
    main()
