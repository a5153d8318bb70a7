"""Tables on Discord: N tables of four people each play against the strict fake Discord
(tests/discord_fake: the bot-wide limit, per-route buckets, interaction deadlines), with
injected route 429s and 502s on the table channels, and the bot in a process of its own.

Two operating-system processes: the bot is a real ``dokobot run`` (tests/discord_fake/
bot_process.py: discord.py, the Discord adapter, the service and an SQLite store in a temporary
folder), pointed at the fake; this process runs the fake and the people. People see only
what Discord shows them: the channel's messages and their own ephemeral messages (the "My
cards" panel). A person knows it is his turn when his panel has the buttons of a prompt or
the board names him ("your turn"); he waits 3 s and presses the first "Healthy" or card
button, or "My cards" on the board. Every person keeps the default: prompts in the channel.

``--speed S`` runs the fake's rate-limit windows, the bot's board interval and request
budget and the people S times faster than Discord's clock (the interaction deadlines and the
acknowledgement times do not: those are measured as they are); speed 1 is real time. It ends
with

    global_rps_per_table: X dm_per_game: D tables_at_50rps: T lost_prompts: L
    failed_interactions: F p99_ack_ms: P channel_messages_per_game: M

X: bot-token requests that count toward the bot-wide limit (the injected faults and their
repetitions are not a table's cost and left out), per second of a table's play when every
press takes exactly 3 s (the fastest table; the measured rate is printed on stderr); D: DMs
sent per game; T = floor(50 / X), the tables one bot token carries at Discord's 50 requests
per second (valid only if the run had no global 429, which it reports on stderr); L: turns
where the board named a person as the player to play while he had no prompt (panel buttons
or a call on the board) for 5 s; F: interactions not answered within Discord's 3 s (or
refused); P: the 99th percentile of the time to answer an interaction; M: channel messages
per game (board, result, lobby and any other). Goals: D = 0, L = 0, F = 0, P < 500, M <= 3,
T >= 150. The line before it (stderr) holds the CPU seconds of the bot's process and of this
one, the wall time and the measured request rates.

    python bench/discord.py --tables 20 --speed 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this file is called discord.py: its folder must not hide the discord package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from discord_fake import Call, FakeDiscord, FakeUser, Interaction, Message  # noqa: E402
from discord_fake.bot_process import SPEED_ENV, TOKEN  # noqa: E402

from dokobot.adapters.discord.budget import BOT_WIDE_RPS  # noqa: E402
from dokobot.adapters.discord.i18n import text  # noqa: E402

THINK = 3.0
"""Seconds a person takes per action (Discord's clock)."""
LOST_AFTER = 5.0
"""Seconds the board may name a person as the player to play while he sees no prompt."""
REAL_SLACK = 3.0
"""Real seconds added to :data:`LOST_AFTER` on a scaled clock: discord.py waits real
seconds (1, 3, 5) before it repeats a request answered 502, which no speed-up shortens."""
GAME_LIMIT = 1800.0
"""Seconds (Discord's clock) after which a game that has not ended counts as stuck."""
GLANCE = 0.5
"""Seconds between two looks of a person at Discord (Discord's clock)."""
LANG = "en"
"""The people's and the guild's language (the fake's default locale)."""
BOT = [sys.executable, str(ROOT / "tests" / "discord_fake" / "bot_process.py")]
TICKS = os.sysconf("SC_CLK_TCK")


def choices(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of the process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Run:
    """The fake shared by all tables, and what was measured."""

    def __init__(self, fake: FakeDiscord, speed: float) -> None:
        self.fake = fake
        self.speed = speed
        self.interactions: list[Interaction] = []
        self.lost = 0
        self.stuck = 0
        self.over = text("board_over", LANG)
        self.lost_after = LOST_AFTER / speed + (REAL_SLACK if speed != 1 else 0.0)

    async def press(self, interaction: Interaction) -> Interaction:
        self.interactions.append(interaction)
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_answered(interaction, timeout=10)
        return interaction

    def board(self, channel_id: int) -> Message | None:
        """The channel's newest board (the message with "My cards" and an embed)."""
        for message in reversed(self.fake.channel_messages(channel_id)):
            if message.embeds and message.button(lambda c: c.endswith(":hand")):
                return message
        return None

    async def glance(self) -> None:
        await asyncio.sleep(GLANCE / self.speed)


class Table:
    def __init__(self, run: Run, channel_id: int, people: list[FakeUser]) -> None:
        self.run = run
        self.channel_id = channel_id
        self.people = people
        self.games_over = 0

    async def slash(self, user: FakeUser, name: str) -> Interaction:
        interaction = await self.run.fake.slash(user, name, channel_id=self.channel_id)
        return await self.run.press(interaction)

    async def seat(self) -> None:
        for user in self.people:
            await self.slash(user, "join")

    async def play(self, games: int) -> None:
        for _ in range(games):
            before = self.run.board(self.channel_id)
            await self.slash(self.people[0], "start")
            while (board := self.run.board(self.channel_id)) is None or board is before:
                await self.run.glance()
            people = asyncio.gather(*(self._person(user, board) for user in self.people))
            try:
                await asyncio.wait_for(people, GAME_LIMIT / self.run.speed)
            except TimeoutError:
                self.run.stuck += 1
                print(
                    f"  table {self.channel_id}: no end after {GAME_LIMIT:.0f} s", file=sys.stderr
                )
                return
            self.games_over += 1

    def _over(self, board: Message) -> bool:
        """Whether the game of ``board`` is over: the board says so, or its result is
        posted (a message with "Score" after the board)."""
        if board.deleted or self.run.over in str(board.embeds[0].get("title")):
            return True
        return any(
            m.id > board.id and m.button(lambda c: c.endswith(":score"))
            for m in self.run.fake.channel_messages(self.channel_id)
        )

    async def _person(self, user: FakeUser, board: Message) -> None:
        """One person during one game (``board``: its board message)."""
        run = self.run
        waiting = text("board_waiting", LANG, player=f"**{user.name}**")
        seen: float | None = None  # since when he sees his turn (a prompt or a call)
        since: float | None = None  # since when the board names him, and he sees no prompt
        counted = False  # whether that turn was counted as lost
        acted: object = None  # the board's last edit when his last press was answered
        while not self._over(board):
            await run.glance()
            now = time.monotonic()
            prompts = [
                m
                for m in run.fake.private_messages(user)
                if m.channel_id == self.channel_id and choices(m)
            ]
            called = user.mention in board.content
            if not prompts and not called:
                seen = None
                # a board not edited since his last press may still name him: it is late
                fresh = board.payload.get("edited_timestamp") != acted
                if fresh and waiting in str(board.embeds[0].get("description")):
                    since = since if since is not None else now
                    if not counted and now - since > run.lost_after:
                        run.lost += 1  # the board says he plays, Discord shows him nothing
                        counted = True
                else:
                    since, counted = None, False
                continue
            since, counted = None, False
            seen = seen if seen is not None else now
            if now - seen < THINK / run.speed:
                continue
            if prompts:
                prompt = prompts[-1]
                pick = next(
                    (c for c in choices(prompt) if c.endswith(":healthy") or ":play " in c),
                    choices(prompt)[0],
                )
                await run.press(await run.fake.click(user, prompt, pick))
            else:
                hand = board.button(lambda c: c.endswith(":hand"))
                if hand is not None:
                    await run.press(await run.fake.click(user, board, hand))
            acted = board.payload.get("edited_timestamp")
            seen = None


def bot_config(folder: Path, speed: float, memory: bool) -> Path:
    """The bot's configuration: an SQLite store in ``folder`` (or in memory), tables in
    their channels (no threads), and the bot-wide request budget on the fake's clock."""
    path = folder / "dokobot.yaml"
    store = ":memory:" if memory else str(folder / "dokobot.sqlite3")
    path.write_text(
        f"store:\n  path: '{store}'\n"
        "log_level: WARNING\n"
        "tables:\n  thread: off\n"
        f"discord:\n  global_rps: {BOT_WIDE_RPS * speed}\n"
    )
    return path


@contextlib.asynccontextmanager
async def bot_process(  # type: ignore[no-untyped-def]
    fake: FakeDiscord, folder: Path, speed: float, memory: bool, profile: str | None
):
    """A ``dokobot run`` process connected to ``fake`` (its log in ``folder``)."""
    env = dict(os.environ, DOKOBOT_DISCORD_TOKEN=TOKEN, **{SPEED_ENV: str(speed)})
    env.pop("DOKOBOT_CONFIG", None)
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    command = [BOT[0], *profiler, *BOT[1:], str(fake.port), "--config"]
    log = (folder / "bot.log").open("w")
    process = subprocess.Popen(
        [*command, str(bot_config(folder, speed, memory))], env=env, stdout=log, stderr=log
    )
    try:
        ready = time.monotonic() + 60
        while not (fake.commands and fake._shards):
            if process.poll() is not None or time.monotonic() > ready:
                raise RuntimeError(f"the bot did not start:\n{(folder / 'bot.log').read_text()}")
            await asyncio.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                await asyncio.to_thread(process.wait, 30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()


async def ready(run: Run, table: Table) -> None:
    """Wait until the bot answers interactions (its client has its guild)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = await run.fake.slash(table.people[0], "help", channel_id=table.channel_id)
        with contextlib.suppress(TimeoutError):
            await run.fake.wait_answered(probe, timeout=2)
            return
    raise RuntimeError("the bot answers no interaction")


async def progress(run: Run, tables: list[Table], pid: int, every: float = 30.0) -> None:
    """A line on stderr every ``every`` seconds: games over, presses, CPU so far."""
    began = time.monotonic()
    while True:
        await asyncio.sleep(every)
        over = sum(t.games_over for t in tables)
        presses = sum(1 for i in run.interactions if i.kind == 3)
        late = sum(1 for i in run.interactions if i.response_type is None)
        print(
            f"  {time.monotonic() - began:.0f} s: games over {over}, presses {presses}, "
            f"unanswered {late}, lost {run.lost}, bot cpu {cpu_seconds(pid):.0f} s, "
            f"bench cpu {time.process_time():.0f} s",
            file=sys.stderr,
            flush=True,
        )


async def lag(samples: list[float]) -> None:
    """How late this process's event loop wakes up (the fake and the people share it)."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(0.01)
        samples.append(loop.time() - before - 0.01)


def global_429(call: Call) -> bool:
    return call.status == 429 and bool((call.response or {}).get("global"))


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


async def run(
    tables: int,
    games: int,
    speed: float,
    faults: tuple[float, float],
    memory: bool,
    profile: str | None,
) -> str:
    fake = FakeDiscord(heartbeat_ms=10_000, speed=speed)
    fake.keep_uploads = False
    channels = [fake.channel_id] + [fake.add_channel() for _ in range(tables - 1)]
    people = [[fake.add_user(f"P{t}x{s}") for s in range(4)] for t in range(tables)]
    await fake.start()
    bench = Run(fake, speed)
    seated = [Table(bench, c, p) for c, p in zip(channels, people, strict=True)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with bot_process(fake, Path(tmp), speed, memory, profile) as bot:
                await ready(bench, seated[0])
                bench.interactions.clear()
                seating = time.monotonic()
                (fake.rate_429, fake.rate_5xx), fake.retry_after = faults, 1.0 / speed
                await asyncio.gather(*(table.seat() for table in seated))
                print(f"  seated in {time.monotonic() - seating:.0f} s", file=sys.stderr)
                calls_before = len(fake.calls)
                cpu_bot, cpu_me = cpu_seconds(bot.pid), time.process_time()
                began = time.monotonic()
                lags: list[float] = []
                watch = asyncio.create_task(lag(lags))
                report = asyncio.create_task(progress(bench, seated, bot.pid))
                await asyncio.gather(*(t.play(games) for t in seated))
                wall = time.monotonic() - began
                watch.cancel()
                report.cancel()
                cpu_bot, cpu_me = cpu_seconds(bot.pid) - cpu_bot, time.process_time() - cpu_me
                await asyncio.sleep(2 * THINK / speed)  # the last edits and the result
                calls = fake.calls[calls_before:]
    finally:
        await fake.stop()
    seconds = wall * speed  # on Discord's clock
    played = tables * games
    counted = sum(c.counted and not c.injected for c in calls)
    injected = sum(c.injected for c in calls)
    messages = sum(len(fake.channel_messages(c)) for c in channels)
    dms = sum(1 for c in fake.calls if c.method == "POST" and "/messages" in c.path
              and fake._dm_user(int(c.path.split("/")[2])) is not None)  # fmt: skip
    # the time a game takes at 3 s per action without any delay: the fastest people, the
    # most requests per second (the measured time also holds the latencies of the requests)
    presses = sum(1 for i in bench.interactions if i.kind == 3)
    per_table = counted / (presses * THINK) if presses else 0.0
    acks = sorted(i.answered_after for i in bench.interactions if i.answered_after is not None)
    failed = sum(1 for i in bench.interactions if i.response_type is None)
    failed += sum("interaction" in v for v in fake.violations)
    ack_p99 = p99(acks) * 1000
    mean, peak = fake.requests_per_second()
    print(
        f"tables: {tables} games: {played} speed: {speed:g} wall_s: {wall:.0f} "
        f"discord_seconds: {seconds:.0f} presses: {presses} counted: {counted} "
        f"injected_faults: {injected} presses_per_s: {presses / wall:.1f} "
        f"measured_rps_per_table: {counted / seconds / tables:.3f} "
        f"mean_rps: {mean / speed:.2f} peak_rps: {peak / speed:.1f} "
        f"stuck_tables: {bench.stuck} global_429s: {fake.global_429s} route_429s: {len(fake.rate_limited)} "
        f"cpu_bot_s: {cpu_bot:.1f} cpu_bench_s: {cpu_me:.1f} "
        f"bot_cpu_ms_per_press: {1000 * cpu_bot / max(1, presses):.1f} "
        f"bench_loop_lag_p99_ms: {1000 * p99(lags):.0f} "
        f"max_ms: {1000 * max(lags, default=0.0):.0f} "
        f"global_429_at_s: {[round(c.at - began) for c in calls if global_429(c)][:10]} "
        f"store: {'memory' if memory else 'file'} "
        f"interactions: {len(bench.interactions)} violations: {fake.violations[:3]}",
        file=sys.stderr,
    )
    at_50 = math.floor(BOT_WIDE_RPS / per_table) if per_table > 0 else 0
    return (
        f"global_rps_per_table: {per_table:.3f} dm_per_game: {dms / played:.1f} "
        f"tables_at_50rps: {at_50} lost_prompts: {bench.lost} failed_interactions: {failed} "
        f"p99_ack_ms: {ack_p99:.0f} channel_messages_per_game: {messages / played:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--games", type=int, default=1, help="games per table")
    parser.add_argument("--speed", type=float, default=1.0, help="the clock's speed-up")
    parser.add_argument("--rate-429", type=float, default=0.05, help="share of route 429s")
    parser.add_argument("--rate-5xx", type=float, default=0.01, help="share of 502s")
    parser.add_argument(
        "--memory", action="store_true", help="the bot's store in memory (default: a file)"
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile the bot's process into FILE")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    faults = (args.rate_429, args.rate_5xx)
    line = asyncio.run(run(args.tables, args.games, args.speed, faults, args.memory, args.profile))
    print(line)


if __name__ == "__main__":
    main()
