"""DMs under shards: Discord delivers every press in a DM to shard 0, whose process hands it
to the process that holds the table (PostgreSQL LISTEN/NOTIFY), which applies it and
completes the interaction. Two bot instances, each its own Service, PostgreSQL store (a
lease on its one shard) and sharded Discord client, share nothing but the database and the
fake Discord."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from conftest import SPEED
from discord_fake import FakeDiscord, FakeUser, Message, running
from pg_server import PASSWORD, PgServer

from dokobot.adapters.discord import create_adapter
from dokobot.adapters.discord.gateway import shard_options
from dokobot.adapters.discord.handoff import Handoff
from dokobot.adapters.discord.shards import shard_part
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.store import Scope
from dokobot.store.postgres import PostgresStore

IDENTIFY_S = 0.5
"""The spacing of the processes' IDENTIFYs (this test is not about Discord's 5 s)."""


def choice_ids(message: Message) -> list[str]:
    return [c for c in message.custom_ids if not c.endswith(":hand")]


@pytest.mark.long
async def test_a_game_of_shard_1_played_from_dms_that_reach_shard_0(
    pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOKOBOT_STORE_PASSWORD", PASSWORD)
    url = await asyncio.to_thread(pg_server.new_database)
    fake = FakeDiscord(heartbeat_ms=300, speed=SPEED, guild_shard=(1, 2))
    fake.check_identify = True  # the two processes take turns to IDENTIFY
    fake.identify_spacing = IDENTIFY_S  # (Discord's 5 s: test_discord_two_processes.py)
    await fake.start()
    services: list[Service] = []
    handoffs: list[Handoff] = []
    try:
        with fake.patched():
            async with contextlib.AsyncExitStack() as stack:
                clients = []
                for shard in (0, 1):
                    scope = Scope((shard_part(2, (shard,)),))
                    store = await asyncio.to_thread(PostgresStore, url, scope=scope, lease_s=5.0)
                    service = Service(Router(seed=9), store)
                    services.append(service)
                    handoff = Handoff(store.conninfo(), identify_spacing=IDENTIFY_S)
                    handoffs.append(handoff)
                    client = create_adapter(
                        service, sharded=True, guild_ready_timeout=0.05, board_interval=0.05,
                        global_rps=1000.0, handoff=handoff, **shard_options(2, [shard]),
                    )  # fmt: skip
                    await stack.enter_async_context(running(client))
                    clients.append(client)
                zero, one = services
                players = fake.users

                async def idle() -> None:
                    for s in services:
                        await asyncio.wait_for(s.idle(), 10)
                    for c in clients:
                        await asyncio.wait_for(c.wait_idle(), 10)

                async def slash(user: FakeUser, name: str, options: dict[str, str]) -> None:
                    await fake.wait_answered(await fake.slash(user, name, options))
                    await idle()

                for user in players:
                    await slash(user, "join", {})
                    await slash(user, "prompts", {"where": "dm"})
                await slash(players[0], "start", {})
                channel = f"discord:{fake.channel_id}"
                assert one.holds(channel) and not zero.holds(channel)
                presses = []
                used: set[int] = set()
                for _ in range(200):
                    await idle()
                    game = one.router.tables[channel].game
                    if game.phase.name == "FINISHED":
                        break
                    seat = one.router.tables[channel].seats[game.turn]
                    user = next(u for u in players if f"discord:{u.id}" == seat.user)
                    live = [
                        m for m in fake.private_messages(user) if choice_ids(m) and m.id not in used
                    ]
                    assert live, f"{user.name} has no prompt"
                    prompt = live[-1]
                    pick = next(
                        (c for c in choice_ids(prompt) if c.endswith(":healthy") or ":play " in c),
                        choice_ids(prompt)[0],
                    )
                    press = await fake.click(user, prompt, pick)
                    await fake.wait_answered(press)
                    await fake.wait_for(lambda p=prompt: not choice_ids(p), timeout=10)
                    used.add(prompt.id)
                    if prompt.dm_user is not None:
                        presses.append(press)
                await idle()
                assert one.router.tables[channel].game.phase.name == "FINISHED"
    finally:
        for service in services:
            await service.close()
        await fake.stop()
    # the presses in DMs (all but those on an answer to the starter's own command) reached
    # shard 0, were answered there at once, handed over and applied by shard 1's process,
    # which used each prompt up through the interaction's token
    assert len(presses) >= 40
    at_zero = [s for s, event in fake.dispatched if event == "INTERACTION_CREATE" and s == 0]
    assert len(at_zero) == len(presses)
    assert all(p.response_type == 6 and p.answered_after is not None for p in presses)
    assert max(p.answered_after or 0 for p in presses) < 3.0
    assert handoffs[0].handed == len(presses) and handoffs[1].handed == 0
    assert all(p.message is not None and p.message.content.count("→") == 1 for p in presses)
    assert fake.violations == []
    (_, first), (_, second) = fake.identify_times[:2]
    assert second - first >= IDENTIFY_S
