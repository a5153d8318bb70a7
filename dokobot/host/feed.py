"""Feed a replay script to a live, durable service line by line (crash tests, load tests).

``dokobot feed SCRIPT --store PATH [--from N]`` prints ``ACK N`` after line ``N`` (1-based)
is handled and durable. Killed at any moment and restarted with ``--from`` the line after
the last ``ACK``, it resumes every table from the store; the final results are those of an
uninterrupted run.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TextIO

from .replay import Replayer, results_jsonl
from .router import Router
from .service import Service, default_bot_factory

CHANNEL = "feed"


async def feed(
    service: Service, lines: Sequence[str], start: int = 1, out: TextIO = sys.stdout
) -> None:
    """Handle ``lines[start-1:]`` through ``service``; print ``ACK n`` for each."""
    rep = Replayer(router=service.router, channel=CHANNEL)
    for seat in service.router.table(CHANNEL).seats:
        rep.users[seat.name] = seat.user
    for lineno, raw in enumerate(lines, 1):
        if lineno < start:
            continue
        line = raw.strip()
        if line and not line.startswith(("#", ">")):
            if line.startswith("!"):
                rep.directive(lineno, line)
                await service.persist(CHANNEL)
            else:
                name, text, dm = rep.parse_input(lineno, line)
                await service.handle(rep.input_for(name, text, dm))
                await service.idle()
        print(f"ACK {lineno}", file=out, flush=True)


def run_feed(script: str, store_path: str, start: int, json_out: bool) -> int:
    from ..store import open_store

    with open(script, encoding="utf-8") as fh:
        lines = fh.read().splitlines()

    async def main() -> None:
        router = Router(seed=0, bot_factory=default_bot_factory(), table_seed=lambda _: 0)
        service = Service(router, open_store(store_path))
        await service.start()
        await feed(service, lines, start)
        table = router.tables.get(CHANNEL)
        if json_out and table is not None:
            sys.stdout.write(results_jsonl([r.as_json() for r in table.finished]))
        await service.close()

    asyncio.run(main())
    return 0
