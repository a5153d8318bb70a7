"""Settings of the IRC adapter."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from dokobot.host.options import ChatDefaults

PASSWORD_ENV = "DOKOBOT_IRC_PASSWORD"
"""The server password (``PASS``) is read from this environment variable, never from the
config file, and never logged."""

_CHANNEL_SIGILS = "#&+!"


@dataclass(frozen=True, slots=True)
class IrcSettings:
    """Where and how the bot connects.

    ``network`` names the network in ids (``irc:{network}:#chan``); keep it stable, since
    tables and scores are stored under these ids. ``admins`` are nicks with admin rights
    (case-insensitive); channel operators (``+o`` and above) are admins in their channel
    too. ``flood_burst`` lines go out at once, then ``flood_rate`` lines per second.

    ``export_dir`` and ``export_url`` (both or neither): ``/export`` writes the file into
    ``export_dir`` under a random name and answers with one line, ``export_url`` plus that
    name (serve the directory with any web server). Without them an export is sent packed
    into a few NOTICE lines.
    """

    host: str
    port: int = 6697
    tls: bool = True
    nick: str = "dokobot"
    channels: tuple[str, ...] = ()
    network: str = "irc"
    admins: tuple[str, ...] = ()
    flood_burst: int = 4
    flood_rate: float = 1.0
    tls_verify: bool = True
    reconnect_initial: float = 2.0
    reconnect_max: float = 300.0
    max_line_bytes: int = 400
    realname: str = "dokobot, Doppelkopf"
    export_dir: str = ""
    export_url: str = ""

    def __post_init__(self) -> None:
        if not self.host:
            raise ValueError("irc: host is required")
        if not 0 < self.port < 65536:
            raise ValueError(f"irc: bad port {self.port}")
        if not self.nick or any(ch in self.nick for ch in " ,*?!@#:"):
            raise ValueError(f"irc: bad nick {self.nick!r}")
        if not self.network or ":" in self.network:
            raise ValueError(f"irc: bad network name {self.network!r}")
        for channel in self.channels:
            if not channel or channel[0] not in _CHANNEL_SIGILS or " " in channel:
                raise ValueError(f"irc: bad channel name {channel!r}")
        if self.flood_burst < 1 or self.flood_rate <= 0:
            raise ValueError("irc: flood_burst must be >= 1 and flood_rate > 0")
        if self.reconnect_initial <= 0 or self.reconnect_max < self.reconnect_initial:
            raise ValueError("irc: need 0 < reconnect_initial <= reconnect_max")
        if bool(self.export_dir) != bool(self.export_url):
            raise ValueError("irc: export_dir and export_url go together")
        if not 64 <= self.max_line_bytes <= 450:
            raise ValueError("irc: max_line_bytes must be between 64 and 450")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> IrcSettings:
        """Build settings from a config mapping (e.g. the ``irc:`` section of the YAML file).

        >>> IrcSettings.from_mapping({"host": "irc.example.org", "channels": ["#Doko"]}).channels
        ('#Doko',)
        """
        known = {field.name for field in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"irc: unknown settings {sorted(unknown)}")
        values: dict[str, Any] = dict(data)
        for key in ("channels", "admins"):
            if key in values:
                value = values[key]
                if isinstance(value, str):
                    value = [value]
                if not isinstance(value, Sequence):
                    raise ValueError(f"irc: {key} must be a list")
                values[key] = tuple(str(item) for item in value)
        return cls(**values)

    @staticmethod
    def password() -> str | None:
        """The server password from the environment, if any."""
        return os.environ.get(PASSWORD_ENV) or None


TURN_TIMEOUT: Final = 60
"""Seconds of an IRC table's turn clock: a reminder after 60 s, a computer player stands in
after 120 s (commands are typed, and the bot's lines are paced at about one a second), so a
table never stands still when a move is lost (a player gone, the bot kicked)."""

TABLE_DEFAULTS: Final = ChatDefaults(
    "irc:", "IRC", (("turn_timeout", str(TURN_TIMEOUT)), ("bare_cards", "off"))
)
"""IRC's own defaults for the new tables of its channels (where the configuration set
none): the turn clock, and no bare cards in channels, so chat such as ``11`` or ``ha``
never plays a card (private messages always take them)."""
