"""The IRC adapter: IRC lines in, host events out.

* Channel lines that start with ``!`` or ``/`` (``!x`` becomes ``/x``) and short single-token
  lines (``CQ``) go to the host as :class:`~dokobot.host.events.Input`; so does every
  private message (``dm=True``, channel ``""``). See :mod:`dokobot.adapters.irc.text`.
* :class:`~dokobot.host.events.Public` becomes a ``PRIVMSG`` to the channel,
  :class:`~dokobot.host.events.Private` a ``NOTICE`` to the user's current nick (RFC 2812:
  bots answer with NOTICE, and never answer a NOTICE). IRC has no buttons: the choices
  the text does not show already are appended as the commands to type (``[!re]``).
  Texts are split into lines of at most ``max_line_bytes`` (400) UTF-8 bytes.
* Every outgoing line passes a token bucket (``flood_burst`` at once, then ``flood_rate``
  per second), so a trick's output never trips the server's flood limits.
* Ids: channel ``irc:{network}:{#chan lowercased}``, user ``irc:{network}:{stable id}``
  (:mod:`dokobot.adapters.irc.identities`; nick changes are followed).
* Admin: the nick is in ``admins`` (case-insensitive) or, for a channel line, the nick is a
  channel operator there (``+o``, or the owner/admin prefixes ``~``/``&``). In a private
  message only the ``admins`` list counts. Nicks are not authenticated on IRC: use nicks
  that the network's services protect.
* The connection is kept up: when it drops, the adapter reconnects with exponential backoff
  (capped, with jitter) and joins its channels again. Inputs are handled one at a time in
  the order they arrived; nothing the host or the library throws stops the adapter.
* The server password comes from ``DOKOBOT_IRC_PASSWORD`` only and is never logged.

The IRC protocol itself is pydle's (see ``dokobot/adapters/IRC_LIBRARY.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Protocol

import pydle  # type: ignore[import-untyped, import-not-found, unused-ignore]

from dokobot.host.events import Event, Input, Private, Public

from .flood import Outbox, OutLine, TokenBucket, backoff_delay
from .identities import Identities, irc_fold
from .settings import IrcSettings
from .text import command_text, split_text, with_choices

log = logging.getLogger("dokobot.adapters.irc")

Listener = Callable[[list[Event]], Awaitable[None]]

REGISTER_TIMEOUT = 60.0
"""Seconds a new connection may take to register before it is dropped and retried."""

STABLE_AFTER = 60.0
"""A connection that stayed up this long resets the reconnect backoff."""

_CHANNEL_SIGILS = "#&+!"
_OP_STATUSES = ("q", "a", "o")  # owner, admin, operator


class ServiceLike(Protocol):
    """What the adapter needs of the host service."""

    listener: Listener | None

    async def handle(self, inp: Input) -> list[Event]: ...


class ManagedService(ServiceLike, Protocol):
    """A host service whose life the adapter runs (:func:`run_irc`)."""

    async def start(self) -> list[Event]: ...

    async def close(self) -> None: ...


@contextlib.contextmanager
def _logged(what: str) -> Iterator[None]:
    """Log and swallow any exception: nothing may escape into the IRC library."""
    try:
        yield
    except Exception:
        log.exception("IRC: %s failed", what)


def _channel_id_part(channel: str) -> str:
    return channel.lower()


_PydleBase: Any = pydle.featurize(
    pydle.features.ISUPPORTSupport,
    pydle.features.CTCPSupport,
    pydle.features.TLSSupport,
    pydle.features.RFC1459Support,
)


class _Connection(_PydleBase):  # type: ignore[misc]
    """One IRC connection (a pydle client); the adapter makes a new one per attempt."""

    RECONNECT_ON_ERROR = False  # the adapter reconnects itself, with backoff and jitter
    DEFAULT_QUIT_MESSAGE = "dokobot"

    def __init__(self, adapter: IrcAdapter, settings: IrcSettings) -> None:
        super().__init__(
            settings.nick,
            fallback_nicknames=[settings.nick + "_", settings.nick + "__"],
            username=settings.nick.lower()[:10],
            realname=settings.realname,
        )
        self._adapter = adapter
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
        with _logged("join after registration"):
            await super().on_connect()  # joins the configured channels
        with _logged("registration"):
            self.ready.set()
            self._adapter._on_registered(self)

    async def on_join(self, channel: str, user: str) -> None:
        with _logged("join"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_join(self, channel)

    async def on_part(self, channel: str, user: str, message: str | None = None) -> None:
        with _logged("part"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_leave(self, channel)

    async def on_kick(self, channel: str, target: str, by: str, reason: str | None = None) -> None:
        with _logged("kick"):
            if self.is_same_nick(target, self.nickname):
                log.warning("IRC: kicked from %s by %s", channel, by)
                self._adapter._on_self_leave(self, channel)

    async def on_channel_message(self, target: str, by: str, message: str) -> None:
        with _logged("channel message"):
            self._adapter._on_message(self, target, by, message, dm=False)

    async def on_private_message(self, target: str, by: str, message: str) -> None:
        with _logged("private message"):
            self._adapter._on_message(self, target, by, message, dm=True)

    async def on_nick_change(self, old: str, new: str) -> None:
        with _logged("nick change"):
            if self.is_same_nick(new, self.nickname):
                return  # our own nick (or the registration's fake NICK)
            self._adapter.identities.rename(old, new)

    # -- queries ------------------------------------------------------------------------

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


class IrcAdapter:
    """Connects one IRC network to a host service (see the module docs)."""

    def __init__(
        self,
        service: ServiceLike,
        settings: IrcSettings,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.service = service
        self.settings = settings
        self.prefix = f"irc:{settings.network}:"
        self.identities = Identities(self.prefix)
        self.bucket = TokenBucket(settings.flood_burst, settings.flood_rate)
        self.outbox = Outbox()
        self.registrations = 0
        """How often the adapter registered with the server (1 + reconnects)."""
        self.sent = 0
        """Lines sent so far."""
        self.joined: set[str] = set()
        """Channels (lowercased) the bot is in right now."""
        self._inbox: asyncio.Queue[Input] = asyncio.Queue(maxsize=1000)
        self._admins = frozenset(irc_fold(nick) for nick in settings.admins)
        self._wanted = frozenset(_channel_id_part(c) for c in settings.channels)
        self._rng = rng or random.Random()
        self._conn: _Connection | None = None
        self._online = asyncio.Event()
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()

    # -- public -------------------------------------------------------------------------

    @property
    def nick(self) -> str | None:
        """The bot's current nick while connected."""
        conn = self._conn
        return str(conn.nickname) if conn is not None and self._online.is_set() else None

    async def run(self) -> None:
        """Connect and serve until :meth:`stop` (or cancellation), reconnecting as needed.

        It does not start or close the service; :func:`run_irc` does.
        """
        workers = [
            asyncio.create_task(self._input_worker(), name="irc-input"),
            asyncio.create_task(self._sender(), name="irc-sender"),
        ]
        try:
            await self._connection_loop()
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

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
        for event in events:
            with _logged(f"queueing {type(event).__name__}"):
                self._queue_event(event)

    # -- connection -----------------------------------------------------------------------

    async def _connection_loop(self) -> None:
        settings = self.settings
        attempt = 0
        while not self._stop.is_set():
            conn = _Connection(self, settings)
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
                _raise_if_cancelling()
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

    def _forget(self, conn: _Connection) -> None:
        if self._conn is conn:
            self._conn = None
            self._online.clear()
            self._ready.clear()
            self.joined.clear()

    @staticmethod
    async def _close(conn: _Connection, *, quit: bool) -> None:
        with _logged("closing the connection"):
            if conn.connected:
                if quit:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.quit(), 2.0)
                if conn.connected:
                    await conn.disconnect(expected=True)

    def _on_registered(self, conn: _Connection) -> None:
        if conn is not self._conn:
            return
        self.registrations += 1
        self._online.set()
        log.info("IRC: registered as %s", conn.nickname)
        self._check_ready()

    def _on_self_join(self, conn: _Connection, channel: str) -> None:
        if conn is self._conn:
            self.joined.add(_channel_id_part(channel))
            log.info("IRC: joined %s", channel)
            self._check_ready()

    def _on_self_leave(self, conn: _Connection, channel: str) -> None:
        if conn is self._conn:
            self.joined.discard(_channel_id_part(channel))

    def _check_ready(self) -> None:
        if self._online.is_set() and self._wanted <= self.joined:
            self._ready.set()

    # -- input --------------------------------------------------------------------------

    def _on_message(
        self, conn: _Connection, target: str, by: str, message: str, *, dm: bool
    ) -> None:
        if conn is not self._conn or not by or "." in by:
            return  # a stale connection, or a server message
        if conn.is_same_nick(by, conn.nickname):
            return
        text = command_text(message, dm=dm)
        if text is None:
            return
        user = self.identities.user_id(by)
        admin = irc_fold(by) in self._admins or (not dm and conn.is_op(target, by))
        channel = "" if dm else self.prefix + _channel_id_part(target)
        inp = Input(channel=channel, user=user, name=by, text=text, dm=dm, admin=admin)
        try:
            self._inbox.put_nowait(inp)
        except asyncio.QueueFull:
            log.warning("IRC: input queue full; dropping a line from %s", by)

    async def _input_worker(self) -> None:
        while True:
            inp = await self._inbox.get()
            try:
                events = await self.service.handle(inp)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("IRC: the host failed on an input from %s", inp.name)
                continue
            await self.deliver(events)

    # -- output -------------------------------------------------------------------------

    def _queue_event(self, event: Event) -> None:
        limit = self.settings.max_line_bytes
        if isinstance(event, Public):
            target = self._channel_target(event.channel)
            if target is None:
                return
            for line in split_text(event.text, limit):
                self.outbox.put(OutLine("PRIVMSG", target, line))
        elif isinstance(event, Private):
            if not event.user.startswith(self.prefix):
                return
            for line in split_text(with_choices(event.text, event.choices), limit):
                self.outbox.put(OutLine("NOTICE", event.user, line, private=True))

    def _channel_target(self, channel_id: str) -> str | None:
        if not channel_id.startswith(self.prefix):
            return None
        name = channel_id[len(self.prefix) :]
        return name if name and name[0] in _CHANNEL_SIGILS else None

    async def _sender(self) -> None:
        while True:
            line = await self.outbox.get()
            with _logged("sending"):
                await self._send(line)
            _raise_if_cancelling()

    async def _send(self, line: OutLine) -> None:
        """Send one line once a connection is up and the bucket has a token.

        A line that cannot go out because the connection dropped waits for the next one.
        """
        while True:
            await self._online.wait()
            await self.bucket.acquire()
            conn = self._conn
            if conn is None or not self._online.is_set():
                continue
            target = line.target
            if line.private:
                nick = self.identities.nick_for(line.target)
                if nick is None:
                    log.info("IRC: %s has no nick now; private message dropped", line.target)
                    return
                target = nick
            try:
                await conn.rawmsg(line.command, target, line.text)
            except Exception as exc:
                if conn.connected and conn is self._conn:
                    log.warning("IRC: could not send a line: %s: %s", type(exc).__name__, exc)
                    return
                # The connection went away: wait until it is replaced, then try again.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(conn.finished.wait(), 1.0)
                continue
            self.sent += 1
            return


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
    previous = service.listener

    async def listener(events: list[Event]) -> None:
        try:
            await adapter.deliver(events)
        finally:
            if previous is not None:
                await previous(events)

    service.listener = listener
    owned = restored is None
    try:
        await adapter.deliver(await service.start() if restored is None else restored)
        await adapter.run()
    finally:
        if service.listener is listener:
            service.listener = previous
        if owned:
            await service.close()


def _raise_if_cancelling() -> None:
    """Re-raise a cancellation that ``asyncio.wait_for`` dropped (CPython 3.11 bug, fixed in
    3.12): pydle sends every line through ``wait_for``, and a lost cancellation would make
    shutdown hang."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
