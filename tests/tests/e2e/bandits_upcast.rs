//! A bandits log written before issue 13 (rules `bandits/1.0.0`, event schema 1: every command
//! ended with an `awaiting` event copying the control state) keeps working: loaded into the
//! real tables with SQL, it replays (`/state?at=N`, `/events`), exports, verifies offline and
//! audits over HTTP, all sound — and a game begun under schema 1 can be finished under the new
//! rules.
//!
//! The fixture `tests/fixtures/bandits-schema1-game.json` is the export bundle of a finished
//! game played over HTTP by the engine as it was (seeded with an admin `rng_seed`; the server
//! seed is revealed in the bundle, so every command can be re-run).
//!
//! Likewise BD-516 (event schema 4: the bounty hunter's move sent in pieces): the fixture
//! `tests/fixtures/bandits-schema3-hunter-game.json`, a finished game with the hunter recorded
//! by the schema-3 engine (one whole-path `move_hunter` per turn, one of them 8 steps long
//! with a capture), replays and audits sound, and a game begun under schema 3 is finished
//! under schema 4 with whole hunter moves.
//!
//! And BD-517 (event schema 5: every pawn move that may be longer than 5 steps sent in
//! segments): the same schema-3 fixture records whole turn moves of up to 10 steps (one
//! `move_pawn` each); it replays and audits sound under schema 5, and a game begun under
//! schema 3 is finished under schema 5 with whole turn moves (schema 4 games are upcast the
//! same way: `game_created.all_moves_in_segments` is `false` before schema 5).
//!
//! The engine now writes event schema 6 (BD-518 and BD-386's reading of issue 27:
//! `game_created.piggyback_anywhere` and `towers_follow_placements`, both `false` in every
//! game upcast from schemas 1–5); the games begun under schemas 1 and 3 here are finished
//! under schema 6 and keep their rules. (Issue 27's schema-5 fixture with a stack: `rules27`.)

use homestretch_tests::legacy::{
    bundle as bundle_of, exports_verifies_and_audits, finished_mixed_log_is_sound, forged, load,
    replays_as_recorded,
};
use homestretch_tests::{bandits_commands, spawn_app};
use infra::audit::{Bundle, verify_bundle};
use serde_json::{Value, json};

/// The schema-1 game (issue 13's fixture).
fn schema1_bundle() -> Bundle {
    bundle_of("bandits-schema1-game.json")
}

/// Replays `bundle` in the domain: at each entry `pick` chooses, the view has no `under_way`
/// control (no move left half made). How many entries were checked.
fn nothing_under_way(
    bundle: &Bundle,
    under_way: &str,
    pick: impl Fn(&infra::event::StoredEvent) -> bool,
) -> usize {
    let mut state = domain::game("bandits").unwrap().new_state();
    let mut checked = 0;
    for e in &bundle.events {
        if e.kind != "server_seed_revealed" {
            state.apply(&e.payload, e.schema_version).unwrap();
        }
        if pick(e) {
            let view = state.view(domain::Viewer::Omniscient);
            assert!(view["control"].get(under_way).is_none(), "at {}", e.seq);
            checked += 1;
        }
    }
    checked
}

#[actix_web::test]
async fn a_schema1_log_replays_exports_verifies_and_audits() {
    let app = spawn_app().await;
    let bundle = schema1_bundle();
    assert_eq!(bundle.game.rules_version, "bandits/1.0.0");
    assert!(
        bundle
            .events
            .iter()
            .any(|e| e.kind == "awaiting" && e.schema_version == 1)
    );
    let players = load(&app, &bundle, None).await;
    let id = bundle.game.id.to_string();
    let me = &players[1];

    // The game as the server rebuilds it from the schema-1 rows.
    let game = app.get(&format!("/v1/games/{id}"), &me.token).await.ok();
    assert_eq!(game["status"], "finished");
    assert_eq!(game["version"], bundle.game.version);
    assert!(game["view"]["winner"].is_u64(), "{}", game["view"]);

    // `/events`: the log as stored (hashes and all), `awaiting` events included; `/state?at=N`:
    // replay through the upcaster, at every command's end and in the middle of commands (right
    // before an `awaiting` too); it agrees with a replay in the domain.
    let checked = replays_as_recorded(&app, &bundle, me, |e| {
        e.seq % 37 == 0 || e.seq == bundle.game.version
    })
    .await;
    assert!(checked > 10);
    let end = app
        .get(
            &format!("/v1/games/{id}/state?at={}", bundle.game.version),
            &me.token,
        )
        .await
        .ok();
    assert_eq!(end["view"], game["view"]);

    // `/export` gives the stored log back, unchanged: it verifies offline (every recorded event
    // reproduced, rules bandits/1.0.0 read by this engine), and `/audit` on the live rows is
    // sound …
    exports_verifies_and_audits(&app, &bundle, &players).await;
    // … the bundle as recorded verifies too, also with the command-line verifier, from a file.
    assert!(verify_bundle(&bundle).sound);
    let file = std::env::temp_dir().join(format!("bandits-schema1-{id}.json"));
    std::fs::write(&file, serde_json::to_string(&bundle).unwrap()).unwrap();
    let verified = api::cli::run(vec!["verify".into(), file.display().to_string()]).await;
    // Nothing is left in /tmp.
    let _ = std::fs::remove_file(&file);
    verified.expect("verify passes");

    // A forged control state in an `awaiting` event (re-hashed so the chain holds) is caught
    // by the replay: the upcaster checks it against the facts.
    let seq = bundle
        .events
        .iter()
        .find(|e| e.kind == "awaiting" && e.seq > 100)
        .unwrap()
        .seq;
    let forged = forged(&bundle, seq, |e| {
        e.payload["control"]["attempts"] = json!(7)
    });
    let report = verify_bundle(&forged);
    assert!(!report.sound);
    assert!(
        report
            .divergence
            .as_ref()
            .unwrap()
            .what
            .contains("control state"),
        "{report:?}"
    );
}

#[actix_web::test]
async fn a_game_begun_under_schema1_is_finished_under_the_new_rules() {
    let app = spawn_app().await;
    let bundle = schema1_bundle();
    let half = bundle.commands.len() / 2;
    let players = load(&app, &bundle, Some(half)).await;
    let id = bundle.game.id.to_string();
    // The state rebuilt from schema-1 events takes new commands (schema 6) …
    let sent = app.play_randomly(&id, &players, 5, 5000).await;
    assert!(sent < 5000, "the game did not end");
    let mut loaded = bundle.commands.clone();
    loaded.sort_by_key(|c| c.first_seq);
    let loaded_last = loaded[half - 1].last_seq;
    let events = app.all_events(&id, &players[0]).await;
    assert!(
        !events.iter().any(|e| e["data"]["type"] == "awaiting"
            && e["seq"].as_u64().is_some_and(|seq| seq > loaded_last)),
        "no awaiting event is written any more"
    );
    // … and the mixed log verifies and audits.
    finished_mixed_log_is_sound(&app, &id, &players, &[1, 6]).await;
}

/// The schema-3 game with the hunter (BD-516's fixture).
fn hunter_bundle() -> Bundle {
    let bundle = bundle_of("bandits-schema3-hunter-game.json");
    assert!(bundle.events.iter().all(|e| e.schema_version == 3));
    assert_eq!(bundle.game.options["bounty_hunter"], true);
    bundle
}

/// The hunter's steps in each recorded `hunter_moved`.
fn hunter_moves(events: &[infra::event::StoredEvent]) -> Vec<usize> {
    events
        .iter()
        .filter(|e| e.kind == "hunter_moved")
        .map(|e| e.payload["path"].as_array().unwrap().len())
        .collect()
}

// BD-516: a log recorded under event schema 3, whose hunter moves are whole paths (one of 8
// steps: a capture and its bonus segment in one command), replays — `/state?at=N` at every
// hunter move agrees with the domain's replay — exports unchanged, verifies offline and
// audits sound: the schema-4 engine re-runs its commands as whole hunter moves.
#[actix_web::test]
async fn bd516_a_schema3_log_with_whole_hunter_moves_replays_and_audits() {
    let app = spawn_app().await;
    let bundle = hunter_bundle();
    assert!(hunter_moves(&bundle.events).iter().any(|&k| k > 6));
    let players = load(&app, &bundle, None).await;
    let id = bundle.game.id.to_string();
    let me = &players[1];
    let game = app.get(&format!("/v1/games/{id}"), &me.token).await.ok();
    assert_eq!(game["status"], "finished");
    // A whole move leaves no hunter move under way.
    let hunts =
        |e: &infra::event::StoredEvent| e.kind == "hunter_moved" || e.seq == bundle.game.version;
    let checked = replays_as_recorded(&app, &bundle, me, hunts).await;
    assert_eq!(nothing_under_way(&bundle, "hunt", hunts), checked);
    assert!(checked > 100, "{checked}");
    exports_verifies_and_audits(&app, &bundle, &players).await;
}

/// Whole `move_pawn` commands longer than a segment (5 steps) in a bundle.
fn long_moves(bundle: &Bundle) -> usize {
    bundle
        .commands
        .iter()
        .filter(|c| c.command["type"] == "move_pawn")
        .filter(|c| c.command["path"].as_array().is_some_and(|p| p.len() > 5))
        .count()
}

// BD-517: a log recorded under event schema 3, whose turn moves are whole (`move_pawn`s of up
// to 10 steps in one command, no `move_segment`), replays — `/state?at=N` after every long
// move agrees with the domain's replay and leaves no move under way — exports unchanged,
// verifies offline and audits sound: the schema-5 engine re-runs them as whole moves.
#[actix_web::test]
async fn bd517_a_schema3_log_with_whole_long_turn_moves_replays_and_audits() {
    let app = spawn_app().await;
    let bundle = hunter_bundle();
    // (Its rampages and distributions went in segments already: BD-515, schema 3.)
    assert!(long_moves(&bundle) > 10, "{}", long_moves(&bundle));
    let players = load(&app, &bundle, None).await;
    let me = &players[1];
    let long = |e: &infra::event::StoredEvent| {
        e.kind == "pawn_moved" && e.payload["path"].as_array().is_some_and(|p| p.len() > 5)
    };
    let checked = replays_as_recorded(&app, &bundle, me, long).await;
    assert_eq!(nothing_under_way(&bundle, "moving", long), checked);
    assert!(checked > 10, "{checked}");
    exports_verifies_and_audits(&app, &bundle, &players).await;
}

// BD-516 / BD-517: a game with the hunter begun under schema 3 is finished under schema 5 and
// keeps whole hunter moves and whole turn moves: at its hunter moves `choices` offers whole
// paths (BD-424), not pieces (BD-516); no `move_segment` is ever offered outside a rampage or
// distribute (BD-515), and whole `move_pawn`s longer than 5 steps are offered and accepted;
// the mixed log verifies and audits sound.
#[actix_web::test]
async fn bd516_a_game_begun_under_schema3_keeps_whole_hunter_moves() {
    let app = spawn_app().await;
    let bundle = hunter_bundle();
    let half = bundle.commands.len() / 2;
    let players = load(&app, &bundle, Some(half)).await;
    let id = bundle.game.id.to_string();
    let (mut hunter_prompts, mut whole_long) = (0, 0);
    for round in 0..5000 {
        let overview = app
            .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
            .await
            .ok();
        let Some(seat) = overview["prompts"][0]["seat"].as_u64() else {
            break;
        };
        let player = &players[seat as usize - 1];
        let mine = app
            .get(&format!("/v1/games/{id}/prompts"), &player.token)
            .await
            .ok();
        let choices = mine["choices"].as_array().unwrap();
        if choices.iter().any(|f| f["kind"] == "move_hunter") {
            assert_eq!(choices.len(), 1, "{mine}");
            assert_eq!(choices[0]["annotations"]["rule"], "BD-424", "{mine}");
            hunter_prompts += 1;
        }
        let segment_rules: Vec<&Value> = choices
            .iter()
            .filter(|f| f["kind"] == "move_segment")
            .map(|f| &f["annotations"]["rule"])
            .collect();
        assert!(segment_rules.iter().all(|r| *r == "BD-515"), "{mine}");
        // The whole list (`legal` is a short sample, issue 31), so long moves are found.
        let legal = bandits_commands(&mine);
        let long = |c: &Value| {
            c["type"] == "move_pawn" && c["path"].as_array().is_some_and(|p| p.len() > 5)
        };
        // Prefer a whole long move when one is offered, so the run sends many.
        let command = match legal.iter().find(|c| long(c)) {
            Some(c) if round % 2 == 0 => c.clone(),
            _ => legal[(round * 7919) % legal.len()].clone(),
        };
        whole_long += usize::from(long(&command));
        let answer = app.command(&id, player, command.clone()).await;
        assert_eq!(answer.status, 200, "{command}: {}", answer.text);
    }
    assert!(hunter_prompts > 10, "{hunter_prompts}");
    assert!(whole_long > 5, "{whole_long}");
    finished_mixed_log_is_sound(&app, &id, &players, &[3, 6]).await;
}
