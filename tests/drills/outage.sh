#!/usr/bin/env bash
# Database-outage drill: drive load on every game (every kind, seat count and option sample in
# turn), stop PostgreSQL for a few seconds, start it again. While it
# is down the server must answer 503 problem+json (never 500, never hang past the timeout) and
# /readyz must say so; afterwards it must recover by itself, with nothing acknowledged lost and
# every chain sound. Usage: tests/drills/outage.sh [DOWN_SECONDS] [GAMES] [LOAD_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
DOWN=${1:-4}; GAMES=${2:-16}; PLAY=${3:-$(( DOWN + 12 ))}
OUT=bench/out/outage; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn HOMESTRETCH_LIMITS=off
cargo build --release -p api -p homestretch-load >/dev/null 2>&1 || cargo build --release -p api -p homestretch-load
BIN=target/release/homestretch; BOTS=target/release/homestretch-load; PORT=${DRILL_PORT:-18993}; URL="http://127.0.0.1:$PORT"
"$BIN" serve --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 & SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 80); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.25; done
DATA=$(cd "$OUT/data" && pwd); PGPORT=$(cat "$DATA/port")
pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
PGBIN=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
"$BOTS" play --url "$URL" --games "$GAMES" --duration "$PLAY" --ack-log "$OUT/acked.txt" --json >"$OUT/load.json" 2>/dev/null &
LOAD=$!
sleep 4
pg "$PGBIN/pg_ctl -D $DATA/pg -m fast -w stop" >/dev/null
echo "PostgreSQL stopped"
sleep 1
ready=$(curl -s -o "$OUT/readyz.json" -w '%{http_code}' --max-time 10 "$URL/readyz")
TOKEN_PROBE=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 15 -XPOST "$URL/v1/auth/guest")
sleep "$DOWN"
pg "$PGBIN/pg_ctl -D $DATA/pg -l $DATA/postgres.log -w -o '-p $PGPORT -k $DATA/run' start" >/dev/null
echo "PostgreSQL started again"
wait "$LOAD"
recovered=$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")
PGHOST="$DATA/run"; export PGPORT PGHOST PGUSER=homestretch PGPASSFILE="$(cd "$(dirname "$PGHOST")" && pwd)/pgpass"
psql -qAt -d homestretch -c "SELECT command_id FROM commands" >"$OUT/logged.txt"
missing=$(python3 -c "
logged = set(open('$OUT/logged.txt').read().split())
print(sum(1 for a in open('$OUT/acked.txt').read().split() if a not in logged))")
statuses=$(python3 -c "import json;print(json.load(open('$OUT/load.json'))['statuses'])")
by_kind=$(python3 -c "
import json
r = json.load(open('$OUT/load.json'))['by_kind']
print('; '.join(f\"{k}: {v['games_started']} games, {v['accepted_commands']} commands, deepest version {v['max_version']}\" for k, v in sorted(r.items())))")
TOKEN=$(curl -sf -XPOST "$URL/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
unsound=0; games=0
for g in $(psql -qAt -d homestretch -c "SELECT id FROM games WHERE status <> 'lobby'"); do
  games=$((games+1))
  sound=$(curl -sf "$URL/v1/games/$g/audit" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys;print(json.load(sys.stdin)["sound"])')
  [ "$sound" = "True" ] || unsound=$((unsound+1))
done
echo "down ${DOWN}s: /readyz while down: $ready ($(cat "$OUT/readyz.json")); a request while down: $TOKEN_PROBE s; /readyz after: $recovered; load statuses: $statuses; acknowledged: $(wc -l <"$OUT/acked.txt"), missing: $missing; games audited: $games, unsound: $unsound; by kind: $by_kind" | tee "$OUT/summary.txt"
[ "$ready" = 503 ] && [ "$recovered" = 200 ] && [ "$missing" = 0 ] && [ "$unsound" = 0 ] && ! grep -q '"500"' "$OUT/load.json"
