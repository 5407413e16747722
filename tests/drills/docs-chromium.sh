#!/usr/bin/env bash
# The /docs page renders in headless Chromium, from this server alone: starts the server, loads
# /docs with every network access but loopback refused, and checks that the page's script
# fetched /openapi.json and rendered the operations. Installs Debian's chromium if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || { echo "cannot install chromium"; exit 1; }
fi
OUT=bench/out/docs; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=warn
cargo build -p api >/dev/null 2>&1 || cargo build -p api
PORT=${DOCS_PORT:-18997}
target/debug/homestretch serve --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 80); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.25; done
# Any host other than 127.0.0.1 resolves nowhere: the page must not need one.
FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$OUT/profile"
       --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" --virtual-time-budget=10000)
chromium "${FLAGS[@]}" --dump-dom "http://127.0.0.1:$PORT/docs" >"$OUT/dom.html" 2>"$OUT/chromium.log"
chromium "${FLAGS[@]}" --window-size=1280,900 --screenshot="$OUT/docs.png" "http://127.0.0.1:$PORT/docs" >/dev/null 2>&1 || true
ops=$(grep -o 'class="op"' "$OUT/dom.html" | wc -l)
grep -q 'OpenAPI 3.1' "$OUT/dom.html" || { echo "FAIL: the spec was not loaded by the page"; exit 1; }
grep -q '/v1/games/{id}/commands' "$OUT/dom.html" || { echo "FAIL: operations not rendered"; exit 1; }
echo "docs page rendered in headless Chromium: $ops operation/schema boxes (screenshot: $OUT/docs.png)"
