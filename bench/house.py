"""How the computer players judge the house rules (RULES §12), measured by playing the deals
out with four players of a level (``normal`` unless ``--level``): no search values, so none
of the upward bias of the search's playouts.

Throw-in: every deal of ``--deals`` (from seed ``--seed``, nines on) is played once with
nobody throwing in (when another seat throws in, a hand's choice does not matter); each hand
that may throw in (five nines or kings) counts its seat's score minus what a redeal is worth
to that seat (the seat's mean score over all the deals, counted from first hand to dealer).
The table gives the mean by the hand's normal-game strength
(:func:`~dokobot.ai.heuristic.normal_strength`) with its standard error, and a least-squares
line through the hands between strength 4 and 10 gives where playing on starts to be worth
more than a redeal (``play_on_zero_at``, ± its standard error); then what playing on from a
lower strength would gain, per 1000 deals.

Poverty: the same deals with ``poverty`` on; at every take-or-decline decision of the four
players the game is played on both ways from there (the same deal, the same players:
``take`` and ``decline``, the later candidates as they would), and the candidate's score
difference counts for his trump count (before taking). The table gives the mean by trumps; the
poverties played show how often one was taken and what the poor player scored.

Redeal rate: deals 0..1999 (``--redeal-deals``), four such players with ``throw_in`` on:
the share of deals thrown in under the old rule (every hand that may), under the level's rule
now, and with a few other thresholds.

    python bench/house.py                                    # the lab notebook's run
    python bench/house.py --deals 200 --redeal-deals 100     # a quick look

``--level easy`` measures the ``easy`` level instead; ``--take-trumps N`` lets the players
take from N trumps (the rule is right where the gain changes sign whatever the others do);
``--parts strong`` adds what playing on hands of strength 6 to 8 is worth to the ``strong``
level, and what its search says they are worth (``--strong-hands`` hands played by it
against three ``normal`` players, a few seconds each).

The last line is ``redeal_pct: X always_pct: Y ratio: R play_on_zero_at: S se: E
take_gain_at_rule: G`` (R = X / Y; S ± E: where playing on starts to be worth a redeal; G:
the mean gain of taking for hands with exactly the trump count from which the level takes).
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.ai import make_player
from dokobot.ai.arena import mean_se, play_game
from dokobot.ai.base import ComputerPlayer
from dokobot.ai.heuristic import HeuristicPlayer, normal_strength
from dokobot.ai.search import DEFAULT_BUDGET_S, SearchPlayer
from dokobot.engine import Action, Game, Observation, Phase, Rules, observe, score
from dokobot.engine.game import may_throw_in
from dokobot.engine.order import NORMAL_SCHEME, SCHEMES, TRUMP
from dokobot.engine.types import DECLINE, TAKE, THROW_IN

_TRUMPS = SCHEMES[NORMAL_SCHEME].class_mask[TRUMP]
STRONG_BAND = (6.0, 7.0, 8.0)
"""The strengths of the hands ``--parts strong`` plays (where the strong level's search used
to decide a throw-in), in two groups."""


def _players(
    deal: int, level: str, below: float | None = None, take: int | None = None
) -> list[HeuristicPlayer]:
    """Four players of ``level`` (seeds as in ``bench/ai.py``), throwing in below ``below``
    and taking a poverty from ``take`` trumps (None: the level's own rule)."""
    out = []
    for s in range(4):
        p = make_player(level, seed=1000 * deal + s)
        assert isinstance(p, HeuristicPlayer)
        p.throw_in_below = p.throw_in_below if below is None else below
        p.take_trumps = p.take_trumps if take is None else take
        out.append(p)
    return out


def throw_in_values(
    level: str, first: int, deals: int
) -> tuple[list[tuple[float, float]], list[float]]:
    """(strength, value) of every hand that may throw in, played on by all: its seat's score
    minus what a redeal is worth to that seat (the mean score of the seat, counted from
    first hand to dealer, over all the deals, returned too)."""
    rules = Rules(throw_in=True)
    raw: list[tuple[float, int, float]] = []
    by_seat = [0.0, 0.0, 0.0, 0.0]
    for deal in range(first, first + deals):
        g = Game.deal(rules, deal % 4, deal)
        rec = play_game(_players(deal, level, -math.inf), seed=deal, dealer=deal % 4, rules=rules)
        for s in range(4):
            pos = (s - deal - 1) % 4
            by_seat[pos] += rec.result.scores[s] / deals
            if may_throw_in(rules, g.start_hands[s]):
                strength = normal_strength(g.start_hands[s])
                raw.append((strength, pos, float(rec.result.scores[s])))
    return [(x, y - by_seat[pos]) for x, pos, y in raw], by_seat


def play_on_gain(
    values: Sequence[tuple[float, float]], lo: float, hi: float, deals: int
) -> tuple[float, float]:
    """Points per 1000 deals that the seats playing on hands of strength ``lo`` to ``hi``
    (instead of throwing them in) gain over a redeal, with the standard error."""
    ys = [y for x, y in values if lo <= x < hi]
    if len(ys) < 2:
        return 0.0, math.nan
    sd = statistics.stdev(ys)
    return 1000 * sum(ys) / deals, 1000 * sd * math.sqrt(len(ys)) / deals


def zero_crossing(
    points: Sequence[tuple[float, float]], lo: float, hi: float
) -> tuple[float, float]:
    """Where the least-squares line of score on strength (points with ``lo <= x < hi``)
    crosses 0, with its standard error (delta method)."""
    pts = [(x, y) for x, y in points if lo <= x < hi]
    n = len(pts)
    if n < 3:
        return math.nan, math.nan
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    if not sxx or not sxy:
        return math.nan, math.nan
    b = sxy / sxx
    a = my - b * mx
    s2 = sum((y - a - b * x) ** 2 for x, y in pts) / (n - 2)
    var_b = s2 / sxx
    var_a = s2 * (1 / n + mx * mx / sxx)
    cov_ab = -mx * s2 / sxx
    x0 = -a / b
    var_x0 = (var_a + x0 * x0 * var_b + 2 * x0 * cov_ab) / (b * b)
    return x0, math.sqrt(max(0.0, var_x0))


def poverty_values(
    level: str, first: int, deals: int, take: int | None
) -> tuple[list[tuple[int, float, float]], list[Game]]:
    """(trumps, strength, gain of taking over declining) of every take-or-decline decision of
    four ``normal`` players, and the poverty games they played."""
    rules = Rules(poverty=True)
    out: list[tuple[int, float, float]] = []
    games = []
    for deal in range(first, first + deals):
        g = Game.deal(rules, deal % 4, deal)
        if all((h & _TRUMPS).bit_count() > 3 for h in g.start_hands):
            continue
        players = _players(deal, level, None, take)
        while g.phase is not Phase.FINISHED:
            seat = g.turn
            ex = g.exchange
            if g.phase is Phase.EXCHANGE and ex is not None and ex.taker < 0 and seat != ex.poor:
                sides = []
                for action in (TAKE, DECLINE):
                    branch = g.copy()
                    branch.play(seat, action)
                    rec = play_game(players, seed=deal, rules=rules, game=branch)
                    sides.append(rec.result.scores[seat])
                hand = g.hands[seat]
                out.append(
                    (
                        (hand & _TRUMPS).bit_count(),
                        normal_strength(hand),
                        float(sides[0] - sides[1]),
                    )
                )
            if g.phase is Phase.PLAYING:
                call = players[seat].announce(observe(g, seat))
                if call is not None:
                    g.play(seat, call)
            g.play(seat, players[seat].decide(observe(g, seat)))
        if g.exchange is not None:
            games.append(g)
    return out, games


def redeal_pct(level: str, deals: int, below: float | None) -> float:
    """The share of deals 0..deals-1 that four ``normal`` players (throwing in below
    ``below``) throw in, in percent."""
    rules = Rules(throw_in=True)
    thrown = 0
    for deal in range(deals):
        g = Game.deal(rules, deal % 4, deal)
        if not any(may_throw_in(rules, h) for h in g.start_hands):
            continue
        players = _players(deal, level, below)
        while g.phase in (Phase.RESERVATIONS, Phase.DECLARATIONS):
            g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
        thrown += any(a == THROW_IN for _, a in g.log)
    return 100.0 * thrown / deals


def strong_throw_in(first: int, hands: int) -> list[tuple[float, float, float, float]]:
    """(strength, normal's score, strong's score, strong's own value of its best plan) of
    the first ``hands`` hands that may throw in with a strength in :data:`STRONG_BAND`, each
    played on by ``normal`` in all seats and
    by ``strong`` in its seat (the others ``normal``), nobody throwing in."""
    rules = Rules(throw_in=True)
    out = []
    deal = first
    while len(out) < hands:
        g = Game.deal(rules, deal % 4, deal)
        for s in range(4):
            hand = g.start_hands[s]
            strength = normal_strength(hand)
            if not may_throw_in(rules, hand) or not STRONG_BAND[0] <= strength < STRONG_BAND[-1]:
                continue
            base = play_game(
                _players(deal, "normal", -math.inf), seed=deal, dealer=deal % 4, rules=rules
            )
            strong = make_player("strong", seed=1000 * deal + s)
            assert isinstance(strong, SearchPlayer)
            players: list[ComputerPlayer] = list(_players(deal, "normal", -math.inf))
            players[s] = _PlaysOn(strong)
            rec = play_game(players, seed=deal, dealer=deal % 4, rules=rules)
            seconds = max(strong.budget_s, DEFAULT_BUDGET_S) * strong.contract_factor
            plans = strong.plan_values(observe(g, s), with_healthy=True, seconds=seconds)
            out.append(
                (
                    strength,
                    float(base.result.scores[s]),
                    float(rec.result.scores[s]),
                    max(v for _, v in plans),
                )
            )
        deal += 1
    return out


class _PlaysOn:
    """A strong player that never throws in (what playing on is worth to it)."""

    name = "strong"

    def __init__(self, player: SearchPlayer) -> None:
        self.player = player

    def decide(self, obs: Observation) -> Action:
        if obs.phase is Phase.RESERVATIONS or obs.phase is Phase.DECLARATIONS:
            plain = replace(obs, rules=replace(obs.rules, throw_in=False))
            return self.player.decide(plain)
        return self.player.decide(obs)

    def announce(self, obs: Observation) -> Action | None:
        return self.player.announce(obs)


def report_strong(first: int, hands: int) -> None:
    """Print what playing on is worth to the strong level where its search decides."""
    rows = strong_throw_in(first, hands)
    print(
        f"strong: {len(rows)} hands that may throw in, strength {STRONG_BAND[0]:g}.."
        f"{STRONG_BAND[-1]:g}, played on (deals {first}..), points per game (± s.e.)"
    )
    for name, i in (("normal plays on", 1), ("strong plays on", 2), ("strong's plan value", 3)):
        m, se = mean_se([r[i] for r in rows])
        print(f"  {name:<22} {m:+.2f} (±{se:.2f})")
    m, se = mean_se([r[2] - r[1] for r in rows])
    print(f"  strong - normal, paired {m:+.2f} (±{se:.2f})")
    for lo, hi in itertools.pairwise(STRONG_BAND):
        part = [r for r in rows if lo <= r[0] < hi]
        m, se = mean_se([r[2] for r in part])
        pm, pse = mean_se([r[3] for r in part])
        print(
            f"  strength {lo:g}..{hi:g}: {len(part)} hands, strong plays on {m:+.2f} (±{se:.2f}),"
            f" its plan value {pm:+.2f} (±{pse:.2f})"
        )
    m, se = mean_se([r[3] - r[2] for r in rows])
    print(f"  plan value - strong's score (the search's bias) {m:+.2f} (±{se:.2f})")


def _rule(level: str) -> HeuristicPlayer:
    return _players(0, level)[0]


def report_throw_in(level: str, first: int, deals: int) -> tuple[float, float]:
    """Print the throw-in table; return where playing on is worth a redeal (± s.e.)."""
    values, by_seat = throw_in_values(level, first, deals)
    below = _rule(level).throw_in_below
    print(f"throw-in: {len(values)} hands that may, played on by {level} (deals {first}..)")
    seats = " ".join(f"{v:+.2f}" for v in by_seat)
    print(
        f"  a redeal is worth the seat's mean score, first hand to dealer: {seats}; values below"
        " are the score minus that"
    )
    print(f"  {'strength':<10} {'hands':>6}  value of playing on (± s.e.)")
    edges = [-math.inf, 4, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 10, math.inf]
    for lo, hi in itertools.pairwise(edges):
        xs = [y for x, y in values if lo <= x < hi]
        m, se = mean_se(xs)
        name = f"{lo:g}..{hi:g}".replace("-inf..", "<").replace("..inf", " and up")
        print(f"  {name:<10} {len(xs):>6}  {m:+.2f} (±{se:.2f})")
    x0, x0_se = zero_crossing(values, 4.0, 10.0)
    print(f"  least squares over strength 4..10: value 0 at strength {x0:.2f} (±{x0_se:.2f})")
    for lo in (5.5, 6.0, 6.5, 7.0, 7.5, 8.0):
        if lo < below:
            gain, se = play_on_gain(values, lo, below, deals)
            print(
                f"  playing on from {lo:g} instead of {below:g}: {gain:+.1f} (±{se:.1f})"
                " points per 1000 deals"
            )
    return x0, x0_se


def report_poverty(level: str, first: int, deals: int, take: int | None) -> float:
    """Print the poverty table; return the gain of taking with exactly the players' take
    threshold of trumps."""
    take = _rule(level).take_trumps if take is None else take
    pov, games = poverty_values(level, first, deals, take)
    print(f"poverty ({level} players take from {take} trumps): {len(pov)} decisions")
    print(f"  {'trumps':<7} {'hands':>6}  gain of taking over declining (± s.e.)")
    gain_at = math.nan
    for t in range(14):
        xs = [d for k, _, d in pov if k == t]
        if xs:
            m, se = mean_se(xs)
            gain_at = m if t == take else gain_at
            print(f"  {t:<7} {len(xs):>6}  {m:+.2f} (±{se:.2f})")
    taken = [g for g in games if g.exchange is not None and g.exchange.taker >= 0]
    poor = [float(score(g).scores[g.declarer]) for g in taken]
    pm, pse = mean_se(poor)
    share = 100 * len(taken) / max(1, len(games))
    print(
        f"  {len(games)} poverties, taken {len(taken)} ({share:.0f} %), the others redealt;"
        f" the poor player's score when taken {pm:+.2f} (±{pse:.2f})"
    )
    return gain_at


def report_redeals(level: str, deals: int) -> tuple[float, float]:
    """Print the redeal rates; return (the rule's, every hand's) in percent."""
    always = redeal_pct(level, deals, math.inf)
    now = redeal_pct(level, deals, None)
    below = _rule(level).throw_in_below
    print(f"redeal rate, four {level} players, deals 0..{deals - 1}:")
    print(f"  every hand that may: {always:.2f} %; the rule (below {below:g}): {now:.2f} %")
    for t in (5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0):
        print(f"  below {t:g}: {redeal_pct(level, deals, t):.2f} %")
    return now, always


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", choices=["easy", "normal"], default="normal")
    ap.add_argument("--deals", type=int, default=40_000, help="deals for the two value tables")
    ap.add_argument("--seed", type=int, default=10_000, help="the first of those deals")
    ap.add_argument("--redeal-deals", type=int, default=2000, help="deals 0..N-1 for the rate")
    ap.add_argument("--take-trumps", type=int, default=None, help="the players take from N trumps")
    ap.add_argument(
        "--parts", default="throw_in,poverty,redeal", help="which to measure (also: strong)"
    )
    ap.add_argument("--strong-hands", type=int, default=100, help="hands of the strong part")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    x0 = x0_se = gain_at = now = always = math.nan
    if "throw_in" in parts:
        x0, x0_se = report_throw_in(args.level, args.seed, args.deals)
    if "poverty" in parts:
        gain_at = report_poverty(args.level, args.seed, args.deals, args.take_trumps)
    if "strong" in parts:
        report_strong(args.seed, args.strong_hands)
    if "redeal" in parts:
        now, always = report_redeals(args.level, args.redeal_deals)
    print(
        f"redeal_pct: {now:.2f} always_pct: {always:.2f} ratio: {now / (always or math.nan):.2f} "
        f"play_on_zero_at: {x0:.2f} se: {x0_se:.2f} take_gain_at_rule: {gain_at:+.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
