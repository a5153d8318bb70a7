"""End-to-end tests of the IRC adapter against a real IRC server (ngIRCd on loopback).

Four real IRC connections (raw IRC over asyncio streams) join a channel and play through
the adapter; the bot is a :class:`~dokobot.adapters.irc.IrcAdapter` in this process.
ngIRCd must be installed (``bash .ci/install-debian.sh``); without it these tests fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dokobot.adapters.irc import PASSWORD_ENV, IrcAdapter, IrcSettings, ServiceLike, run_irc
from dokobot.host.contract import BareHost
from dokobot.host.events import Choice, Event, Input, Private, Public
from dokobot.host.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parent))
from irc_player import is_game_over, is_prompt, numbered_cards, play_until
from irc_server import (
    NGIRCD_MISSING,
    OPER_NAME,
    OPER_PASSWORD,
    IrcClient,
    IrcMessage,
    NgircdServer,
    ngircd_path,
)

CHANNEL = "#doko"
NETWORK = "test"
CHANNEL_ID = f"irc:{NETWORK}:{CHANNEL}"
BOT = "dokobot"

# -- a stand-in host -----------------------------------------------------------------------

SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
RANKS = ["A", "10", "K", "Q", "J", "9"]


def label(card: str) -> str:
    return SUITS[card[0]] + card[1:]


def parse_card(text: str) -> str:
    text = text.strip().upper()
    for letter, symbol in SUITS.items():
        text = text.replace(symbol, letter)
    return text


@dataclass
class StandInHost(BareHost):
    """A tiny host speaking the real event protocol: join, start, reservations, play.

    Any card in hand is legal; the leader of a trick takes it. Enough to drive the adapter.
    """

    tricks: int = 12
    seed: int = 7
    listener: Callable[[list[Event]], Awaitable[None]] | None = None
    inputs: list[Input] = field(default_factory=list)
    seats: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    hands: dict[str, list[str]] = field(default_factory=dict)
    phase: str = "lobby"
    turn: int = 0
    trick: list[tuple[str, str]] = field(default_factory=list)
    tricks_done: int = 0
    healthy: int = 0
    started: int = 0
    closed: int = 0

    async def start(self) -> list[Event]:
        self.started += 1
        return [Public(CHANNEL_ID, "The game at this table goes on.")]

    async def close(self) -> None:
        self.closed += 1

    async def handle(self, inp: Input) -> list[Event]:
        self.inputs.append(inp)
        try:
            return self._handle(inp)
        except Exception as exc:  # never raises, like the real host
            return [Private(inp.channel, inp.user, f"error: {exc}", kind="error", reply=True)]

    def _turn_prompt(self, channel: str) -> Private:
        user = self.seats[self.turn]
        cards = self.hands[user]
        numbered = "  ".join(f"{n}:{label(c)}" for n, c in enumerate(cards, 1))
        return Private(
            channel,
            user,
            f"Your turn: {numbered}",
            (*(Choice(label(c), f"/play {c}") for c in cards), Choice("re", "/re")),
            kind="turn",
        )

    def _handle(self, inp: Input) -> list[Event]:
        text = inp.text
        channel = inp.channel or CHANNEL_ID
        if text == "/whoami":
            return [
                Private(
                    channel,
                    inp.user,
                    f"you are {inp.user} name={inp.name} admin={inp.admin} dm={inp.dm}",
                    reply=True,
                )
            ]
        if text == "/join" and self.phase == "lobby" and inp.user not in self.seats:
            self.seats.append(inp.user)
            self.names[inp.user] = inp.name
            return [Public(channel, f"{inp.name} joins the table ({len(self.seats)}/4).")]
        if text == "/start" and self.phase == "lobby" and len(self.seats) == 4:
            deck = [s + r for s in SUITS for r in RANKS] * 2
            random.Random(self.seed).shuffle(deck)
            events: list[Event] = [Public(channel, "The game starts. Dealing.")]
            for index, user in enumerate(self.seats):
                hand = sorted(deck[index * 12 : index * 12 + self.tricks])
                self.hands[user] = hand
                numbered = "  ".join(f"{n}:{label(c)}" for n, c in enumerate(hand, 1))
                events.append(Private(channel, user, f"Your hand: {numbered}", kind="hand"))
            self.phase = "reservations"
            events.append(self._reservation_prompt(channel))
            return events
        if self.phase == "reservations" and text in ("/healthy", "/reservation"):
            if inp.user != self.seats[self.healthy]:
                return [Private(channel, inp.user, "Not your turn.", kind="error", reply=True)]
            self.healthy += 1
            events = [Public(channel, f"{inp.name}: healthy")]
            if self.healthy < 4:
                events.append(self._reservation_prompt(channel))
            else:
                self.phase = "play"
                events.append(Public(channel, "Normal game."))
                events.append(self._turn_prompt(channel))
            return events
        if self.phase == "play":
            if text.startswith("/play "):
                token = text[6:]
            elif not text.startswith("/") and inp.user == self.seats[self.turn]:
                token = text
            else:
                return []
            if inp.user != self.seats[self.turn]:
                return [Private(channel, inp.user, "Not your turn.", kind="error", reply=True)]
            hand = self.hands[inp.user]
            card = hand[int(token) - 1] if token.isdigit() else parse_card(token)
            if card not in hand:
                return [Private(channel, inp.user, f"No {text} in your hand.", kind="error")]
            hand.remove(card)
            self.trick.append((inp.user, card))
            events = [Public(channel, f"{inp.name} plays {label(card)}")]
            self.turn = (self.turn + 1) % 4
            if len(self.trick) == 4:
                winner = self.trick[0][0]
                self.trick = []
                self.tricks_done += 1
                events.append(Public(channel, f"Trick {self.tricks_done} to {inp.name}."))
                self.turn = self.seats.index(winner)
            if self.tricks_done == self.tricks:
                self.phase = "over"
                events.append(Public(channel, "Game over: Re 121, Kontra 119. Re wins."))
            else:
                events.append(self._turn_prompt(channel))
            return events
        return []

    def _reservation_prompt(self, channel: str) -> Private:
        user = self.seats[self.healthy]
        return Private(
            channel,
            user,
            "Healthy or reservation? /healthy or /reservation",
            (Choice("Healthy", "/healthy"), Choice("Reservation", "/reservation")),
            kind="reservation",
        )


# -- fixtures ------------------------------------------------------------------------------


def require_ngircd() -> None:
    """Fail (never skip) when ngIRCd is missing: CI installs it."""
    if ngircd_path() is None:
        pytest.fail(NGIRCD_MISSING, pytrace=False)


def settings_for(server: NgircdServer, **overrides: object) -> IrcSettings:
    values: dict[str, object] = {
        "host": server.host,
        "port": server.port,
        "tls": False,
        "nick": BOT,
        "channels": (CHANNEL,),
        "network": NETWORK,
        "flood_burst": 20,
        "flood_rate": 500.0,
        "reconnect_initial": 0.1,
        "reconnect_max": 0.5,
    }
    values.update(overrides)
    return IrcSettings(**values)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def running(service: ServiceLike, settings: IrcSettings) -> AsyncIterator[IrcAdapter]:
    adapter = IrcAdapter(service, settings, rng=random.Random(0))
    service.listener = adapter.deliver
    task = asyncio.create_task(adapter.run())
    try:
        await adapter.wait_ready(10)
        yield adapter
    finally:
        await adapter.stop()
        await asyncio.wait_for(task, 10)


@contextlib.asynccontextmanager
async def players(server: NgircdServer, *nicks: str) -> AsyncIterator[list[IrcClient]]:
    clients = [IrcClient(server.host, server.port, nick) for nick in nicks]
    try:
        for client in clients:
            await client.connect()
            await client.join(CHANNEL)
        yield clients
    finally:
        for client in clients:
            await client.close()


# -- playing -------------------------------------------------------------------------------


def joined(nick: str) -> Callable[[IrcMessage], bool]:
    return lambda message: message.text.startswith(f"{nick} join")


# -- tests -----------------------------------------------------------------------------------

PLAYED = re.compile(r"^(\S+) plays (\S+)$")
TRICK = re.compile(r"(?:Trick|Stich) \d+: (.*?) — ")


def played_cards(texts: list[str]) -> list[tuple[str, str]]:
    """(player, card) of every card the channel saw played: "anna plays ♣Q" lines (the
    stand-in host) or the trick lines "Trick 3: anna ♣Q, ben ♠A, … — ben takes it"."""
    out: list[tuple[str, str]] = []
    for text in texts:
        for part in text.split(" · "):
            if match := PLAYED.match(part):
                out.append((match[1], match[2]))
            for trick in TRICK.finditer(part):
                for play in trick[1].split(", "):
                    who, _, card = play.rpartition(" ")
                    out.append((who, card))
    return out


async def bare_cards_on(client: IrcClient) -> None:
    """Let cards typed alone in the channel count (the option is off on IRC channels)."""
    mark = len(client.messages)
    await client.say(CHANNEL, "!option bare_cards on")
    await client.wait_for(lambda m: "bare_cards is now on" in m.text, since=mark)


async def play_full_game(
    server: NgircdServer,
    host: ServiceLike,
    finished: Callable[[IrcMessage], bool],
    nicks: tuple[str, ...] = ("anna", "ben", "carl", "dora"),
) -> None:
    """Four players join, start and play a whole game over IRC; checks what each saw."""
    async with (
        running(host, settings_for(server)),
        players(server, *nicks) as clients,
    ):
        for client in clients:
            await client.say(CHANNEL, "!join")
            await client.wait_for(joined(client.nick))
        if isinstance(host, Service):
            await bare_cards_on(clients[0])
        await clients[0].say(CHANNEL, "!start")
        rng = random.Random(3)
        results = await asyncio.gather(
            *(play_until(c, finished, style=i, rng=rng) for i, c in enumerate(clients))
        )
        await asyncio.sleep(0.2)

        everything = clients[0].channel_lines(CHANNEL)
        channel_texts = [m.text for m in everything if m.nick == BOT]
        plays = played_cards(channel_texts)
        assert len(plays) == 48
        assert any(finished(m) for m in everything)
        for client, prompts in zip(clients, results, strict=True):
            hand_notes = [t for t in client.notices() if "Your hand: " in t]
            assert len(hand_notes) == 1, client.notices()
            hand = numbered_cards(hand_notes[0].split("Your hand: ")[1].split(" · ")[0])
            assert [n for n, _ in hand] == list(range(1, 13))
            # the reservation question, then twelve turns: prompts showing legal cards of the
            # hand, or (the real host) channel lines naming the player who leads
            assert "healthy or reservation?" in prompts[0].lower()
            turns = prompts[1:]
            assert len(turns) == 12
            left = sorted(card for _, card in hand)
            for turn in turns:
                if "Your turn: " not in turn:
                    assert f"{client.nick} takes it" in turn or f"{client.nick} leads" in turn
                    continue
                shown = [card for _, card in numbered_cards(turn.split(" — ")[0])]
                assert shown and set(shown) <= set(left), (turn, left)
            played = sorted(card for who, card in plays if who == client.nick)
            assert played == left
            # no hand (nor any numbered card list) ever shows in the channel
            for message in everything:
                assert "Your hand" not in message.text and "Your turn" not in message.text
                assert len(numbered_cards(message.text)) < 2, message.text
        # private messages arrive as NOTICE, never as PRIVMSG to a player
        for client in clients:
            assert not [
                m for m in client.messages if m.command == "PRIVMSG" and m.target == client.nick
            ]


async def test_full_game_with_stand_in_host(ngircd: NgircdServer) -> None:
    host = StandInHost()

    def finished(message: IrcMessage) -> bool:
        return message.command == "PRIVMSG" and "Game over:" in message.text

    await play_full_game(ngircd, host, finished)
    users = {i.user for i in host.inputs}
    assert users == {f"irc:{NETWORK}:{n}" for n in ("anna", "ben", "carl", "dora")}
    assert any(i.dm and i.channel == "" for i in host.inputs)  # style 3 answers by DM
    texts = {i.text for i in host.inputs}
    assert {"/join", "/start", "/healthy"} <= texts


async def test_nick_change_mid_game_keeps_the_seat(ngircd: NgircdServer) -> None:
    host = StandInHost(tricks=3)
    async with (
        running(host, settings_for(ngircd)),
        players(ngircd, "anna", "ben", "carl", "dora") as clients,
    ):
        for client in clients:
            await client.say(CHANNEL, "!join")
            await client.wait_for(joined(client.nick))
        await clients[0].say(CHANNEL, "!start")

        def finished(message: IrcMessage) -> bool:
            return message.command == "PRIVMSG" and "Game over" in message.text

        rng = random.Random(5)
        # ben renames after his second prompt (his first card), before answering it
        results = await asyncio.gather(
            *(
                play_until(c, finished, style=i % 2, rng=rng, rename_after=2 if i == 1 else None)
                for i, c in enumerate(clients)
            )
        )
        ben = clients[1]
        assert ben.nick == "ben_x"
        assert len(results[1]) == 1 + 3  # reservation + all three turns, after the rename too
        late = [m for m in ben.messages if is_prompt(m, ben)][-1]
        assert late.target == "ben_x"
        lines = [m.text for m in clients[0].channel_lines(CHANNEL) if m.nick == BOT]
        assert sum(who == "ben_x" for who, _ in played_cards(lines)) >= 1
        ben_inputs = [i for i in host.inputs if i.name in ("ben", "ben_x")]
        assert {i.user for i in ben_inputs} == {f"irc:{NETWORK}:ben"}
        assert {i.name for i in ben_inputs} == {"ben", "ben_x"}

        # somebody else taking the old nick is somebody else
        intruder = IrcClient(ngircd.host, ngircd.port, "ben")
        await intruder.connect()
        try:
            await intruder.join(CHANNEL)
            await intruder.say(CHANNEL, "!whoami")
            reply = await intruder.wait_for(lambda m: m.command == "NOTICE" and "you are" in m.text)
            assert f"you are irc:{NETWORK}:ben~2 " in reply.text
        finally:
            await intruder.close()


async def test_reconnect_after_kill_and_after_server_restart(ngircd: NgircdServer) -> None:
    host = StandInHost()
    async with running(host, settings_for(ngircd)) as adapter, players(ngircd, "anna") as (anna,):
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: m.command == "NOTICE" and "you are" in m.text)
        assert adapter.registrations == 1

        # 1. an IRC operator kills the bot's connection
        oper = IrcClient(ngircd.host, ngircd.port, "oper")
        await oper.connect()
        await oper.send(f"OPER {OPER_NAME} {OPER_PASSWORD}")
        await oper.wait_for(lambda m: m.command == "381")
        mark = len(anna.messages)
        await oper.send(f"KILL {BOT} :testing reconnects")
        await anna.wait_for(lambda m: m.command == "QUIT" and m.nick == BOT, since=mark)
        await anna.wait_for(lambda m: m.command == "JOIN" and m.nick == BOT, since=mark)
        await adapter.wait_ready(10)
        assert adapter.registrations == 2
        mark = len(anna.messages)
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: "you are" in m.text, since=mark)
        await oper.close()

    # 2. the whole server goes away and comes back on the same port
    async with running(host, settings_for(ngircd)) as adapter:
        ngircd.stop()
        await asyncio.sleep(0.6)  # a few failed attempts while the server is down
        assert adapter.nick is None
        ngircd.start()
        started = time.monotonic()
        await adapter.wait_ready(10)
        assert time.monotonic() - started < 5  # the backoff is capped (0.5 s here)
        assert adapter.registrations == 2
        async with players(ngircd, "anna") as (anna,):
            await anna.say(CHANNEL, "!whoami")
            reply = await anna.wait_for(lambda m: "you are" in m.text)
            assert f"you are irc:{NETWORK}:anna " in reply.text


async def test_flood_control_throttles_a_burst(ngircd: NgircdServer) -> None:
    host = StandInHost()
    settings = settings_for(ngircd, flood_burst=3, flood_rate=10.0)
    async with running(host, settings) as adapter, players(ngircd, "anna") as (anna,):
        await asyncio.sleep(0.5)  # let the bucket fill up again after joining
        mark = len(anna.messages)
        sent_before = adapter.sent
        lines = [f"line {n:02d}" for n in range(23)]
        for text in lines:  # one batch each (a batch is packed into as few lines as fit)
            await adapter.deliver([Public(CHANNEL_ID, text)])
        await anna.wait_for(lambda m: m.text == "line 22", since=mark)
        got = [m for m in anna.channel_lines(CHANNEL, mark) if m.nick == BOT]
        assert [m.text for m in got] == lines
        assert adapter.sent - sent_before == 23
        first, last = got[0].when, got[-1].when
        # The burst goes out at once, then 10 lines per second: the other 20 lines take at
        # least 1.7 s. (Only the lower bound is a property of the flood control: a busy
        # machine may deliver later, and the test client may read several lines at once,
        # so gaps between arrivals say nothing.)
        assert last - first >= 1.7, last - first


async def test_private_text_splitting_and_no_answer_to_notices(ngircd: NgircdServer) -> None:
    host = StandInHost()
    async with running(host, settings_for(ngircd)) as adapter, players(ngircd, "anna") as (anna,):
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: "you are" in m.text)
        user = f"irc:{NETWORK}:anna"
        long_text = " ".join(["♣Q♠10♥A"] * 120)  # ~ 1,900 bytes
        mark = len(anna.messages)
        cards = (*(Choice(f"♦{n}", f"/play D{n}") for n in (9, 10)), Choice("re", "/re"))
        await adapter.deliver(
            [
                Private(
                    CHANNEL_ID, user, long_text + "\nsecond line: 1:♦9  2:♦10", cards, kind="info"
                )
            ]
        )
        await anna.wait_for(lambda m: "second line" in m.text, since=mark)
        notes = anna.notices(mark)
        assert all(len(t.encode()) <= 400 for t in notes)
        assert len(notes) == 5  # the second line packed onto the last piece of the first
        assert " ".join(notes).replace(" · second line", " second line").startswith(long_text)
        # choices the text shows already are not repeated; the rest as commands to type
        assert notes[-1].endswith(" · second line: 1:♦9  2:♦10  [!re]")
        # what reaches the host, and what does not
        count = len(host.inputs)
        await anna.say(BOT, "2")
        await anna.say(CHANNEL, "2")
        await anna.say(CHANNEL, "!play 3")
        await anna.say(CHANNEL, "/play ♣Q")
        await anna.send(f"NOTICE {BOT} :!join")  # a NOTICE is never answered or handled
        await anna.say(CHANNEL, "just chatting here")  # chat with spaces never reaches the host
        await anna.say(CHANNEL, "\x01ACTION plays along\x01")  # /me neither
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: "you are" in m.text, since=mark)
        texts = [(i.text, i.dm, i.channel) for i in host.inputs[count:]]
        assert texts == [
            ("2", True, ""),
            ("2", False, CHANNEL_ID),
            ("/play 3", False, CHANNEL_ID),
            ("/play ♣Q", False, CHANNEL_ID),
            ("/whoami", False, CHANNEL_ID),
        ]
        assert not [m for m in anna.messages[mark:] if m.command == "NOTICE" and "!join" in m.text]


async def test_admin_by_list_and_by_channel_operator(ngircd: NgircdServer) -> None:
    host = StandInHost()
    # carl creates #ops before the bot joins it, so carl is operator there
    carl = IrcClient(ngircd.host, ngircd.port, "carl")
    await carl.connect()
    await carl.join("#ops")
    settings = settings_for(ngircd, channels=(CHANNEL, "#Ops"), admins=("Anna",))
    try:
        async with running(host, settings), players(ngircd, "anna", "ben") as (anna, ben):
            await carl.join(CHANNEL)

            async def whoami(client: IrcClient, target: str) -> str:
                mark = len(client.messages)
                await client.say(target, "!whoami")
                reply = await client.wait_for(lambda m: "you are" in m.text, since=mark)
                return reply.text

            assert "admin=True dm=False" in await whoami(anna, CHANNEL)
            assert "admin=True dm=True" in await whoami(anna, BOT)
            assert "admin=False" in await whoami(ben, CHANNEL)
            assert "admin=True" in await whoami(carl, "#ops")
            assert "admin=False" in await whoami(carl, CHANNEL)
            assert "admin=False" in await whoami(carl, BOT)
            # channel ids are lowercased
            assert any(i.channel == f"irc:{NETWORK}:#ops" for i in host.inputs)
            # an IRC operator gives ben +o in #doko: the adapter follows the mode change
            oper = IrcClient(ngircd.host, ngircd.port, "oper")
            await oper.connect()
            await oper.send(f"OPER {OPER_NAME} {OPER_PASSWORD}")
            await oper.wait_for(lambda m: m.command == "381")
            await oper.send(f"MODE {CHANNEL} +o ben")
            await ben.wait_for(lambda m: m.command == "MODE" and "+o" in m.params)
            await asyncio.sleep(0.1)
            assert "admin=True" in await whoami(ben, CHANNEL)
            await oper.close()
    finally:
        await carl.close()


async def test_unsolicited_events_reach_irc_through_the_listener(ngircd: NgircdServer) -> None:
    host = StandInHost()
    async with running(host, settings_for(ngircd)), players(ngircd, "anna") as (anna,):
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: "you are" in m.text)
        assert host.listener is not None
        await host.listener(
            [
                Public(CHANNEL_ID, "anna did not play in time; a bot plays for her."),
                Private(CHANNEL_ID, f"irc:{NETWORK}:anna", "You were replaced.", kind="info"),
                Public("discord:123", "not for IRC"),
                Private("discord:123", "discord:42", "not for IRC either"),
            ]
        )
        await anna.wait_for(lambda m: m.command == "NOTICE" and m.text == "You were replaced.")
        lines = [m.text for m in anna.channel_lines(CHANNEL) if m.nick == BOT]
        assert lines == ["anna did not play in time; a bot plays for her."]


async def test_password_from_environment_is_used_and_never_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "s3cret-Pa55word"
    require_ngircd()
    caplog.set_level(logging.DEBUG)
    with NgircdServer(password=secret) as server:
        monkeypatch.setenv(PASSWORD_ENV, secret)
        async with running(StandInHost(), settings_for(server)) as adapter:
            assert adapter.registrations == 1
        # without the password the server refuses and the adapter keeps retrying
        monkeypatch.setenv(PASSWORD_ENV, "wrong")
        adapter = IrcAdapter(StandInHost(), settings_for(server))
        task = asyncio.create_task(adapter.run())
        with pytest.raises(TimeoutError):
            await adapter.wait_ready(1.0)
        await adapter.stop()
        await asyncio.wait_for(task, 5)
        assert adapter.registrations == 0
    logged = "\n".join(f"{record.getMessage()} {record.args!r}" for record in caplog.records)
    assert "PASS" in logged or "connecting" in logged  # the log was captured at DEBUG level
    assert secret not in logged
    assert "wrong" not in logged


class BrokenHost(StandInHost):
    """A host that breaks on ``/boom`` (the real one never raises; the adapter copes anyway)."""

    async def handle(self, inp: Input) -> list[Event]:
        if inp.text == "/boom":
            raise RuntimeError("boom")
        if inp.text == "/garbage":
            return ["not an event"]  # type: ignore[list-item]
        return await super().handle(inp)


async def test_a_failing_host_does_not_stop_the_adapter(
    ngircd: NgircdServer, caplog: pytest.LogCaptureFixture
) -> None:
    host = BrokenHost()
    async with running(host, settings_for(ngircd)), players(ngircd, "anna") as (anna,):
        await anna.say(CHANNEL, "!boom")
        await anna.say(CHANNEL, "!garbage")
        await anna.say(CHANNEL, "!whoami")
        await anna.wait_for(lambda m: "you are" in m.text)
    assert any("host failed" in r.getMessage() for r in caplog.records)


# -- the real host ---------------------------------------------------------------------------


def seated(n: int) -> Callable[[IrcMessage], bool]:
    return lambda message: message.nick == BOT and f"({n}/4)" in message.text


@pytest.mark.parametrize("seed", [11, 12])
async def test_full_game_with_the_real_service(ngircd: NgircdServer, seed: int) -> None:
    service = Service.in_memory(seed=seed, bots=False)
    try:
        await play_full_game(ngircd, service, is_game_over)
    finally:
        await service.close()
    journal = service.store.load_journal(CHANNEL_ID)
    assert any("/play" in line for line in journal)


async def test_run_irc_with_computer_players(ngircd: NgircdServer) -> None:
    """``run_irc`` runs the service's life; the computer players' moves (unsolicited events
    from the service's background tasks) reach the channel through the listener."""
    service = Service.in_memory(seed=5)
    async with players(ngircd, "anna") as (anna,):
        mark = len(anna.messages)
        task = asyncio.create_task(run_irc(service, settings_for(ngircd)))
        try:
            await anna.wait_for(lambda m: m.command == "JOIN" and m.nick == BOT, since=mark)
            assert service.listener is not None
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            for n in range(2, 5):
                await anna.say(CHANNEL, "!join bot random")
                await anna.wait_for(seated(n))
            await bare_cards_on(anna)
            await anna.say(CHANNEL, "!start")
            prompts = await play_until(anna, is_game_over, style=0, rng=random.Random(1))
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        assert service.listener is None  # run_irc closed the service
        lines = [m.text for m in anna.channel_lines(CHANNEL) if m.nick == BOT]
        assert len(played_cards(lines)) == 48
        assert len(prompts) == 13  # the reservation question and twelve turns
        await anna.wait_for(lambda m: m.command == "QUIT" and m.nick == BOT)


async def test_nick_change_mid_game_with_the_real_service(ngircd: NgircdServer) -> None:
    service = Service.in_memory(seed=21, bots=False)
    try:
        async with (
            running(service, settings_for(ngircd)),
            players(ngircd, "anna", "ben", "carl", "dora") as clients,
        ):
            for client in clients:
                await client.say(CHANNEL, "!join")
                await client.wait_for(joined(client.nick))
            await bare_cards_on(clients[0])
            await clients[0].say(CHANNEL, "!start")
            rng = random.Random(8)
            # ben renames after his fifth prompt, then answers it and plays on as ben_x
            results = await asyncio.gather(
                *(
                    play_until(
                        c, is_game_over, style=i, rng=rng, rename_after=5 if i == 1 else None
                    )
                    for i, c in enumerate(clients)
                )
            )
            ben = clients[1]
            assert ben.nick == "ben_x"
            assert len(results[1]) == 13
            prompts = [
                m
                for m in ben.messages
                if m.command == "NOTICE" and m.nick == BOT and m.text in results[1]
            ]
            targets = [m.target for m in prompts]  # the notices among them (not the cues)
            assert targets == sorted(targets) and {"ben", "ben_x"} == set(targets)
            lines = [m.text for m in clients[0].channel_lines(CHANNEL) if m.nick == BOT]
            plays = played_cards(lines)
            # the channel uses the current nick from the rename on (issue 13, defect 7)
            assert sum(who == "ben" for who, _ in plays) == 3
            assert sum(who == "ben_x" for who, _ in plays) == 9
            # the host still knows ben_x as the player of that seat
            mark = len(ben.messages)
            await ben.say(BOT, "!hand")
            reply = await ben.wait_for(lambda m: m.command == "NOTICE", since=mark)
            # seated (not "not seated"); the game is over, so no empty "Your hand:"
            assert reply.target == "ben_x" and "No game is running" in reply.text
    finally:
        await service.close()


async def test_game_goes_on_after_the_bot_was_killed(ngircd: NgircdServer) -> None:
    service = Service.in_memory(seed=31, bots=False)
    try:
        async with (
            running(service, settings_for(ngircd)) as adapter,
            players(ngircd, "anna", "ben", "carl", "dora") as clients,
        ):
            for client in clients:
                await client.say(CHANNEL, "!join")
                await client.wait_for(joined(client.nick))
            oper = IrcClient(ngircd.host, ngircd.port, "oper")
            await oper.connect()
            await oper.send(f"OPER {OPER_NAME} {OPER_PASSWORD}")
            await oper.wait_for(lambda m: m.command == "381")
            carl = clients[2]

            async def kill_the_bot(prompts: int) -> None:
                """Before carl answers his fourth prompt an IRC operator kills the bot."""
                if prompts != 4:
                    return
                mark = len(carl.messages)
                await oper.send(f"KILL {BOT} :testing reconnects")
                await carl.wait_for(lambda m: m.command == "QUIT" and m.nick == BOT, since=mark)
                await carl.wait_for(lambda m: m.command == "JOIN" and m.nick == BOT, since=mark)

            await bare_cards_on(clients[0])
            await clients[0].say(CHANNEL, "!start")
            rng = random.Random(2)
            await asyncio.gather(
                *(
                    play_until(
                        c,
                        is_game_over,
                        style=i,
                        rng=rng,
                        before_answer=kill_the_bot if c is carl else None,
                    )
                    for i, c in enumerate(clients)
                )
            )
            assert adapter.registrations == 2
            lines = [m.text for m in clients[0].channel_lines(CHANNEL) if m.nick == BOT]
            assert len(played_cards(lines)) == 48
            await oper.close()
    finally:
        await service.close()


async def test_run_irc_beside_another_adapter(ngircd: NgircdServer) -> None:
    """As ``dokobot run`` calls it: the caller started the service and passes the restored
    events; an existing listener (another adapter) keeps getting every event."""
    host = StandInHost()
    seen: list[Event] = []

    async def other_adapter(events: list[Event]) -> None:
        seen.extend(events)

    host.listener = other_adapter
    restored = await host.start()
    async with players(ngircd, "anna") as (anna,):
        mark = len(anna.messages)
        task = asyncio.create_task(run_irc(host, settings_for(ngircd), restored=restored))
        try:
            await anna.wait_for(lambda m: m.text == "The game at this table goes on.", since=mark)
            assert host.listener is not None and host.listener is not other_adapter
            event = Public(CHANNEL_ID, "A computer player plays ♣Q")
            await host.listener([event])
            await anna.wait_for(lambda m: m.text == event.text, since=mark)
            assert seen == [event]
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    assert host.listener is other_adapter
    assert (host.started, host.closed) == (1, 0)
