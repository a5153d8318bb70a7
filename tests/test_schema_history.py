"""A migration once shipped never changes: a database that applied it must mean what the
code says it means, and one that has not yet must get the same bytes (see
docs/development.md, "The stores"). A new migration is a new entry at the end, with its
digest added here.

The one exception is :data:`REPLACED`: a shipped migration whose text was replaced by one
that ends in the same schema, each with its reason and the test that proves it. The digest
it shipped with stays in :data:`SHIPPED` (the record of what databases applied); the text
as shipped is kept in ``tests/pg_history.py``."""

from __future__ import annotations

import hashlib

import pytest
from pg_history import POSTGRES_4_SHIPPED

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
        "061935829d9b97d0",  # 9: writes hold the lease rows FOR KEY SHARE
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

REPLACED: dict[tuple[str, int], tuple[str, str]] = {
    ("postgres", 4): (
        "9c9a050792f5082e",
        "its lease-key function held the chat platforms' key formulas (no module of the bot "
        "names a platform, issue 41); migration 8 drops that function, this dokobot never "
        "runs on versions 4 to 7 (it migrates through them in one transaction), and only a "
        "database's version is recorded, not the text it ran: a database at version 3 ends "
        "in the same schema as one that ran the text as shipped "
        "(tests/test_pg_schema_upgrade.py)",
    ),
}
"""(store, migration number): the digest of the text that replaced the shipped one, and
why the replacement is safe."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    ("store", "migrations"),
    [("postgres", pg_schema.MIGRATIONS), ("sqlite", sqlite.MIGRATIONS)],
)
def test_shipped_migrations_are_unchanged(store: str, migrations: tuple[str, ...]) -> None:
    digests = tuple(_digest(m) for m in migrations)
    shipped = tuple(
        REPLACED.get((store, number), (digest,))[0]
        for number, digest in enumerate(SHIPPED[store], start=1)
    )
    assert digests[: len(shipped)] == shipped, "a shipped migration changed: add a new one"
    assert len(digests) >= len(shipped)


def test_the_replaced_text_is_kept_as_it_shipped() -> None:
    """The text the upgrade test builds an old database with is the one that shipped."""
    assert _digest(POSTGRES_4_SHIPPED) == SHIPPED["postgres"][3]
    assert _digest(pg_schema.MIGRATIONS[3]) == REPLACED[("postgres", 4)][0]
