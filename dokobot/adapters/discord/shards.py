"""How Discord splits servers among processes: gateway shards, as the store's leases.

Discord sends a server's events to the shard ``(guild_id >> 22) % shard_count``; a process
that runs shards ``shard_ids`` holds their leases (``discord:shard:I/N``, the count ``N``
being the store's epoch: a reshard begins a new one), so each Discord table has one writer.

>>> part = shard_part(2, (1,))
>>> part.keys, part.key_of("discord:" + str(1 << 22)), part.key_of("discord:" + str(2 << 22))
(('discord:shard:1/2',), 'discord:shard:1/2', 'discord:shard:0/2')
>>> part.description
'Discord shard 1 of 2'
"""

from __future__ import annotations

from functools import partial

from ...store.scope import Epoch, Part

KIND = "discord"
FAMILY = "discord:shard:"


def shard_of(guild_id: int, shard_count: int) -> int:
    """The gateway shard of a Discord server (Discord's own formula)."""
    return (guild_id >> 22) % shard_count


def _shard_key(shard_count: int, server: str) -> str:
    rest = server.partition(":")[2]
    guild = int(rest) if rest.isdigit() else 0
    return f"{FAMILY}{shard_of(guild, shard_count)}/{shard_count}"


def shard_part(shard_count: int, shard_ids: tuple[int, ...]) -> Part:
    """The Discord servers of a process that runs ``shard_ids`` of ``shard_count``."""
    if shard_count < 1:
        raise ValueError("shard_count must be at least 1")
    for i in shard_ids:
        if not 0 <= i < shard_count:
            raise ValueError(f"shard id {i} is not below shard_count {shard_count}")
    ids = ", ".join(map(str, shard_ids))
    return Part(
        KIND,
        tuple(f"{FAMILY}{i}/{shard_count}" for i in shard_ids),
        partial(_shard_key, shard_count),
        f"Discord shard{'s' if len(shard_ids) > 1 else ''} {ids} of {shard_count}",
        Epoch(FAMILY, shard_count),
    )
