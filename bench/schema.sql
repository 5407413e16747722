-- Baseline tables for pgbench, in a database of their own.
DROP TABLE IF EXISTS bench_events, bench_log, bench_state;
DROP SEQUENCE IF EXISTS bench_seq;
CREATE SEQUENCE bench_seq;
CREATE TABLE bench_events (game_id bigint NOT NULL, seq bigint NOT NULL, payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (game_id, seq));
CREATE TABLE bench_log (game_id bigint NOT NULL, seq bigint NOT NULL, payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (game_id, seq));
CREATE TABLE bench_state (game_id bigint PRIMARY KEY, version bigint NOT NULL, state jsonb NOT NULL);
INSERT INTO bench_state SELECT g, 0, jsonb_build_object('state', repeat('y', 4080)) FROM generate_series(1, 1000) g;
