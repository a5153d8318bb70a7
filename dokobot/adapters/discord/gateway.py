"""Starting Discord: the client (sharded or not), its gateway shards, running it, and
uploading the slash commands."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord.ext import commands

from dokobot.adapters.discord.adapter import DiscordAdapter, ServiceLike
from dokobot.adapters.discord.handoff import Handoff
from dokobot.adapters.discord.token import resolve_token
from dokobot.host.contract import BareHost
from dokobot.host.events import Event

log = logging.getLogger(__name__)


class ShardedDiscordAdapter(DiscordAdapter, commands.AutoShardedBot):
    """:class:`DiscordAdapter` on an :class:`~discord.AutoShardedClient` (big bots)."""


def create_adapter(
    service: ServiceLike, *, sharded: bool = False, **options: Any
) -> DiscordAdapter:
    """A :class:`DiscordAdapter`, or a :class:`ShardedDiscordAdapter` if ``sharded``."""
    cls = ShardedDiscordAdapter if sharded else DiscordAdapter
    return cls(service, **options)


def shard_options(shard_count: int | None, shard_ids: Sequence[int] | None) -> dict[str, Any]:
    """The options of :class:`ShardedDiscordAdapter` for these shards.

    >>> shard_options(4, [1, 3]), shard_options(None, None)
    ({'shard_count': 4, 'shard_ids': [1, 3]}, {})
    """
    options: dict[str, Any] = {}
    if shard_count is not None:
        options["shard_count"] = shard_count
        if shard_ids is not None:
            options["shard_ids"] = list(shard_ids)
    return options


async def run_discord(
    service: ServiceLike,
    token: str | None = None,
    *,
    sharded: bool = False,
    restored: Sequence[Event] | None = None,
    admin_role: str | None = None,
    sync_commands: str = "global",
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
    global_rps: float | None = None,
    handoff: Handoff | None = None,
    threads: bool = True,
) -> None:
    """Run dokobot on Discord until cancelled or closed (for the command line).

    The token comes from ``token`` or the environment variable ``DOKOBOT_DISCORD_TOKEN``.
    ``restored`` are the events of the ``service.start()`` the caller made (``dokobot run``
    starts the service once for all adapters); without them the adapter calls
    ``service.start()`` itself. The caller owns ``service`` and closes it afterwards.
    ``shard_count`` and ``shard_ids``: the gateway shards of this process (one of several
    processes of a big bot; see README "Scale"). ``global_rps``: this process's share of the
    bot-wide request limit (None: count only). ``handoff``: DM presses for other processes'
    tables go to them through PostgreSQL (:mod:`.handoff`). ``threads``: a ``/join`` in a channel opens
    the table in a thread of its own (the table option ``thread`` turns it off per channel).
    """
    adapter = create_adapter(
        service,
        sharded=sharded or shard_count is not None,
        **shard_options(shard_count, shard_ids),
        token=resolve_token(token),
        restored=restored,
        admin_role=admin_role,
        sync_commands=sync_commands,
        global_rps=global_rps,
        handoff=handoff,
        threads=threads,
    )
    try:
        await adapter.serve()
    finally:
        log.info("%s", adapter.budget.report())


async def sync_discord(
    token: str | None = None, *, scope: str = "global", guilds: Sequence[int] = ()
) -> list[str]:
    """``dokobot sync``: log in, upload the slash commands, log out (no gateway).

    ``scope`` ``"global"`` uploads them for every server (Discord may take a while to show
    them); ``"guild"`` to ``guilds``, or to every server the bot is in (at once).
    Returns one line per upload: ``"global"``, ``"guild ID"`` or ``"failed …"``.
    """
    adapter = DiscordAdapter(BareHost(), token=token, restore=False, sync_commands="off")
    done: list[str] = []
    async with adapter:
        await adapter.login(resolve_token(token))
        if scope == "global":
            done.append("global" if await adapter.upload.upload() else "failed: global")
            return done
        ids = list(guilds) or [g.id async for g in adapter.fetch_guilds(limit=None)]
        for guild_id in ids:
            ok = await adapter.upload.upload(discord.Object(id=guild_id))
            done.append(f"guild {guild_id}" if ok else f"failed: guild {guild_id}")
    return done
