"""Many tables playing random games through the router in one process.

Prints commands/s (one core), latency percentiles, and memory per 1,000 open tables, and
ends with ``commands/s: N p99_ms: X mb_per_1000_tables: Y``. Memory is what Python allocates for the tables (tracemalloc), measured after every table
has seated four players and dealt a game; RSS is printed too. Times are CPU time of this
process (``time.process_time``), so that other work on the machine does not distort them;
``--wall`` uses wall-clock time instead.

    python bench/host.py                 # 1,000 and 10,000 tables
    python bench/host.py --tables 2000 --commands 50000
    python bench/host.py --tables 10 --commands 200 --series-tables 1 --series-games 13  # smoke
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import time
import tracemalloc
from collections.abc import Callable

from dokobot.engine.cards import card_ascii
from dokobot.engine.types import Phase
from dokobot.host.events import Input
from dokobot.host.router import Router


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def next_command(router: Router, channel: str, rng: random.Random) -> Input:
    table = router.tables[channel]
    game = table.game
    if game is None or game.phase is Phase.FINISHED:
        return Input(channel, table.seats[0].user, table.seats[0].name, "/start")
    seat = table.seats[game.turn]
    if game.phase is Phase.RESERVATIONS:
        text = "/healthy"
    elif game.phase is Phase.DECLARATIONS:
        text = "/solo clubs"
    else:
        if rng.random() < 0.02:
            calls = game.legal_calls(game.turn)
            if calls:
                text = "/" + ("re" if calls[0] == 58 else "kontra")
                return Input(channel, seat.user, seat.name, text)
        text = "/play " + card_ascii(rng.choice(game.legal_actions()))
    return Input(channel, seat.user, seat.name, text)


def run(
    n_tables: int, n_commands: int, seed: int, clock: Callable[[], float] = time.process_time
) -> tuple[float, float, float, float]:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    router = Router(seed=seed)
    channels = [f"bench:{i}" for i in range(n_tables)]
    for ch in channels:
        for p in range(4):
            router.handle(Input(ch, f"{ch}:p{p}", f"p{p}", "/join"))
        router.handle(Input(ch, f"{ch}:p0", "p0", "/start"))
    gc.collect()
    mem = (tracemalloc.get_traced_memory()[0] - base) / 2**20 / n_tables * 1000
    tracemalloc.stop()
    rng = random.Random(seed)
    lat: list[float] = []
    t0 = clock()
    for i in range(n_commands):
        ch = channels[rng.randrange(n_tables)] if i % 2 else channels[i % n_tables]
        inp = next_command(router, ch, rng)
        s = clock()
        router.handle(inp)
        lat.append(clock() - s)
    total = clock() - t0
    handled = sum(lat)
    lat.sort()
    p50 = lat[len(lat) // 2] * 1000
    p99 = lat[int(len(lat) * 0.99)] * 1000
    return n_commands / handled, p50, p99, mem if total else 0.0


def series_memory(n_tables: int, games: int, seed: int) -> float:
    """KB per table after ``games`` games, in a durable service (SQLite store on disk)."""
    import asyncio
    import tempfile

    from dokobot.host.service import Service
    from dokobot.store import SqliteStore

    async def go() -> float:
        with tempfile.TemporaryDirectory() as tmp:
            svc = Service(Router(seed=seed), SqliteStore(f"{tmp}/bench.sqlite3"))
            channels = [f"series:{i}" for i in range(n_tables)]
            for ch in channels:
                for p in range(4):
                    await svc.handle(Input(ch, f"{ch}:p{p}", f"p{p}", "/join"))
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            rng = random.Random(seed)
            for ch in channels:
                table = svc.router.tables[ch]
                # by the last game's number: the service keeps only the latest KEEP_GAMES
                while not table.finished or table.finished[-1].number < games:
                    await svc.handle(next_command(svc.router, ch, rng))
            gc.collect()
            used = tracemalloc.get_traced_memory()[0] - base
            tracemalloc.stop()
            await svc.close()
            return used / n_tables / 1024

    return asyncio.run(go())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--commands", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wall", action="store_true", help="wall-clock instead of CPU time")
    ap.add_argument(
        "--series-tables",
        type=int,
        default=20,
        help="tables that play a whole series for the memory figure (0: none)",
    )
    ap.add_argument("--series-games", type=int, default=24, help="games of that series")
    args = ap.parse_args()
    last = (0.0, 0.0, 0.0, 0.0)
    start_rss = rss_mb()
    for n in args.tables:
        clock = time.perf_counter if args.wall else time.process_time
        cps, p50, p99, mem = run(n, args.commands, args.seed, clock)
        print(
            f"{n:>6} tables: {cps:9.0f} commands/s  p50 {p50:.3f} ms  p99 {p99:.3f} ms  "
            f"{mem:7.1f} MB per 1000 tables ({mem * n / 1000:.0f} MB for {n})"
        )
        last = (cps, p50, p99, mem)
    print(f"process RSS: {rss_mb():.0f} MB (started at {start_rss:.0f} MB)")
    cps, _, p99, mem = last
    if args.series_tables:
        kb = series_memory(args.series_tables, args.series_games, args.seed)
        print(
            f"after a {args.series_games}-game series (durable service): {kb:.1f} KB per table "
            f"= {kb * 10000 / 1024:.0f} MB for 10,000 tables"
        )
        mem = max(mem, kb * 1000 / 1024)
    print(
        f"goals: >=10000 commands/s ({cps / 10000:.2f}x), p99 < 5 ms ({p99:.2f}), "
        f"10,000 tables < 1 GB ({mem * 10:.0f} MB)"
    )
    print(f"commands/s: {cps:.0f} p99_ms: {p99:.3f} mb_per_1000_tables: {mem:.1f}")


if __name__ == "__main__":
    main()
