"""Play in a terminal: the console adapter.

One person plays against three computer players by default. With several local players,
prefix a line with ``name:`` to speak as that player; without a prefix the line is said by
the player whose turn it is (or the first player). ``/quit`` ends the session.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
from collections.abc import Callable
from typing import TextIO

from .host.events import Event, Input, Private, Public
from .host.service import Service

CHANNEL = "console"


def _default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = "you"
    return (name or "you")[:16]


class Console:
    """Feeds lines to a :class:`Service` and prints what comes back."""

    def __init__(self, service: Service, players: list[str], out: TextIO = sys.stdout) -> None:
        self.service = service
        self.players = players
        self.out = out
        service.listener = self._listen

    def user(self, name: str) -> str:
        return f"console:{name}"

    def show(self, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, Public):
                print(e.text, file=self.out)
            elif isinstance(e, Private):
                name = e.user.split(":", 1)[-1]
                prefix = f"[{name}] " if len(self.players) > 1 else ""
                for line in e.text.splitlines():
                    print(f"  {prefix}{line}", file=self.out)
        self.out.flush()

    async def _listen(self, events: list[Event]) -> None:
        self.show(events)

    async def say(self, name: str, text: str) -> None:
        self.show(await self.service.handle(Input(CHANNEL, self.user(name), name, text,
                                                  admin=True)))  # fmt: skip
        await self.service.idle()

    def speaker(self, line: str) -> tuple[str, str]:
        head, sep, rest = line.partition(":")
        if sep and head.strip() in self.players:
            return head.strip(), rest.strip()
        table = self.service.router.tables.get(CHANNEL)
        if table is not None and table.game is not None and table.running:
            seat = table.game.turn
            if seat < len(table.seats):
                name = table.seats[seat].name
                if name in self.players:
                    return name, line
        return self.players[0], line

    async def setup(self, bots: int, level: str) -> None:
        for name in self.players:
            await self.say(name, "/join")
        for _ in range(bots):
            await self.say(self.players[0], f"/join bot {level}")
        if len(self.players) + bots == 4:
            await self.say(self.players[0], "/start")

    async def loop(self, read: Callable[[], str]) -> None:
        while True:
            try:
                line = await asyncio.to_thread(read)
            except (EOFError, KeyboardInterrupt):
                print("", file=self.out)
                return
            line = line.strip()
            if line in ("/quit", "/exit", "quit", "exit"):
                return
            if not line:
                continue
            name, text = self.speaker(line)
            await self.say(name, text)


def run_console(
    players: list[str] | None,
    bots: int | None,
    seed: int | None,
    lang: str = "en",
    level: str = "normal",
) -> int:
    """The ``dokobot console`` command."""
    names = players or [_default_name()]
    if len(names) > 4 or len(set(names)) != len(names):
        print("dokobot console: give one to four different player names", file=sys.stderr)
        return 2
    n_bots = 4 - len(names) if bots is None else bots
    if n_bots < 0 or len(names) + n_bots > 4:
        print("dokobot console: players and computer players must add up to four",
              file=sys.stderr)  # fmt: skip
        return 2
    service = Service.in_memory(seed=seed, language=lang)
    console = Console(service, names)
    print("dokobot console. /help lists the commands, /quit ends. Cards: /play CQ or /play 3.")

    def read() -> str:
        return input("> ")

    async def main() -> None:
        await console.setup(n_bots, level)
        await console.loop(read)
        await service.close()

    asyncio.run(main())
    return 0
