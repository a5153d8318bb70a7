"""How the PostgreSQL store connects: its url without the password (for logs and reprs),
the connection string that hides it, the pool's check of an idle connection, and which
errors may have come after a commit (a lost answer)."""

from __future__ import annotations

import select
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict


def safe_url(url: str) -> str:
    """``url`` without its password (for logs and reprs)."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable url)"
    params.pop("password", None)
    host = params.get("host", "")
    port = params.get("port", "")
    user = params.get("user", "")
    db = params.get("dbname", "")
    who = f"{user}@" if user else ""
    where = f"{host}:{port}" if port else str(host)
    return f"postgresql://{who}{where}/{db}"


class Secret(str):
    """A connection string that holds the password: shown as ``'<hidden>'``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'<hidden>'"

    __str__ = __repr__

    def reveal(self) -> str:
        return str.__str__(self)


def check_idle(conn: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection it hands out, without a round trip: an idle
    connection has nothing to read, unless the server closed it (a restart, an operator's
    ``pg_terminate_backend``) — then the pool replaces it before it fails a write."""
    if conn.closed or conn.broken:
        raise psycopg.OperationalError("the connection is closed")
    poll = select.poll()
    poll.register(conn.fileno(), select.POLLIN | select.POLLPRI)
    if poll.poll(0):
        conn.close()  # so that the pool drops it
        raise psycopg.OperationalError("the server closed the connection")


def answer_lost(exc: psycopg.OperationalError) -> bool:
    """Whether ``exc`` may have come after the commit: the connection dropped (no answer,
    a connection error) or the server ended the session (an operator, a crash, a stop)."""
    return exc.sqlstate is None or exc.sqlstate[:2] in ("08", "57")


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
