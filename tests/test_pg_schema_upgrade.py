"""PostgreSQL's migration 4 was replaced by a text that names no chat platform (see
``REPLACED`` in tests/test_schema_history.py): every way a database can come to the current
schema ends in the same schema, whether it ran migration 4 as shipped or as it is now, and
the store works on each.

The ways: a new database; one at version 3 (it runs the new migration 4, then 5 to the
last); one that ran the shipped migration 4 and stopped at version 4, and one at version 7
(they run 5 to the last, or 8). The schemas are compared as ``pg_dump --schema-only``
prints them (tables, functions with their bodies, indexes, constraints, sequences).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import psycopg
import pytest
from pg_history import POSTGRES_4_SHIPPED
from pg_server import PASSWORD, PgServer

from dokobot.store.pg_schema import MIGRATIONS
from dokobot.store.postgres import PostgresStore


def _build(url: str, migrations: Sequence[str]) -> None:
    """A database as a dokobot whose migrations were ``migrations`` left it."""
    with psycopg.connect(url, password=PASSWORD, autocommit=True) as db, db.transaction():
        db.execute("CREATE TABLE dokobot_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO dokobot_schema VALUES (%s)", (len(migrations),))
        for text in migrations:
            db.execute(text.encode())
        if len(migrations) >= 1:  # a table of the older dokobot, to be kept
            db.execute("INSERT INTO journal VALUES ('local:t', 0, %s)", (_line(0),))
            db.execute("INSERT INTO tables VALUES ('local:t', 1, NULL)")


def _line(i: int) -> str:
    return json.dumps({"k": "cmd", "user": "u", "name": "n", "text": f"/play {i}"})


def _schema(server: PgServer, url: str) -> list[str]:
    """The database's schema as ``pg_dump`` prints it (without its comments and the
    session's random keys)."""
    out = subprocess.run(
        [str(Path(os.path.realpath(server.bin / "initdb")).parent / "pg_dump"), "--schema-only", "--no-owner", "--no-privileges", url],
        capture_output=True, text=True, timeout=60, check=True,
        env={**os.environ, "PGPASSWORD": PASSWORD},
    ).stdout  # fmt: skip
    return [
        line
        for line in out.splitlines()
        if line.strip() and not line.startswith(("--", "\\restrict", "\\unrestrict"))
    ]


def _migrated(url: str, kept: list[str]) -> None:
    """Open the store on ``url`` (it migrates), find the ``kept`` records of a table, write
    one more and read it back, close."""
    store = PostgresStore(url, lease_s=2)
    try:
        assert store.schema_version() == len(MIGRATIONS)
        assert store.append("local:t", [_line(1)], len(kept)) == len(kept) + 1
        assert store.load_journal("local:t") == [*kept, _line(1)]
    finally:
        store.close()


def test_every_way_to_the_current_schema_ends_in_the_same_schema(
    pg_server: PgServer, pg_url: str
) -> None:
    assert MIGRATIONS[3] != POSTGRES_4_SHIPPED
    shipped = (*MIGRATIONS[:3], POSTGRES_4_SHIPPED)
    ways = {
        "new": (),
        "at 3": MIGRATIONS[:3],
        "at 4 as shipped": shipped,
        "at 7, 4 as shipped": (*shipped, *MIGRATIONS[4:7]),
    }
    urls = {"new": pg_url} | {way: pg_server.new_database() for way in list(ways)[1:]}
    for way, migrations in ways.items():
        if migrations:
            _build(urls[way], migrations)
        _migrated(urls[way], [_line(0)] if migrations else [])
    schemas = {way: _schema(pg_server, url) for way, url in urls.items()}
    assert any("dokobot_fence_process" in line for line in schemas["new"])
    assert not any("dokobot_lease_key" in line for line in schemas["new"])
    for way, schema in schemas.items():
        assert schema == schemas["new"], way


def test_the_shipped_and_the_new_migration_4_differ_only_in_what_8_drops(
    pg_server: PgServer, pg_url: str
) -> None:
    """At version 4 the two databases differ (the dump sees the change), only in the
    functions migration 8 drops."""
    old_url = pg_server.new_database()
    _build(pg_url, MIGRATIONS[:4])
    _build(old_url, (*MIGRATIONS[:3], POSTGRES_4_SHIPPED))
    new, old = _schema(pg_server, pg_url), _schema(pg_server, old_url)
    assert new != old
    assert "discord" in "\n".join(old) and "discord" not in "\n".join(new)
    with psycopg.connect(pg_url, password=PASSWORD, autocommit=True) as db:
        with pytest.raises(psycopg.Error) as refused:  # fail closed: no key, no write
            db.execute("SELECT dokobot_fence_table('o', 1, 'local:t', NULL)")
        assert refused.value.sqlstate == "DKL02"
