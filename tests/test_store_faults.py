"""The SQLite store under real faults: a disk that fills up, the same file under other names,
readers beside the bot, and damaged or foreign files."""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from testdata import DATA

from dokobot import cli
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.feed import CHANNEL, durable_line
from dokobot.host.i18n import render
from dokobot.host.journal import decode_journal
from dokobot.host.replay import Replayer
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.host.table import command_for
from dokobot.store import SqliteStore, StoreError, StoreLocked

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


def _fill(disk: Path, mode: str = "wb") -> Path:
    """Write a file until the disk is full (``mode`` "ab": add to it)."""
    filler = disk / "filler"
    with filler.open(mode, buffering=0) as fh:
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
    with pytest.raises(StoreError, match=r"new\.sqlite3 cannot be opened \(.*(full|space)"):
        SqliteStore(small_disk / "new.sqlite3")  # no room for a new store: said so

    played, journal = _played(svc), svc.store.load_journal("c")
    events = await _move(svc)
    assert [e.text for e in events] == [render("en", "store_failed")]
    assert isinstance(events[0], Private)
    assert _played(svc) == played and svc.store.load_journal("c") == journal
    text = _log_text(caplog)
    assert "database or disk is full" in text and "cannot rollback" not in text
    assert "Traceback" not in text  # the disk's refusal is one log line, not a traceback

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


async def _play(svc: Service, moves: int) -> int:
    """Make up to ``moves`` moves (a new game when one ends); how many the store took."""
    taken = 0
    for _ in range(moves):
        if svc.router.tables["c"].running:
            events = await _move(svc)
        else:
            events = await svc.handle(_inp("anna", "/start"))
        if [e.text for e in events] == [render("en", "store_failed")]:
            return taken
        taken += 1
    return taken


async def test_on_a_small_disk_the_log_never_crowds_out_the_data(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each move adds a few pages to the write-ahead log, which SQLite writes into the file
    only every 1,000 pages (4 MB): on a small disk the log filled it while the data needed
    a few KB, and the store refused every move for good."""
    caplog.set_level(logging.WARNING)
    path = small_disk / "doko.sqlite3"
    svc = Service(Router(seed=7), SqliteStore(path))
    for n in NAMES:
        await svc.handle(_inp(n, "/join"))
    filler = _fill(small_disk)
    os.truncate(filler, filler.stat().st_size - 400 * 1024)  # 400 KB left for the store
    assert await _play(svc, 300) == 300
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size < 400 * 1024
    assert "the disk is nearly full; the write-ahead log was written into the file" in (
        _log_text(caplog)
    )

    # really full: refused; a little room (for the data, far less than the log took
    # before) and the store goes on by itself
    for _ in range(50):  # the log's own room is used up too
        _fill(small_disk, "ab")
        if not await _play(svc, 1):
            break
    else:
        raise AssertionError("the store takes moves on a full disk")
    assert await _play(svc, 3) == 0
    os.truncate(filler, filler.stat().st_size - 96 * 1024)
    assert await _play(svc, 120) == 120
    journal = svc.store.load_journal("c")
    await svc.close()
    store = SqliteStore(path)  # all there after a restart
    assert store.load_journal("c") == journal
    store.close()


def test_stats_and_export_on_a_full_disk_say_so_and_do_not_call_the_store_damaged(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = small_disk / "doko.sqlite3"
    lines = TWO_GAMES.read_text(encoding="utf-8").splitlines()
    script = tmp_path / "one.doko"
    script.write_text("\n".join(lines[: [i for i, x in enumerate(lines) if ": /start" in x][1]]))
    assert cli.main(["feed", str(script), "--store", str(path)]) == 0
    config = tmp_path / "c.yaml"
    config.write_text(f"store:\n  path: {path}\n")
    filler = _fill(small_disk)  # a reader needs room for SQLite's shared-memory file
    capsys.readouterr()
    for argv in (["stats", "--store", str(path)], ["export", "feed", "--config", str(config)]):
        assert cli.main(argv) == 2
        out, err = capsys.readouterr()
        assert err.startswith(f"dokobot: store {path} cannot be read: its disk is full"), err
        assert "The store is not damaged: free some space and try again" in err
        assert "damaged (" not in err and not out
    filler.unlink()
    for argv in (["stats", "--store", str(path)], ["export", "feed", "--config", str(config)]):
        assert cli.main(argv) == 0
        assert "anna" in capsys.readouterr().out


# ---------------------------------------------------------------- damaged and foreign stores

TWO_GAMES = DATA / "default-1.doko"


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A store with two finished games and a third dealt (fed, then closed)."""
    lines = TWO_GAMES.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith(": /start")]
    script = tmp_path_factory.mktemp("healthy") / "two.doko"
    script.write_text("\n".join(lines[: starts[2] + 1]) + "\n")
    path = script.with_name("h.sqlite3")
    assert cli.main(["feed", str(script), "--store", str(path)]) == 0
    return path.read_bytes()


def _damage(kind: str, path: Path, healthy: bytes) -> None:
    if kind == "directory":
        path.mkdir()
        return
    if kind == "symlink_loop":
        path.symlink_to(path.name)
        return
    if kind == "foreign":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        db.execute("INSERT INTO notes (text) VALUES ('mine')")
        db.commit()
        db.close()
        return
    path.write_bytes(healthy)
    if kind == "malformed":  # every page after the first two: its header overwritten
        data = bytearray(healthy)
        for at in range(2 * 4096, len(data), 4096):
            data[at : at + 64] = b"\xff" * 64
        path.write_bytes(bytes(data))
        return
    if kind == "page_one_flipped":  # every bit of page 1 after the file header
        data = bytearray(healthy)
        data[100:4096] = bytes(b ^ 0xFF for b in data[100:4096])
        path.write_bytes(bytes(data))
        return
    change = {
        "no_results_table": "DROP TABLE game_results",
        "result_not_json": "UPDATE game_results SET record = '{not json' WHERE id = 1",
        "result_not_a_game": "UPDATE game_results SET record = '{\"x\": 1}' WHERE id = 1",
        "record_not_json": "UPDATE journal SET line = 'not json' WHERE seq = 5",
        "record_of_no_kind": 'UPDATE journal SET line = \'{"k":"zzz"}\' WHERE seq = 5',
        # after the checkpoint: the table is restored from it and put on hold
        "last_record_of_no_kind": 'UPDATE journal SET line = \'{"k":"zzz"}\' '
        "WHERE seq = (SELECT MAX(seq) FROM journal)",
        # records lost in the middle of a journal (its count says more)
        "journal_gap": "DELETE FROM journal WHERE seq BETWEEN 100 AND 200",
        # the journal lost its second game, and its count was made to fit: the finished
        # games the store holds tell
        "journal_lost_a_game": "DELETE FROM journal WHERE seq >= (SELECT seq FROM journal "
        "WHERE line LIKE '%\"/start\"%' ORDER BY seq LIMIT 1 OFFSET 1); "
        "UPDATE tables SET length = (SELECT COUNT(*) FROM journal)",
        # a card of the first game changed into one that cannot be played
        "record_not_applicable": "UPDATE journal SET line = json_set(line, '$.text', "
        "'/play XX') WHERE seq = (SELECT seq FROM journal WHERE line LIKE '%/play%' "
        "ORDER BY seq LIMIT 1 OFFSET 5)",
    }[kind]
    db = sqlite3.connect(path)
    db.executescript(change)
    db.commit()
    db.close()


READERS: tuple[str, ...] = ("stats", "web", "export", "feed", "run")
"""The commands that read the store."""
#: Per damage, the commands that must refuse it (the others do not read what is damaged).
REFUSED: dict[str, tuple[str, ...]] = {
    "malformed": READERS,
    "page_one_flipped": READERS,
    "no_results_table": READERS,
    "result_not_json": ("stats", "web"),
    "result_not_a_game": ("stats", "web"),
    "record_not_json": ("export", "feed"),
    "record_of_no_kind": ("export", "feed"),
    "last_record_of_no_kind": ("export", "feed"),
    "journal_gap": ("export",),
    "journal_lost_a_game": ("export",),
    "record_not_applicable": ("export",),
    "directory": READERS,
    "symlink_loop": READERS,
    "foreign": READERS,
}


def _argv(command: str, path: Path, tmp_path: Path) -> list[str]:
    config = tmp_path / "c.yaml"
    config.write_text(f"store:\n  path: {path}\nirc:\n  host: 127.0.0.1\n  port: 9\n"
                      "  channels: ['#doko']\n")  # fmt: skip
    script = tmp_path / "s.doko"
    script.write_text("anna: /join\n")
    return {
        "stats": ["stats", "--store", str(path)],
        "web": ["web", "--store", str(path), "--port", "9"],
        "export": ["export", "feed", "--config", str(config)],
        "feed": ["feed", str(script), "--store", str(path)],
        "run": ["run", "--config", str(config)],
    }[command]


@pytest.mark.parametrize(
    ("kind", "command"), [(k, c) for k, commands in REFUSED.items() for c in commands]
)
def test_a_damaged_store_is_refused_with_a_message_not_a_traceback(
    kind: str,
    command: str,
    healthy: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "d.sqlite3"
    _damage(kind, path, healthy)
    data = path.read_bytes() if path.is_file() else b""
    argv = _argv(command, path, tmp_path)
    if command == "run":  # the chat adapters would start: a child process with a timeout
        env = {k: v for k, v in os.environ.items() if k != "DOKOBOT_DISCORD_TOKEN"}
        res = subprocess.run([sys.executable, "-m", "dokobot.cli", *argv], capture_output=True,
                             text=True, timeout=60, env=env)  # fmt: skip
        code, out, err = res.returncode, res.stdout, res.stderr
    else:
        served: list[object] = []

        async def serve_web(*args: object) -> None:
            served.append(args)

        monkeypatch.setattr("dokobot.web.serve_web", serve_web)
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert not served, "the web pages of a damaged store are not served"
    assert code != 0, err
    assert "Traceback" not in err and "ACK" not in out
    assert str(path) in err or (command == "feed" and "damaged" in err), err
    if path.is_file():
        assert path.read_bytes() == data, "a damaged store is left as it is"
    if kind == "symlink_loop":
        assert "a symbolic link that leads back to itself (a loop)" in err, err
    if kind == "foreign":
        assert "not a dokobot store" in err


def test_a_postgresql_store_that_lost_its_journal_table_is_refused(
    pg_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    from dokobot.store import open_store
    from dokobot.store.pg_connect import safe_url

    store = open_store(pg_url)
    store.append("feed", ['{"k":"seed","text":"1"}'])
    store.close()
    with psycopg.connect(pg_url, password=os.environ["DOKOBOT_STORE_PASSWORD"]) as db:
        db.execute("DROP TABLE journal")
    served: list[object] = []

    async def serve_web(*args: object) -> None:
        served.append(args)

    monkeypatch.setattr("dokobot.web.serve_web", serve_web)
    for command in READERS:
        argv = _argv(command, Path("unused"), tmp_path)
        argv = [pg_url if a == "unused" else a for a in argv]
        config = tmp_path / "c.yaml"
        config.write_text(config.read_text().replace("unused", pg_url))
        if command == "run":
            res = subprocess.run([sys.executable, "-m", "dokobot.cli", *argv],
                                 capture_output=True, text=True, timeout=60)  # fmt: skip
            code, out, err = res.returncode, res.stdout, res.stderr
        else:
            code = cli.main(argv)
            out, err = capsys.readouterr()
        assert code == 2, (command, err)
        assert "Traceback" not in err and "ACK" not in out and not served
        assert f"store {safe_url(pg_url)} has lost its table(s) journal" in err, err


# ---------------------------------------------------------------- one writer per file


def test_a_second_writer_through_a_symlink_or_a_hard_link_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "real" / "doko.sqlite3"
    store = SqliteStore(path)
    try:
        store.append("c", ['{"k":"seed","text":"1"}'])
        symlink = tmp_path / "link.sqlite3"
        symlink.symlink_to(path)
        with pytest.raises(StoreLocked, match=f"in use by pid {os.getpid()}"):
            SqliteStore(symlink)
        hard = tmp_path / "hard.sqlite3"
        os.link(path, hard)
        with pytest.raises(StoreLocked, match="the same file under another name"):
            SqliteStore(hard)
        caplog.set_level(logging.WARNING)
        SqliteStore(tmp_path / "other.sqlite3").close()
        assert "hard links" not in caplog.text
        res = subprocess.run(
            [sys.executable, "-m", "dokobot.cli", "feed", str(TWO_GAMES), "--store", str(hard)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert res.returncode == 2 and "ACK" not in res.stdout
        assert "the same file under another name" in res.stderr and "Traceback" not in res.stderr
        assert store.load_journal("c") == ['{"k":"seed","text":"1"}']  # nothing interleaved
    finally:
        store.close()
    SqliteStore(symlink).close()  # free again
    SqliteStore(hard).close()  # with a warning: its log is kept beside the name used
    assert "has other names (hard links)" in caplog.text


def test_a_store_that_cannot_be_made_is_refused_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    path = blocker / "doko.sqlite3"
    with pytest.raises(StoreError, match=f"store {path} cannot be opened"):
        SqliteStore(path)
    assert cli.main(["feed", str(TWO_GAMES), "--store", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "ACK" not in out and f"store {path} cannot be opened" in err


def test_an_old_lock_file_readable_by_all_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "doko.sqlite3"
    SqliteStore(path).close()
    lock = tmp_path / "doko.sqlite3.lock"
    os.chmod(lock, 0o666)  # as an older dokobot under a lax umask left it
    store = SqliteStore(path)
    assert lock.stat().st_mode & 0o777 == 0o600
    store.close()


def test_readers_open_the_store_read_only_beside_the_bot(tmp_path: Path) -> None:
    path = tmp_path / "doko.sqlite3"
    store = SqliteStore(path)
    store.append("feed", ['{"k":"seed","text":"1"}'])
    store.close()
    port = _free_port()
    web = subprocess.Popen(
        [sys.executable, "-m", "dokobot.cli", "web", "--store", str(path), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for(port, web)
        bot = SqliteStore(path)  # the bot starts beside the pages (it once found them locked)
        try:
            assert bot.append("feed", ['{"k":"seed","text":"2"}']) == 2
            reader = SqliteStore(path, readonly=True)  # stats and export read beside both
            assert len(reader.load_journal("feed")) == 2
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                reader.append("feed", ['{"k":"seed","text":"3"}'])
            reader.close()
        finally:
            bot.close()
        assert web.poll() is None
    finally:
        web.terminate()
        web.communicate(timeout=10)


def test_the_web_pages_of_a_store_that_is_not_there_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "typo.db"
    assert cli.main(["web", "--store", str(typo), "--port", "9"]) == 2
    assert f"there is no store at {typo}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [], "no store was made"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, proc: subprocess.Popen[str]) -> None:
    for _ in range(200):
        assert proc.poll() is None, proc.communicate()[1]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


def test_feed_acknowledges_only_the_lines_a_full_disk_took(small_disk: Path) -> None:
    script = small_disk.parent / "two.doko"
    lines = TWO_GAMES.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.endswith(": /start")]
    script.write_text("\n".join(lines[: starts[2]]) + "\n")
    path = small_disk / "f.sqlite3"
    SqliteStore(path).close()  # made while there was room
    filler = _fill(small_disk)
    os.truncate(filler, filler.stat().st_size - 64 * 1024)  # room for a few lines only

    def run(start: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dokobot.cli", "feed", str(script), "--store", str(path),
             "--from", str(start), "--json"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    res = run(1)
    assert res.returncode == 1, res.stderr
    acks = [int(x.split()[1]) for x in res.stdout.splitlines() if x.startswith("ACK ")]
    assert acks == list(range(1, len(acks) + 1)) and 0 < len(acks) < starts[2]
    assert f"line {acks[-1] + 1} was not stored" in res.stderr
    assert f"--from {acks[-1] + 1}" in res.stderr
    store = SqliteStore(path, readonly=True)  # what the store holds is what was acknowledged
    assert durable_line(decode_journal(store.load_journal(CHANNEL)))[0] == acks[-1]
    store.close()

    filler.unlink()  # room again: the feed goes on where it stopped
    res = run(acks[-1] + 1)
    assert res.returncode == 0, res.stderr
    rep = Replayer()
    rep.run_text(script.read_text())
    assert [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")] == rep.results()


async def test_a_damaged_game_record_answers_500_and_one_log_line_on_the_web(
    healthy: bytes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import aiohttp
    from aiohttp import web

    from dokobot.stats import Stats
    from dokobot.web import make_app

    path = tmp_path / "d.sqlite3"
    path.write_bytes(healthy)
    writer = SqliteStore(path)
    key, _ = writer.web_page("feed")
    writer.close()
    db = sqlite3.connect(path)  # the statistics do not read the tricks: only the game page does
    db.execute("UPDATE game_results SET record = json_set(record, '$.tricks', 5) WHERE id = 1")
    db.commit()
    db.close()
    store = SqliteStore(path, readonly=True)
    stats = Stats(store)
    stats.warm()
    runner = web.AppRunner(make_app(stats))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/s/{key}/game/1") as resp:
                assert resp.status == 500 and "damaged" not in await resp.text()
            async with session.get(f"http://127.0.0.1:{port}/s/{key}/game/2") as resp:
                assert resp.status == 200
    finally:
        await runner.cleanup()
        store.close()
    failed = [r for r in caplog.records if "web request" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is None
    assert f"store {path}: the record of finished game 1 is damaged" in failed[0].getMessage()


async def test_a_damaged_game_record_is_one_log_line_when_the_bot_reads_it(
    healthy: bytes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "d.sqlite3"
    _damage("result_not_a_game", path, healthy)
    svc = Service(Router(seed=0), SqliteStore(path))
    await svc.start()
    events = await svc.handle(Input("feed", "u:anna", "anna", "/stats"))
    await svc.close()
    assert [e.text for e in events] == [render("en", "internal_error")]
    lines = [r for r in caplog.records if "the record of finished game 1 is damaged" in r.message]
    assert lines and all(r.exc_info is None for r in lines)
    assert "Traceback" not in _log_text(caplog)
