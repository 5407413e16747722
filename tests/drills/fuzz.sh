#!/usr/bin/env bash
# Longer spec-fuzzing drill: schemathesis against a release server, every operation, every phase,
# against games of every kind, seat count and option sample: the fuzzer's user hosts them all,
# `homestretch-load play` plays them for PLAY_SECONDS (past several snapshots), and the hook in
# tests/drills/schemathesis_hooks.py points most generated game ids at them.
# Usage: tests/drills/fuzz.sh [EXAMPLES_PER_OPERATION] [PLAY_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-300}; PLAY=${2:-40}
OUT=bench/out/fuzz; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn HOMESTRETCH_LIMITS=off
python3 -m schemathesis.cli --version >/dev/null 2>&1 || python3 -m pip install --quiet schemathesis
cargo build --release -p api -p homestretch-load >/dev/null 2>&1 || cargo build --release -p api -p homestretch-load
BIN=target/release/homestretch; BOTS=target/release/homestretch-load; PORT=${FUZZ_PORT:-18994}; URL="http://127.0.0.1:$PORT"
"$BIN" serve --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 80); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.25; done
TOKEN=$(curl -sf -XPOST "$URL/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
# One lane per table (kind × seat count × option sample), the fuzzer's user at seat 1.
TABLES=$("$BOTS" tables | wc -l)
"$BOTS" play --url "$URL" --games "$TABLES" --duration "$PLAY" --host-token "$TOKEN" --json >"$OUT/load.json" 2>/dev/null
PGPORT=$(cat "$OUT/data/port"); PGHOST=$(cd "$OUT/data/run" && pwd); export PGPORT PGHOST PGUSER=homestretch
HOMESTRETCH_FUZZ_GAMES=$(psql -qAt -d homestretch -c "SELECT string_agg(id::text, ',') FROM games WHERE status <> 'lobby'")
played=$(psql -qAt -d homestretch -c "SELECT kind || ': ' || count(*) || ' games, versions ' || min(version) || '..' || max(version) FROM games WHERE status <> 'lobby' GROUP BY kind ORDER BY kind" | paste -sd ';')
echo "games played before fuzzing: $played" | tee "$OUT/games.txt"
export HOMESTRETCH_FUZZ_GAMES PYTHONPATH=tests/drills SCHEMATHESIS_HOOKS=schemathesis_hooks
python3 -m schemathesis.cli run "$URL/openapi.json" -H "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  -n "$N" --request-timeout 20 | tee "$OUT/report.txt" | sed -n '/SUMMARY/,$p'
