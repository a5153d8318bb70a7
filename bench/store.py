"""Store throughput of several bot processes: 2 processes (Discord shards 0 and 1 of 2) on
one PostgreSQL, and for comparison 1 process on SQLite, each driving its share of 1,000
tables of four players that move at random (random-level computer players) through
:meth:`Service.handle` — every action is stored before it is acknowledged.

Starts its own throw-away PostgreSQL (tests/pg_server.py; as the user ``postgres`` when run
as root). Each process keeps ``--drivers`` actions in flight (players of different tables
acting at once) and cycles through its tables; an action's latency is the time of
:meth:`Service.handle` (router, engine and the durable store write). Ends with

    pg_actions_per_s: X pg_p99_ms: Y sqlite_actions_per_s: Z

    nice python bench/store.py                     # 1,000 tables, 20 s per run
    python bench/store.py --tables 200 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (bench/discord.py is not the discord package the Discord adapter's shards import)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from pg_bot import guilds, next_input  # noqa: E402
from pg_server import PASSWORD, PgServer  # noqa: E402

from dokobot.adapters.discord.shards import shard_part  # noqa: E402
from dokobot.host.router import Router  # noqa: E402
from dokobot.host.service import Service  # noqa: E402
from dokobot.store import Append, Scope, open_store  # noqa: E402


def postgres_cpu_s(data: Path) -> float:
    """CPU seconds used so far by the PostgreSQL server of data directory ``data``: its
    postmaster (with the backends that ended) and the backends running now. Other
    PostgreSQL servers on the machine do not count."""
    tick = os.sysconf("SC_CLK_TCK")
    master = int((data / "postmaster.pid").read_text().split()[0])
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        # fields after the name: state, ppid, …; utime, stime, cutime, cstime are 11..14
        fields = text.rsplit(")", 1)[1].split()
        if int(stat.parent.name) == master or int(fields[1]) == master:
            total += sum(int(f) for f in fields[11:15])
    return total / tick


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def worker(location: str, shard: int, count: int, tables: int, seconds: float,
                 drivers: int) -> dict[str, object]:  # fmt: skip
    scope = Scope((shard_part(count, (shard,)),))
    store = await asyncio.to_thread(open_store, location, scope=scope, lease_s=10.0)
    stored = 0
    append_each = store.append_each

    def counted(appends: list[Append], answer: Callable[[int, int | Exception], None]) -> None:
        def told(i: int, n: int | Exception) -> None:
            nonlocal stored
            stored += isinstance(n, int)
            answer(i, n)

        append_each(appends, told)

    store.append_each = counted  # type: ignore[method-assign,assignment]
    svc = Service(Router(seed=shard), store, idle_s=3600)
    await svc.start()
    chans = [(f"discord:{g + 1}", f"discord:{g}") for g in guilds(shard, count, tables)]
    rng = random.Random(shard)
    for channel, server in chans:  # seat four players and deal (not timed)
        for _ in range(5):
            await svc.handle(next_input(svc, channel, server, rng))
    mb = rss_mb()
    latencies: list[float] = []
    measuring = False

    async def drive(mine: list[tuple[str, str]], until: float) -> None:
        while time.monotonic() < until:
            for channel, server in mine:
                inp = next_input(svc, channel, server, rng)
                t0 = time.perf_counter()
                await svc.handle(inp)
                if measuring:
                    latencies.append(time.perf_counter() - t0)

    groups = [chans[i::drivers] for i in range(min(drivers, len(chans)))]
    await asyncio.gather(*(drive(g, time.monotonic() + 2.0) for g in groups))  # warm-up
    measuring = True
    before = stored
    t0, cpu0 = time.monotonic(), time.process_time()
    await asyncio.gather(*(drive(g, t0 + seconds) for g in groups))
    elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
    actions = stored - before
    await svc.close()
    return {"actions": actions, "seconds": elapsed, "mb": mb, "tables": len(chans), "cpu": cpu,
            "latencies_ms": [round(x * 1000, 3) for x in latencies]}  # fmt: skip


def spawn(location: str, shard: int, count: int, tables: int, args: argparse.Namespace
          ) -> subprocess.Popen[str]:  # fmt: skip
    return subprocess.Popen(
        [sys.executable, __file__, "--worker", location, str(shard), str(count), str(tables),
         "--seconds", str(args.seconds), "--drivers", str(args.drivers)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "DOKOBOT_STORE_PASSWORD": PASSWORD},
    )  # fmt: skip


def collect(procs: list[subprocess.Popen[str]]) -> list[dict[str, object]]:
    out = []
    for p in procs:
        stdout, _ = p.communicate()
        if p.returncode:
            raise SystemExit(f"a worker failed (exit {p.returncode})")
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def summary(name: str, results: list[dict[str, object]]) -> tuple[float, float]:
    actions = sum(int(str(r["actions"])) for r in results)
    seconds = max(float(str(r["seconds"])) for r in results)
    lat = sorted(x for r in results for x in r["latencies_ms"])  # type: ignore[attr-defined]
    rate = actions / seconds
    p50, p99 = lat[len(lat) // 2], lat[int(len(lat) * 0.99)]
    mb = ", ".join(f"{float(str(r['mb'])):.0f} MB RSS for {r['tables']} tables" for r in results)
    cpu = sum(float(str(r["cpu"])) for r in results) / actions * 1000
    print(f"{name}: {len(results)} process(es), {actions} actions in {seconds:.1f} s = "
          f"{rate:.0f}/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms; bot CPU {cpu:.2f} ms per "
          f"action; {mb}", flush=True)  # fmt: skip
    return rate, p99


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--drivers", type=int, default=8, help="actions in flight per process")
    ap.add_argument(
        "--worker",
        nargs=4,
        metavar=("LOCATION", "SHARD", "COUNT", "TABLES"),
        help=argparse.SUPPRESS,
    )
    args = ap.parse_args()
    if args.worker:
        import logging

        logging.basicConfig(level=logging.WARNING, format="worker: %(levelname)s %(message)s")
        location, shard, count, tables = args.worker
        res = asyncio.run(worker(location, int(shard), int(count), int(tables), args.seconds,
                                 args.drivers))  # fmt: skip
        print(json.dumps(res))
        return
    server = PgServer()
    server.start()
    try:
        url = server.new_database()
        half = args.tables // 2
        procs = [spawn(url, s, 2, half, args) for s in (0, 1)]
        cpu0, t0 = postgres_cpu_s(server.data), time.monotonic()
        results = collect(procs)
        pg_cpu, wall = postgres_cpu_s(server.data) - cpu0, time.monotonic() - t0
        pg_rate, pg_p99 = summary("postgresql", results)
        print(
            f"postgresql server: {pg_cpu:.1f} CPU s in {wall:.1f} s (set-up included), "
            f"{pg_cpu / wall * 100:.0f}% of one core",
            flush=True,
        )
    finally:
        server.close()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.sqlite3")
        lite_rate, _ = summary("sqlite", collect([spawn(path, 0, 1, args.tables, args)]))
    print(
        f"pg_actions_per_s: {pg_rate:.0f} pg_p99_ms: {pg_p99:.1f} "
        f"sqlite_actions_per_s: {lite_rate:.0f}"
    )


if __name__ == "__main__":
    main()
