"""Two real bot processes on one PostgreSQL, one Discord shard each (``dokobot run`` in
operating-system processes of their own, :mod:`.bot_process`), against the strict fake
Discord, and four simulated people who play from their DMs (for the tests and the bench
``bench/handoff.py``). The table lives on shard 1; Discord delivers every press in a DM to
shard 0, whose process acknowledges it and hands it to shard 1's process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from dokobot.store.postgres import PostgresStore

from .bot_process import BotProcess, shard_config
from .server import FakeDiscord, FakeUser, Interaction, Message

MARKED = re.compile(r"^doko:\d+:(\d+)\.(\d+):")
START_WITHIN = 60.0
"""Seconds a bot process may take to start and connect (imports, IDENTIFY in turns)."""


def choices(message: Message) -> list[str]:
    """The prompt buttons of ``message`` (not "My cards")."""
    return [c for c in message.custom_ids if MARKED.match(c)]


def decision(custom_id: str) -> tuple[int, int]:
    match = MARKED.match(custom_id)
    assert match is not None
    return int(match[1]), int(match[2])


def pick(ids: list[str]) -> str:
    """A press that always moves the game on: healthy, else a card (never a call)."""
    for want in (":healthy", ":play "):
        found = [c for c in ids if want in c]
        if found:
            return found[0]
    return ids[0]


@dataclass
class Table:
    """The fake, the two processes, the store and the people of one test."""

    fake: FakeDiscord
    bots: list[BotProcess]
    url: str
    channel: int = 0
    pressed: set[int] = field(default_factory=set)
    """Prompt messages already pressed (a used prompt loses its buttons)."""
    dm_presses: list[Interaction] = field(default_factory=list)
    applied_after: list[float] = field(default_factory=list)
    """Per DM press: seconds from the press to its prompt used up (applied by the table's
    process)."""
    results: int = 0
    """Game results in the channel when the current game began."""

    def live(self) -> list[tuple[FakeUser, Message]]:
        """Every person's prompts with buttons, not pressed yet, newest first."""
        out = [
            (user, m)
            for user in self.fake.users
            for m in self.fake.private_messages(user)
            if choices(m) and m.id not in self.pressed
        ]
        return sorted(out, key=lambda um: (decision(choices(um[1])[0]), um[1].id), reverse=True)

    def result_count(self) -> int:
        """The game results in the channel (their buttons: Next game, Score)."""
        messages = self.fake.channel_messages(self.channel)
        return sum(1 for m in messages if m.button(lambda c: c.endswith(":score")))

    def finished(self) -> bool:
        """The current game's result is in the channel."""
        return self.result_count() > self.results

    async def next_prompt(self) -> tuple[FakeUser, Message] | None:
        """The prompt to press next (None: the game is over). Every prompt before it was
        pressed and used up, so the one left with buttons is the current one."""
        await self.fake.wait_for(lambda: self.finished() or bool(self.live()), timeout=20)
        if self.finished():
            return None
        return self.live()[0]

    async def press(self, user: FakeUser, prompt: Message) -> Interaction:
        """``user`` presses ``prompt`` and sees it used up (the press applied)."""
        started = time.monotonic()
        interaction = await self.fake.click(user, prompt, pick(choices(prompt)))
        await self.fake.wait_answered(interaction)
        await self.fake.wait_for(lambda: not choices(prompt), timeout=10)
        self.pressed.add(prompt.id)
        if prompt.dm_user is not None:
            self.dm_presses.append(interaction)
            self.applied_after.append(time.monotonic() - started)
        return interaction

    def plays(self) -> list[str]:
        """The card plays in the table's stored journal (read beside the bots)."""
        reader = PostgresStore(self.url, readonly=True)
        try:
            lines = reader.load_journal(f"discord:{self.channel}")
        finally:
            reader.close()
        records = [json.loads(line) for line in lines]
        return [r["text"] for r in records if r.get("k") == "cmd" and r["text"].startswith("/play")]

    async def slash(self, user: FakeUser, name: str, options: dict[str, str] | None = None,
                    channel: int | None = None) -> Interaction:  # fmt: skip
        interaction = await self.fake.slash(user, name, options, channel_id=channel)
        await self.fake.wait_answered(interaction, timeout=10)
        return interaction


@contextlib.asynccontextmanager
async def two_processes(
    pg_url: str,
    tmp_path: Path,
    locale: str = "en-US",
    speed: float = 20.0,
    identify_spacing: float | None = None,
) -> AsyncIterator[Table]:
    """The fake (the guild on shard 1 of 2; its people's Discord clients in ``locale``; its
    rate limits ``speed`` times faster) and one ``dokobot run`` per shard, connected; the
    processes' configurations and logs go to ``tmp_path``. They take turns to IDENTIFY
    Discord's 5 s apart, or ``identify_spacing`` (the fake allows the same)."""
    fake = FakeDiscord(heartbeat_ms=300, speed=speed, guild_shard=(1, 2))
    for user in fake.users:
        user.locale = locale
    fake.check_identify = True  # the processes take turns to IDENTIFY
    if identify_spacing is not None:
        fake.identify_spacing = identify_spacing
    await fake.start()
    bots = []
    for shard in (0, 1):
        config = tmp_path / f"shard-{shard}.yaml"
        config.write_text(shard_config(pg_url, shard, 2))
        log = tmp_path / f"shard-{shard}.log"
        bots.append(BotProcess(fake.port, config, log, identify_spacing))
    try:
        for bot in bots:
            bot.start()
        for shard in (0, 1):
            await fake.wait_connected(shard=shard, timeout=START_WITHIN)
        await fake.wait_for(lambda: bool(fake.commands), timeout=START_WITHIN)
        yield Table(fake, bots, pg_url)
    except BaseException:
        for bot in bots:
            await asyncio.to_thread(bot.stop)  # the fake (this loop) answers meanwhile
            print(f"--- {bot}:\n{bot.output()}")  # shown with the failure
        raise
    finally:
        played = "\n".join(bot.output() for bot in bots)  # what they logged while playing
        # before the fake, which answers them meanwhile: they end as they would with Discord
        codes = [await asyncio.to_thread(bot.stop) for bot in bots]
        await fake.stop()
    assert "Traceback" not in played, played
    assert codes == [0, 0], "\n".join(bot.output() for bot in bots)


async def seat_four(table: Table) -> None:
    """Four people join (the table opens in a thread), choose DMs, and the game starts."""
    fake = table.fake
    first, *others = fake.users
    await table.slash(first, "join")  # (acknowledged before its thread is open)
    await fake.wait_for(lambda: bool(fake.threads), timeout=10)
    [thread] = fake.threads
    table.channel = thread
    await fake.wait_for(lambda: bool(fake.channel_messages(thread)))  # its lobby
    for user in others:
        await table.slash(user, "join", channel=thread)
    for user in fake.users:
        await table.slash(user, "prompts", {"where": "dm"})
    await table.slash(first, "start", channel=thread)


async def play_game(table: Table) -> None:
    """The people press their prompts until the game is over."""
    while (found := await table.next_prompt()) is not None:
        await table.press(*found)
    table.results = table.result_count()
