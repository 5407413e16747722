#!/usr/bin/env bash
# Crash drill: drive load on every game (every kind, seat count and option sample in turn),
# SIGKILL the server several times mid-run, restart it each time, then check that nothing
# acknowledged was lost, nothing is in the log twice, every game loads in a fresh process (from
# its snapshots) and replays at its snapshot versions, every game's hash chain and rules re-run
# verify (audit), every snapshot equals a fold of the log, and the projections equal a rebuild.
# Usage: tests/drills/crash.sh [KILLS] [SECONDS_BETWEEN_KILLS] [GAMES]
# DRILL_KIND=bandits (any registered kind) plays that kind only: a short drill otherwise may never
# reach the second kind (every kind is played in turn, games replaced when they finish).
set -euo pipefail
cd "$(dirname "$0")/../.."
KILLS=${1:-3}; EVERY=${2:-6}; GAMES=${3:-16}
OUT=bench/out/crash; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn HOMESTRETCH_LIMITS=off
cargo build --release -p api -p homestretch-load >/dev/null 2>&1 || cargo build --release -p api -p homestretch-load
BIN=target/release/homestretch; BOTS=target/release/homestretch-load; PORT=${DRILL_PORT:-18995}; URL="http://127.0.0.1:$PORT"
SERVER=
start() { "$BIN" serve --listen "127.0.0.1:$PORT" >>"$OUT/server.log" 2>&1 & SERVER=$!;
          for _ in $(seq 1 120); do curl -sf "$URL/readyz" >/dev/null && return; sleep 0.25; done; echo "server did not start"; exit 1; }
stop() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
trap stop EXIT
start
"$BOTS" play --url "$URL" --games "$GAMES" ${DRILL_KIND:+--kind "$DRILL_KIND"} --duration $(( KILLS * EVERY + EVERY )) --ack-log "$OUT/acked.txt" --json >"$OUT/load.json" 2>"$OUT/load.err" &
LOAD=$!
for k in $(seq 1 "$KILLS"); do
  sleep "$EVERY"; kill -9 "$SERVER"; wait "$SERVER" 2>/dev/null || true
  echo "kill $k: server SIGKILLed"; start
done
wait "$LOAD"
# A fresh process for the checks: every game is loaded from its snapshots.
stop; start
PGPORT=$(cat "$OUT/data/port"); PGHOST=$(cd "$OUT/data/run" && pwd); export PGPORT PGHOST PGUSER=homestretch PGPASSFILE="$(cd "$(dirname "$PGHOST")" && pwd)/pgpass"
acked=$(wc -l <"$OUT/acked.txt")
psql -qAt -d homestretch -c "SELECT command_id FROM commands" >"$OUT/logged.txt"
missing=$(python3 -c "
logged = set(open('$OUT/logged.txt').read().split())
acked = open('$OUT/acked.txt').read().split()
print(sum(1 for a in acked if a not in logged))")
# Commands tile each log exactly: each starts right after the previous one ends (no event
# twice, none split), and the last ends at the head.
twice=$(psql -qAt -d homestretch -c "SELECT count(*) FROM (SELECT first_seq, lag(last_seq) OVER (PARTITION BY game_id ORDER BY first_seq) AS prev FROM commands) x WHERE first_seq <> coalesce(prev, 0) + 1")
heads=$(psql -qAt -d homestretch -c "SELECT count(*) FROM games g WHERE status <> 'lobby' AND g.version <> (SELECT max(last_seq) FROM commands c WHERE c.game_id = g.id)")
dupes=$(psql -qAt -d homestretch -c "SELECT count(*) - count(DISTINCT (game_id, user_id, command_id)) FROM commands")
server_errors=$(python3 -c "import json;print(sum(v for k, v in json.load(open('$OUT/load.json'))['statuses'].items() if k.startswith('5')))")
by_kind=$(python3 -c "
import json
r = json.load(open('$OUT/load.json'))['by_kind']
print('; '.join(f\"{k}: {v['games_started']} games, {v['games_finished']} finished, {v['accepted_commands']} commands, deepest version {v['max_version']}\" for k, v in sorted(r.items())))")
TOKEN=$(curl -sf -XPOST "$URL/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
unsound=0; games=0; unreadable=0
while IFS='|' read -r g version; do
  games=$((games+1))
  sound=$(curl -sf "$URL/v1/games/$g/audit" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys;print(json.load(sys.stdin)["sound"])' || echo error)
  [ "$sound" = "True" ] || { unsound=$((unsound+1)); echo "unsound: $g"; }
  # Loaded from its snapshots by this fresh process; replays around every snapshot.
  for at in $(psql -qAt -d homestretch -c "SELECT version FROM snapshots WHERE game_id = '$g'") "$version"; do
    for n in $(( at > 0 ? at - 1 : 0 )) "$at" $(( at + 1 > version ? version : at + 1 )); do
      code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/games/$g/state?at=$n" -H "authorization: Bearer $TOKEN")
      [ "$code" = 200 ] || { unreadable=$((unreadable+1)); echo "state?at=$n of $g: $code"; }
    done
  done
done < <(psql -qAt -d homestretch -c "SELECT id, version FROM games WHERE status <> 'lobby'")
snapshots=$(psql -qAt -d homestretch -c "SELECT count(*) FROM snapshots")
stop
rebuild=$("$BIN" projections rebuild | head -1)
snapcheck=$("$BIN" snapshots verify | head -1)
echo "kills: $KILLS; acknowledged commands: $acked; missing from the log: $missing; commands overlapping or split: $twice, heads off: $heads, ids twice: $dupes; 5xx answers during the load: $server_errors; games audited: $games, unsound: $unsound; replays at and around $snapshots snapshots not answered: $unreadable; $rebuild; $snapcheck; by kind: $by_kind" | tee "$OUT/summary.txt"
[ "$missing" = 0 ] && [ "$twice" = 0 ] && [ "$heads" = 0 ] && [ "$dupes" = 0 ] && [ "$server_errors" = 0 ] && [ "$unsound" = 0 ] && [ "$unreadable" = 0 ] \
  && echo "$rebuild" | grep -q "; 0 projections rewritten" && echo "$snapcheck" | grep -q "; 0 differ"
