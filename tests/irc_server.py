"""A real IRC server (ngIRCd) on loopback for the IRC adapter's end-to-end tests.

:class:`NgircdServer` writes a config into a temporary directory, starts ``ngircd -n -f CONF``
on ``127.0.0.1`` with a free port and waits until it accepts connections. ``stop()`` and
``start()`` may be called again to restart it on the same port (reconnect tests).

The config disables the server's penalty throttling (``MaxPenaltyTime = 0``; otherwise a
burst of NOTICEs is spread over seconds), DNS, IDENT and PAM, allows many connections from
one address and defines an IRC operator (``oper``/``operpass``) so a test can ``KILL`` a
connection. CI installs ngIRCd with ``.ci/install-ngircd.sh``; when it is missing the tests
fail with a message saying so (they are never skipped).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

OPER_NAME = "oper"
OPER_PASSWORD = "operpass"

NGIRCD_MISSING = (
    "ngircd is not installed: the IRC end-to-end tests need a real IRC server. "
    "Install it with `bash .ci/install-ngircd.sh` (or `apt-get install -y ngircd`)."
)


def find_ngircd() -> str:
    """The path of the ``ngircd`` binary; raises ``RuntimeError`` with a clear message."""
    for candidate in (shutil.which("ngircd"), "/usr/sbin/ngircd", "/usr/local/sbin/ngircd"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError(NGIRCD_MISSING)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _config(port: int, workdir: Path, password: str | None) -> str:
    lines = [
        "[Global]",
        "Name = irc.dokobot.test",
        "Info = dokobot test server",
        "Listen = 127.0.0.1",
        f"Ports = {port}",
        f"PidFile = {workdir / 'ngircd.pid'}",
        f"MotdFile = {workdir / 'motd'}",
        f"ServerUID = {os.getuid()}",
        f"ServerGID = {os.getgid()}",
    ]
    if password:
        lines.append(f"Password = {password}")
    lines += [
        "",
        "[Limits]",
        "MaxPenaltyTime = 0",
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
        "",
        "[Operator]",
        f"Name = {OPER_NAME}",
        f"Password = {OPER_PASSWORD}",
        "",
    ]
    return "\n".join(lines)


class NgircdServer:
    """One ngIRCd process on 127.0.0.1 (use as a context manager)."""

    def __init__(self, *, password: str | None = None, port: int | None = None) -> None:
        self.binary = find_ngircd()
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.password = password
        self._tmp = tempfile.TemporaryDirectory(prefix="dokobot-ngircd-")
        self.workdir = Path(self._tmp.name)
        self.config_path = self.workdir / "ngircd.conf"
        (self.workdir / "motd").write_text("dokobot test server\n")
        self.config_path.write_text(_config(self.port, self.workdir, password))
        self.log_path = self.workdir / "ngircd.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and wait until it accepts connections."""
        if self._proc is not None and self._proc.poll() is None:
            return
        deadline = time.monotonic() + timeout
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                [self.binary, "-n", "-f", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    f"ngircd exited with {self._proc.returncode}:\n{self.log()}"
                )
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"ngircd did not accept connections within {timeout} s:\n{self.log()}")

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL); all connections drop."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)

    def restart(self) -> None:
        """Stop and start again on the same port."""
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def close(self) -> None:
        self.stop()
        self._tmp.cleanup()

    def __enter__(self) -> NgircdServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
