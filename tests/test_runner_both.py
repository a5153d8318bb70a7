"""``dokobot run`` end to end: one process serves Discord and IRC at the same time.

:func:`dokobot.runner.serve` gets a :class:`~dokobot.config.Config` made by
:func:`~dokobot.config.parse_config` with a Discord token and an ``irc`` section; it talks to
the fake Discord server (``tests/discord_fake``) and to a real ngIRCd on loopback
(``tests/irc_server.py``). On Discord one member plays a whole game against three computer
players with slash commands and buttons, and on IRC one user does the same with ``!``
commands and NOTICE prompts; both games run at once. The computer players' moves are
pushed by the service's background tasks, so they reach a chat only through
``service.listener``, which both adapters chain: every such move must show on its own
platform, and never on the other one. The store (SQLite in ``tmp_path``) must hold the
journals of both tables, and cancelling ``serve()`` must shut everything down cleanly.

ngIRCd must be installed (``bash .ci/install-debian.sh``); without it this test fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import random
import re
import sqlite3
import sys
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest

from dokobot import runner
from dokobot.config import DISCORD_TOKEN_ENV, parse_config
from dokobot.host.events import Event, Input, Public
from dokobot.host.journal import Record
from dokobot.host.service import Service
from dokobot.store import SqliteStore

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import FakeDiscord, FakeUser, Message, plain
from irc_player import play_until
from irc_server import IrcClient, IrcMessage, NgircdServer

CHANNEL = "#doko"
NETWORK = "testnet"
BOT_NICK = "dokobot"
PLAYER = "zoe"  # the IRC user; the Discord member is the fake's "Anna"
IRC_TABLE = f"irc:{NETWORK}:{CHANNEL}"
TOKEN = "runner-both-token"

GAME_OVER = re.compile(r"Game \d+ is over\.")
#: "Bot2 plays ♣Q" (not "Bot2 plays a queen solo.")
PLAY = re.compile(r"^(\S+) plays ([♣♠♥♦](?:10|[AKQJ9]))$")
NUMBERED_CARD = re.compile(r"(\d+):(\S+)")

T = TypeVar("T")


# -- fixtures -------------------------------------------------------------------------------


class RecordedService(Service):
    """The real :class:`Service`; it only remembers its instances and what its background
    tasks pushed to ``listener`` (for the checks)."""

    instances: ClassVar[list[RecordedService]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pushed: list[Event] = []
        self.seen: list[Event] = []
        RecordedService.instances.append(self)

        emit = self.delivery.emit

        async def recorded(events: list[Event], wait: float | None = None) -> None:
            if self.listener is not None:
                self.pushed += events
                self.seen += events
            await emit(events, wait)

        self.delivery.emit = recorded  # type: ignore[method-assign]

    async def handle(self, inp: Input) -> list[Event]:
        events = await super().handle(inp)
        self.seen += events
        return events


def config_text(ngircd: NgircdServer, store: Path) -> str:
    return f"""
language: en
store:
  path: '{store}'
bots:
  level: random
  delay: 0
  search_budget: 0.05
tables:
  thread: off  # the Discord table stays in the channel the test reads
irc:
  host: {ngircd.host}
  port: {ngircd.port}
  tls: false
  nick: {BOT_NICK}
  network: {NETWORK}
  channels: ["{CHANNEL}"]
  flood_burst: 100
  flood_rate: 100
"""


# -- text helpers ---------------------------------------------------------------------------


def discord_lines(fake: FakeDiscord, messages: list[Message] | None = None) -> list[str]:
    """Every line of the public messages in the fake's channel (and the latest of the
    lobby, whose news shows what happened between games)."""
    found = fake.channel_messages() if messages is None else messages
    lobby = [m for m in found if m.button(lambda c: c.endswith(":join"))]
    texts = [plain(m.content) for m in found] + [plain(m.embed_text) for m in lobby]
    return [line for content in texts for line in content.split("\n")]


def irc_lines(client: IrcClient) -> list[str]:
    """Every line the bot said in the IRC channel."""
    return [m.text for m in client.channel_lines(CHANNEL) if m.nick == BOT_NICK]


def plays(lines: list[str]) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in map(PLAY.match, lines) if m]


# -- the Discord member ---------------------------------------------------------------------


def is_choice(custom_id: str) -> bool:
    return not custom_id.endswith(":hand")


class DiscordPlayer:
    """Plays through the fake only by what a member sees: slash commands, then the buttons of
    every prompt that reaches them (by DM, or ephemerally as a reply)."""

    def __init__(self, fake: FakeDiscord, user: FakeUser) -> None:
        self.fake = fake
        self.user = user
        self.used: set[int] = set()
        self.prompts: list[str] = []
        self.plays = 0

    async def slash(self, name: str, options: dict[str, str | int | bool] | None = None) -> None:
        interaction = await self.fake.slash(self.user, name, options)
        await self.fake.wait_answered(interaction)

    def _mine(self, message: Message) -> bool:
        if message.dm_user is not None:
            return message.dm_user == self.user.id
        if message.ephemeral and message.interaction_id is not None:
            return self.fake.interactions[message.interaction_id].user.id == self.user.id
        return False

    def prompt(self) -> Message | None:
        """The oldest prompt with buttons this member has not answered yet."""
        for message in list(self.fake.messages.values()):
            if message.id in self.used or message.deleted or not self._mine(message):
                continue
            if any(is_choice(c) for c in message.custom_ids):
                return message
        return None

    def game_over(self) -> bool:
        return any(GAME_OVER.search(line) for line in discord_lines(self.fake))

    async def play_game(self, timeout: float = 15.0) -> None:
        while True:
            await self.fake.wait_for(lambda: self.prompt() is not None or self.game_over(), timeout)
            message = self.prompt()
            if message is None:
                return
            self.used.add(message.id)
            self.prompts.append(plain(message.content))
            choice = (
                message.button(lambda c: c.endswith(":healthy"))
                or message.button(lambda c: ":play " in c)
                or message.button(is_choice)
            )
            assert choice is not None
            interaction = await self.fake.click(self.user, message, choice)
            await self.fake.wait_answered(interaction)
            if ":play " in choice:
                self.plays += 1


# -- the IRC user ---------------------------------------------------------------------------


def is_game_over(message: IrcMessage) -> bool:
    return (
        message.command == "PRIVMSG"
        and message.nick == BOT_NICK
        and GAME_OVER.search(message.text) is not None
    )


def is_prompt(message: IrcMessage, me: IrcClient) -> bool:
    return (
        message.command == "NOTICE"
        and message.nick == BOT_NICK
        and message.target.lower() == me.nick.lower()
        and ("Your turn:" in message.text or "Healthy or reservation?" in message.text)
    )


async def irc_command(client: IrcClient, text: str, answer: str) -> None:
    """Say ``text`` in the channel and wait for a channel line containing ``answer``."""
    mark = len(client.messages)
    await client.say(CHANNEL, text)
    await client.wait_for(
        lambda m: m.command == "PRIVMSG" and m.nick == BOT_NICK and answer in m.text, since=mark
    )


async def play_irc_game(client: IrcClient, rng: random.Random, timeout: float = 15.0) -> list[str]:
    """Answer every turn with a legal card (by its number) until the game is over: the
    prompts, and the channel lines that name the player to lead (see ``irc_player``)."""
    return await play_until(client, is_game_over, style=2, rng=rng, timeout=timeout)


# -- the test -------------------------------------------------------------------------------


async def until(serving: asyncio.Task[None], waiting: Awaitable[T]) -> T:
    """Await ``waiting``, but fail at once (with its error) if ``serve()`` ends meanwhile."""
    job = asyncio.ensure_future(waiting)
    await asyncio.wait({job, serving}, return_when=asyncio.FIRST_COMPLETED)
    if not job.done():
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job
        error = None if serving.cancelled() else serving.exception()
        raise AssertionError(f"serve() ended early: {error!r}") from error
    return job.result()


async def quiet(client: IrcClient, fake: FakeDiscord, period: float = 0.2) -> None:
    """Wait until neither the IRC client nor the fake Discord got anything for ``period``."""
    while True:
        seen = (len(client.messages), len(fake.calls))
        await asyncio.sleep(period)
        if (len(client.messages), len(fake.calls)) == seen:
            return


# Each package's own folder (with a trailing separator), so that a clone in a folder named
# "dokobot" (its .venv, the tests' own clients) is not taken for the bot's code.
_PACKAGE_DIRS = {
    name: str(Path(importlib.import_module(name).__file__ or "").parent) + os.sep
    for name in ("dokobot", "discord", "pydle")
}


def leftover_tasks() -> tuple[list[asyncio.Task[Any]], list[asyncio.Task[Any]]]:
    """Unfinished tasks running dokobot's code, and those running discord.py's or pydle's
    (not the fakes', the test client's or pytest's)."""
    ours: list[asyncio.Task[Any]] = []
    libraries: list[asyncio.Task[Any]] = []
    for task in asyncio.all_tasks():
        if task is asyncio.current_task() or task.done():
            continue
        code = getattr(task.get_coro(), "cr_code", None)
        filename = code.co_filename if code is not None else ""
        if filename.startswith(_PACKAGE_DIRS["dokobot"]):
            ours.append(task)
        elif filename.startswith((_PACKAGE_DIRS["discord"], _PACKAGE_DIRS["pydle"])):
            libraries.append(task)
    return ours, libraries


async def test_serve_runs_discord_and_irc_in_one_process(
    ngircd: NgircdServer,
    fake: FakeDiscord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    began = time.monotonic()
    store_path = tmp_path / "dokobot.sqlite3"
    config = parse_config(
        config_text(ngircd, store_path), env={DISCORD_TOKEN_ENV: TOKEN}, source="test"
    )
    assert config.discord is not None and config.discord.token == TOKEN
    assert config.irc is not None and config.irc.port == ngircd.port
    assert (config.bot_delay, config.store_path) == (0.0, str(store_path))
    monkeypatch.delenv(DISCORD_TOKEN_ENV, raising=False)  # the token comes from the config
    RecordedService.instances = []
    monkeypatch.setattr(runner, "Service", RecordedService)

    anna = fake.users[0]
    discord_table = f"discord:{fake.channel_id}"
    zoe = IrcClient(ngircd.host, ngircd.port, PLAYER)
    await zoe.connect()
    await zoe.join(CHANNEL)
    serving = asyncio.create_task(runner.serve(config))
    try:
        # both platforms come up: the bot joins the IRC channel, Discord gets READY
        await until(serving, zoe.wait_for(lambda m: m.command == "JOIN" and m.nick == BOT_NICK))
        await until(serving, fake.wait_connected(10))
        [service] = RecordedService.instances
        assert service.listener is not None
        assert {c["name"] for c in fake.commands} >= {"join", "start", "play", "healthy"}

        # the same seating on both platforms
        discord = DiscordPlayer(fake, anna)
        await discord.slash("join")
        await discord.slash("prompts", {"where": "dm"})  # this member plays from his DMs
        for _ in range(3):
            await discord.slash("join", {"bot": True, "level": "random"})
        await irc_command(zoe, "!join", f"{PLAYER} joined (1/4)")
        for n in range(2, 5):
            await irc_command(zoe, "!join bot random", f"({n}/4)")
        # the lobby is edited after each answer: wait for its last edit
        await fake.wait_for(lambda: any("(4/4)" in line for line in discord_lines(fake)), 10)
        seated = discord_lines(fake)
        assert "Anna joined (1/4)." in seated
        assert [line for line in seated if "(random) joined" in line] == [
            f"Computer player Bot{n} (random) joined ({n + 1}/4)." for n in (1, 2, 3)
        ]

        # both games at once, each person answering only their own prompts
        await discord.slash("start")
        await zoe.say(CHANNEL, "!start")
        windows: dict[str, tuple[float, float]] = {}

        async def timed(name: str, game: Any) -> Any:
            start = time.monotonic()
            try:
                return await game
            finally:
                windows[name] = (start, time.monotonic())

        _, irc_prompts = await until(
            serving,
            asyncio.gather(
                timed("discord", discord.play_game()),
                timed("irc", play_irc_game(zoe, random.Random(4))),
            ),
        )
        (d_start, d_end), (i_start, i_end) = windows["discord"], windows["irc"]
        assert d_start < i_end and i_start < d_end  # the two games overlapped in time

        # the two tables are separate, under their platforms' ids
        assert set(service.router.tables) == {discord_table, IRC_TABLE}
        assert service.router.user_table == {
            f"discord:{anna.id}": discord_table,
            f"irc:{NETWORK}:{PLAYER}": IRC_TABLE,
        }
        seats = {ch: [s.user for s in t.seats] for ch, t in service.router.tables.items()}
        assert seats[discord_table][0] == f"discord:{anna.id}"
        assert seats[IRC_TABLE][0] == f"irc:{NETWORK}:{PLAYER}"
        assert all(u.startswith("bot:") for s in seats.values() for u in s[1:])
        await asyncio.wait_for(service.idle(), 5)

        # the computer players' moves were pushed through the listener, and only there
        pushed = {
            table: plays(
                [e.text for e in service.pushed if isinstance(e, Public) and e.channel == table]
            )
            for table in (discord_table, IRC_TABLE)
        }
        for table, moves in pushed.items():
            assert len(moves) == 36, (table, moves)
            assert {who for who, _ in moves} == {"Bot1", "Bot2", "Bot3"}

        # Discord: a whole game; the computer players' 36 cards came as pushed messages
        assert discord.plays == 12
        assert discord.prompts[0].startswith("Healthy or reservation?")
        assert sum(p.startswith("Your turn:") for p in discord.prompts) == 12
        # (the Discord channel shows one board per game, edited in place, and the result)
        d_plays = plays(
            [e.text for e in service.seen if isinstance(e, Public) and e.channel == discord_table]
        )
        assert len(d_plays) == 48, d_plays
        assert sorted({who for who, _ in d_plays}) == ["Anna", "Bot1", "Bot2", "Bot3"]
        assert sum(who == "Anna" for who, _ in d_plays) == 12
        assert [p for p in d_plays if p[0] != "Anna"] == pushed[discord_table]
        boards = [m for m in fake.channel_messages() if m.button(lambda c: c.endswith(":hand"))]
        assert len(boards) == 1
        assert len(plays(discord_lines(fake))) <= 4  # no message per card (the result
        # message says how the last trick went)
        assert sum(bool(GAME_OVER.search(t)) for t in discord_lines(fake)) == 1
        assert fake.violations == [] and fake.unknown_routes == []

        # IRC: a whole game too, and the computer players' cards in the channel
        assert "Healthy or reservation?" in irc_prompts[0]
        assert len(irc_prompts) == 13  # the reservation and twelve turns (prompts or leads)
        # the IRC channel shows each trick in one line, with its four cards
        i_plays = [
            (who, card)
            for line in irc_lines(zoe)
            for trick in re.finditer(r"Trick \d+: (.*?) — ", line)
            for who, _, card in (play.rpartition(" ") for play in trick[1].split(", "))
        ]
        assert len(i_plays) == 48, i_plays
        assert sorted({who for who, _ in i_plays}) == [*(f"Bot{n}" for n in (1, 2, 3)), PLAYER]
        assert sum(who == PLAYER for who, _ in i_plays) == 12
        assert [p for p in i_plays if p[0] != PLAYER] == pushed[IRC_TABLE]
        assert sum(bool(GAME_OVER.search(t)) for t in irc_lines(zoe)) == 1

        # nothing crossed over: each platform shows only its own table
        assert not any("Anna" in line for line in irc_lines(zoe))
        assert not any(PLAYER in line for line in discord_lines(fake))
        for message in fake.messages.values():  # not in DMs or ephemeral replies either
            assert PLAYER not in plain(message.content)
        assert [m for m in zoe.messages if m.command == "NOTICE" and "Anna" in m.text] == []
        # stop the bots once everything went out: on Python 3.11 a cancellation that lands
        # inside one of pydle's sends (asyncio.wait_for) can be lost; not what this tests
        await quiet(zoe, fake)
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(serving, 10)
    try:
        # shut down cleanly: IRC says QUIT, the Discord gateway is closed, the service is
        # closed (store too), and no task of dokobot (computer players, IRC workers),
        # discord.py or pydle is left running
        assert serving.cancelled(), serving
        await zoe.wait_for(lambda m: m.command == "QUIT" and m.nick == BOT_NICK, 5)
        with pytest.raises(TimeoutError):
            await fake.wait_connected(0.2)
        assert service.listener is None
        with pytest.raises(sqlite3.ProgrammingError):
            service.store.channels()  # closed
        await asyncio.sleep(0.1)
        ours, libraries = leftover_tasks()
        assert ours == []
        # discord.py leaves its "ready" timer (guild_ready_timeout, 2 s) running when a client
        # closes before it fired: allow library tasks to end by themselves, but soon
        if libraries:
            await asyncio.wait(libraries, timeout=3)
        assert leftover_tasks() == ([], [])
        calls_after = len(fake.calls)
        await asyncio.sleep(0.2)
        assert len(fake.calls) == calls_after  # nothing talks to Discord any more
    finally:
        await zoe.close()

    # the store file holds both journals, each with its own people and the whole game
    store = SqliteStore(store_path)
    try:
        assert store.channels() == sorted([discord_table, IRC_TABLE])
        d_journal, i_journal = (
            [Record.decode(x).line() for x in store.load_journal(ch)]
            for ch in (discord_table, IRC_TABLE)
        )
    finally:
        store.close()
    assert "Anna: /join" in d_journal and "Anna: /start" in d_journal
    assert d_journal.count("Anna: /join bot random") == 3
    assert f"{PLAYER}: /join" in i_journal and f"{PLAYER}: /start" in i_journal
    assert i_journal.count(f"{PLAYER}: /join bot random") == 3
    for journal, person, seen in (
        (d_journal, "Anna", d_plays),
        (i_journal, PLAYER, i_plays),
    ):
        other = PLAYER if person == "Anna" else "Anna"
        assert not any(line.startswith(f"{other}:") for line in journal)
        played = [line.split(":")[0] for line in journal if ": /play " in line]
        assert len(played) == 48, journal
        assert played == [who for who, _ in seen]  # what each chat showed, in order
    assert time.monotonic() - began < 20
