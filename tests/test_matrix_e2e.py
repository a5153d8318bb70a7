"""End-to-end tests of the Matrix adapter against a real homeserver (Synapse on loopback,
``tests/synapse_server.py``).

Four people are four real Matrix clients (:class:`matrix_player.MatrixPlayer`, mautrix's
client API) on their own accounts; the bot is a :class:`~dokobot.adapters.matrix.MatrixAdapter`
in this process with the real service on an SQLite store. One of the people creates the
game room and invites the bot (which joins); the others join the room. They play with the
IRC tests' scripted player (:func:`irc_player.play_until`), each in its own style (the card's
number or the card alone in the room, ``!play`` in the room or in the direct room).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import secrets
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mautrix.types import RoomCreatePreset, UserID

from dokobot import runner
from dokobot.adapters.matrix import TOKEN_ENV, MatrixAdapter, MatrixSettings
from dokobot.config import parse_config
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store.sqlite import SqliteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from irc_player import BOT, is_game_over, play_until
from matrix_player import MatrixPlayer
from synapse_server import SynapseServer

NAMES = ("anna", "ben", "carl", "dora")
TRICK = re.compile(r"(?:Trick|Stich) \d+: (.*?) — ")


@dataclass
class Bot:
    """The bot: its account, and (while it runs) its service and adapter."""

    server: SynapseServer
    store: Path
    user_id: str
    token: str
    seed: int
    send_burst: int = 50
    send_rate: float = 100.0
    service: Service | None = None
    adapter: MatrixAdapter | None = None
    task: asyncio.Task[None] | None = None
    starts: list[int] = field(default_factory=list)

    async def start(self, monkeypatch: pytest.MonkeyPatch) -> MatrixAdapter:
        monkeypatch.setenv(TOKEN_ENV, self.token)
        router = Router(seed=self.seed, bot_factory=default_bot_factory())
        self.service = Service(router, SqliteStore(self.store))
        settings = MatrixSettings(
            homeserver=self.server.url, user_id=self.user_id,
            send_burst=self.send_burst, send_rate=self.send_rate,
        )  # fmt: skip
        restored = await self.service.start()
        self.adapter = MatrixAdapter(self.service, settings, self.token)
        self.service.listener = self.adapter.deliver
        self.service.boards = True
        await self.adapter.deliver(restored)
        self.task = asyncio.create_task(self.adapter.run())
        await self.adapter.wait_ready(60)
        self.starts.append(len(restored))
        return self.adapter

    async def stop(self) -> None:
        if self.adapter is not None and self.task is not None:
            await self.adapter.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self.task, 30)
        if self.service is not None:
            await self.service.close()
        self.service = self.adapter = self.task = None


@contextlib.asynccontextmanager
async def table(
    server: SynapseServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
    names: tuple[str, ...] = NAMES, **bot: float,
) -> AsyncIterator[tuple[Bot, list[MatrixPlayer]]]:  # fmt: skip
    """A bot and people (four) in a room of their own (the first one created it and invited
    the bot); the bot runs."""
    tag = secrets.token_hex(3)
    bot_id, bot_token = server.register(f"doko{tag}", display="dokobot")
    the_bot = Bot(server, tmp_path / "dokobot.sqlite3", bot_id, bot_token, seed, **bot)  # type: ignore[arg-type]
    people = []
    for name in names:
        user_id, token = server.register(f"{name}{tag}", display=name)
        people.append(MatrixPlayer(server.url, user_id, token, name, bot_id))
    try:
        for person in people:
            await person.connect()
        assert people[0].api is not None
        room = await people[0].api.create_room(
            preset=RoomCreatePreset.PUBLIC, invitees=[UserID(bot_id)]
        )
        for person in people:
            await person.join(str(room))
        await the_bot.start(monkeypatch)
        yield the_bot, people
    finally:
        await the_bot.stop()
        for person in people:
            await person.close()


async def sit_down(people: list[MatrixPlayer]) -> None:
    for person in people:
        mark = len(person.messages)
        await person.say("#doko", "!join")
        await person.wait_for(lambda m, n=person.nick: m.nick == BOT and f"{n} join" in m.text,
                              30, since=mark)  # fmt: skip


def played(person: MatrixPlayer) -> list[tuple[str, str]]:
    """(who, card) of every card in the room's trick lines."""
    out = []
    for message in person.channel_lines("#doko"):
        if message.nick != BOT:
            continue
        for trick in TRICK.finditer(message.text):
            for play in trick[1].split(", "):
                who, _, card = play.rpartition(" ")
                out.append((who, card))
    return out


async def play(people: list[MatrixPlayer], seed: int, **hooks: object) -> list[list[str]]:
    rng = random.Random(seed)
    return await asyncio.gather(
        *(play_until(p, is_game_over, style=i, rng=rng, timeout=60,
                     before_answer=hooks.get(p.nick))  # type: ignore[arg-type]
          for i, p in enumerate(people))
    )  # fmt: skip


@pytest.mark.long
async def test_four_people_play_a_whole_game(
    synapse: SynapseServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with table(synapse, tmp_path, monkeypatch, seed=11) as (bot, people):
        await sit_down(people)
        await people[0].say("#doko", "!start")
        prompts = await play(people, 3)
        assert all(len(p) >= 2 for p in prompts), prompts
        plays = played(people[0])
        assert len(plays) == 48
        assert {who for who, _ in plays} == set(NAMES)  # the seats carry the display names
        # the hands came only into each person's direct room, never into the game room
        for person in people:
            hands = [m for m in person.messages if "Your hand:" in m.text]
            assert hands and all(m.command == "NOTICE" for m in hands)
        assert bot.adapter is not None and bot.adapter.limited == 0
        # the board: one message in the room, edited in place after the moves
        boards = [i for i, text in people[1].ids.items() if "On the table:" in text]
        assert len(boards) == 1, people[1].ids
        edits = [text for target, text in people[1].edits if target == boards[0]]
        assert len(edits) >= 12 and all("On the table:" in text for text in edits)
        assert any("Game over" in text for text in edits[-3:])


@pytest.mark.long
async def test_a_restart_mid_game_goes_on(
    synapse: SynapseServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people and two computer players; the bot stops and starts again (a new service
    on the same store, a new adapter) before carl answers his fourth prompt: the game goes
    on to its end, and nothing said before the restart is read again."""
    async with table(synapse, tmp_path, monkeypatch, seed=12, names=("anna", "carl")) as (
        bot,
        people,
    ):
        await sit_down(people)
        for n in (3, 4):
            mark = len(people[0].messages)
            await people[0].say("#doko", "!join bot random")
            await people[0].wait_for(lambda m, n=n: m.nick == BOT and f"({n}/4)" in m.text, 30,
                                     since=mark)  # fmt: skip
        await people[0].say("#doko", "!start")

        async def restart(prompts: int) -> None:
            if prompts == 4:
                await bot.stop()
                await bot.start(monkeypatch)

        prompts = await play(people, 5, carl=restart)
        assert bot.starts[0] == 0 and bot.starts[1] > 0  # the second start restored the game
        assert len(prompts[1]) >= 4
        plays = played(people[0])
        assert len(plays) == 48, plays
        joins = [m for m in people[0].channel_lines("#doko") if m.nick == BOT and " join" in m.text]
        assert len(joins) == 4, joins


@pytest.mark.long
async def test_a_rate_limited_burst_loses_nothing(
    synapse: SynapseServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The homeserver lets the bot send three messages a second (a burst of one); the adapter
    paces itself far faster, so the homeserver's M_LIMIT_EXCEEDED does the pacing (at six a
    second a loaded machine's homeserver answered each message too slowly to be limited). Four
    people send three commands each at once: every answer arrives, once (in the text-chat
    layer's order: a person's first answer jumps the queue, the next ones follow). (Every
    limited message costs about 0.85 s: Synapse holds each refusal half a second.)"""
    async with table(synapse, tmp_path, monkeypatch, seed=13) as (bot, people):
        synapse.limit(bot.user_id, per_second=3, burst_count=1)
        await sit_down(people)  # four room lines and four direct rooms, limited already
        marks = [len(person.messages) for person in people]
        words = {p.nick: [f"{p.nick}nosuch{n}" for n in range(3)] for p in people}

        async def burst(person: MatrixPlayer) -> None:
            for word in words[person.nick]:
                await person.say(BOT, f"!{word}")

        await asyncio.gather(*(burst(person) for person in people))
        for person, mark in zip(people, marks, strict=True):
            for word in words[person.nick]:
                await person.wait_for(lambda m, w=word: m.nick == BOT and w in m.text, 90,
                                      since=mark)  # fmt: skip
            answers = [m.text for m in person.messages[mark:] if m.nick == BOT]
            for word in words[person.nick]:
                assert sum(re.search(rf"\b{word}\b", text) is not None for text in answers) == 1
        assert bot.adapter is not None and bot.adapter.limited > 0


async def test_dokobot_run_serves_matrix(
    synapse: SynapseServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``dokobot run`` with a ``matrix`` section (the token from the environment): the bot
    joins the configured room and answers there; the token is in no log line."""
    caplog.set_level(logging.DEBUG)
    tag = secrets.token_hex(3)
    bot_id, bot_token = synapse.register(f"doko{tag}")
    user_id, token = synapse.register(f"zoe{tag}", display="zoe")
    zoe = MatrixPlayer(synapse.url, user_id, token, "zoe", bot_id)
    await zoe.connect()
    assert zoe.api is not None
    room = str(await zoe.api.create_room(preset=RoomCreatePreset.PUBLIC))
    await zoe.join(room)
    text = (
        f"store:\n  path: {tmp_path / 'dokobot.sqlite3'}\nbots:\n  delay: 0\n"
        f"matrix:\n  homeserver: {synapse.url}\n  user_id: '{bot_id}'\n  rooms: ['{room}']\n"
    )
    config = parse_config(text, env={TOKEN_ENV: bot_token}, source="test")
    monkeypatch.setenv(TOKEN_ENV, bot_token)
    serving = asyncio.create_task(runner.serve(config))
    try:
        for _ in range(600):  # the bot joins the configured room (what was said before is old)
            if bot_id in zoe.present or serving.done():
                break
            await asyncio.sleep(0.1)
        assert bot_id in zoe.present
        await zoe.say("#doko", "!join")
        await zoe.wait_for(lambda m: m.nick == BOT and "zoe joined (1/4)" in m.text, 60)
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        await zoe.close()
    assert caplog.text and bot_token not in caplog.text
