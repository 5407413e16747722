#!/usr/bin/env bash
# Longer spec-fuzzing drill: schemathesis against a release server, every operation, every phase.
# Usage: tests/drills/fuzz.sh [EXAMPLES_PER_OPERATION]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-300}
OUT=bench/out/fuzz; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn HOMESTRETCH_LIMITS=off
python3 -m schemathesis.cli --version >/dev/null 2>&1 || python3 -m pip install --quiet schemathesis
cargo build --release -p api >/dev/null 2>&1 || cargo build --release -p api
PORT=${FUZZ_PORT:-18994}; URL="http://127.0.0.1:$PORT"
target/release/homestretch serve --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 80); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.25; done
TOKEN=$(curl -sf -XPOST "$URL/v1/auth/guest" | python3 -c 'import json,sys;print(json.load(sys.stdin)["access_token"])')
python3 -m schemathesis.cli run "$URL/openapi.json" -H "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  -n "$N" --request-timeout 20 | tee "$OUT/report.txt" | sed -n '/SUMMARY/,$p'
