"""The adapter side of the Discord tests: a scripted service and a client that settles."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from dokobot.adapters.discord import DiscordAdapter, ServiceLike
from dokobot.host.contract import BareHost
from dokobot.host.events import Event, Input

from .server import FakeDiscord, Interaction, Message

Listener = Callable[[list[Event]], Awaitable[None]]


class ScriptedService(BareHost):
    """Answers every input with ``script(input)`` and keeps the inputs."""

    def __init__(self, script: Callable[[Input], list[Event]]) -> None:
        self.script = script
        self.listener: Listener | None = None
        self.inputs: list[Input] = []

    async def handle(self, inp: Input) -> list[Event]:
        self.inputs.append(inp)
        return self.script(inp)

    async def start(self) -> list[Event]:
        return []

    async def close(self) -> None:
        return None


def make_client(service: ServiceLike, **options: Any) -> DiscordAdapter:
    """An adapter with short waits for tests."""
    options.setdefault("guild_ready_timeout", 0.05)
    options.setdefault("board_interval", 0.05)
    options.setdefault("global_rps", 1000.0)  # Discord's 50 on the fake's faster clock
    return DiscordAdapter(service, **options)


async def settle(
    fake: FakeDiscord, client: DiscordAdapter, interaction: Interaction
) -> Interaction:
    """Wait until ``interaction`` is answered and the adapter has sent everything."""
    await fake.wait_answered(interaction)
    await asyncio.wait_for(client.wait_idle(), 10)
    return interaction


async def seat_with_bots(fake: FakeDiscord, client: DiscordAdapter, user: Any) -> None:
    """``user`` joins by slash command and fills the table with three computer players."""
    await settle(fake, client, await fake.slash(user, "join"))
    for _ in range(3):
        await settle(fake, client, await fake.slash(user, "join", {"bot": True}))


async def open_my_cards(
    fake: FakeDiscord, client: DiscordAdapter, user: Any
) -> tuple[Message, Interaction]:
    """``user`` presses "My cards" on the game's board message: the board and the press."""
    [board] = [m for m in fake.channel_messages() if m.button(lambda c: c.endswith(":hand"))]
    my_cards = board.button(lambda c: c.endswith(":hand"))
    assert my_cards is not None
    return board, await settle(fake, client, await fake.click(user, board, my_cards))


async def panel_in_a_game(fake: FakeDiscord, client: DiscordAdapter, user: Any) -> Message:
    """``user`` sits down with three computer players, starts the game and opens "My cards":
    his panel."""
    await seat_with_bots(fake, client, user)
    await settle(fake, client, await fake.slash(user, "start"))
    _, opened = await open_my_cards(fake, client, user)
    [panel] = opened.ephemeral_messages
    return panel
