"""How IRC splits servers among processes: one process per network, whose lease is the
network's (``irc:NETWORK``), so each IRC table has one writer.

>>> part = network_part("libera")
>>> part.keys, part.key_of("irc:libera"), part.key_of("irc:oftc"), part.description
(('irc:libera',), 'irc:libera', 'irc:oftc', 'IRC network libera')
"""

from __future__ import annotations

from ...store.scope import Part

KIND = "irc"


def _network_key(server: str) -> str:
    network = server.partition(":")[2].partition(":")[0]
    return f"{KIND}:{network}"


def network_part(network: str) -> Part:
    """The IRC servers of a process connected to ``network``."""
    return Part(KIND, (f"{KIND}:{network}",), _network_key, f"IRC network {network}")
