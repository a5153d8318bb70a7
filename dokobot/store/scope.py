"""Which servers (and so which tables) one bot process serves, and the leases that make it
their only writer.

Every server belongs to exactly one lease key. How a chat splits its servers among
processes is the chat's own knowledge: its adapter declares a :class:`Part` (the prefix of
its server ids (their part before the first colon), the keys this process holds, the key of each of its servers, and an
:class:`Epoch` if the keys name how many ways the servers are split); the store knows
nothing of any chat. A server of a chat this process does not serve has a key nobody
holds (``KIND:``), every other server (the console, ``dokobot feed``) the key ``local``.
A process holds the leases of its keys; a table is written only by the holder of its
server's key, so every table, and every server's chip ledger, has one writer.

>>> even = Part("x", ("x:part:0/2",), lambda s: f"x:part:{int(s[2:] or 0) % 2}/2",
...             "x part 0 of 2", Epoch("x:part:", 2))
>>> s = Scope((even,))
>>> s.keys(), s.key_of("x:4"), s.owns("x:3"), s.key_of("y:7:z"), s.key_of("console")
(('x:part:0/2',), 'x:part:0/2', False, 'y:', 'local')
>>> Scope().keys(), Scope().owns("console"), Scope().describe()
(('local',), True, 'local tables')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

LOCAL = "local"


@dataclass(frozen=True, slots=True)
class Epoch:
    """Lease keys ``{family}{i}/{count}``: a chat's servers split ``count`` ways. A start
    with another count (a re-split) begins a new epoch and ends every lease of the old."""

    family: str
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("an epoch splits its servers at least one way")


@dataclass(frozen=True, slots=True)
class Part:
    """The servers of one chat that this process serves, as the chat's adapter declares
    them: its server ids are ``kind`` or start with ``kind:``; ``keys`` are the leases held; ``key_of`` gives
    the lease key of any server of the chat (held here or not); ``description`` is for log
    lines."""

    kind: str
    keys: tuple[str, ...]
    key_of: Callable[[str], str]
    description: str
    epoch: Epoch | None = None


@dataclass(frozen=True, slots=True)
class Scope:
    """The servers of one process: the parts of the chats it serves; ``local`` tables
    when it serves none."""

    parts: tuple[Part, ...] = ()

    def __post_init__(self) -> None:
        kinds = [p.kind for p in self.parts]
        if len(set(kinds)) != len(kinds):
            raise ValueError("two parts of one scope name the same chat")
        if sum(p.epoch is not None for p in self.parts) > 1:
            raise ValueError("at most one chat of a scope splits its servers by a count")

    @property
    def local(self) -> bool:
        return not self.parts

    @property
    def epoch(self) -> Epoch | None:
        """The epoch of the chat whose keys name a count, if one does."""
        return next((p.epoch for p in self.parts if p.epoch is not None), None)

    def keys(self) -> tuple[str, ...]:
        """The lease keys this process holds."""
        keys = [k for p in self.parts for k in p.keys]
        return tuple(keys) if keys else (LOCAL,)

    def key_of(self, server: str) -> str:
        """The lease key of ``server``."""
        kind, colon, _ = server.partition(":")
        for part in self.parts:
            if part.kind == kind:
                return part.key_of(server)
        return f"{kind}:" if colon else LOCAL

    def owns(self, server: str) -> bool:
        return self.key_of(server) in self.keys()

    def describe(self) -> str:
        """For log lines, e.g. ``shards 0, 1 of 4; network libera``."""
        return "; ".join(p.description for p in self.parts) or "local tables"
