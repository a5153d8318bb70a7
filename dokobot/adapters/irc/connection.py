"""One IRC connection: a pydle client that hands what the server says to the adapter.

pydle (see ``dokobot/adapters/IRC_LIBRARY.md``) speaks the protocol; this class works around
what pydle 1.2 gets wrong (lines handled out of order, users never forgotten, a multi-line
``CAP LS``, the password in the debug log), reads IRCv3 accounts where the server offers
them, marks a received line that hit the 512-byte limit, and calls the adapter's ``_on_…``
handlers. The adapter makes a new connection per attempt (see
:mod:`dokobot.adapters.irc.adapter`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any, Protocol

import pydle  # type: ignore[import-untyped, import-not-found, unused-ignore]

from ... import bounded
from ...bounded import Bounded
from .identities import Identities
from .settings import IrcSettings

log = logging.getLogger("dokobot.adapters.irc")

CUT_BYTES = 510
"""A received line this long (without CR LF) hit the protocol's 512-byte limit: it was cut."""

_OP_STATUSES = ("q", "a", "o")  # owner, admin, operator


class Handlers(Protocol):
    """What a connection tells its adapter (:class:`~dokobot.adapters.irc.adapter.IrcAdapter`),
    each with the connection it came from (a stale one is ignored)."""

    identities: Identities

    def _on_registered(self, conn: Connection) -> None: ...
    def _on_casemapping(self, conn: Connection, value: str) -> None: ...
    def _on_self_join(self, conn: Connection, channel: str) -> None: ...
    def _on_self_leave(self, conn: Connection, channel: str) -> None: ...
    def _on_seen(self, conn: Connection, nick: str, account: str | None = None) -> None: ...
    def _on_gone(self, conn: Connection, nick: str, channel: str | None) -> None: ...
    def _on_kicked(self, conn: Connection, channel: str, by: str) -> None: ...
    def _on_rename(self, conn: Connection, old: str, new: str) -> None: ...
    def _on_message(
        self, conn: Connection, target: str, by: str, message: str, *, dm: bool
    ) -> None: ...


@contextlib.contextmanager
def logged(what: str) -> Iterator[None]:
    """Log and swallow any exception: nothing may escape into the IRC library."""
    try:
        yield
    except Exception:
        log.exception("IRC: %s failed", what)


_PydleBase: Any = pydle.featurize(
    pydle.features.ircv3.CapabilityNegotiationSupport,
    pydle.features.ircv3.TaggedMessageSupport,
    pydle.features.ISUPPORTSupport,
    pydle.features.CTCPSupport,
    pydle.features.TLSSupport,
    pydle.features.RFC1459Support,
)


class Connection(_PydleBase):  # type: ignore[misc]
    """One IRC connection (a pydle client); the adapter makes a new one per attempt."""

    RECONNECT_ON_ERROR = False  # the adapter reconnects itself, with backoff and jitter
    DEFAULT_QUIT_MESSAGE = "dokobot"

    def __init__(self, adapter: Handlers, settings: IrcSettings) -> None:
        super().__init__(
            settings.nick,
            fallback_nicknames=[settings.nick + "_", settings.nick + "__"],
            username=settings.nick.lower()[:10],
            realname=settings.realname,
        )
        self._adapter = adapter
        self.cut = False
        """Whether the PRIVMSG being handled hit the 512-byte limit (its end was cut off)."""
        self.account: str | None = None
        """The services account of the PRIVMSG being handled (see ``_account_of_line``)."""
        self._cap_ls_more: list[str] = []
        self.accounts: Bounded[str, str] = Bounded(bounded.CAPS.users)
        """Accounts told by ``extended-join`` (nick as joined -> account, ``""``: none)."""
        self.finished = asyncio.Event()
        self.ready = asyncio.Event()

    # -- pydle workarounds (pinned to pydle 1.2; see IRC_LIBRARY.md) ---------------------

    async def on_data(self, data: bytes) -> None:
        """Handle received lines strictly one after another.

        pydle starts a task per line, so a later line could overtake an earlier one (a
        ``PRIVMSG`` before the ``NICK`` that renamed its sender).
        """
        self._receive_buffer += data
        while self._has_message():
            await self.on_raw(self._parse_message())

    async def _create_user(self, nickname: str) -> None:
        # pydle awaits this; its base versions are plain functions. No WHOIS round trip.
        super()._create_user(nickname)

    def _destroy_user(self, nickname: str, channel: str | None = None) -> None:
        """Forget a user who left a channel (PART, KICK) or the network (QUIT).

        pydle 1.2's RFC 1459 version only clears the mode lists and never removes the nick
        from the channels' user lists, so a player who quit would still look present.
        """
        super()._destroy_user(nickname, channel)
        if channel:
            infos = [self.channels[channel]] if channel in self.channels else []
        else:
            infos = list(self.channels.values())
        for info in infos:
            info["users"].discard(nickname)
        if not any(nickname in info["users"] for info in self.channels.values()):
            self.users.pop(nickname, None)

    async def rawmsg(self, command: str, *args: Any, **kwargs: Any) -> None:
        if str(command).upper() == "PASS":
            # pydle logs every line it sends at DEBUG level: the password must not be.
            message = str(self._create_message(command, *args, **kwargs))
            await self.connection.send(message.encode(self.encoding))
            return
        await super().rawmsg(command, *args, **kwargs)

    async def handle_forever(self) -> None:
        try:
            await super().handle_forever()
        except Exception as exc:
            log.warning("IRC: connection error: %s", type(exc).__name__)
        finally:
            self.finished.set()

    async def on_disconnect(self, expected: bool) -> None:
        self.finished.set()

    # -- events -------------------------------------------------------------------------

    async def on_connect(self) -> None:
        with logged("join after registration"):
            await super().on_connect()  # joins the configured channels
        with logged("registration"):
            self.ready.set()
            self._adapter._on_registered(self)

    async def on_isupport_casemapping(self, value: str) -> None:
        await super().on_isupport_casemapping(value)
        with logged("casemapping"):
            self._adapter._on_casemapping(self, value)

    # -- IRCv3 accounts (when the server offers them; ngIRCd does not) -------------------

    async def on_raw_cap_ls(self, params: list[str]) -> None:
        """Collect a multi-line ``CAP LS 302`` answer (``* :caps`` lines, then the last one)
        before choosing capabilities; pydle 1.2 reads only the first word of each line."""
        if len(params) > 1 and params[0] == "*":
            self._cap_ls_more.extend(params[1].split())
            return
        offered = [*self._cap_ls_more, *(params[0].split() if params else ())]
        self._cap_ls_more = []
        await super().on_raw_cap_ls([" ".join(offered)])

    async def on_capability_account_tag_available(self, value: str | None) -> bool:
        return True

    async def on_capability_extended_join_available(self, value: str | None) -> bool:
        return True

    def _account_of_line(self, message: Any) -> str | None:
        """The sender's account from an ``account`` tag: ``None`` when the server does not
        tell accounts, ``""`` when it does and the sender is not logged in."""
        if not self._capabilities.get("account-tag"):
            return None
        tags = getattr(message, "tags", None) or {}
        account = tags.get("account")
        return str(account) if account and account is not True else ""

    async def on_raw_join(self, message: Any) -> None:
        if self._capabilities.get("extended-join") and len(message.params) >= 3:
            nick = str(message.source).partition("!")[0]
            account = str(message.params[1])
            self.accounts[nick] = "" if account == "*" else account
            message = self._create_message("JOIN", message.params[0], source=message.source)
        await super().on_raw_join(message)

    async def on_raw_privmsg(self, message: Any) -> None:
        raw = str(getattr(message, "_raw", "") or "").rstrip("\r\n")
        if raw.startswith("@"):  # IRCv3 tags do not count toward the 512 bytes
            raw = raw.partition(" ")[2]
        self.cut = len(raw.encode(self.encoding, "replace")) >= CUT_BYTES
        self.account = self._account_of_line(message)
        await super().on_raw_privmsg(message)

    async def on_raw_366(self, message: Any) -> None:
        """End of NAMES: everybody in the channel is seen (a pending prompt is sent again)."""
        with logged("names"):
            channel = message.params[1] if len(message.params) > 1 else ""
            info = self.channels.get(channel) if channel else None
            for nick in sorted(info["users"]) if info else ():
                self._adapter._on_seen(self, nick)

    async def on_raw_352(self, message: Any) -> None:
        """A WHO reply line: the nick is seen."""
        with logged("who"):
            if len(message.params) > 5:
                self._adapter._on_seen(self, message.params[5])

    async def on_join(self, channel: str, user: str) -> None:
        with logged("join"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_join(self, channel)
            else:
                self._adapter._on_seen(self, user, self.accounts.pop(user, None))

    async def on_part(self, channel: str, user: str, message: str | None = None) -> None:
        with logged("part"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_leave(self, channel)
            else:
                self._adapter._on_gone(self, user, channel)

    async def on_quit(self, user: str, message: str | None = None) -> None:
        with logged("quit"):
            if not self.is_same_nick(user, self.nickname):
                self._adapter._on_gone(self, user, None)

    async def on_kick(self, channel: str, target: str, by: str, reason: str | None = None) -> None:
        with logged("kick"):
            if self.is_same_nick(target, self.nickname):
                log.warning("IRC: kicked from %s by %s", channel, by)
                self._adapter._on_kicked(self, channel, by)
            else:
                self._adapter._on_gone(self, target, channel)

    async def on_channel_message(self, target: str, by: str, message: str) -> None:
        with logged("channel message"):
            self._adapter._on_message(self, target, by, message, dm=False)

    async def on_private_message(self, target: str, by: str, message: str) -> None:
        with logged("private message"):
            self._adapter._on_message(self, target, by, message, dm=True)

    async def on_nick_change(self, old: str, new: str) -> None:
        with logged("nick change"):
            if self.is_same_nick(new, self.nickname):
                return  # our own nick (or the registration's fake NICK)
            self._adapter._on_rename(self, old, new)

    # -- queries ------------------------------------------------------------------------

    def is_present(self, nick: str) -> bool:
        """Whether ``nick`` is in one of the bot's channels now."""
        folded = self._adapter.identities.fold(nick)
        fold = self._adapter.identities.fold
        return any(
            fold(other) == folded for info in self.channels.values() for other in info["users"]
        )

    def is_op(self, channel: str, nick: str) -> bool:
        """Whether ``nick`` has operator status (or higher) in ``channel``."""
        info = self.channels.get(channel)
        if not info:
            return False
        modes = info.get("modes", {})
        for status in _OP_STATUSES:
            holders = modes.get(status) or ()
            if any(self.is_same_nick(nick, holder) for holder in holders):
                return True
        return False
