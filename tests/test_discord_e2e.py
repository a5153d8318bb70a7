"""End to end: the real Discord adapter (real discord.py) against a fake Discord server.

Four members play a whole game only through slash commands and buttons; one of them does not
accept DMs and plays with the "My hand" button. After ten cards the client is replaced by a
new one (with the real host, the host too, restoring from the same store) and the buttons of
the old messages must keep working. The same game runs once against the real host
(:class:`dokobot.host.service.Service`) and once against a tiny stand-in, which keeps the
adapter's own behaviour testable when the host changes. Smaller tests cover deferral, errors,
pushed events, sharding, the token and long texts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dokobot.adapters.discord import (
    TOKEN_ENV,
    DiscordAdapter,
    ServiceLike,
    ShardedDiscordAdapter,
    resolve_token,
    run_discord,
)
from dokobot.adapters.discord.interaction import _Turns
from dokobot.host.contract import BareHost
from dokobot.host.events import Choice, Event, Input, Private, Public
from dokobot.host.options import ChatDefaults
from dokobot.host.router import Router
from dokobot.host.service import Service

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from discord_fake import (
    EPHEMERAL,
    FakeDiscord,
    FakeUser,
    Interaction,
    Message,
    plain,
    running,
    unescape,
)

Listener = Callable[[list[Event]], Awaitable[None]]
Swap = Callable[[ServiceLike], Awaitable[ServiceLike]]


# -- a stand-in for the host service ------------------------------------------------------------

SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
RANKS = ("9", "J", "Q", "K", "10", "A")
EYES = {"9": 0, "J": 2, "Q": 3, "K": 4, "10": 10, "A": 11}


def _label(card: str) -> str:
    return SUITS[card[0]] + card[1:]


@dataclass
class _Table:
    players: list[tuple[str, str]] = field(default_factory=list)  # (user, name)
    hands: dict[str, list[str]] = field(default_factory=dict)
    phase: str = "joining"
    turn: int = 0
    trick: list[tuple[int, str]] = field(default_factory=list)
    eyes: dict[str, int] = field(default_factory=dict)
    tricks: int = 0


class StandInService(BareHost):
    """A tiny scripted game with the host's interface (plain suits only, no trumps)."""

    def __init__(self, seed: int = 1) -> None:
        self.listener: Listener | None = None
        self.tables: dict[str, _Table] = {}
        self.rng = random.Random(seed)

    async def start(self) -> list[Event]:
        return [
            Public(ch, "The game continues.")
            for ch, t in self.tables.items()
            if t.phase in ("reservations", "playing")
        ]

    async def close(self) -> None:
        return None

    async def handle(self, inp: Input) -> list[Event]:
        table = self.tables.setdefault(inp.channel, _Table())
        word, _, arg = inp.text.lstrip("/").partition(" ")
        seat = next((i for i, (u, _) in enumerate(table.players) if u == inp.user), None)

        def error(message: str) -> list[Event]:
            return [Private(inp.channel, inp.user, message, reply=True, kind="error")]

        if word == "join":
            if seat is not None or len(table.players) >= 4:
                return error("You cannot join.")
            table.players.append((inp.user, inp.name))
            return [Public(inp.channel, f"{inp.name} joins ({len(table.players)}/4).")]
        if word == "hand":
            if seat is None or not table.hands:
                return error("You have no cards.")
            return [self._hand(inp.channel, table, seat, reply=True)]
        if word == "start":
            if len(table.players) < 4 or table.phase not in ("joining", "over"):
                return error("Four players are needed.")
            deck = [s + r for s in SUITS for r in RANKS] * 2
            self.rng.shuffle(deck)
            table.hands = {
                u: sorted(deck[i * 12 : i * 12 + 12]) for i, (u, _) in enumerate(table.players)
            }
            table.phase, table.turn, table.tricks = "reservations", 0, 0
            table.eyes = {u: 0 for u, _ in table.players}
            out: list[Event] = [Public(inp.channel, "A new game starts. Anna leads.")]
            out += [self._hand(inp.channel, table, i) for i in range(4)]
            out.append(self._prompt(inp.channel, table))
            return out
        if seat is None:
            return error("You are not at this table.")
        if word in ("healthy", "reservation"):
            if table.phase != "reservations" or seat != table.turn:
                return error("It is not your turn to declare.")
            out = [Public(inp.channel, f"{inp.name}: {word}")]
            table.turn += 1
            if table.turn == 4:
                table.phase, table.turn = "playing", 0
                out.append(Public(inp.channel, "A normal game."))
            out.append(self._prompt(inp.channel, table))
            return out
        if word == "play":
            if table.phase != "playing" or seat != table.turn:
                return error("It is not your turn.")
            card = arg.strip().upper()
            if card not in self._legal(table, seat):
                return error(f"You cannot play {arg}.")
            table.hands[inp.user].remove(card)
            table.trick.append((seat, card))
            out = [Public(inp.channel, f"{inp.name} plays {_label(card)}.")]
            if len(table.trick) < 4:
                table.turn = (seat + 1) % 4
            else:
                led = table.trick[0][1][0]
                winner = max(
                    (t for t in table.trick if t[1][0] == led), key=lambda t: RANKS.index(t[1][1:])
                )[0]
                eyes = sum(EYES[c[1:]] for _, c in table.trick)
                user, name = table.players[winner]
                table.eyes[user] += eyes
                table.trick, table.turn = [], winner
                table.tricks += 1
                out.append(Public(inp.channel, f"{name} wins the trick ({eyes})."))
                if table.tricks == 12:
                    table.phase = "over"
                    result = ", ".join(f"{n} {table.eyes[u]}" for u, n in table.players)
                    out.append(Public(inp.channel, f"Game over. Eyes: {result}."))
                    return out
            out.append(self._prompt(inp.channel, table))
            return out
        return error(f"Unknown command {inp.text}")

    def _legal(self, table: _Table, seat: int) -> list[str]:
        hand = table.hands[table.players[seat][0]]
        if table.trick:
            follow = [c for c in hand if c[0] == table.trick[0][1][0]]
            if follow:
                return follow
        return list(hand)

    def _hand(self, channel: str, table: _Table, seat: int, reply: bool = False) -> Private:
        user = table.players[seat][0]
        cards = " ".join(_label(c) for c in table.hands[user])
        choices: tuple[Choice, ...] = ()
        if table.phase == "playing" and seat == table.turn:
            choices = tuple(Choice(_label(c), f"/play {c}") for c in self._legal(table, seat))
        return Private(channel, user, f"Your hand: {cards}", choices, reply=reply, kind="hand")

    def _prompt(self, channel: str, table: _Table) -> Private:
        user = table.players[table.turn][0]
        if table.phase == "reservations":
            declare = (Choice("Healthy", "/healthy"), Choice("Reservation", "/reservation"))
            return Private(channel, user, "Healthy or reservation?", declare, kind="reservation")
        legal = self._legal(table, table.turn)
        cards = tuple(Choice(_label(c), f"/play {c}") for c in legal)
        return Private(channel, user, "Your turn.", cards, kind="turn")


class Recorder(BareHost):
    """Wraps a service and records what goes in and what comes out."""

    def __init__(self, inner: ServiceLike) -> None:
        self.inner = inner
        self.events: list[Event] = []
        self.inputs: list[tuple[Input, list[Event]]] = []
        self._listener: Listener | None = None

    @property
    def boards(self) -> bool:
        """The inner service's board switch (the adapter turns it on)."""
        return bool(getattr(self.inner, "boards", False))

    @boards.setter
    def boards(self, value: bool) -> None:
        if hasattr(self.inner, "boards"):
            self.inner.boards = value

    def table_defaults(self, defaults: ChatDefaults) -> None:
        self.inner.table_defaults(defaults)  # the adapter's, for the inner service's tables

    @property
    def listener(self) -> Listener | None:
        return self._listener

    @listener.setter
    def listener(self, value: Listener | None) -> None:
        self._listener = value
        self.inner.listener = None if value is None else self._pushed

    async def _pushed(self, events: list[Event]) -> None:
        self.events += events
        if self._listener is not None:
            await self._listener(events)

    async def handle(self, inp: Input) -> list[Event]:
        events = await self.inner.handle(inp)
        self.inputs.append((inp, events))
        self.events += events
        return events

    async def start(self) -> list[Event]:
        events = await self.inner.start()
        self.events += events
        return events

    async def close(self) -> None:
        await self.inner.close()


# -- helpers ------------------------------------------------------------------------------------


def assert_shown_in_order(fake: FakeDiscord, texts: list[str]) -> None:
    """Every text is in the channel, in this order.

    With boards, the texts of a running game go onto its board (the latest few, edits
    coalesced): then the channel's messages show the texts before and after the games, the
    board shows how each game started, and the last message is the result."""
    boards = [m for m in fake.channel_messages() if m.embeds]
    if boards:
        news = ["\n".join(unescape(str(e)) for e in m.embed_history[0]) for m in boards]
        starts = [t for t in texts if t.startswith("Game ") and " deals" in t]
        assert starts and all(any(t in n for n in news) for t in starts), starts
        return
    shown = "\n".join(plain(m.content) for m in fake.channel_messages())
    at = 0
    for text in texts:
        found = shown.find(text, at)
        assert found >= 0, f"not in the channel (in order): {text!r}"
        at = found + len(text)


def make_client(service: ServiceLike, **options: Any) -> DiscordAdapter:
    options.setdefault("guild_ready_timeout", 0.05)
    options.setdefault("board_interval", 0.05)
    return DiscordAdapter(service, **options)


def is_choice(custom_id: str) -> bool:
    return not custom_id.endswith(":hand")


class Driver:
    """Plays through the fake: finds each new prompt and clicks one of its buttons."""

    def __init__(self, fake: FakeDiscord, service: Recorder) -> None:
        self.fake = fake
        self.service = service
        self.stack = contextlib.AsyncExitStack()
        self.client: DiscordAdapter | None = None
        self.cursor = 0
        self.event_cursor = 0
        self.plays = 0
        self.hand_clicks: list[Interaction] = []
        self.background: list[Callable[[], Awaitable[None]]] = []
        self.by_dm: set[int] = set()
        self.chose_dm: list[FakeUser] = []
        """Users who get their prompts by DM (``/prompts dm``, DMs not blocked)."""

    async def connect(self) -> DiscordAdapter:
        client = make_client(self.service)
        await self.stack.enter_async_context(running(client))
        self.client = client
        return client

    async def restart(self, swap: Swap) -> DiscordAdapter:
        """Stop the client, let ``swap`` replace the service, connect a new client."""
        await self.stack.aclose()
        self.stack = contextlib.AsyncExitStack()
        self.service.inner = await swap(self.service.inner)
        client = await self.connect()
        for user in self.chose_dm:  # a service without a store forgets the choice
            await self.slash(user, "prompts", {"where": "dm"})
        self.cursor = len(self.fake.calls)  # what the restore sent is not a new prompt
        return client

    async def close(self) -> None:
        await self.stack.aclose()

    async def settle(self, interaction: Interaction) -> Interaction:
        """Wait until the client answered and finished everything the action caused."""
        await self.fake.wait_answered(interaction)
        assert self.client is not None
        await asyncio.wait_for(self.client.wait_idle(), 5)
        for idle in self.background:  # e.g. computer players answering through the listener
            await asyncio.wait_for(idle(), 10)
            await asyncio.wait_for(self.client.wait_idle(), 5)
        return interaction

    async def slash(
        self, user: FakeUser, name: str, options: Mapping[str, str | int | bool] | None = None
    ) -> Interaction:
        return await self.settle(await self.fake.slash(user, name, options))

    async def click(self, user: FakeUser, message: Message, custom_id: str) -> Interaction:
        return await self.settle(await self.fake.click(user, message, custom_id))

    def _owner(self, message: Message) -> FakeUser | None:
        owner_id = message.dm_user
        if owner_id is None and message.interaction_id is not None:
            owner_id = self.fake.interactions[message.interaction_id].user.id
        return next((u for u in self.fake.users if u.id == owner_id), None)

    def next_prompt(self) -> tuple[FakeUser, Message | None] | None:
        """The newest prompt with choices since the last look: (user, message or None).

        None as message: the DM with the prompt was refused (the user blocks DMs)."""
        prompt: tuple[FakeUser, Message | None] | None = None
        for call in self.fake.calls[self.cursor :]:
            payload = call.response if isinstance(call.response, dict) else {}
            if call.path.endswith("/callback"):
                payload = payload.get("resource", {}).get("message") or {}
            body = call.body if isinstance(call.body, dict) else {}
            if call.status == 403 and call.method == "POST" and body.get("components"):
                dm = int(call.path.split("/")[2])
                user = next(u for u in self.fake.users if self.fake.dm_channels.get(u.id) == dm)
                prompt = (user, None)
            elif call.status == 200 and payload.get("id") and payload.get("components"):
                message = self.fake.messages.get(int(payload["id"]))
                if message is None or not any(is_choice(c) for c in message.custom_ids):
                    continue
                if message.dm_user is None and not message.ephemeral:
                    continue
                owner = self._owner(message)
                if owner is not None:
                    prompt = (owner, message)
        self.cursor = len(self.fake.calls)
        # a prompt that no message brought: for somebody whose prompts stay in the channel
        # (the board names him) or whose DMs are blocked (not even tried again for 10 minutes)
        for event in self.service.events[self.event_cursor :]:
            if isinstance(event, Private) and event.choices and not event.reply:
                user = next(u for u in self.fake.users if f"discord:{u.id}" == event.user)
                if prompt is None and user.id not in self.by_dm:
                    prompt = (user, None)
        self.event_cursor = len(self.service.events)
        return prompt

    def table_message(self, oldest: bool = False) -> Message:
        """A public message with the "My hand" button (the newest, or the oldest)."""
        found = [m for m in self.fake.channel_messages() if m.button(lambda c: c.endswith(":hand"))]
        assert found, "no public message has a My hand button"
        return found[0] if oldest else found[-1]

    async def my_hand(self, user: FakeUser, oldest: bool = False) -> Interaction:
        message = self.table_message(oldest)
        custom_id = message.button(lambda c: c.endswith(":hand"))
        assert custom_id is not None
        interaction = await self.click(user, message, custom_id)
        self.hand_clicks.append(interaction)
        return interaction

    async def answer(self, user: FakeUser, message: Message | None) -> None:
        if message is None:  # no DM: "My hand" shows the prompt ephemerally
            interaction = await self.my_hand(user)
            prompts = [
                m for m in interaction.ephemeral_messages if any(map(is_choice, m.custom_ids))
            ]
            assert prompts, f"My hand showed {user.name} no buttons"
            message = prompts[-1]
        choice = (
            message.button(lambda c: c.endswith(":healthy"))
            or message.button(lambda c: ":play " in c)
            or message.button(is_choice)
        )
        assert choice is not None
        before = len(self.service.inputs)
        await self.click(user, message, choice)
        inp, events = self.service.inputs[before]
        errors = [e for e in events if isinstance(e, Private) and e.kind == "error"]
        assert not errors, (inp, errors)
        if ":play " in choice:
            self.plays += 1


# -- the game -------------------------------------------------------------------------------------


def answered_in(interaction: Interaction, text: str) -> list[Message]:
    """The messages of the answer to ``interaction`` (not the message a button sits on) that
    show ``text``: one message, a text file, or the answer's messages together (a text longer
    than one Discord message is sent in several)."""
    answer = [
        m
        for m in [interaction.original, *interaction.followups]
        if m is not None and m.interaction_id == interaction.id
    ]
    whole = [
        m
        for m in answer
        if any(text in plain(h) for h in m.history)
        or text in [data.decode() for name, data in m.files if name.endswith(".txt")]
    ]
    if whole:
        return whole
    return answer if text in "\n".join(plain(m.content) for m in answer) else []


async def play_full_game(fake: FakeDiscord, inner: ServiceLike, swap: Swap) -> None:
    """Four members play a game; after ten cards the client (and, with ``swap``, the service)
    restarts and the game goes on with the buttons of the old messages."""
    service = Recorder(inner)
    anna, ben, carl, dora = fake.users
    fake.blocked_dms.add(carl.id)
    driver = Driver(fake, service)
    await driver.connect()
    try:
        # the slash commands were uploaded with German names and descriptions
        by_name = {c["name"]: c for c in fake.commands}
        german = {
            "healthy": "gesund",
            "reservation": "vorbehalt",
            "wedding": "hochzeit",
            "no90": "keine90",
            "black": "schwarz",
        }
        for name, local in german.items():
            assert by_name[name]["name_localizations"]["de"] == local
        for command in fake.commands:
            assert command["description_localizations"]["de"], command["name"]
            for option in command["options"]:
                assert option["description_localizations"]["de"], (command["name"], option)

        for user in fake.users:
            await driver.slash(user, "join")
        for user in (anna, ben, carl):  # Dora keeps the default: prompts in the channel
            await driver.slash(user, "prompts", {"where": "dm"})
        driver.by_dm = {anna.id, ben.id}
        driver.chose_dm = [anna, ben, carl]
        await driver.slash(anna, "start")

        # a slash command's private answer is ephemeral
        hand = await driver.slash(ben, "hand")
        assert hand.response_type == 4 and hand.response_flags & EPHEMERAL
        bad = await driver.slash(dora, "play", {"card": "XX"})
        assert bad.response_flags & EPHEMERAL

        restarted = False
        while (prompt := driver.next_prompt()) is not None:
            user, message = prompt
            if not restarted and driver.plays >= 10 and message is not None:
                # a new client object: old buttons (this DM, the table messages) keep working
                restarted = True
                await driver.restart(swap)
                old = await driver.my_hand(ben, oldest=True)
                assert old.response_type == 6 and old.ephemeral_messages
                assert all(m.flags & EPHEMERAL for m in old.ephemeral_messages)
            if driver.plays == 1 and message is not None:
                suggestions = await fake.complete(user, "play", "card", "")
                assert suggestions, "no card suggestions for /play"
            await driver.answer(user, message)
        assert restarted
        assert driver.plays == 48
        assert fake.identifies == 2

        # long private answers: a code block, or a file for a long export; still ephemeral
        help_reply = await driver.slash(dora, "help")
        export = await driver.slash(anna, "export")
        for answer in (help_reply, export):
            assert answer.response_flags & EPHEMERAL
            assert all(m.ephemeral for m in answer.ephemeral_messages)
    finally:
        await driver.close()

    # nothing went wrong on the Discord side
    assert fake.violations == []
    assert fake.unknown_routes == []
    assert fake.heartbeats > 0

    # Carl blocks DMs and Dora's prompts stay in the channel: messages that mention them
    # notified them (and were deleted once they moved), and they played via My cards
    for user in (carl, dora):
        pings = [m for m in fake.notified(user) if m.dm_user is None]
        assert pings and all(user.mention in m.history[0] for m in pings)
        assert any(i.user is user for i in driver.hand_clicks)
    assert fake.refused_dms(carl)
    assert not fake.dms(dora)

    # every private answer to a user's own input was ephemeral (flags 64)
    for inp, events in service.inputs:
        for event in events:
            if isinstance(event, Private) and event.reply and event.user == inp.user:
                sent = [
                    m
                    for i in fake.interactions.values()
                    if f"discord:{i.user.id}" == inp.user
                    for m in answered_in(i, event.text)
                ]
                assert sent, event
                assert all(m.flags & EPHEMERAL for m in sent), event

    # the channel shows every public event, in order, the plays and the final result
    public_texts = [e.text for e in service.events if isinstance(e, Public)]
    assert_shown_in_order(fake, public_texts)
    calls = [m for m in fake.channel_messages() if "<@" in m.content]  # without a board
    assert len(fake.channel_messages()) - len(calls) < len(public_texts)  # one per batch
    assert public_texts[-1] in plain(fake.channel_messages()[-1].content)

    # no hand ever appears in public, and no card button either
    hands = {e.text for e in service.events if isinstance(e, Private) and e.kind == "hand"}
    assert hands
    for m in fake.channel_messages():
        for content in m.history:
            assert not any(h in plain(content) for h in hands), content
        # only table buttons (My cards, the lobby's, the result's): none of a prompt
        assert not any(":play " in c or c.count(":") > 2 for c in m.custom_ids), m.custom_ids

    # the owner is an admin for the host, the others are not
    admins = {inp.user for inp, _ in service.inputs if inp.admin}
    assert admins == {f"discord:{anna.id}"}


async def keep(service: ServiceLike) -> ServiceLike:
    """A restart of the client only: the same service goes on."""
    return service


async def test_full_game_with_stand_in(fake: FakeDiscord) -> None:
    await play_full_game(fake, StandInService(seed=3), keep)


async def reopen(service: ServiceLike) -> ServiceLike:
    """A restart of the whole process: a new host restores the tables from the same store."""
    assert isinstance(service, Service)
    await service.close()
    return Service(Router(seed=7), store=service.store)


async def test_full_game_with_real_host(fake: FakeDiscord) -> None:
    service = Service.in_memory(seed=7)
    try:
        await play_full_game(fake, service, reopen)
    finally:
        await service.close()
    assert "Winner" in fake.channel_messages()[-1].content or "Gewinner" in (
        fake.channel_messages()[-1].content
    )
    # one board for the game, one more after the restart (it reads like a table, not a log)
    boards = [m for m in fake.channel_messages() if m.embeds and m.button(lambda c: ":hand" in c)]
    assert len(boards) == 2 and all(b.edits > 0 for b in boards)
    during = [m for m in fake.channel_messages() if m.id > boards[0].id]
    assert len(during) <= 5, [m.content[:40] for m in during]


# -- focused behaviour ------------------------------------------------------------------------


class ScriptedService(BareHost):
    """Answers every input with ``script(input)``, optionally slowly or by raising."""

    def __init__(
        self,
        script: Callable[[Input], list[Event]],
        *,
        delay: float = 0.0,
        fail: bool = False,
    ) -> None:
        self.script = script
        self.delay = delay
        self.fail = fail
        self.listener: Listener | None = None
        self.inputs: list[Input] = []
        self.started = 0

    async def handle(self, inp: Input) -> list[Event]:
        self.inputs.append(inp)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise RuntimeError("boom")
        return self.script(inp)

    async def start(self) -> list[Event]:
        self.started += 1
        return []

    async def close(self) -> None:
        return None


async def settle(
    fake: FakeDiscord, client: DiscordAdapter, interaction: Interaction
) -> Interaction:
    await fake.wait_answered(interaction)
    await asyncio.wait_for(client.wait_idle(), 5)
    return interaction


def hand_button(message: Message) -> str:
    custom_id = message.button(lambda c: c.endswith(":hand"))
    assert custom_id is not None
    return custom_id


async def test_slow_host_is_deferred_then_followed_up(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    hand = (Choice("♣Q", "/play CQ"),)

    def script(inp: Input) -> list[Event]:
        if inp.text == "/join":
            return [Public(ch, f"{inp.name} joins")]
        if inp.text == "/hand":
            return [Private(ch, inp.user, "Your hand: ♣Q", hand, reply=True, kind="hand")]
        return [Public(ch, f"{inp.name} plays ♣Q")]

    anna = fake.users[0]
    service = ScriptedService(script, delay=0.3)
    async with running(make_client(service, defer_after=0.05)) as client:
        assert isinstance(client, DiscordAdapter)
        join = await settle(fake, client, await fake.slash(anna, "join"))
        assert join.response_type == 5 and join.response_flags & EPHEMERAL
        assert join.original is not None and join.original.deleted  # nothing private to say
        assert [m.content for m in fake.channel_messages()] == ["Anna joins"]

        slash_hand = await settle(fake, client, await fake.slash(anna, "hand"))
        assert slash_hand.response_type == 5
        assert slash_hand.original is not None
        assert slash_hand.original.content == "Your hand: ♣Q"
        assert slash_hand.original.ephemeral
        assert slash_hand.original.custom_ids == [f"doko:{fake.channel_id}:play CQ"]

        table = fake.channel_messages()[-1]
        click = await settle(fake, client, await fake.click(anna, table, hand_button(table)))
        assert click.response_type == 6  # deferred update, the table message is untouched
        [panel] = click.followups  # "My cards": the hand, its buttons, until when it is kept
        assert panel.content.startswith("Your hand: ♣Q\n*Kept up to date until ")
        assert panel.ephemeral
        assert table.custom_ids == [hand_button(table)]

        prompt = click.followups[0]
        play = await settle(fake, client, await fake.click(anna, prompt, prompt.custom_ids[0]))
        assert play.response_type == 6
        assert prompt.custom_ids == []  # the used prompt lost its buttons
        assert fake.channel_messages()[-1].content == "Anna plays ♣Q"
    assert fake.violations == []


async def test_exceptions_become_an_apology(fake: FakeDiscord, caplog: Any) -> None:
    ben = fake.users[1]
    ben.locale = "de"
    service = ScriptedService(lambda inp: [], fail=True)
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        failed = await settle(fake, client, await fake.slash(ben, "join"))
        assert failed.response_flags & EPHEMERAL
        assert failed.original is not None and "schiefgelaufen" in failed.original.content
    assert "boom" in caplog.text
    assert fake.violations == []


async def test_pushed_events_dms_and_the_fallback(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    anna, ben, carl, _ = fake.users
    fake.blocked_dms.add(carl.id)

    def script(inp: Input) -> list[Event]:
        if inp.text == "/hand":
            return [Private(ch, inp.user, "Your hand: ♣Q ♠A", reply=True, kind="hand")]
        if inp.text == "/option language de":
            return [Public(ch, "Die Sprache ist jetzt Deutsch.", lang="de")]
        return [Public(ch, f"{inp.name}: {inp.text}")]

    service = ScriptedService(script)
    turn = (Choice("♣Q", "/play CQ"), Choice("Re", "/re"))
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        assert service.listener is not None
        for user in (ben, carl):
            await settle(fake, client, await fake.slash(user, "prompts", {"where": "dm"}))
        await service.listener(
            [
                Public(ch, "Time is up for Dora."),
                Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn"),
                Private(ch, f"discord:{carl.id}", "Your turn.", turn, kind="turn"),
                Private(ch, f"discord:{carl.id}", "Still your turn.", turn, kind="turn"),
            ]
        )
        await asyncio.wait_for(client.wait_idle(), 5)
        [ben_dm] = fake.dms(ben)
        assert ben_dm.content == "Your turn."
        assert ben_dm.custom_ids == [
            f"doko:{fake.channel_id}:play CQ",
            f"doko:{fake.channel_id}:ask re",  # a call asks for a second press
        ]
        notices = [m for m in fake.channel_messages() if carl.mention in m.content]
        assert len(notices) == 1  # told once, not on every prompt
        assert notices[0].custom_ids == [f"doko:{fake.channel_id}:hand"]

        # Carl presses My hand: his hand, then the prompt the DM could not bring
        click = await settle(
            fake, client, await fake.click(carl, notices[0], hand_button(notices[0]))
        )
        [prompt] = click.ephemeral_messages
        assert prompt.content.startswith("Your hand: ♣Q ♠A\nStill your turn.\n")
        assert prompt.flags & EPHEMERAL
        # a call (asked, then confirmed) keeps the prompt, a card uses it up
        ask = await settle(fake, client, await fake.click(carl, prompt, prompt.custom_ids[1]))
        [question] = ask.ephemeral_messages
        assert "Announce Re?" in question.content and prompt.custom_ids
        call = await settle(fake, client, await fake.click(carl, question, question.custom_ids[0]))
        assert call.response_type == 6 and question.custom_ids == [] and prompt.custom_ids
        card = await settle(fake, client, await fake.click(carl, prompt, prompt.custom_ids[0]))
        assert card.response_type == 6 and prompt.custom_ids == []
        again = await settle(
            fake, client, await fake.click(carl, notices[0], hand_button(notices[0]))
        )
        [hand] = again.ephemeral_messages
        assert hand.content.startswith("Your hand: ♣Q ♠A\n*") and hand.custom_ids == []

        # the adapter's own words follow the language the host wrote the channel in
        option = {"name": "language", "value": "de"}
        await settle(fake, client, await fake.slash(anna, "option", option))
        last = fake.channel_messages()[-1]
        assert last.content == "Die Sprache ist jetzt Deutsch."
        assert last.buttons[0]["label"].endswith("Meine Karten")
    assert service.listener is None  # a closed client no longer listens
    assert [i.text for i in service.inputs] == [
        "/hand",
        "/re",
        "/play CQ",
        "/hand",
        "/option language de",
    ]
    assert fake.violations == []


async def test_sharded_client(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    service = ScriptedService(lambda inp: [Public(ch, f"{inp.name} joins")])
    client = ShardedDiscordAdapter(service, guild_ready_timeout=0.05)
    async with running(client):
        join = await settle(fake, client, await fake.slash(fake.users[1], "join"))
        assert join.response_type == 4 and not join.response_flags & EPHEMERAL
    assert any(c.path == "/gateway/bot" for c in fake.calls)
    assert fake.shard_info == [[0, 1]]
    assert [m.content for m in fake.channel_messages()] == ["Ben joins"]


async def test_run_discord_takes_the_token_from_the_environment(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    ch = f"discord:{fake.channel_id}"
    service = ScriptedService(lambda inp: [Public(ch, "hello")])
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(RuntimeError, match=TOKEN_ENV):
        await run_discord(service, None)
    assert resolve_token("explicit") == "explicit"

    monkeypatch.setenv(TOKEN_ENV, "sekrit-token-42")
    task = asyncio.create_task(run_discord(service, None))
    try:
        await fake.wait_connected()
        join = await fake.slash(fake.users[0], "join")
        await fake.wait_answered(join)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert {c.authorization for c in fake.calls if c.path == "/users/@me"} == {
        "Bot sekrit-token-42"
    }
    assert "sekrit-token-42" not in caplog.text


async def test_one_member_against_three_computer_players(fake: FakeDiscord) -> None:
    """The computer players' moves come unasked, through the service's listener."""
    inner = Service.in_memory(seed=11)
    service = Recorder(inner)
    driver = Driver(fake, service)
    driver.background.append(inner.idle)
    anna = fake.users[0]
    await driver.connect()
    try:
        await driver.slash(anna, "join")
        for level in ("easy", "random", "normal"):
            await driver.slash(anna, "join", {"bot": True, "level": level})
        await driver.slash(anna, "start")
        while (prompt := driver.next_prompt()) is not None:
            await driver.answer(*prompt)
        assert driver.plays == 12
    finally:
        await driver.close()
        await inner.close()
    texts = [inp.text for inp, _ in service.inputs]
    assert texts[1:4] == ["/join bot easy", "/join bot random", "/join bot normal"]
    public_texts = [e.text for e in service.events if isinstance(e, Public)]
    assert_shown_in_order(fake, public_texts)
    assert public_texts[-1] in plain(fake.channel_messages()[-1].content)
    assert fake.violations == [] and fake.unknown_routes == []


async def test_long_texts_are_split_or_attached(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"
    lines = [f"line_{n} *" + "x" * 40 for n in range(100)]  # about 4,900 characters
    # a list with aligned columns (like /help's), too long for one code block
    columns = "Commands:\n" + "\n".join(f"/c_{n:<3}  " + "y" * 40 for n in range(60))

    def script(inp: Input) -> list[Event]:
        if inp.text == "/export":
            return [Private(ch, inp.user, "\n".join(lines), reply=True, kind="export")]
        if inp.text == "/help":
            return [Private(ch, inp.user, columns, reply=True)]
        return [Public(ch, "\n".join(lines)), Public(ch, "the end")]

    service = ScriptedService(script)
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        export = await settle(fake, client, await fake.slash(fake.users[0], "export"))
        table = await settle(fake, client, await fake.slash(fake.users[1], "table"))
        listed = await settle(fake, client, await fake.slash(fake.users[2], "help"))
    # the columns line up in every piece: each is a code block of its own
    pieces = [m.content for m in listed.ephemeral_messages]
    assert len(pieces) == 2 and all(len(p) <= 2000 and p.startswith("```\n") for p in pieces)
    assert "\n".join(plain(p) for p in pieces) == columns
    [attached] = export.ephemeral_messages
    assert attached.files == [("dokobot-export.txt", "\n".join(lines).encode())]
    assert table.response_type == 4
    shown = fake.channel_messages()
    assert len(shown) == 3 and all(len(m.content) <= 2000 for m in shown)
    assert "\n".join(plain(m.content) for m in shown) == "\n".join([*lines, "the end"])
    assert [bool(m.custom_ids) for m in shown] == [False, False, True]
    assert fake.violations == []


async def test_batches_reach_a_channel_in_the_order_they_were_made() -> None:
    turns = _Turns()
    first, second, third = turns.take(), turns.take(), turns.take()
    order: list[int] = []

    async def deliver(ticket: int, delay: float) -> None:
        await asyncio.sleep(delay)
        await turns.wait(ticket)
        order.append(ticket)
        turns.release(ticket)

    turns.release(second)  # a batch that failed early must not block the others
    await asyncio.gather(deliver(third, 0), deliver(first, 0.02))
    assert order == [first, third]
    await asyncio.wait_for(turns.wait(turns.take()), 1)


async def test_restored_events_admin_role_and_a_shared_listener(fake: FakeDiscord) -> None:
    """As ``dokobot run`` uses it: the service is started by the caller and shared."""
    ch = f"discord:{fake.channel_id}"
    _, ben, carl, _ = fake.users
    fake.add_role("Doko-Admin", [ben])
    service = ScriptedService(lambda inp: [Public(ch, "ok")])
    heard: list[list[Event]] = []

    async def other_adapter(events: list[Event]) -> None:
        heard.append(events)

    service.listener = other_adapter
    turn = (Choice("♣Q", "/play CQ"),)
    restored: list[Event] = [
        Public(ch, "dokobot is back."),
        Public("irc:#doko", "for IRC only"),
        Private(ch, f"discord:{ben.id}", "Your turn.", turn, kind="turn"),
    ]
    client = make_client(service, restored=restored, admin_role="doko-admin")
    async with running(client):
        assert service.started == 0
        back, call = fake.channel_messages()
        assert back.content == "dokobot is back."
        # Ben's prompts stay in the channel (the default): a message names him, no DM
        assert ben.mention in call.content and call.custom_ids == [f"doko:{fake.channel_id}:hand"]
        assert fake.dms(ben) == []
        assert service.listener is not None
        await service.listener([Public(ch, "Bot1 plays ♣A.")])
        await asyncio.wait_for(client.wait_idle(), 5)
        assert heard == [[Public(ch, "Bot1 plays ♣A.")]]
        assert fake.channel_messages()[-1].content == "Bot1 plays ♣A."
        await settle(fake, client, await fake.slash(ben, "table"))
        await settle(fake, client, await fake.slash(carl, "table"))
    assert service.listener is other_adapter
    assert [inp.admin for inp in service.inputs] == [True, False]


async def test_statistics_slash_commands_and_the_chart_attached(fake: FakeDiscord) -> None:
    ch = f"discord:{fake.channel_id}"

    def script(inp: Input) -> list[Event]:
        image = b"\x89PNG chart" if inp.text.endswith("chart") else None
        if inp.text.startswith("/top"):
            return [Public(ch, f"board {inp.text}")]
        return [Private(ch, inp.user, f"answer {inp.text}", reply=True, image=image)]

    service = ScriptedService(script)
    async with running(make_client(service)) as client:
        assert isinstance(client, DiscordAdapter)
        chart = await settle(fake, client, await fake.slash(fake.users[0], "stats",
                                                            {"player": "anna", "chart": True}))  # fmt: skip
        plain_stats = await settle(fake, client, await fake.slash(fake.users[0], "stats"))
        await settle(fake, client, await fake.slash(fake.users[1], "top", {"board": "rating"}))
        score = await settle(
            fake, client, await fake.slash(fake.users[0], "score", {"chart": True})
        )
    texts = [inp.text for inp in service.inputs]
    assert texts == ["/stats anna chart", "/stats", "/top rating", "/score chart"]
    files = [f for m in chart.ephemeral_messages for f in m.files]
    assert files == [("dokobot-chart.png", b"\x89PNG chart")]
    assert any("answer /stats anna chart" in m.content for m in chart.ephemeral_messages)
    assert [f for m in plain_stats.ephemeral_messages for f in m.files] == []
    assert [f for m in score.ephemeral_messages for f in m.files] == [
        ("dokobot-chart.png", b"\x89PNG chart")
    ]
    assert "board /top rating" in plain(fake.channel_messages()[-1].content)
    assert fake.violations == []
