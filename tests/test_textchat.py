"""The text-chat layer (:mod:`dokobot.adapters.textchat`) is complete: a fake chat of a few
lines, implementing only :class:`~dokobot.adapters.textchat.platform.TextPlatform`, plays a
whole game of two people and two computer players through it against the real service."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest

from dokobot.adapters.textchat import OutLine, TextChat, TextPlatform, run_on_host
from dokobot.host.service import Service

ROOM = "#doko"
NUMBERED = re.compile(r"(\d+):(\S+)")
TRICK = re.compile(r"Trick \d+: (.*?) — (\S+) takes it")
WAIT = 30.0
GAME_OVER = re.compile(r"Game \d+ is over\.")


class FakeChat(TextPlatform):
    """The smallest text chat: every line is kept in ``heard`` (room or person, text)."""

    prefix = "fake:"
    sign = "."
    max_line_bytes = 200

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.listeners: list[Callable[[str, str], None]] = []

    def room(self, channel: str) -> str | None:
        name = channel.removeprefix(self.prefix)
        return name if channel.startswith(self.prefix + "#") else None

    def address(self, user: str) -> str | None:
        return user.removeprefix(self.prefix) if user.startswith(self.prefix) else None

    def present(self, user: str) -> bool:
        return True

    async def online(self) -> None:
        return None

    def keeps(self, room: str, text: str) -> bool:
        return False

    async def send(self, line: OutLine, to: str) -> bool:
        self.heard.append((to, line.text))
        loop = asyncio.get_running_loop()
        for listener in self.listeners:  # people read it once it was sent
            loop.call_soon(listener, to, line.text)
        return True


class Person:
    """Somebody in the fake chat who answers every turn the bot gives him, as a person
    would: a prompt by a legal card's number, a lead (the room line names him) by asking for
    his hand (which comes with his prompt), every reservation question with ``.healthy``."""

    def __init__(self, name: str, chat: TextChat, platform: FakeChat) -> None:
        self.name = name
        self.chat = chat
        self.turns: list[str] = []
        self.leading = False
        platform.listeners.append(self.read)

    def say(self, text: str, *, dm: bool = True) -> None:
        command = self.chat.command(text, dm=dm)
        assert command is not None, text
        channel = "" if dm else "fake:" + ROOM
        self.chat.said(channel, "fake:" + self.name, self.name, command, dm=dm)

    def read(self, to: str, text: str) -> None:
        if to == ROOM:
            if GAME_OVER.search(text):
                return
            winners = TRICK.findall(text)
            named = f"{self.name}: healthy or reservation?" in text
            if named:
                self.turns.append(text)
                self.say(".healthy")
            elif f"{self.name} leads." in text or (winners and winners[-1][1] == self.name):
                self.turns.append(text)
                self.leading = True
                self.say(".hand")
        elif to == self.name:
            if "Your turn:" in text:
                if not self.leading:  # else the room line that named him was his turn
                    self.turns.append(text)
                self.leading = False
                cards = NUMBERED.findall(text.split("Your turn:", 1)[1].split(" — ")[0])
                self.say(cards[0][0])
            elif "Healthy or reservation?" in text:
                self.turns.append(text)
                self.say(".healthy")


async def test_a_fake_text_chat_plays_a_whole_game_through_the_layer() -> None:
    service = Service.in_memory(seed=7)
    platform = FakeChat()
    chat = TextChat(service, platform, burst=1000, rate=1000.0)
    anna, ben = Person("anna", chat, platform), Person("ben", chat, platform)
    over = asyncio.Event()
    platform.listeners.append(lambda to, text: over.set() if GAME_OVER.search(text) else None)

    async def connection() -> None:
        chat.connected()
        anna.say(".join", dm=False)
        ben.say(".join", dm=False)
        anna.say(".join bot random", dm=False)
        anna.say(".join bot random", dm=False)
        anna.say(".start", dm=False)
        await asyncio.wait_for(over.wait(), WAIT)

    async def run() -> None:
        await chat.serve(connection)

    # the host's life with the chat's: the computer players' moves reach it as the listener
    await asyncio.wait_for(run_on_host(service, chat.deliver, run), 90)
    assert service.listener is None  # the one before (none) is set again

    room = [text for to, text in platform.heard if to == ROOM]
    tricks = [t for line in room for t in TRICK.findall(line)]
    assert len(tricks) == 12
    assert sum(len(cards.split(", ")) for cards, _ in tricks) == 48
    for person in (anna, ben):
        # the reservation question, then twelve turns (a prompt, or the room line naming him)
        assert "healthy or reservation?" in person.turns[0].lower()
        assert len(person.turns) == 13, person.turns
        played = [c for cards, _ in tricks for c in cards.split(", ") if c.startswith(person.name)]
        assert len(played) == 12
    for to, text in platform.heard:
        assert len(text.encode()) <= platform.max_line_bytes
        assert not re.search(r"(?:^|[\s(\[])/[a-z]", text), text  # commands as typed here: .x
        if to == ROOM:
            assert "Your hand" not in text and len(NUMBERED.findall(text)) < 2, text


async def test_the_console_shows_the_choices_a_prompt_does_not_name() -> None:
    """The console renders a question as the text chats do: a terminal has no buttons, so
    the announcements a turn allows are listed as the commands to type."""
    import io

    from dokobot.console import Console

    service = Service.in_memory(seed=3)
    out = io.StringIO()
    console = Console(service, ["anna"], out)
    try:
        await console.setup(3, "random")
        await console.say("anna", "healthy", typed=True)
    finally:
        await service.close()
    (turn,) = [line for line in out.getvalue().splitlines() if "Your turn:" in line]
    assert turn.endswith("you lead trick 1.  [/kontra | /no90 | /no60 | /no30 | /black]"), turn
    asked = [line for line in out.getvalue().splitlines() if "Healthy or reservation?" in line]
    assert asked == ["  Healthy or reservation? /healthy or /reservation"]  # named: not again


def test_the_layer_names_no_platform() -> None:
    """Everything in the layer is platform-neutral: no identifier or string of its code
    names a chat platform (docstrings may, as examples), and it imports no adapter."""
    from pathlib import Path

    from test_platforms import platform_words

    import dokobot.adapters.textchat as layer

    files = sorted(Path(layer.__file__).parent.glob("*.py"))
    assert len(files) >= 8
    naming = {f.name: platform_words(f.read_text(encoding="utf-8")) for f in files}
    assert {name: found for name, found in naming.items() if found} == {}


async def test_a_send_that_hangs_gives_its_line_up_and_the_next_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No await without a deadline: a platform whose send never returns (a dead connection
    that does not say so) costs one line, not the chat; a prompt given up is reported."""
    from dokobot.adapters.textchat import sender
    from dokobot.adapters.textchat.outbox import Outbox, TokenBucket, Unit

    class Hanging(FakeChat):
        async def send(self, line: OutLine, to: str) -> bool:
            if line.text == "hangs":
                await asyncio.Event().wait()
            return await super().send(line, to)

    monkeypatch.setattr(sender, "SEND_DEADLINE", 0.05)
    platform = Hanging()
    box = Outbox()
    dropped: list[str] = []
    box.put(Unit("#doko", ["hangs"], on_drop=lambda: dropped.append("hangs")))
    box.put(Unit("#doko", ["next"]))
    loop = asyncio.create_task(sender.Sender(platform, box, TokenBucket(10, 100.0)).run())
    try:
        for _ in range(100):
            if platform.heard:
                break
            await asyncio.sleep(0.01)
    finally:
        loop.cancel()
    assert platform.heard == [("#doko", "next")] and dropped == ["hangs"]


async def test_a_line_said_reaches_the_host_as_typed_here() -> None:
    """``command`` reads the chat's sign; ``said`` hands the host the line with its
    mentions, a card number read in the hand the person was last shown."""
    from dokobot.host.contract import BareHost
    from dokobot.host.events import Input

    chat = TextChat(BareHost(), FakeChat(), burst=1, rate=1.0)
    assert chat.command(".play 2", dm=False) == "/play 2"
    assert chat.command("!play 2", dm=False) is None  # not this chat's sign: chat
    chat.delivery.shown["fake:anna"] = (5, 0, 32)  # ♣9 is the second card she was shown
    chat.said("fake:#doko", "fake:anna", "anna", "/play 2", dm=False,
              mentions=(("ben", "fake:ben"),))  # fmt: skip
    inp = chat.inbox.get_nowait()
    assert isinstance(inp, Input)
    assert (inp.text, inp.overheard, inp.mentions) == ("/play ♣9", True, (("ben", "fake:ben"),))


async def test_a_slow_answer_holds_up_no_other_room_and_a_room_keeps_its_order() -> None:
    """The host answers each input in a task of its own: while a table of one room waits
    (its store stalls), the other rooms are answered; a room's answers and a person's
    inputs and renames keep their order."""
    from dokobot.host.contract import BareHost
    from dokobot.host.events import Event, Input, Public

    stalled = asyncio.Event()
    seen: list[str] = []

    class StallingHost(BareHost):
        async def handle(self, inp: Input) -> list[Event]:
            seen.append(f"{inp.user} {inp.text}")
            if inp.text == "/stall":
                await asyncio.wait_for(stalled.wait(), WAIT)
            return [Public(inp.channel, f"answer to {inp.text[1:]}")]

        async def rename(self, user: str, name: str) -> None:
            seen.append(f"{user} is {name}")

    platform = FakeChat()
    chat = TextChat(StallingHost(), platform, burst=1000, rate=1000.0)

    async def connection() -> None:
        await asyncio.sleep(WAIT)

    serving = asyncio.create_task(chat.serve(connection))
    try:
        chat.said("fake:#a", "fake:anna", "anna", "/stall", dm=False)
        chat.named("fake:anna", "anne")
        chat.said("fake:#a", "fake:ben", "ben", "/after", dm=False)
        chat.said("fake:#b", "fake:cleo", "cleo", "/other", dm=False)
        for _ in range(200):
            if platform.heard:
                break
            await asyncio.sleep(0.01)
        # room b is answered while room a's first input waits; a's second answer waits too
        assert platform.heard == [("#b", "answer to other")]
        assert "fake:anna is anne" not in seen  # her rename waits for her input
        stalled.set()
        for _ in range(200):
            if len(platform.heard) == 3:
                break
            await asyncio.sleep(0.01)
        assert platform.heard[1:] == [("#a", "answer to stall"), ("#a", "answer to after")]
        assert seen.index("fake:anna /stall") < seen.index("fake:anna is anne")
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
