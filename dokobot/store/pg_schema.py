"""The PostgreSQL store's schema: its migrations (the tables and the functions that fence
every write, see :mod:`dokobot.store.postgres`) and the check of a database's version."""

from __future__ import annotations

from typing import Any, Final

import psycopg

from .base import StoreDamaged, StoreError, schema_tables

#: Migrations: entry i brings the schema from version i to i + 1.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE journal (
        channel TEXT NOT NULL,
        seq INTEGER NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (channel, seq)
    );
    CREATE TABLE tables (
        channel TEXT PRIMARY KEY,
        length INTEGER NOT NULL,
        server TEXT
    );
    CREATE TABLE checkpoints (
        channel TEXT PRIMARY KEY,
        upto INTEGER NOT NULL,
        version TEXT NOT NULL,
        state BYTEA NOT NULL,
        settlements BYTEA NOT NULL,
        users TEXT NOT NULL
    );
    CREATE TABLE user_settings (
        "user" TEXT PRIMARY KEY,
        language TEXT NOT NULL
    );
    CREATE SEQUENCE nick_seen;
    CREATE TABLE nick_history (
        nick_key TEXT PRIMARY KEY,
        nick TEXT NOT NULL,
        "user" TEXT NOT NULL,
        seen BIGINT NOT NULL
    );
    CREATE TABLE game_results (
        id BIGSERIAL PRIMARY KEY,
        server TEXT NOT NULL,
        channel TEXT NOT NULL,
        game INTEGER NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (channel, game)
    );
    CREATE INDEX game_results_server ON game_results (server, id);
    CREATE TABLE web_pages (
        server TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        enabled BOOLEAN NOT NULL
    );
    """,
    # 2: leases (one writer per table) and the append of several tables' records in one
    # round trip and one transaction that checks them
    """
    CREATE TABLE leases (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL
    );
    CREATE FUNCTION dokobot_append(p_owner TEXT, p_keys INTEGER, p_channels TEXT[],
                                   p_counts INTEGER[], p_lines TEXT[], p_servers TEXT[])
                                   RETURNS INTEGER[] AS $$
    DECLARE
        held INTEGER;
        start INTEGER;
        pos INTEGER := 1;
        lengths INTEGER[] := '{}';
    BEGIN
        SELECT count(*) INTO held FROM (
            SELECT 1 FROM leases WHERE owner = p_owner FOR SHARE) AS mine;
        IF held <> p_keys THEN
            RAISE EXCEPTION 'this process no longer holds its leases (another took over)'
                USING ERRCODE = 'DKL01';
        END IF;
        FOR i IN 1 .. cardinality(p_channels) LOOP
            INSERT INTO tables (channel, length, server) VALUES (p_channels[i], 0, p_servers[i])
                ON CONFLICT (channel) DO NOTHING;
            SELECT length INTO start FROM tables WHERE channel = p_channels[i] FOR UPDATE;
            INSERT INTO journal (channel, seq, line)
                SELECT p_channels[i], start + o - 1, l
                FROM unnest(p_lines[pos:pos + p_counts[i] - 1]) WITH ORDINALITY AS t(l, o);
            UPDATE tables SET length = start + p_counts[i],
                              server = COALESCE(p_servers[i], server)
                WHERE channel = p_channels[i];
            lengths := lengths || (start + p_counts[i]);
            pos := pos + p_counts[i];
        END LOOP;
        RETURN lengths;
    END
    $$ LANGUAGE plpgsql;
    """,
    # 3: users' other choices (e.g. where Discord sends their prompts), by name
    """
    CREATE TABLE user_prefs (
        "user" TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY ("user", name)
    );
    """,
    # 4: the fence per table and epoch. The epoch is the count that the lease keys of the
    # current processes name (a scope's Epoch); a start with another count (a reshard) makes
    # a new epoch and deletes every lease of the old one. Every write of a table checks, in
    # its transaction, that this process holds its leases in the current epoch and the lease
    # of the table's own server; an append also names the position it expects to write at
    # (its idempotency key: table and position).
    # As shipped, dokobot_lease_key held the chat platforms' key formulas in SQL; migration
    # 8 dropped it (the writer names each table's key since). This dokobot never runs on
    # versions 4 to 7 (it migrates through them in one transaction), so the key here is
    # NULL (every table write refused, fail closed) and the platforms' formulas are gone;
    # the schema it ends in is the same (tests/test_pg_schema_upgrade.py), and a database
    # that applied the text as shipped is not touched (only the version is recorded).
    """
    CREATE TABLE shard_epoch (
        one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
        shard_count INTEGER NOT NULL
    );
    -- the lease key of a server in an epoch: none (dropped by migration 8)
    CREATE FUNCTION dokobot_lease_key(p_server TEXT, p_shards INTEGER) RETURNS TEXT AS $$
        SELECT NULL::text
    $$ LANGUAGE sql IMMUTABLE;
    -- the server of a table: its server record, else its channel without the last part
    CREATE FUNCTION dokobot_server_of(p_channel TEXT, p_server TEXT) RETURNS TEXT AS $$
        SELECT COALESCE(NULLIF(p_server, ''), CASE WHEN strpos(p_channel, ':') > 0
            THEN regexp_replace(p_channel, ':[^:]*$', '') ELSE p_channel END)
    $$ LANGUAGE sql IMMUTABLE;
    -- this process holds every lease it took, in the current epoch (DKL01 if not); the epoch
    CREATE FUNCTION dokobot_fence_process(p_owner TEXT, p_keys INTEGER, p_shards INTEGER)
                                          RETURNS INTEGER AS $$
    DECLARE
        held INTEGER;
        epoch INTEGER;
    BEGIN
        SELECT count(*) INTO held FROM (
            SELECT 1 FROM leases WHERE owner = p_owner FOR SHARE) AS mine;
        SELECT shard_count INTO epoch FROM shard_epoch FOR SHARE;
        IF held <> p_keys OR (p_shards IS NOT NULL AND epoch IS DISTINCT FROM p_shards) THEN
            RAISE EXCEPTION 'this process no longer holds its leases (another took over)'
                USING ERRCODE = 'DKL01';
        END IF;
        RETURN epoch;
    END
    $$ LANGUAGE plpgsql;
    -- the table's shard in the current epoch is one of this process's leases (DKL02 if not)
    CREATE FUNCTION dokobot_fence_table(p_owner TEXT, p_epoch INTEGER, p_channel TEXT,
                                        p_server TEXT) RETURNS VOID AS $$
    DECLARE
        k TEXT := dokobot_lease_key(dokobot_server_of(p_channel, p_server), p_epoch);
    BEGIN
        PERFORM 1 FROM leases WHERE key = k AND owner = p_owner FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'table % belongs to %, which this process does not hold',
                p_channel, COALESCE(k, 'no lease key') USING ERRCODE = 'DKL02';
        END IF;
    END
    $$ LANGUAGE plpgsql;
    -- both fences for a write of one table (a checkpoint, a fold, a result)
    CREATE FUNCTION dokobot_fence(p_owner TEXT, p_keys INTEGER, p_shards INTEGER,
                                  p_channel TEXT) RETURNS VOID AS $$
        SELECT dokobot_fence_table(p_owner, dokobot_fence_process(p_owner, p_keys, p_shards),
            p_channel, (SELECT server FROM tables WHERE channel = p_channel))
    $$ LANGUAGE sql;
    DROP FUNCTION dokobot_append(TEXT, INTEGER, TEXT[], INTEGER[], TEXT[], TEXT[]);
    CREATE FUNCTION dokobot_append(p_owner TEXT, p_keys INTEGER, p_shards INTEGER,
                                   p_channels TEXT[], p_ats INTEGER[], p_counts INTEGER[],
                                   p_lines TEXT[], p_servers TEXT[]) RETURNS INTEGER[] AS $$
    DECLARE
        epoch INTEGER := dokobot_fence_process(p_owner, p_keys, p_shards);
        start INTEGER;
        srv TEXT;
        pos INTEGER := 1;
        lengths INTEGER[] := '{}';
    BEGIN
        FOR i IN 1 .. cardinality(p_channels) LOOP
            INSERT INTO tables (channel, length, server) VALUES (p_channels[i], 0, p_servers[i])
                ON CONFLICT (channel) DO NOTHING;
            SELECT length, server INTO start, srv FROM tables WHERE channel = p_channels[i]
                FOR UPDATE;
            PERFORM dokobot_fence_table(p_owner, epoch, p_channels[i],
                                        COALESCE(p_servers[i], srv));
            IF p_ats[i] IS NOT NULL AND p_ats[i] <> start THEN
                RAISE EXCEPTION 'table % holds % records, not %: nothing written',
                    p_channels[i], start, p_ats[i] USING ERRCODE = 'DKC01';
            END IF;
            INSERT INTO journal (channel, seq, line)
                SELECT p_channels[i], start + o - 1, l
                FROM unnest(p_lines[pos:pos + p_counts[i] - 1]) WITH ORDINALITY AS t(l, o);
            UPDATE tables SET length = start + p_counts[i],
                              server = COALESCE(p_servers[i], server)
                WHERE channel = p_channels[i];
            lengths := lengths || (start + p_counts[i]);
            pos := pos + p_counts[i];
        END LOOP;
        RETURN lengths;
    END
    $$ LANGUAGE plpgsql;
    """,
    # 5: the review of each finished game with people (opaque records of the host): its job
    # (with the hands) until the review is done, then the review alone
    """
    CREATE TABLE reviews (
        id BIGSERIAL PRIMARY KEY,
        channel TEXT NOT NULL,
        game INTEGER NOT NULL,
        job TEXT,
        review TEXT,
        UNIQUE (channel, game)
    );
    """,
    # 6: DM presses handed from shard 0's process to the holder of their table
    # (dokobot.adapters.discord.handoff): the first outcome written wins, "taken" by the
    # holder or "expired" by shard 0 when the holder did not take it in time; so a press is
    # applied at most once, and never after its presser was told that it was not
    """
    CREATE TABLE handed_presses (
        id BIGINT PRIMARY KEY,
        outcome TEXT NOT NULL,
        at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    """,
    # 7: a nick's key folds A to Z only (dokobot.store.base.fold_nick, as SQLite's NOCASE),
    # not by the database's locale (lower() folded more letters on some databases)
    """
    UPDATE nick_history SET nick_key =
        translate(nick, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
    """,
    # 8: the database no longer knows how a chat splits its servers among processes (that
    # is the chat adapter's, see dokobot.store.scope): the writer names, per table, the
    # server it takes the table to be of and that server's lease key; the database checks
    # that the server is the table's and that this process holds the key
    """
    DROP FUNCTION dokobot_append(TEXT, INTEGER, INTEGER, TEXT[], INTEGER[], INTEGER[], TEXT[],
                                 TEXT[]);
    DROP FUNCTION dokobot_fence(TEXT, INTEGER, INTEGER, TEXT);
    DROP FUNCTION dokobot_fence_table(TEXT, INTEGER, TEXT, TEXT);
    DROP FUNCTION dokobot_lease_key(TEXT, INTEGER);
    CREATE FUNCTION dokobot_fence_table(p_owner TEXT, p_channel TEXT, p_named TEXT,
                                        p_server TEXT, p_key TEXT) RETURNS VOID AS $$
    BEGIN
        IF p_named IS DISTINCT FROM p_server THEN
            RAISE EXCEPTION 'table % is of server %, not %', p_channel, p_server, p_named
                USING ERRCODE = 'DKL02';
        END IF;
        PERFORM 1 FROM leases WHERE key = p_key AND owner = p_owner FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'table % belongs to %, which this process does not hold',
                p_channel, p_key USING ERRCODE = 'DKL02';
        END IF;
    END
    $$ LANGUAGE plpgsql;
    CREATE FUNCTION dokobot_fence(p_owner TEXT, p_keys INTEGER, p_shards INTEGER,
                                  p_channel TEXT, p_named TEXT, p_key TEXT) RETURNS VOID AS $$
    BEGIN
        PERFORM dokobot_fence_process(p_owner, p_keys, p_shards);
        PERFORM dokobot_fence_table(p_owner, p_channel, p_named, dokobot_server_of(p_channel,
            (SELECT server FROM tables WHERE channel = p_channel)), p_key);
    END
    $$ LANGUAGE plpgsql;
    -- p_lock_ms: how long the append waits for a table's row (NULL: as long as it takes);
    -- the appends of several tables give up after a while, so that one table's lock holds
    -- up no other table (each is written again on its own)
    CREATE FUNCTION dokobot_append(p_owner TEXT, p_keys INTEGER, p_shards INTEGER,
                                   p_channels TEXT[], p_ats INTEGER[], p_counts INTEGER[],
                                   p_lines TEXT[], p_servers TEXT[], p_named TEXT[],
                                   p_lease_keys TEXT[], p_lock_ms INTEGER) RETURNS INTEGER[] AS $$
    DECLARE
        start INTEGER;
        srv TEXT;
        pos INTEGER := 1;
        lengths INTEGER[] := '{}';
    BEGIN
        IF p_lock_ms IS NOT NULL THEN
            PERFORM set_config('lock_timeout', p_lock_ms::text, true);
        END IF;
        PERFORM dokobot_fence_process(p_owner, p_keys, p_shards);
        FOR i IN 1 .. cardinality(p_channels) LOOP
            INSERT INTO tables (channel, length, server) VALUES (p_channels[i], 0, p_servers[i])
                ON CONFLICT (channel) DO NOTHING;
            SELECT length, server INTO start, srv FROM tables WHERE channel = p_channels[i]
                FOR UPDATE;
            PERFORM dokobot_fence_table(p_owner, p_channels[i], p_named[i],
                dokobot_server_of(p_channels[i], COALESCE(p_servers[i], srv)), p_lease_keys[i]);
            IF p_ats[i] IS NOT NULL AND p_ats[i] <> start THEN
                RAISE EXCEPTION 'table % holds % records, not %: nothing written',
                    p_channels[i], start, p_ats[i] USING ERRCODE = 'DKC01';
            END IF;
            INSERT INTO journal (channel, seq, line)
                SELECT p_channels[i], start + o - 1, l
                FROM unnest(p_lines[pos:pos + p_counts[i] - 1]) WITH ORDINALITY AS t(l, o);
            UPDATE tables SET length = start + p_counts[i],
                              server = COALESCE(p_servers[i], server)
                WHERE channel = p_channels[i];
            lengths := lengths || (start + p_counts[i]);
            pos := pos + p_counts[i];
        END LOOP;
        RETURN lengths;
    END
    $$ LANGUAGE plpgsql;
    """,
    # 9: a lease's renewal never waits for the writes in flight. A write holds its
    # process's lease rows FOR KEY SHARE (it was FOR SHARE) and the owner is part of a key,
    # so a takeover, a hand-back or a reshard (which change the owner or delete the row)
    # still wait for the writes in flight, but a renewal (which changes only ``expires``)
    # does not: a write whose server process is paused no longer lets its process's
    # leases run out
    """
    CREATE UNIQUE INDEX leases_key_owner ON leases (key, owner);
    CREATE OR REPLACE FUNCTION dokobot_fence_process(p_owner TEXT, p_keys INTEGER,
                                                     p_shards INTEGER) RETURNS INTEGER AS $$
    DECLARE
        held INTEGER;
        epoch INTEGER;
    BEGIN
        SELECT count(*) INTO held FROM (
            SELECT 1 FROM leases WHERE owner = p_owner FOR KEY SHARE) AS mine;
        SELECT shard_count INTO epoch FROM shard_epoch FOR SHARE;
        IF held <> p_keys OR (p_shards IS NOT NULL AND epoch IS DISTINCT FROM p_shards) THEN
            RAISE EXCEPTION 'this process no longer holds its leases (another took over)'
                USING ERRCODE = 'DKL01';
        END IF;
        RETURN epoch;
    END
    $$ LANGUAGE plpgsql;
    CREATE OR REPLACE FUNCTION dokobot_fence_table(p_owner TEXT, p_channel TEXT,
                                                   p_named TEXT, p_server TEXT, p_key TEXT)
                                                   RETURNS VOID AS $$
    BEGIN
        IF p_named IS DISTINCT FROM p_server THEN
            RAISE EXCEPTION 'table % is of server %, not %', p_channel, p_server, p_named
                USING ERRCODE = 'DKL02';
        END IF;
        PERFORM 1 FROM leases WHERE key = p_key AND owner = p_owner FOR KEY SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'table % belongs to %, which this process does not hold',
                p_channel, p_key USING ERRCODE = 'DKL02';
        END IF;
    END
    $$ LANGUAGE plpgsql;
    """,
    # 10: a table never moves to another server by a write. An append whose lines hold a
    # server record other than the table's stored server was fenced by the lease of the
    # server it named, so a process holding that one could take another's table over (two
    # writers of one table); now it is refused (DKL02) like any write naming another server
    """
    CREATE OR REPLACE FUNCTION dokobot_append(p_owner TEXT, p_keys INTEGER, p_shards INTEGER,
                                   p_channels TEXT[], p_ats INTEGER[], p_counts INTEGER[],
                                   p_lines TEXT[], p_servers TEXT[], p_named TEXT[],
                                   p_lease_keys TEXT[], p_lock_ms INTEGER) RETURNS INTEGER[] AS $$
    DECLARE
        start INTEGER;
        srv TEXT;
        pos INTEGER := 1;
        lengths INTEGER[] := '{}';
    BEGIN
        IF p_lock_ms IS NOT NULL THEN
            PERFORM set_config('lock_timeout', p_lock_ms::text, true);
        END IF;
        PERFORM dokobot_fence_process(p_owner, p_keys, p_shards);
        FOR i IN 1 .. cardinality(p_channels) LOOP
            INSERT INTO tables (channel, length, server) VALUES (p_channels[i], 0, p_servers[i])
                ON CONFLICT (channel) DO NOTHING;
            SELECT length, server INTO start, srv FROM tables WHERE channel = p_channels[i]
                FOR UPDATE;
            IF dokobot_server_of(p_channels[i], COALESCE(p_servers[i], srv))
                    IS DISTINCT FROM dokobot_server_of(p_channels[i], srv) THEN
                RAISE EXCEPTION 'table % is of server %, not %', p_channels[i],
                    dokobot_server_of(p_channels[i], srv), p_servers[i] USING ERRCODE = 'DKL02';
            END IF;
            PERFORM dokobot_fence_table(p_owner, p_channels[i], p_named[i],
                dokobot_server_of(p_channels[i], COALESCE(p_servers[i], srv)), p_lease_keys[i]);
            IF p_ats[i] IS NOT NULL AND p_ats[i] <> start THEN
                RAISE EXCEPTION 'table % holds % records, not %: nothing written',
                    p_channels[i], start, p_ats[i] USING ERRCODE = 'DKC01';
            END IF;
            INSERT INTO journal (channel, seq, line)
                SELECT p_channels[i], start + o - 1, l
                FROM unnest(p_lines[pos:pos + p_counts[i] - 1]) WITH ORDINALITY AS t(l, o);
            UPDATE tables SET length = start + p_counts[i],
                              server = COALESCE(p_servers[i], server)
                WHERE channel = p_channels[i];
            lengths := lengths || (start + p_counts[i]);
            pos := pos + p_counts[i];
        END LOOP;
        RETURN lengths;
    END
    $$ LANGUAGE plpgsql;
    """,
    # 11: who wrote a press's outcome (dokobot.adapters.discord.handoff): a process whose
    # own try went unanswered reads the outcome back as its own only if it wrote it, not
    # when a process that held the table after it took the press
    """
    ALTER TABLE handed_presses ADD COLUMN writer TEXT;
    """,
)


def migrate(db: psycopg.Connection[Any], where: str) -> None:
    """Bring the schema of the database ``db`` up to this dokobot's (one process at a time)."""
    with db.transaction():
        # one process migrates at a time; the others wait and find it done
        db.execute("SELECT pg_advisory_xact_lock(7210491)")
        db.execute("CREATE TABLE IF NOT EXISTS dokobot_schema (version INTEGER NOT NULL)")
        row = db.execute("SELECT version FROM dokobot_schema").fetchone()
        if row is None:
            db.execute("INSERT INTO dokobot_schema VALUES (0)")
        version = 0 if row is None else int(row[0])
        if version > len(MIGRATIONS):
            raise StoreDamaged(_too_new(where, version))
        for i in range(version, len(MIGRATIONS)):
            db.execute(MIGRATIONS[i].encode())
            db.execute("UPDATE dokobot_schema SET version = %s", (i + 1,))


def _too_new(where: str, version: int) -> str:
    return (f"store {where} has schema version {version}, newer than this dokobot "
            f"understands ({len(MIGRATIONS)}); upgrade dokobot to use it")  # fmt: skip


def check_version(db: psycopg.Connection[Any], where: str) -> None:
    """Refuse a database that is not a whole dokobot store of this dokobot's schema."""
    try:
        row = db.execute("SELECT version FROM dokobot_schema").fetchone()
    except psycopg.errors.UndefinedTable:
        raise StoreError(f"there is no dokobot store at {where}") from None
    version = 0 if row is None else int(row[0])
    if version > len(MIGRATIONS):
        raise StoreDamaged(_too_new(where, version))
    if version < len(MIGRATIONS):
        raise StoreDamaged(
            f"store {where} has schema version {version}, this dokobot "
            f"reads {len(MIGRATIONS)} only; start the bot once to migrate it"
        )
    rows = db.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    lost = sorted(schema_tables(MIGRATIONS, version) - {str(r[0]) for r in rows.fetchall()})
    if lost:
        raise StoreDamaged(f"store {where} has lost its table(s) {', '.join(lost)}; "
                           "restore it from a backup")  # fmt: skip
