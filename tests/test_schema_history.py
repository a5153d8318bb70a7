"""A migration once shipped never changes: a database that applied it must mean what the
code says it means, and one that has not yet must get the same bytes (see
docs/development.md, "The stores"). A new migration is a new entry at the end, with its
digest added here."""

from __future__ import annotations

import hashlib

import pytest

from dokobot.store import pg_schema, sqlite

SHIPPED: dict[str, tuple[str, ...]] = {
    "postgres": (
        "b2bc3eec462f79ba",
        "da9a1c7751681be4",
        "84dc94239f1951cc",
        "caf30e60e1c2c772",  # 4: the lease key in SQL (a platform's, dropped by 8)
        "a1d8315cb8000cf0",
        "a05a44ef2f566a41",
        "571838ee056b77a8",
        "fe129dd1a80d3b57",
    ),
    "sqlite": (
        "b0359f2524743175",
        "be98579dfb3e7051",
        "b2314f7c2d288e61",
        "9affa95dfa417f8c",
        "df87020ab2bb9cc1",
        "37a1676d1e27fe1a",
        "c7a957527b37e73b",
        "93f7d6ce590f1f89",
    ),
}
"""The first 16 hex digits of each shipped migration's SHA-256, in order."""


@pytest.mark.parametrize(
    ("store", "migrations"),
    [("postgres", pg_schema.MIGRATIONS), ("sqlite", sqlite.MIGRATIONS)],
)
def test_shipped_migrations_are_unchanged(store: str, migrations: tuple[str, ...]) -> None:
    digests = tuple(hashlib.sha256(m.encode()).hexdigest()[:16] for m in migrations)
    shipped = SHIPPED[store]
    assert digests[: len(shipped)] == shipped, "a shipped migration changed: add a new one"
    assert len(digests) >= len(shipped)
