"""Slow commands beside play: a seated player's moves while spectators flood the table with
``/export``.

A table with ``--games`` finished games (their records stored the way the service stores a
table's records) deals a new game; ``--spectators`` people each send ``--exports`` exports
at once, then the seated players make ``--moves`` moves one after another while the exports
are queued or being built. Prints the moves' wall-clock latency and how many exports were
taken or answered "busy", and ends with
``move_p99_ms: X move_max_ms: Y exports_taken: N busy: B``.

    python bench/slow.py                               # 500 games, 30 spectators x 30 exports
    python bench/slow.py --games 20 --spectators 2 --exports 5 --moves 5   # smoke
"""

from __future__ import annotations

import argparse
import asyncio
import time

from dokobot.host.events import Event, Input, Private
from dokobot.host.journal import Record
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import MemoryStore

NAMES = ("anna", "ben", "carl", "dora")


async def _move(svc: Service) -> float:
    """One move of the seated player to move; its answer's latency in ms."""
    table = svc.router.tables["t"]
    game = table.game
    assert game is not None
    seat = table.seats[game.turn]
    text = command_for(game.legal_actions()[0])
    start = time.perf_counter()
    await svc.handle(Input("t", seat.user, seat.name, text))
    return (time.perf_counter() - start) * 1000


async def _play_one(svc: Service) -> None:
    table = svc.router.tables["t"]
    await svc.handle(Input("t", "u0", "anna", "/start"))
    while table.running:
        await _move(svc)


def _text(events: list[Event]) -> str:
    return next((e.text for e in events if isinstance(e, Private)), "")


async def run(games: int, spectators: int, exports: int, moves: int) -> None:
    store = MemoryStore()
    svc = Service(Router(seed=1), store)
    for i, name in enumerate(NAMES):
        await svc.handle(Input("t", f"u{i}", name, "/join"))
    await _play_one(svc)
    journal = [Record.decode(x) for x in store.load_journal("t")]
    first = next(i for i, r in enumerate(journal) if r.kind == "deal")
    table = svc.router.tables["t"]
    table.journal.extend(journal[first:] * (games - 1))
    assert await svc.persist("t")
    await svc.handle(Input("t", "u0", "anna", "/start"))
    flood = [
        asyncio.create_task(svc.handle(Input("t", f"s{s}", f"spectator{s}", "/export")))
        for s in range(spectators)
        for _ in range(exports)
    ]
    await asyncio.sleep(0)
    latencies = []
    for _ in range(moves):
        if not table.running:
            await svc.handle(Input("t", "u0", "anna", "/start"))
        latencies.append(await _move(svc))
        await asyncio.sleep(0)
    pending = sum(not t.done() for t in flood)
    answers = [_text(await t) for t in flood]
    busy = sum(a.startswith("Busy") for a in answers)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"{games} games, {spectators} x {exports} exports, {moves} moves; "
          f"exports still pending after the moves: {pending}")  # fmt: skip
    print(f"move latency ms: p50 {latencies[len(latencies) // 2]:.1f} p99 {p99:.1f} "
          f"max {latencies[-1]:.1f}")  # fmt: skip
    await svc.close()
    print(f"move_p99_ms: {p99:.1f} move_max_ms: {latencies[-1]:.1f} "
          f"exports_taken: {len(flood) - busy} busy: {busy}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--spectators", type=int, default=30)
    ap.add_argument("--exports", type=int, default=30)
    ap.add_argument("--moves", type=int, default=40)
    args = ap.parse_args()
    asyncio.run(run(args.games, args.spectators, args.exports, args.moves))


if __name__ == "__main__":
    main()
