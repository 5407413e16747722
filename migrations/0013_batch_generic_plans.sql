-- Issue 31: `append_many` (0012) is a dozen statements over array parameters. PL/pgSQL plans a
-- statement with parameters afresh on each of its first calls and keeps doing so while the
-- generic plan's estimate looks dearer than the custom ones; for these array joins it kept
-- replanning, so every batch paid the planner a dozen times. Forced to its generic plans, which
-- are the same index lookups and unnest joins for any batch size up to `MAX_BATCH`, an 8-item
-- batch cost PostgreSQL 1,100 µs of CPU instead of 1,327 (pgbench, `-M prepared -c 1`, three
-- rounds each way, interleaved; docs/benchmarks.md). The lone append (`append_command2`) is
-- unchanged: the same setting did nothing measurable for it.
ALTER FUNCTION append_many SET plan_cache_mode = force_generic_plan;
