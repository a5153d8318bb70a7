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
* A line budget (one connection carries every table at about one line per second): the
  channel lines of one batch are packed into as few lines of at most ``max_line_bytes``
  (400) UTF-8 bytes as fit (:data:`LEFT_OUT` kinds are not said: each card, since the
  trick line names all four and every prompt carries the trick so far); one person's
  events of a batch likewise. A prompt whose turn a channel line of the same batch names
  (:data:`CUES`: a trick's winner leads) is not sent: that line is it. A hand dealt waits
  for its player's next prompt and goes in the same line.
* Output is fair (:class:`~dokobot.adapters.irc.flood.Outbox`): a person's answer to his
  own command takes the next free line; then the channel lines and prompts, then notes,
  then long answers; receivers take turns; a message of several lines is never split; a
  prompt goes after the channel line of the move before it. What lost its meaning while it
  waited is dropped (the service's ``decision`` against the event's ``marker``; a person's
  session). Every line passes a token bucket (``flood_burst`` at once, then
  ``flood_rate`` per second). The service's turn timer starts only when a prompt (or the
  channel line that is it) was really sent: the adapter calls ``pace`` once and
  ``prompt_sent`` for each.
* Ids: channel ``irc:{network}:{#chan lowercased}``, user ``irc:{network}:{stable id}``
  (:mod:`dokobot.adapters.irc.identities`: the server's ``CASEMAPPING``, nick changes in
  both directions, a nick history kept in the store across restarts). A nick change renames
  the seat (the service's ``rename``), so the channel reads the current nick.
* Prompts are never lost: a prompt for a player who is not in the bot's channels is held
  back, and whenever a player is seen (JOIN, NAMES, WHO, any message) and the service's
  ``pending_prompts`` has a prompt for them that they have not been sent on this connection,
  it is sent again (after reconnects of either side and restarts of the bot).
* Admin: the nick is in ``admins`` (case-insensitive) or, for a channel line, the nick is a
  channel operator there (``+o``, or the owner/admin prefixes ``~``/``&``). In a private
  message only the ``admins`` list counts. Nicks are not authenticated on IRC: use nicks
  that the network's services protect.
* The connection is kept up: when it drops, the adapter reconnects with exponential backoff
  (capped, with jitter) and joins its channels again; after a KICK it joins the channel
  again with the same backoff and says so there, with a summary of what the channel
  missed meanwhile. Inputs are handled one at a time in the
  order they arrived; nothing the host or the library throws stops the adapter.
* The server password comes from ``DOKOBOT_IRC_PASSWORD`` only and is never logged.

The IRC protocol itself is pydle's (see ``dokobot/adapters/IRC_LIBRARY.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pydle  # type: ignore[import-untyped, import-not-found, unused-ignore]

from dokobot.host.commands import aliases
from dokobot.host.contract import Host
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.i18n import card_text, render

from ... import bounded
from ...bounded import Bounded
from .flood import ANSWER, BULK, GAME, NOTES, Outbox, OutLine, TokenBucket, Unit, backoff_delay
from .identities import Identities
from .settings import IrcSettings
from .text import command_text, compact_help, pack_lines, score_lines, with_choices

log = logging.getLogger("dokobot.adapters.irc")

REGISTER_TIMEOUT = 60.0
"""Seconds a new connection may take to register before it is dropped and retried."""

STABLE_AFTER = 60.0
"""A connection that stayed up this long resets the reconnect backoff."""

_CHANNEL_SIGILS = "#&+!"
_OP_STATUSES = ("q", "a", "o")  # owner, admin, operator

PROMPT_KINDS = ("turn", "reservation")
"""Kinds of private events that ask a player to act (the turn timer starts when one left)."""

STRICT_KINDS = frozenset({*PROMPT_KINDS, "reminder", "hint"})
"""Private events about one decision: dropped unsent once that decision is past."""

LEFT_OUT = frozenset({"card", "detail", "score", "ask", "healthy"})
"""Kinds of channel lines IRC leaves out: each card (the trick line names all four, the
prompts carry the trick so far), the value items of a result and the score list after a
game (``!score N`` and ``!score`` show them on request), who is asked for a reservation
(the prompt asks him) and each "healthy" (the contract line says it; a reservation is said
at once)."""

CUES = frozenset({"trick", "lead"})
"""Kinds of channel lines that name the player who must act next: that player's prompt is
not sent in a notice of its own (a trick's winner leads; who leads the first trick)."""

PACK_AFTER = 4
"""An answer of up to this many (packed) lines takes the next free slot; a longer one is
sent when nothing else waits (or after its :data:`~dokobot.adapters.irc.flood.WAIT_LIMIT`)."""

MISSED_KEPT = 40
"""Channel lines kept for the summary after a KICK (the newest)."""

CUT_BYTES = 510
"""A received line this long (without CR LF) hit the protocol's 512-byte limit: it was cut."""

EXPORTS_KEPT = 200
"""Export files kept in ``export_dir``; older ones are removed."""

JOIN_WAIT = 5.0
"""Seconds to wait for the server to confirm a re-JOIN after a KICK."""


@dataclass(frozen=True, slots=True)
class _Rename:
    """A nick change, handed to the host in order with the inputs."""

    user: str
    nick: str


ServiceLike = Host
"""The host as the adapter sees it (:class:`dokobot.host.contract.Host`)."""
ManagedService = Host


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
    pydle.features.ircv3.CapabilityNegotiationSupport,
    pydle.features.ircv3.TaggedMessageSupport,
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
        with _logged("join after registration"):
            await super().on_connect()  # joins the configured channels
        with _logged("registration"):
            self.ready.set()
            self._adapter._on_registered(self)

    async def on_isupport_casemapping(self, value: str) -> None:
        await super().on_isupport_casemapping(value)
        with _logged("casemapping"):
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
        with _logged("names"):
            channel = message.params[1] if len(message.params) > 1 else ""
            info = self.channels.get(channel) if channel else None
            for nick in sorted(info["users"]) if info else ():
                self._adapter._on_seen(self, nick)

    async def on_raw_352(self, message: Any) -> None:
        """A WHO reply line: the nick is seen."""
        with _logged("who"):
            if len(message.params) > 5:
                self._adapter._on_seen(self, message.params[5])

    async def on_join(self, channel: str, user: str) -> None:
        with _logged("join"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_join(self, channel)
            else:
                self._adapter._on_seen(self, user, self.accounts.pop(user, None))

    async def on_part(self, channel: str, user: str, message: str | None = None) -> None:
        with _logged("part"):
            if self.is_same_nick(user, self.nickname):
                self._adapter._on_self_leave(self, channel)
            else:
                self._adapter._on_gone(self, user, channel)

    async def on_quit(self, user: str, message: str | None = None) -> None:
        with _logged("quit"):
            if not self.is_same_nick(user, self.nickname):
                self._adapter._on_gone(self, user, None)

    async def on_kick(self, channel: str, target: str, by: str, reason: str | None = None) -> None:
        with _logged("kick"):
            if self.is_same_nick(target, self.nickname):
                log.warning("IRC: kicked from %s by %s", channel, by)
                self._adapter._on_kicked(self, channel, by)
            else:
                self._adapter._on_gone(self, target, channel)

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
        self.identities = Identities(
            self.prefix, online=self._is_online, on_change=self._nick_changed
        )
        self._nick_writes: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._prompted: Bounded[str, tuple[str, int | None]] = Bounded(bounded.CAPS.users)
        """user id -> (text of the prompt queued for them, registration it went out on)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.bucket = TokenBucket(settings.flood_burst, settings.flood_rate)
        self.outbox = Outbox()
        self.on_line: Callable[[OutLine], None] | None = None
        """Called with every line sent (benchmarks count them)."""
        self._sessions: Bounded[str, int] = Bounded(bounded.CAPS.users)
        """user id -> how often they left (QUIT, PART, KICK): what was queued for an
        earlier session is not delivered into the next one."""
        self._hands: Bounded[str, tuple[Private, int]] = Bounded(bounded.CAPS.users)
        """user id -> (the hand dealt to him, session): it goes with his next prompt."""
        self._shown: Bounded[str, tuple[int, ...]] = Bounded(bounded.CAPS.users)
        """user id -> the hand (display order) in the last line sent to him that showed it:
        a card number he types means a card of that hand (see :func:`_resolve_number`)."""
        self._kicked: dict[str, str] = {}
        """Channels (lowercased) the bot was kicked from -> who kicked it."""
        self._missed: dict[str, list[str]] = {}
        """Channel lines that could not be said while kicked, for the summary on rejoin."""
        service.pace(self.prefix)  # the turn timer starts when a prompt really left
        self.registrations = 0
        """How often the adapter registered with the server (1 + reconnects)."""
        self.sent = 0
        """Lines sent so far."""
        self.joined: set[str] = set()
        """Channels (lowercased) the bot is in right now."""
        self._inbox: asyncio.Queue[Input | _Rename] = asyncio.Queue(maxsize=1000)
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
        with _logged("loading the nick history"):
            history = await self.service.nick_history(self.prefix)
            self.identities.load((user, nick[len(self.prefix) :]) for user, nick in history)
        workers = [
            asyncio.create_task(self._input_worker(), name="irc-input"),
            asyncio.create_task(self._sender(), name="irc-sender"),
            asyncio.create_task(self._nick_writer(), name="irc-nicks"),
        ]
        try:
            await self._connection_loop()
        finally:
            for worker in [*workers, *self._tasks]:
                worker.cancel()
            await asyncio.gather(*workers, *self._tasks, return_exceptions=True)

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
        with _logged("queueing events"):
            self._queue_batch(events)

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
        # Prompts that went out on an earlier connection may have been missed: send again
        # when their player is seen; those still queued go out on this connection.
        for user in [u for u, p in self._prompted.items() if p[1] is not None]:
            del self._prompted[user]
        self._online.set()
        log.info("IRC: registered as %s", conn.nickname)
        self._check_ready()

    def _on_self_join(self, conn: _Connection, channel: str) -> None:
        if conn is self._conn:
            key = _channel_id_part(channel)
            self.joined.add(key)
            log.info("IRC: joined %s", channel)
            if key in self._kicked:
                self._back_after_kick(key)
            self._check_ready()

    def _back_after_kick(self, key: str) -> None:
        """Back in a channel after a KICK: say so, with what the channel missed, once; if a
        game runs there, name who is to act (a move typed in the channel meanwhile never
        reached the bot) and send a person on turn the prompt again."""
        by = self._kicked.pop(key)
        missed = self._missed.pop(key, [])
        channel_id = self.prefix + key
        lang = self._language(channel_id)
        turn = self.service.on_turn(channel_id)
        if turn is None:
            text = render(lang, "irc_rejoined", {"by": by})
        else:
            text = render(lang, "irc_rejoined_turn", {"by": by, "player": turn[0]})
        limit = self.settings.max_line_bytes
        for start in range(max(0, len(missed) - MISSED_KEPT), len(missed)):
            # the newest lines that fit into two more lines
            summary = render(lang, "irc_missed", {"lines": " · ".join(missed[start:])})
            if len(pack_lines(summary, limit)) <= 2:
                text += "\n" + summary
                break
        target = self._channel_target(channel_id)
        if target is not None:
            self.outbox.put(Unit("PRIVMSG", target, pack_lines(text, limit)))
        if turn is not None and turn[1] is not None:
            self._prompted.pop(turn[1], None)  # sent before the KICK: send it again
            self._resend(turn[1])

    def _on_self_leave(self, conn: _Connection, channel: str) -> None:
        if conn is self._conn:
            self.joined.discard(_channel_id_part(channel))

    def _check_ready(self) -> None:
        if self._online.is_set() and self._wanted <= self.joined:
            self._ready.set()

    def _on_casemapping(self, conn: _Connection, value: str) -> None:
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
        self._nick_writes.put_nowait((user, nick))
        if nick.startswith("@"):
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._inbox.put_nowait(_Rename(user, nick))

    async def _nick_writer(self) -> None:
        while True:
            user, nick = await self._nick_writes.get()
            with _logged("storing a nick"):
                await self.service.remember_nick(user, self.prefix + nick)

    def _on_seen(self, conn: _Connection, nick: str, account: str | None = None) -> None:
        """``nick`` is here (JOIN, NAMES, WHO, a message): send a pending prompt again.

        Only a nick that belongs to an identity counts: someone who never wrote to the bot has
        no prompt waiting, and remembering every nick that passes through a channel would
        grow the identities (and the stored nick history) without bound. A message makes an
        identity (:meth:`_on_message`)."""
        if conn is not self._conn or not nick or conn.is_same_nick(nick, conn.nickname):
            return
        if self.identities.knows(nick, account):
            self._resend(self.identities.user_id(nick, account))

    def _resend(self, user: str) -> None:
        events = self.service.pending_prompts(user)
        prompts = [e for e in events if isinstance(e, Private) and e.kind in PROMPT_KINDS]
        if not prompts or self._prompted.get(user, ("",))[0] == prompts[-1].text:
            return  # nothing waits, or this prompt is queued or was sent on this connection
        log.info("IRC: sending a pending prompt again")
        self._queue_batch(events)  # the hand, then the prompt

    def _on_gone(self, conn: _Connection, nick: str, channel: str | None) -> None:
        """``nick`` left (QUIT, or PART/KICK of a channel): a prompt sent before is missed."""
        if conn is not self._conn or not self.identities.knows(nick):
            return
        user = self.identities.user_id(nick)
        self._prompted.pop(user, None)
        self._sessions[user] = self._sessions.get(user, 0) + 1
        self.outbox.kick()

    def _on_rename(self, conn: _Connection, old: str, new: str) -> None:
        if conn is not self._conn:
            return
        if self.identities.knows(old):
            self.identities.rename(old, new)
        elif self.identities.knows(new):  # someone comes back under a nick of an identity
            self._on_seen(conn, new)

    def _on_kicked(self, conn: _Connection, channel: str, by: str) -> None:
        if conn is not self._conn:
            return
        key = _channel_id_part(channel)
        self.joined.discard(key)
        self._kicked[key] = by
        task = asyncio.get_running_loop().create_task(self._rejoin(conn, channel, by))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _rejoin(self, conn: _Connection, channel: str, by: str) -> None:
        """Join ``channel`` again after a KICK, with backoff, and tell the channel."""
        key = _channel_id_part(channel)
        attempt = 0
        while conn is self._conn and not self._stop.is_set():
            delay = backoff_delay(
                attempt,
                initial=self.settings.reconnect_initial,
                cap=self.settings.reconnect_max,
                rng=self._rng,
            )
            attempt += 1
            log.warning("IRC: rejoining %s in %.1f s", channel, delay)
            await asyncio.sleep(delay)
            if conn is not self._conn or key in self.joined:
                return  # a reconnect joins every channel anyway
            with _logged("rejoin"):
                await conn.join(channel)
            deadline = time.monotonic() + JOIN_WAIT
            while key not in self.joined and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if key in self.joined:
                return

    def _language(self, channel_id: str) -> str:
        """The language of the table in ``channel_id``, as the host says."""
        return self.service.channel_language(channel_id)

    # -- input --------------------------------------------------------------------------

    def _on_message(
        self, conn: _Connection, target: str, by: str, message: str, *, dm: bool
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
        shown = self._shown.get(user)
        if shown:
            text = _resolve_number(text, shown)
        admins = {self.identities.fold(nick) for nick in self.settings.admins}
        admin = self.identities.fold(by) in admins or (not dm and conn.is_op(target, by))
        channel = "" if dm else self.prefix + _channel_id_part(target)
        inp = Input(
            channel=channel,
            user=user,
            name=by,
            text=text,
            dm=dm,
            admin=admin,
            truncated=cut,
            overheard=not dm,
        )
        try:
            self._inbox.put_nowait(inp)
        except asyncio.QueueFull:
            log.warning("IRC: input queue full; dropping a line from %s", by)

    async def _input_worker(self) -> None:
        while True:
            inp = await self._inbox.get()
            try:
                if isinstance(inp, _Rename):
                    await self.service.rename(inp.user, inp.nick)
                    continue
                events = await self.service.handle(inp)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("IRC: the host failed on an input")
                continue
            if _asks_for_help_list(inp.text):
                events = [
                    replace(e, text=compact_help(e.text))
                    if isinstance(e, Private) and e.user == inp.user
                    else e
                    for e in events
                ]
            await self.deliver(events)

    # -- output -------------------------------------------------------------------------

    def _queue_batch(self, events: Sequence[Event]) -> None:
        """Queue one batch of the host's events (the answer to one input, or one move of a
        computer player) as few messages as possible (see the module docs)."""
        limit = self.settings.max_line_bytes
        publics: dict[str, list[Public]] = {}
        privates: dict[str, list[Private]] = {}
        for event in events:
            if isinstance(event, Public) and self._channel_target(event.channel) is not None:
                publics.setdefault(event.channel, []).append(event)
            elif isinstance(event, Private) and event.user.startswith(self.prefix):
                privates.setdefault(event.user, []).append(event)
        channel_units: dict[str, Unit] = {}
        cues: dict[str, Unit] = {}
        for channel_id, items in publics.items():
            shown = [e for e in items if e.kind not in LEFT_OUT]
            target = self._channel_target(channel_id)
            if not shown or target is None:
                continue
            unit = Unit("PRIVMSG", target, pack_lines("\n".join(e.text for e in shown), limit))
            self.outbox.put(unit)
            channel_units[channel_id] = unit
            if any(e.kind in CUES for e in shown):
                cues[channel_id] = unit
        for user, mine in privates.items():
            self._queue_private(user, mine, channel_units, cues)

    def _queue_private(
        self,
        user: str,
        events: list[Private],
        channel_units: dict[str, Unit],
        cues: dict[str, Unit],
    ) -> None:
        """Queue one person's events of a batch: answers to his own command first (the next
        free slot), then notes, then a prompt after the channel line of the move that made
        it his turn. A hand dealt (or sorted anew) waits for its player's next prompt and
        goes in the same line. A prompt whose turn the channel line names (a trick taken,
        who leads) is not sent at all: that line is it."""
        limit = self.settings.max_line_bytes
        session = self._sessions.get(user, 0)
        asked = any(e.kind in STRICT_KINDS for e in events)
        answers = [
            e for e in events if e.reply and e.kind not in PROMPT_KINDS
            and not (asked and e.kind == "hand")
        ]  # fmt: skip
        hands = [e for e in events if e.kind == "hand" and e not in answers]
        notes = [e for e in events if not e.reply and e.kind not in {*STRICT_KINDS, "hand"}]
        strict = [e for e in events if e not in answers and e not in notes and e not in hands]
        for event in answers:
            if event.kind == "export" and self.settings.export_dir:
                link = self._export_link(event)
                if link is not None:
                    self._put(user, [link], ANSWER, event, session)
                    continue
            if event.kind == "score":
                lines = score_lines(event.text, limit)
            else:
                lines = pack_lines(with_choices(event.text, event.choices, event.lang), limit)
            lane = ANSWER if len(lines) <= PACK_AFTER else BULK
            self._put(user, lines, lane, event, session)
        if notes:
            text = "\n".join(with_choices(e.text, e.choices, e.lang) for e in notes)
            self._put(user, pack_lines(text, limit), NOTES, notes[-1], session)
        if hands:
            self._hands[user] = (hands[-1], session)
        if not strict:
            return
        self.outbox.promote(user)  # his notes before his turn
        held = self._hands.pop(user, None)
        hand = held[0] if held is not None and held[1] == session else None
        if hand is not None and (hand.marker or (0,))[0] != (strict[-1].marker or (0,))[0]:
            hand = None  # a hand of an earlier game
        prompt = next((e for e in strict if e.kind in PROMPT_KINDS), None)
        cue = cues.get(prompt.channel) if prompt is not None else None
        if prompt is not None and cue is not None and len(strict) == 1:
            self._prompted[user] = (prompt.text, None)
            cue.on_sent = _chain(cue.on_sent, self._prompt_callback(prompt.channel, user))
            lost = self._prompt_callback(prompt.channel, user, lost=True)
            cue.on_drop = _chain(cue.on_drop, lost)
            if hand is not None:  # his turn is said in the channel; his hand comes now
                unit = self._put(user, pack_lines(hand.text, limit), GAME, hand, session)
                unit.after = cue
            return
        mine = [hand, *strict] if hand is not None else strict
        text = "\n".join(with_choices(e.text, e.choices, e.lang) for e in mine)
        unit = self._put(user, pack_lines(text, limit), GAME, strict[-1], session)
        unit.after = channel_units.get(strict[-1].channel)
        if prompt is not None:
            self._prompted[user] = (prompt.text, None)
            unit.present_only = True
            unit.on_sent = _chain(unit.on_sent, self._prompt_callback(prompt.channel, user))
            unit.on_drop = self._prompt_callback(prompt.channel, user, lost=True)

    def _put(self, user: str, lines: list[str], lane: int, event: Private, session: int) -> Unit:
        unit = Unit(
            "NOTICE", user, lines, private=True, lane=lane, answer=lane in (ANSWER, BULK),
            valid=self._validity(event, session), verbatim=event.kind == "export",
        )  # fmt: skip
        if event.hand and event.kind in ("hand", *PROMPT_KINDS):
            hand = event.hand

            def shown() -> None:
                self._shown[user] = hand

            unit.on_sent = shown
        self.outbox.put(unit)
        return unit

    def _validity(self, event: Private, session: int) -> Callable[[], bool]:
        """Whether ``event`` still means something: the person is in the same session (he did
        not leave since), a prompt, reminder or hint is still about the current decision,
        and anything else said during a game is still about the running game."""
        user, channel, marker, kind = event.user, event.channel, event.marker, event.kind
        decision = self.service.decision

        def valid() -> bool:
            if self._sessions.get(user, 0) != session:
                return False
            if marker is None or kind == "export":
                return True
            current = decision(channel)
            if kind in STRICT_KINDS:
                return bool(current == marker)
            return current is not None and current[0] == marker[0]

        return valid

    def _prompt_callback(
        self, channel_id: str, user: str, *, lost: bool = False
    ) -> Callable[[], None]:
        def done() -> None:
            if lost:
                self._prompted.pop(user, None)
            else:
                nick = self.identities.nick_for(user)
                conn = self._conn
                if nick is None or conn is None or not conn.is_present(nick):
                    self._prompted.pop(user, None)  # sent again when the player is seen
                else:
                    entry = self._prompted.get(user)
                    if entry is not None:
                        self._prompted[user] = (entry[0], self.registrations)
            with _logged("prompt_sent"):
                self.service.prompt_sent(channel_id, user)

        return done

    def _export_link(self, event: Private) -> str | None:
        """Write an export into ``export_dir`` under a random name; the line with its URL."""
        folder = Path(self.settings.export_dir)
        name = f"{secrets.token_urlsafe(12)}.doko"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(event.text, encoding="utf-8")
            old = sorted(folder.glob("*.doko"), key=lambda p: p.stat().st_mtime)
            for stale in old[:-EXPORTS_KEPT]:
                stale.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("IRC: could not write an export: %s", type(exc).__name__)
            return None
        url = self.settings.export_url.rstrip("/") + "/" + name
        return render(event.lang or "en", "irc_export_link", {"url": url})

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
        A line for a channel the bot was kicked from is kept for the summary on rejoin.
        A private line for a player who is not in the bot's channels is not sent: a prompt
        goes out again when the player is seen (:meth:`_on_seen`).
        """
        unit = line.unit
        while True:
            await self._online.wait()
            conn = self._conn
            if conn is None or not self._online.is_set():
                continue
            target = line.target
            if line.private:
                nick = self.identities.nick_for(line.target)
                away = unit is not None and unit.present_only and not conn.is_present(nick or "")
                if nick is None or away:
                    log.info("IRC: a player is away; a private message is not sent")
                    self._abandon(line)
                    return
                target = nick
            elif _channel_id_part(target) in self._kicked:
                self._missed.setdefault(_channel_id_part(target), []).append(line.text)
                self._done(line)
                return
            await self.bucket.acquire()
            if conn is not self._conn or not self._online.is_set():
                continue
            try:
                await conn.rawmsg(line.command, target, line.text)
            except Exception as exc:
                if conn.connected and conn is self._conn:
                    log.warning("IRC: could not send a line: %s: %s", type(exc).__name__, exc)
                    self._abandon(line)
                    return
                # The connection went away: wait until it is replaced, then try again.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(conn.finished.wait(), 1.0)
                continue
            self.sent += 1
            if unit is not None and self.on_line is not None:
                self.on_line(line)
            self._done(line)
            return

    @staticmethod
    def _done(line: OutLine) -> None:
        unit = line.unit
        if line.last and unit is not None and unit.on_sent is not None:
            unit.on_sent()

    def _abandon(self, line: OutLine) -> None:
        unit = line.unit
        if unit is None:
            return
        unit.next = len(unit.lines)
        unit.finished = True
        self.outbox.skip(unit)
        if unit.on_drop is not None:
            unit.on_drop()


def _chain(first: Callable[[], None] | None, then: Callable[[], None]) -> Callable[[], None]:
    if first is None:
        return then

    def both() -> None:
        first()
        then()

    return both


def _resolve_number(text: str, hand: Sequence[int]) -> str:
    """A card typed by its number (``/play 3``, or ``3`` alone) as the card itself, the
    number counted in ``hand``, the hand the player last saw: after he played a card the
    host counts the rest anew, and a leader (whose turn the channel line names, without a
    new prompt) would otherwise play another card than the one he saw under that number.

    >>> _resolve_number("/play 2", (5, 0, 32)), _resolve_number("2", (5, 0, 32))
    ('/play ♣9', '♣9')
    >>> _resolve_number("/play 9", (5,)), _resolve_number("/join 2", (5,))
    ('/play 9', '/join 2')
    """
    command = text[:1] == "/"
    words = (text[1:] if command else text).split()
    if len(words) != 1 + command or not words[-1].isdigit():
        return text
    if command and aliases().get(words[0].lower()) != "play":
        return text
    number = int(words[-1])
    if not 1 <= number <= len(hand):
        return text
    card = card_text(hand[number - 1], "en")
    return f"/{words[0]} {card}" if command else card


def _asks_for_help_list(text: str) -> bool:
    """Whether ``text`` is ``/help`` without a topic (any alias)."""
    words = text[1:].split() if text[:1] in "/!" else []
    return len(words) == 1 and aliases().get(words[0].lower()) == "help"


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
