//! Issue 17 over real HTTP and a real PostgreSQL: every move's audit is sound on the server's
//! own moves — a resignation, a timeout and its default move, a seat handed to a bot after
//! `abandon_after` timeouts in a row, bot moves — in every game, move by move
//! (`GET /v1/games/{id}/audit/{seq}`) for each seated player and for the arbiter, without
//! showing anyone another seat's secret; and a log whose server moves are forged audits
//! unsound, naming the check that failed.

use api::application::ClockConfig;
use homestretch_tests::legacy::rechain;
use homestretch_tests::{Player, TestApp, spawn_app_with};
use infra::audit::{AuditReport, Bundle, BundleCommand, verify_bundle};
use infra::deadlines::{CLOCK_USER, bot_user};
use infra::ids::{GameId, UserId};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The catalogue's games: issue 17 asks for each.
const KINDS: [&str; 3] = ["whisky_race", "bandits", "mush"];

/// A clocked game of three seats: `ann` (the host, seat 1), `bob` (seat 2), a lobby bot (3).
struct Table {
    kind: &'static str,
    id: String,
    ann: Player,
    bob: Player,
}

/// The server without a clock worker of its own: the test fires the deadlines
/// (`clock_tick`), so the game stands still while its moves are audited.
async fn app() -> TestApp {
    spawn_app_with(|config| config.clocks = None).await
}

fn fire_config() -> ClockConfig {
    ClockConfig {
        bot_interval: Duration::from_millis(1),
        ..ClockConfig::default()
    }
}

/// Fires whatever is due (bot moves, timeouts), as the worker of any instance would.
async fn fire(app: &TestApp) {
    app.state
        .services
        .clocks
        .clock_tick(&fire_config())
        .await
        .expect("the deadlines fire");
}

async fn table(app: &TestApp, kind: &'static str) -> Table {
    let ann = app.register(&format!("ann {kind}")).await;
    let bob = app.register(&format!("bob {kind}")).await;
    let clock = json!({"clock": {"per_decision_s": 1, "abandon_after": 3}});
    let body = json!({"kind": kind, "seats": 3, "options": clock});
    let created = app.post("/v1/games", &ann.token, &body).await.ok();
    let id = created["id"].as_str().expect("an id").to_string();
    app.post(&format!("/v1/games/{id}/seats"), &bob.token, &json!({}))
        .await
        .ok();
    let bots = format!("/v1/games/{id}/seats/bots");
    app.post(&bots, &ann.token, &json!({"policy": "random"}))
        .await
        .ok();
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .ok();
    Table { kind, id, ann, bob }
}

/// Ann plays one move of her own (the bot and the clock play on until the game waits for
/// her), then resigns: her seat passes to a bot.
async fn ann_moves_then_resigns(app: &TestApp, t: &Table) {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "{}: the game never waited for ann",
            t.kind
        );
        let mine = app
            .get(&format!("/v1/games/{}/prompts", t.id), &t.ann.token)
            .await
            .ok();
        let waited = mine["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .any(|p| p["must"] == true && p["seat"] == 1);
        let legal = mine["legal"].as_array().cloned().unwrap_or_default();
        if waited && let Some(command) = legal.first() {
            app.command(&t.id, &t.ann, command.clone()).await.ok();
            break;
        }
        fire(app).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    app.post(
        &format!("/v1/games/{}/seats/me/resign", t.id),
        &t.ann.token,
        &json!({}),
    )
    .await
    .ok();
}

fn is_game_event(event: &Value) -> bool {
    infra::event::Entry::of(event["type"].as_str().unwrap_or("")) == infra::event::Entry::Game
}

/// Fires deadlines until bob (who never answers) has timed out three times in a row, his seat
/// is handed to a bot, and the bots have made `after` more game events (or the game ended).
/// The log as ann sees it.
async fn fire_until_handed_over(app: &TestApp, t: &Table, after: usize) -> Vec<Value> {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "{}: bob's seat was never handed over",
            t.kind
        );
        fire(app).await;
        let log = app.all_events(&t.id, &t.ann).await;
        let handed = log
            .iter()
            .position(|e| e["type"] == "seat_abandoned" && e["data"]["reason"] == "timeouts");
        if let Some(at) = handed {
            let later = log[at + 1..].iter().filter(|e| is_game_event(e)).count();
            let ended = log.iter().any(|e| e["type"] == "server_seed_revealed");
            if ended || later >= after && bots_moved(&log) {
                return log;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Fires deadlines until the game is over (only bots play it by then).
async fn fire_until_finished(app: &TestApp, t: &Table) {
    let started = Instant::now();
    while app.game(&t.id, &t.ann).await["status"] != "finished" {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{}: the bots never finished the game",
            t.kind
        );
        fire(app).await;
    }
}

/// The log has each of the server's moves this test is about.
fn has_every_server_move(kind: &str, log: &[Value]) {
    let kinds = |reason: &str| {
        log.iter()
            .filter(|e| e["type"] == "seat_abandoned" && e["data"]["reason"] == reason)
            .map(|e| e["data"]["seat"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds("resigned"), [json!(1)], "{kind}: ann resigned");
    assert_eq!(
        kinds("timeouts"),
        [json!(2)],
        "{kind}: bob's seat handed over"
    );
    let timeouts = log.iter().filter(|e| e["type"] == "seat_timed_out").count();
    assert!(timeouts >= 3, "{kind}: {timeouts} timeouts");
    assert!(bots_moved(log), "{kind}: both bots moved");
}

/// Seat 3's lobby bot has moved, and ann's seat's bot since her resignation.
fn bots_moved(log: &[Value]) -> bool {
    let resigned = log
        .iter()
        .position(|e| e["data"]["reason"] == "resigned")
        .unwrap_or(log.len());
    [(1, resigned), (3, 0)].iter().all(|&(seat, from)| {
        log[from..]
            .iter()
            .any(|e| e["actor"] == seat && is_game_event(e))
    })
}

fn all_passed(what: &str, sound: bool, checks: &[Value]) {
    assert!(sound, "{what}: not sound: {checks:?}");
    assert!(!checks.is_empty(), "{what}: no checks");
    for check in checks {
        assert_eq!(check["passed"], true, "{what}: {check}");
    }
    for name in ["hash_chain", "head", "server_moves", "senders", "rules"] {
        assert!(
            checks.iter().any(|c| c["name"] == name),
            "{what}: no {name} check in {checks:?}"
        );
    }
}

/// Audits every seq `1..=last` as the arbiter (in process: what an admin resolving a dispute
/// gets) and as each seated person over HTTP: sound, every check passed, and a command whose
/// events hide something from a seat is shown to that seat only if it is its own. How many
/// (seq, seat) pairs had something hidden.
async fn every_move_audits_sound(app: &TestApp, t: &Table, last: u64) -> usize {
    let game = GameId(t.id.parse().expect("a uuid"));
    let arbiter = UserId(uuid::Uuid::new_v4());
    let mut hidden = 0;
    for seq in 1..=last {
        let full = app
            .state
            .services
            .audits
            .audit_move_as(game, arbiter, seq, true)
            .await
            .expect("the arbiter's audit");
        let what = format!("{} seq {seq} (arbiter)", t.kind);
        let checks = serde_json::to_value(&full.checks).expect("checks serialize");
        all_passed(&what, full.sound, checks.as_array().expect("checks"));
        let payloads: Vec<&Value> = full.events.iter().map(|e| &e.payload).collect();
        for (player, seat) in [(&t.ann, 1u8), (&t.bob, 2u8)] {
            let what = format!("{} seq {seq} (seat {seat})", t.kind);
            let path = format!("/v1/games/{}/audit/{seq}", t.id);
            let mine = app.get(&path, &player.token).await.ok();
            let checks = mine["checks"].as_array().expect("checks");
            all_passed(&what, mine["sound"] == true, checks);
            assert_eq!(mine["first_seq"], json!(full.first_seq), "{what}");
            assert_eq!(mine["sent_by"], json!(full.sent_by), "{what}");
            let shown: Vec<&Value> = mine["events"]
                .as_array()
                .expect("events")
                .iter()
                .map(|e| &e["data"])
                .collect();
            if shown != payloads && full.seat != Some(seat) {
                hidden += 1;
                assert!(
                    mine["command"].is_null(),
                    "{what}: seat {:?}'s secret command shows: {}",
                    full.seat,
                    mine["command"]
                );
            } else {
                assert_eq!(mine["command"], full.command, "{what}");
            }
        }
    }
    hidden
}

/// The seqs of the server's own moves: the resignation, each timeout (its first and last
/// entry: the hand-over ends the third) and the first bot moves after the hand-over.
fn server_move_seqs(log: &[Value]) -> Vec<u64> {
    let mut seqs = Vec::new();
    for (i, event) in log.iter().enumerate() {
        if let Some("seat_timed_out" | "seat_abandoned") = event["type"].as_str() {
            seqs.extend(event["seq"].as_u64());
            // The default move (or the bots' first moves after a hand-over).
            let next = log.iter().skip(i + 1).take(3);
            seqs.extend(next.filter_map(|e| e["seq"].as_u64()));
        }
    }
    seqs.sort();
    seqs.dedup();
    seqs
}

async fn export(app: &TestApp, t: &Table) -> Bundle {
    let answer = app
        .get(&format!("/v1/games/{}/export", t.id), &t.ann.token)
        .await
        .ok();
    serde_json::from_value(answer).expect("a bundle")
}

/// The arbiter's path over HTTP: bob disputes his first timeout; an admin who does not play
/// reads the dispute and gets the whole move's audit, sound.
async fn the_arbiter_reads_a_disputed_timeout_as_sound(app: &TestApp, t: &Table, log: &[Value]) {
    let seq = log
        .iter()
        .find(|e| e["type"] == "seat_timed_out" && e["data"]["seat"] == 2)
        .and_then(|e| e["seq"].as_u64())
        .expect("bob timed out");
    let dispute = app
        .post(
            &format!("/v1/games/{}/disputes", t.id),
            &t.bob.token,
            &json!({"seq": seq, "reason": "I was not given my time"}),
        )
        .await
        .ok();
    let admin = app.admin(&format!("arbiter {}", t.kind)).await;
    let read = app
        .get(
            &format!("/v1/disputes/{}", dispute["id"].as_str().expect("an id")),
            &admin.token,
        )
        .await
        .ok();
    let audit = &read["audit"];
    let what = format!("{}: the disputed timeout at seq {seq}", t.kind);
    all_passed(
        &what,
        audit["sound"] == true,
        audit["checks"].as_array().expect("checks"),
    );
    assert!(
        !audit["command"].is_null(),
        "{what}: the arbiter sees the move"
    );
}

/// For every game: a resignation, timeouts with default moves, a hand-over after three
/// timeouts in a row and bot moves; every move's audit (each player's and the arbiter's) is
/// sound before the end, and after it for every server move; the whole log audits sound and
/// verifies offline; a log with its server moves forged does not.
#[actix_web::test]
async fn every_move_audits_sound_with_resignations_timeouts_hand_overs_and_bots() {
    let app = app().await;
    let mut hidden = 0;
    for kind in KINDS {
        let t = table(&app, kind).await;
        ann_moves_then_resigns(&app, &t).await;
        let log = fire_until_handed_over(&app, &t, 3).await;
        has_every_server_move(kind, &log);
        // The game stands still here (nobody fires): every move, before the end.
        let last = log.last().and_then(|e| e["seq"].as_u64()).expect("a log");
        hidden += every_move_audits_sound(&app, &t, last).await;
        let audit = app
            .get(&format!("/v1/games/{}/audit", t.id), &t.ann.token)
            .await
            .ok();
        assert_eq!(audit["sound"], true, "{kind}: {audit}");
        the_arbiter_reads_a_disputed_timeout_as_sound(&app, &t, &log).await;

        // After the end: the server moves again (everything shows now), the whole log.
        fire_until_finished(&app, &t).await;
        let log = app.all_events(&t.id, &t.ann).await;
        for seq in server_move_seqs(&log) {
            let path = format!("/v1/games/{}/audit/{seq}", t.id);
            let mine = app.get(&path, &t.bob.token).await.ok();
            let what = format!("{kind} seq {seq} after the end");
            all_passed(
                &what,
                mine["sound"] == true,
                mine["checks"].as_array().expect("checks"),
            );
        }
        let audit = app
            .get(&format!("/v1/games/{}/audit", t.id), &t.bob.token)
            .await
            .ok();
        assert_eq!(audit["sound"], true, "{kind}: {audit}");
        let bundle = export(&app, &t).await;
        let report = verify_bundle(&bundle);
        assert!(report.sound, "{kind}: {report:?}");
        forged_server_moves_are_unsound(&t, &bundle);
    }
    // Sealed choices (Whisky Race's malt, Mush's bids) and dealt cards hide something.
    assert!(
        hidden > 0,
        "nothing was hidden: the secrecy checks proved nothing"
    );
}

/// The check named `name` failed, and the divergence is at `seq`.
fn fails(report: &AuditReport, name: &str, seq: u64, what: &str) {
    assert!(!report.sound, "{what}: sound");
    let check = report
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{what}: no {name} check: {report:?}"));
    assert!(!check.passed, "{what}: {check:?}");
    let divergence = report.divergence.as_ref().expect("a divergence");
    assert_eq!(divergence.seq, seq, "{what}: {divergence:?}");
    // The chain is intact: only the server-move checks can tell.
    let chain = report.checks.iter().find(|c| c.name == "hash_chain");
    assert!(chain.is_some_and(|c| c.passed), "{what}: {report:?}");
}

/// The negative side, on the finished game's export: each forgery of a server move is caught
/// by the check it concerns, at its seq.
fn forged_server_moves_are_unsound(t: &Table, bundle: &Bundle) {
    let kind = t.kind;
    // A timeout recorded half a second before its deadline (`recorded_at` is not hashed: only
    // the clock check can tell).
    let mut early = bundle.clone();
    let i = early
        .events
        .iter()
        .position(|e| e.kind == "seat_timed_out")
        .expect("a timeout");
    early.events[i].recorded_at =
        early.events[i - 1].recorded_at + time::Duration::milliseconds(500);
    let what = format!("{kind}: an early timeout");
    fails(
        &verify_bundle(&early),
        "server_moves",
        early.events[i].seq,
        &what,
    );
    // Ann's resignation rewritten (and re-chained) to hand over bob's seat instead.
    let mut forged = bundle.clone();
    let i = forged
        .events
        .iter()
        .position(|e| e.kind == "seat_abandoned" && e.payload["reason"] == "resigned")
        .expect("a resignation");
    forged.events[i].payload["seat"] = json!(2);
    rechain(&mut forged, i);
    let what = format!("{kind}: a resignation for another seat");
    fails(
        &verify_bundle(&forged),
        "server_moves",
        forged.events[i].seq,
        &what,
    );
    forged_senders_are_unsound(t, bundle);
}

type Pick = fn(&BundleCommand, uuid::Uuid) -> bool;

/// Commands attributed to someone who may not send them: each fails `senders` at its seq.
fn forged_senders_are_unsound(t: &Table, bundle: &Bundle) {
    let ann: uuid::Uuid = t.ann.id.parse().expect("a uuid");
    let bob: uuid::Uuid = t.bob.id.parse().expect("a uuid");
    let cases: [(&str, Pick, uuid::Uuid); 4] = [
        // The lobby bot's move (seat 3) sent by a person.
        ("a person sends a bot's move", |c, _| c.seat == Some(3), ann),
        // Ann's own move, before she resigned, sent by a bot: her seat was not a bot's.
        (
            "a bot moves for a person",
            |c, ann| c.seat == Some(1) && c.user_id == ann && c.command["type"] != "resign",
            bot_user(1).0,
        ),
        // A timeout sent by the seat's person instead of the clock.
        (
            "a timeout not from the clock",
            |c, _| c.user_id == CLOCK_USER.0,
            bob,
        ),
        // Ann's resignation sent by bob, who does not hold seat 1.
        (
            "a resignation by another",
            |c, _| c.command["type"] == "resign",
            bob,
        ),
    ];
    for (what, pick, sender) in cases {
        let mut forged = bundle.clone();
        let c = forged
            .commands
            .iter()
            .position(|c| pick(c, ann))
            .unwrap_or_else(|| panic!("{}: no command for {what}", t.kind));
        forged.commands[c].user_id = sender;
        let seq = forged.commands[c].first_seq;
        fails(
            &verify_bundle(&forged),
            "senders",
            seq,
            &format!("{}: {what}", t.kind),
        );
    }
}

/// The per-move audit is no softer than the offline one: a timeout moved before its deadline
/// in PostgreSQL itself (as a superuser bypassing the append-only trigger) makes that move's
/// audit unsound, naming the check.
#[actix_web::test]
async fn a_timeout_moved_before_its_deadline_in_the_database_audits_unsound() {
    let app = app().await;
    let t = table(&app, "mush").await;
    ann_moves_then_resigns(&app, &t).await;
    let log = fire_until_handed_over(&app, &t, 0).await;
    let i = log
        .iter()
        .position(|e| e["type"] == "seat_timed_out")
        .expect("a timeout");
    let seq = log[i]["seq"].as_u64().expect("seq");
    let path = format!("/v1/games/{}/audit/{seq}", t.id);
    let before = app.get(&path, &t.bob.token).await.ok();
    assert_eq!(before["sound"], true, "{before}");
    let mut conn = app.pool.acquire().await.expect("a connection");
    sqlx::query("SET session_replication_role = replica")
        .execute(&mut *conn)
        .await
        .expect("superuser");
    sqlx::query(
        "UPDATE events SET recorded_at = (SELECT recorded_at FROM events \
           WHERE game_id = $1 AND seq = $2 - 1) + interval '200 milliseconds' \
         WHERE game_id = $1 AND seq = $2",
    )
    .bind(uuid::Uuid::parse_str(&t.id).expect("a uuid"))
    .bind(seq as i64)
    .execute(&mut *conn)
    .await
    .expect("the forgery");
    sqlx::query("SET session_replication_role = origin")
        .execute(&mut *conn)
        .await
        .expect("back");
    drop(conn);
    let after = app.get(&path, &t.bob.token).await.ok();
    assert_eq!(after["sound"], false, "{after}");
    let clock = after["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "server_moves")
        .expect("the server moves' check")
        .clone();
    assert_eq!(clock["passed"], false, "{after}");
    assert!(
        clock["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&format!("seq {seq}")) && d.contains("deadline")),
        "{clock}"
    );
}

/// The server moves while nobody asks: with the clock worker running and only bots playing,
/// the whole log's audit and the newest move's, read while moves are appended, are sound (the
/// log is audited as of the head the game claimed when read, not a later one against it).
#[actix_web::test]
async fn the_audit_is_sound_while_the_bots_are_playing() {
    let app = homestretch_tests::spawn_app().await;
    for kind in KINDS {
        let t = table(&app, kind).await;
        for player in [&t.ann, &t.bob] {
            let resign = format!("/v1/games/{}/seats/me/resign", t.id);
            app.post(&resign, &player.token, &json!({})).await.ok();
        }
        let started = Instant::now();
        let mut audits = 0;
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "{kind}: the bots never finished"
            );
            let summary = app.game(&t.id, &t.bob).await;
            let audit = app
                .get(&format!("/v1/games/{}/audit", t.id), &t.bob.token)
                .await
                .ok();
            assert_eq!(audit["sound"], true, "{kind}, audit {audits}: {audit}");
            let version = summary["version"].as_u64().expect("a version");
            let newest = format!("/v1/games/{}/audit/{version}", t.id);
            let newest = app.get(&newest, &t.bob.token).await.ok();
            assert_eq!(newest["sound"], true, "{kind} seq {version}: {newest}");
            audits += 1;
            if summary["status"] == "finished" {
                break;
            }
        }
        assert!(audits > 1, "{kind}: audited only once, while nothing moved");
    }
}
