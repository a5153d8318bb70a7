"""Two real bot processes on one PostgreSQL, one Discord shard each (``dokobot run`` in
operating-system processes of their own, :mod:`discord_fake.bot_process`), against the
strict fake Discord and four simulated people in this process. The table lives on shard 1;
its players chose ``/prompts dm``, and Discord delivers every press in a DM to shard 0, whose
process acknowledges it and hands it to shard 1's process through PostgreSQL.

The second test takes shard 1's process away while a DM press is on its way: stopped
(SIGSTOP, it comes back later) and killed (kill -9, a new process replaces it): the person
is told that nothing happened, and the press is never applied, neither late nor twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from conftest import SPEED
from discord_fake import FakeDiscord, FakeUser, Interaction, Message
from discord_fake.bot_process import BotProcess, shard_config

from dokobot.host.i18n import text
from dokobot.store.postgres import PostgresStore

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

    def live(self) -> list[tuple[FakeUser, Message]]:
        """Every person's prompts with buttons, not pressed yet, newest first."""
        out = [
            (user, m)
            for user in self.fake.users
            for m in self.fake.private_messages(user)
            if choices(m) and m.id not in self.pressed
        ]
        return sorted(out, key=lambda um: (decision(choices(um[1])[0]), um[1].id), reverse=True)

    def finished(self) -> bool:
        """The game's result is in the channel (its buttons: Next game, Score)."""
        return any(
            m.button(lambda c: c.endswith(":score"))
            for m in self.fake.channel_messages(self.channel)
        )

    async def next_prompt(self) -> tuple[FakeUser, Message] | None:
        """The prompt to press next (None: the game is over). Every prompt before it was
        pressed and used up, so the one left with buttons is the current one."""
        await self.fake.wait_for(lambda: self.finished() or bool(self.live()), timeout=20)
        if self.finished():
            return None
        return self.live()[0]

    async def press(self, user: FakeUser, prompt: Message) -> Interaction:
        """``user`` presses ``prompt`` and sees it used up (the press applied)."""
        interaction = await self.fake.click(user, prompt, pick(choices(prompt)))
        await self.fake.wait_answered(interaction)
        await self.fake.wait_for(lambda: not choices(prompt), timeout=10)
        self.pressed.add(prompt.id)
        if prompt.dm_user is not None:
            self.dm_presses.append(interaction)
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
async def two_processes(pg_url: str, tmp_path: Path, locale: str = "en-US") -> AsyncIterator[Table]:
    """The fake (the guild on shard 1 of 2; its people's Discord clients in ``locale``) and
    one ``dokobot run`` per shard, connected."""
    fake = FakeDiscord(heartbeat_ms=300, speed=SPEED, guild_shard=(1, 2))
    for user in fake.users:
        user.locale = locale
    fake.check_identify = True  # the processes take turns to IDENTIFY (5 s apart)
    await fake.start()
    bots = []
    for shard in (0, 1):
        config = tmp_path / f"shard-{shard}.yaml"
        config.write_text(shard_config(pg_url, shard, 2))
        bots.append(BotProcess(fake.port, config, tmp_path / f"shard-{shard}.log"))
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
    await table.slash(first, "join")
    [thread] = fake.threads
    table.channel = thread
    await fake.wait_for(lambda: bool(fake.channel_messages(thread)))  # its lobby
    for user in others:
        await table.slash(user, "join", channel=thread)
    for user in fake.users:
        await table.slash(user, "prompts", {"where": "dm"})
    await table.slash(first, "start", channel=thread)


async def test_a_game_of_shard_1_played_by_dm_across_two_processes(
    pg_url: str, tmp_path: Path
) -> None:
    async with two_processes(pg_url, tmp_path) as table:
        fake = table.fake
        await seat_four(table)
        while (found := await table.next_prompt()) is not None:
            await table.press(*found)
        plays = table.plays()
    # the game went to its end (12 tricks of 4 cards, each play stored once)
    assert len(plays) == 48
    # nearly every press was in a DM (the starter's first prompt answers his /start), and
    # each reached shard 0 only, was answered there within Discord's 3 seconds, and was
    # applied by shard 1's process, which used the prompt up through the interaction token
    presses = table.dm_presses
    assert len(presses) >= 48
    dm_events = [s for s, event in fake.dispatched if event == "INTERACTION_CREATE" and s == 0]
    assert len(dm_events) == len(presses)
    assert all(p.response_type == 6 and p.answered_after is not None for p in presses)
    assert max(p.answered_after or 0.0 for p in presses) < 3.0
    assert all(p.message is not None and p.message.content.count("→") == 1 for p in presses)
    assert fake.violations == []
    (_, first), (_, second) = fake.identify_times[:2]
    assert second - first >= 5.0


async def test_a_dm_press_whose_process_is_down_is_refused_clearly_and_never_applied(
    pg_url: str, tmp_path: Path
) -> None:
    notice = text("de", "discord.handoff_down")  # in the presser's language (his client's)
    async with two_processes(pg_url, tmp_path, locale="de") as table:
        fake = table.fake
        one = table.bots[1]
        await seat_four(table)
        for _ in range(8):  # the reservations and the first trick
            found = await table.next_prompt()
            assert found is not None
            await table.press(*found)
        before = table.plays()
        assert len(before) == 4

        async def press_unheard() -> Message:
            """The person to move presses his DM prompt while shard 1's process cannot
            take it: shard 0 answers at once, and a little later tells him."""
            found = await table.next_prompt()
            assert found is not None
            user, prompt = found
            assert prompt.dm_user == user.id
            press = await fake.click(user, prompt, pick(choices(prompt)))
            await fake.wait_answered(press)
            await fake.wait_for(lambda: any(m.content == notice for m in press.followups))
            assert choices(prompt), "the prompt keeps its buttons"
            return prompt

        # stopped: the press waits in its process's connection; resumed, it finds the press
        # expired and drops it
        one.signal(signal.SIGSTOP)
        try:
            prompt = await press_unheard()
        finally:
            one.signal(signal.SIGCONT)
        dropped = "came after its time; dropped"
        for _ in range(100):  # until it has seen the press (or, wrongly, applied it)
            if dropped in one.output() or table.plays() != before:
                break
            await asyncio.sleep(0.1)
        assert table.plays() == before, "applied after its presser was told it was not"
        assert dropped in one.output()

        # killed: nobody hears the press; a new process for shard 1 restores the table, and
        # the same prompt's button works once
        one.kill()
        prompt = await press_unheard()
        assert table.plays() == before
        one.start()
        await fake.wait_connected(shard=1, timeout=START_WITHIN)
        user = next(u for u in fake.users if u.id == prompt.dm_user)
        again = await table.press(user, prompt)
        assert again.response_type == 6
        assert len(table.plays()) == len(before) + 1
        # and the game goes on from there
        found = await table.next_prompt()
        assert found is not None
        await table.press(*found)
        assert len(table.plays()) == len(before) + 2
        assert fake.violations == []
