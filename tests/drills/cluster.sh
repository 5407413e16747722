#!/usr/bin/env bash
# Cluster drill (issue 29): one PostgreSQL primary (wal_level=replica) and one streaming replica
# (pg_basebackup -R, hot standby), three server instances on the primary, HAProxy in front
# (roundrobin, health checks on /readyz, no sticky sessions). Throughput is measured with one
# instance and with three; then, under the load tool (every game kind) plus clocked games nobody
# plays, bot-only games, lobbies left to expire, webhooks to a local receiver, commands retried
# with the same id through the balancer, and SSE subscribers on instance B: instance A is
# SIGKILLed and restarted, then B, then the primary is restarted, then the replica is stopped;
# at the end C is SIGTERMed under load (graceful drain).
# Checks and prints: acknowledged commands in the log exactly once, retries answered the same,
# one seat_timed_out per expiry (none early), bot moves once per version, lobbies expired,
# webhook deliveries per notification (at the receiver), SSE in order without a gap across cuts
# and kills (resumed with Last-Event-ID) and its lag, the replica a prefix of the primary.
# Everything runs in a temporary folder, removed at the end (kept with KEEP=1).
# Usage: tests/drills/cluster.sh [LOAD_SECONDS] [GAMES]   (DRILL_PROFILE=debug: debug binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
PLAY=${1:-60}; GAMES=${2:-12}; PROFILE=${DRILL_PROFILE:-release}; BASE=${DRILL_PORT:-19100}
REPORT=bench/out/cluster; rm -rf "$REPORT"; mkdir -p "$REPORT"
# The checker first: the SSE gap count must tell events hidden from a spectator from real gaps.
python3 tests/drills/cluster_side.py selftest
if [ "$PROFILE" = release ]; then cargo build --release -p api -p homestretch-load >/dev/null 2>&1 || cargo build --release -p api -p homestretch-load
else cargo build -p api -p homestretch-load >/dev/null 2>&1 || cargo build -p api -p homestretch-load; fi
command -v haproxy >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; }
BIN=$PWD/target/$PROFILE/homestretch; BOTS=$PWD/target/$PROFILE/homestretch-load; SIDE=$PWD/tests/drills/cluster_side.py
OUT=$(mktemp -d /tmp/homestretch-cluster.XXXXXX); chmod 755 "$OUT"; mkdir -p "$OUT/run" "$OUT/data"
P1=$((BASE)); P2=$((BASE + 1)); LBP=$((BASE + 2)); HOOKP=$((BASE + 3)); PORTS=($((BASE + 4)) $((BASE + 5)) $((BASE + 6)))
LB=http://127.0.0.1:$LBP; URL_A=http://127.0.0.1:${PORTS[0]}; URL_B=http://127.0.0.1:${PORTS[1]}; URL_C=http://127.0.0.1:${PORTS[2]}
# initdb refuses root: PostgreSQL runs as `postgres` then (as in outage.sh).
pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
[ "$(id -u)" = 0 ] && chown -R postgres "$OUT"
PGBIN=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
export RUST_LOG=warn HOMESTRETCH_LIMITS=off HOMESTRETCH_ALLOW_HTTP_HOSTS=127.0.0.1 HOMESTRETCH_LOBBY_TTL=8 \
  HOMESTRETCH_DATA="$OUT/data" HOMESTRETCH_JWT_SECRET=cluster-drill-jwt-secret-shared-by-every-instance \
  DATABASE_URL="postgres://homestretch@127.0.0.1:$P1/homestretch" PGUSER=homestretch PGHOST=127.0.0.1
# Replays, exports, audits and event pages read the standby when it has what they need.
export HOMESTRETCH_REPLICA_URL="postgres://homestretch@127.0.0.1:$P2/homestretch"
PIDS=(0 0 0); OTHER=()
cleanup() {
  for p in "${PIDS[@]}" "${OTHER[@]}"; do [ "$p" != 0 ] && kill "$p" 2>/dev/null || true; done
  [ -f "$OUT/haproxy.pid" ] && kill "$(cat "$OUT/haproxy.pid")" 2>/dev/null || true
  for d in replica primary; do [ -d "$OUT/$d" ] && pg "$PGBIN/pg_ctl -D $OUT/$d -m immediate stop" >/dev/null 2>&1 || true; done
  cp "$OUT"/*.log "$OUT"/*.json "$REPORT"/ 2>/dev/null || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT

# --- PostgreSQL: primary and streaming replica -------------------------------------------------
pg "$PGBIN/initdb -D $OUT/primary -U homestretch --auth=trust" >/dev/null
cat >>"$OUT/primary/postgresql.conf" <<EOF
port = $P1
listen_addresses = '127.0.0.1'
unix_socket_directories = '$OUT/run'
wal_level = replica
max_wal_senders = 4
hot_standby = on
max_connections = 300
EOF
# A throwaway cluster on 127.0.0.1 only, removed at the end: trust is enough here.
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n' >"$OUT/primary/pg_hba.conf"
pg "$PGBIN/pg_ctl -D $OUT/primary -l $OUT/primary.log -w start" >/dev/null
psql -qAt -p "$P1" -d postgres -c "CREATE DATABASE homestretch" >/dev/null
pg "$PGBIN/pg_basebackup -h 127.0.0.1 -p $P1 -U homestretch -D $OUT/replica -R -X stream"
echo "port = $P2" >>"$OUT/replica/postgresql.conf"
pg "$PGBIN/pg_ctl -D $OUT/replica -l $OUT/replica.log -w start" >/dev/null
[ "$(psql -qAt -p "$P2" -d postgres -c 'SELECT pg_is_in_recovery()')" = t ] || { echo "the replica is not a standby"; exit 1; }
primary() { psql -qAt -p "$P1" -d homestretch -c "$1"; }
replica() { psql -qAt -p "$P2" -d homestretch -c "$1"; }

# --- Three instances and HAProxy ---------------------------------------------------------------
start() { local i=$1; "$BIN" serve --listen "127.0.0.1:${PORTS[$i]}" >>"$OUT/server$i.log" 2>&1 & PIDS[i]=$!
          for _ in $(seq 1 160); do curl -sf "http://127.0.0.1:${PORTS[$i]}/readyz" >/dev/null && return; sleep 0.25; done
          echo "instance $i did not start"; exit 1; }
for i in 0 1 2; do start "$i"; done
cat >"$OUT/haproxy.cfg" <<EOF
global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  option redispatch
  retries 2
frontend homestretch
  bind 127.0.0.1:$LBP
  default_backend instances
backend instances
  balance roundrobin
  option httpchk GET /readyz
  default-server inter 500ms fall 2 rise 2
  server a 127.0.0.1:${PORTS[0]} check
  server b 127.0.0.1:${PORTS[1]} check
  server c 127.0.0.1:${PORTS[2]} check
EOF
haproxy -f "$OUT/haproxy.cfg" -D -p "$OUT/haproxy.pid"
for _ in $(seq 1 40); do curl -sf "$LB/readyz" >/dev/null && break; sleep 0.25; done

# --- Throughput: one instance, then three behind the balancer ----------------------------------
"$BOTS" play --url "$URL_A" --games "$GAMES" --duration 10 --json >"$OUT/throughput1.json" 2>/dev/null
"$BOTS" play --url "$LB" --games "$GAMES" --duration 10 --json >"$OUT/throughput3.json" 2>/dev/null
tp() { python3 -c "import json;print(round(json.load(open('$1'))['accepted_commands_per_s']))"; }
TP1=$(tp "$OUT/throughput1.json"); TP3=$(tp "$OUT/throughput3.json")

# --- The load, the side traffic and the faults -------------------------------------------------
python3 "$SIDE" receiver "$HOOKP" "$OUT/hooks.json" & OTHER+=($!)
python3 "$SIDE" scenario "$LB" "$URL_B" "$URL_C" "$PLAY" "http://127.0.0.1:$HOOKP" "$OUT/scenario.json" 2>"$OUT/scenario.log" & SCEN=$!
"$BOTS" play --url "$LB" --games "$GAMES" --duration "$PLAY" --ack-log "$OUT/acked.txt" --json >"$OUT/load.json" 2>"$OUT/load.log" & LOAD=$!
STEP=$(( PLAY / 6 ))
sleep "$STEP"; kill -9 "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true; echo "instance A SIGKILLed"; sleep 2; start 0
sleep "$STEP"; kill -9 "${PIDS[1]}"; wait "${PIDS[1]}" 2>/dev/null || true; echo "instance B SIGKILLed"; sleep 2; start 1
sleep "$STEP"; pg "$PGBIN/pg_ctl -D $OUT/primary -l $OUT/primary.log -m fast -w restart" >/dev/null; echo "primary restarted"
sleep "$STEP"
# The replica while it streams: how far behind, and each game's log there a prefix of the primary's.
REPLAG=$(psql -qAt -p "$P1" -d postgres -c "SELECT coalesce(round(extract(epoch FROM replay_lag) * 1000), 0) FROM pg_stat_replication LIMIT 1")
# The replica first: the primary read after it can only be ahead.
replica "SELECT g.id, g.version, (SELECT count(*) FROM events e WHERE e.game_id = g.id) FROM games g WHERE status <> 'lobby' ORDER BY id" >"$OUT/heads_replica.txt"
primary "SELECT id, version FROM games WHERE status <> 'lobby' ORDER BY id" >"$OUT/heads_primary.txt"
# Replica-eligible reads through the balancer while it streams (and the load runs); then the
# instances' counts of who served them: homestretch_replica_reads_total{source=SOURCE} summed
# over the instances named (C is drained before the reads after the stop: A and B count those).
replica_reads() { local source=$1; shift; for u in "$@"; do curl -sf "$u/metrics" || true; done | python3 -c "
import re, sys
print(sum(int(m.group(1)) for l in sys.stdin for m in [re.match(r'homestretch_replica_reads_total\{source=\"$source\",reason=\"\w+\"\} (\d+)', l)] if m))"; }
read_all() { local bad=0 g p; for g in $(echo "$1" | tr -d "'" | tr ',' ' '); do
  for p in "state?at=1" export audit "events?after=0"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$LB/v1/games/$g/$p" -H "authorization: Bearer $2")" = 200 ] || bad=$((bad + 1))
  done; done; echo "$bad"; }
LIVE_TOKEN=$(curl -sf -XPOST "$LB/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
live_unread=$(read_all "$(primary "SELECT string_agg(id::text, ',') FROM (SELECT id FROM games WHERE status IN ('active', 'finished') ORDER BY id LIMIT 24) g")" "$LIVE_TOKEN")
pg "$PGBIN/pg_ctl -D $OUT/replica -m fast -w stop" >/dev/null; echo "replica stopped"
by_replica=$(replica_reads replica "$URL_A" "$URL_B" "$URL_C"); by_primary=$(replica_reads primary "$URL_A" "$URL_B" "$URL_C")
ab_replica=$(replica_reads replica "$URL_A" "$URL_B"); ab_primary=$(replica_reads primary "$URL_A" "$URL_B")
wait "$LOAD"; wait "$SCEN"
# Let the outbox drain and the last deadlines fire.
# A killed instance's claimed deliveries come due again when their 60 s lease ends.
for _ in $(seq 1 150); do [ "$(primary 'SELECT count(*) FROM outbox')" = 0 ] && break; sleep 0.5; done
sleep 2

# --- Graceful drain: SIGTERM to instance C under load through the balancer --------------------
# C's /readyz is sampled every 50 ms: it must turn 503 before the port closes; no request through
# the balancer may fail meanwhile (HAProxy takes C out on its failed checks); C exits 0.
"$BOTS" play --url "$LB" --games "$GAMES" --duration 8 --ack-log "$OUT/acked_drain.txt" --json >"$OUT/drain_load.json" 2>"$OUT/drain_load.log" & DLOAD=$!
sleep 2
( while :; do curl -s -o /dev/null -w '%{http_code}\n' --max-time 1 "$URL_C/readyz"; sleep 0.05; done ) >"$OUT/drain_readyz.txt" 2>/dev/null & WATCH=$!
sleep 0.5
kill -TERM "${PIDS[2]}"; set +e; wait "${PIDS[2]}"; drain_exit=$?; set -e; PIDS[2]=0; echo "instance C SIGTERMed: drained and exited $drain_exit"
sleep 0.5; kill "$WATCH" 2>/dev/null || true; wait "$DLOAD"
cat "$OUT/acked_drain.txt" >>"$OUT/acked.txt"
drain=$(python3 -c "
import json
seq = open('$OUT/drain_readyz.txt').read().split()
first = next((s for s in seq if s != '200'), 'none')
r = json.load(open('$OUT/drain_load.json'))
failed = r['transport_errors'] + sum(v for k, v in r['statuses'].items() if k.startswith('5'))
print('yes' if first == '503' else 'no(' + first + ')', seq.count('503'), sum(r['statuses'].values()), failed)")
read -r drain_503_first drain_503s drain_requests drain_failed <<<"$drain"

# --- Checks -----------------------------------------------------------------------------------
primary "SELECT command_id FROM commands" >"$OUT/logged.txt"
acked=$(wc -l <"$OUT/acked.txt")
missing=$(python3 -c "
logged = set(open('$OUT/logged.txt').read().split())
print(sum(1 for a in open('$OUT/acked.txt').read().split() if a not in logged))")
twice=$(primary "SELECT count(*) FROM (SELECT first_seq, lag(last_seq) OVER (PARTITION BY game_id ORDER BY first_seq) AS prev FROM commands) x WHERE first_seq <> coalesce(prev, 0) + 1")
heads=$(primary "SELECT count(*) FROM games g WHERE status NOT IN ('lobby', 'expired') AND g.version <> (SELECT coalesce(max(last_seq), 0) FROM commands c WHERE c.game_id = g.id)")
statuses=$(python3 -c "import json;print(json.load(open('$OUT/load.json'))['statuses'])")
ids() { python3 -c "import json;print(','.join(\"'\"+g+\"'\" for g in json.load(open('$OUT/scenario.json'))['$1']))"; }
CLOCKED=$(ids clocked); BOTGAMES=$(ids bots); LOBBIES=$(ids lobbies)
CLOCK_USER=00000000-0000-7000-8000-00000000c10c
timeouts=$(primary "SELECT count(*) FROM events WHERE game_id IN ($CLOCKED) AND type = 'seat_timed_out'")
clock_cmds=$(primary "SELECT count(*) FROM commands WHERE game_id IN ($CLOCKED) AND user_id = '$CLOCK_USER'")
not_one=$(primary "SELECT count(*) FROM commands c WHERE c.game_id IN ($CLOCKED) AND c.user_id = '$CLOCK_USER' AND (SELECT count(*) FROM events e WHERE e.game_id = c.game_id AND e.seq BETWEEN c.first_seq AND c.last_seq AND e.type = 'seat_timed_out') <> 1")
# Early: a timeout less than per_decision_s (1 s) after the entry its seat's decision began at:
# `since` in its payload under clock version 2 (issue 26; a decision several seats owe starts at
# one entry, so their timeouts follow each other closely), else the entry before it (as the
# server's audit, `infra/src/audit/server_moves.rs` `on_time`). Late: the widest such wait.
early=$(primary "SELECT count(*) FROM (SELECT t.recorded_at - s.recorded_at AS waited FROM events t JOIN events s ON s.game_id = t.game_id AND s.seq = coalesce((t.payload->>'since')::bigint, t.seq - 1) WHERE t.game_id IN ($CLOCKED) AND t.type = 'seat_timed_out') x WHERE waited < interval '1 second'")
widest=$(primary "SELECT coalesce(round(extract(epoch FROM max(waited))::numeric, 1), 0) FROM (SELECT t.recorded_at - s.recorded_at AS waited FROM events t JOIN events s ON s.game_id = t.game_id AND s.seq = coalesce((t.payload->>'since')::bigint, t.seq - 1) WHERE t.game_id IN ($CLOCKED) AND t.type = 'seat_timed_out') x")
expected_timeouts=$(primary "SELECT coalesce(sum(floor(extract(epoch FROM (SELECT max(recorded_at) FROM events e WHERE e.game_id = g.id) - (SELECT min(recorded_at) FROM events e WHERE e.game_id = g.id AND e.type <> 'game_created')))), 0)::bigint FROM games g WHERE id IN ($CLOCKED)")
bot_moves=$(primary "SELECT count(*) FROM commands WHERE game_id IN ($BOTGAMES) AND user_id::text LIKE '00000000-0000-7000-8000-000000000b0%'")
bot_twice=$(primary "SELECT count(*) - count(DISTINCT (game_id, first_seq)) FROM commands WHERE game_id IN ($BOTGAMES)")
lobbies=$(echo "$LOBBIES" | tr ',' '\n' | grep -c . || true)
expired=$(primary "SELECT count(*) FROM games WHERE id IN ($LOBBIES) AND status = 'expired'")
primary "SELECT n.id FROM notifications n JOIN webhooks w ON w.user_id = n.user_id AND w.created_at <= n.created_at" >"$OUT/notified.txt"
pending=$(primary "SELECT count(*) FROM outbox")
hooks=$(python3 -c "
import json, os
expected = set(open('$OUT/notified.txt').read().split())
got = json.load(open('$OUT/hooks.json')) if os.path.exists('$OUT/hooks.json') else {}
once = sum(1 for i in expected if got.get(i) == 1)
more = sum(1 for i in expected if got.get(i, 0) > 1)
never = sum(1 for i in expected if i not in got)
stray = sum(1 for i in got if i not in expected)
print(f'{len(expected)} {once} {more} {never} {stray}')")
read -r hooks_expected hooks_once hooks_more hooks_never hooks_stray <<<"$hooks"
# Each streamed game's log (seq, type): a skipped seq is a gap only if the spectator may see it.
primary "SELECT game_id, seq, type FROM events WHERE game_id IN ($BOTGAMES) ORDER BY game_id, seq" >"$OUT/sse_log.txt"
sse=$(python3 -c "
import json, sys
sys.path.insert(0, '$(dirname "$SIDE")')
from cluster_side import sse_gaps
s = json.load(open('$OUT/scenario.json'))
logs = {}
for l in open('$OUT/sse_log.txt').read().split():
    g, seq, kind = l.split('|'); logs.setdefault(g, []).append((int(seq), kind))
events = gaps = hidden = cuts = 0; lags = []
for g, r in s['sse'].items():
    seen = r['seen']; events += len(seen); cuts += r['cuts']; lags += r['lags']
    wrong, skipped = sse_gaps(seen, logs.get(g, []))
    gaps += wrong; hidden += skipped
lags.sort()
q = lambda p: round(lags[min(len(lags) - 1, int(p * len(lags)))] * 1000) if lags else -1
retries = s['retries']
print(events, gaps, hidden, cuts, q(0.5), q(0.99), len(retries), sum(1 for r in retries if not r['same']), len(s['errors']), len(s['stale_next']), len(s['stale_refusals']))")
read -r sse_events sse_gaps sse_hidden sse_cuts lag50 lag99 retried retry_diff side_errors stale_next stale_refusals <<<"$sse"
prefix_bad=$(python3 -c "
p = dict(l.split('|') for l in open('$OUT/heads_primary.txt').read().split())
bad = 0; n = 0
for l in open('$OUT/heads_replica.txt').read().split():
    g, v, c = l.split('|'); n += 1
    if int(v) != int(c) or int(v) > int(p.get(g, -1)): bad += 1
print(bad, n)")
read -r replica_bad replica_games <<<"$prefix_bad"
# Reads keep working with the replica stopped (served by the primary: the replica counts stay).
TOKEN=$(curl -sf -XPOST "$LB/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
unread=0; audited=0; unsound=0
for g in $(echo "$BOTGAMES,$CLOCKED" | tr -d "'" | tr ',' ' '); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$LB/v1/games/$g/state?at=1" -H "authorization: Bearer $TOKEN")
  [ "$code" = 200 ] || unread=$((unread + 1))
  audited=$((audited + 1))
  sound=$(curl -sf "$LB/v1/games/$g/audit" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys;print(json.load(sys.stdin)["sound"])' || echo error)
  [ "$sound" = True ] || unsound=$((unsound + 1))
done
unread=$((unread + $(read_all "$BOTGAMES,$CLOCKED" "$TOKEN")))
after_replica=$(( $(replica_reads replica "$URL_A" "$URL_B") - ab_replica )); after_primary=$(( $(replica_reads primary "$URL_A" "$URL_B") - ab_primary ))
replica_reads_ok=$([ "$by_replica" -gt 0 ] && [ "$live_unread" = 0 ] && [ "$after_replica" = 0 ] && [ "$after_primary" -gt 0 ] && echo 1 || echo 0)
cat <<EOF | tee "$REPORT/summary.txt"
cluster drill: 3 instances behind HAProxy, primary + streaming replica, load ${PLAY}s on $GAMES games ($PROFILE build)
throughput (accepted commands/s, 10 s, $GAMES games): 1 instance $TP1, 3 instances $TP3
faults: instance A kill -9 + restart, instance B kill -9 + restart, primary restart, replica stopped
acknowledged commands: $acked; missing from the log: $missing; commands overlapping or split: $twice; heads off: $heads; load statuses: $statuses
retries with the same command id through the balancer: $retried commands x3, acknowledged part (status, version, events) differing: $retry_diff; \`next\` differing from the first answer's: $stale_next; refused first then accepted on a retry: $stale_refusals
clock: seat_timed_out $timeouts in $clock_cmds clock commands (expected about $expected_timeouts); commands with other than one timeout: $not_one; early: $early; widest wait ${widest}s
bots: $bot_moves moves, two at one version: $bot_twice
lobbies: $expired of $lobbies expired
webhooks: notifications $hooks_expected; delivered once $hooks_once, more than once $hooks_more, never $hooks_never, unknown ids $hooks_stray; outbox pending $pending
SSE on instance B/C: $sse_events events, gaps or reorders $sse_gaps (events hidden from a spectator, not sent: $sse_hidden), resumes after a cut $sse_cuts; lag p50 ${lag50} ms, p99 ${lag99} ms
replica: replay lag ${REPLAG} ms; games read there $replica_games, not a prefix of the primary $replica_bad; after stopping it: reads (replay, export, audit, events) not answered $unread, audits $audited, unsound $unsound
replica reads through the balancer (homestretch_replica_reads_total, 3 instances): while it streams served by the replica $by_replica, by the primary $by_primary, not answered $live_unread; after stopping it by the replica +$after_replica, by the primary +$after_primary
side traffic errors: $side_errors
graceful drain (SIGTERM to instance C under load): /readyz 503 before the port closed: $drain_503_first ($drain_503s samples); requests through the balancer meanwhile $drain_requests, failed (5xx or transport) $drain_failed; exit status $drain_exit
EOF
[ "$missing" = 0 ] && [ "$twice" = 0 ] && [ "$heads" = 0 ] && [ "$retry_diff" = 0 ] && [ "$stale_next" = 0 ] && [ "$stale_refusals" = 0 ] && [ "$not_one" = 0 ] && [ "$early" = 0 ] \
  && [ "$bot_twice" = 0 ] && [ "$expired" = "$lobbies" ] && [ "$hooks_never" = 0 ] && [ "$sse_gaps" = 0 ] \
  && [ "$replica_bad" = 0 ] && [ "$unread" = 0 ] && [ "$unsound" = 0 ] && [ "$replica_reads_ok" = 1 ] \
  && [ "$drain_503_first" = yes ] && [ "$drain_failed" = 0 ] && [ "$drain_exit" = 0 ]
