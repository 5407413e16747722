//! Notifications delivered from the log (issue 18): the outbox is written in the command's
//! transaction, a worker of any instance delivers it at least once (signed webhooks), a crash
//! between commit and delivery still delivers, bad destinations are refused, and the app's one
//! stream carries the same JSON. Receivers run on loopback (`127.0.0.1` is the tests' allowed
//! host).

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac_check::verify;
use homestretch_tests::test_game::registry_with_countdown;
use homestretch_tests::{Player, TestApp, spawn_app_with};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The `Homestretch-Signature` check a receiver does (HMAC-SHA256 over `"<t>.<raw body>"`),
/// written here from the documented format, not with the server's code.
mod hmac_check {
    use sha2::{Digest, Sha256};

    fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
        let mut block = [0u8; 64];
        if key.len() > 64 {
            block[..32].copy_from_slice(&Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let ipad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
        let opad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
        let inner = Sha256::new()
            .chain_update(&ipad)
            .chain_update(message)
            .finalize();
        Sha256::new()
            .chain_update(&opad)
            .chain_update(inner)
            .finalize()
            .into()
    }

    /// Whether `header` signs `body` with `secret`.
    pub fn verify(secret: &str, header: &str, body: &str) -> bool {
        let mut t = None;
        let mut v1 = None;
        for part in header.split(',') {
            match part.split_once('=') {
                Some(("t", value)) => t = Some(value),
                Some(("v1", value)) => v1 = Some(value),
                _ => {}
            }
        }
        let (Some(t), Some(v1)) = (t, v1) else {
            return false;
        };
        let expected = hmac_sha256(secret.as_bytes(), format!("{t}.{body}").as_bytes());
        hex::encode(expected) == v1
    }
}

/// What a loopback webhook receiver got, per path, in arrival order.
#[derive(Clone, Default)]
pub(crate) struct Receiver {
    got: Arc<Mutex<Vec<(String, String, String)>>>,
    /// Answer 500 to this many requests first (then 204).
    fail_first: Arc<AtomicUsize>,
}

impl Receiver {
    /// Starts the receiver; returns its base URL.
    pub(crate) fn start(&self) -> String {
        let this = self.clone();
        homestretch_tests::loopback::serve(1, move |req: HttpRequest, body: Bytes| {
            let answer = if this
                .fail_first
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok()
            {
                HttpResponse::InternalServerError().finish()
            } else {
                let signature = req
                    .headers()
                    .get("homestretch-signature")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                this.got.lock().unwrap().push((
                    req.path().to_string(),
                    signature,
                    String::from_utf8_lossy(&body).to_string(),
                ));
                HttpResponse::NoContent().finish()
            };
            async { answer }
        })
    }

    /// The bodies received at `path`, signatures checked with `secret`, deduplicated on `id`
    /// (the receiver's duty: delivery is at least once), in arrival order.
    pub(crate) fn received(&self, path: &str, secret: &str) -> Vec<Value> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (p, signature, body) in self.got.lock().unwrap().iter() {
            if p != path {
                continue;
            }
            assert!(verify(secret, signature, body), "bad signature on {body}");
            let value: Value = serde_json::from_str(body).expect("JSON body");
            if seen.insert(value["id"].as_str().expect("id").to_string()) {
                out.push(value);
            }
        }
        out
    }
}

/// A loopback Web Push service stand-in: records every request (path, `Authorization`,
/// `Content-Encoding`, raw body) and answers 201, or 410 under `/gone/` (an expired
/// subscription). Decryption and the VAPID check are the Python receiver's
/// (`push_receiver.py`: http_ece, cryptography).
#[derive(Clone, Default)]
pub(crate) struct PushService {
    got: Arc<Mutex<Vec<PushRequest>>>,
}

/// (path, `Authorization`, `Content-Encoding`, body)
type PushRequest = (String, String, String, Vec<u8>);

impl PushService {
    pub(crate) fn start(&self) -> String {
        let this = self.clone();
        homestretch_tests::loopback::serve(1, move |req: HttpRequest, body: Bytes| {
            let header = |name: &str| {
                req.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string()
            };
            this.got.lock().unwrap().push((
                req.path().to_string(),
                header("authorization"),
                header("content-encoding"),
                body.to_vec(),
            ));
            let answer = if req.path().starts_with("/gone/") {
                HttpResponse::Gone().finish()
            } else {
                HttpResponse::Created().finish()
            };
            async { answer }
        })
    }

    fn count(&self, path: &str) -> usize {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.0 == path)
            .count()
    }
}

/// Runs `push_receiver.py MODE` in the tests' venv with `input` on stdin.
async fn receiver_py(mode: &str, input: Value) -> Value {
    let mode = mode.to_string();
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let python = homestretch_tests::venv::python();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/push_receiver.py");
        let mut child = std::process::Command::new(python)
            .arg(script)
            .arg(&mode)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "push_receiver.py {mode}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON out")
    })
    .await
    .unwrap()
}

/// A browser's push subscription: its keys (made by the receiver) and endpoint.
pub(crate) struct Browser {
    endpoint: String,
    path: String,
    keys: Value,
}

impl Browser {
    /// Subscribes `player` at `base` + `path` like a browser does (`PushSubscription.toJSON()`).
    pub(crate) async fn subscribe(
        app: &TestApp,
        player: &Player,
        base: &str,
        path: &str,
    ) -> Browser {
        let keys = receiver_py("keys", json!({})).await;
        let endpoint = format!("{base}{path}");
        let answer = app
            .post(
                "/v1/me/push-subscriptions",
                &player.token,
                &json!({"endpoint": endpoint, "expirationTime": null,
                        "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]}}),
            )
            .await;
        assert_eq!(answer.status, 201, "{}", answer.text);
        Browser {
            endpoint,
            path: path.to_string(),
            keys,
        }
    }

    /// The pushes this browser got, VAPID-checked and decrypted, deduplicated on `id`, in
    /// arrival order.
    pub(crate) async fn received(&self, app: &TestApp, service: &PushService) -> Vec<Value> {
        let vapid = app
            .request("GET", "/v1/push/vapid-public-key", None, None, &[])
            .await
            .ok();
        let messages: Vec<Value> = service
            .got
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.0 == self.path)
            .map(|(_, authorization, encoding, body)| {
                json!({"endpoint": self.endpoint, "authorization": authorization,
                       "content_encoding": encoding, "body": URL_SAFE_NO_PAD.encode(body)})
            })
            .collect();
        let opened = receiver_py(
            "open",
            json!({"private_pem": self.keys["private_pem"], "auth": self.keys["auth"],
                   "public_key": vapid["key"], "messages": messages}),
        )
        .await;
        let mut seen = std::collections::HashSet::new();
        opened
            .as_array()
            .expect("payloads")
            .iter()
            .filter(|n| seen.insert(n["id"].as_str().expect("id").to_string()))
            .cloned()
            .collect()
    }
}

pub(crate) fn secret_of(player: &Player) -> String {
    format!("secret-of-{}-0123456789", player.name)
}

pub(crate) async fn register_webhooks(app: &TestApp, base: &str, players: &[Player]) {
    for p in players {
        let hook = app
            .post(
                "/v1/me/webhooks",
                &p.token,
                &json!({"url": format!("{base}/hooks/{}", p.name), "secret": secret_of(p)}),
            )
            .await;
        assert_eq!(hook.status, 201, "{}", hook.text);
    }
}

/// Waits until the outbox is empty (everything delivered).
pub(crate) async fn drained(app: &TestApp) {
    let outbox = infra::outbox::Outbox::new(app.pool.clone());
    for _ in 0..600 {
        if outbox.pending().await.expect("pending") == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the outbox was not drained");
}

/// The seats the game waits for (`must` prompts) with their command kinds, sorted.
fn waiting(prompts: &Value) -> BTreeMap<u64, Vec<String>> {
    let mut seats: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for p in prompts.as_array().expect("prompts") {
        if p["must"] == true {
            let kinds = seats.entry(p["seat"].as_u64().expect("seat")).or_default();
            for k in p["kinds"].as_array().expect("kinds") {
                kinds.push(k.as_str().expect("kind").to_string());
            }
        }
    }
    for kinds in seats.values_mut() {
        kinds.sort();
    }
    seats
}

/// Each player's due notifications, as (type, fields) in order, derived from what the
/// players see over HTTP (issue 18's list): `player_joined` to the seated players when a seat
/// is taken, `game_started` to all but the host, `your_turn` to a seat the game newly waits for
/// (or for other kinds) except the one who just acted, `game_finished` with the place to all.
type Due = Vec<Vec<(String, Value)>>;

/// Creates, fills, starts and plays a game of `kind` with random legal commands, noting the
/// notifications due to each player. Returns the game id and what is due.
async fn play_noting(
    app: &TestApp,
    kind: &str,
    players: &[Player],
    options: Value,
    seed: u64,
) -> (String, Due) {
    let mut due: Due = vec![Vec::new(); players.len()];
    let n = players.len();
    let game = app
        .post(
            "/v1/games",
            &players[0].token,
            &json!({"kind": kind, "seats": n, "options": options}),
        )
        .await
        .ok();
    let id = game["id"].as_str().expect("id").to_string();
    for (i, p) in players.iter().enumerate().skip(1) {
        app.post(&format!("/v1/games/{id}/seats"), &p.token, &json!({}))
            .await
            .ok();
        for earlier in due.iter_mut().take(i) {
            earlier.push((
                "player_joined".into(),
                json!({"seat": i + 1, "seats_taken": i + 1, "seat_count": n}),
            ));
        }
    }
    let started = app
        .post(
            &format!("/v1/games/{id}/start"),
            &players[0].token,
            &json!({}),
        )
        .await
        .ok();
    let version = started["version"].as_u64().expect("version");
    for (i, d) in due.iter_mut().enumerate().skip(1) {
        d.push((
            "game_started".into(),
            json!({"seat": i + 1, "version": version}),
        ));
    }
    let mut before = BTreeMap::new();
    let mut actor_seat = 1u64;
    let mut next = started["next"].clone();
    let mut state = seed.wrapping_mul(6364136223846793005) | 1;
    let mut pick = move |len: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % len
    };
    for _ in 0..5000 {
        let version = next["version"].as_u64().expect("version");
        let now = waiting(&next["prompts"]);
        let finished = app
            .get(&format!("/v1/games/{id}"), &players[0].token)
            .await
            .ok();
        if finished["status"] == "finished" {
            let outcome = &finished["outcome"];
            let winners: Vec<u64> = outcome["winners"]
                .as_array()
                .expect("winners")
                .iter()
                .map(|w| w.as_u64().expect("seat"))
                .collect();
            // Places only as the outcome states them (issue 27): a game that ranks only its
            // winners (Bandits, Mush, countdown) gives none, and says won / not won.
            let place = |seat: u64| {
                outcome["places"].as_array().map(|places| {
                    places
                        .iter()
                        .find(|p| p["seat"] == seat)
                        .and_then(|p| p["place"].as_u64())
                        .expect("every seat has its place")
                })
            };
            for (i, d) in due.iter_mut().enumerate() {
                let seat = i as u64 + 1;
                let result = if winners.contains(&seat) {
                    "won"
                } else {
                    "not_won"
                };
                let mut fields =
                    json!({"seat": seat, "result": result, "winners": winners, "version": version});
                if let Some(place) = place(seat) {
                    fields["place"] = json!(place);
                }
                d.push(("game_finished".into(), fields));
            }
            return (id, due);
        }
        for (seat, kinds) in &now {
            if before.get(seat) != Some(kinds) && *seat != actor_seat {
                due[*seat as usize - 1].push((
                    "your_turn".into(),
                    json!({"seat": seat, "kinds": kinds, "version": version, "deadline": null}),
                ));
            }
        }
        let seats: Vec<u64> = now.keys().copied().collect();
        assert!(!seats.is_empty(), "nobody must act in an unfinished game");
        let seat = seats[pick(seats.len())];
        let player = &players[seat as usize - 1];
        let mine = app
            .get(&format!("/v1/games/{id}/prompts"), &player.token)
            .await
            .ok();
        let legal = mine["legal"].as_array().expect("legal").clone();
        let command = legal[pick(legal.len())].clone();
        let answer = app.command(&id, player, command).await.ok();
        before = now;
        actor_seat = seat;
        next = answer["next"].clone();
        assert_eq!(next["version"], answer["version"], "no one else plays");
    }
    panic!("the game did not end");
}

/// The keys a notification may carry: the common ones and each type's own (nothing else, so
/// nothing hidden can ride along).
fn allowed_keys(kind: &str) -> Vec<&'static str> {
    let mut keys = vec![
        "id",
        "type",
        "game_id",
        "game_kind",
        "link",
        "created_at",
        "title",
        "body",
    ];
    keys.extend(match kind {
        "player_joined" => vec!["seat", "seats_taken", "seat_count"],
        "game_started" => vec!["seat", "version"],
        "your_turn" => vec!["seat", "kinds", "version", "deadline"],
        "game_finished" => vec!["seat", "place", "result", "winners", "version"],
        "dispute_resolved" => vec!["seat", "dispute_id", "verdict"],
        other => panic!("unexpected notification type {other}"),
    });
    keys
}

/// `got` (deduplicated, in order) is exactly `due`: same types, same fields, and no key beyond
/// the type's own; each names the game and links to it.
fn assert_exactly(got: &[Value], due: &[(String, Value)], game: &str, who: &str) {
    let types = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|n| n["type"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let due_types: Vec<String> = due.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(types(got), due_types, "{who}'s notifications");
    for (note, (kind, fields)) in got.iter().zip(due) {
        assert_eq!(note["game_id"], game);
        assert_eq!(note["link"], format!("/v1/games/{game}"));
        let allowed = allowed_keys(kind);
        for key in note.as_object().expect("object").keys() {
            assert!(
                allowed.contains(&key.as_str()),
                "{who}: {kind} carries {key}: {note}"
            );
        }
        // A place is told only where the outcome states one (issue 27).
        assert_eq!(
            note.get("place").is_some(),
            fields.get("place").is_some(),
            "{who}: {kind}: {note}"
        );
        for (key, value) in fields.as_object().expect("fields") {
            let mut got_value = note[key].clone();
            if key == "kinds" {
                let mut kinds: Vec<String> = serde_json::from_value(got_value).expect("kinds");
                kinds.sort();
                got_value = json!(kinds);
            }
            assert_eq!(&got_value, value, "{who}: {kind}.{key} in {note}");
        }
    }
}

/// The caller's feed (`GET /v1/me/notifications`), all of it, page by page; the feed numbers
/// run 1, 2, 3… without a gap.
pub(crate) async fn feed(app: &TestApp, player: &Player) -> Vec<Value> {
    let mut all = Vec::new();
    let mut after = 0;
    loop {
        let page = app
            .get(
                &format!("/v1/me/notifications?after={after}&limit=500"),
                &player.token,
            )
            .await
            .ok();
        let items = page["notifications"].as_array().expect("notifications");
        if items.is_empty() {
            assert_eq!(page["last_seq"], after);
            return all;
        }
        for item in items {
            after += 1;
            assert_eq!(item["seq"], after, "gapless feed numbers");
            all.push(item["notification"].clone());
        }
        assert_eq!(page["last_seq"], after);
    }
}

async fn full_game_notifies_exactly_whats_due(kind: &str, seats: usize, options: Value, seed: u64) {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let receiver = Receiver::default();
    let base = receiver.start();
    let mut players = Vec::new();
    for i in 0..seats {
        players.push(app.register(&format!("{kind}{i}")).await);
    }
    register_webhooks(&app, &base, &players).await;
    let push = PushService::default();
    let push_base = push.start();
    let mut browsers = Vec::new();
    for p in &players {
        browsers.push(Browser::subscribe(&app, p, &push_base, &format!("/push/{}", p.name)).await);
    }
    let (game, due) = play_noting(&app, kind, &players, options, seed).await;
    drained(&app).await;
    for (i, p) in players.iter().enumerate() {
        let got = receiver.received(&format!("/hooks/{}", p.name), &secret_of(p));
        assert_exactly(&got, &due[i], &game, &p.name);
        // The feed holds the same notifications, in the same order.
        assert_eq!(feed(&app, p).await, got, "{}'s feed", p.name);
        // Each push, decrypted with the browser's keys, is the webhook's JSON.
        assert_eq!(
            browsers[i].received(&app, &push).await,
            got,
            "{}'s pushes",
            p.name
        );
    }
}

#[actix_web::test]
async fn a_countdown_game_notifies_each_player_exactly_whats_due_over_signed_webhooks() {
    full_game_notifies_exactly_whats_due("countdown", 2, json!({}), 1).await;
}

#[actix_web::test]
async fn a_whisky_race_game_notifies_each_player_exactly_whats_due() {
    full_game_notifies_exactly_whats_due("whisky_race", 3, json!({}), 2).await;
}

#[actix_web::test]
async fn a_bandits_game_notifies_each_player_exactly_whats_due() {
    // One pawn each (BD-401) keeps the game short.
    full_game_notifies_exactly_whats_due("bandits", 3, json!({"pawns_per_player": 1}), 3).await;
}

#[actix_web::test]
async fn a_mush_game_notifies_each_player_exactly_whats_due() {
    full_game_notifies_exactly_whats_due("mush", 3, json!({}), 4).await;
}

/// A refused command commits nothing, so it notifies no one; a failing receiver is retried
/// (with backoff) until it answers 2xx, and gets each notification once it does.
#[actix_web::test]
async fn a_refused_command_notifies_no_one_and_failures_are_retried() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let receiver = Receiver::default();
    let base = receiver.start();
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    register_webhooks(&app, &base, &[ann.clone(), bob.clone()]).await;
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    drained(&app).await;
    let before = feed(&app, &bob).await.len();
    // CD-1: not bob's turn: refused, nothing written.
    app.command(&game, &bob, json!({"type": "step"}))
        .await
        .problem(422);
    // A stale expected_version: refused with 409, nothing written.
    let stale = app
        .post(
            &format!("/v1/games/{game}/commands"),
            &ann.token,
            &json!({"command_id": uuid::Uuid::new_v4(), "expected_version": 0,
                    "command": {"type": "step"}}),
        )
        .await;
    assert_eq!(stale.status, 409, "{}", stale.text);
    assert_eq!(feed(&app, &bob).await.len(), before);
    assert_eq!(feed(&app, &ann).await.len(), 1, "ann: player_joined only");
    // The receiver fails three times: the worker retries until it gets through.
    receiver.fail_first.store(3, Ordering::SeqCst);
    app.command(&game, &ann, json!({"type": "step"})).await.ok();
    drained(&app).await;
    assert_eq!(receiver.fail_first.load(Ordering::SeqCst), 0);
    let got = receiver.received("/hooks/bob", &secret_of(&bob));
    assert_eq!(got.last().expect("a notification")["type"], "your_turn");
    assert_eq!(got, feed(&app, &bob).await);
}

/// A crash between commit and delivery: the first instance commits (its worker never runs, or
/// claims the rows and dies before reporting); a new instance on the same database delivers
/// everything, each notification once per destination.
#[actix_web::test]
async fn a_crash_between_commit_and_delivery_still_delivers() {
    let app = spawn_app_with(|config| {
        config.registry = registry_with_countdown();
        config.notify.deliver = false;
    })
    .await;
    let receiver = Receiver::default();
    let base = receiver.start();
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    register_webhooks(&app, &base, &[ann.clone(), bob.clone()]).await;
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    app.command(&game, &ann, json!({"type": "step"})).await.ok();
    app.command(&game, &bob, json!({"type": "step"})).await.ok();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        receiver.got.lock().unwrap().is_empty(),
        "nothing delivered yet"
    );
    let outbox = infra::outbox::Outbox::new(app.pool.clone());
    let pending = outbox.pending().await.unwrap();
    assert!(pending >= 4, "{pending} deliveries pending");
    // A dying instance claims some rows and never reports: they come due when the lease ends.
    let claimed = outbox.claim(2, Duration::from_secs(1)).await.unwrap();
    assert!(!claimed.is_empty());
    // The new instance (same database; the first one stays silent, as if killed).
    let mut config = homestretch_tests::test_config();
    config.registry = registry_with_countdown();
    let state = api::app::app_state(app.pool.clone(), &config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = api::app::serve(listener, state, &config).unwrap();
    actix_web::rt::spawn(server);
    drained(&app).await;
    for p in [&ann, &bob] {
        let path = format!("/hooks/{}", p.name);
        let got = receiver.received(&path, &secret_of(p));
        assert_eq!(got, feed(&app, p).await, "{}", p.name);
        let raw = receiver
            .got
            .lock()
            .unwrap()
            .iter()
            .filter(|(q, _, _)| *q == path)
            .count();
        assert_eq!(raw, got.len(), "each delivered once");
    }
    let types: Vec<Value> = feed(&app, &bob)
        .await
        .iter()
        .map(|n| n["type"].clone())
        .collect();
    assert_eq!(types, [json!("game_started"), json!("your_turn")]);
}

/// Webhook URLs and push endpoints must be https and must not point at loopback, private or
/// link-local addresses (SSRF); each refusal is a problem+json naming the reason, except that
/// an address refusal never says what the host resolves to (issue 26: `trust26`).
#[actix_web::test]
async fn bad_destinations_are_refused_naming_the_reason() {
    let app = spawn_app_with(|_| {}).await;
    let ann = app.register("ann").await;
    let secret = "0123456789abcdef";
    for (url, reason) in [
        ("http://example.com/hook", "https"),
        ("ftp://example.com/hook", "https"),
        ("not a url", "absolute URL"),
        ("https://10.0.0.1/hook", "not allowed"),
        ("https://192.168.1.20/hook", "not allowed"),
        ("https://169.254.169.254/latest/meta-data", "not allowed"),
        ("https://[::1]/hook", "not allowed"),
        ("https://[fd00::1]/hook", "not allowed"),
        ("https://localhost/hook", "not allowed"),
        ("https://127.0.0.2/hook", "not allowed"),
        ("https://user:pw@example.com/hook", "credentials"),
    ] {
        let answer = app
            .post(
                "/v1/me/webhooks",
                &ann.token,
                &json!({"url": url, "secret": secret}),
            )
            .await;
        let problem = answer.problem(422);
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(reason), "{url}: {detail}");
        let push = app
            .post(
                "/v1/me/push-subscriptions",
                &ann.token,
                &json!({"endpoint": url, "keys": {
                    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                    "auth": "BTBZMqHH6r4Tts7J_aSIgg"}}),
            )
            .await;
        assert!(
            push.problem(422)["detail"]
                .as_str()
                .unwrap_or_default()
                .contains(reason),
            "push {url}: {}",
            push.text
        );
    }
    let short = app
        .post(
            "/v1/me/webhooks",
            &ann.token,
            &json!({"url": "https://example.com/hook", "secret": "short"}),
        )
        .await;
    assert!(
        short.problem(422)["detail"]
            .as_str()
            .unwrap()
            .contains("secret")
    );
    let unknown = app
        .post(
            "/v1/me/webhooks",
            &ann.token,
            &json!({"url": "https://example.com/hook", "secret": secret, "extra": 1}),
        )
        .await;
    assert_eq!(unknown.status, 422, "{}", unknown.text);
    assert!(
        app.get("/v1/me/webhooks", &ann.token).await.ok()["webhooks"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// Webhooks are listed and deleted by their owner only.
#[actix_web::test]
async fn webhooks_are_listed_and_deleted_by_their_owner() {
    let app = spawn_app_with(|_| {}).await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let hook = app
        .post(
            "/v1/me/webhooks",
            &ann.token,
            &json!({"url": "http://127.0.0.1:9/hook", "secret": "0123456789abcdef"}),
        )
        .await;
    assert_eq!(hook.status, 201, "{}", hook.text);
    let id = hook.body["id"].as_str().unwrap().to_string();
    let listed = app.get("/v1/me/webhooks", &ann.token).await.ok();
    assert_eq!(listed["webhooks"][0]["url"], "http://127.0.0.1:9/hook");
    assert!(listed["webhooks"][0].get("secret").is_none(), "{listed}");
    assert!(
        app.get("/v1/me/webhooks", &bob.token).await.ok()["webhooks"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let path = format!("/v1/me/webhooks/{id}");
    app.request("DELETE", &path, Some(&bob.token), None, &[])
        .await
        .problem(404);
    let gone = app
        .request("DELETE", &path, Some(&ann.token), None, &[])
        .await;
    assert_eq!(gone.status, 204);
    app.request("DELETE", &path, Some(&ann.token), None, &[])
        .await
        .problem(404);
}

/// Reads `n` SSE events (`id`, `event`, `data`) from the app stream.
async fn read_events(
    app: &TestApp,
    player: &Player,
    last: Option<&str>,
    n: usize,
) -> Vec<(u64, Value)> {
    read_stream(app, "/v1/me/events/stream", Some(&player.token), last, n).await
}

/// Reads `n` SSE events (`id`, `event`, `data`) from the stream at `path` (with the bearer
/// `token`, or a `?ticket=` in `path`).
pub(crate) async fn read_stream(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    last: Option<&str>,
    n: usize,
) -> Vec<(u64, Value)> {
    let mut request = app.client.get(app.url(path));
    if let Some(token) = token {
        request = request.insert_header(("authorization", format!("Bearer {token}")));
    }
    if let Some(last) = last {
        request = request.insert_header(("last-event-id", last));
    }
    let mut response = request.send().await.expect("stream");
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    use futures_util::StreamExt;
    while events.len() < n {
        let chunk = tokio::time::timeout_at(deadline, response.next())
            .await
            .expect("events in time")
            .expect("stream open")
            .expect("chunk");
        text.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let mut id = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.parse().ok();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(v).ok();
                }
            }
            if let (Some(id), Some(data)) = (id, data) {
                events.push((id, data));
            }
        }
    }
    events
}

/// `GET /v1/me/events/stream`: the caller's notifications (the webhook JSON) live, numbered,
/// resumable with `Last-Event-ID`.
#[actix_web::test]
async fn the_app_stream_carries_the_callers_notifications_and_resumes() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    // bob has game_started; the stream replays it, then waits for his turn live.
    let streamed = {
        let reading = read_events(&app, &bob, None, 2);
        let playing = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            app.command(&game, &ann, json!({"type": "step"})).await.ok();
        };
        let (events, ()) = tokio::join!(reading, playing);
        events
    };
    let ids: Vec<u64> = streamed.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [1, 2]);
    assert_eq!(streamed[0].1["type"], "game_started");
    assert_eq!(streamed[1].1["type"], "your_turn");
    let notes: Vec<Value> = streamed.iter().map(|(_, n)| n.clone()).collect();
    assert_eq!(notes, feed(&app, &bob).await);
    // Resumed after 1: only the second.
    app.command(&game, &bob, json!({"type": "step"})).await.ok();
    app.command(&game, &ann, json!({"type": "step"})).await.ok();
    let resumed = read_events(&app, &bob, Some("1"), 2).await;
    assert_eq!(resumed[0], streamed[1]);
    assert_eq!(resumed[1].1["type"], "game_finished");
    // Someone else's notifications never appear: ann's stream is ann's own.
    let ann_stream = read_events(&app, &ann, None, 1).await;
    assert_eq!(ann_stream[0].1["type"], "player_joined");
}

/// A push service answering 410 Gone: the subscription is removed, and nothing more is pushed
/// to it; the user's other destinations go on.
#[actix_web::test]
async fn a_410_from_the_push_service_removes_the_subscription() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let push = PushService::default();
    let push_base = push.start();
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let gone = Browser::subscribe(&app, &bob, &push_base, "/gone/bob").await;
    let live = Browser::subscribe(&app, &bob, &push_base, "/push/bob").await;
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    drained(&app).await;
    assert_eq!(push.count("/gone/bob"), 1, "one attempt, answered 410");
    let unsubscribe = format!("/v1/me/push-subscriptions?endpoint={}", gone.endpoint);
    app.request("DELETE", &unsubscribe, Some(&bob.token), None, &[])
        .await
        .problem(404);
    app.command(&game, &ann, json!({"type": "step"})).await.ok();
    drained(&app).await;
    assert_eq!(
        push.count("/gone/bob"),
        1,
        "nothing more to a gone subscription"
    );
    let types: Vec<Value> = live
        .received(&app, &push)
        .await
        .iter()
        .map(|n| n["type"].clone())
        .collect();
    assert_eq!(types, [json!("game_started"), json!("your_turn")]);
    // Unsubscribing stops the pushes.
    let unsubscribe = format!("/v1/me/push-subscriptions?endpoint={}", live.endpoint);
    let answer = app
        .request("DELETE", &unsubscribe, Some(&bob.token), None, &[])
        .await;
    assert_eq!(answer.status, 204, "{}", answer.text);
}

/// `GET /v1/push/vapid-public-key`: an uncompressed P-256 point, base64url.
#[actix_web::test]
async fn the_vapid_public_key_is_an_uncompressed_p256_point() {
    let app = spawn_app_with(|_| {}).await;
    let key = app
        .request("GET", "/v1/push/vapid-public-key", None, None, &[])
        .await
        .ok();
    let key = key["key"].as_str().expect("key");
    assert_eq!(key.len(), 87, "65 bytes in unpadded base64url: {key}");
    assert!(key.starts_with('B'), "0x04 prefix: {key}");
}

/// Deliveries speak TLS to an `https` destination: to a plain-HTTP listener the handshake
/// fails (and is retried), nothing is delivered in clear.
#[actix_web::test]
async fn https_destinations_are_reached_over_tls_only() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let receiver = Receiver::default();
    let base = receiver.start().replace("http://", "https://");
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    register_webhooks(&app, &base, std::slice::from_ref(&bob)).await;
    app.started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    let mut error = None;
    for _ in 0..200 {
        error = sqlx::query_scalar::<_, Option<String>>("SELECT last_error FROM outbox")
            .fetch_optional(&app.pool)
            .await
            .unwrap()
            .flatten();
        if error.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let error = error.expect("a failed attempt");
    assert!(!error.contains("not supported"), "TLS is built in: {error}");
    assert!(receiver.got.lock().unwrap().is_empty(), "nothing in clear");
}
