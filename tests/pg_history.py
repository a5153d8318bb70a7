"""The texts of shipped migrations that were later replaced by an equivalent one (see
``REPLACED`` in tests/test_schema_history.py): kept here, byte for byte, so that the tests
can build a database as the shipped dokobot did and prove that the replacement ends in the
same schema."""

from __future__ import annotations

from typing import Final

POSTGRES_4_SHIPPED: Final = """
    CREATE TABLE shard_epoch (
        one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
        shard_count INTEGER NOT NULL
    );
    -- the lease key of a server in an epoch: dokobot.store.scope.Scope.key_of in SQL
    CREATE FUNCTION dokobot_lease_key(p_server TEXT, p_shards INTEGER) RETURNS TEXT AS $$
        SELECT CASE
            WHEN split_part(p_server, ':', 1) = 'discord' THEN
                'discord:shard:' || mod(CASE WHEN substr(p_server, 9) ~ '^[0-9]+$'
                    THEN div(substr(p_server, 9)::numeric, 4194304) ELSE 0 END,
                    p_shards)::text || '/' || p_shards::text
            WHEN split_part(p_server, ':', 1) = 'irc' AND length(p_server) > 4 THEN
                'irc:' || split_part(substr(p_server, 5), ':', 1)
            ELSE 'local'
        END
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
                p_channel, COALESCE(k, 'a Discord shard') USING ERRCODE = 'DKL02';
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
    """
"""PostgreSQL's migration 4 as it shipped: it computed each server's lease key in SQL with
the chat platforms' own formulas (replaced: no module of the bot names a platform, and
migration 8 had dropped that function already)."""
