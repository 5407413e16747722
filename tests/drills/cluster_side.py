#!/usr/bin/env python3
"""Side traffic of the cluster drill (tests/drills/cluster.sh), stdlib only.

  selftest               checks the SSE gap count below on made-up streams (no server)
  receiver PORT OUT      a webhook receiver: counts deliveries per notification id into OUT (JSON)
  scenario LB B C SECONDS HOOK OUT
                         through the balancer LB: clocked games nobody plays (timeouts), bot-only
                         games, lobbies left to expire, webhooks to HOOK for every user, and
                         commands retried with the same id through the balancer (the answers must
                         be the first one); SSE subscribers on instance B (C when B is down) for
                         the bot games, cut every 40 events and resumed with Last-Event-ID.
                         Writes what it did and saw to OUT (JSON).
"""
import datetime
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

KINDS = ["whisky_race", "bandits", "mush"]

# Events a spectator never receives: the server leaves them out of its streams and event pages
# (not a gap). Bandits' deck orders, BD-502 (`domain/src/bandits/mod.rs`, `redact`: hidden from
# every viewer but the omniscient one); a Bandits game opens with both, seqs 2 and 3.
HIDDEN_FROM_SPECTATORS = {"support_deck_shuffled", "destiny_deck_shuffled"}


def sse_gaps(seen, log):
    """Gaps and reorders in a spectator's stream: `seen` the seqs in the order received (across
    cuts and resumes), `log` the game's [(seq, type)] from the primary. A step is wrong when it
    goes back, or skips an event the spectator may see. Returns (wrong steps, hidden skipped)."""
    visible = sorted(seq for seq, kind in log if kind not in HIDDEN_FROM_SPECTATORS)
    wrong = hidden = 0
    for a, b in zip([0] + seen, seen):
        if b <= a:
            wrong += 1
            continue
        skipped = [seq for seq, _ in log if a < seq < b]
        if any(a < seq < b for seq in visible):
            wrong += 1
        else:
            hidden += len(skipped)
    return wrong, hidden


def selftest():
    bandits = [(1, "game_created"), (2, "support_deck_shuffled"), (3, "destiny_deck_shuffled"),
               (4, "support_cards_dealt"), (5, "support_cards_dealt"), (6, "first_player_rolled")]
    cases = [
        ([1, 4, 5, 6], (0, 2)),     # the drill's "1 -> 4": the deck orders, hidden from a spectator
        ([1, 2, 3, 4, 5, 6], (0, 0)),  # an omniscient reader (after the end) gets them all
        ([1, 4, 6], (1, 2)),        # 5 is visible: a real gap
        ([4, 5, 6], (1, 0)),        # the first visible event missed
        ([1, 4, 5, 5, 6], (1, 2)),  # a repeat
        ([1, 5, 4, 6], (3, 0)),     # a reorder: 1 -> 5 skips 4, 5 -> 4 goes back, 4 -> 6 skips 5
    ]
    for seen, expected in cases:
        got = sse_gaps(seen, bandits)
        assert got == expected, f"sse_gaps({seen}) = {got}, expected {expected}"
    print(f"cluster_side selftest: {len(cases)} cases ok")


def receiver(port, out):
    counts = {}
    lock = threading.Lock()

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                nid = json.loads(body)["id"]
            except Exception:  # noqa: BLE001 - counted as unreadable, answered 200 anyway
                nid = "unreadable"
            with lock:
                counts[nid] = counts.get(nid, 0) + 1
                with open(out + ".tmp", "w") as f:
                    json.dump(counts, f)
                import os
                os.replace(out + ".tmp", out)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Hook).serve_forever()


def call(base, method, path, token=None, body=None, timeout=10):
    """One request: (status, json or text); status 0 on a transport error."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        status = e.code
    except Exception as e:  # noqa: BLE001 - a killed instance: the caller retries
        return 0, str(e)
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def must(base, method, path, token=None, body=None, ok=(200, 201)):
    """Retries through the balancer until an answer in `ok` (instances are being killed)."""
    for _ in range(120):
        status, answer = call(base, method, path, token, body)
        if status in ok:
            return answer
        if status not in (0, 502, 503, 504):
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        time.sleep(0.5)
    raise RuntimeError(f"{method} {path}: no answer")


def guest(lb, hook, log):
    g = must(lb, "POST", "/v1/auth/guest")
    token = g["access_token"]
    name = uuid.uuid4().hex[:12]
    must(lb, "POST", "/v1/me/webhooks", token,
         {"url": f"{hook}/h/{name}", "secret": "cluster-drill-secret-" + "x" * 24})
    log["webhook_users"].append(name)
    return token


def new_game(lb, token, kind, seats, options):
    return must(lb, "POST", "/v1/games", token, {"kind": kind, "seats": seats, "options": options})["id"]


def scenario(lb, b, c, seconds, hook, out):
    log = {"webhook_users": [], "clocked": [], "bots": [], "lobbies": [], "retries": [],
           "sse": {}, "errors": [], "stale_next": [], "stale_refusals": []}
    start = time.time()
    seats = {"whisky_race": 3, "bandits": 2, "mush": 2}
    for kind in KINDS:
        # A clocked game nobody plays: the clock times a seat out every second.
        host = guest(lb, hook, log)
        gid = new_game(lb, host, kind, seats[kind],
                       {"clock": {"per_decision_s": 1, "abandon_after": 100}})
        for _ in range(seats[kind] - 1):
            must(lb, "POST", f"/v1/games/{gid}/seats", guest(lb, hook, log), {})
        must(lb, "POST", f"/v1/games/{gid}/start", host, {})
        log["clocked"].append(gid)
        # A bot-only game: bots in every seat, the host's seat resigned to one.
        host = guest(lb, hook, log)
        gid = new_game(lb, host, kind, seats[kind], {})
        for _ in range(seats[kind] - 1):
            must(lb, "POST", f"/v1/games/{gid}/seats/bots", host, {"policy": "random"})
        must(lb, "POST", f"/v1/games/{gid}/start", host, {})
        must(lb, "POST", f"/v1/games/{gid}/seats/me/resign", host, {})
        log["bots"].append(gid)
        # Lobbies left to expire (HOMESTRETCH_LOBBY_TTL).
        for _ in range(3):
            log["lobbies"].append(new_game(lb, guest(lb, hook, log), kind, seats[kind], {}))
    threads = [threading.Thread(target=subscribe, args=(b, c, gid, start + seconds, log), daemon=True)
               for gid in log["bots"]]
    threads.append(threading.Thread(target=retries, args=(lb, hook, start + seconds, log), daemon=True))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log["seconds"] = time.time() - start
    with open(out, "w") as f:
        json.dump(log, f)


def retries(lb, hook, until, log):
    """Human games through the balancer: each command sent, then sent again twice with the same
    command id (roundrobin: other instances); every answer must be the first one."""
    games = []
    for kind in KINDS:
        players = [guest(lb, hook, log) for _ in range(2 if kind != "whisky_race" else 3)]
        gid = new_game(lb, players[0], kind, len(players), {})
        for p in players[1:]:
            must(lb, "POST", f"/v1/games/{gid}/seats", p, {})
        must(lb, "POST", f"/v1/games/{gid}/start", players[0], {})
        games.append((gid, players))
    while time.time() < until:
        for gid, players in games:
            for token in players:
                status, prompts = call(lb, "GET", f"/v1/games/{gid}/prompts", token)
                if status != 200 or not prompts.get("legal"):
                    continue
                body = {"command_id": str(uuid.uuid4()), "command": prompts["legal"][0]}
                first = None
                answers = []
                same = True
                stale_next = 0
                for _ in range(3):
                    for _ in range(60):
                        status, answer = call(lb, "POST", f"/v1/games/{gid}/commands", token, body)
                        if status not in (0, 502, 503, 504):
                            break
                        time.sleep(0.5)
                    answers.append(status)
                    if first is None:
                        first = (status, answer)
                        continue
                    # The acknowledged part (status, version, events) must be the first answer's;
                    # `next` (what the game waits for now) is checked apart.
                    acked = lambda a: (a[0], a[1].get("version"), a[1].get("events")) if isinstance(a[1], dict) else a
                    if first[0] >= 400 and status < 300:
                        # Refused first, accepted on a retry: the refusing instance judged a
                        # stale copy of the game (a refusal is not recorded, so not replayed).
                        log["stale_refusals"].append({"command_id": body["command_id"], "game": gid,
                                                      "first": first[1], "then": status})
                        first = (status, answer)
                    elif acked((status, answer)) != acked(first):
                        same = False
                        log["errors"].append(f"retry of {body['command_id']} in {gid}: {first} then {(status, answer)}")
                    elif (status, answer) != first:
                        stale_next += 1
                        log["stale_next"].append({"command_id": body["command_id"], "game": gid,
                                                  "answer_version": answer.get("version"),
                                                  "next_version": answer.get("next", {}).get("version"),
                                                  "first_next_version": first[1].get("next", {}).get("version")})
                log["retries"].append({"game": gid, "command_id": body["command_id"],
                                       "statuses": answers, "same": same})
                break
        time.sleep(0.2)


def subscribe(b, c, gid, until, log):
    """Streams the game from instance B (C while B is down), resuming with Last-Event-ID after
    each cut; records each seq and its lag (received − recorded_at)."""
    seen = []
    lags = []
    cuts = 0
    last = None
    token = must(b, "POST", "/v1/auth/guest")["access_token"]
    bases = [b, c]
    which = 0
    while time.time() < until:
        req = urllib.request.Request(f"{bases[which]}/v1/games/{gid}/events/stream")
        req.add_header("authorization", "Bearer " + token)
        req.add_header("accept", "text/event-stream")
        if last is not None:
            req.add_header("last-event-id", str(last))
        got = 0
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                for raw in r:
                    line = raw.decode().rstrip("\n")
                    if not line.startswith("data:"):
                        continue
                    try:
                        event = json.loads(line[5:])
                    except ValueError:
                        continue
                    if "seq" not in event:
                        continue
                    seen.append(event["seq"])
                    last = event["seq"]
                    at = datetime.datetime.fromisoformat(event["recorded_at"].replace("Z", "+00:00"))
                    lags.append(time.time() - at.timestamp())
                    got += 1
                    if got >= 40 or time.time() >= until:
                        cuts += 1  # a deliberate cut: resume with Last-Event-ID
                        break
        except Exception:  # noqa: BLE001 - instance down or idle timeout: try the other one
            which = 1 - which
            time.sleep(0.2)
        if got == 0:
            time.sleep(0.5)  # the game ended (the stream ends with it) or nothing new yet
    log["sse"][gid] = {"seen": seen, "lags": lags, "cuts": cuts, "last": last}


if __name__ == "__main__":
    if sys.argv[1] == "selftest":
        selftest()
    elif sys.argv[1] == "receiver":
        receiver(sys.argv[2], sys.argv[3])
    else:
        scenario(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6], sys.argv[7])
