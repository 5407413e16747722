//! Issue 26: the leak checker and the sealed-choice differential on every read and push path
//! added since they were written, in all three games.
//!
//! Two servers (the twins, a database each) host the same game — same kind, options and seed,
//! the same players, the same commands — except for one seat's secret: the Whisky Race seat 1's
//! sealed malt amount, the Mush seat 1's sealed bid, the Bandits card a seat returns under the
//! hand limit. Every other reader (the other seats and a spectator) then reads every path in
//! both, and each answer must be the same byte for byte once the values that differ between
//! any two games are masked: ids (mapped to `<id#n>` in order of first use), times, and digests
//! that commit to the log (hashes and commitments, which hide the secret behind a salt). The
//! paths: the game, its prompts with the reader's `choices`, its log (the timeout entries and
//! the default commands included), `/commands/check` answers to the reader's own commands and
//! to the secret holder's, the inbox, the feed, the app stream (bearer and stream ticket), the
//! signed webhooks and the decrypted Web Push payloads. They are read twice: right after the
//! secret, and after the clock timed out another seat (a `seat_timed_out` entry and the default
//! command appended after it). As the leak checker does, the strings of the secret's events
//! that the reader's copy lacks (salts, card ids) must appear in none of its answers.

use crate::notify::{
    Browser, PushService, Receiver, drained, feed, read_stream, register_webhooks, secret_of,
};
use homestretch_tests::{Player, TestApp, commands_of, spawn_app_with};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

/// One of the twins: its server (the clock fired by the test alone), seats, spectator, and the
/// receivers of its webhooks and pushes.
struct Twin {
    app: TestApp,
    seats: Vec<Player>,
    spectator: Player,
    hooks: Receiver,
    push: PushService,
    browsers: HashMap<String, Browser>,
    game: String,
}

/// What the test script does next (in both twins).
struct Lcg(u64);

impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// The clock option of every game here: one second per decision, never abandoned.
const CLOCK: u64 = 1;

async fn twin(kind: &str, options: &Value, seed: &str) -> Twin {
    let app = spawn_app_with(|config| config.clocks = None).await;
    let mut seats = vec![app.admin("p1").await];
    seats.push(app.register("p2").await);
    seats.push(app.register("p3").await);
    let spectator = app.register("watcher").await;
    let hooks = Receiver::default();
    let base = hooks.start();
    let mut readers = seats.clone();
    readers.push(spectator.clone());
    register_webhooks(&app, &base, &readers).await;
    let push = PushService::default();
    let push_base = push.start();
    let mut browsers = HashMap::new();
    for p in &readers {
        let browser = Browser::subscribe(&app, p, &push_base, &format!("/push/{}", p.name)).await;
        browsers.insert(p.name.clone(), browser);
    }
    let mut options = options.clone();
    options["clock"] = json!({"per_decision_s": CLOCK, "abandon_after": 100});
    let game = app.started_game(kind, &seats, options, Some(seed)).await;
    Twin {
        app,
        seats,
        spectator,
        hooks,
        push,
        browsers,
        game,
    }
}

impl Twin {
    async fn prompts(&self, player: &Player) -> Value {
        let path = format!("/v1/games/{}/prompts", self.game);
        self.app.get(&path, &player.token).await.ok()
    }

    /// Seat `seat`'s legal commands now.
    async fn legal(&self, seat: usize) -> Vec<Value> {
        let prompts = self.prompts(&self.seats[seat - 1]).await;
        prompts["legal"].as_array().expect("legal").clone()
    }

    async fn view(&self, player: &Player) -> Value {
        self.app.game(&self.game, player).await["view"].clone()
    }

    /// Sends `command` for seat `seat` (1-based): the answer, a success.
    async fn send(&self, seat: usize, command: &Value) -> Value {
        self.app
            .command(&self.game, &self.seats[seat - 1], command.clone())
            .await
            .ok()
    }

    /// The number of `seat_timed_out` entries in the log.
    async fn timeouts(&self) -> usize {
        let log = self.app.all_events(&self.game, &self.seats[0]).await;
        log.iter().filter(|e| e["type"] == "seat_timed_out").count()
    }
}

/// The seats prompted now: `(seat, kinds, must)`.
fn prompted(prompts: &Value) -> Vec<(usize, Vec<String>, bool)> {
    prompts["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .map(|p| {
            let kinds = p["kinds"].as_array().expect("kinds");
            (
                p["seat"].as_u64().expect("seat") as usize,
                kinds
                    .iter()
                    .map(|k| k.as_str().unwrap().to_string())
                    .collect(),
                p["must"] == true,
            )
        })
        .collect()
}

/// Plays the same random legal commands in both twins until `stop(prompts, view)` names the
/// seat that holds the secret: that seat. The twins must answer alike all along.
async fn advance(
    twins: &[Twin; 2],
    rng: &mut Lcg,
    stop: impl Fn(&Value, &Value) -> Option<usize>,
) -> usize {
    for _ in 0..3000 {
        let now = twins[0].prompts(&twins[0].seats[0]).await;
        let view = twins[0].view(&twins[0].spectator).await;
        if let Some(holder) = stop(&now, &view) {
            return holder;
        }
        let seats = prompted(&now);
        assert!(!seats.is_empty(), "the game ended before the secret");
        let seat = seats[rng.pick(seats.len())].0;
        let mut legal = twins[0].legal(seat).await;
        // Cards are kept (Bandits): hands fill up to the hand limit sooner.
        if legal.iter().any(|c| c["type"] != "play_card") {
            legal.retain(|c| c["type"] != "play_card");
        }
        let command = &legal[rng.pick(legal.len())];
        let (a, b) = (
            twins[0].send(seat, command).await,
            twins[1].send(seat, command).await,
        );
        assert_eq!(
            a["version"], b["version"],
            "the twins answer {command} alike"
        );
    }
    panic!("no secret within 3000 commands");
}

/// The holder's command in each twin: any command both twins accept from it (so they stay
/// twins), the first of its legal list that is.
async fn common_command(twins: &[Twin; 2], holder: usize) -> Value {
    let (a, b) = (twins[0].legal(holder).await, twins[1].legal(holder).await);
    a.into_iter()
        .find(|c| b.contains(c))
        .expect("a command both twins allow the holder")
}

/// Fires the clock in both twins until another seat times out (the holder, if the game waits
/// for it first, plays a command both twins allow).
async fn time_out_another_seat(twins: &[Twin; 2], holder: usize) {
    for _ in 0..20 {
        let now = twins[0].prompts(&twins[0].seats[0]).await;
        let first_must = prompted(&now).into_iter().find(|(_, _, must)| *must);
        let (seat, _, _) = first_must.expect("a seat must act");
        if seat == holder {
            let command = common_command(twins, holder).await;
            twins[0].send(holder, &command).await;
            twins[1].send(holder, &command).await;
            continue;
        }
        for t in twins {
            let before = t.timeouts().await;
            let config = api::application::ClockConfig::default();
            // Waits for the deadline (a condition, not a timing): it is a second away.
            for _ in 0..200 {
                t.app
                    .state
                    .services
                    .clocks
                    .clock_tick(&config)
                    .await
                    .expect("tick");
                if t.timeouts().await > before {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert_eq!(t.timeouts().await, before + 1, "seat {seat} timed out");
        }
        return;
    }
    panic!("the holder kept the game waiting");
}

/// Masks what differs between any two games, whatever they hold: ids (`<id#n>` in order of
/// first use, anywhere in a string), times, and the digests that commit to a log.
fn mask(value: &Value, ids: &mut Vec<String>) -> Value {
    const DIGESTS: [&str; 5] = [
        "hash",
        "prev_hash",
        "head_hash",
        "commitment",
        "seed_commitment",
    ];
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let masked = if DIGESTS.contains(&k.as_str()) && v.is_string() {
                        json!("<digest>")
                    } else {
                        mask(v, ids)
                    };
                    (k.clone(), masked)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| mask(v, ids)).collect()),
        Value::String(s) => {
            let rfc3339 = &time::format_description::well_known::Rfc3339;
            if time::OffsetDateTime::parse(s, rfc3339).is_ok() {
                return json!("<time>");
            }
            json!(mask_ids(s, ids))
        }
        other => other.clone(),
    }
}

/// `text` with every UUID in it replaced by its `<id#n>`.
fn mask_ids(text: &str, ids: &mut Vec<String>) -> String {
    let is_uuid = |w: &[u8]| {
        w.len() == 36
            && w.iter().enumerate().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if i + 36 <= bytes.len() && is_uuid(&bytes[i..i + 36]) {
            let id = text[i..i + 36].to_ascii_lowercase();
            let n = ids.iter().position(|x| *x == id).unwrap_or_else(|| {
                ids.push(id);
                ids.len() - 1
            });
            out.push_str(&format!("<id#{n}>"));
            i += 36;
        } else {
            let c = text[i..].chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A problem or an answer as the reader gets it, less its request's own id.
fn answered(answer: &homestretch_tests::Answer) -> Value {
    let mut body = answer.body.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("instance");
    }
    json!({"status": answer.status, "body": body})
}

/// Every path `reader` reads in `t`, by name (see the module's doc); `probes` are the commands
/// it asks `/commands/check` about.
async fn observe(t: &Twin, reader: &Player, probes: &[Value]) -> BTreeMap<&'static str, Value> {
    let app = &t.app;
    let id = &t.game;
    let mut seen = BTreeMap::new();
    seen.insert("game", app.game(id, reader).await);
    seen.insert("prompts", t.prompts(reader).await);
    seen.insert("events", json!(app.all_events(id, reader).await));
    let mut checks = Vec::new();
    for probe in probes {
        let path = format!("/v1/games/{id}/commands/check");
        let answer = app
            .post(&path, &reader.token, &json!({"command": probe}))
            .await;
        checks.push(answered(&answer));
    }
    seen.insert("commands/check", json!(checks));
    let inbox = app.get("/v1/me/inbox", &reader.token).await;
    seen.insert("inbox", answered(&inbox));
    let notes = feed(app, reader).await;
    let n = notes.len();
    seen.insert("feed", json!(notes));
    let streamed = |path: String, token: Option<String>| async move {
        if n == 0 {
            return json!([]);
        }
        let events = read_stream(app, &path, token.as_deref(), None, n).await;
        json!(
            events
                .into_iter()
                .map(|(id, data)| json!([id, data]))
                .collect::<Vec<_>>()
        )
    };
    let stream = "/v1/me/events/stream".to_string();
    seen.insert("stream", streamed(stream, Some(reader.token.clone())).await);
    let ticket = app
        .post("/v1/stream-tickets", &reader.token, &json!({}))
        .await
        .ok();
    let ticketed = format!(
        "/v1/me/events/stream?ticket={}",
        ticket["ticket"].as_str().unwrap()
    );
    seen.insert("stream (ticket)", streamed(ticketed, None).await);
    drained(app).await;
    let hooks = t
        .hooks
        .received(&format!("/hooks/{}", reader.name), &secret_of(reader));
    seen.insert("webhooks", json!(hooks));
    let pushes = t.browsers[&reader.name].received(app, &t.push).await;
    seen.insert("push", json!(pushes));
    seen
}

/// Strings of at least 3 characters in `value`.
fn strings(value: &Value, out: &mut HashSet<String>) {
    match value {
        Value::String(s) if s.len() >= 3 => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The differential and the leak check at one moment: every reader but the holder reads every
/// path in both twins; the answers must be alike, and hold none of `secrets`. Returns the
/// number of answers compared.
async fn compare(
    twins: &[Twin; 2],
    holder: usize,
    probes: &[Value],
    secrets: &[HashSet<String>; 2],
    moment: &str,
) -> usize {
    let mut compared = 0;
    let readers = (0..3).filter(|&i| i != holder - 1).map(Some).chain([None]);
    for reader in readers {
        let mut sides = Vec::new();
        for (t, secret) in twins.iter().zip(secrets) {
            let player = reader.map_or(&t.spectator, |i| &t.seats[i]);
            let seen = observe(t, player, probes).await;
            if reader.is_some() {
                // A seat's notifications reached every path, so there was something to compare.
                let feed = seen["feed"].as_array().unwrap();
                assert!(
                    !feed.is_empty(),
                    "{moment}: {} was told nothing",
                    player.name
                );
                assert_eq!(seen["webhooks"], seen["feed"], "{moment}: webhooks");
                assert_eq!(seen["push"], seen["feed"], "{moment}: pushes");
                assert_eq!(seen["stream"].as_array().unwrap().len(), feed.len());
                assert_eq!(seen["stream"], seen["stream (ticket)"]);
            }
            let text = serde_json::to_string(&seen).unwrap();
            for s in secret {
                assert!(
                    !text.contains(s.as_str()),
                    "{moment}: {} reads the secret {s:?}",
                    player.name
                );
            }
            let mut ids = Vec::new();
            let masked: BTreeMap<_, _> =
                seen.iter().map(|(k, v)| (*k, mask(v, &mut ids))).collect();
            sides.push((player.name.clone(), masked));
        }
        let (name, a) = &sides[0];
        for (path, answer) in a {
            let other = &sides[1].1[path];
            assert_eq!(
                serde_json::to_string(answer).unwrap(),
                serde_json::to_string(other).unwrap(),
                "{moment}: {name} tells the twins apart by {path}"
            );
            compared += 1;
        }
    }
    compared
}

/// The differential for one game: the twins are driven to where `stop` names the holder; the
/// holder sends `secret(holder's prompts, holder's view)`'s first command in one twin and its
/// second in the other; then everything is compared, and again after another seat timed out.
async fn differential(
    kind: &str,
    options: Value,
    seed: u64,
    stop: impl Fn(&Value, &Value) -> Option<usize>,
    secret: impl Fn(&Value, &Value) -> (Value, Value),
) {
    let rng_seed = format!("leaks26-{kind}-{seed}");
    let twins = [
        twin(kind, &options, &rng_seed).await,
        twin(kind, &options, &rng_seed).await,
    ];
    let mut rng = Lcg(seed);
    let holder = advance(&twins, &mut rng, stop).await;
    let player = &twins[0].seats[holder - 1];
    let holder_prompts = twins[0].prompts(player).await;
    let (a, b) = secret(&holder_prompts, &twins[0].view(player).await);
    assert_ne!(a, b);
    // The readers also ask `/check` about the holder's commands (and one no game has).
    let mut probes: Vec<Value> = holder_prompts["legal"]
        .as_array()
        .unwrap()
        .iter()
        .take(24)
        .cloned()
        .collect();
    probes.extend([a.clone(), b.clone(), json!({"type": "no_such_command"})]);
    for reader in (1..=3).filter(|&s| s != holder) {
        let own = twins[0].prompts(&twins[0].seats[reader - 1]).await;
        probes.extend(own["legal"].as_array().unwrap().iter().take(12).cloned());
    }
    // The secret, and what it hides from the others: the strings of its events that another
    // seat's copy of them lacks.
    let mut secrets = [HashSet::new(), HashSet::new()];
    for ((t, command), secret) in twins.iter().zip([&a, &b]).zip(&mut secrets) {
        let answer = t.send(holder, command).await;
        let mut own = HashSet::new();
        strings(&answer["events"], &mut own);
        let other = &t.seats[holder % 3];
        let log = t.app.all_events(&t.game, other).await;
        let mut shown = HashSet::new();
        strings(&json!(log), &mut shown);
        secret.extend(own.difference(&shown).cloned());
        assert!(
            !secret.is_empty(),
            "{kind}: the secret's events hold no hidden string"
        );
    }
    let mut compared = compare(
        &twins,
        holder,
        &probes,
        &secrets,
        &format!("{kind}, sealed"),
    )
    .await;
    time_out_another_seat(&twins, holder).await;
    compared += compare(
        &twins,
        holder,
        &probes,
        &secrets,
        &format!("{kind}, after a timeout"),
    )
    .await;
    // The timeout entries and their default commands were among what was compared.
    let log = twins[0]
        .app
        .all_events(&twins[0].game, &twins[0].spectator)
        .await;
    let at = log
        .iter()
        .position(|e| e["type"] == "seat_timed_out")
        .expect("a timeout");
    assert!(
        log.len() > at + 1,
        "the default command follows the timeout"
    );
    eprintln!(
        "{kind}: seat {holder}'s secret: {compared} answers compared (readers × paths × 2 \
         moments), {} /check probes each",
        probes.len()
    );
}

/// Seats that must send `kind` now.
fn must(prompts: &Value, kind: &str) -> Vec<usize> {
    prompted(prompts)
        .into_iter()
        .filter(|(_, kinds, must)| *must && kinds.iter().any(|k| k == kind))
        .map(|(seat, _, _)| seat)
        .collect()
}

/// The first and the last of the holder's legal commands of `kind` (all of them, from
/// `choices`: `legal` is a short sample, issue 31).
fn first_and_last(prompts: &Value, kind: &str) -> (Value, Value) {
    let legal: Vec<Value> = commands_of(prompts)
        .into_iter()
        .filter(|c| c["type"] == kind)
        .collect();
    (legal[0].clone(), legal[legal.len() - 1].clone())
}

/// Whisky Race: seat 1's sealed malt amount (WR-019..WR-022), the lowest or the highest.
#[actix_web::test]
async fn whisky_race_sealed_malt_is_alike_to_every_other_reader_on_every_path() {
    differential(
        "whisky_race",
        json!({}),
        1,
        |p, _| (must(p, "submit_malt_choice").len() == 3).then_some(1),
        |p, _| first_and_last(p, "submit_malt_choice"),
    )
    .await;
}

/// Mush: seat 1's sealed turn-order bid (MU-033), the lowest or the highest.
#[actix_web::test]
async fn mush_sealed_bid_is_alike_to_every_other_reader_on_every_path() {
    differential(
        "mush",
        json!({}),
        2,
        |p, _| (must(p, "submit_bid").len() == 3).then_some(1),
        |p, _| first_and_last(p, "submit_bid"),
    )
    .await;
}

/// Bandits: which of two hand cards received in the same turn a seat returns under the hand
/// limit (BD-232, BD-501, BD-504): its hand differs, everything public is the same.
#[actix_web::test]
async fn bandits_returned_card_is_alike_to_every_other_reader_on_every_path() {
    // Two hand cards received in the same turn, for a seat that must return one.
    let pair = |view: &Value, seat: usize| -> Option<(usize, usize)> {
        let hand = &view["hands"][seat - 1];
        let received = hand["received"].as_array()?;
        if hand["card_count"].as_u64()? != 6 {
            return None;
        }
        (0..received.len()).find_map(|i| {
            (i + 1..received.len())
                .find(|&j| received[j] == received[i])
                .map(|j| (i, j))
        })
    };
    differential(
        "bandits",
        json!({}),
        3,
        |p, view| {
            must(p, "discard_cards")
                .into_iter()
                .find(|&seat| pair(view, seat).is_some())
        },
        |p, view| {
            let seat = must(p, "discard_cards")[0];
            let (i, j) = pair(view, seat).expect("two cards of a turn");
            let cards = &view["hands"][seat - 1]["cards"];
            (
                json!({"type": "discard_cards", "cards": [cards[i]]}),
                json!({"type": "discard_cards", "cards": [cards[j]]}),
            )
        },
    )
    .await;
}
