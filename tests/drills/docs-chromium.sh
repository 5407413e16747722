#!/usr/bin/env bash
# The /docs page renders in headless Chromium, from this server alone: starts the server, loads
# /docs (RapiDoc, its script compiled into the server) with every network access but loopback
# refused, checks that the page loaded its script from this server and that the script fetched
# /openapi.json, and takes a screenshot (look at it: RapiDoc draws in a shadow DOM, which
# --dump-dom does not show). Installs Debian's chromium if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || { echo "cannot install chromium"; exit 1; }
fi
OUT=bench/out/docs; rm -rf "$OUT"; mkdir -p "$OUT"
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=info
[ -n "${DOCS_NO_BUILD:-}" ] || cargo build -p api >/dev/null 2>&1 || cargo build -p api
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
# The server's log names every route it served: the page, its script, then the spec the script
# asked for.
served() { grep '"served"' "$OUT/server.log" | grep -c "\"route\":\"$1\"" || true; }
grep -q '<rapi-doc' "$OUT/dom.html" || { echo "FAIL: /docs is not the RapiDoc page"; exit 1; }
[ "$(served /docs/rapidoc-min.js)" -ge 1 ] || { echo "FAIL: the page did not load its script"; exit 1; }
[ "$(served /openapi.json)" -ge 1 ] || { echo "FAIL: the script did not fetch the spec"; exit 1; }
[ -s "$OUT/docs.png" ] || { echo "FAIL: no screenshot"; exit 1; }
echo "docs page rendered in headless Chromium from this server alone (screenshot: $OUT/docs.png)"
