"""A bot process for the fault tests: a :class:`Service` on PostgreSQL serving Discord shard
SHARD of COUNT, playing TABLES tables (four players whose moves this process chooses at
random, through :meth:`Service.handle` like chat input) until killed or MOVES actions.

    python tests/pg_bot.py URL SHARD COUNT TABLES MOVES

Prints ``RESTORED n`` after the start (tables restored from the store) and
``ACK channel length`` after each acknowledged action (stored before it is printed).
"""

from __future__ import annotations

import asyncio
import random
import sys

from dokobot.host.events import Input
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import Scope, open_store
from dokobot.store.scope import shard_of

NAMES = ("anna", "ben", "carl", "dora")


def guilds(shard: int, count: int, n: int) -> list[int]:
    """``n`` Discord server ids of shard ``shard``."""
    out, g = [], 1
    while len(out) < n:
        if shard_of(g << 22, count) == shard:
            out.append(g << 22)
        g += 1
    return out


def next_input(svc: Service, channel: str, server: str, rng: random.Random) -> Input:
    table = svc.router.tables.get(channel)
    if table is None or len(table.seats) < 4:
        n = NAMES[len(table.seats) if table else 0]
        return Input(channel, f"u:{channel}:{n}", n, "/join", server=server)
    game = table.game
    if game is None or not table.running:
        return Input(channel, table.seats[0].user, table.seats[0].name, "/start", server=server)
    seat = table.seats[game.turn]
    text = command_for(rng.choice(game.legal_actions()))
    return Input(channel, seat.user, seat.name, text, server=server)


async def main(url: str, shard: int, count: int, tables: int, moves: int) -> None:
    scope = Scope(shard_count=count, shard_ids=(shard,))
    store = await asyncio.to_thread(open_store, url, scope=scope, lease_s=2.0)
    append_many = store.append_many

    def acked(appends: list[tuple[str, list[str]]]) -> list[int | Exception]:
        results = append_many(appends)
        for (channel, _), n in zip(appends, results, strict=True):
            if isinstance(n, int):
                print(f"ACK {channel} {n}", flush=True)
        return results

    store.append_many = acked  # type: ignore[method-assign,assignment]
    svc = Service(Router(seed=shard), store)
    await svc.start()
    print(f"RESTORED {len(svc.router.tables)}", flush=True)
    rng = random.Random()
    chans = [(f"discord:{g + 1}", f"discord:{g}") for g in guilds(shard, count, tables)]
    for _ in range(moves):
        for channel, server in chans:
            await svc.handle(next_input(svc, channel, server, rng))
    await svc.close()


if __name__ == "__main__":
    url, shard, count, tables, moves = sys.argv[1:6]
    asyncio.run(main(url, int(shard), int(count), int(tables), int(moves)))
