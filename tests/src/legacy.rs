//! Logs recorded by an older engine (`tests/fixtures/*.json`: export bundles with their seed),
//! loaded as rows of the real tables, for the tests that prove old logs keep replaying,
//! exporting, verifying and auditing as recorded.

use crate::{Player, TestApp};
use infra::audit::{Bundle, verify_bundle};
use serde_json::Value;
use std::collections::HashMap;

/// `tests/fixtures/<name>` as JSON (`{"about", "rng_seed", "players", "bundle"}`).
pub fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture JSON")
}

/// The fixture's export bundle.
pub fn bundle(name: &str) -> Bundle {
    serde_json::from_value(fixture(name)["bundle"].clone()).expect("a bundle")
}

fn body_hash(command: &Value) -> String {
    use sha2::Digest;
    let mut text = String::new();
    infra::hash::canonical_json(command, &mut text);
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

/// Inserts the bundle's game, seats, events and commands — the first `commands` commands
/// only, when given: a game still running — as rows of the real tables. Returns the players
/// seated (registered over HTTP; their ids replace the recorded ones, which no event hashes).
pub async fn load(app: &TestApp, bundle: &Bundle, commands: Option<usize>) -> Vec<Player> {
    let mut players = Vec::new();
    let mut ids = HashMap::new();
    for seat in &bundle.game.seats {
        let p = app.register(&format!("{}-{}", seat.name, seat.seat)).await;
        ids.insert(seat.user_id, uuid::Uuid::parse_str(&p.id).unwrap());
        players.push(p);
    }
    let mut cmds = bundle.commands.clone();
    cmds.sort_by_key(|c| c.first_seq);
    if let Some(n) = commands {
        cmds.truncate(n);
    }
    let last = cmds.last().map(|c| c.last_seq).unwrap();
    let events: Vec<_> = bundle.events.iter().filter(|e| e.seq <= last).collect();
    let finished = commands.is_none();
    let seed = hex::decode(bundle.server_seed.as_ref().unwrap()).unwrap();
    let game = &bundle.game;
    let outcome: Option<Value> = finished.then(|| {
        // The inline projection the server wrote at the end, from the log itself.
        let g = domain::game(&game.kind).unwrap();
        let mut state = g.new_state();
        for e in events.iter().filter(|e| e.kind != "server_seed_revealed") {
            state.apply(&e.payload, e.schema_version).unwrap();
        }
        serde_json::to_value(state.outcome().unwrap()).unwrap()
    });
    let pool = &app.pool;
    sqlx::query(
        "INSERT INTO games (id, kind, status, seat_count, options, host_id, fair, server_seed,
         seed_commitment, rules_version, version, head_hash, outcome, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now(),
                 CASE WHEN $3 = 'finished' THEN now() END)",
    )
    .bind(game.id)
    .bind(&game.kind)
    .bind(if finished { "finished" } else { "active" })
    .bind(i16::from(game.seat_count))
    .bind(&game.options)
    .bind(ids[&game.seats[0].user_id])
    .bind(game.fair)
    .bind(&seed)
    .bind(&game.seed_commitment)
    .bind(&game.rules_version)
    .bind(last as i64)
    .bind(&events.last().unwrap().hash)
    .bind(&outcome)
    .execute(pool)
    .await
    .unwrap();
    for seat in &game.seats {
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, user_id, client_seed) VALUES ($1, $2, $3, $4)",
        )
        .bind(game.id)
        .bind(i16::from(seat.seat))
        .bind(ids[&seat.user_id])
        .bind(&seat.client_seed)
        .execute(pool)
        .await
        .unwrap();
    }
    for e in &events {
        sqlx::query(
            "INSERT INTO events (game_id, seq, type, payload, schema_version, command_id, actor,
             recorded_at, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(game.id)
        .bind(e.seq as i64)
        .bind(&e.kind)
        .bind(&e.payload)
        .bind(e.schema_version as i32)
        .bind(e.command_id)
        .bind(e.actor.map(i16::from))
        .bind(e.recorded_at)
        .bind(&e.prev_hash)
        .bind(&e.hash)
        .execute(pool)
        .await
        .unwrap();
    }
    for c in &cmds {
        sqlx::query(
            "INSERT INTO commands (game_id, command_id, user_id, seat, body_hash, command,
             first_seq, last_seq, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(game.id)
        .bind(c.command_id)
        .bind(ids[&c.user_id])
        .bind(c.seat.map(i16::from))
        .bind(body_hash(&c.command))
        .bind(&c.command)
        .bind(c.first_seq as i64)
        .bind(c.last_seq as i64)
        .bind(c.recorded_at)
        .execute(pool)
        .await
        .unwrap();
    }
    players
}

/// `/state?at=N` (as `me`) at every entry `pick` chooses agrees with a replay of `bundle` in the
/// domain (through the upcasters), and `/events` gives the log back as stored. How many
/// states were compared.
pub async fn replays_as_recorded(
    app: &TestApp,
    bundle: &Bundle,
    me: &Player,
    pick: impl Fn(&infra::event::StoredEvent) -> bool,
) -> usize {
    let id = bundle.game.id;
    let shown = app.all_events(&id.to_string(), me).await;
    assert_eq!(shown.len(), bundle.events.len());
    for (shown, stored) in shown.iter().zip(&bundle.events) {
        assert_eq!(shown["data"], stored.payload);
        assert_eq!(shown["hash"], stored.hash);
    }
    let mut state = domain::game(&bundle.game.kind).unwrap().new_state();
    let mut checked = 0;
    for e in &bundle.events {
        if e.kind != "server_seed_revealed" {
            state.apply(&e.payload, e.schema_version).unwrap();
        }
        if pick(e) {
            let at = app
                .get(&format!("/v1/games/{id}/state?at={}", e.seq), &me.token)
                .await
                .ok();
            assert_eq!(at["version"], e.seq);
            assert_eq!(
                at["view"],
                state.view(domain::Viewer::Omniscient),
                "at {}",
                e.seq
            );
            checked += 1;
        }
    }
    checked
}

/// The loaded `bundle` exports unchanged (as `players[1]`), verifies offline — every recorded
/// event reproduced by the rules, and the rules version it was recorded with read by this
/// engine — and audits sound (as `players[0]`).
pub async fn exports_verifies_and_audits(app: &TestApp, bundle: &Bundle, players: &[Player]) {
    let id = bundle.game.id;
    let export: Bundle = serde_json::from_value(
        app.get(&format!("/v1/games/{id}/export"), &players[1].token)
            .await
            .ok(),
    )
    .unwrap();
    assert_eq!(export.events, bundle.events);
    assert_eq!(export.server_seed, bundle.server_seed);
    let report = verify_bundle(&export);
    assert!(report.sound, "{report:?}");
    let check = |name: &str| report.checks.iter().find(|c| c.name == name).unwrap();
    let rules = check("rules");
    assert!(
        rules.detail.contains("every recorded event reproduced"),
        "{rules:?}"
    );
    let version = check("rules_version");
    assert!(
        version.passed && version.detail.contains(&bundle.game.rules_version),
        "{version:?}"
    );
    let audit = app
        .get(&format!("/v1/games/{id}/audit"), &players[0].token)
        .await
        .ok();
    assert_eq!(audit["sound"], true, "{audit}");
}

/// The finished game `id`, begun by an older engine and played on by this one: its export
/// holds events of exactly the schemas `schemas`, verifies offline and audits sound.
pub async fn finished_mixed_log_is_sound(
    app: &TestApp,
    id: &str,
    players: &[Player],
    schemas: &[u32],
) {
    let export: Bundle = serde_json::from_value(
        app.get(&format!("/v1/games/{id}/export"), &players[0].token)
            .await
            .ok(),
    )
    .unwrap();
    assert_eq!(export.game.status, "finished");
    let written: std::collections::BTreeSet<u32> =
        export.events.iter().map(|e| e.schema_version).collect();
    assert_eq!(written, schemas.iter().copied().collect());
    let report = verify_bundle(&export);
    assert!(report.sound, "{report:?}");
    let audit = app
        .get(&format!("/v1/games/{id}/audit"), &players[1].token)
        .await
        .ok();
    assert_eq!(audit["sound"], true, "{audit}");
}

/// `bundle` with event `seq` edited by `edit`, re-hashed from there on so that the chain
/// holds: a forged record only the rules re-run can tell from the real one.
pub fn forged(
    bundle: &Bundle,
    seq: u64,
    edit: impl FnOnce(&mut infra::event::StoredEvent),
) -> Bundle {
    let mut forged = bundle.clone();
    let i = forged
        .events
        .iter()
        .position(|e| e.seq == seq)
        .expect("the event");
    edit(&mut forged.events[i]);
    rechain(&mut forged, i);
    forged
}

/// Re-chains every event from index `from` on, as a forger with the database would.
pub fn rechain(bundle: &mut Bundle, from: usize) {
    let mut prev = bundle.events[from].prev_hash.clone();
    for event in bundle.events.iter_mut().skip(from) {
        event.prev_hash = prev.clone();
        event.hash = infra::hash::event_hash(bundle.game.id, event);
        prev = event.hash.clone();
    }
    bundle.game.head_hash = prev;
}
