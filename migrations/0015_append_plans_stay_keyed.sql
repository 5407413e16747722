-- Issue 31: the append's lookups stay index lookups however small its tables were when their
-- plans were made. PL/pgSQL caches a statement's generic plan for the life of the connection,
-- and the writer keeps its connection (`infra::group_commit`): planned while `commands` held a
-- few pages — a new database, or any table autovacuum last analyzed small — the idempotency
-- check `SELECT * FROM commands WHERE game_id = … AND user_id = … AND command_id = …` became a
-- sequential scan, and stayed one while the table grew until the next analyze: 0.218 ms per
-- lone append, 43 % of `append_command`, in an 8 s one-game run on a fresh database
-- (pg_stat_statements, 2026-11-30 05:16 UTC), against ≈ 0.01 ms as an index scan; the batch's
-- head-and-record check likewise (3.1-3.4 ms per batch, 04:14 UTC). Every statement the two
-- append entry points run finds its rows by key, so a sequential scan is never the right plan
-- for them: it is priced out (`enable_seqscan` only adds a cost, so a table without a usable
-- index is still scanned).
ALTER FUNCTION append_command2(
    uuid, bigint, uuid, uuid, smallint, text, jsonb, text[], jsonb[], integer, text[], text,
    jsonb, jsonb, timestamptz, jsonb, uuid[], uuid[], uuid[], text[], jsonb[]
) SET enable_seqscan = off;
ALTER FUNCTION append_batch2(
    uuid[], bigint[], uuid[], uuid[], smallint[], text[], jsonb[], integer[], text[], jsonb[],
    jsonb[], timestamptz[], jsonb[], text[], integer[], integer[], text[], jsonb[], text[],
    integer[], uuid[], uuid[], uuid[], text[], jsonb[]
) SET enable_seqscan = off;
