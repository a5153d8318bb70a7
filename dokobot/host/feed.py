"""Feed a replay script to a live, durable service line by line (crash tests, load tests).

``dokobot feed SCRIPT --store PATH [--from N]`` prints ``ACK N`` after line ``N`` (1-based)
is handled and durable. Killed at any moment and restarted with ``--from`` the line after
the last ``ACK``, it resumes every table from the store; the final results are those of an
uninterrupted run.

Exactly once: a kill can fall after a line is durable but before its ``ACK`` is printed.
Each line's journal records are therefore written together with a ``feed`` record naming the
line (one transaction); on a restart the lines up to the last such marker are skipped,
whatever ``--from`` says, so no line is applied twice (a second ``/play ♥10`` can be legal: a
player may hold both). Computer players that must move after a restart finish their moves
before the next line is fed, as they did before it in the uninterrupted run.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TextIO

from .journal import Record
from .replay import Replayer, results_jsonl
from .router import Router
from .service import Service, default_bot_factory

CHANNEL = "feed"
LEGACY_MARKER = "# feed "


def durable_line(journal: Sequence[Record]) -> int:
    """The last script line whose effects are in ``journal`` (0: none).

    >>> durable_line([Record("feed", text="3"), Record("line", text="# feed 4"),
    ...               Record("cmd", name="anna", text="/join")])
    4
    """
    for rec in reversed(journal):
        text = rec.text
        if rec.kind == "line" and text.startswith(LEGACY_MARKER):
            text = text[len(LEGACY_MARKER) :]
        elif rec.kind != "feed":
            continue
        if text.isdigit():
            return int(text)
    return 0


async def feed(
    service: Service, lines: Sequence[str], start: int = 1, out: TextIO = sys.stdout
) -> None:
    """Handle ``lines[start-1:]`` through ``service``, skipping lines already durable; print
    ``ACK n`` for each."""
    await service.load(CHANNEL)
    rep = Replayer(router=service.router, channel=CHANNEL)
    table = service.router.table(CHANNEL)
    for seat in table.seats:
        rep.users[seat.name] = seat.user
    done = durable_line([Record.decode(x) for x in service.store.load_journal(CHANNEL)])
    await service.idle()  # computer players resumed by the restart move first
    for lineno, raw in enumerate(lines, 1):
        if lineno < start:
            continue
        if lineno <= done:
            print(f"ACK {lineno}", file=out, flush=True)
            continue
        # written in the same transaction as the line's own journal entries
        await service.load(CHANNEL)
        service.router.table(CHANNEL).journal.append(Record("feed", text=str(lineno)))
        line = raw.strip()
        if line and not line.startswith(("#", ">")):
            if line.startswith("!"):
                await service.load(CHANNEL)
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
        router = Router(seed=0, bot_factory=default_bot_factory(fixed=True), table_seed=lambda _: 0)
        service = Service(router, open_store(store_path))
        await service.start()
        await feed(service, lines, start)
        table = router.tables.get(CHANNEL)
        if json_out and table is not None:
            sys.stdout.write(results_jsonl([r.as_json() for r in table.all_games()]))
        await service.close()

    asyncio.run(main())
    return 0
