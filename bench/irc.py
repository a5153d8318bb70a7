"""Tables on IRC at one line per second: several tables of four scripted people play one
game each against a real ngIRCd (started here, with its own flood penalty as in
production) through one bot connection at the default pacing (4 lines at once, then 1 line
per second), while a spectator sends a request every 10 s.

People answer each turn ``--card-s`` seconds (2) after it reached them: a NOTICE prompt,
or the channel line that names them (a trick's winner leads; the reservation question).
It ends with
``irc_lines_per_card: X answer_p99_s: A prompt_delay_p99_s: P overtakes: O``
(goals: X <= 1.2, A <= 5, P <= 5, O = 0), where

* X counts the lines the bot sent for the games (channel lines and notices to the seated
  people; the spectator's answers not included, see the line before the last) per card;
* A is the time from the spectator's request to the first line of its answer;
* P is the time from a move (or ``!start``) to the next player's turn reaching him;
* O counts prompts that reached a player before the channel line of the trick before.

    python bench/irc.py --tables 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from irc_player import BOT, is_game_over, play_until  # noqa: E402
from irc_server import IrcClient, IrcMessage, NgircdServer  # noqa: E402

from dokobot.adapters.irc import IrcAdapter, IrcSettings  # noqa: E402
from dokobot.adapters.textchat.outbox import OutLine  # noqa: E402
from dokobot.host.service import Service  # noqa: E402

NETWORK = "bench"
REQUESTS = ("!table", "!score", "!help", "!last")
FOLLOW = re.compile(r"— (?:trick|Stich) (\d+): ")


def p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


class Bench:
    def __init__(
        self, tables: int, card_s: float, seed: int, show: bool = False, flood_rate: float = 1.0
    ) -> None:
        self.show = show
        self.flood_rate = flood_rate
        self.tables = tables
        self.card_s = card_s
        self.rng = random.Random(seed)
        self.seed = seed
        self.moved: dict[str, float] = {}
        self.delays: list[float] = []
        self.worst: list[tuple[float, str, str, str]] = []
        self.answers: list[float] = []
        self.overtakes = 0
        self.game_lines = 0
        self.other_lines = 0
        self.spectator_id = f"irc:{NETWORK}:spectator"

    def count(self, line: OutLine) -> None:
        if self.show:
            print(f"{time.monotonic():.1f} {line.private:d} {line.target} {line.text}")
        if line.private and line.target == self.spectator_id:
            self.other_lines += 1
        else:
            self.game_lines += 1

    def turn_seen(self, channel: str, client: IrcClient, kind: str, message: IrcMessage) -> None:
        self.delays.append(message.when - self.moved[channel])
        self.worst.append((message.when - self.moved[channel], channel, kind, message.text[:60]))
        follow = FOLLOW.search(message.text) if kind == "turn" else None
        if follow is not None and int(follow[1]) > 1:
            before = f"Trick {int(follow[1]) - 1}: "
            seen = [
                m
                for m in client.messages
                if m.command == "PRIVMSG" and m.nick == BOT and before in m.text
            ]
            if not seen or seen[0].when > message.when:
                self.overtakes += 1

    async def seat(self, server: NgircdServer, n: int) -> list[IrcClient]:
        """Four people join table ``n`` (the lines of the lobby are not counted)."""
        channel = f"#doko{n}"
        nicks = [f"t{n}{name}" for name in ("anna", "ben", "carl", "dora")]
        clients = [IrcClient(server.host, server.port, nick) for nick in nicks]
        for client in clients:
            await client.connect()
            await client.join(channel)
        for client in clients:
            mark = len(client.messages)
            await client.say(channel, "!join")
            await client.wait_for(lambda m, c=client: f"{c.nick} joined" in m.text, 60, since=mark)
        return clients

    async def table(self, clients: list[IrcClient], n: int) -> int:
        channel = f"#doko{n}"
        try:

            async def answer(_: int) -> None:
                await asyncio.sleep(self.card_s)
                self.moved[channel] = time.monotonic()

            def seen(client: IrcClient) -> object:
                return lambda kind, message: self.turn_seen(channel, client, kind, message)

            self.moved[channel] = time.monotonic()
            await clients[0].say(channel, "!start")
            await asyncio.gather(
                *(
                    play_until(
                        client,
                        is_game_over,
                        style=2 + i % 2,
                        rng=random.Random(self.seed * 10 + n * 4 + i),
                        before_answer=answer,
                        timeout=300,
                        on_turn=seen(client),  # type: ignore[arg-type]
                        channel=channel,
                    )
                    for i, client in enumerate(clients)
                )
            )
            return 48
        finally:
            for client in clients:
                await client.close()

    async def spectator(self, server: NgircdServer, stop: asyncio.Event) -> None:
        client = IrcClient(server.host, server.port, "spectator")
        await client.connect()
        try:
            for n in range(1, self.tables + 1):
                await client.join(f"#doko{n}")
            count = 0
            while not stop.is_set():
                channel = f"#doko{count % self.tables + 1}"
                mark = len(client.messages)
                sent = time.monotonic()
                await client.say(channel, REQUESTS[count % len(REQUESTS)])
                count += 1
                with contextlib.suppress(TimeoutError):
                    reply = await client.wait_for(
                        lambda m: m.command == "NOTICE" and m.nick == BOT, 60, since=mark
                    )
                    self.answers.append(reply.when - sent)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), max(0.0, 10.0 - (time.monotonic() - sent)))
        finally:
            await client.close()

    async def run(self) -> None:
        with NgircdServer(penalty=True) as server:
            channels = tuple(f"#doko{n}" for n in range(1, self.tables + 1))
            settings = IrcSettings(
                host=server.host, port=server.port, tls=False, nick=BOT, channels=channels,
                network=NETWORK, flood_burst=4, flood_rate=self.flood_rate,
            )  # fmt: skip
            service = Service.in_memory(seed=self.seed, bots=False)
            adapter = IrcAdapter(service, settings, rng=random.Random(0))
            adapter.on_line = self.count
            service.listener = adapter.deliver
            task = asyncio.create_task(adapter.run())
            stop = asyncio.Event()
            try:
                await adapter.wait_ready(20)
                seated = [await self.seat(server, n) for n in range(1, self.tables + 1)]
                while len(adapter.outbox):  # the lobby's lines go out first
                    await asyncio.sleep(0.1)
                await asyncio.sleep(4 / self.flood_rate)
                self.game_lines = self.other_lines = 0
                started = time.monotonic()
                watcher = asyncio.create_task(self.spectator(server, stop))
                cards = await asyncio.gather(
                    *(self.table(clients, n) for n, clients in enumerate(seated, 1))
                )
                stop.set()
                await watcher
            finally:
                await adapter.stop()
                await asyncio.wait_for(task, 20)
                await service.close()
        played = sum(cards)
        for delay, channel, kind, text in sorted(self.worst, reverse=True)[:5]:
            print(f"slowest turn: {delay:.2f} s {channel} {kind}: {text}")
        print(
            f"tables: {self.tables} cards: {played} seconds: {time.monotonic() - started:.0f} "
            f"game_lines: {self.game_lines} spectator_lines: {self.other_lines} "
            f"spectator_requests: {len(self.answers)} turns: {len(self.delays)} "
            f"prompt_delay_p50_s: {statistics.median(self.delays):.2f} "
            f"answer_p50_s: {statistics.median(self.answers or [0.0]):.2f}"
        )
        print(
            f"irc_lines_per_card: {self.game_lines / max(1, played):.2f} "
            f"answer_p99_s: {p99(self.answers):.2f} "
            f"prompt_delay_p99_s: {p99(self.delays):.2f} "
            f"overtakes: {self.overtakes}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--card-s", type=float, default=2.0, help="seconds per card (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", action="store_true", help="print every line the bot sends")
    parser.add_argument(
        "--flood-rate", type=float, default=1.0,
        help="the bot's lines per second (1, the default pacing; more only for a smoke run)",
    )  # fmt: skip
    args = parser.parse_args()
    asyncio.run(Bench(args.tables, args.card_s, args.seed, args.show, args.flood_rate).run())


if __name__ == "__main__":
    main()
