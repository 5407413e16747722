#!/usr/bin/env bash
# Crash drill: drive load, SIGKILL the server several times mid-run, restart it each time, then
# check that nothing acknowledged was lost, nothing is in the log twice, every game's hash chain
# and rules re-run verify (audit), and the projections equal a rebuild from the events.
# Usage: tests/drills/crash.sh [KILLS] [SECONDS_BETWEEN_KILLS] [GAMES]
set -euo pipefail
cd "$(dirname "$0")/../.."
KILLS=${1:-3}; EVERY=${2:-6}; GAMES=${3:-16}
OUT=bench/out/crash; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn HOMESTRETCH_LIMITS=off
cargo build --release -p api >/dev/null 2>&1 || cargo build --release -p api
BIN=target/release/homestretch; PORT=${DRILL_PORT:-18995}; URL="http://127.0.0.1:$PORT"
start() { "$BIN" serve --listen "127.0.0.1:$PORT" >>"$OUT/server.log" 2>&1 & SERVER=$!;
          for _ in $(seq 1 80); do curl -sf "$URL/readyz" >/dev/null && return; sleep 0.25; done; echo "server did not start"; exit 1; }
pkill -f "serve --listen 127.0.0.1:$PORT" 2>/dev/null && sleep 1 || true
start
"$BIN" load --url "$URL" --games "$GAMES" --duration $(( KILLS * EVERY + EVERY )) --ack-log "$OUT/acked.txt" --json >"$OUT/load.json" 2>"$OUT/load.err" &
LOAD=$!
for k in $(seq 1 "$KILLS"); do
  sleep "$EVERY"; kill -9 "$SERVER"; wait "$SERVER" 2>/dev/null || true
  echo "kill $k: server SIGKILLed"; start
done
wait "$LOAD"
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
# Verification, with the cluster left running by the last server's shutdown? (it stops it) → restart it.
pkill -f "serve --listen 127.0.0.1:$PORT" 2>/dev/null && sleep 1 || true
start
PGPORT=$(cat "$OUT/data/port"); PGHOST=$(cd "$OUT/data/run" && pwd); export PGPORT PGHOST PGUSER=homestretch PGPASSFILE="$(cd "$(dirname "$PGHOST")" && pwd)/pgpass"
acked=$(wc -l <"$OUT/acked.txt")
psql -qAt -d homestretch -c "SELECT command_id FROM commands" >"$OUT/logged.txt"
missing=$(python3 -c "
logged = set(open('$OUT/logged.txt').read().split())
acked = open('$OUT/acked.txt').read().split()
print(sum(1 for a in acked if a not in logged))")
twice=$(psql -qAt -d homestretch -c "SELECT count(*) FROM (SELECT command_id FROM events GROUP BY game_id, command_id HAVING count(DISTINCT seq) <> max(seq) - min(seq) + 1) x")
dupes=$(psql -qAt -d homestretch -c "SELECT count(*) - count(DISTINCT (game_id, command_id)) FROM commands")
TOKEN=$(curl -sf -XPOST "$URL/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
unsound=0; games=0
for g in $(psql -qAt -d homestretch -c "SELECT id FROM games WHERE status <> 'lobby'"); do
  games=$((games+1))
  sound=$(curl -sf "$URL/v1/games/$g/audit" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys;print(json.load(sys.stdin)["sound"])')
  [ "$sound" = "True" ] || { unsound=$((unsound+1)); echo "unsound: $g"; }
done
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
rebuild=$("$BIN" projections rebuild | head -1)
echo "kills: $KILLS; acknowledged commands: $acked; missing from the log: $missing; commands split or twice: $twice/$dupes; games audited: $games, unsound: $unsound; $rebuild" | tee "$OUT/summary.txt"
[ "$missing" = 0 ] && [ "$twice" = 0 ] && [ "$dupes" = 0 ] && [ "$unsound" = 0 ] && echo "$rebuild" | grep -q "; 0 projections rewritten"
