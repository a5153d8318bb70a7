"""The review queue: does reviewing in the background delay play, and what does the review
of a person's game cost?

One table: one person (who plays the first choice offered) and three ``normal`` computer
players. It plays ``--games`` games with the review queue off, then games with it on (each
game queues its review, made in a process of its own at a lower priority, as ``dokobot run``
does) until ``--games`` reviews are done (with ``--max-games G``: at most G such games, then
it waits for the reviews without playing). The person's actions are timed from input to
answer; with the queue on, only those answered while a review was being made count.
``--in-thread`` makes the reviews in a thread of the bot's own process instead (sharing its
interpreter lock), to compare.

    python bench/review_queue.py                           # 4 games, the default budget
    python bench/review_queue.py --games 1 --budget 0.05 --max-games 1   # a smoke run

Ends with ``move_p99_ms off: A reviewing: B moves_reviewing: M review_cpu_s_per_person_game: C
reviews: N``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dokobot.ai.search import DEFAULT_BUDGET_S
from dokobot.host import reviews
from dokobot.host.events import Input, Private
from dokobot.host.reviewqueue import ReviewQueue
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore


def _p99(values: list[float]) -> float:
    if not values:
        return 0.0
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[98]


async def _game(svc: Service, queue: ReviewQueue | None, off: list[float], on: list[float]) -> None:
    """One game: the person's actions timed (``on`` while a review is being made)."""

    def inp(text: str) -> Input:
        return Input("c", "u:anna", "anna", text)

    table = svc.router.tables["c"]
    await svc.handle(inp("/start"))
    while True:
        await svc.idle()
        if not table.running:
            return
        choices = [c for e in await svc.handle(inp("/hand")) if isinstance(e, Private)
                   for c in e.choices]  # fmt: skip
        reviewing = queue is not None and queue.busy
        t0 = time.perf_counter()
        await svc.handle(inp(choices[0].command))
        took = (time.perf_counter() - t0) * 1000
        if queue is None:
            off.append(took)
        elif reviewing and queue.busy:
            on.append(took)


async def _table(store: MemoryStore, queue: ReviewQueue | None) -> Service:
    router = Router(seed=0, table_seed=lambda _: 0, bot_factory=default_bot_factory())
    svc = Service(router, store, reviews=queue)
    await svc.start()
    await svc.handle(Input("c", "u:anna", "anna", "/join"))
    for _ in range(3):
        await svc.handle(Input("c", "u:anna", "anna", "/join bot normal"))
    return svc


def _reviews(store: MemoryStore) -> list[reviews.GameReview]:
    """The stored reviews of the table's games, in order."""
    out = []
    n = 1
    while (record := store.review("c", n)) is not None:
        found = reviews.GameReview.from_json(record)
        if found is not None:
            out.append(found)
        n += 1
    return out


async def run(
    games: int, budget: float, in_thread: bool, max_s: float, max_games: int | None = None
) -> str:
    off: list[float] = []
    on: list[float] = []
    svc = await _table(MemoryStore(), None)
    for _ in range(games):
        await _game(svc, None, off, on)
    await svc.close()
    store = MemoryStore()
    compute = reviews.compute if in_thread else None
    queue = ReviewQueue(store, budget, compute=compute)
    svc = await _table(store, queue)
    deadline = time.monotonic() + max_s
    played = 0
    while len(_reviews(store)) < games and time.monotonic() < deadline:
        if max_games is not None and played >= max_games:
            await asyncio.sleep(0.05)  # the reviews are made meanwhile
            continue
        await _game(svc, queue, off, on)
        played += 1
    await svc.close()  # (the reviews still queued are abandoned)
    seconds = [r.seconds for r in _reviews(store)]
    cpu = statistics.fmean(seconds) if seconds else 0.0
    return (
        f"move_p99_ms off: {_p99(off):.1f} reviewing: {_p99(on):.1f} moves_reviewing: {len(on)} "
        f"review_cpu_s_per_person_game: {cpu:.2f} reviews: {len(seconds)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games without reviews, and reviews")
    parser.add_argument(
        "--budget", type=float, default=2 * DEFAULT_BUDGET_S,
        help="the review's CPU seconds per decision (bots.review_budget)",
    )  # fmt: skip
    parser.add_argument("--in-thread", action="store_true", help="review in a thread instead")
    parser.add_argument("--max-s", type=float, default=900, help="stop playing after this long")
    parser.add_argument(
        "--max-games", type=int, default=None,
        help="games with the queue on at most (then wait for the reviews)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    line = asyncio.run(run(args.games, args.budget, args.in_thread, args.max_s, args.max_games))
    print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
