"""SQLite store (WAL): one row per journal record (a JSON object, see
:mod:`dokobot.host.journal`), a versioned schema with migrations.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> s = SqliteStore(os.path.join(d, "t.db"))
>>> s.append("c", ['{"k":"seed","text":"1"}'])
1
>>> s.load_journal("c"), s.channels(), s.schema_version()
(['{"k":"seed","text":"1"}'], ['c'], 8)
>>> s.close()
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import socket
import sqlite3
import struct
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .base import (
    Append,
    Checkpoint,
    StoreConflict,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreLocked,
    Summary,
    schema_tables,
)
from .shared import Db, SqlStore

log = logging.getLogger(__name__)

MAGIC: Final = b"SQLite format 3\x00"
FILE_MODE: Final = 0o600
"""Store files hold hands: only their owner may read them."""

BUSY_MS: Final = 5000
"""How long a write waits for a reader beside the bot that holds SQLite's lock."""
ROOM_WAIT_MS: Final = 200
"""On a full disk: how long emptying the write-ahead log waits for such a reader."""
FULL_BELOW: Final = 256 * 1024
"""A disk with less room than this (bytes) is full, for the messages."""
LOG_LIMIT: Final = 1 << 20
"""The size (bytes) the write-ahead log is cut back to after a checkpoint."""

if TYPE_CHECKING:
    from ..stats.record import FinishedGame

#: Migrations: entry i brings the schema from version i to i + 1.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE journal (
        channel TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (channel, seq)
    );
    """,
    """
    CREATE TABLE user_settings (
        user TEXT PRIMARY KEY,
        language TEXT NOT NULL
    );
    """,
    # 3: journal rows are JSON records; a replay line of older versions becomes a record of
    # kind "line", which restores as before
    """
    UPDATE journal SET line = json_object('k', 'line', 'text', line);
    """,
    # 4: per table its journal length and its latest checkpoint (a restart loads that
    # instead of replaying the whole history)
    """
    CREATE TABLE tables (
        channel TEXT PRIMARY KEY,
        length INTEGER NOT NULL
    );
    INSERT INTO tables (channel, length)
        SELECT channel, MAX(seq) + 1 FROM journal GROUP BY channel;
    CREATE TABLE checkpoints (
        channel TEXT PRIMARY KEY,
        upto INTEGER NOT NULL,
        version TEXT NOT NULL,
        state BLOB NOT NULL,
        settlements BLOB NOT NULL,
        users TEXT NOT NULL
    );
    """,
    # 5: chat nick histories (IRC identities across nick changes and restarts)
    """
    CREATE TABLE nick_history (
        nick TEXT PRIMARY KEY COLLATE NOCASE,
        user TEXT NOT NULL,
        seen INTEGER NOT NULL
    );
    """,
    # 6: finished games for the statistics and the web pages (dokobot.stats); the web key of
    # each server.
    """
    CREATE TABLE game_results (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        server TEXT NOT NULL,
        channel TEXT NOT NULL,
        game INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (channel, game)
    );
    CREATE INDEX game_results_server ON game_results (server, id);
    CREATE TABLE web_pages (
        server TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        enabled INTEGER NOT NULL
    );
    """,
    # 7: users' other choices (e.g. where Discord sends their prompts), by name
    """
    CREATE TABLE user_prefs (
        user TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (user, name)
    );
    """,
    # 8: the review of each finished game with people (opaque records of the host): its job
    # (with the hands) until the review is done, then the review alone
    """
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel TEXT NOT NULL,
        game INTEGER NOT NULL,
        job TEXT,
        review TEXT,
        UNIQUE (channel, game)
    );
    """,
)


def _lock_file(path: Path, shown: Path) -> int:
    """Hold ``PATH.lock`` for this process (released by the kernel when it dies); write
    who holds it. :class:`StoreLocked` names the holder if another process has it. ``path``
    is the store's real path (a symlink to it shares its lock), ``shown`` the name the
    operator gave."""
    lock_path = path.with_name(path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        # one made by an older dokobot may be readable by all: whoever can open it can hold it
        os.fchmod(fd, FILE_MODE)
    except PermissionError:
        os.close(fd)
        raise StoreError(
            f"store {shown}: its lock file {lock_path} belongs to another user; only the "
            "store's owner may run dokobot on it"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
        os.close(fd)
        raise StoreLocked(
            f"store {shown} is in use by {holder}; only one dokobot may use a store"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode(), 0)
    return fd


def _lock_inode(path: Path, shown: Path) -> int:
    """Hold the store file itself: its device and inode, whatever name leads to it (a hard
    link has a lock file of its own). The lock is ``flock``'s, which SQLite's own ``fcntl``
    locks do not touch; the descriptor stays open as long as the store."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreLocked(
            f"store {shown} is in use by another dokobot process, which opened the same "
            "file under another name (a link); only one dokobot may use a store"
        ) from None
    return fd


def _is_a_file(path: Path) -> None:
    """Refuse a store path that names something other than a file, or a symbolic link
    that leads to itself (a loop)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(
                f"store {path} is a symbolic link that leads back to itself (a loop), not a "
                "file; point it at the store file (store.path)"
            ) from None
    if path.is_dir():
        raise StoreError(f"store {path} is a directory; a store is a file (store.path)")
    if path.exists() and not path.is_file():
        raise StoreError(f"store {path} is not a regular file")


def _check_file(path: Path, shown: Path) -> bool:
    """Refuse a file that cannot be a healthy store (cheap checks of the header). False if
    the header counts more pages than the file has: a checkpoint that stopped half way (a
    full disk) leaves that while SQLite reads the store whole through its write-ahead log,
    so only SQLite's own check (:func:`_check_pages`) tells it from a truncated file."""
    size = path.stat().st_size
    if size == 0:
        raise StoreDamaged(
            f"store {shown} is an empty file (0 bytes), which dokobot never leaves behind; "
            "it may have been truncated. Restore it from a backup, or move it away to "
            "start with an empty store"
        )
    with path.open("rb") as fh:
        head = fh.read(100)
    page_size = struct.unpack(">H", head[16:18])[0] if len(head) == 100 else 0
    page_size = 65536 if page_size == 1 else page_size
    if not head.startswith(MAGIC) or page_size < 512:
        raise StoreDamaged(f"store {shown} is not an SQLite database (damaged or another file)")
    pages = int(struct.unpack(">I", head[28:32])[0])
    return pages * page_size <= size


def _check_pages(db: sqlite3.Connection, path: Path, shown: Path) -> None:
    """SQLite's check of a store whose header counts more pages than its file has:
    :class:`StoreDamaged` if it is truncated indeed."""
    try:
        found = [str(r[0]) for r in db.execute("PRAGMA quick_check(5)").fetchall()]
    except sqlite3.DatabaseError as exc:
        found = [str(exc)]
    if found != ["ok"]:
        raise StoreDamaged(
            f"store {shown} is truncated ({path.stat().st_size} bytes, fewer than its header "
            f"counts) and SQLite finds it damaged ({'; '.join(found)}); restore it from a backup"
        )


def _heal(db: sqlite3.Connection, shown: Path) -> None:
    """Write the write-ahead log into the store file (a checkpoint that a full disk stopped
    half way); if that fails again, the store goes on through its log."""
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError as exc:
        log.warning("store %s: its write-ahead log could not be written into the file (%s); "
                    "it is used through the log until there is room", shown, exc)  # fmt: skip
    else:
        log.warning("store %s: finished a checkpoint that had stopped half way (a full "
                    "disk?); nothing is lost", shown)  # fmt: skip


def _check_schema(db: sqlite3.Connection, shown: Path, *, readonly: bool) -> int:
    """The schema version of a store; :class:`StoreDamaged` if it is newer than this code,
    lacks a table of its version, or is another program's database."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > len(MIGRATIONS):
        raise StoreDamaged(
            f"store {shown} has schema version {version}, newer than this dokobot "
            f"understands ({len(MIGRATIONS)}); upgrade dokobot to use it"
        )
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    tables = {str(r[0]) for r in rows if not str(r[0]).startswith("sqlite_")}
    if version == 0 and tables:
        names = ", ".join(sorted(tables)[:5])
        raise StoreDamaged(
            f"store {shown} is not a dokobot store: it is another program's SQLite database "
            f"(tables {names}), which dokobot leaves as it is; give dokobot a file of its own"
        )
    lost = sorted(schema_tables(MIGRATIONS, version) - tables)
    if lost:
        raise StoreDamaged(
            f"store {shown} has lost its table(s) {', '.join(lost)}; restore it from a backup"
        )
    if readonly and version < len(MIGRATIONS):
        raise StoreDamaged(
            f"store {shown} has schema version {version}, this dokobot reads "
            f"{len(MIGRATIONS)} only; start the bot once to migrate it"
        )
    return version


def _create(path: Path) -> None:
    """A new, empty store at ``path``, made whole under another name and then renamed, so
    that a crash never leaves a half-made store behind."""
    tmp = path.with_name(path.name + ".new")
    for stale in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    os.close(os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE))
    db = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        _migrate(db, 0)
    finally:
        db.close()
    with tmp.open("rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _migrate(db: sqlite3.Connection, version: int) -> None:
    for i in range(version, len(MIGRATIONS)):
        db.execute("BEGIN IMMEDIATE")
        try:
            for stmt in MIGRATIONS[i].split(";"):
                if stmt.strip():
                    db.execute(stmt)
            db.execute(f"PRAGMA user_version = {i + 1}")
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise


def _disk_refused(exc: BaseException) -> bool:
    """Whether SQLite's error is the disk's refusal (full, or failed to write)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    return isinstance(exc, sqlite3.OperationalError) and name.startswith(
        ("SQLITE_FULL", "SQLITE_IOERR")
    )


def _rollback(db: sqlite3.Connection) -> None:
    """Undo the transaction under way, if SQLite has not undone it itself: it does so on a
    full disk, and a ROLLBACK then would fail and hide the real cause."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def _read_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """What SQLite's refusal to read the store at ``path`` means: :class:`StoreFull` when
    the disk is full (a reader needs a little room for SQLite's shared-memory file; the
    store itself is whole), a refusal of the disk otherwise when the disk refused, and
    :class:`StoreDamaged` only when SQLite finds the file damaged."""
    if not _disk_refused(exc):
        return StoreDamaged(f"store {path} is damaged ({exc})")
    try:
        disk = os.statvfs(path.resolve().parent)
        free = disk.f_bavail * disk.f_frsize
    except OSError:
        free = -1
    if 0 <= free < FULL_BELOW:
        return StoreFull(
            f"store {path} cannot be read: its disk is full ({free // 1024} KB free) and SQLite "
            "needs a little room beside the store to read it. The store is not damaged: free "
            "some space and try again"
        )
    return StoreError(
        f"store {path} cannot be read: the disk refused ({exc}); check the disk and its free "
        "space before you call the store damaged"
    )


@contextlib.contextmanager
def _damage(path: Path) -> Iterator[None]:
    """Reading a damaged page raises :class:`StoreDamaged` (not a bare sqlite3 error), a
    full disk :class:`StoreFull` (see :func:`_read_error`)."""
    try:
        yield
    except sqlite3.ProgrammingError:
        raise  # a closed store: a bug, not damage
    except sqlite3.DatabaseError as exc:
        raise _read_error(path, exc) from exc


class SqliteStore(SqlStore):
    """Journals in an SQLite file, written with ``synchronous=FULL`` in WAL mode.

    One writing process per store file: it holds ``PATH.lock`` (next to the real file, so a
    symlink shares it) and the file itself (so does a hard link); the files are readable
    by their owner only. Readers (``readonly``) take no lock. A store that is damaged, newer
    than this code or another program's raises :class:`StoreDamaged`, another process
    holding it :class:`StoreLocked`.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """``readonly``: only read an existing store of this version (SQLite's ``mode=ro``),
        beside the process that writes it (``dokobot web``, ``stats``, ``export``); no lock
        is taken, nothing is made."""
        self.path = Path(path)
        self.where = str(path)
        self._lock = threading.Lock()
        self._next: dict[str, int] = {}
        self.readonly = readonly
        """Opened only to read (no lock; writes fail)."""
        self._lock_fds: list[int] = []
        try:
            _is_a_file(self.path)
            if readonly:
                self._db = self._open_readonly()
                return
            real = self.path.resolve()
            try:
                real.parent.mkdir(parents=True, exist_ok=True)
                self._lock_fds.append(_lock_file(real, self.path))
                if not real.exists():
                    _create(real)
                self._lock_fds.append(_lock_inode(real, self.path))
                if os.fstat(self._lock_fds[-1]).st_nlink > 1:
                    log.warning("store %s has other names (hard links); SQLite keeps its log "
                                "beside the name it was opened by, so always use this one: "
                                "the newest actions are in that log", self.path)  # fmt: skip
                self._wal = real.with_name(real.name + "-wal")
                self._made_room = False
                """Whether the log was emptied early because the disk is nearly full (said
                once in the log)."""
                self._db = self._open(real)
            except BaseException:
                self._unlock()
                raise
        except (OSError, sqlite3.Error) as exc:  # no room, no right, not a folder, ...
            raise StoreError(f"store {self.path} cannot be opened ({exc})") from exc

    def _unlock(self) -> None:
        while self._lock_fds:
            os.close(self._lock_fds.pop())

    def _open_readonly(self) -> sqlite3.Connection:
        path = self.path
        if not path.exists():
            raise StoreError(f"there is no store at {path}")
        whole = _check_file(path, path)
        uri = f"file:{path.resolve()}?mode=ro"
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        try:
            if not whole:
                _check_pages(db, path, path)
            _check_schema(db, path, readonly=True)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise _read_error(path, exc) from exc
        except BaseException:
            db.close()
            raise
        return db

    def _open(self, real: Path) -> sqlite3.Connection:
        shown = self.path
        whole = _check_file(real, shown)
        for f in (real, real.with_name(real.name + "-wal"), real.with_name(real.name + "-shm")):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f, FILE_MODE)
        db = sqlite3.connect(str(real), check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
            # the log shrinks back after each checkpoint (its frames are not kept for reuse)
            db.execute(f"PRAGMA journal_size_limit={LOG_LIMIT}")
            if not whole:
                _check_pages(db, real, shown)
                _heal(db, shown)
            version = _check_schema(db, shown, readonly=False)
            if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
                raise StoreDamaged(f"store {shown}: cannot use write-ahead logging")
            _migrate(db, version)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreDamaged(f"store {shown} is damaged ({exc})") from exc
        except BaseException:
            db.close()
            raise
        return db

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def append(self, channel: str, lines: list[str], at: int | None = None) -> int:
        with self._lock:
            return self._append_all([(channel, lines, at)])[0]

    def append_many(self, appends: Sequence[Append]) -> list[int | Exception]:
        """Every append in one transaction (one flush to disk); if that fails, each is
        tried on its own, so that a bad one refuses only itself."""
        with self._lock:
            try:
                return list(self._append_all(appends))
            except Exception as exc:
                if len(appends) == 1:
                    return [exc]
        out: list[int | Exception] = []
        for channel, lines, at in appends:
            try:
                out.append(self.append(channel, lines, at))
            except Exception as exc:
                out.append(exc)
        return out

    def _append_all(self, appends: Sequence[Append], *, again: bool = True) -> list[int]:
        """Append each ``(channel, lines, at)`` in one transaction (the lock is held). On a
        full disk the write-ahead log is written into the file and emptied (its old frames
        can fill a small disk while the data needs little), and the transaction is tried
        ``again`` once."""
        lengths: list[int] = []
        rows: list[tuple[str, int, str]] = []
        ends: dict[str, int] = {}
        for channel, lines, at in appends:
            seq = ends.get(channel)
            if seq is None:
                seq = self._next.get(channel)
            if seq is None:
                row = self._db.execute(
                    "SELECT COALESCE(MAX(seq), -1) + 1 FROM journal WHERE channel = ?", (channel,)
                ).fetchone()
                seq = int(row[0])
            if at is not None and at != seq:
                raise StoreConflict(f"table {channel} holds {seq} records, not {at}: not written")
            rows += [(channel, seq + i, line) for i, line in enumerate(lines)]
            ends[channel] = seq + len(lines)
            lengths.append(seq + len(lines))
        if not rows:
            return lengths
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO journal (channel, seq, line) VALUES (?, ?, ?)", rows)
            self._db.executemany(
                "INSERT INTO tables (channel, length) VALUES (?, ?) "
                "ON CONFLICT(channel) DO UPDATE SET length = excluded.length",
                list(ends.items()),
            )
            self._db.execute("COMMIT")
        except BaseException as exc:
            _rollback(self._db)
            for channel in ends:
                self._next.pop(channel, None)
            if _disk_refused(exc):
                if again and self._make_room():
                    return self._append_all(appends, again=False)
                raise StoreFull(f"store {self.path}: {exc}; nothing was written") from exc
            raise
        self._next.update(ends)
        self._keep_room()
        return lengths

    def _keep_room(self) -> None:
        """Empty the write-ahead log once it holds more than the disk has free (the lock is
        held): on a small disk the log's old frames would fill it while the data needs
        little, and then even a checkpoint (which grows the file) finds no room."""
        try:
            used = os.stat(self._wal).st_size
            disk = os.statvfs(self._wal)
        except OSError:
            return
        if used > disk.f_bavail * disk.f_frsize:
            self._make_room("the disk is nearly full", quiet=self._made_room)
            self._made_room = True

    def _make_room(self, why: str = "the disk is full", *, quiet: bool = False) -> bool:
        """After the disk refused a write: write the write-ahead log into the store file and
        truncate it to nothing (the lock is held). True if that was done: the log's space
        is free again. Fails (False) while the data itself does not fit, or while a reader
        beside the bot still reads an old snapshot; the next refused write tries again."""
        try:
            self._db.execute(f"PRAGMA busy_timeout={ROOM_WAIT_MS}")
            row = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            level = logging.DEBUG if quiet else logging.WARNING
            log.log(level, "store %s: %s and its write-ahead log could not be emptied (%s)",
                    self.path, why, exc)  # fmt: skip
            return False
        finally:
            self._db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        if row is None or int(row[0]) != 0:
            return False
        log.log(logging.DEBUG if quiet else logging.WARNING, "store %s: %s; the write-ahead "
                "log was written into the file and emptied to make room", self.path, why)  # fmt: skip
        return True

    # ---------------------------------------------------------------- shared (SqlStore)
    @contextlib.contextmanager
    def _reading(self, channel: str | None = None) -> Iterator[Db]:
        with self._lock, _damage(self.path):
            yield self._db

    @contextlib.contextmanager
    def _writing(self, channel: str | None) -> Iterator[Db]:
        with self._lock:
            if channel is not None:  # (a fold changes its length: the next append reads it)
                self._next.pop(channel, None)
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                _rollback(self._db)
                raise

    def _without(self, *fields: str) -> str:
        paths = ", ".join(f"'$.{f}'" for f in fields)
        return f"json_remove(record, {paths})"

    def summaries(self) -> list[Summary]:
        with self._lock, _damage(self.path):
            rows = self._db.execute(
                "SELECT t.channel, t.length, c.upto, c.version, c.settlements, c.users "
                "FROM tables t LEFT JOIN checkpoints c ON c.channel = t.channel "
                "ORDER BY t.channel"
            ).fetchall()
        out = []
        for channel, length, upto, version, settlements, users in rows:
            cp = None
            if upto is not None:
                cp = Checkpoint.from_row(upto, version, None, settlements, users)
            out.append(Summary(str(channel), int(length), cp))
        return out

    def channels(self) -> list[str]:
        with self._lock, _damage(self.path):
            rows = self._db.execute("SELECT channel FROM tables ORDER BY channel")
            return [str(r[0]) for r in rows.fetchall()]

    def remember_nick(self, user: str, nick: str) -> None:
        # (the key folds A to Z only, as fold_nick: COLLATE NOCASE)
        with self._writing(None) as db:
            db.execute(
                "INSERT INTO nick_history (nick, user, seen) VALUES "
                "(?, ?, (SELECT COALESCE(MAX(seen), 0) + 1 FROM nick_history)) "
                "ON CONFLICT(nick) DO UPDATE SET nick = excluded.nick, user = excluded.user, "
                "seen = excluded.seen",
                (nick, user),
            )

    def add_results(self, games: list[FinishedGame]) -> list[FinishedGame]:
        """Several records in one transaction (:meth:`add_result` for each)."""
        with self._writing(None) as db:
            return [self._add_result(db, game) for game in games]

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._unlock()
