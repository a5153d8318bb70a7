"""A bot process for the fault tests: a :class:`Service` on PostgreSQL serving Discord shards
SHARDS (comma separated) of COUNT, playing TABLES tables per shard (four players whose moves
this process chooses at random, through :meth:`Service.handle` like chat input) until killed
or MOVES actions.

    python tests/pg_bot.py URL SHARDS COUNT TABLES MOVES [SPAN]

With SPAN, it plays instead the tables of the Discord servers 1 … SPAN (ids ``g << 22``)
that belong to its shards: processes of another shard count share those tables (a reshard).

Prints ``RESTORED n`` after the start (tables restored from the store) and
``ACK channel length digest`` after each acknowledged action (stored before it is printed;
``digest`` names the last record stored). When the store finds the process fenced, it stops
with exit code 2 and ``FENCED reason`` on stderr, as ``dokobot run`` does.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sys
from collections.abc import Callable

from dokobot.adapters.discord.shards import shard_of, shard_part
from dokobot.host.events import Input
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.runner import stop_when_fenced
from dokobot.store import Append, Scope, open_store

NAMES = ("anna", "ben", "carl", "dora")


def guilds(shard: int, count: int, n: int) -> list[int]:
    """``n`` Discord server ids of shard ``shard``."""
    out, g = [], 1
    while len(out) < n:
        if shard_of(g << 22, count) == shard:
            out.append(g << 22)
        g += 1
    return out


def digest(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()[:16]


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


async def main(
    url: str, shards: tuple[int, ...], count: int, tables: int, moves: int, span: int | None
) -> int:
    scope = Scope((shard_part(count, shards),))
    store = await asyncio.to_thread(open_store, url, scope=scope, lease_s=2.0)
    taken = stop_when_fenced(store)
    append_each = store.append_each

    def acked(appends: list[Append], answer: Callable[[int, int | Exception], None]) -> None:
        def told(i: int, n: int | Exception) -> None:
            channel, lines, _ = appends[i]
            if isinstance(n, int) and lines:  # (answered: stored)
                print(f"ACK {channel} {n} {digest(lines[-1])}", flush=True)
            answer(i, n)

        append_each(appends, told)

    store.append_each = acked  # type: ignore[method-assign,assignment]
    svc = Service(Router(seed=shards[0]), store)
    try:
        await svc.start()
        print(f"RESTORED {len(svc.router.tables)}", flush=True)
        rng = random.Random()
        if span is None:
            ids = [g for shard in shards for g in guilds(shard, count, tables)]
        else:
            ids = [g << 22 for g in range(1, span + 1) if scope.owns(f"discord:{g << 22}")]
        chans = [(f"discord:{g + 1}", f"discord:{g}") for g in ids]
        for _ in range(moves):
            for channel, server in chans:
                await svc.handle(next_input(svc, channel, server, rng))
    except asyncio.CancelledError:
        if not taken:
            raise
    finally:
        await svc.close()
    if taken:
        print(f"FENCED {taken[0]}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    url, shards, count, tables, moves = sys.argv[1:6]
    span = int(sys.argv[6]) if len(sys.argv) > 6 else None
    ids = tuple(int(s) for s in shards.split(","))
    sys.exit(asyncio.run(main(url, ids, int(count), int(tables), int(moves), span)))
