"""A real IRC server (ngIRCd) on loopback for the IRC adapter's end-to-end tests.

:class:`NgircdServer` writes a config into a temporary directory, starts ``ngircd -n -f CONF``
on ``127.0.0.1`` with a free port and waits until it accepts connections. ``stop()`` and
``start()`` may be called again to restart it on the same port (reconnect tests).

The config disables the server's penalty throttling (``MaxPenaltyTime = 0``; otherwise a
burst of NOTICEs is spread over seconds; ``penalty=True`` keeps it, as on a production
server, for ``bench/irc.py``), DNS, IDENT and PAM, allows many connections from
one address and defines an IRC operator (``oper``/``operpass``) so a test can ``KILL`` a
connection. CI installs ngIRCd with ``.ci/install-debian.sh``; when it is missing the tests
fail with a message saying so (they are never skipped).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path

from server_process import ServerProcess, free_port

OPER_NAME = "oper"
OPER_PASSWORD = "operpass"

NGIRCD_MISSING = (
    "ngircd is not installed: the IRC end-to-end tests need a real IRC server. "
    "Install it with `bash .ci/install-debian.sh` (or `apt-get install -y ngircd`)."
)


def ngircd_path() -> str | None:
    """The path of the ``ngircd`` binary, or ``None``."""
    for candidate in (shutil.which("ngircd"), "/usr/sbin/ngircd", "/usr/local/sbin/ngircd"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_ngircd() -> str:
    """The path of the ``ngircd`` binary; raises ``RuntimeError`` with a clear message."""
    path = ngircd_path()
    if path is None:
        raise RuntimeError(NGIRCD_MISSING)
    return path


def _config(port: int, workdir: Path, password: str | None, penalty: bool = False) -> str:
    lines = [
        "[Global]",
        "Name = irc.dokobot.test",
        "Info = dokobot test server",
        "Listen = 127.0.0.1",
        f"Ports = {port}",
        f"PidFile = {workdir / 'run' / 'ngircd.pid'}",
        f"MotdFile = {workdir / 'motd'}",
    ]
    if password:
        lines.append(f"Password = {password}")
    lines += [
        "",
        "[Limits]",
        # ngIRCd's own flood penalty as on a production server, or none (tests)
        *(() if penalty else ("MaxPenaltyTime = 0",)),
        "MaxNickLength = 30",
        "MaxConnectionsIP = 0",
        "MaxJoins = 0",
        "PingTimeout = 120",
        "PongTimeout = 20",
        "",
        "[Options]",
        "DNS = no",
        "Ident = no",
        "PAM = no",
        "OperCanUseMode = yes",
        "",
        "[Operator]",
        f"Name = {OPER_NAME}",
        f"Password = {OPER_PASSWORD}",
        "",
    ]
    return "\n".join(lines)


class NgircdServer(ServerProcess):
    """One ngIRCd process on 127.0.0.1 (use as a context manager)."""

    NAME = "ngircd"

    def __init__(
        self, *, password: str | None = None, port: int | None = None, penalty: bool = False
    ) -> None:
        self.binary = find_ngircd()
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.password = password
        super().__init__("dokobot-ngircd-", "ngircd.log")
        self.config_path = self.workdir / "ngircd.conf"
        # Started as root, ngIRCd drops to "nobody": let it read the files and write the PID.
        self.workdir.chmod(0o755)
        (self.workdir / "run").mkdir()
        (self.workdir / "run").chmod(0o777)
        (self.workdir / "motd").write_text("dokobot test server\n")
        self.config_path.write_text(_config(self.port, self.workdir, password, penalty))

    def command(self) -> list[str]:
        return [self.binary, "-n", "-f", str(self.config_path)]

    def answers(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def restart(self) -> None:
        """Stop and start again on the same port."""
        self.stop()
        self.start()


# -- a raw IRC client for the tests (plain asyncio streams) --------------------------------


class IrcMessage:
    """One parsed line from the server."""

    __slots__ = ("command", "params", "prefix", "raw", "when")

    def __init__(self, raw: str, when: float) -> None:
        self.raw = raw
        self.when = when
        rest = raw
        self.prefix = ""
        if rest.startswith(":"):
            self.prefix, _, rest = rest[1:].partition(" ")
        trailing: str | None = None
        if " :" in rest:
            rest, _, trailing = rest.partition(" :")
        parts = rest.split()
        self.command = parts[0].upper() if parts else ""
        self.params = parts[1:] + ([trailing] if trailing is not None else [])

    @property
    def nick(self) -> str:
        return self.prefix.partition("!")[0]

    @property
    def target(self) -> str:
        return self.params[0] if self.params else ""

    @property
    def text(self) -> str:
        return self.params[-1] if self.params else ""

    def __repr__(self) -> str:
        return f"IrcMessage({self.raw!r})"


class IrcClient:
    """A minimal IRC client speaking raw IRC over asyncio streams.

    Every message it receives is kept in ``messages`` (PINGs are answered); ``wait_for``
    waits for a message matching a predicate.
    """

    def __init__(self, host: str, port: int, nick: str, *, password: str | None = None) -> None:
        self.host = host
        self.port = port
        self.nick = nick
        self.password = password
        self.messages: list[IrcMessage] = []
        self._changed: asyncio.Condition | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None

    async def connect(self, timeout: float = 10.0) -> None:
        self._changed = asyncio.Condition()
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        self._task = asyncio.create_task(self._read_loop())
        if self.password:
            await self.send(f"PASS {self.password}")
        await self.send(f"NICK {self.nick}")
        user = re.sub(r"[^a-z0-9]", "", self.nick.lower())[:10] or "player"
        await self.send(f"USER {user} 0 * :test player {self.nick}")
        await self.wait_for(lambda m: m.command in ("376", "422"), timeout)

    async def _read_loop(self) -> None:
        assert self._reader is not None and self._changed is not None
        while True:
            raw = await self._reader.readline()
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            message = IrcMessage(line, time.monotonic())
            if message.command == "PING":
                await self.send("PONG :" + message.text)
                continue
            if message.command == "NICK" and message.nick == self.nick:
                self.nick = message.text
            async with self._changed:
                self.messages.append(message)
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    async def send(self, line: str) -> None:
        assert self._writer is not None
        self._writer.write(line.encode("utf-8") + b"\r\n")
        await self._writer.drain()

    async def say(self, target: str, text: str) -> None:
        await self.send(f"PRIVMSG {target} :{text}")

    async def join(self, channel: str, timeout: float = 10.0) -> None:
        mark = len(self.messages)
        await self.send(f"JOIN {channel}")
        await self.wait_for(
            lambda m: m.command == "366" and m.params[1].lower() == channel.lower(),
            timeout,
            since=mark,
        )

    async def rename(self, new: str, timeout: float = 10.0) -> None:
        mark = len(self.messages)
        old = self.nick
        await self.send(f"NICK {new}")
        await self.wait_for(lambda m: m.command == "NICK" and m.nick == old, timeout, since=mark)

    async def wait_for(
        self,
        predicate: Callable[[IrcMessage], bool],
        timeout: float = 10.0,
        *,
        since: int = 0,
    ) -> IrcMessage:
        """The first message from index ``since`` on that matches, waiting up to ``timeout``."""
        assert self._changed is not None
        index = since
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with self._changed:
            while True:
                while index < len(self.messages):
                    message = self.messages[index]
                    index += 1
                    if predicate(message):
                        return message
                remaining = deadline - loop.time()
                if remaining <= 0 or (self._task is not None and self._task.done()):
                    tail = "\n".join(m.raw for m in self.messages[-15:])
                    raise TimeoutError(f"{self.nick}: no matching message; last lines:\n{tail}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)

    def notices(self, since: int = 0) -> list[str]:
        """Texts of the NOTICEs sent to this client (not the server's)."""
        return [m.text for m in self.messages[since:] if m.command == "NOTICE" and "!" in m.prefix]

    def channel_lines(self, channel: str, since: int = 0) -> list[IrcMessage]:
        return [
            m
            for m in self.messages[since:]
            if m.command == "PRIVMSG" and m.target.lower() == channel.lower()
        ]

    async def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.write(b"QUIT :bye\r\n")
                await self._writer.drain()
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


# -- a scripted IRC server offering IRCv3 accounts (ngIRCd offers none) -------------------


class AccountIrcServer:
    """A minimal scripted IRC server for one bot connection that offers the IRCv3
    capabilities ``account-tag`` and ``extended-join`` (which ngIRCd 26.1 does not).

    It registers the bot (``CASEMAPPING=ascii``), echoes its JOINs with an empty channel,
    records every line the bot sends in ``received`` and lets a test inject lines with
    :meth:`inject` (tagged PRIVMSGs, extended JOINs).
    """

    def __init__(self) -> None:
        self.host = "127.0.0.1"
        self.port = 0
        self.received: list[str] = []
        self._server: asyncio.base_events.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._changed = asyncio.Condition()
        self.nick = ""

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def inject(self, line: str) -> None:
        assert self._writer is not None
        self._writer.write(line.encode() + b"\r\n")
        await self._writer.drain()

    async def wait_for(self, predicate: Callable[[str], bool], timeout: float = 5.0) -> str:
        async def look() -> str:
            index = 0
            async with self._changed:
                while True:
                    for line in self.received[index:]:
                        if predicate(line):
                            return line
                    index = len(self.received)
                    await self._changed.wait()

        return await asyncio.wait_for(look(), timeout)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        user_seen = False
        cap_done = False
        registered = False
        while True:
            raw = await reader.readline()
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            async with self._changed:
                self.received.append(line)
                self._changed.notify_all()
            word, _, rest = line.partition(" ")
            word = word.upper()
            if word == "CAP" and rest.startswith("LS"):
                # CAP LS 302 in two lines, as networks with many capabilities answer
                await self.inject(":srv CAP * LS * :multi-prefix account-tag")
                await self.inject(":srv CAP * LS :sasl extended-join")
            elif word == "CAP" and rest.startswith("REQ"):
                await self.inject(f":srv CAP * ACK :{rest.partition(':')[2] or rest[4:]}")
            elif word == "CAP" and rest.startswith("END"):
                cap_done = True
            elif word == "NICK":
                self.nick = rest.lstrip(":")
            elif word == "USER":
                user_seen = True
            elif word == "PING":
                await self.inject(f":srv PONG srv :{rest.lstrip(':')}")
            elif word == "JOIN":
                channel = rest.split()[0]
                await self.inject(f":{self.nick}!bot@h JOIN {channel} * :dokobot")
                await self.inject(f":srv 353 {self.nick} = {channel} :{self.nick}")
                await self.inject(f":srv 366 {self.nick} {channel} :End of NAMES list")
            if cap_done and user_seen and self.nick and not registered:
                registered = True
                for reply in (
                    f":srv 001 {self.nick} :Welcome",
                    f":srv 005 {self.nick} CASEMAPPING=ascii CHANTYPES=# :are supported",
                    f":srv 375 {self.nick} :- srv message of the day",
                    f":srv 376 {self.nick} :End of MOTD",
                ):
                    await self.inject(reply)
