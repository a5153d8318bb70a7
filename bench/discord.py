"""Tables on Discord: N tables of four people each play against the strict fake Discord
(tests/discord_fake: the bot-wide limit, per-route buckets, interaction deadlines), with
injected route 429s and 502s on the table channels, and the bot in a process of its own.

Two operating-system processes: the bot is a real ``dokobot run`` (tests/discord_fake/
bot_process.py: discord.py, the Discord adapter, the service, its review worker and an
SQLite store in a temporary folder), pointed at the fake; this process runs the fake and
the people. People see only what Discord shows them: the channel's messages and their own
ephemeral messages (the "My cards" panel). Every person keeps the default (prompts in the
channel); tables open in threads (the bot's default).

The people are modelled on real life (:class:`Person`): half look at Discord every 1-3 s
(the tab is open), half glance at it every 5-20 s; everybody looks at once when Discord
notifies him (a mention in a new message, a new DM). A person knows it is his turn when his
panel has the buttons of a prompt, or a message that mentions him (the board's first post, or
the short message that calls him to his turn) is in the channel; he then takes 3 s and
presses the first "Healthy" or card button, or "My cards" on that message. The tables start at different
times (spread over the first minute); on a share of the tables (``--idle-share``) the people
idle 13-16 minutes between two games (their interaction tokens and panels are past their
life), and on a share (``--miss-share``) one person misses one prompt per game (the turn
clock reminds him, then a computer player stands in).

``--speed S`` runs the fake's rate-limit windows, the bot's board interval, turn clock and
request budget and the people S times faster than Discord's clock (the interaction deadlines
and the acknowledgement times do not: those are measured as they are); speed 1 is real time.
``--burn N`` runs N busy-loop processes beside it (a loaded machine, reproducibly). It ends
with

    global_rps_per_table: X dm_per_game: D tables_at_50rps: T lost_prompts: L
    failed_interactions: F p99_ack_ms: P channel_messages_per_game: M stuck_tables: S
    unnoticed_turns: U pings_per_turn: Q cpu_ms_per_press: C

X: bot-token requests that count toward the bot-wide limit (the injected faults and their
repetitions are not a table's cost and left out) per table and second of the measured time
(Discord's clock, idle tables included: the mean of real life); D: DMs sent per game;
T = floor(50 / X), the tables one bot token carries at Discord's 50 requests per second
(valid only if the run had no global 429, which it reports on stderr); L: turns where the
board named a person as the player to play while he had no prompt (panel buttons or a call on
the board) for 5 s; F: interactions not answered within Discord's 3 s (or refused; each
counted once, each named on stderr); P: the 99th percentile of the time to answer an
interaction; M: channel messages per game (board,
result, lobby and any other); S: tables whose channel showed no change for
:data:`STUCK_AFTER` seconds while a game ran (each is named on stderr, and the run stops
within two minutes of the first: a table never stands still); U: turns a computer player
took over for a person (the board lists him as away) who got no notification since his last
move (a mention in a new message, a DM); Q: the notifications people got per turn of theirs
(the prompts they answered, and each take-over counted as one turn: a lower bound of their
turns, so Q is rather high); C: the CPU milliseconds (user and system, all its threads) the
bot's process used per button press in the measured time (its review worker, a process of
its own, works per game and is not in it; stderr has both as ``bot_cpu_ms_per_press``).
Goals: D = 0, L = 0, F = 0, P < 1500, M <= 3, S = 0, U = 0, Q <= 1.05. The lines before it
(stderr) hold the CPU seconds of the bot's process, of its review worker and of this one,
the wall time, the measured request rates and the bot's requests per press by kind; the
exit status is 1 when a table got stuck.

    python bench/discord.py --tables 20 --speed 1
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import logging
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this file is called discord.py: its folder must not hide the discord package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from discord_fake import Call, FakeDiscord, FakeUser, Interaction, Message  # noqa: E402
from discord_fake.bot_process import (  # noqa: E402
    SPEED_ENV,
    STOPS_ENV,
    TOKEN,
    collection_timer,
)
from discord_fake.server import RESPOND_WITHIN  # noqa: E402

from dokobot.adapters.discord.budget import BOT_WIDE_RPS  # noqa: E402
from dokobot.adapters.discord.i18n import text  # noqa: E402

THINK = 3.0
"""Seconds a person takes per action (Discord's clock)."""
ATTENTIVE = (1.0, 3.0)
"""Seconds between two looks at Discord of a person who has its tab open."""
CASUAL = (5.0, 20.0)
"""Seconds between two glances at Discord of a person who does something else meanwhile."""
IDLE_BETWEEN = (13 * 60.0, 16 * 60.0)
"""Seconds the people of an idle table wait between two games."""
STAGGER = 60.0
"""The tables start at random times within this many seconds."""
TURN_TIMEOUT = 30
"""The turn clock on Discord (seconds): a reminder after it, a stand-in after twice it."""
LOST_AFTER = 5.0
"""Seconds the board may name a person as the player to play while he sees no prompt."""
LOST_NAMED = 5
"""Lost prompts named on stderr (with their channel's last requests)."""
REAL_SLACK = 3.0
"""Real seconds added to :data:`LOST_AFTER` on a scaled clock: discord.py waits real
seconds (1, 3, 5) before it repeats a request answered 502, which no speed-up shortens."""
STUCK_AFTER = 3.0
"""Turn clocks (real seconds: :data:`TURN_TIMEOUT` on the scaled clock) a running game's
channel may show no change before its table counts as stuck: a person who misses his turn is
reminded after one and stood in for after two."""
GAME_LIMIT = 1800.0
"""Seconds (Discord's clock) after which a game that has not ended counts as stuck."""
GLANCE = 0.5
"""Seconds between two looks of the observer of a table (Discord's clock)."""
LANG = "en"
"""The people's and the guild's language (the fake's default locale)."""
BOT = [sys.executable, str(ROOT / "tests" / "discord_fake" / "bot_process.py")]
TICKS = os.sysconf("SC_CLK_TCK")


def choices(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of the process ``pid`` so far (Linux; 0 once gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def descendants(pid: int) -> list[int]:
    """The processes started by ``pid`` and by them (the bot's review worker)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@dataclass(eq=False)
class Person:
    """One person: how often he looks at Discord, and what he saw."""

    user: FakeUser
    look_every: tuple[float, float]
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when Discord notifies him: he looks at once."""
    acted: object = None
    """The board's last edit when his last press was answered."""
    misses: bool = False
    """He misses one prompt of the current game (and a computer player stands in)."""
    notified: bool = False
    """Discord notified him since his last move."""
    call: Message | None = None
    """The message that notified him last, until he pressed "My cards" on it."""
    moves: int = 0
    """The prompts he answered himself."""


class Run:
    """The fake shared by all tables, and what was measured."""

    def __init__(self, fake: FakeDiscord, speed: float) -> None:
        self.fake = fake
        self.speed = speed
        self.interactions: list[Interaction] = []
        self.lost = 0
        self.stuck: list[str] = []
        self.over = text("board_over", LANG)
        self.lost_after = LOST_AFTER / speed + (REAL_SLACK if speed != 1 else 0.0)
        self.turn_timeout = max(10, round(TURN_TIMEOUT / speed))
        self.stuck_after = STUCK_AFTER * self.turn_timeout + REAL_SLACK
        self.people: dict[int, Person] = {}
        self.failed = asyncio.Event()
        self._notified = 0
        self.stood_in = 0
        """Turns a computer player played for a person."""
        self.unnoticed = 0
        """Of those, the turns of a person Discord had not notified since his last move."""
        self.bot_stops: list[tuple[float, float, str]] = []
        """(monotonic end, seconds, what) of the bot process's loop stops and collections."""

    def failed_interactions(self) -> list[Interaction]:
        """The interactions the bot answered late or never."""
        return [
            i
            for i in self.interactions
            if i.response_type is None or (i.answered_after or 0.0) > RESPOND_WITHIN
        ]

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

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of Discord's clock."""
        await asyncio.sleep(seconds / self.speed)

    async def notifications(self) -> None:
        """Wake every person Discord notifies (he looks at Discord at once)."""
        while True:
            await self.sleep(GLANCE)
            new = self.fake.notifications[self._notified :]
            self._notified += len(new)
            for user_id, message_id in new:
                person = self.people.get(user_id)
                if person is not None:
                    person.notified = True
                    person.call = self.fake.messages.get(message_id)
                    person.woken.set()

    def stop(self, table: Table, why: str) -> None:
        """``table`` stopped progressing: named on stderr, and the run ends."""
        self.stuck.append(str(table.channel_id))
        print(f"  STUCK table {table.channel_id}: {why}", file=sys.stderr, flush=True)
        self._last_requests(table, 8)
        self.failed.set()

    def lost_prompt(self, table: Table, person: Person, named: float) -> None:
        """A lost prompt at ``table`` (the first few are named on stderr, with the channel's
        last requests and the person's panel requests: an injected fault, a 429 or a request
        that waited); ``named``: since when (monotonic) the board named him."""
        self.lost += 1
        if self.lost <= LOST_NAMED:
            now = time.monotonic()
            print(
                f"  LOST prompt at table {table.channel_id}: {person.user.name}, named by the "
                f"board {now - named:.1f} s ago",
                file=sys.stderr,
                flush=True,
            )
            self._last_requests(table, 6)
            self._panel_requests(table, person, 6)
            board = self.board(table.channel_id)
            if board is not None:
                said = str(board.embeds[0].get("description")).replace("\n", " / ")
                print(f"    the board: {said[:300]}", file=sys.stderr)
            for message in self.fake.private_messages(person.user)[-2:]:
                content = message.content.replace("\n", " / ")[-160:]
                print(
                    f"    his message {message.id}: {content!r}, buttons {len(choices(message))}",
                    file=sys.stderr,
                )

    def _panel_requests(self, table: Table, person: Person, count: int) -> None:
        """The bot's last requests through the interaction tokens of ``person`` at ``table``
        (his panel's edits, follow-ups): when each came, its answer, whether it carried
        buttons; and his last presses with when they were answered."""
        now = time.monotonic()
        mine = [
            i
            for i in self.interactions
            if i.user.id == person.user.id and i.channel_id == table.channel_id
        ]
        tokens = {i.token: i for i in mine}
        calls = []
        for call in self.fake.calls:
            parts = call.path.strip("/").split("/")
            if parts[:1] == ["webhooks"] and len(parts) >= 3 and parts[2] in tokens:
                calls.append((call, tokens[parts[2]]))
        for call, interaction in calls[-count:]:
            body = call.body if isinstance(call.body, dict) else {}
            answer = call.response if isinstance(call.response, dict) else {}
            waited = f" retry_after {answer.get('retry_after')}" if call.status == 429 else ""
            print(
                f"    panel: {now - call.at:.1f} s ago: {call.method} "
                f"{call.path.rsplit('/', 1)[-1]} through his press of "
                f"{now - interaction.created:.1f} s ago: {call.status}{waited}"
                f"{' (injected)' if call.injected else ''}, "
                f"{'buttons' if body.get('components') else 'no buttons'}",
                file=sys.stderr,
            )
        if not calls:
            print("    panel: no request through his tokens", file=sys.stderr)
        for interaction in mine[-2:]:
            after = interaction.answered_after
            print(
                f"    his press {now - interaction.created:.1f} s ago, kind {interaction.kind}, "
                f"answered {'never' if after is None else f'after {after:.2f} s'}",
                file=sys.stderr,
            )
        notified = [m for u, m in self.fake.notifications if u == person.user.id][-1:]
        for mid in notified:
            message = self.fake.messages.get(mid)
            if message is not None:
                print(
                    f"    his last notification: message {mid} in {message.channel_id}"
                    f"{' (deleted)' if message.deleted else ''}",
                    file=sys.stderr,
                )

    def _last_requests(self, table: Table, count: int) -> None:
        now = time.monotonic()
        mine = f"/channels/{table.channel_id}/"
        calls = [c for c in self.fake.calls if c.path.startswith(mine)][-count:]
        for call in calls:  # what the bot last asked of Discord in that channel
            print(
                f"    {now - call.at:.1f} s ago: {call.method} {call.path[len(mine) :]} "
                f"{call.status}{' (injected)' if call.injected else ''}",
                file=sys.stderr,
            )


class Table:
    def __init__(self, run: Run, channel_id: int, people: list[Person], rng: random.Random) -> None:
        self.run = run
        self.parent = channel_id
        self.channel_id = channel_id
        """The table's channel: the thread the first ``/join`` opened (else the channel)."""
        self.people = people
        self.rng = rng
        self.games_over = 0
        self.idle = False
        """Its people idle 13+ minutes between two games."""
        self.miss = False
        """One of its people misses one prompt per game."""

    async def slash(self, user: FakeUser, name: str, channel_id: int | None = None) -> Interaction:
        channel = channel_id or self.channel_id
        interaction = await self.run.fake.slash(user, name, channel_id=channel)
        return await self.run.press(interaction)

    async def seat(self, again: bool = False) -> None:
        """The first person opens the table with ``/join`` in the channel (a thread opens:
        the answer names it); the others join in the table's thread. A person whose press
        failed ("interaction failed") tries again."""
        for n, person in enumerate(self.people):
            for _ in range(3):
                opens = n == 0 and not again
                joined = await self.slash(person.user, "join", self.parent if opens else None)
                if joined.response_type is not None:
                    break
            if n == 0 and not again:
                for _ in range(40):
                    threads = [
                        t
                        for t, (parent, _) in self.run.fake.threads.items()
                        if parent == self.parent
                    ]
                    if threads:
                        self.channel_id = threads[-1]
                        break
                    await self.run.sleep(GLANCE)

    async def play(self, games: int, start_at: float) -> None:
        await self.run.sleep(start_at)
        await self.seat()
        for game in range(games):
            if game and self.idle:
                await self.run.sleep(self.rng.uniform(*IDLE_BETWEEN))
            before = self.run.board(self.channel_id)
            start = await self.slash(self.people[0].user, "start")
            began = tried = time.monotonic()
            while (board := self.run.board(self.channel_id)) is None or board is before:
                refused = start.response_type is not None and start.ephemeral_messages
                if (start.response_type is None or refused) and time.monotonic() - tried > 10:
                    if refused:  # e.g. "a game needs four players": a join got lost
                        await self.seat(again=True)
                    start = await self.slash(self.people[0].user, "start")  # again
                    tried = time.monotonic()
                fresh = self.run.board(self.channel_id)
                if fresh is not None and fresh is not before:
                    continue  # it came while /start was pressed again
                if time.monotonic() - began > self.run.stuck_after:
                    said = [m.content for m in start.ephemeral_messages]
                    shown = [
                        m.content[:60]
                        + (" [embed]" if m.embeds else "")
                        + (" [My cards]" if m.button(lambda c: c.endswith(":hand")) else "")
                        for m in self.run.fake.channel_messages(self.channel_id)
                    ]
                    self.run.stop(self, f"no board after /start (answered {said}; shows {shown})")
                    return
                await self.run.sleep(GLANCE)
            if self.miss:
                self.rng.choice(self.people).misses = True
            people = [self._person(p, board) for p in self.people]
            watch = asyncio.gather(self._observe(board), *people)
            watch.add_done_callback(_retrieved)  # a run stopped early: no noise on stderr
            try:
                await asyncio.wait_for(watch, GAME_LIMIT / self.run.speed)
            except TimeoutError:
                self.run.stop(self, f"no end after {GAME_LIMIT:.0f} s")
                return
            if self.run.failed.is_set():
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

    def _calls(self, person: Person) -> list[Message]:
        """The message that notified him (the board's first post, the message that calls
        him to his turn) while it is there, with "My cards", and he has not pressed it."""
        call = person.call
        if call is None or call.deleted or call.channel_id != self.channel_id:
            return []
        return [call] if call.button(lambda c: c.endswith(":hand")) else []

    def _prompts(self, person: Person) -> list[Message]:
        return [
            m
            for m in self.run.fake.private_messages(person.user)
            if m.channel_id == self.channel_id and choices(m)
        ]

    def _shown(self, board: Message) -> tuple[object, ...]:
        """What the channel shows: its messages and the board's latest edit."""
        messages = self.run.fake.channel_messages(self.channel_id)
        return (len(messages), board.payload.get("edited_timestamp"), board.edits)

    async def _observe(self, board: Message) -> None:
        """Watch the game of ``board``: lost prompts (the board names a person as the
        player to play while he sees no prompt) and whether the channel changes at all."""
        run = self.run
        waiting = {
            p.user.id: text("board_waiting", LANG, player=f"**{p.user.name}**") for p in self.people
        }
        since: dict[int, float] = {}  # since when the board names him, and he sees no prompt
        away: set[int] = set()  # whom the board lists as away (a computer plays for him)
        counted: set[int] = set()  # whose turn was counted as lost
        shown, changed = self._shown(board), time.monotonic()
        while not self._over(board) and not run.failed.is_set():
            await run.sleep(GLANCE)
            now = time.monotonic()
            if (seen := self._shown(board)) != shown:
                shown, changed = seen, now
            elif now - changed > run.stuck_after:
                description = str(board.embeds[0].get("description")).replace("\n", " / ")
                run.stop(self, f"nothing changed for {now - changed:.0f} s; board: {description}")
                return
            self._stand_ins(board, away)
            for person in self.people:
                uid = person.user.id
                if self._prompts(person) or self._calls(person):
                    since.pop(uid, None)
                    counted.discard(uid)
                    continue
                # a board not edited since his last press may still name him: it is late
                fresh = board.payload.get("edited_timestamp") != person.acted
                if fresh and waiting[uid] in str(board.embeds[0].get("description")):
                    since.setdefault(uid, now)
                    if uid not in counted and now - since[uid] > run.lost_after:
                        # the board says he plays, he sees nothing
                        run.lost_prompt(self, person, since[uid])
                        counted.add(uid)
                else:
                    since.pop(uid, None)
                    counted.discard(uid)

    def _stand_ins(self, board: Message, away: set[int]) -> None:
        """Count the times a computer player took over a person's seat (the board lists him
        as away; it plays for him until he acts again), and whether Discord had notified
        him since his last move (``away``: whom the board listed before)."""
        lines = str(board.embeds[0].get("description")).split("\n")
        prefix = text("board_away", LANG) + ": "
        listed = next((line[len(prefix) :] for line in lines if line.startswith(prefix)), "")
        names = {name.strip() for name in listed.split(",")}
        now = {p.user.id for p in self.people if p.user.name in names}
        for uid in now - away:
            self.run.stood_in += 1
            self.run.unnoticed += not self.run.people[uid].notified
        away.clear()
        away.update(now)

    async def _person(self, person: Person, board: Message) -> None:
        """One person during one game (``board``: its board message): he looks at Discord
        now and then (at once when notified), and acts when he sees his turn."""
        run = self.run
        user = person.user
        missed = False
        while not self._over(board) and not run.failed.is_set():
            person.woken.clear()
            with contextlib.suppress(TimeoutError):
                pause = self.rng.uniform(*person.look_every) / run.speed
                await asyncio.wait_for(person.woken.wait(), pause)
            prompts = self._prompts(person)
            if not prompts and not self._calls(person):
                continue
            if person.misses and prompts and not missed:
                missed = True  # he does not see this one: the turn clock acts
                person.misses = False
                await asyncio.sleep(2.5 * run.turn_timeout)  # the turn clock's seconds are real
                continue
            await run.sleep(THINK)
            prompts = self._prompts(person)  # the latest, after thinking
            if prompts:
                prompt = prompts[-1]
                pick = next(
                    (c for c in choices(prompt) if c.endswith(":healthy") or ":play " in c),
                    choices(prompt)[0],
                )
                person.moves += 1  # before the board can show the next player
                pressed = await run.press(await run.fake.click(user, prompt, pick))
                if pressed.response_type is None:
                    person.moves -= 1
                else:
                    person.notified = False
            elif calls := self._calls(person):
                hand = calls[-1].button(lambda c: c.endswith(":hand"))
                person.call = None
                if hand is not None:
                    await run.press(await run.fake.click(user, calls[-1], hand))
            person.acted = board.payload.get("edited_timestamp")


def _retrieved(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()


def bot_config(folder: Path, speed: float, memory: bool, turn_timeout: int) -> Path:
    """The bot's configuration: an SQLite store in ``folder`` (or in memory), tables in
    threads, the turn clock and the bot-wide request budget on the fake's clock."""
    path = folder / "dokobot.yaml"
    store = ":memory:" if memory else str(folder / "dokobot.sqlite3")
    path.write_text(
        f"store:\n  path: '{store}'\n"
        "log_level: WARNING\n"
        f"tables:\n  turn_timeout: {turn_timeout}\n"
        f"discord:\n  global_rps: {BOT_WIDE_RPS * speed}\n"
    )
    return path


@contextlib.asynccontextmanager
async def bot_process(  # type: ignore[no-untyped-def]
    fake: FakeDiscord, folder: Path, run: Run, memory: bool, profile: str | None
):
    """A ``dokobot run`` process connected to ``fake`` (its log in ``folder``)."""
    env = dict(
        os.environ, DOKOBOT_DISCORD_TOKEN=TOKEN, **{SPEED_ENV: str(run.speed), STOPS_ENV: "1"}
    )
    env.pop("DOKOBOT_CONFIG", None)
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    command = [BOT[0], *profiler, *BOT[1:], str(fake.port), "--new-store", "--config"]
    log = (folder / "bot.log").open("w")
    config = bot_config(folder, run.speed, memory, run.turn_timeout)
    process = subprocess.Popen([*command, str(config)], env=env, stdout=log, stderr=log)
    try:
        ready = time.monotonic() + 60
        while not (fake.commands and fake._shards):
            if process.poll() is not None or time.monotonic() > ready:
                raise RuntimeError(f"the bot did not start:\n{(folder / 'bot.log').read_text()}")
            await asyncio.sleep(0.05)
        yield process
    finally:
        if run.stuck and process.poll() is None:
            process.send_signal(signal.SIGUSR1)  # its tasks' stacks into its log
            await asyncio.sleep(2)
        if process.poll() is None:
            process.terminate()
            try:
                await asyncio.to_thread(process.wait, 30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()
        for line in (folder / "bot.log").read_text(errors="replace").splitlines():
            if line.startswith("STOP "):  # "STOP gc generation 2 0.120 s at T", "STOP loop …"
                words = line.split()
                run.bot_stops.append((float(words[-1]), float(words[-4]), " ".join(words[1:-4])))
        if run.stuck or run.failed_interactions():  # the bot's log is kept for a look at why
            kept = Path(tempfile.gettempdir()) / f"bench-discord-bot-{process.pid}.log"
            shutil.copyfile(folder / "bot.log", kept)
            print(f"  the bot's log (with its tasks' stacks): {kept}", file=sys.stderr)
            for part in folder.glob("dokobot.sqlite3*"):  # its store, with its journals
                shutil.copyfile(part, kept.with_name(f"{kept.stem}-{part.name}"))
            for channel in run.stuck:
                print(stuck_table(folder, channel, memory), file=sys.stderr)


def stuck_table(folder: Path, channel: str, memory: bool) -> str:
    """What the bot said of the stuck table ``channel`` when asked (its phase, who is to
    act, who is away, its turn clock and computer players) and its journal's last record
    (without the hands of a deal)."""
    key = f"discord:{channel}"
    lines = (folder / "bot.log").read_text(errors="replace").splitlines()
    said = next((line for line in reversed(lines) if line.startswith(f"TABLE {key} ")), None)
    last = "the store is in memory"
    if not memory:
        from dokobot.store.sqlite import SqliteStore

        store = SqliteStore(folder / "dokobot.sqlite3", readonly=True)
        try:
            journal = store.load_journal(key)
        finally:
            store.close()
        record = json.loads(journal[-1]) if journal else {}
        shown = {k: v for k, v in record.items() if k in ("k", "seat", "name", "text")}
        last = f"{len(journal)} records, the last {shown}"
    return f"  table {channel}: {said or 'not in the bot’s memory'}; journal: {last}"


@contextlib.contextmanager
def burning(count: int):  # type: ignore[no-untyped-def]
    """``count`` busy-loop processes (each takes a core while it may) for the time of the
    block: a loaded machine, reproducibly."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


async def ready(run: Run, channel_id: int, user: FakeUser) -> None:
    """Wait until the bot answers interactions (its client has its guild)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = await run.fake.slash(user, "help", channel_id=channel_id)
        with contextlib.suppress(TimeoutError):
            await run.fake.wait_answered(probe, timeout=2)
            return
    raise RuntimeError("the bot answers no interaction")


def cpu_of(pids: list[int]) -> dict[int, float]:
    return {pid: cpu_seconds(pid) for pid in pids}


async def progress(run: Run, tables: list[Table], pid: int, every: float = 30.0) -> None:
    """A line on stderr every ``every`` seconds: games over, presses, CPU so far."""
    began = time.monotonic()
    while True:
        await asyncio.sleep(every)
        over = sum(t.games_over for t in tables)
        presses = sum(1 for i in run.interactions if i.kind == 3)
        late = sum(1 for i in run.interactions if i.response_type is None)
        review = sum(cpu_of(descendants(pid)).values())
        print(
            f"  {time.monotonic() - began:.0f} s: games over {over}, presses {presses}, "
            f"unanswered {late}, lost {run.lost}, global 429s {run.fake.global_429s}, "
            f"bot cpu {cpu_seconds(pid):.0f} s, review cpu {review:.0f} s, "
            f"bench cpu {time.process_time():.0f} s, load {os.getloadavg()[0]:.1f}",
            file=sys.stderr,
            flush=True,
        )


async def lag(samples: list[float], stops: list[tuple[float, float]]) -> None:
    """How late this process's event loop wakes up (the fake and the people share it);
    ``stops``: (monotonic time, seconds) of each wake-up later than 0.2 s."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(0.01)
        late = loop.time() - before - 0.01
        samples.append(late)
        if late > 0.2:
            stops.append((time.monotonic(), late))


@contextlib.contextmanager
def collections_timed(pauses: list[tuple[float, float, int]]):  # type: ignore[no-untyped-def]
    """(monotonic end, seconds, generation) of each of this process's garbage collections
    that took 50 ms or more, while in the block."""
    timed = collection_timer(0.05, lambda end, took, gen: pauses.append((end, took, gen)))
    gc.callbacks.append(timed)
    try:
        yield
    finally:
        gc.callbacks.remove(timed)


def failed_named(
    run: Run,
    stops: list[tuple[float, float]],
    pauses: list[tuple[float, float, int]],
    began: float,
) -> list[str]:
    """One line per interaction answered late or never: what was pressed, when, when the
    fake wrote its gateway event, when it read the bot's callbacks, and the stops and long
    collections of this process (whose loop runs the fake) and of the bot in the seconds
    around."""
    lines = []
    for i in run.failed_interactions():
        start, end = i.created - 1.0, i.created + RESPOND_WITHIN + 3.0
        mine = [f"loop {s:.2f}" for at, s in stops if start <= at <= end]
        mine += [f"gc{g} {s:.2f}" for at, s, g in pauses if start <= at <= end]
        bots = [f"{what} {s:.2f}" for at, s, what in run.bot_stops if start <= at <= end]
        what = i.data.get("custom_id") or i.data.get("name") or "?"
        sent = "never" if i.sent_after is None else f"{i.sent_after:.2f} s"
        lines.append(
            f"  FAILED interaction {i.id} ({what}) in {i.channel_id} at "
            f"{i.created - began:.0f} s: event written after {sent}, callbacks read after "
            f"{[round(t, 2) for t in i.tried_after]} s; stops (s) of the bench {mine}, "
            f"of the bot {bots}"
        )
    return lines


def requests_by_kind(calls: list[Call]) -> collections.Counter[tuple[str, str, bool]]:
    """The bot's requests by method, path (ids and tokens left out) and whether they carry a
    file."""
    kinds: collections.Counter[tuple[str, str, bool]] = collections.Counter()
    for call in calls:
        path = re.sub(r"/webhooks/\d+/[^/]+", "/webhooks/ID/TOKEN", call.path)
        kinds[(call.method, re.sub(r"\d{5,}", "ID", path), bool(call.files))] += 1
    return kinds


def global_429(call: Call) -> bool:
    return call.status == 429 and bool((call.response or {}).get("global"))


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


@dataclass(frozen=True)
class Settings:
    tables: int
    games: int
    speed: float
    faults: tuple[float, float]
    memory: bool
    profile: str | None
    idle_share: float
    miss_share: float
    seed: int


def people_of(fake: FakeDiscord, run: Run, table: int, rng: random.Random) -> list[Person]:
    people: list[Person] = []
    for seat in range(4):
        look = ATTENTIVE if rng.random() < 0.5 else CASUAL
        person = Person(fake.add_user(f"P{table}x{seat}"), look)
        run.people[person.user.id] = person
        people.append(person)
    return people


async def run(settings: Settings) -> tuple[str, bool]:
    speed, tables = settings.speed, settings.tables
    rng = random.Random(settings.seed)
    fake = FakeDiscord(heartbeat_ms=10_000, speed=speed)
    fake.keep_uploads = False
    channels = [fake.channel_id] + [fake.add_channel() for _ in range(tables - 1)]
    await fake.start()
    bench = Run(fake, speed)
    seated = [
        Table(bench, c, people_of(fake, bench, n, rng), random.Random(rng.random()))
        for n, c in enumerate(channels)
    ]
    for n, table in enumerate(seated):  # every k-th table, so that few tables get none
        table.idle = settings.idle_share > 0 and n % round(1 / settings.idle_share) == 1
        table.miss = settings.miss_share > 0 and n % round(1 / settings.miss_share) == 2
    starts = [0.0] + [rng.uniform(0, STAGGER) for _ in seated[1:]]
    stops: list[tuple[float, float]] = []
    pauses: list[tuple[float, float, int]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp, collections_timed(pauses):
            async with bot_process(
                fake, Path(tmp), bench, settings.memory, settings.profile
            ) as bot:
                await ready(bench, channels[0], seated[0].people[0].user)
                bench.interactions.clear()
                (fake.rate_429, fake.rate_5xx), fake.retry_after = settings.faults, 1.0 / speed
                calls_before = len(fake.calls)
                workers = descendants(bot.pid)
                cpu_bot, cpu_review, cpu_me = (
                    cpu_seconds(bot.pid),
                    cpu_of(workers),
                    time.process_time(),
                )
                began = time.monotonic()
                lags: list[float] = []
                watchers = [
                    asyncio.create_task(lag(lags, stops)),
                    asyncio.create_task(progress(bench, seated, bot.pid)),
                    asyncio.create_task(bench.notifications()),
                ]
                plays = asyncio.gather(
                    *(t.play(settings.games, s) for t, s in zip(seated, starts, strict=True))
                )
                failed = asyncio.create_task(bench.failed.wait())
                await asyncio.wait([plays, failed], return_when=asyncio.FIRST_COMPLETED)
                wall = time.monotonic() - began
                plays.cancel()
                for task in (*watchers, failed):
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await plays
                workers = descendants(bot.pid)
                cpu_bot = cpu_seconds(bot.pid) - cpu_bot
                cpu_review = sum(cpu_seconds(p) - cpu_review.get(p, 0.0) for p in workers)
                cpu_me = time.process_time() - cpu_me
                if not bench.stuck:
                    await bench.sleep(2 * THINK)  # the last edits and the result
                calls = fake.calls[calls_before:]
    finally:
        await fake.stop()
    seconds = wall * speed  # on Discord's clock
    played = max(1, sum(t.games_over for t in seated))
    counted = sum(c.counted and not c.injected for c in calls)
    injected = sum(c.injected for c in calls)
    messages = sum(len(fake.channel_messages(c)) for c in {*channels, *fake.threads})
    dms = sum(1 for c in fake.calls if c.method == "POST" and "/messages" in c.path
              and fake._dm_user(int(c.path.split("/")[2])) is not None)  # fmt: skip
    turns = sum(p.moves for p in bench.people.values()) + bench.stood_in
    pinged = sum(1 for user, _ in fake.notifications if user in bench.people)
    presses = sum(1 for i in bench.interactions if i.kind == 3)
    per_table = counted / seconds / tables if seconds else 0.0
    acks = sorted(i.answered_after for i in bench.interactions if i.answered_after is not None)
    # each interaction once: late or never answered, or answered against the rules
    matches = [re.match(r"interaction (\d+) ", v) for v in fake.violations]
    wrong = {int(m[1]) for m in matches if m is not None}
    unnamed = sum(
        m is None and "interaction" in v for m, v in zip(matches, fake.violations, strict=True)
    )
    failed_count = len({i.id for i in bench.failed_interactions()} | wrong) + unnamed
    for named in failed_named(bench, stops, pauses, began):
        print(named, file=sys.stderr)
    ack_p99 = p99(acks) * 1000
    mean, peak = fake.requests_per_second()
    for (method, path, files), n in requests_by_kind(calls).most_common(12):
        print(
            f"  requests: {n / max(1, presses):.2f} per press {method} {path}"
            f"{' (with a file)' if files else ''}",
            file=sys.stderr,
        )
    print(
        f"tables: {tables} games: {played} speed: {speed:g} wall_s: {wall:.0f} "
        f"discord_seconds: {seconds:.0f} presses: {presses} counted: {counted} "
        f"injected_faults: {injected} presses_per_s: {presses / wall:.1f} "
        f"rps_per_table_at_3s_per_press: {counted / (presses * THINK) if presses else 0:.3f} "
        f"mean_rps: {mean / speed:.2f} peak_rps: {peak / speed:.1f} "
        f"stuck: {bench.stuck} global_429s: {fake.global_429s} "
        f"route_429s: {len(fake.rate_limited)} "
        f"cpu_bot_s: {cpu_bot:.1f} cpu_review_s: {cpu_review:.1f} cpu_bench_s: {cpu_me:.1f} "
        f"bot_cpu_ms_per_press: {1000 * (cpu_bot + cpu_review) / max(1, presses):.1f} "
        f"bench_loop_lag_p99_ms: {1000 * p99(lags):.0f} "
        f"max_ms: {1000 * max(lags, default=0.0):.0f} "
        f"bench_gc_max_ms: {1000 * max((p for _, p, _ in pauses), default=0.0):.0f} "
        f"bot_stop_max_ms: {1000 * max((p for _, p, _ in bench.bot_stops), default=0.0):.0f} "
        f"global_429_at_s: {[round(c.at - began) for c in calls if global_429(c)][:10]} "
        f"store: {'memory' if settings.memory else 'file'} load: {os.getloadavg()[0]:.1f} "
        f"interactions: {len(bench.interactions)} violations: {fake.violations[:3]} "
        f"person_turns: {turns} stood_in: {bench.stood_in} notifications: {pinged}",
        file=sys.stderr,
    )
    at_50 = math.floor(BOT_WIDE_RPS / per_table) if per_table > 0 else 0
    line = (
        f"global_rps_per_table: {per_table:.3f} dm_per_game: {dms / played:.1f} "
        f"tables_at_50rps: {at_50} lost_prompts: {bench.lost} failed_interactions: "
        f"{failed_count} p99_ack_ms: {ack_p99:.0f} channel_messages_per_game: "
        f"{messages / played:.1f} stuck_tables: {len(bench.stuck)} "
        f"unnoticed_turns: {bench.unnoticed} pings_per_turn: {pinged / max(1, turns):.2f} "
        f"cpu_ms_per_press: {1000 * cpu_bot / max(1, presses):.1f}"
    )
    return line, not bench.stuck


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--games", type=int, default=2, help="games per table")
    parser.add_argument("--speed", type=float, default=1.0, help="the clock's speed-up")
    parser.add_argument("--rate-429", type=float, default=0.05, help="share of route 429s")
    parser.add_argument("--rate-5xx", type=float, default=0.01, help="share of 502s")
    parser.add_argument(
        "--idle-share", type=float, default=0.1, help="share of tables idle 13+ min between games"
    )
    parser.add_argument(
        "--miss-share", type=float, default=0.1, help="share of tables where a person misses a turn"
    )
    parser.add_argument("--burn", type=int, default=0, help="busy-loop processes beside it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--memory", action="store_true", help="the bot's store in memory (default: a file)"
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile the bot's process into FILE")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    settings = Settings(
        args.tables,
        args.games,
        args.speed,
        (args.rate_429, args.rate_5xx),
        args.memory,
        args.profile,
        args.idle_share,
        args.miss_share,
        args.seed,
    )
    print(f"  load before: {os.getloadavg()}", file=sys.stderr)
    with burning(args.burn):
        line, ok = asyncio.run(run(settings))
    print(line)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
