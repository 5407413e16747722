-- (c) the raw read of one game's state row (the baseline of GET /v1/games/{id}).
\set g random(1, 1000)
SELECT version, state FROM bench_state WHERE game_id = :g;
