"""An IRC adapter without a server: its current connection is a stand-in that answers what
the adapter's line handlers ask (own nick, operator status), so unit tests can feed it lines
(``adapter._on_message(conn, …)``) and look at what it queues or remembers."""

from __future__ import annotations

from typing import Any

from dokobot.adapters.irc.adapter import IrcAdapter, IrcSettings


class OfflineConnection:
    """The parts of a pydle connection that the adapter's handlers read."""

    cut = False
    account = None
    nickname = "dokobot"

    def is_same_nick(self, a: str, b: str) -> bool:
        return a.lower() == b.lower()

    def is_op(self, target: str, nick: str) -> bool:
        return False


def offline_adapter(service: Any) -> tuple[IrcAdapter, Any]:
    """An adapter of network ``net`` in channel ``#c`` and its (stand-in) connection."""
    adapter = IrcAdapter(service, IrcSettings(host="h", network="net", channels=("#c",)))
    conn: Any = OfflineConnection()
    adapter._conn = conn
    return adapter, conn
