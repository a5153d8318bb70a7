"""A throw-away PostgreSQL server for the store tests: ``initdb`` and ``pg_ctl`` in a
temporary directory, on a free port of 127.0.0.1, with password authentication.

PostgreSQL refuses to run as root (CI runs as root): then the server runs as the system
user ``postgres`` (Debian's package makes it) or, failing that, a system user made for it.
CI installs the server with ``.ci/install-debian.sh``; when it is missing the tests fail
with a message saying so (they are never skipped).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg
from server_process import free_port

USER = "dokobot"
PASSWORD = "s3cret-pg-pass"

PG_MISSING = (
    "PostgreSQL is not installed: the store tests need a real server. Install it with "
    "`bash .ci/install-debian.sh` (or `apt-get install -y postgresql`)."
)


def sync_rep(admin: psycopg.Connection[Any], standby: str) -> None:
    """Commits wait for a standby named ``standby`` (that never comes) or, with '', not."""
    if standby:
        admin.execute(f"ALTER SYSTEM SET synchronous_standby_names = '{standby}'")
    else:
        admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
    admin.execute("SELECT pg_reload_conf()")


def pg_bin() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl`` (Debian keeps them out of PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[4]))
    return Path(dirs[-1]) if dirs else None


def _run_as() -> list[str]:
    """The command prefix that runs the server as a user other than root."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "dokobot-pg"):
        try:
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", "dokobot-pg"], check=True)
    return ["runuser", "-u", "dokobot-pg", "--"]


class PgServer:
    """``start()``, ``stop()`` (and ``start()`` again, same port and data), ``url(db)``."""

    def __init__(self) -> None:
        bindir = pg_bin()
        if bindir is None:
            raise RuntimeError(PG_MISSING)
        self.bin = bindir
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="dokobot-pg-"))
        self.data = self.dir / "data"
        self.prefix = _run_as()
        if self.prefix:
            user = self.prefix[2]
            os.chmod(self.dir, 0o755)
            shutil.chown(self.dir, user)
        pwfile = self.dir / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.prefix:
            shutil.chown(pwfile, self.prefix[2])
        self._cmd(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile", str(pwfile),
            "-A", "scram-sha-256", "-E", "UTF8", "--no-locale",
        )  # fmt: skip
        pwfile.unlink()
        with (self.data / "postgresql.conf").open("a") as fh:
            fh.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.dir}'\nmax_connections = 200\n"
                "shared_buffers = 64MB\n"
                # a throw-away server: no flush to disk (the tests kill and stop processes,
                # never the machine), so a test session neither waits for fsync nor for a
                # large checkpoint at its end
                "fsync = off\n"
            )
        self.running = False
        self._dbs = 0

    def _cmd(self, *args: str) -> None:
        res = subprocess.run([*self.prefix, *args], capture_output=True, text=True,
                             timeout=120, cwd=self.dir)  # fmt: skip
        if res.returncode:
            raise RuntimeError(f"{args[0]} failed: {res.stdout}\n{res.stderr}")

    def start(self) -> None:
        self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                  str(self.dir / "log"), "-w", "-t", "60", "start")  # fmt: skip
        self.running = True

    def stop(self) -> None:
        self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        self.running = False

    def url(self, db: str = "postgres") -> str:
        """The url of database ``db`` (without the password: tests pass it by
        ``DOKOBOT_STORE_PASSWORD``)."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """A fresh, empty database; its url."""
        self._dbs += 1
        name = f"t{os.getpid()}_{self._dbs}"
        with psycopg.connect(self.url(), password=PASSWORD, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def close(self) -> None:
        """Stop at once (no shutdown checkpoint: the data directory is removed next) and
        remove the directory in the background."""
        if self.running:
            with contextlib.suppress(RuntimeError):
                self._cmd(
                    str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
                )
                self.running = False
        # tens of thousands of files: removed by a process of their own, so that the test
        # session does not wait for it
        subprocess.Popen(
            ["rm", "-rf", str(self.dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
