//! Issue 27 (a second reading of the French rulebooks): logs recorded under the old rulings.
//!
//! `record_old_ruling_fixtures` (ignored) wrote `tests/fixtures/whisky-race-wr161-game.json`
//! and `tests/fixtures/bandits-schema5-game.json`: run on the commit before WR-162 and BD-518
//! (`df9283e`) it plays, over HTTP, games recorded by the engine as it was, and saves their
//! exports (seed revealed). Run on a later engine it records logs of that engine instead.
//!
//! `cargo test -p homestretch-tests --test e2e record_old_ruling_fixtures -- --ignored`

use homestretch_tests::{Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};

/// A small deterministic generator (xorshift), for the fixtures' random choices.
fn chooser(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

async fn send(app: &TestApp, game: &str, player: &Player, command: Value) -> Value {
    let answer = app.command(game, player, command.clone()).await;
    assert_eq!(answer.status, 200, "{command} refused: {}", answer.text);
    answer.body
}

/// The first seat `game` waits for, and all its legal commands (from `choices`: `legal` is a
/// short sample, issue 31); `None` once the game is over.
async fn turn<'a>(
    app: &TestApp,
    game: &str,
    players: &'a [Player],
) -> Option<(&'a Player, Vec<Value>)> {
    let prompts = app
        .get(&format!("/v1/games/{game}/prompts"), &players[0].token)
        .await
        .ok();
    let seat = prompts["prompts"].as_array().unwrap().first()?["seat"].as_u64()?;
    let player = &players[seat as usize - 1];
    let mine = app
        .get(&format!("/v1/games/{game}/prompts"), &player.token)
        .await
        .ok();
    Some((player, commands_of(&mine)))
}

/// Plays `game` to its end: the first waited-for seat sends one of its legal commands, a game
/// move rather than a trade (trades only when nothing else is legal); `each` sees every legal
/// list first. Returns the commands sent.
async fn play_out(
    app: &TestApp,
    game: &str,
    players: &[Player],
    seed: u64,
    each: impl Fn(&[Value]),
) -> usize {
    let mut next = chooser(seed);
    for sent in 0..20_000 {
        let Some((player, legal)) = turn(app, game, players).await else {
            return sent;
        };
        each(&legal);
        let moves: Vec<&Value> = legal
            .iter()
            .filter(|c| !c["type"].as_str().unwrap().ends_with("_trade"))
            .collect();
        let command = if moves.is_empty() {
            legal[next(legal.len())].clone()
        } else {
            moves[next(moves.len())].clone()
        };
        send(app, game, player, command).await;
    }
    panic!("the game did not end");
}

/// The round's malt choices of seats 1, 2, 3.
async fn plan(app: &TestApp, game: &str, players: &[Player], amounts: [u32; 3]) {
    for (player, amount) in players.iter().zip(amounts) {
        let choice = json!({"type": "submit_malt_choice", "amount": amount});
        send(app, game, player, choice).await;
    }
}

async fn save(
    app: &TestApp,
    game: &str,
    players: &[Player],
    rng_seed: &str,
    name: &str,
    about: &str,
) {
    let bundle = app
        .get(&format!("/v1/games/{game}/export"), &players[0].token)
        .await
        .ok();
    assert!(bundle["server_seed"].is_string(), "the game is over");
    let fixture = json!({
        "about": about,
        "rng_seed": rng_seed,
        "players": players.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "bundle": bundle,
    });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::write(path, serde_json::to_string(&fixture).unwrap()).unwrap();
}

#[actix_web::test]
#[ignore]
async fn record_old_ruling_fixtures() {
    let app = spawn_app().await;
    // Whisky Race, WR-161: issue 12's e2e position (`wr161-2`): seat 1 ends alone on 8, where
    // the checkpoint lies beside the marker drawn under the Englishman (coleraine#2).
    let p = vec![
        app.admin("root-admin").await,
        app.register("player2").await,
        app.register("player3").await,
    ];
    let id = app
        .started_game("whisky_race", &p, json!({}), Some("wr161-2"))
        .await;
    plan(&app, &id, &p, [3, 1, 6]).await;
    let order = [3usize, 1, 2];
    for seat in order {
        send(&app, &id, &p[seat - 1], json!({"type": "finish_movement"})).await;
        send(&app, &id, &p[seat - 1], json!({"type": "end_turn"})).await;
    }
    send(&app, &id, &p[2], json!({"type": "pay_tax"})).await;
    plan(&app, &id, &p, [6, 2, 1]).await;
    send(
        &app,
        &id,
        &p[0],
        json!({"type": "use_whisky", "whisky": "kinclaith#1",
               "params": {"piece": {"kind": "englishman"}, "direction": "forward"}}),
    )
    .await;
    let moved = send(&app, &id, &p[0], json!({"type": "finish_movement"})).await;
    let types: Vec<&str> = moved["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["data"]["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"checkpoint_taken") && types.contains(&"activation_pending"),
        "WR-161: the checkpoint applied and the other marker is offered: {types:?}"
    );
    let sent = play_out(&app, &id, &p, 27, |_| ()).await;
    save(
        &app,
        &id,
        &p,
        "wr161-2",
        "whisky-race-wr161-game.json",
        &format!(
            "A Whisky Race game recorded over HTTP by the engine of rules whisky_race/1.1.0 \
             (event schema 1), under errata WR-161: in round 2 seat 1 ends alone on space 8, \
             where checkpoint_1#1 lies beside coleraine#2 (drawn under the Englishman in round \
             1); the checkpoint applies automatically and seat 1 is still offered coleraine#2 \
             (WR-162 now lets him activate only one of them). 3 seats, admin rng_seed below; \
             the opening is issue 12's e2e test `wr161_brown_benefit_and_a_choice_on_the_same_space`, \
             then {sent} commands chosen at random among each waited-for seat's legal game moves \
             (tests/tests/e2e/rules27.rs `record_old_ruling_fixtures`); the bundle is the export \
             of the finished game (seed revealed), so verify re-runs every command."
        ),
    )
    .await;

    // Bandits, BD-381: a game recorded under event schema 5 (Sur le dos on the ring only),
    // one where a pawn climbs on another.
    let players = vec![app.admin("root-admin-b").await, app.register("bob").await];
    for n in 0..20 {
        let seed = format!("bd381-schema5-{n}");
        let id = app
            .started_game(
                "bandits",
                &players,
                json!({"pawns_per_player": 2, "first_player": 1}),
                Some(&seed),
            )
            .await;
        let sent = app.play_randomly(&id, &players, n, 10_000).await;
        assert!(sent < 10_000, "the game did not end");
        let events = app.all_events(&id, &players[0]).await;
        if !events.iter().any(|e| e["data"]["type"] == "pawn_stacked") {
            continue;
        }
        save(
            &app,
            &id,
            &players,
            &seed,
            "bandits-schema5-game.json",
            &format!(
                "A bandits game recorded over HTTP by the engine of rules bandits/1.1.0, event \
                 schema 5 (BD-517), before BD-518: Sur le dos on ring nodes only (BD-381). A pawn \
                 climbs on another (pawn_stacked). 2 seats, 2 pawns each, seat 1 first, admin \
                 rng_seed below; {sent} random legal commands (TestApp::play_randomly, seed {n}); \
                 the bundle is the export of the finished game (seed revealed)."
            ),
        )
        .await;
        return;
    }
    panic!("no game with a stack");
}

// ------------------------------------------------------------------------------- Whisky Race

use homestretch_tests::legacy;
use infra::audit::verify_bundle;

const WR161_GAME: &str = "whisky-race-wr161-game.json";
const BD381_GAME: &str = "bandits-schema5-game.json";

/// The recorded WR-161 path: seat 1's `finish_movement` on 8 (the index of its command, sorted
/// by first seq), the automatic checkpoint declaration and the `activation_pending` that
/// followed it in the same command.
fn wr161_path(bundle: &infra::audit::Bundle) -> (usize, u64, u64) {
    let declared = bundle
        .events
        .iter()
        .find(|e| {
            e.kind == "activation_declared"
                && e.payload["automatic"] == true
                && e.payload["marker"] == "checkpoint_1#1"
        })
        .expect("the checkpoint applied by itself");
    let pending = bundle
        .events
        .iter()
        .find(|e| e.kind == "activation_pending" && e.seq > declared.seq)
        .expect("then a choice");
    assert_eq!(pending.payload["markers"], json!(["coleraine#2"]));
    let mut commands = bundle.commands.clone();
    commands.sort_by_key(|c| c.first_seq);
    let index = commands
        .iter()
        .position(|c| (c.first_seq..=c.last_seq).contains(&declared.seq))
        .unwrap();
    assert_eq!(commands[index].command["type"], "finish_movement");
    assert!((commands[index].first_seq..=commands[index].last_seq).contains(&pending.seq));
    (index, declared.seq, pending.seq)
}

// WR-162 / WR-161: a Whisky Race log recorded under WR-161 (rules 1.1.0, event schema 1), in
// which a brown marker applied beside the marker the player then chose, loaded into
// PostgreSQL: it replays (`/events` as stored, `/state?at=N` as the domain replays it, the
// WR-161 path included), exports unchanged, verifies offline (the rules re-run reproduces
// every event) and audits sound. The ruling is read from the log: the same record claiming
// WR-162 in its `game_started` (schema 2, `single_activation: true`) does not verify — re-run
// under WR-162, seat 1's movement onto 8 gives a choice, not the checkpoint.
#[actix_web::test]
async fn wr161_log_replays_exports_verifies_and_audits_as_recorded() {
    let app = spawn_app().await;
    let bundle = legacy::bundle(WR161_GAME);
    assert_eq!(bundle.game.rules_version, "whisky_race/1.1.0");
    assert!(bundle.events.iter().all(|e| e.schema_version == 1));
    assert!(bundle.events[0].payload.get("single_activation").is_none());
    let (_, declared, pending) = wr161_path(&bundle);
    let players = legacy::load(&app, &bundle, None).await;
    let id = bundle.game.id.to_string();
    let game = app.game(&id, &players[1]).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["version"], bundle.game.version);
    let checked = legacy::replays_as_recorded(&app, &bundle, &players[1], |e| {
        e.seq % 10 == 0 || (declared..=pending).contains(&e.seq) || e.seq == bundle.game.version
    })
    .await;
    assert!(checked > 40, "{checked}");
    // At the choice, seat 1 holds the checkpoint and coleraine#2 still lies on 8.
    let at = app
        .get(
            &format!("/v1/games/{id}/state?at={pending}"),
            &players[0].token,
        )
        .await
        .ok();
    assert_eq!(
        at["view"]["players"][0]["checkpoints"],
        json!(["checkpoint_1#1"])
    );
    legacy::exports_verifies_and_audits(&app, &bundle, &players).await;
    // The command-line verifier agrees, from a file (removed afterwards).
    let file = std::env::temp_dir().join(format!("wr161-{id}.json"));
    std::fs::write(&file, serde_json::to_string(&bundle).unwrap()).unwrap();
    let verified = api::cli::run(vec!["verify".into(), file.display().to_string()]).await;
    let _ = std::fs::remove_file(&file);
    verified.expect("verify passes");

    let claims_wr162 = legacy::forged(&bundle, 1, |e| {
        e.schema_version = 2;
        e.payload["single_activation"] = json!(true);
    });
    let report = verify_bundle(&claims_wr162);
    assert!(!report.sound);
    let divergence = report.divergence.expect("a divergence");
    assert_eq!(divergence.seq, declared, "{divergence:?}");
}

// WR-162: a game begun under WR-161 (event schema 1) goes on under WR-161 on the new engine.
// The log is loaded up to the command before seat 1's move onto 8; sent again over HTTP, that
// `finish_movement` applies the checkpoint by itself and offers coleraine#2 beside it, exactly
// as recorded; the game then plays to its end, and the mixed log (schemas 1 and 2) verifies
// and audits sound.
#[actix_web::test]
async fn a_whisky_race_game_begun_under_wr161_goes_on_under_wr161() {
    let app = spawn_app().await;
    let bundle = legacy::bundle(WR161_GAME);
    let (index, declared, pending) = wr161_path(&bundle);
    let players = legacy::load(&app, &bundle, Some(index)).await;
    let id = bundle.game.id.to_string();
    let answer = send(&app, &id, &players[0], json!({"type": "finish_movement"})).await;
    let recorded: Vec<&Value> = bundle
        .events
        .iter()
        .filter(|e| (declared..=pending).contains(&e.seq))
        .map(|e| &e.payload)
        .collect();
    let sent: Vec<&Value> = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| (declared..=pending).contains(&e["seq"].as_u64().unwrap()))
        .map(|e| &e["data"])
        .collect();
    assert_eq!(sent, recorded, "WR-161 kept: {answer}");
    let offered: Vec<Value> = commands_of(&answer["next"])
        .into_iter()
        .filter(|c| c["type"] == "activate")
        .map(|c| c["marker"].clone())
        .collect();
    assert!(!offered.is_empty() && offered.iter().all(|m| *m == "coleraine#2"));
    play_out(&app, &id, &players, 5, |_| ()).await;
    legacy::finished_mixed_log_is_sound(&app, &id, &players, &[1, 2]).await;
}

// ------------------------------------------------------------------------------- Bandits

// BD-518 / BD-381: a bandits log recorded before BD-518 (rules 1.1.0, event schema 5: Sur le
// dos on ring nodes only), with a stack, loaded into PostgreSQL: it replays (`/events` as
// stored, `/state?at=N` at every stack and along the game as the domain replays it), exports
// unchanged, verifies offline and audits sound under the BD-518 engine.
#[actix_web::test]
async fn bd381_schema5_log_replays_exports_verifies_and_audits_as_recorded() {
    let app = spawn_app().await;
    let bundle = legacy::bundle(BD381_GAME);
    assert_eq!(bundle.game.rules_version, "bandits/1.1.0");
    assert!(bundle.events.iter().all(|e| e.schema_version == 5));
    assert!(bundle.events[0].payload.get("piggyback_anywhere").is_none());
    let stacks: Vec<u64> = bundle
        .events
        .iter()
        .filter(|e| e.kind == "pawn_stacked")
        .map(|e| e.seq)
        .collect();
    assert!(!stacks.is_empty());
    let players = legacy::load(&app, &bundle, None).await;
    let checked = legacy::replays_as_recorded(&app, &bundle, &players[1], |e| {
        e.seq % 50 == 0 || stacks.contains(&e.seq) || e.seq == bundle.game.version
    })
    .await;
    assert!(checked > 30, "{checked}");
    legacy::exports_verifies_and_audits(&app, &bundle, &players).await;
}

/// The end node of a `move_pawn` or `move_segment` command, and whether it names a Sur le dos.
fn piggyback_end(command: &Value) -> Option<String> {
    if command["piggyback_card"].is_null() {
        return None;
    }
    let path = command["path"].as_array()?;
    Some(path.last()?.as_str()?.to_string())
}

// BD-518: a bandits game begun under event schema 5 goes on under BD-381 on the new engine.
// The fixture reaches a position where BD-518 would let green climb on its own pawn on a
// village property with a Sur le dos (found by replaying the log in the domain with and
// without `piggyback_anywhere`); loaded up to there, the server offers no Sur le dos off the
// ring and refuses that move as before (BD-215: no second pawn on a property). Played on to its end, it never offers one, and the
// mixed log (schemas 5 and 6) verifies and audits sound.
#[actix_web::test]
async fn a_bandits_game_begun_under_schema5_keeps_sur_le_dos_on_the_ring() {
    use domain::bandits::board::{Node, Zone, board};
    let app = spawn_app().await;
    let bundle = legacy::bundle(BD381_GAME);
    let (k, seat, command) = first_position_bd518_changes(&bundle).expect("a BD-518 position");
    let players = legacy::load(&app, &bundle, Some(k)).await;
    let id = bundle.game.id.to_string();
    let off_ring = |legal: &[Value]| -> Vec<String> {
        legal
            .iter()
            .filter_map(piggyback_end)
            .filter(|end| board().info(Node::parse(end).unwrap()).zone != Zone::Ring)
            .collect()
    };
    let player = &players[usize::from(seat) - 1];
    let mine = app
        .get(&format!("/v1/games/{id}/prompts"), &player.token)
        .await
        .ok();
    assert!(off_ring(&commands_of(&mine)).is_empty(), "{mine}");
    let refused = app
        .command(&id, player, serde_json::to_value(&command).unwrap())
        .await;
    // As before BD-518: a property takes no second pawn, Sur le dos or not (BD-215, which
    // names BD-381 for villages).
    assert_eq!(refused.problem(422)["rule"], "BD-215", "{}", refused.text);
    play_out(&app, &id, &players, 18, |legal| {
        assert!(off_ring(legal).is_empty(), "BD-381 kept")
    })
    .await;
    legacy::finished_mixed_log_is_sound(&app, &id, &players, &[5, 6]).await;
}

/// Replays `bundle` in the domain: the first command index (by first seq) before which the
/// acting seat's `legal` would list a Sur le dos onto a node off the ring under BD-518 (the
/// recorded state with `piggyback_anywhere` set) — and does not as recorded (BD-381) —, the
/// seat, and that command.
fn first_position_bd518_changes(
    bundle: &infra::audit::Bundle,
) -> Option<(usize, u8, domain::bandits::Command)> {
    use domain::bandits::board::{Zone, board};
    use domain::bandits::{Bandits, Command, Event, State};
    use domain::engine::Game as _;
    let mut commands = bundle.commands.clone();
    commands.sort_by_key(|c| c.first_seq);
    let mut st = State::default();
    let mut events = bundle.events.iter().peekable();
    for (k, c) in commands.iter().enumerate() {
        while let Some(e) = events.next_if(|e| e.seq < c.first_seq) {
            for payload in Bandits::upcast(&st, e.schema_version, e.payload.clone()).unwrap() {
                let event: Event = serde_json::from_value(payload).unwrap();
                Bandits::evolve(&mut st, &event);
            }
        }
        let Some(seat) = c.seat.and_then(|s| domain::Seat::new(s).ok()) else {
            continue;
        };
        let mut anywhere = st.clone();
        anywhere.piggyback_anywhere = true;
        let off_ring = |cmd: &Command| {
            let json = serde_json::to_value(cmd).unwrap();
            piggyback_end(&json).is_some_and(|end| {
                board()
                    .info(domain::bandits::board::Node::parse(&end).unwrap())
                    .zone
                    != Zone::Ring
            })
        };
        if let Some(cmd) = Bandits::legal(&anywhere, seat).into_iter().find(off_ring) {
            assert!(!Bandits::legal(&st, seat).iter().any(off_ring));
            return Some((k, seat.number(), cmd));
        }
    }
    None
}
