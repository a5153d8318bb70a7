"""Discord's own defaults for the new tables of its channels (where the configuration set
none): a turn clock of :data:`TURN_TIMEOUT` seconds, and no bare cards (a bot without the
message-content intent sees no chat lines)."""

from __future__ import annotations

from typing import Final

from dokobot.host.options import ChatDefaults

TURN_TIMEOUT: Final = 30
"""Seconds of a Discord table's turn clock: a reminder after 30 s, a computer player stands
in after 60 s (a person walks away from a phone more often than from a terminal)."""

TABLE_DEFAULTS: Final = ChatDefaults(
    "discord:", "Discord", (("turn_timeout", str(TURN_TIMEOUT)), ("bare_cards", "off"))
)
"""What the adapter declares to the host (:meth:`~dokobot.host.contract.Host.table_defaults`)."""
