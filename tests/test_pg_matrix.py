"""Matrix on PostgreSQL: the process that serves Matrix holds the lease of every Matrix
room (``dokobot.adapters.matrix.rooms``), so its tables' writes are accepted; a process
that serves no Matrix is refused, and a second Matrix process does not start."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import dokobot.adapters.matrix as matrix
from dokobot.adapters.irc.network import network_part
from dokobot.adapters.matrix.rooms import rooms_part
from dokobot.config import parse_config
from dokobot.host.events import Event, Input
from dokobot.host.i18n import render
from dokobot.runner import scope_of, serve
from dokobot.store import Checkpoint, Scope, StoreLocked
from dokobot.store.postgres import PostgresStore

LEGACY, V12 = "matrix:!a:example.org", "matrix:!Jykz-v9lL_73"
"""Room ids with a server part (the table's server ``matrix:!a``) and without (``matrix``)."""


def _line(i: int) -> str:
    return json.dumps({"k": "cmd", "user": "u", "name": "n", "text": f"/play {i}"})


def test_a_matrix_table_is_written_only_by_the_process_that_serves_matrix(pg_url: str) -> None:
    mine = PostgresStore(pg_url, scope=Scope((rooms_part("@doko:example.org"),)), lease_s=2)
    other = PostgresStore(pg_url, scope=Scope((network_part("net"),)), lease_s=2)
    try:
        for channel in (LEGACY, V12):
            assert mine.append(channel, [_line(0)], 0) == 1
            with pytest.raises(StoreLocked, match="which this process does not hold"):
                other.append(channel, [_line(1)], 1)
            with pytest.raises(StoreLocked, match="which this process does not hold"):
                other.save_checkpoint(channel, Checkpoint(1, "v", b"s", b"", ()))
            assert mine.append(channel, [_line(1)], 1) == 2
            assert mine.load_journal(channel) == [_line(0), _line(1)]
        assert mine.lost is None and other.lost is None
        # one process serves every Matrix room, whatever its account
        with pytest.raises(StoreLocked, match=r"matrix:rooms \(held by dokobot"):
            PostgresStore(pg_url, scope=Scope((rooms_part("@other:example.net"),)), wait_s=0.2)
    finally:
        mine.close()
        other.close()


async def test_dokobot_run_with_matrix_on_postgresql_writes_matrix_tables(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dokobot run`` with a matrix section and a PostgreSQL store starts (the adapter runs,
    its homeserver unreachable) and a Matrix table's move is stored, not refused."""
    monkeypatch.setenv(matrix.TOKEN_ENV, "t0k")
    config = parse_config(f"store:\n  url: {pg_url}\n  lease_s: 2\nmatrix:\n"
                          "  homeserver: http://127.0.0.1:9\n  user_id: '@doko:example.org'\n",
                          env={matrix.TOKEN_ENV: "t0k"})  # fmt: skip
    assert scope_of(config).keys() == ("matrix:rooms",)
    real, answers = matrix.run_matrix, list[Event]()

    async def run_matrix(service: Any, settings: Any, *, restored: Any) -> None:
        adapter = asyncio.create_task(real(service, settings, restored=restored))
        answers.extend(await service.handle(Input(LEGACY, "matrix:@anna:example.org", "anna",
                                                  "/join")))  # fmt: skip
        await asyncio.sleep(0.1)
        assert not adapter.done(), "the Matrix adapter stopped"
        adapter.cancel()
        await asyncio.gather(adapter, return_exceptions=True)

    monkeypatch.setattr(matrix, "run_matrix", run_matrix)
    await asyncio.wait_for(serve(config), 30)
    assert answers and render("en", "store_failed") not in [getattr(a, "text", "") for a in answers]
    store = await asyncio.to_thread(PostgresStore, pg_url, scope=scope_of(config), wait_s=5)
    try:
        journal = await asyncio.to_thread(store.load_journal, LEGACY)
        assert any('"/join"' in line for line in journal), journal
    finally:
        await asyncio.to_thread(store.close)
