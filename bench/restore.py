"""Restart time and memory with a big store: 10,000 tables with 10 finished games each
(100,000 games) plus 1,000 tables with a running game (after 2 finished ones).

The store is built with direct writes (one transaction), from real games: a few template
tables play their games through the router; every stored table is one of them under its own
channel and user ids, journal records and checkpoint alike. Then a fresh process opens the
store and starts the service (``Service.start``), which is what is measured; it ends with
``restore_s: X tables: N games: M rss_mb: Y`` (goals: X < 5, Y < 1,000).

    python bench/restore.py                       # the full size (building takes minutes)
    python bench/restore.py --tables 500 --running 50
    python bench/restore.py --store big.sqlite3 --keep   # reuse a built store
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dokobot.host import checkpoint
from dokobot.host.events import Input
from dokobot.host.router import Router
from dokobot.host.table import Table, command_for
from dokobot.store import SqliteStore

NAMES = ("anna", "ben", "carl", "dora")
TEMPLATES = 8


def play(seed: int, finished: int, running_moves: int) -> tuple[Router, Table]:
    """A table of four people that played ``finished`` games and ``running_moves`` actions
    of the next one (0: none started)."""
    router = Router(seed=seed)
    for i, name in enumerate(NAMES):
        router.handle(Input("t", f"u{i}", name, "/join"))
    table = router.tables["t"]
    for g in range(finished + (1 if running_moves else 0)):
        router.handle(Input("t", "u0", "anna", "/start"))
        game = table.game
        assert game is not None
        last = g == finished
        while table.running and not (last and len(game.log) >= running_moves):
            seat = game.turn
            info = table.seats[seat]
            router.handle(Input("t", info.user, info.name, command_for(game.legal_actions()[0])))
    return router, table


def _retarget(table: Table, channel: str, prefix: str) -> None:
    table.channel = channel
    for i, seat in enumerate(table.seats):
        seat.user = f"{prefix}u{i}"
    table.owner = f"{prefix}u0"


def build(path: Path, tables: int, running: int, games: int) -> None:
    store = SqliteStore(path)  # the schema
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    version = checkpoint.version()

    def put(channel: str, prefix: str, table: Table, lines: list[str], cp_upto: int) -> None:
        rows = [
            (channel, seq, line.replace('"user":"u', f'"user":"{prefix}u'))
            for seq, line in enumerate(lines)
        ]
        db.executemany("INSERT INTO journal (channel, seq, line) VALUES (?, ?, ?)", rows)
        db.execute("INSERT INTO tables (channel, length) VALUES (?, ?)", (channel, len(lines)))
        if cp_upto:
            _retarget(table, channel, prefix)
            state, settlements, users = checkpoint.dump(table)
            db.execute(
                "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)",
                (channel, cp_upto, version, state, settlements, json.dumps(users)),
            )

    done = []
    for k in range(TEMPLATES):
        _, table = play(100 + k, games, 0)
        done.append((table, [r.encode() for r in table.journal]))
    for i in range(tables):
        table, lines = done[i % TEMPLATES]
        put(f"bench:{i}", f"t{i}:", table, lines, len(lines))
    for i in range(running):
        _, table = play(200 + i % TEMPLATES, 2, 0)
        upto = len(table.journal)
        head = [r.encode() for r in table.journal]
        ch = f"bench:running:{i}"
        put(ch, f"r{i}:", table, head, upto)
        _, whole = play(200 + i % TEMPLATES, 2, 4 + 5 + i % 30)
        tail = [r.encode() for r in whole.journal][upto:]
        rows = [
            (ch, upto + j, line.replace('"user":"u', f'"user":"r{i}:u'))
            for j, line in enumerate(tail)
        ]
        db.executemany("INSERT INTO journal (channel, seq, line) VALUES (?, ?, ?)", rows)
        db.execute("UPDATE tables SET length = ? WHERE channel = ?", (upto + len(tail), ch))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def measure(path: str) -> None:
    """In a fresh process: start the service on the store; print the figures as JSON."""
    from dokobot.host.service import Service

    async def main() -> tuple[float, int, int]:
        t0 = time.perf_counter()
        service = Service(Router(), SqliteStore(path))
        await service.start()
        elapsed = time.perf_counter() - t0
        loaded = len(service.router.tables)
        running = sum(1 for t in service.router.tables.values() if t.running)
        await service.close()
        return elapsed, loaded, running

    elapsed, loaded, running = asyncio.run(main())
    with open("/proc/self/status") as fh:
        rss = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
    print(json.dumps({"restore_s": elapsed, "loaded": loaded, "running": running, "rss_mb": rss}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=10_000, help="tables of finished games")
    ap.add_argument("--games", type=int, default=10, help="finished games per table")
    ap.add_argument("--running", type=int, default=1_000, help="tables with a running game")
    ap.add_argument("--store", help="the store file (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="reuse --store if it exists")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        measure(args.measure)
        return
    tmp = tempfile.mkdtemp()
    path = Path(args.store or os.path.join(tmp, "restore.sqlite3"))
    if not (args.keep and path.exists()):
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        t0 = time.perf_counter()
        build(path, args.tables, args.running, args.games)
        mb = path.stat().st_size / 1e6
        print(f"built {path} in {time.perf_counter() - t0:.0f} s ({mb:.0f} MB)", file=sys.stderr)
    db = sqlite3.connect(path)
    tables = int(db.execute("SELECT COUNT(*) FROM tables").fetchone()[0])
    starts = db.execute(
        'SELECT COUNT(*) FROM journal WHERE line LIKE \'%"text":"/start"%\''
    ).fetchone()[0]
    db.close()
    out = subprocess.run(
        [sys.executable, __file__, "--measure", str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"loaded at start: {r['loaded']} tables ({r['running']} running)", file=sys.stderr)
    print(f"restore_s: {r['restore_s']:.2f} tables: {tables} games: {starts} "
          f"rss_mb: {r['rss_mb']:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
