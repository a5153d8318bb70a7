"""A real Matrix homeserver (Synapse, from PyPI) on loopback for the Matrix end-to-end tests.

:class:`SynapseServer` writes a config into a temporary directory (in memory, /dev/shm,
where the machine has it: Synapse syncs its SQLite file about 13 times per message sent,
2 ms each on this machine's disk; SQLite, one plain HTTP
client listener on ``127.0.0.1`` and a free port, no federation, no key servers, no stats,
no presence, no push, no user directory, bcrypt's fewest rounds for passwords, logs at
WARNING into a file), starts ``python -m synapse.app.homeserver`` and waits until
``/_matrix/client/versions`` answers.
``stop()`` always ends the process (SIGTERM, then SIGKILL).

Users are registered with the shared-secret admin API (``/_synapse/admin/v1/register``: a
nonce, then an HMAC-SHA1 of nonce, name, password and admin flag). Rate limits: ``rc`` sets
the config's ``rc_*`` sections (loose by default, so that clients of a test are never held
back); :meth:`SynapseServer.limit` gives one user its own event-sending limit through the
admin API (``override_ratelimit``: the same limiter as ``rc_message``, answered with
``M_LIMIT_EXCEEDED`` and ``retry_after_ms``), so one running server serves tests with
different limits.

CPU: about 3 to 4 s to start with a new database (the import and the schema); wall time
grows with the machine's load. The test extra installs ``matrix-synapse``; without it these
tests fail with a message saying so (they are never skipped).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from server_process import ServerProcess, free_port

SERVER_NAME = "dokobot.test"

SYNAPSE_MISSING = (
    "matrix-synapse is not installed: the Matrix end-to-end tests need a real homeserver. "
    "Install the test extra: pip install -e '.[test]'."
)

LOOSE = {"per_second": 1000, "burst_count": 1000}
"""A limit nobody in a test reaches."""

RATE_LIMITS: dict[str, Any] = {
    "rc_message": LOOSE,
    "rc_registration": LOOSE,
    "rc_login": {"address": LOOSE, "account": LOOSE, "failed_attempts": LOOSE},
    "rc_joins": {"local": LOOSE, "remote": LOOSE},
    "rc_joins_per_room": LOOSE,
    "rc_invites": {"per_room": LOOSE, "per_user": LOOSE, "per_issuer": LOOSE},
    "rc_room_creation": LOOSE,
    "rc_profile": LOOSE,
    "rc_presence": {"per_user": LOOSE},
    "rc_admin_redaction": LOOSE,
}
"""The ``rc_*`` sections of the test server (see :class:`SynapseServer`)."""


def synapse_installed() -> bool:
    try:
        import synapse  # noqa: F401
    except ImportError:
        return False
    return True


def _signing_key(path: Path) -> None:
    from signedjson.key import generate_signing_key, write_signing_keys

    with path.open("w") as f:
        write_signing_keys(f, [generate_signing_key("a")])


class SynapseServer(ServerProcess):
    """One Synapse process on 127.0.0.1 (use as a context manager).

    ``rc`` replaces sections of :data:`RATE_LIMITS` (``{"rc_message": {"per_second": 1,
    "burst_count": 3}}``)."""

    NAME = "synapse"
    IN_MEMORY = True
    START_S = 180.0
    """(A loaded machine needs long: the import alone is seconds of CPU.)"""
    STOP_S = 10.0

    def __init__(self, *, rc: dict[str, Any] | None = None) -> None:
        if not synapse_installed():
            raise RuntimeError(SYNAPSE_MISSING)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.shared_secret = secrets.token_hex(16)
        super().__init__("dokobot-synapse-", "homeserver.log")
        self.config_path = self.workdir / "homeserver.yaml"
        _signing_key(self.workdir / "signing.key")
        logging = {
            "version": 1,
            "formatters": {"plain": {"format": "%(asctime)s %(name)s %(levelname)s %(message)s"}},
            "handlers": {
                "file": {
                    "class": "logging.FileHandler",
                    "filename": str(self.log_path),
                    "formatter": "plain",
                }
            },
            "root": {"level": "WARNING", "handlers": ["file"]},
            "disable_existing_loggers": False,
        }
        (self.workdir / "log.yaml").write_text(yaml.safe_dump(logging))
        config: dict[str, Any] = {
            "server_name": SERVER_NAME,
            "pid_file": str(self.workdir / "homeserver.pid"),
            "listeners": [
                {
                    "port": self.port,
                    "bind_addresses": ["127.0.0.1"],
                    "type": "http",
                    "tls": False,
                    "x_forwarded": False,
                    "resources": [{"names": ["client"], "compress": False}],
                }
            ],
            "database": {
                "name": "sqlite3",
                "args": {"database": str(self.workdir / "homeserver.db")},
            },
            "log_config": str(self.workdir / "log.yaml"),
            "media_store_path": str(self.workdir / "media"),
            "signing_key_path": str(self.workdir / "signing.key"),
            "registration_shared_secret": self.shared_secret,
            "report_stats": False,
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "enable_metrics": False,
            "presence": {"enabled": False},
            "url_preview_enabled": False,
            # (registration hashes a password: 0.3 s of CPU at Synapse's 12 rounds, 1 ms at
            # 4; the tests log in with the registration's token and never with it)
            "bcrypt_rounds": 4,
            # (push notifications, the user directory, the rooms' statistics: work on
            # events and joins that no client of the tests reads)
            "user_directory": {"enabled": False},
            "push": {"enabled": False},
            "stats": {"enabled": False},
            **RATE_LIMITS,
            **(rc or {}),
        }
        self.config_path.write_text(yaml.safe_dump(config))
        self._admin_token: str | None = None

    # -- life -------------------------------------------------------------------------------

    def command(self) -> list[str]:
        return [sys.executable, "-m", "synapse.app.homeserver", "-c", str(self.config_path)]

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/_matrix/client/versions", timeout=1):
                return True
        except OSError:
            return False

    def _call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{method} {path}: {exc.code} {exc.read()[:300]!r}") from exc

    def register(
        self, name: str, *, admin: bool = False, display: str | None = None
    ) -> tuple[str, str]:
        """Register ``name`` (a new local user) with the shared secret: (user id, token)."""
        nonce = self._call("GET", "/_synapse/admin/v1/register")["nonce"]
        password = secrets.token_hex(8)
        mac = hmac.new(self.shared_secret.encode(), digestmod=hashlib.sha1)
        for part in (nonce, name, password, "admin" if admin else "notadmin"):
            if part != nonce:
                mac.update(b"\x00")
            mac.update(part.encode())
        body = {
            "nonce": nonce,
            "username": name,
            "password": password,
            "admin": admin,
            "displayname": display or name,
            "mac": mac.hexdigest(),
        }
        answer = self._call("POST", "/_synapse/admin/v1/register", body)
        return str(answer["user_id"]), str(answer["access_token"])

    def _admin(self) -> str:
        if self._admin_token is None:
            self._admin_token = self.register("admin" + secrets.token_hex(4), admin=True)[1]
        return self._admin_token

    def limit(self, user_id: str, per_second: int, burst_count: int) -> None:
        """Give ``user_id`` its own event-sending limit (``per_second``, ``burst_count``:
        what ``rc_message`` sets for everybody; whole numbers, ``per_second`` at least 1:
        Synapse reads 0 as no limit at all)."""
        path = f"/_synapse/admin/v1/users/{user_id}/override_ratelimit"
        body = {"messages_per_second": per_second, "burst_count": burst_count}
        self._call("POST", path, body, self._admin())
