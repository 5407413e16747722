-- Issue 31 (hot36): the lone append (`append_command2`, a command that found no other game's
-- append to share a commit with) runs its statements on generic plans. Its arguments are arrays
-- and jsonb whose values never change the best plan (every statement finds its rows by primary
-- key), but under the default `plan_cache_mode = auto` PostgreSQL plans them afresh for each
-- call until it trusts the generic plan; measured 0.34 → 0.21 ms per call on a scratch cluster
-- (branch `batch31`). Set on the function, so it holds for the statements of the functions it
-- calls (`append_command`, `inbox_set`, `enqueue_notifications`) and for nothing else.
ALTER FUNCTION append_command2(
    uuid, bigint, uuid, uuid, smallint, text, jsonb, text[], jsonb[], integer, text[], text,
    jsonb, jsonb, timestamptz, jsonb, uuid[], uuid[], uuid[], text[], jsonb[]
) SET plan_cache_mode = force_generic_plan;
