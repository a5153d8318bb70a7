"""The SQLite store under real faults: a disk that fills up, the same file under other names,
readers beside the bot, and damaged or foreign files."""

from __future__ import annotations

import errno
import logging
import os
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import SqliteStore

NAMES = ("anna", "ben", "carl", "dora")


def _inp(name: str, text: str) -> Input:
    return Input("c", f"u:{name}", name, text)


async def _move(svc: Service) -> list[Event]:
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    action = game.legal_actions()[0]
    return await svc.handle(_inp(table.seats[game.turn].name, command_for(action)))


def _played(svc: Service) -> int:
    game = svc.router.tables["c"].game
    assert game is not None
    return len(game.log)


# ---------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 2 MB file system (tmpfs), to fill up."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is made with a 2 MB tmpfs, and only root may mount one")
    where = tmp_path / "disk"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path) -> Path:
    """Write a file until the disk is full."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as fh:
        block = b"\0" * 4096
        while True:
            try:
                fh.write(block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
    return filler


def _counted_bytes(path: Path) -> int:
    """The size the header of an SQLite file gives it (pages × page size)."""
    head = path.read_bytes()[:100]
    page_size = struct.unpack(">H", head[16:18])[0]
    return int(struct.unpack(">I", head[28:32])[0]) * (65536 if page_size == 1 else page_size)


def _log_text(caplog: pytest.LogCaptureFixture) -> str:
    fmt = logging.Formatter()
    return "\n".join(fmt.format(r) for r in caplog.records)


async def test_a_full_disk_refuses_moves_and_the_store_heals_once_there_is_room(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    path = small_disk / "doko.sqlite3"
    svc = Service(Router(seed=7), SqliteStore(path))
    for n in NAMES:
        await svc.handle(_inp(n, "/join"))
    # two games and a half: the journal grows by pages the store file does not have yet
    while len(svc.store.load_journal("c")) < 150 or not svc.router.tables["c"].running:
        if svc.router.tables["c"].running:
            await _move(svc)
        else:
            await svc.handle(_inp("anna", "/start"))
    filler = _fill(small_disk)

    played, journal = _played(svc), svc.store.load_journal("c")
    events = await _move(svc)
    assert [e.text for e in events] == [render("en", "store_failed")]
    assert isinstance(events[0], Private)
    assert _played(svc) == played and svc.store.load_journal("c") == journal
    text = _log_text(caplog)
    assert "database or disk is full" in text and "cannot rollback" not in text

    # Stopping tries to write the log into the file: the disk stops that half way, and the
    # file's header counts pages the file does not have.
    await svc.close()
    assert _counted_bytes(path) > path.stat().st_size, "the test should stop a checkpoint"

    # A restart on the still full disk reads the store through its log: nothing is lost,
    # and the store is not called truncated.
    svc = Service(Router(seed=7), SqliteStore(path))
    await svc.start()
    assert _played(svc) == played and svc.store.load_journal("c") == journal
    assert [e.text for e in await _move(svc)] == [render("en", "store_failed")]
    assert _played(svc) == played

    filler.unlink()  # room again: the game goes on where it stood
    events = await _move(svc)
    assert any(isinstance(e, Public) for e in events)
    assert _played(svc) == played + 1
    assert len(svc.store.load_journal("c")) == len(journal) + 1
    await svc.close()
    assert _counted_bytes(path) == path.stat().st_size  # healed: the log is in the file
    store = SqliteStore(path)
    assert len(store.load_journal("c")) == len(journal) + 1
    store.close()
