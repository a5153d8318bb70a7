"""The IRC adapter: IRC lines in, host events out.

* Channel lines that start with ``!`` or ``/`` (``!x`` becomes ``/x``) and short single-token
  lines (``CQ``; the host plays them only if the table option ``bare_cards`` is on) go to
  the host as :class:`~dokobot.host.events.Input`; so does every private message
  (``dm=True``, channel ``""``), where every line is a command (``hand`` is ``/hand``). A
  line that hit the protocol's 512-byte limit was cut by the server: it is marked
  ``truncated`` and the host refuses it as too long. See :mod:`dokobot.adapters.irc.text`.
* :class:`~dokobot.host.events.Public` becomes a ``PRIVMSG`` to the channel,
  :class:`~dokobot.host.events.Private` a ``NOTICE`` to the user's current nick (RFC 2812:
  bots answer with NOTICE, and never answer a NOTICE). IRC has no buttons: the choices
  the text does not show already are appended as the commands to type (``[!re]``).
* The rendering, the line budget (``max_line_bytes``, 400 UTF-8 bytes), the fair outbox
  with its token bucket (``flood_burst`` at once, then ``flood_rate`` per second), prompts,
  reminders and hands, what is dropped as out of date and the commands as typed are the
  text-chat layer's (:mod:`dokobot.adapters.textchat`); this adapter is its platform
  (:class:`~dokobot.adapters.textchat.platform.TextPlatform`): rooms are channels, a person
  is reached at his current nick, and a prompt goes only to somebody in one of the bot's
  channels.
* Ids: channel ``irc:{network}:{#chan lowercased}``, user ``irc:{network}:{stable id}``
  (:mod:`dokobot.adapters.irc.identities`: the server's ``CASEMAPPING``, nick changes in
  both directions, a nick history kept in the store across restarts). A nick change renames
  the seat (the service's ``rename``), so the channel reads the current nick.
* Prompts are never lost: whenever a player is seen (JOIN, NAMES, WHO, any message) the
  layer sends a prompt waiting for him that this connection has not sent (after reconnects
  of either side and restarts of the bot).
* Admin: the nick is in ``admins`` (case-insensitive) or, for a channel line, the nick is a
  channel operator there (``+o``, or the owner/admin prefixes ``~``/``&``). In a private
  message only the ``admins`` list counts. Nicks are not authenticated on IRC: use nicks
  that the network's services protect.
* The connection is kept up: when it drops, the adapter reconnects with exponential backoff
  (capped, with jitter) and joins its channels again; after a KICK it joins the channel
  again with the same backoff and says so there, with a summary of what the channel
  missed meanwhile (:mod:`dokobot.adapters.irc.kicks`). Each input is answered in a task of its own
  (a table waiting for its store holds up no other channel); a person's inputs reach the host
  in the order he sent them, and a channel's answers are sent in the order of its inputs
  (:mod:`dokobot.adapters.textchat.chat`); nothing the host or the library throws stops the
  adapter.
* The server password comes from ``DOKOBOT_IRC_PASSWORD`` only and is never logged.

The IRC protocol itself is pydle's (see ``dokobot/adapters/IRC_LIBRARY.md``), one
connection per attempt (:mod:`dokobot.adapters.irc.connection`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Sequence

from dokobot.host.contract import Host
from dokobot.host.events import Event

from ..textchat.backoff import backoff_delay
from ..textchat.chat import TextChat
from ..textchat.exports import Exports
from ..textchat.hosting import run_on_host
from ..textchat.outbox import Outbox, OutLine
from ..textchat.platform import TextPlatform
from ..textchat.sender import raise_if_cancelling
from .connection import Connection, logged
from .identities import Identities
from .kicks import Kicks
from .settings import TABLE_DEFAULTS, IrcSettings
from .text import SIGN, command_text

log = logging.getLogger("dokobot.adapters.irc")

REGISTER_TIMEOUT = 60.0
"""Seconds a new connection may take to register before it is dropped and retried."""

STABLE_AFTER = 60.0
"""A connection that stayed up this long resets the reconnect backoff."""

_CHANNEL_SIGILS = "#&+!"

ServiceLike = Host
"""The host as the adapter sees it (:class:`dokobot.host.contract.Host`)."""
ManagedService = Host


def _channel_id_part(channel: str) -> str:
    return channel.lower()


class IrcAdapter(TextPlatform):
    """Connects one IRC network to a host service (see the module docs): the text chat
    layer (:class:`~dokobot.adapters.textchat.chat.TextChat`) on an IRC connection."""

    sign = SIGN

    def __init__(
        self,
        service: ServiceLike,
        settings: IrcSettings,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.service = service
        service.table_defaults(TABLE_DEFAULTS)  # before the host restores its tables
        self.settings = settings
        self.prefix = f"irc:{settings.network}:"
        self.max_line_bytes = settings.max_line_bytes
        self.identities = Identities(
            self.prefix, online=self._is_online, on_change=self._nick_changed
        )
        exports = Exports(settings.export_dir, settings.export_url) if settings.export_dir else None
        self.chat = TextChat(
            service, self, burst=settings.flood_burst, rate=settings.flood_rate, exports=exports
        )
        self.joined: set[str] = set()
        """Channels (lowercased) the bot is in right now."""
        self._wanted = frozenset(_channel_id_part(c) for c in settings.channels)
        self._rng = rng or random.Random()
        self._conn: Connection | None = None
        self._online = asyncio.Event()
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.kicks = Kicks(
            prefix=self.prefix, settings=settings, host=service, delivery=self.chat.delivery,
            current=lambda: self._conn, joined=self.joined, stop=self._stop, rng=self._rng,
        )  # fmt: skip

    # -- public -------------------------------------------------------------------------

    @property
    def outbox(self) -> Outbox:
        """The lines waiting to be sent (the text chat's)."""
        return self.chat.outbox

    @property
    def registrations(self) -> int:
        """How often the adapter registered with the server (1 + reconnects)."""
        return self.chat.delivery.connections

    @property
    def sent(self) -> int:
        """Lines sent so far."""
        return self.chat.sender.sent

    @property
    def on_line(self) -> Callable[[OutLine], None] | None:
        """Called with every line sent (benchmarks count them)."""
        return self.chat.sender.on_line

    @on_line.setter
    def on_line(self, value: Callable[[OutLine], None] | None) -> None:
        self.chat.sender.on_line = value

    @property
    def nick(self) -> str | None:
        """The bot's current nick while connected."""
        conn = self._conn
        return str(conn.nickname) if conn is not None and self._online.is_set() else None

    async def run(self) -> None:
        """Connect and serve until :meth:`stop` (or cancellation), reconnecting as needed.

        It does not start or close the service; :func:`run_irc` does.
        """
        with logged("loading the nick history"):
            self.identities.load(await self.chat.names())
        try:
            await self.chat.serve(self._connection_loop)
        finally:
            await self.kicks.close()

    async def stop(self) -> None:
        """Quit the server and make :meth:`run` return."""
        self._stop.set()

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Wait until the bot is registered and in all its channels."""
        await asyncio.wait_for(self._ready.wait(), timeout)

    async def deliver(self, events: Sequence[Event]) -> None:
        """Queue the host's events for sending; this is the service's ``listener``.

        Events for other platforms or networks (ids without this adapter's prefix) are
        ignored, so one service can serve several adapters.
        """
        await self.chat.deliver(events)

    # -- the text chat's platform (see TextPlatform) ------------------------------------

    def room(self, channel: str) -> str | None:
        if not channel.startswith(self.prefix):
            return None
        name = channel[len(self.prefix) :]
        return name if name and name[0] in _CHANNEL_SIGILS else None

    def address(self, user: str) -> str | None:
        return self.identities.nick_for(user)

    def present(self, user: str) -> bool:
        nick = self.identities.nick_for(user)
        conn = self._conn
        return nick is not None and conn is not None and conn.is_present(nick)

    async def online(self) -> None:
        await self._online.wait()

    def keeps(self, room: str, text: str) -> bool:
        return self.kicks.keeps(_channel_id_part(room), text)

    async def send(self, line: OutLine, to: str) -> bool:
        conn = self._conn
        if conn is None or not self._online.is_set():
            return False
        try:
            await conn.rawmsg("NOTICE" if line.private else "PRIVMSG", to, line.text)
        except Exception:
            if conn.connected and conn is self._conn:
                raise
            # The connection went away: wait until it is replaced, then try again.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(conn.finished.wait(), 1.0)
            return False
        return True

    # -- connection -----------------------------------------------------------------------

    async def _connection_loop(self) -> None:
        settings = self.settings
        attempt = 0
        while not self._stop.is_set():
            conn = Connection(self, settings)
            self._conn = conn
            registered_at: float | None = None
            try:
                log.info(
                    "IRC: connecting to %s:%d (tls=%s) as %s",
                    settings.host,
                    settings.port,
                    settings.tls,
                    settings.nick,
                )
                await conn.connect(
                    hostname=settings.host,
                    port=settings.port,
                    tls=settings.tls,
                    tls_verify=settings.tls_verify,
                    password=IrcSettings.password(),
                    channels=list(settings.channels),
                )
                raise_if_cancelling()
                await self._wait_first((conn.ready, conn.finished, self._stop), REGISTER_TIMEOUT)
                if not conn.ready.is_set() and not conn.finished.is_set():
                    if not self._stop.is_set():
                        log.warning("IRC: registration timed out")
                else:
                    if conn.ready.is_set():
                        registered_at = time.monotonic()
                    await self._wait_first((conn.finished, self._stop), None)
            except asyncio.CancelledError:
                self._stop.set()  # so the connection below says QUIT
                raise
            except Exception as exc:  # OSError, TLS errors, timeouts, pydle errors
                log.warning(
                    "IRC: connection to %s:%d failed: %s: %s",
                    settings.host,
                    settings.port,
                    type(exc).__name__,
                    exc,
                )
            finally:
                self._forget(conn)
                await self._close(conn, quit=self._stop.is_set())
            if self._stop.is_set():
                break
            if registered_at is not None and time.monotonic() - registered_at >= STABLE_AFTER:
                attempt = 0
            delay = backoff_delay(
                attempt,
                initial=settings.reconnect_initial,
                cap=settings.reconnect_max,
                rng=self._rng,
            )
            attempt += 1
            log.warning("IRC: disconnected; reconnecting in %.1f s", delay)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)

    @staticmethod
    async def _wait_first(events: Sequence[asyncio.Event], timeout: float | None) -> None:
        waiters = [asyncio.create_task(event.wait()) for event in events]
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    def _forget(self, conn: Connection) -> None:
        if self._conn is conn:
            self._conn = None
            self._online.clear()
            self._ready.clear()
            self.joined.clear()

    @staticmethod
    async def _close(conn: Connection, *, quit: bool) -> None:
        with logged("closing the connection"):
            if conn.connected:
                if quit:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.quit(), 2.0)
                if conn.connected:
                    await conn.disconnect(expected=True)

    def _on_registered(self, conn: Connection) -> None:
        if conn is not self._conn:
            return
        self.chat.connected()
        self._online.set()
        log.info("IRC: registered as %s", conn.nickname)
        self._check_ready()

    def _on_self_join(self, conn: Connection, channel: str) -> None:
        if conn is self._conn:
            key = _channel_id_part(channel)
            self.joined.add(key)
            log.info("IRC: joined %s", channel)
            self.kicks.back(key)
            self._check_ready()

    def _on_self_leave(self, conn: Connection, channel: str) -> None:
        if conn is self._conn:
            self.joined.discard(_channel_id_part(channel))

    def _check_ready(self) -> None:
        if self._online.is_set() and self._wanted <= self.joined:
            self._ready.set()

    def _on_casemapping(self, conn: Connection, value: str) -> None:
        if conn is self._conn:
            self.identities.set_casemapping(value)
            log.info("IRC: casemapping %s", self.identities.casemapping)

    # -- people -------------------------------------------------------------------------

    def _is_online(self, nick: str) -> bool:
        conn = self._conn
        return conn is not None and self._online.is_set() and conn.is_present(nick)

    def _nick_changed(self, user: str, nick: str) -> None:
        """An identity goes by ``nick`` now (new, renamed, or back under an old nick): keep
        it in the history and let the host rename the seat, in order with the inputs.
        (``@account``: the identity is bound to a services account; kept, no rename.)"""
        self.chat.named(user, nick, rename=not nick.startswith("@"))

    def _on_seen(self, conn: Connection, nick: str, account: str | None = None) -> None:
        """``nick`` is here (JOIN, NAMES, WHO, a message): send a pending prompt again.

        Only a nick that belongs to an identity counts: someone who never wrote to the bot has
        no prompt waiting, and remembering every nick that passes through a channel would
        grow the identities (and the stored nick history) without bound. A message makes an
        identity (:meth:`_on_message`)."""
        if conn is not self._conn or not nick or conn.is_same_nick(nick, conn.nickname):
            return
        if self.identities.knows(nick, account):
            self.chat.seen(self.identities.user_id(nick, account))

    def _on_gone(self, conn: Connection, nick: str, channel: str | None) -> None:
        """``nick`` left (QUIT, or PART/KICK of a channel): a prompt sent before is missed."""
        if conn is not self._conn or not self.identities.knows(nick):
            return
        self.chat.gone(self.identities.user_id(nick))

    def _on_rename(self, conn: Connection, old: str, new: str) -> None:
        if conn is not self._conn:
            return
        if self.identities.knows(old):
            self.identities.rename(old, new)
        elif self.identities.knows(new):  # someone comes back under a nick of an identity
            self._on_seen(conn, new)

    def _on_kicked(self, conn: Connection, channel: str, by: str) -> None:
        if conn is self._conn:
            self.kicks.kicked(conn, channel, by)

    # -- input --------------------------------------------------------------------------

    def _on_message(
        self, conn: Connection, target: str, by: str, message: str, *, dm: bool
    ) -> None:
        if conn is not self._conn or not by or "." in by:
            return  # a stale connection, or a server message
        if conn.is_same_nick(by, conn.nickname):
            return
        cut, account = conn.cut, conn.account
        text = command_text(message, dm=dm)
        if text is not None:
            self.identities.user_id(by, account)  # who sends the bot a command gets an identity
        self._on_seen(conn, by, account)
        if text is None:
            return
        user = self.identities.user_id(by, account)
        admins = {self.identities.fold(nick) for nick in self.settings.admins}
        admin = self.identities.fold(by) in admins or (not dm and conn.is_op(target, by))
        channel = "" if dm else self.prefix + _channel_id_part(target)
        self.chat.said(channel, user, by, text, dm=dm, admin=admin, truncated=cut)


async def run_irc(
    service: ManagedService,
    settings: IrcSettings,
    *,
    restored: Sequence[Event] | None = None,
) -> None:
    """Run ``service`` on IRC until cancelled (for the command line).

    With ``restored`` (the events ``service.start()`` returned) the caller runs the
    service's life, as ``dokobot run`` does for several adapters at once: this function
    neither starts nor closes it. Without it, it starts the service first and closes it at
    the end. Unsolicited events (computer players, timeouts) reach IRC through
    ``service.listener``; a listener that is already set keeps getting every event too.
    """
    adapter = IrcAdapter(service, settings)
    await run_on_host(service, adapter.deliver, adapter.run, restored=restored)
