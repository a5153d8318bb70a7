"""Which servers (and so which tables) one bot process serves, and the leases that make it
their only writer.

Every server belongs to exactly one lease key: a Discord server (``discord:GUILD``) to the
gateway shard Discord sends its events to (``(GUILD >> 22) % shard_count``), an IRC network
(``irc:NETWORK``) to itself, everything else (the console, ``dokobot feed``) to ``local``.
A process holds the leases of its keys; a table is written only by the holder of its
server's key, so every table, and every server's chip ledger, has one writer.

>>> s = Scope(shard_count=2, shard_ids=(1,))
>>> s.keys(), s.key_of("discord:" + str(1 << 22)), s.owns("discord:" + str(2 << 22))
(('discord:shard:1/2',), 'discord:shard:1/2', False)
>>> Scope(irc_networks=("libera",)).owns("irc:libera"), Scope().keys()
(True, ('local',))
"""

from __future__ import annotations

from dataclasses import dataclass

LOCAL = "local"
SHARD_PREFIX = "discord:shard:"


def shard_of(guild_id: int, shard_count: int) -> int:
    """The gateway shard of a Discord server (Discord's own formula)."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class Scope:
    """The servers of one process: Discord shards ``shard_ids`` of ``shard_count`` (None:
    no Discord), IRC networks, and ``local`` tables when the process serves no chat."""

    shard_count: int = 1
    shard_ids: tuple[int, ...] | None = None
    irc_networks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.shard_count < 1:
            raise ValueError("shard_count must be at least 1")
        for i in self.shard_ids or ():
            if not 0 <= i < self.shard_count:
                raise ValueError(f"shard id {i} is not below shard_count {self.shard_count}")

    @property
    def local(self) -> bool:
        return self.shard_ids is None and not self.irc_networks

    def keys(self) -> tuple[str, ...]:
        """The lease keys this process holds."""
        keys = [f"{SHARD_PREFIX}{i}/{self.shard_count}" for i in self.shard_ids or ()]
        keys += [f"irc:{net}" for net in self.irc_networks]
        return tuple(keys) if keys else (LOCAL,)

    def key_of(self, server: str) -> str:
        """The lease key of ``server``."""
        kind, _, rest = server.partition(":")
        if kind == "discord":
            guild = int(rest) if rest.isdigit() else 0
            return f"{SHARD_PREFIX}{shard_of(guild, self.shard_count)}/{self.shard_count}"
        if kind == "irc" and rest:
            return f"irc:{rest.partition(':')[0]}"
        return LOCAL

    def owns(self, server: str) -> bool:
        return self.key_of(server) in self.keys()

    def describe(self) -> str:
        """For log lines: ``Discord shards 0, 1 of 4; IRC network libera``."""
        parts = []
        if self.shard_ids is not None:
            ids = ", ".join(map(str, self.shard_ids))
            parts.append(f"Discord shard{'s' if len(self.shard_ids) > 1 else ''} {ids} "
                         f"of {self.shard_count}")  # fmt: skip
        parts += [f"IRC network {net}" for net in self.irc_networks]
        return "; ".join(parts) or "local tables"
