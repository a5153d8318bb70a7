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

The flags are broken down per level by kind (cards with more than 4 in hand, the last four
tricks, calls made, missed calls, reservations; each step's paired difference per kind) and
the cards' by reason, and the level's cards unlike the card ``normal`` would have played in
the same position are counted with how many of them the review flagged (for ``easy``: its
slips; the other flags are the level's sound decisions).

    python bench/review.py                 # 24 deals
    python bench/review.py --procs 2       # deals in parallel, the same figures
    python bench/review.py --deals 2 --budget 0.05 --strong-budget 0.05   # a smoke run

Ends with ``review_s_per_game: X mistakes_per_game random: R easy: E normal: N strong: S
false_flags: FF z_steps: ZR/ZE/ZN lost_per_game random: LR easy: LE normal: LN strong: LS
lost_z_steps: YR/YE/YN same_positions random: PR easy: PE normal: PN strong: PS
same_z_steps: QR/QE/QN``, X the CPU seconds of the review of one game (all four seats); the
z of the three steps (random - easy, easy - normal, normal - strong, each paired over the
deals) for the mistakes per game; the points the flags lost per game by level, and the same
three steps' z for them; the card flags per game of each level's cards in the same positions
(every card turn with a choice of the deal's four games, each level's card in that seat judged
in one evaluation of the position, per game of positions), and their steps' z.

Why the same positions: each level's own games part after its first different card, so the
count in its own games mixes what the level does with the positions it gets into (a beginner's
game is often decided after a few slips, and fewer later decisions are worth half a point).
Judging every level's card in the same positions removes that: the difference between two
levels is then only in the turns where their cards differ.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools
import multiprocessing as mp
from collections import Counter
from dataclasses import dataclass
from typing import Final

from dokobot.ai.arena import play_game
from dokobot.ai.base import NO_RESTRICTIONS
from dokobot.ai.exact import SOLVE_S
from dokobot.ai.inference import default_model, layout_weight
from dokobot.ai.layouts import layouts
from dokobot.ai.legal import legal_actions
from dokobot.ai.levels import OFFERED_LEVELS, make_player
from dokobot.ai.review import (
    ENUMERATE_CAP,
    MIN_WORLDS,
    MISTAKE,
    Mistake,
    card_losses,
    review_game,
)
from dokobot.ai.search import DEFAULT_BUDGET_S, REVIEW_BUDGET_S, SearchPlayer
from dokobot.ai.solver import MAX_TRICKS, solve
from dokobot.engine import Game, Phase, is_card, observe


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


KINDS: Final = ("early cards", "late cards", "calls made", "missed calls", "reservations")
"""The kinds of flags the breakdown counts apart (late: :data:`MAX_TRICKS` or fewer cards in
hand, where the review solves exactly)."""


def flag_kind(game: Game, m: Mistake) -> str:
    """The kind of a flag (one of :data:`KINDS`)."""
    if m.kind == "card":
        late = m.trick > game.rules.hand_size - MAX_TRICKS
        return KINDS[1] if late else KINDS[0]
    if m.kind == "call":
        return KINDS[3] if m.reason == "missed_call" else KINDS[2]
    return KINDS[4]


def unlike_normal(game: Game, seed: int) -> set[int]:
    """The log positions of the card decisions (with a choice) where the card played is not
    the one ``normal`` would have played in that seat (its seed as in :func:`main`)."""
    found: set[int] = set()
    normal = [make_player("normal", seed=seed * 4 + s) for s in range(4)]
    g = game.redealt()
    for index, (seat, action) in enumerate(game.log):
        if g.phase is Phase.PLAYING and g.turn == seat and is_card(action):
            obs = observe(g, seat)
            if len(legal_actions(obs)) > 1:
                sound = normal[seat].decide(obs)
                if sound & ~1 != action & ~1:
                    found.add(index)
        g.play(seat, action)
    return found


def same_positions(game: Game, seed: int, args: argparse.Namespace) -> dict[str, list[float]]:
    """Every card decision with a choice in ``game`` (whoever played it), judged for the card
    each level would have played there in that seat (its player as in :func:`review_deal`),
    all in one evaluation of the position (:func:`~dokobot.ai.review.card_losses`): per
    level, [its flags, the points they lost]."""
    players = {
        level: [
            make_player(level, seed=seed * 4 + s, budget_s=args.strong_budget) for s in range(4)
        ]
        for level in OFFERED_LEVELS
    }
    judge = SearchPlayer(seed, NO_RESTRICTIONS, args.budget)
    found = {level: [0.0, 0.0] for level in OFFERED_LEVELS}
    g = game.redealt()
    for seat, action in game.log:
        if g.phase is Phase.PLAYING and g.turn == seat and is_card(action):
            obs = observe(g, seat)
            if len(legal_actions(obs)) > 1:
                cards = {level: players[level][seat].decide(obs) for level in OFFERED_LEVELS}
                judged = card_losses(judge, obs, set(cards.values()))
                for level, card in cards.items():
                    loss = 0.0 if judged is None else judged[1].get(card, 0.0)
                    if loss >= MISTAKE:
                        found[level][0] += 1
                        found[level][1] += loss
        g.play(seat, action)
    return found


def paired_step(a: list[int] | list[float], b: list[int] | list[float]) -> tuple[float, float]:
    """The mean of ``a - b`` over the deals (both played on the same deals) and its standard
    error."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
    return mean, math.sqrt(var / len(diffs))


@dataclass(slots=True)
class LevelResult:
    """One level's game of one deal, reviewed."""

    level: str
    line: str
    mistakes: int
    lost: float
    kinds: Counter[str]
    reasons: Counter[str]
    unlike: int
    unlike_flagged: int
    same: dict[str, list[float]]
    """Per level, [flags, points lost] of its cards in this game's positions
    (:func:`same_positions`)."""
    seconds: float
    check_s: float
    ff: Counter[str]


def review_deal(job: tuple[int, int, argparse.Namespace]) -> list[LevelResult]:
    """Play deal ``seed`` by each level in turn, review every seat, check its late flags."""
    seed, dealer, args = job
    results = []
    for level in OFFERED_LEVELS:
        players = [
            make_player(level, seed=seed * 4 + s, budget_s=args.strong_budget) for s in range(4)
        ]
        game = play_game(players, seed=seed, dealer=dealer).game
        review = review_game(game, budget_s=args.budget, seed=seed)
        differ = unlike_normal(game, seed)
        t0 = time.thread_time()
        same = same_positions(game, seed, args)
        same_s = time.thread_time() - t0
        ff = Counter[str]()
        for m in review.mistakes:
            if m.kind != "card" or m.trick <= game.rules.hand_size - MAX_TRICKS:
                continue
            ff["late"] += 1
            loss, sampled = exact_loss(game, m, args.ff_layouts, args.budget)
            if loss is None:
                ff["over"] += 1
                continue
            wrong = loss <= 1e-3
            ff.update(
                checked=1,
                sampled=sampled,
                sampled_wrong=sampled and wrong,
                wrong=wrong,
                small=loss < MISTAKE,
            )
        lost = sum(m.loss for m in review.mistakes)
        serious = sum(m.serious for m in review.mistakes)
        line = (
            f"{level:7} deal {seed}: {review.decisions} decisions, "
            f"{len(review.mistakes)} mistakes ({serious} serious), "
            f"{lost:.2f} points lost, {review.seconds:.1f} s; "
            f"late flags {ff['late']}, checked {ff['checked']}, not confirmed {ff['wrong']}, "
            f"judged from samples {ff['sampled']}; in this game's positions, flags "
            + ", ".join(f"{lv} {n:.0f}" for lv, (n, _) in same.items())
        )
        results.append(
            LevelResult(
                level,
                line,
                len(review.mistakes),
                lost,
                Counter(flag_kind(game, m) for m in review.mistakes),
                Counter(m.reason for m in review.mistakes if m.kind == "card"),
                len(differ),
                sum(m.index in differ for m in review.mistakes),
                same,
                review.seconds,
                time.thread_time() - t0 - same_s,
                ff,
            )
        )
    return results


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
    parser.add_argument("--procs", type=int, default=1, help="processes, deals in parallel")
    args = parser.parse_args(argv)

    per_deal: dict[str, list[int]] = {level: [] for level in OFFERED_LEVELS}
    lost: dict[str, list[float]] = {level: [] for level in OFFERED_LEVELS}
    by_kind = {level: {kind: list[int]() for kind in KINDS} for level in OFFERED_LEVELS}
    reasons: dict[str, Counter[str]] = {level: Counter() for level in OFFERED_LEVELS}
    unlike = {level: [0, 0] for level in OFFERED_LEVELS}  # cards unlike normal's, flagged
    # per level, per deal: its cards' flags and points lost in the positions of all four games
    same: dict[str, list[list[float]]] = {level: [[], []] for level in OFFERED_LEVELS}
    deal_same: dict[str, list[float]] = {}
    seconds = check_s = 0.0
    games = 0
    ff = Counter[str]()
    jobs = [(args.seed + k, k % 4, args) for k in range(args.deals)]
    with mp.Pool(args.procs) as pool:  # deal after deal (a run cut short is fair)
        for results in pool.imap(review_deal, jobs):
            deal_same = {level: [0.0, 0.0] for level in OFFERED_LEVELS}
            for r in results:
                for level, (n, loss) in r.same.items():
                    deal_same[level][0] += n / len(results)
                    deal_same[level][1] += loss / len(results)
                print(r.line, flush=True)
                per_deal[r.level].append(r.mistakes)
                lost[r.level].append(r.lost)
                for kind in KINDS:
                    by_kind[r.level][kind].append(r.kinds[kind])
                reasons[r.level].update(r.reasons)
                unlike[r.level][0] += r.unlike
                unlike[r.level][1] += r.unlike_flagged
                seconds += r.seconds
                check_s += r.check_s
                ff.update(r.ff)
                games += 1
            for level, (n, loss) in deal_same.items():
                same[level][0].append(n)
                same[level][1].append(loss)
    checked, unconfirmed, small, unchecked = (ff[k] for k in ("checked", "wrong", "small", "over"))
    sampled_flags, sampled_wrong = ff["sampled"], ff["sampled_wrong"]
    per_game = {level: sum(v) / args.deals for level, v in per_deal.items()}
    steps_z: dict[str, list[float]] = {"mistakes": [], "points lost": []}
    for a, b in itertools.pairwise(OFFERED_LEVELS):
        for what, values in (("mistakes", per_deal), ("points lost", lost)):
            mean, se = paired_step(values[a], values[b])
            z = mean / se if se else math.inf
            steps_z[what].append(z)
            print(f"{a} - {b}: {mean:+.2f} {what} per game (se {se:.2f}, z {z:.1f})")
    same_z = []
    for a, b in itertools.pairwise(OFFERED_LEVELS):
        for i, what in enumerate(("card flags", "points lost")):
            mean, se = paired_step(same[a][i], same[b][i])
            z = mean / se if se else math.inf
            if i == 0:
                same_z.append(z)
            print(
                f"{a} - {b} in the same positions: {mean:+.2f} {what} per game "
                f"(se {se:.2f}, z {z:.1f})"
            )
    same_per_game = {level: sum(same[level][0]) / args.deals for level in OFFERED_LEVELS}
    for level in OFFERED_LEVELS:
        kinds = ", ".join(f"{kind} {sum(by_kind[level][kind]) / args.deals:.2f}" for kind in KINDS)
        why = ", ".join(f"{r} {n / args.deals:.2f}" for r, n in reasons[level].most_common())
        print(f"{level} flags per game: {kinds}; cards by reason: {why or 'none'}")
        n, flagged = unlike[level]
        print(
            f"{level} cards unlike normal's per game: {n / args.deals:.2f}, "
            f"flagged {flagged / args.deals:.2f} ({flagged / n if n else 0.0:.2f} of them); "
            f"other flags {(sum(per_deal[level]) - flagged) / args.deals:.2f}"
        )
    for a, b in itertools.pairwise(OFFERED_LEVELS):
        parts = []
        for kind in KINDS:
            mean, se = paired_step(by_kind[a][kind], by_kind[b][kind])
            parts.append(f"{kind} {mean:+.2f} (z {mean / se if se else 0.0:.1f})")
        print(f"{a} - {b} by kind, flags per game: " + ", ".join(parts))
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
        + f" false_flags: {ff:.3f} z_steps: "
        + "/".join(f"{z:.1f}" for z in steps_z["mistakes"])
        + " lost_per_game "
        + " ".join(f"{level}: {sum(lost[level]) / args.deals:.2f}" for level in OFFERED_LEVELS)
        + " lost_z_steps: "
        + "/".join(f"{z:.1f}" for z in steps_z["points lost"])
        + " same_positions "
        + " ".join(f"{level}: {same_per_game[level]:.2f}" for level in OFFERED_LEVELS)
        + " same_z_steps: "
        + "/".join(f"{z:.1f}" for z in same_z)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
