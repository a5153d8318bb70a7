"""A server the tests start as a child process on 127.0.0.1 (ngIRCd, Synapse): its working
folder, its log, its life (start until it answers, stop with SIGTERM then SIGKILL) and use as a
context manager. A server says how it is started (:meth:`ServerProcess.command`) and how it is
seen to answer (:meth:`ServerProcess.answers`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


MEMORY_FOLDER = Path("/dev/shm")
"""A folder in memory (tmpfs), where the machine has one."""


class ServerProcess:
    """One server process; ``workdir`` is its own folder, removed by :meth:`close`."""

    NAME: ClassVar[str]
    """The server's name in error messages."""
    START_S: ClassVar[float] = 10.0
    """How long :meth:`start` waits for an answer by default."""
    STOP_S: ClassVar[float] = 5.0
    """How long :meth:`stop` waits after SIGTERM (and again after SIGKILL)."""

    IN_MEMORY: ClassVar[bool] = False
    """Make ``workdir`` in :data:`MEMORY_FOLDER` (where there is one): a server that writes
    a database transaction for every request (Synapse on SQLite) then waits for no disk."""

    def __init__(self, prefix: str, log_name: str) -> None:
        memory = self.IN_MEMORY and os.access(MEMORY_FOLDER, os.W_OK)
        self._tmp = tempfile.TemporaryDirectory(
            prefix=prefix, dir=MEMORY_FOLDER if memory else None
        )
        self.workdir = Path(self._tmp.name)
        self.log_path = self.workdir / log_name
        self._proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The command line that starts the server."""
        raise NotImplementedError

    def answers(self) -> bool:
        """Whether the server answers now (one short probe)."""
        raise NotImplementedError

    def start(self, timeout: float | None = None) -> None:
        """Start the server and wait until it answers."""
        if self.running:
            return
        timeout = self.START_S if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
            )
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    f"{self.NAME} exited with {self._proc.returncode}:\n{self.log()}"
                )
            if self.answers():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.NAME} did not answer within {timeout} s:\n{self.log()}")

    def stop(self, timeout: float | None = None) -> None:
        """Stop the server (SIGTERM, then SIGKILL); all connections drop."""
        timeout = self.STOP_S if timeout is None else timeout
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log(self) -> str:
        """The end of the server's log."""
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def close(self) -> None:
        self.stop()
        self._tmp.cleanup()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
