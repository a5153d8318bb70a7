"""Engine throughput: random full games on one core.

Every game: a deal from a new seed (:meth:`Game.deal`), random reservations and
declarations (each seat reserves with ``--p-reserve``; a holder of both ♣Q announces his
wedding half the time), random legal announcements, random legal cards, and :func:`score`.

Two paths are measured:

* **fast** (the headline ``games/s``), the way search plays: random legal reservations,
  declarations and calls (each seat with ``--p-call``, when the card play starts) chosen
  from :meth:`Game.legal_actions` / :meth:`Game.legal_calls` and applied with the unchecked
  :meth:`Game.push`, then the card play with the rollout fast path :meth:`Game.playout`;
* **checked**: everything through :meth:`Game.play`, a random legal card from
  :meth:`Game.legal_actions` each turn, and before each card a random seat makes a random
  legal call with probability ``--p-call`` / 12 (calls at random moments).

Rates are CPU time of this process. On a shared machine the batches are also timed one by
one and the fastest batch is reported, next to the same figure for the "minimal
pure-Python loop" of FIELD-NOTES (about 19,000 games/s on an idle core), run interleaved.
The last line is ``games/s: N`` (the fast path).

``--house`` plays every house rule of the engine (RULES §12) on: poverty (its exchange at
random, mostly taken), throw-in, piglets, superpiglets, ``dullen second_except_last`` and
``wedding_trick plain`` (each rule of a few values at its last), with nines (without them a
game is shorter); :func:`every_house_rule_on` derives them from the declarations. A game that ends
unplayed (thrown in, a poverty nobody takes) counts as a game.

    python bench/engine.py                 # about 15 s
    python bench/engine.py --house         # every house rule on
    python bench/engine.py --seconds 2 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.engine import (
    DECLARE_WEDDING,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    TOURNAMENT_RULES,
    Game,
    GameType,
    Phase,
    Rules,
    score,
)
from dokobot.engine.cards import CLUB_QUEENS, POINTS
from dokobot.engine.order import SCHEMES
from dokobot.engine.types import TAKE
from dokobot.host.options import HOUSE_RULES, OPTIONS, RULE_OPTIONS, TableOptions

RESERVATIONS = Phase.RESERVATIONS
DECLARATIONS = Phase.DECLARATIONS
EXCHANGE = Phase.EXCHANGE
PLAYING = Phase.PLAYING


def every_house_rule_on() -> Rules:
    """The engine's rules with every house rule it plays on (``--house``), derived from the
    declarations (:data:`~dokobot.host.options.HOUSE_RULES`): an on-off rule that the plain
    game leaves off, on, and a rule of a few values at its last one. The nines, which the
    plain game plays with, stay (without them a game is shorter)."""
    plain = TableOptions()
    on: dict[str, object] = {}
    for name in HOUSE_RULES:
        if name not in RULE_OPTIONS:
            continue  # a rule of the table or the series (bock, seats): not the engine's
        values, default = OPTIONS[name].values, getattr(plain, name)
        if values:
            on[name] = values[-1]
        elif default is False:
            on[name] = True
        elif default is not True:
            raise TypeError(f"house rule {name}: no value to turn it on with")
    return Rules(**on)  # type: ignore[arg-type]


HOUSE = every_house_rule_on()
"""Every house rule the engine plays, on (``--house``)."""
KINDS = [t.key for t in GameType]


class Tally:
    """Game types, calls and points of the games played."""

    def __init__(self) -> None:
        self.games = 0
        self.types = [0] * len(KINDS)
        self.calls = 0
        self.points = 0

    def add(self, g: Game, re_total: int) -> None:
        self.games += 1
        self.types[g.game_type] += 1
        self.points += abs(re_total)

    def __str__(self) -> str:
        n = max(self.games, 1)
        mix = ", ".join(f"{KINDS[t]} {100 * c / n:.1f}%" for t, c in enumerate(self.types))
        return f"{mix}; {self.calls / n:.2f} calls/game; mean |re total| {self.points / n:.2f}"


def reserve_and_declare(g: Game, rng: random.Random, p_reserve: float, checked: bool) -> None:
    """Random legal reservations and declarations, with :meth:`Game.play` (checked) or
    :meth:`Game.push` (the choices are legal by construction)."""
    rand = rng.random
    act = g.play if checked else g.push
    while g.phase is RESERVATIONS:
        seat = g.turn
        wedding = g.hands[seat] & CLUB_QUEENS == CLUB_QUEENS and rand() < 0.5
        act(seat, RESERVATION if wedding or rand() < p_reserve else HEALTHY)
    while g.phase is DECLARATIONS:
        acts = g.legal_actions()
        if acts[0] == DECLARE_WEDDING and rand() < 0.8:
            act(g.turn, DECLARE_WEDDING)
        else:
            act(g.turn, acts[int(rand() * len(acts))])
    exchange(g, rng, act)


def exchange(g: Game, rng: random.Random, act: Callable[[int, int], None]) -> None:
    """A poverty's exchange at random: taken 3 times in 4 when asked, random cards given."""
    rand = rng.random
    while g.phase is EXCHANGE:
        acts = g.legal_actions()
        act(g.turn, acts[0] if acts[0] == TAKE and rand() < 0.75 else acts[int(rand() * len(acts))])


def random_call(g: Game, rng: random.Random, seat: int, tally: Tally, checked: bool) -> None:
    calls = g.legal_calls(seat)
    if calls:
        # mostly the next level, sometimes a skip
        action = calls[0] if rng.random() < 0.7 else rng.choice(calls)
        if checked:
            g.play(seat, action)
        else:
            g.push(seat, action)
        tally.calls += 1


def fast_game(
    i: int, rng: random.Random, rules: Rules, p_reserve: float, p_call: float, tally: Tally
) -> None:
    g = Game.deal(rules, i & 3, i)
    rand = rng.random
    push = g.push
    hands = g.hands
    for _ in range(4):  # the reservation round (the bench deals no forced solo)
        seat = g.turn
        wedding = hands[seat] & CLUB_QUEENS == CLUB_QUEENS and rand() < 0.5
        push(seat, RESERVATION if wedding or rand() < p_reserve else HEALTHY)
    while g.phase is DECLARATIONS:
        acts = g.legal_actions()
        if acts[0] == DECLARE_WEDDING and rand() < 0.8:
            push(g.turn, DECLARE_WEDDING)
        else:
            push(g.turn, acts[int(rand() * len(acts))])
    if g.phase is not PLAYING:  # house rules: a poverty's exchange, or ended unplayed
        exchange(g, rng, push)
        if g.phase is not PLAYING:
            tally.games += 1
            return
    if not g.wedding_open:  # no call before a wedding is clarified
        for seat in (0, 1, 2, 3):
            if rand() < p_call:
                random_call(g, rng, seat, tally, False)
    g.playout(rng)
    re_total = score(g).re_total
    tally.games += 1
    tally.types[g.game_type] += 1
    tally.points += re_total if re_total > 0 else -re_total


def checked_game(
    i: int, rng: random.Random, rules: Rules, p_reserve: float, p_call: float, tally: Tally
) -> None:
    g = Game.deal(rules, i & 3, i)
    reserve_and_declare(g, rng, p_reserve, True)
    rand = rng.random
    p = p_call / 12
    while g.phase is PLAYING:
        if rand() < p:
            random_call(g, rng, int(rand() * 4), tally, True)
        acts = g.legal_actions()
        g.play(g.turn, acts[int(rand() * len(acts))])
    tally.add(g, score(g).re_total)


def minimal_game(rng: random.Random) -> list[int]:
    """The calibration loop of FIELD-NOTES ("a minimal pure-Python loop ... about 19,000
    games/s on one core"): a shuffled deck, list hands, follow suit, trick winner, eyes;
    no reservations, no calls, no scoring."""
    cls = SCHEMES[0].cls
    key = SCHEMES[0].key
    deck = list(range(48))
    rng.shuffle(deck)
    hands = [deck[0:12], deck[12:24], deck[24:36], deck[36:48]]
    eyes = [0, 0, 0, 0]
    leader = 0
    for _ in range(12):
        trick: list[int] = []
        for i in range(4):
            hand = hands[(leader + i) & 3]
            if trick:
                led = cls[trick[0]]
                legal = [c for c in hand if cls[c] == led] or hand
            else:
                legal = hand
            card = rng.choice(legal)
            hand.remove(card)
            trick.append(card)
        best = 0
        for i in (1, 2, 3):
            c, b = trick[i], trick[best]
            if (cls[c] == cls[b] or cls[c] == 4) and key[c] > key[b]:
                best = i
        leader = (leader + best) & 3
        eyes[leader] += sum(POINTS[c] for c in trick)
    return eyes


def cpu_rate(play: Callable[[int], object], seconds: float, start: int) -> tuple[int, float]:
    """(games, CPU seconds) of playing for ``seconds`` of CPU time."""
    games = 0
    t0 = time.process_time()
    end = t0 + seconds
    i = start
    while True:
        for _ in range(250):
            play(i)
            i += 1
        games += 250
        now = time.process_time()
        if now >= end:
            return games, now - t0


def fastest_batches(
    plays: dict[str, Callable[[int], object]], seconds: float, batch: int = 100
) -> dict[str, float]:
    """Games/s of the fastest batch of each, the batches interleaved."""
    best = dict.fromkeys(plays, float("inf"))
    i = 0
    end = time.process_time() + seconds
    while time.process_time() < end:
        for name, play in plays.items():
            t = time.perf_counter()
            for _ in range(batch):
                play(i)
                i += 1
            best[name] = min(best[name], time.perf_counter() - t)
    return {name: batch / t for name, t in best.items()}


def pieces(rules: Rules, seconds: float, batch: int = 100) -> list[tuple[str, float]]:
    """Microseconds per normal game of each piece of the fast path (fastest batches)."""
    rng = random.Random(1)
    best = {name: float("inf") for name in ("deal", "reservations", "playout", "score")}
    i = 0
    end = time.process_time() + seconds
    while time.process_time() < end:
        t = time.perf_counter()
        games = [Game.deal(rules, (i + k) & 3, i + k) for k in range(batch)]
        best["deal"] = min(best["deal"], time.perf_counter() - t)
        t = time.perf_counter()
        for g in games:
            for _ in range(4):
                g.play(g.turn, HEALTHY)
        best["reservations"] = min(best["reservations"], time.perf_counter() - t)
        t = time.perf_counter()
        for g in games:
            g.playout(rng)
        best["playout"] = min(best["playout"], time.perf_counter() - t)
        t = time.perf_counter()
        for g in games:
            score(g)
        best["score"] = min(best["score"], time.perf_counter() - t)
        i += batch
    labels = {
        "deal": "Game.deal(seed)",
        "reservations": "4 x play(healthy)",
        "playout": "playout",
        "score": "score",
    }
    return [(labels[k], 1e6 * v / batch) for k, v in best.items()]


def house_cost(
    p_reserve: float, p_call: float, seconds: float, block: int = 500
) -> tuple[float, float]:
    """Microseconds of CPU per game on the fast path with the rules off and with every house
    rule on: the same seeds in both, blocks alternating, the fastest block of each (CPU
    time, so other processes on a shared machine count less than in wall time)."""
    rng = random.Random(1)
    best = {"off": float("inf"), "on": float("inf")}
    end = time.process_time() + seconds
    while time.process_time() < end:
        for name, rules in (("off", DEFAULT_RULES), ("on", HOUSE)):
            tally = Tally()
            t0 = time.process_time()
            for i in range(block):
                fast_game(5 * 10**6 + i, rng, rules, p_reserve, p_call, tally)
            best[name] = min(best[name], (time.process_time() - t0) / block * 1e6)
    return best["off"], best["on"]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per path")
    ap.add_argument("--p-reserve", type=float, default=0.05)
    ap.add_argument("--p-call", type=float, default=0.15)
    ap.add_argument("--tournament", action="store_true")
    ap.add_argument("--house", action="store_true", help="every house rule on")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="profile the fast path")
    args = ap.parse_args()
    rules = TOURNAMENT_RULES if args.tournament else HOUSE if args.house else DEFAULT_RULES
    rng = random.Random(args.seed)

    def fast(i: int, tally: Tally) -> None:
        fast_game(i, rng, rules, args.p_reserve, args.p_call, tally)

    def checked(i: int, tally: Tally) -> None:
        checked_game(i, rng, rules, args.p_reserve, args.p_call, tally)

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        tally = Tally()
        cpu_rate(lambda i: fast(i, tally), args.seconds, 0)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)

    print(
        f"python {sys.version.split()[0]}, rules "
        f"{'tournament' if args.tournament else 'house' if args.house else 'default'}"
        f", p_reserve {args.p_reserve}, p_call {args.p_call}"
    )
    print("pieces of a normal game on the fast path (us, fastest batches):")
    for name, us in pieces(rules, min(args.seconds, 2.0)):
        print(f"  {name:18s} {us:6.1f}")

    tally = Tally()
    games, secs = cpu_rate(lambda i: checked(i, tally), args.seconds, 10**6)
    print(
        f"checked play() path : {games / secs:9,.0f} games/s  ({games} games, {secs:.1f} s CPU;"
        f" {tally})"
    )
    tally = Tally()
    games, secs = cpu_rate(lambda i: fast(i, tally), args.seconds, 0)
    fast_rate = games / secs
    print(
        f"fast path (playout) : {fast_rate:9,.0f} games/s  ({games} games, {secs:.1f} s CPU;"
        f" {tally})"
    )

    mrng = random.Random(args.seed)
    spare = Tally()
    best = fastest_batches(
        {
            "minimal loop": lambda i: minimal_game(mrng),
            "fast path": lambda i: fast(2 * 10**6 + i, spare),
            "checked path": lambda i: checked(3 * 10**6 + i, spare),
        },
        min(args.seconds, 4.0),
    )
    m = best["minimal loop"]
    print("fastest batches, interleaved (for a shared machine):")
    for name, rate in best.items():
        print(
            f"  {name:13s} {rate:9,.0f} games/s  = {rate / m:4.2f} x minimal loop"
            f"  (~{19000 * rate / m:,.0f} games/s if the minimal loop ran at 19,000/s)"
        )
    if args.house:  # the same deals with the rules off and on, blocks alternating
        off, on = house_cost(args.p_reserve, args.p_call, min(args.seconds, 4.0))
        print(
            f"fast path, same deals, CPU time, fastest of alternating blocks: rules off"
            f" {off:.1f} us/game, house rules on {on:.1f} us/game = {off / on:.3f} x the speed"
        )
    print(f"games/s: {fast_rate:.0f}")


if __name__ == "__main__":
    main()
