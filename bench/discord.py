"""Games on Discord: two people click through the real discord.py client against the fake
Discord (tests/discord_fake), with two computer players, Discord's rate limits (5 requests
per 5 seconds per channel) and injected 429s on 10 % of the requests to the table channel.

Anna plays from the "My cards" panel (``/prompts here``), Ben from his DMs. It ends with
``channel_messages_per_game: M edits_per_game: E failed_interactions: F p99_ack_ms: P``
(goals: M <= 3, every message of the channel counted, the table's lobby too; E <= 60,
F = 0, P < 500).

    python bench/discord.py --games 3
    python bench/discord.py --games 1 --rate 0 --speed 20     # a smoke run, seconds
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this file is called discord.py: its folder must not hide the discord package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "tests"))

from discord_fake import FakeDiscord, FakeUser, Interaction, Message, running  # noqa: E402

from dokobot.adapters.discord import DiscordAdapter  # noqa: E402
from dokobot.adapters.discord.board_messages import BOARD_INTERVAL  # noqa: E402
from dokobot.adapters.discord.budget import BOT_WIDE_RPS  # noqa: E402
from dokobot.host.service import Service  # noqa: E402


def choices(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


class Bench:
    def __init__(self, fake: FakeDiscord, client: DiscordAdapter, service: Service) -> None:
        self.fake = fake
        self.client = client
        self.service = service
        self.channel = f"discord:{fake.channel_id}"
        self.interactions: list[Interaction] = []

    async def settle(self, interaction: Interaction) -> None:
        self.interactions.append(interaction)
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_answered(interaction, timeout=10)
        await asyncio.wait_for(self.client.wait_idle(), 60)

    async def slash(
        self, user: FakeUser, name: str, options: dict[str, object] | None = None
    ) -> None:
        await self.settle(await self.fake.slash(user, name, options))  # type: ignore[arg-type]

    async def click(self, user: FakeUser, message: Message, custom_id: str) -> None:
        await self.settle(await self.fake.click(user, message, custom_id))

    def person(self, seat: int) -> FakeUser | None:
        user = self.service.router.tables[self.channel].seats[seat].user
        return next((u for u in self.fake.users if f"discord:{u.id}" == user), None)

    async def play_game(self, anna: FakeUser) -> None:
        await self.slash(anna, "start")
        boards = [m for m in self.fake.channel_messages() if m.embeds]
        board = [m for m in boards if m.button(lambda c: c.endswith(":hand"))][-1]
        my_cards = board.button(lambda c: c.endswith(":hand"))
        assert my_cards is not None
        await self.click(anna, board, my_cards)  # Anna's panel, kept up to date
        for _ in range(400):
            await asyncio.wait_for(self.service.idle(), 60)
            await asyncio.wait_for(self.client.wait_idle(), 60)
            game = self.service.router.tables[self.channel].game
            if game.phase.name == "FINISHED":
                return
            user = self.person(game.turn)
            if user is None:
                await asyncio.sleep(0.05)  # a computer player is about to move
                continue
            live = [m for m in self.fake.private_messages(user) if choices(m)]
            if not live:  # e.g. the panel expired: a fresh click on "My cards"
                await self.click(user, board, my_cards)
                continue
            prompt = live[-1]
            pick = next(
                (c for c in choices(prompt) if c.endswith(":healthy") or ":play " in c),
                choices(prompt)[0],
            )
            await self.click(user, prompt, pick)
        raise RuntimeError("the game did not end")


async def run(games: int, rate: float, speed: float = 1.0) -> None:
    fake = FakeDiscord(heartbeat_ms=1000, speed=speed)
    await fake.start()
    service = Service.in_memory(seed=1, bot_delay=0.2 / speed)
    try:
        with fake.patched():
            fake.limits = {"channel": (5, 5.0), "dm": (5, 5.0)}  # Discord's per-channel limits
            fake.rate_429 = rate
            fake.retry_after = 1.0
            client = DiscordAdapter(
                service,
                guild_ready_timeout=0.05,
                board_interval=BOARD_INTERVAL / speed,
                global_rps=BOT_WIDE_RPS * speed,
            )
            async with running(client):
                bench = Bench(fake, client, service)
                anna, ben = fake.users[0], fake.users[1]
                await bench.slash(anna, "join")
                await bench.slash(ben, "join")
                for _ in range(2):
                    await bench.slash(anna, "join", {"bot": True, "level": "easy"})
                await bench.slash(anna, "prompts", {"where": "here"})
                # every message of the channel counts, the lobby of the joins too
                messages_before = edits_before = 0
                began = time.monotonic()
                for n in range(games):
                    await bench.play_game(anna)
                    print(
                        f"game {n + 1} done after {time.monotonic() - began:.1f} s", file=sys.stderr
                    )
                await asyncio.wait_for(client.wait_idle(), 60)
                shown = fake.channel_messages()
                messages = len(shown) - messages_before
                edits = sum(m.edits for m in shown) - edits_before
    finally:
        await service.close()
        await fake.stop()
    acks = sorted(i.answered_after for i in bench.interactions if i.answered_after is not None)
    failed = sum(1 for i in bench.interactions if i.response_type is None)
    failed += sum("interaction" in v for v in fake.violations)
    p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))] * 1000 if acks else 0.0
    print(
        f"interactions: {len(bench.interactions)} injected_429s: {len(fake.rate_limited)} "
        f"violations: {len(fake.violations)}",
        file=sys.stderr,
    )
    print(
        f"channel_messages_per_game: {messages / games:.1f} edits_per_game: {edits / games:.1f} "
        f"failed_interactions: {failed} p99_ack_ms: {p99:.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rate", type=float, default=0.1, help="share of channel sends with 429")
    parser.add_argument(
        "--speed",
        type=float,
        default=1.0,
        help="the fake's rate-limit clock, the board's edit interval and the computer players "
        "this many times faster (a smoke run; the figures are Discord's only at 1)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(run(args.games, args.rate, args.speed))


if __name__ == "__main__":
    main()
