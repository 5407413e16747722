#!/usr/bin/env bash
# The replay page (issue 30) in headless Chromium, from this server alone: starts the server,
# has bots play one game of each kind to its end, then opens each game's page (signed in with a
# single-use ticket, as the app does) with every host but this one unreachable, steps to several
# versions, counts the pawns/sleds drawn in the page against the state at that version, and
# takes a screenshot of each (bench/out/replay/shots/*.png: look at them). It also opens a dispute
# and shows it to an arbiter (an admin who does not play): the move before and after, side by
# side, and has the arbiter reject it from the page. It fails on a console error, a request to
# any other host, or a missing board element.
# Installs Debian's chromium and, in the output folder, playwright-core from npm if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || { echo "cannot install chromium"; exit 1; }
fi
OUT=bench/out/replay; rm -rf "$OUT/shots" "$OUT/data"; mkdir -p "$OUT/shots"
NODE_DIR=bench/out/replay-node
if [ ! -d "$NODE_DIR/node_modules/playwright-core" ]; then
  mkdir -p "$NODE_DIR" && npm install --silent --prefix "$NODE_DIR" playwright-core@1 >/dev/null
fi
export HOMESTRETCH_DATA="$OUT/data" RUST_LOG=info HOMESTRETCH_LIMITS=off HOMESTRETCH_BOT_INTERVAL_MS=2
[ -n "${REPLAY_NO_BUILD:-}" ] || cargo build -p api >/dev/null 2>&1 || cargo build -p api
PORT=${REPLAY_PORT:-18996}
BASE="http://127.0.0.1:$PORT"
SERVER=
serve() {
  target/debug/homestretch serve --listen "127.0.0.1:$PORT" >>"$OUT/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 120); do curl -sf "$BASE/healthz" >/dev/null && break; sleep 0.25; done
}
stop() { [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; }; }
trap stop EXIT
serve

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
post() { curl -sf -X POST -H "authorization: Bearer $1" -H 'content-type: application/json' -d "$3" "$BASE$2"; }
register() {
  curl -sf -X POST -H 'content-type: application/json' \
    -d "{\"name\":\"$1\",\"password\":\"correct horse battery\"}" "$BASE/v1/auth/register" | json "['access_token']"
}
HOST=$(register ada)
JUDGE=$(register judge)
# The arbiter: an admin by configuration (a user id), so the server starts again with it.
JUDGE_ID=$(curl -sf -H "authorization: Bearer $JUDGE" "$BASE/v1/me" | json "['id']")
stop
HOMESTRETCH_ADMINS=$JUDGE_ID serve
GAMES=()
for kind in whisky_race bandits mush; do
  id=$(post "$HOST" /v1/games "{\"kind\":\"$kind\",\"seats\":3}" | json "['id']")
  post "$HOST" "/v1/games/$id/seats/bots" '{"policy":"random"}' >/dev/null
  post "$HOST" "/v1/games/$id/seats/bots" '{"policy":"greedy"}' >/dev/null
  post "$HOST" "/v1/games/$id/start" '{}' >/dev/null
  # Seat 1 leaves its seat to a bot: the bots play the game to its end.
  post "$HOST" "/v1/games/$id/seats/me/resign" '{}' >/dev/null
  GAMES+=("$kind:$id")
done
for entry in "${GAMES[@]}"; do
  id=${entry#*:}
  for _ in $(seq 1 600); do
    status=$(curl -sf -H "authorization: Bearer $HOST" "$BASE/v1/games/$id" | json "['status']")
    [ "$status" = finished ] && break
    sleep 0.5
  done
  [ "$status" = finished ] || { echo "FAIL: ${entry%%:*} did not finish"; exit 1; }
done
# A dispute on the first game's tenth event, for the arbiter's view.
FIRST=${GAMES[0]#*:}
DISPUTE=$(post "$HOST" "/v1/games/$FIRST/disputes" '{"seq":10,"reason":"Was this move legal?"}' | json "['id']")

cat >"$OUT/drill.cjs" <<'EOF'
// Drives headless Chromium through each game's replay page (see replay-chromium.sh).
const { chromium } = require(process.env.PLAYWRIGHT);
const [base, out, token, judge, dispute, ...games] = process.argv.slice(2);
const failures = [];
const fail = (what) => { failures.push(what); console.log("FAIL: " + what); };

async function api(path) {
  const answer = await fetch(base + path, { headers: { authorization: "Bearer " + token } });
  if (!answer.ok) throw new Error(path + " → " + answer.status);
  return answer.json();
}

// A single-use ticket for the page, bought right before it opens (30 s), as the app does.
async function ticket(bearer) {
  const answer = await fetch(base + "/v1/stream-tickets", { method: "POST", headers: { authorization: "Bearer " + bearer } });
  return (await answer.json()).ticket;
}

// The pieces a view holds, by the class that draws them (as domain/tests/integration/pictures.rs).
function pieces(view) {
  if (view.units) {
    return { pawn: view.units.reduce((n, u) => n + u.pawns.length, 0), hunter: view.hunter == null ? 0 : 1 };
  }
  if (view.avalanches) return { sled: view.players.length, avalanche: view.avalanches.length };
  return { pawn: view.players.length, englishman: 1 };
}

function watch(page, label) {
  page.on("console", (m) => { if (m.type() === "error") fail(label + ": console error: " + m.text()); });
  page.on("pageerror", (e) => fail(label + ": page error: " + e.message));
  page.on("request", (r) => {
    const host = new URL(r.url()).host;
    if (host !== new URL(base).host) fail(label + ": a request to another host: " + r.url());
  });
}

async function stepTo(page, version) {
  await page.evaluate((v) => {
    const slider = document.getElementById("slider");
    slider.value = String(v);
    slider.dispatchEvent(new Event("input"));
  }, version);
  await page.waitForFunction((v) => {
    const svg = document.querySelector("#board svg");
    return svg && document.getElementById("slider").value === String(v) &&
      document.getElementById("position").textContent.includes(" " + v + " ");
  }, version, { timeout: 20000 });
  await page.waitForTimeout(150);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  });
  for (const entry of games) {
    const [kind, id] = entry.split(":");
    const page = await browser.newPage({ viewport: { width: 420, height: 900 }, deviceScaleFactor: 1 });
    watch(page, kind);
    await page.goto(base + "/games/" + id + "#ticket=" + (await ticket(token)));
    await page.waitForSelector("#moves li", { timeout: 30000 });
    if (page.url().includes("ticket=")) fail(kind + ": the ticket stayed in the address bar");
    const record = await api("/v1/games/" + id + "/replay");
    const head = record.version;
    const versions = [...new Set([1, Math.floor(head / 3), Math.floor((2 * head) / 3), head])];
    for (const v of versions) {
      await stepTo(page, v);
      const view = (await api("/v1/games/" + id + "/state?at=" + v)).view;
      for (const [cls, expected] of Object.entries(pieces(view))) {
        const drawn = await page.locator("#board svg ." + cls).count();
        if (drawn !== expected) fail(`${kind} version ${v}: ${drawn} .${cls} drawn, the state has ${expected}`);
        else console.log(`${kind} version ${v}: ${drawn} .${cls} drawn, as in the state`);
      }
      await page.screenshot({ path: `${out}/${kind}-v${v}.png`, fullPage: false });
    }
    // Previous and next step by one version.
    await page.click("#previous");
    await page.waitForFunction((v) => document.getElementById("slider").value === String(v), head - 1);
    await page.click("#next");
    await page.waitForFunction((v) => document.getElementById("slider").value === String(v), head);
    // A move's audit, opened from its verdict.
    await page.locator("#moves li .verdict").first().click();
    await page.waitForSelector("#moves li .checks li", { timeout: 30000 });
    const words = await page.locator("#moves li .words li").count();
    if (words < record.moves.length) fail(`${kind}: ${words} sentences for ${record.moves.length} moves`);
    if ((await page.locator("#moves .open-dispute").count()) === 0) fail(kind + ": a seated player cannot dispute");
    // Seat 1 was handed to its bot: its moves after that name the bot as their sender.
    if ((await page.locator("#moves li > strong", { hasText: "bot:1" }).count()) === 0) {
      fail(kind + ": no move names seat 1's bot as its sender");
    }
    await page.screenshot({ path: `${out}/${kind}-page.png`, fullPage: true });
    await page.close();
  }
  // The arbiter reads the dispute: the move before and after, side by side.
  const first = games[0].split(":")[1];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  watch(page, "dispute");
  await page.goto(base + "/games/" + first + "#dispute=" + dispute + "&ticket=" + (await ticket(judge)));
  await page.waitForSelector("#before svg", { timeout: 30000 });
  await page.waitForSelector("#after svg", { timeout: 30000 });
  const before = await page.locator("#before svg").innerHTML();
  const after = await page.locator("#after svg").innerHTML();
  if (before === after) fail("dispute: the pictures before and after the move are the same");
  if (!(await page.locator("#dispute-move").textContent()).trim()) fail("dispute: the move is not told");
  await page.locator("#dispute").screenshot({ path: `${out}/dispute.png` });
  // The same at a tablet's width (docs/audit-dispute.png is this one).
  await page.setViewportSize({ width: 820, height: 900 });
  await page.locator("#dispute").screenshot({ path: `${out}/dispute-820.png` });
  // The arbiter rejects it from the page, with a note.
  await page.fill("#resolution-note", "The roll and the move match the rules.");
  await page.click("#reject");
  await page.waitForFunction(() => document.getElementById("dispute-title").textContent.endsWith("rejected"));
  const resolved = await (await fetch(base + "/v1/disputes/" + dispute, { headers: { authorization: "Bearer " + judge } })).json();
  if (resolved.status !== "rejected") fail("dispute: the arbiter's verdict was not recorded: " + resolved.status);
  else console.log("dispute: rejected by the arbiter from the page");
  await browser.close();
  process.exit(failures.length ? 1 : 0);
})().catch((e) => { console.log("FAIL: " + e.stack); process.exit(1); });
EOF
PLAYWRIGHT="$PWD/$NODE_DIR/node_modules/playwright-core" node "$OUT/drill.cjs" "$BASE" "$OUT/shots" "$HOST" \
  "$JUDGE" "$DISPUTE" "${GAMES[@]}" | tee "$OUT/drill.log"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL: see $OUT/drill.log"; exit 1; }
echo "replay pages rendered in headless Chromium from this server alone (screenshots: $OUT/shots)"
