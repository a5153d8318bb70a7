"""Tables on Discord: N tables of four people each play through the real discord.py client
against the strict fake Discord (tests/discord_fake: the bot-wide limit, per-route buckets,
interaction deadlines), with injected route 429s and 502s on the table channels.

People take 3 s per action; the fake's rate-limit windows, the adapter's board interval and
its request budget and the people all run ``--speed`` times faster than Discord's clock (the
interaction deadlines and their acknowledgement times do not: those are measured as they are).
Every person keeps the default: prompts in the channel (the "My cards" panel, opened from the
board when the board names him). It ends with

    global_rps_per_table: X dm_per_game: D tables_at_50rps: T lost_prompts: L
    failed_interactions: F p99_ack_ms: P channel_messages_per_game: M

X: bot-token requests that count toward the bot-wide limit (the injected faults and their
repetitions are not a table's cost and left out), per second of a table's play
when every press takes exactly 3 s (the fastest table; the measured time, stretched by the
client's real latencies, is printed on stderr); D: DMs sent per game; T = floor(50 / X), the tables one bot token carries
at Discord's 50 requests per second (valid only if the run had no global 429, which it
reports on stderr); L: turns whose player found no prompt (panel or board naming him) within
5 s; F: interactions not answered in time (or refused); P: the 99th percentile of the time to
answer an interaction; M: channel messages per game (board, result, lobby and any other).
Goals: D = 0, L = 0, F = 0, P < 500, M <= 3, T >= 150.

    python bench/discord.py --tables 20 --games 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this file is called discord.py: its folder must not hide the discord package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from discord_fake import FakeDiscord, FakeUser, Interaction, Message, running  # noqa: E402

from dokobot.adapters.discord import DiscordAdapter  # noqa: E402
from dokobot.adapters.discord.board_messages import BOARD_INTERVAL  # noqa: E402
from dokobot.adapters.discord.budget import BOT_WIDE_RPS  # noqa: E402
from dokobot.host.service import Service  # noqa: E402

THINK = 3.0
"""Seconds a person takes per action (Discord's clock)."""
LOST_AFTER = 5.0
"""Seconds after which a turn whose player sees no prompt counts as a lost prompt."""


def choices(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


class Run:
    """The fake, the client and the service shared by all tables, and what was measured."""

    def __init__(self, fake: FakeDiscord, client: DiscordAdapter, service: Service, speed: float):
        self.fake = fake
        self.client = client
        self.service = service
        self.speed = speed
        self.interactions: list[Interaction] = []
        self.lost = 0

    async def press(self, interaction: Interaction) -> Interaction:
        self.interactions.append(interaction)
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_answered(interaction, timeout=10)
        return interaction

    def board(self, channel_id: int) -> Message | None:
        found = [
            m
            for m in self.fake.channel_messages(channel_id)
            if m.embeds and m.button(lambda c: c.endswith(":hand"))
        ]
        return found[-1] if found else None


class Table:
    def __init__(self, run: Run, channel_id: int, people: list[FakeUser]) -> None:
        self.run = run
        self.channel_id = channel_id
        self.channel = f"discord:{channel_id}"
        self.people = people

    async def slash(self, user: FakeUser, name: str, options: dict[str, object] | None = None):
        fake = self.run.fake
        interaction = await fake.slash(user, name, options, channel_id=self.channel_id)  # type: ignore[arg-type]
        await self.run.press(interaction)

    async def seat(self) -> None:
        for user in self.people:
            await self.slash(user, "join")

    def _game(self):  # type: ignore[no-untyped-def]
        return self.run.service.router.tables[self.channel].game

    async def play(self, games: int) -> None:
        for _ in range(games):
            await self.slash(self.people[0], "start")
            await asyncio.gather(*(self._person(user) for user in self.people))

    async def _person(self, user: FakeUser) -> None:
        """One person: on his turn he waits 3 s, then presses a button of his prompt (his
        panel); with no prompt, "My cards" on the board; never a DM."""
        run = self.run
        me = f"discord:{user.id}"
        waited_since: float | None = None
        while True:
            table = run.service.router.tables[self.channel]
            game = table.game
            if game is None or game.phase.name == "FINISHED":
                return
            if table.seats[game.turn].user != me:
                waited_since = None
                await asyncio.sleep(0.5 / run.speed)  # people glance at the board
                continue
            now = time.monotonic()
            waited_since = waited_since if waited_since is not None else now
            await asyncio.sleep(THINK / run.speed)
            if run.service.router.tables[self.channel].game is not game or game.turn is None:
                continue
            if table.seats[game.turn].user != me:
                continue
            live = [
                m
                for m in run.fake.private_messages(user)
                if choices(m) and m.channel_id == self.channel_id
            ]
            if live:
                prompt = live[-1]
                pick = next(
                    (c for c in choices(prompt) if c.endswith(":healthy") or ":play " in c),
                    choices(prompt)[0],
                )
                await run.press(await run.fake.click(user, prompt, pick))
                waited_since = None
                continue
            board = run.board(self.channel_id)
            named = board is not None and user.mention in board.content
            if not named and time.monotonic() - waited_since < LOST_AFTER / run.speed + THINK:
                continue  # the prompt may still be on its way
            if not named:
                run.lost += 1
            if board is None:
                continue
            hand = board.button(lambda c: c.endswith(":hand"))
            if hand is not None:
                await run.press(await run.fake.click(user, board, hand))
            waited_since = None


async def run(tables: int, games: int, speed: float, rate_429: float, rate_5xx: float) -> str:
    fake = FakeDiscord(heartbeat_ms=1000, speed=speed)
    channels = [fake.channel_id] + [fake.add_channel() for _ in range(tables - 1)]
    people = [[fake.add_user(f"P{t}x{s}") for s in range(4)] for t in range(tables)]
    await fake.start()
    service = Service.in_memory(seed=1)
    try:
        with fake.patched():
            fake.rate_429 = rate_429
            fake.rate_5xx = rate_5xx
            fake.retry_after = 1.0 / speed
            client = DiscordAdapter(
                service,
                guild_ready_timeout=0.05,
                board_interval=BOARD_INTERVAL / speed,
                global_rps=BOT_WIDE_RPS * speed,
            )
            async with running(client):
                bench = Run(fake, client, service, speed)
                seated = [Table(bench, c, p) for c, p in zip(channels, people, strict=True)]
                for table in seated:
                    await table.seat()
                await asyncio.wait_for(client.wait_idle(), 60)
                before = {c: 0 for c in channels}  # every message counts, the lobby too
                calls_before = len(fake.calls)
                began = time.monotonic()
                await asyncio.gather(*(t.play(games) for t in seated))
                seconds = (time.monotonic() - began) * speed  # on Discord's clock
                await asyncio.wait_for(client.wait_idle(), 60)
                calls = fake.calls[calls_before:]
                counted = sum(c.counted and not c.injected for c in calls)
                injected = sum(c.injected for c in calls)
                messages = sum(len(fake.channel_messages(c)) - before[c] for c in channels)
                budget = client.budget.report()
    finally:
        await service.close()
        await fake.stop()
    played = tables * games
    dms = sum(1 for c in fake.calls if c.method == "POST" and "/messages" in c.path
              and fake._dm_user(int(c.path.split("/")[2])) is not None)  # fmt: skip
    # the time a game takes at 3 s per action without any delay: the fastest people, the
    # most requests per second (the measured time also holds the client's real latencies,
    # which the speed-up stretches)
    presses = sum(1 for i in bench.interactions if i.kind == 3)
    per_table = counted / (presses * THINK) if presses else 0.0
    acks = sorted(i.answered_after for i in bench.interactions if i.answered_after is not None)
    failed = sum(1 for i in bench.interactions if i.response_type is None)
    failed += sum("interaction" in v for v in fake.violations)
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))] * 1000 if acks else 0.0
    mean, peak = fake.requests_per_second()
    print(
        f"tables: {tables} games: {played} seconds: {seconds:.0f} counted: {counted} "
        f"injected_faults: {injected} "
        f"measured_rps_per_table: {counted / seconds / tables:.3f} "
        f"mean_rps: {mean / speed:.2f} peak_rps: {peak / speed:.1f} "
        f"global_429s: {fake.global_429s} route_429s: {len(fake.rate_limited)} "
        f"interactions: {len(bench.interactions)} violations: {fake.violations[:3]}\n{budget}",
        file=sys.stderr,
    )
    at_50 = math.floor(BOT_WIDE_RPS / per_table) if per_table > 0 else 0
    return (
        f"global_rps_per_table: {per_table:.3f} dm_per_game: {dms / played:.1f} "
        f"tables_at_50rps: {at_50} lost_prompts: {bench.lost} failed_interactions: {failed} "
        f"p99_ack_ms: {p99:.0f} channel_messages_per_game: {messages / played:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--games", type=int, default=1, help="games per table")
    parser.add_argument("--speed", type=float, default=10.0, help="the clock's speed-up")
    parser.add_argument("--rate-429", type=float, default=0.05, help="share of route 429s")
    parser.add_argument("--rate-5xx", type=float, default=0.01, help="share of 502s")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    print(asyncio.run(run(args.tables, args.games, args.speed, args.rate_429, args.rate_5xx)))


if __name__ == "__main__":
    main()
