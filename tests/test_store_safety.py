"""The store never corrupts silently: write before apply, one process per store, damaged or
too-new stores refused, private files, no hands in logs, no secrets in reprs."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from dokobot.config import LibraryDebugFilter, parse_config
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.i18n import render
from dokobot.host.router import Router
from dokobot.host.service import Service, default_bot_factory
from dokobot.store import MemoryStore, SqliteStore, StoreDamaged, StoreLocked
from dokobot.store.sqlite import MIGRATIONS

NAMES = ("anna", "ben", "carl", "dora")


class FlakyStore(MemoryStore):
    """A store whose writes fail while ``fails`` says so."""

    def __init__(self) -> None:
        super().__init__()
        self.fails: Callable[[list[str]], bool] = lambda lines: False
        self.language_fails = False

    def append(self, channel: str, lines: list[str]) -> int:
        if self.fails(lines):
            raise OSError(28, "No space left on device")
        return super().append(channel, lines)

    def set_language(self, user: str, lang: str) -> None:
        if self.language_fails:
            raise OSError(28, "No space left on device")
        super().set_language(user, lang)


def _inp(name: str, text: str, ch: str = "c") -> Input:
    return Input(ch, f"u:{name}", name, text)


async def _four(svc: Service) -> None:
    for n in NAMES:
        await svc.handle(_inp(n, "/join"))
    await svc.handle(_inp("anna", "/start"))


def _state(svc: Service) -> tuple[object, ...]:
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    return (game.hands[:], game.trick[:], game.turn, len(game.log), game.phase, table.names(),
            len(table.finished), table.series.totals[:], dict(table.ledger.balances),
            table.ledger.house, len(table.ledger.entries))  # fmt: skip


async def _move(svc: Service) -> list[Event]:
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    seat = game.turn
    action = game.legal_actions()[0]
    from dokobot.host.table import command_for

    return await svc.handle(_inp(table.seats[seat].name, command_for(action)))


async def test_failed_write_refuses_the_move_and_changes_nothing() -> None:
    store = FlakyStore()
    svc = Service(Router(seed=7), store)
    await _four(svc)
    for _ in range(9):  # reservations and a few cards
        await _move(svc)
    before, journal = _state(svc), store.load_journal("c")
    store.fails = lambda lines: True
    events = await _move(svc)
    assert len(events) == 1 and isinstance(events[0], Private)
    assert events[0].text == render("en", "store_failed")
    assert _state(svc) == before
    assert store.load_journal("c") == journal
    # Once the store works again, the same move counts.
    store.fails = lambda lines: False
    events = await _move(svc)
    assert any(isinstance(e, Public) for e in events)
    assert len(store.load_journal("c")) == len(journal) + 1


async def test_failed_write_of_the_last_card_books_no_chips_twice() -> None:
    store = FlakyStore()
    svc = Service(Router(seed=11), store)
    for n in NAMES:
        await svc.handle(_inp(n, "/join"))
    await svc.handle(_inp("anna", "/option mode single"))
    await svc.handle(_inp("anna", "/option stake 1"))
    await svc.handle(_inp("anna", "/start"))
    game = svc.router.tables["c"].game
    assert game is not None
    while len(game.log) < 4 + 47:
        await _move(svc)
    before = _state(svc)
    store.fails = lambda lines: True
    await _move(svc)
    assert _state(svc) == before
    store.fails = lambda lines: False
    await _move(svc)
    table = svc.router.tables["c"]
    assert len(table.finished) == 1 and len(table.ledger.entries) == 1
    assert sum(table.ledger.balances.values()) + table.ledger.house == 0


async def test_failed_write_of_a_computer_move_is_undone_and_not_announced() -> None:
    store = FlakyStore()
    svc = Service(Router(seed=3, bot_factory=default_bot_factory()), store)
    pushed: list[Event] = []

    async def listener(events: list[Event]) -> None:
        pushed.extend(events)

    svc.listener = listener
    await svc.handle(_inp("anna", "/join"))
    for _ in range(3):
        await svc.handle(_inp("anna", "/join bot random"))
    store.fails = lambda lines: any(line.startswith("Bot") for line in lines)
    await svc.handle(_inp("anna", "/start"))
    await svc.idle()
    table = svc.router.tables["c"]
    game = table.game
    assert game is not None
    stored = store.load_journal("c")
    assert not any(line.startswith("Bot") for line in stored)
    assert pushed == [], "a computer player's move that was not stored is not announced"
    # the live game is exactly what the store holds: nobody has acted after the deal
    # unless anna moves first
    moved = [line for line in stored if line.startswith("anna: /") and "join" not in line]
    assert len(game.log) == len([m for m in moved if "start" not in m])


async def test_failed_language_write_keeps_the_old_language() -> None:
    store = FlakyStore()
    svc = Service(Router(seed=1), store)
    store.language_fails = True
    events = await svc.handle(_inp("anna", "/lang de"))
    assert events[-1].text == render("en", "store_failed")
    assert "anna" not in store.languages() and "u:anna" not in svc.router.langs


async def test_unreadable_store_keeps_the_table_on_hold() -> None:
    class Broken(FlakyStore):
        reads_fail = False

        def load_journal(self, channel: str, start: int = 0) -> list[str]:
            if self.reads_fail:
                raise OSError(5, "Input/output error")
            return super().load_journal(channel, start)

    store = Broken()
    svc = Service(Router(seed=2), store)
    await _four(svc)
    store.fails = lambda lines: True
    store.reads_fail = True
    assert (await _move(svc))[0].text == render("en", "store_failed")
    # no table can be rebuilt: every input is refused, none creates a fresh table
    events = await svc.handle(_inp("anna", "/table"))
    assert [e.text for e in events] == [render("en", "store_failed")]
    store.fails = lambda lines: False
    store.reads_fail = False
    events = await svc.handle(_inp("anna", "/hand"))
    assert "Your hand" in events[0].text
    assert svc.router.tables["c"].names() == list(NAMES)


# ---------------------------------------------------------------- the store file


def _feed(store: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "s.doko"
    script.write_text("anna: /join\n")
    return subprocess.run(
        [sys.executable, "-m", "dokobot.cli", "feed", str(script), "--store", str(store)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_second_process_refuses_a_store_in_use(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    store = SqliteStore(path)
    try:
        with pytest.raises(StoreLocked, match=f"pid {os.getpid()}"):
            SqliteStore(path)
        res = _feed(path, tmp_path)
        assert res.returncode == 2
        assert f"pid {os.getpid()}" in res.stderr and "Traceback" not in res.stderr
        assert store.channels() == []  # the other process wrote nothing
    finally:
        store.close()
    assert _feed(path, tmp_path).returncode == 0  # free again after close


def _healthy(path: Path) -> bytes:
    store = SqliteStore(path)
    store.append("c", [f"anna: /play CQ {i}" for i in range(2000)])
    store.close()
    return path.read_bytes()


@pytest.mark.parametrize("damage", ["empty", "garbage", "truncated", "too_new", "no_journal"])
def test_damaged_store_stops_the_start_with_exit_2(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "d.sqlite3"
    data = _healthy(path)
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 3])
    else:
        db = sqlite3.connect(path)
        if damage == "too_new":
            db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
        else:
            db.execute("DROP TABLE journal")
        db.commit()
        db.close()
    damaged = path.read_bytes()
    with pytest.raises(StoreDamaged, match=str(path)):
        SqliteStore(path)
    res = _feed(path, tmp_path)
    assert res.returncode == 2, res.stderr
    assert str(path) in res.stderr and "Traceback" not in res.stderr
    assert path.read_bytes() == damaged, "a damaged store is left as it is"
    if damage == "too_new":
        assert "newer" in res.stderr


def test_store_files_are_private(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    store = SqliteStore(path)
    store.append("c", ["anna: /join"])
    files = [p for p in tmp_path.iterdir() if p.name.startswith("p.sqlite3")]
    assert {p.name for p in files} >= {"p.sqlite3", "p.sqlite3-wal", "p.sqlite3.lock"}
    for p in files:
        assert p.stat().st_mode & 0o777 == 0o600, p
    store.close()
    os.chmod(path, 0o644)  # made by an older version
    SqliteStore(path).close()
    assert path.stat().st_mode & 0o777 == 0o600


# ---------------------------------------------------------------- logs and reprs


def test_library_debug_lines_are_dropped_ours_kept() -> None:
    flt = LibraryDebugFilter()

    def rec(name: str, level: int) -> logging.LogRecord:
        return logging.LogRecord(name, level, __file__, 1, "<< PRIVMSG anna :Your hand", (), None)

    # pydle names its logger after the connection class; discord.py logs payloads
    assert not flt.filter(rec("_Connection:irc", logging.DEBUG))
    assert not flt.filter(rec("discord.http", logging.DEBUG))
    assert not flt.filter(rec("discord.gateway", logging.DEBUG))
    assert flt.filter(rec("dokobot.host.service", logging.DEBUG))
    assert flt.filter(rec("discord.client", logging.INFO))


def test_cli_installs_the_log_guard(tmp_path: Path) -> None:
    script = tmp_path / "s.doko"
    script.write_text("anna: /join\n")
    code = (
        "import logging, sys\n"
        "from dokobot import cli\n"
        "rc = cli.main(['-v', 'replay', '-q', sys.argv[1]])\n"
        "logging.getLogger('discord.http').debug('PAYLOAD hand CQ CQ')\n"
        "logging.getLogger('dokobot.x').debug('OURS')\n"
    )
    res = subprocess.run([sys.executable, "-c", code, str(script)], capture_output=True,
                         text=True, timeout=60)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "OURS" in res.stderr and "PAYLOAD" not in res.stderr


def test_hands_are_in_no_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def game() -> list[Event]:
        svc = Service(Router(seed=5, bot_factory=default_bot_factory()), MemoryStore())
        out = await svc.handle(_inp("anna", "/join"))
        for _ in range(3):
            out += await svc.handle(_inp("anna", "/join bot random"))
        out += await svc.handle(_inp("anna", "/start"))
        await svc.idle()
        await svc.close()
        return out

    events = asyncio.run(game())
    hand = next(e.text for e in events if isinstance(e, Private) and "Your hand" in e.text)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert hand not in text
    table_cards = hand.split(":", 1)[1].strip()
    assert table_cards not in text


def test_no_secret_in_any_config_repr() -> None:
    token = "MTIzNDU2.secret-token.XYZ"
    cfg = parse_config(
        "irc:\n  host: irc.example.org\n",
        env={"DOKOBOT_DISCORD_TOKEN": token, "DOKOBOT_IRC_PASSWORD": "hunter2pass"},
    )
    assert cfg.discord is not None and cfg.discord.token == token
    for shown in (repr(cfg), str(cfg), repr(cfg.discord), repr(cfg.irc)):
        assert token not in shown and "hunter2pass" not in shown


def test_run_with_a_damaged_store_exits_2_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    path.write_bytes(b"\x00garbage" * 64)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"store:\n  path: {path}\nirc:\n  host: 127.0.0.1\n  port: 9\n"
                   "  channels: ['#doko']\n")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "DOKOBOT_DISCORD_TOKEN"}
    res = subprocess.run([sys.executable, "-m", "dokobot.cli", "run", "--config", str(cfg)],
                         capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert str(path) in res.stderr and "Traceback" not in res.stderr
