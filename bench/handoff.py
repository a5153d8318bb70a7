"""DM presses across processes: two real ``dokobot run`` processes on one PostgreSQL (Discord
shards 0 and 1 of 2; tests/discord_fake/processes.py) against the strict fake Discord, whose
rate-limit windows run 20 times faster (as in the tests). Four people at a table of shard 1
play ``--games`` games from their DMs as fast as they can: press, wait until the prompt is
used up, press the next. Discord delivers every press in a DM to shard 0, whose process
acknowledges it and hands it to shard 1's process through PostgreSQL. At the end, shard 1's
process is paused (SIGSTOP) while one more press is on its way. Ends with

    dm_presses: N ack_p99_ms: A applied_p50_ms: B applied_p99_ms: C down_notice_ms: D

``ack``: Discord's answer to a press (from shard 0's process; Discord wants it within
3,000 ms); ``applied``: from the press to its prompt used up by shard 1's process (applied,
answered through the interaction token); ``down_notice``: from a press whose table's process
is paused to the notice that nothing happened.

    python bench/handoff.py --games 2

Starts its own throw-away PostgreSQL (tests/pg_server.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/discord.py must not hide the discord package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from discord_fake.processes import (  # noqa: E402
    choices,
    pick,
    play_game,
    seat_four,
    two_processes,
)
from pg_server import PASSWORD, PgServer  # noqa: E402

from dokobot.host.i18n import text  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile of ``values`` (nearest rank).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.99)
    (2.0, 4.0)
    """
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(share * len(ordered) + 0.999999) - 1))]


async def run(url: str, games: int, work: Path, identify_s: float) -> str:
    async with two_processes(url, work, identify_spacing=identify_s) as table:
        fake = table.fake
        await seat_four(table)
        for game in range(games):
            if game:
                await table.slash(fake.users[0], "start", channel=table.channel)
            await play_game(table)
        await table.slash(fake.users[0], "start", channel=table.channel)
        found = await table.next_prompt()
        while found is not None and found[1].dm_user is None:  # the starter's own reply
            await table.press(*found)
            found = await table.next_prompt()
        assert found is not None
        user, prompt = found
        notice = text("en", "discord.handoff_down")
        one = table.bots[1]
        one.signal(signal.SIGSTOP)
        try:
            started = time.monotonic()
            press = await fake.click(user, prompt, pick(choices(prompt)))
            await fake.wait_for(lambda: any(m.content == notice for m in press.followups))
            down = time.monotonic() - started
        finally:
            one.signal(signal.SIGCONT)
        assert fake.violations == [], fake.violations
    acks = [p.answered_after or 0.0 for p in table.dm_presses]
    applied = table.applied_after
    print(
        f"{games} games: {len(acks)} DM presses, ack max {max(acks) * 1000:.0f} ms, "
        f"applied max {max(applied) * 1000:.0f} ms",
        flush=True,
    )
    return (
        f"dm_presses: {len(acks)} ack_p99_ms: {percentile(acks, 0.99) * 1000:.0f} "
        f"applied_p50_ms: {percentile(applied, 0.5) * 1000:.0f} "
        f"applied_p99_ms: {percentile(applied, 0.99) * 1000:.0f} "
        f"down_notice_ms: {down * 1000:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games played by DM")
    parser.add_argument(
        "--identify-s",
        type=float,
        default=5.0,
        help="seconds between the two processes' IDENTIFYs (Discord's 5 s; the smoke run "
        "in tests/test_bench_smoke.py waits less, the figures do not depend on it)",
    )
    args = parser.parse_args()
    os.environ["DOKOBOT_STORE_PASSWORD"] = PASSWORD
    server = PgServer()
    server.start()
    try:
        url = server.new_database()
        with tempfile.TemporaryDirectory() as work:
            line = asyncio.run(run(url, args.games, Path(work), args.identify_s))
    finally:
        server.close()
    print(line)


if __name__ == "__main__":
    main()
