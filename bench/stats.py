"""Speed of ``/top`` and ``/stats`` on a server with many stored games.

    python bench/stats.py                  # 100,000 games in a temporary SQLite file
    python bench/stats.py --games 20000 --store /tmp/s.db

The store is filled with direct writes of realistic records: the 48 games of the
conformance session ``tests/data/default-1.doko`` (played through the host, so with their
tricks and calls), dealt out again and again to four of ``--players`` people on 40
tables; a tenth of the tables seat a computer player. Then the statistics are loaded once
(the start of the bot does the same) and ``/top`` (every board) and ``/stats PLAYER`` are
timed through the router, with a new game stored every 20 questions, as in play.
The last line is ``stats_p99_ms: X games: N``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.host.events import Input
from dokobot.host.feed import feed
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.stats import FinishedGame, SeatRecord, Stats
from dokobot.store import MemoryStore, SqliteStore

SERVER = "discord:1000"
SESSION = Path(__file__).resolve().parent.parent / "tests" / "data" / "default-1.doko"


def session_games() -> list[FinishedGame]:
    """The games of the conformance session as the service records them."""
    store = MemoryStore()

    async def run() -> None:
        service = Service(Router(seed=0, table_seed=lambda _: 0), store)
        await service.start()
        with open("/dev/null", "w") as out:
            await feed(service, SESSION.read_text(encoding="utf-8").splitlines(), out=out)

    asyncio.run(run())
    return store.results("feed")


def dealt_out(template: FinishedGame, seats: list[SeatRecord], channel: str, number: int,
              when: float, rated: bool) -> FinishedGame:  # fmt: skip
    """``template`` played by ``seats`` (names swapped in the result too)."""
    rename = {old.name: new.name for old, new in zip(template.seats, seats, strict=True)}
    r = template.result

    def names(xs: list[str]) -> list[str]:
        return [rename[x] for x in xs]

    result = {
        **r,
        "game": number,
        "dealer": rename[r["dealer"]],
        "declarer": None if r["declarer"] is None else rename[r["declarer"]],
        "re": names(r["re"]),
        "kontra": names(r["kontra"]),
        "calls": [{"player": rename[c["player"]], "call": c["call"]} for c in r["calls"]],
        "scores": {rename[k]: v for k, v in r["scores"].items()},
        "totals": {rename[k]: v for k, v in r["totals"].items()},
    }
    return replace(template, server=SERVER, channel=channel, game=number, finished_at=when,
                   seats=tuple(seats), result=result, rated=rated, id=0)  # fmt: skip


def fill(store: SqliteStore, n: int, players: int, rng: random.Random) -> int:
    templates = session_games()
    people = [SeatRecord(f"discord:{10_000 + i}", f"player{i:03d}") for i in range(players)]
    numbers: dict[str, int] = {}
    batch: list[FinishedGame] = []
    when = 1_700_000_000.0
    for i in range(n):
        channel = f"discord:{SERVER[8:]}:{rng.randrange(40)}"
        computer = channel.endswith(("0", "5")) and channel[-2] in "13"
        seats = rng.sample(people, 3 if computer else 4)
        if computer:
            seats.append(SeatRecord("bot:Bot1", "Bot1", True, "normal"))
        numbers[channel] = numbers.get(channel, 0) + 1
        when += rng.uniform(30, 600)
        batch.append(dealt_out(templates[i % len(templates)], seats, channel, numbers[channel],
                               when, not computer))  # fmt: skip
        if len(batch) == 5000:
            store.add_results(batch)
            batch = []
    if batch:
        store.add_results(batch)
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--store", default=None, help="SQLite file (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = None
    if args.store is None:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "stats.db"
    else:
        path = Path(args.store)
    store = SqliteStore(path)
    have = len(store.results(SERVER, limit=1))
    if not have:
        t0 = time.perf_counter()
        fill(store, args.games, args.players, rng)
        print(f"filled {args.games} games in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    router = Router(seed=0)
    stats = router.stats = Stats(store)
    t0 = time.perf_counter()
    book = stats.book(SERVER)
    print(f"loaded {book.games} games, {len(book.players)} players in "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)  # fmt: skip
    names = [p.name for p in book.players.values()]
    extra = session_games()
    seats = list(book.players.values())[:4]
    times: list[float] = []
    channel = f"discord:{SERVER[8:]}:bench"
    boards = ("points", "rating", "games", "solo")
    for q in range(args.queries):
        if q % 20 == 0:
            game = dealt_out(extra[q % len(extra)], [SeatRecord(p.user, p.name) for p in seats],
                             channel, 100_000 + q, time.time(), True)  # fmt: skip
            store.add_result(game)
        user = rng.choice(list(book.players))
        text = f"/top {boards[q % 4]}" if q % 2 else f"/stats {rng.choice(names)}"
        inp = Input(channel, user, "asker", text, server=SERVER)
        t = time.perf_counter()
        events = router.handle(inp)
        times.append(time.perf_counter() - t)
        assert events and "wrong" not in events[0].text, events
    times.sort()
    p99 = times[int(0.99 * (len(times) - 1))] * 1000
    print(f"median {statistics.median(times) * 1000:.2f} ms, max {times[-1] * 1000:.2f} ms",
          file=sys.stderr)  # fmt: skip
    games = book.games
    store.close()
    if tmp is not None:
        tmp.cleanup()
    print(f"stats_p99_ms: {p99:.2f} games: {games}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
