"""One process per set of gateway shards: ``discord.shard_count`` and ``discord.shard_ids``
reach discord.py's AutoShardedClient, which identifies for exactly those shards."""

from __future__ import annotations

import asyncio

import pytest
from discord_fake import FakeDiscord, running

from dokobot.adapters.discord import create_adapter
from dokobot.adapters.discord.gateway import shard_options
from dokobot.adapters.discord.shards import shard_of
from dokobot.config import ConfigError, parse_config
from dokobot.host.contract import BareHost
from dokobot.host.events import Event, Input, Public
from dokobot.runner import scope_of


class Echo(BareHost):
    listener = None

    def __init__(self) -> None:
        self.inputs: list[Input] = []

    async def handle(self, inp: Input) -> list[Event]:
        self.inputs.append(inp)
        return [Public(inp.channel, f"{inp.name} joins")]

    async def start(self) -> list[Event]:
        return []

    async def close(self) -> None:
        return None


async def test_a_process_identifies_for_its_shards_only(fake: FakeDiscord) -> None:
    mine = shard_of(fake.guild_id, 4)
    service = Echo()
    client = create_adapter(service, sharded=True, guild_ready_timeout=0.05,
                            **shard_options(4, [mine]))  # fmt: skip
    async with running(client):
        join = await fake.slash(fake.users[1], "join")
        await fake.wait_answered(join)
        await asyncio.wait_for(client.wait_idle(), 5)
    assert fake.shard_info == [[mine, 4]]
    assert [i.server for i in service.inputs] == [f"discord:{fake.guild_id}"]


URL = "store:\n  url: postgresql://bot@db/doko\n"


def test_shard_settings_are_checked_and_make_the_scope() -> None:
    env = {"DOKOBOT_DISCORD_TOKEN": "t"}
    cfg = parse_config("discord:\n  shard_count: 4\n  shard_ids: [1, 3]\n"
                       "store:\n  url: postgresql://bot@db/doko\n", env=env)  # fmt: skip
    assert cfg.discord is not None and (cfg.discord.shard_count, cfg.discord.shard_ids) == (
        4,
        (1, 3),
    )
    assert cfg.store_path == "postgresql://bot@db/doko"
    assert scope_of(cfg).keys() == ("discord:shard:1/4", "discord:shard:3/4")
    whole = parse_config("discord:\n  shard_count: 2\n", env=env)
    assert scope_of(whole).keys() == ("discord:shard:0/2", "discord:shard:1/2")
    for bad, words in [
        ("discord:\n  shard_ids: [0]\n", "needs discord.shard_count"),
        ("discord:\n  shard_count: 2\n  shard_ids: [0]\n", "set store.url"),
        ("discord:\n  shard_count: 2\n  shard_ids: [2]\n" + URL, "from 0 to 1"),
        ("discord:\n  shard_count: 2\n  shard_ids: [0, 0]\n" + URL, "different numbers"),
        ("discord:\n  shard_count: 2\n  shard_ids: one\n" + URL, "list of whole numbers"),
        ("store:\n  url: postgresql://bot:hunter2@db/doko\n", "DOKOBOT_STORE_PASSWORD"),
        ("store:\n  url: mysql://db/doko\n", "PostgreSQL url"),
        ("store:\n  url: postgresql://db/d\n  path: x.db\n", "not both"),
    ]:
        with pytest.raises(ConfigError, match=words):
            parse_config(bad, env=env)


async def test_guild_events_reach_their_shard_and_dms_shard_0() -> None:
    fake = FakeDiscord(heartbeat_ms=300, guild_shard=(1, 2))
    await fake.start()
    zero, one = Echo(), Echo()
    try:
        with fake.patched():
            first = create_adapter(zero, sharded=True, guild_ready_timeout=0.05,
                                   **shard_options(2, [0]))  # fmt: skip
            second = create_adapter(one, sharded=True, guild_ready_timeout=0.05,
                                    **shard_options(2, [1]))  # fmt: skip
            async with running(first), running(second):
                assert fake.shard_of_guild() == 1
                join = await fake.slash(fake.users[1], "join")
                await fake.wait_answered(join)
                dm = await fake.slash(fake.users[2], "hand", dm=True)
                await fake.wait_answered(dm)
                await asyncio.wait_for(first.wait_idle(), 5)
                await asyncio.wait_for(second.wait_idle(), 5)
    finally:
        await fake.stop()
    assert fake.dispatched == [(1, "INTERACTION_CREATE"), (0, "INTERACTION_CREATE")]
    assert [i.text for i in one.inputs] == ["/join"] and [i.dm for i in zero.inputs] == [True]
