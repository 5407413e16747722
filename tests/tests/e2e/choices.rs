//! Issue 15 over HTTP: `choices` in `/prompts` describe exactly what `/commands/check` (and a
//! real send) accept, per game, at positions of real games; checking appends nothing.

use domain::choices::{Family, mutate, sample};
use domain::engine::{Rng, RngExt, seeded};
use homestretch_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};

/// A seat's families, compiled by a maintained JSON Schema 2020-12 validator (`boon`).
struct Validator {
    schemas: boon::Schemas,
    compiled: Vec<boon::SchemaIndex>,
}

impl Validator {
    fn new(families: &[Family]) -> Validator {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let compiled = families
            .iter()
            .enumerate()
            .map(|(i, family)| {
                let url = format!("urn:family:{i}");
                compiler.add_resource(&url, family.schema.clone()).unwrap();
                compiler
                    .compile(&url, &mut schemas)
                    .unwrap_or_else(|e| panic!("family {} does not compile: {e}", family.kind))
            })
            .collect();
        Validator { schemas, compiled }
    }
    fn accepts(&self, command: &Value) -> bool {
        self.compiled
            .iter()
            .any(|index| self.schemas.validate(command, *index).is_ok())
    }
}

async fn check(app: &TestApp, game: &str, player: &Player, command: &Value) -> bool {
    let answer = app
        .post(
            &format!("/v1/games/{game}/commands/check"),
            &player.token,
            &json!({ "command": command }),
        )
        .await;
    match answer.status {
        200 => {
            assert_eq!(answer.body, json!({"accepted": true}));
            true
        }
        422 => {
            answer.problem(422);
            false
        }
        other => panic!("check answered {other}: {}", answer.text),
    }
}

async fn families(app: &TestApp, game: &str, player: &Player) -> (u64, Vec<Family>, Value) {
    let prompts = app
        .get(&format!("/v1/games/{game}/prompts"), &player.token)
        .await
        .ok();
    let families: Vec<Family> = serde_json::from_value(prompts["choices"].clone()).unwrap();
    (prompts["version"].as_u64().unwrap(), families, prompts)
}

/// Plays a real game; at every `every`-th command, for every seat, checks over HTTP that every
/// instance of a family is accepted and that a command some family validates is accepted; with
/// `both_ways`, also that an accepted command is validated by some family (exactness).
async fn exact_over_http(
    kind: &str,
    seats: usize,
    options: Value,
    seed: u64,
    every: usize,
    both_ways: bool,
) {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for _ in 0..seats {
        players.push(app.guest().await);
    }
    let game = app.started_game(kind, &players, options, None).await;
    let mut rng = seeded(seed);
    let (mut sampled, mut compared) = (0, 0);
    for step in 0..5000 {
        let (version, _, overview) = families(&app, &game, &players[0]).await;
        let prompted: Vec<usize> = overview["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["seat"].as_u64().unwrap() as usize)
            .collect();
        if prompted.is_empty() {
            break;
        }
        if step % every == 0 {
            let mut all = Vec::new();
            for player in &players {
                all.push(families(&app, &game, player).await.1);
            }
            // Every seat's instances: candidates for the other seats too.
            let mut instances = Vec::new();
            for list in &all {
                for family in list {
                    for _ in 0..2 {
                        instances.push(sample(&family.schema, &mut rng).expect("an instance"));
                    }
                }
            }
            for (seat, list) in all.iter().enumerate() {
                let player = &players[seat];
                let validator = Validator::new(list);
                // (1) every sampled instance of the seat's own families is accepted.
                for family in list {
                    let instance = sample(&family.schema, &mut rng).unwrap();
                    assert!(
                        check(&app, &game, player, &instance).await,
                        "{kind}: seat {} instance {instance} of {} refused",
                        seat + 1,
                        family.kind
                    );
                    sampled += 1;
                }
                // (2) near misses and other seats' commands: accepted iff some family says so.
                let mut candidates: Vec<Value> = instances
                    .iter()
                    .map(|i| {
                        if rng.below(2) == 0 {
                            i.clone()
                        } else {
                            mutate(i, &mut rng)
                        }
                    })
                    .collect();
                candidates.push(json!({"type": "no_such_command"}));
                for candidate in candidates.iter().take(24) {
                    let expected = validator.accepts(candidate);
                    let accepted = check(&app, &game, player, candidate).await;
                    assert!(
                        accepted == expected || (!both_ways && accepted),
                        "{kind}: seat {} command {candidate}: /check says {accepted}, choices {expected}",
                        seat + 1
                    );
                    compared += 1;
                }
            }
            // Checking appended nothing.
            let (after, _, _) = families(&app, &game, &players[0]).await;
            assert_eq!(after, version, "a check appended events");
        }
        // Move on: a prompted seat sends an instance of one of its families; the check of that
        // very command (throwaway RNG) agrees with the real send (the game's RNG).
        let seat = prompted[rng.index(prompted.len())];
        let player = &players[seat - 1];
        let (_, list, _) = families(&app, &game, player).await;
        let musts: Vec<&Family> = list.iter().filter(|f| !f.kind.contains("trade")).collect();
        let pool: Vec<&Family> = if musts.is_empty() {
            list.iter().collect()
        } else {
            musts
        };
        let family = pool[rng.index(pool.len())];
        let command = sample(&family.schema, &mut rng).unwrap();
        assert!(check(&app, &game, player, &command).await);
        let sent = app.command(&game, player, command.clone()).await;
        assert_eq!(
            sent.status, 200,
            "{command} checked but refused: {}",
            sent.text
        );
    }
    assert!(sampled > 10 && compared > 50, "{sampled} {compared}");
}

#[actix_web::test]
async fn whisky_race_choices_are_sound_over_http() {
    exact_over_http("whisky_race", 3, json!({}), 1, 12, false).await;
}

#[actix_web::test]
async fn bandits_choices_are_sound_over_http() {
    exact_over_http("bandits", 3, json!({"pawns_per_player": 2}), 2, 6, false).await;
}

#[actix_web::test]
async fn mush_choices_are_sound_over_http() {
    exact_over_http("mush", 3, json!({"layout": "first_game"}), 3, 12, false).await;
}

// Exactness both ways (issue 15): mutations, other seats' commands and out-of-range values are
// accepted by `/commands/check` exactly when some family of the caller validates them.
#[actix_web::test]
async fn whisky_race_choices_are_exact_over_http() {
    exact_over_http("whisky_race", 3, json!({}), 1, 12, true).await;
}

#[actix_web::test]
async fn bandits_choices_are_exact_over_http() {
    exact_over_http("bandits", 3, json!({"pawns_per_player": 2}), 2, 6, true).await;
}

#[actix_web::test]
async fn mush_choices_are_exact_over_http() {
    exact_over_http("mush", 3, json!({"layout": "first_game"}), 3, 12, true).await;
}

/// The check answers what a send would: 409 on a stale version, 403 for a spectator, the
/// same 422 problem (rule included) as a real send, and nothing is appended.
#[actix_web::test]
async fn a_check_answers_like_a_send_without_appending() {
    let app = spawn_app().await;
    let players = vec![app.guest().await, app.guest().await, app.guest().await];
    let game = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let (version, list, _) = families(&app, &game, &players[0]).await;
    let command = sample(&list[0].schema, &mut seeded(1)).unwrap();
    let stale = app
        .post(
            &format!("/v1/games/{game}/commands/check"),
            &players[0].token,
            &json!({"command": command, "expected_version": version - 1}),
        )
        .await;
    stale.problem(409);
    let spectator = app.guest().await;
    app.post(
        &format!("/v1/games/{game}/commands/check"),
        &spectator.token,
        &json!({"command": command}),
    )
    .await
    .problem(403);
    let bad = json!({"type": "submit_malt_choice", "amount": 99});
    let checked = app
        .post(
            &format!("/v1/games/{game}/commands/check"),
            &players[0].token,
            &json!({"command": bad}),
        )
        .await;
    let sent = app.command(&game, &players[0], bad).await;
    assert_eq!(checked.problem(422)["rule"], sent.problem(422)["rule"]);
    assert_eq!(checked.body["detail"], sent.body["detail"]);
    // unknown fields in the check body are refused
    app.post(
        &format!("/v1/games/{game}/commands/check"),
        &players[0].token,
        &json!({"command": command, "extra": 1}),
    )
    .await
    .problem(422);
    assert_eq!(families(&app, &game, &players[0]).await.0, version);
}

/// `/prompts` answers 304 to its own ETag, and 200 once the game moved on.
#[actix_web::test]
async fn prompts_answer_304_to_a_matching_if_none_match() {
    let app = spawn_app().await;
    let players = vec![app.guest().await, app.guest().await, app.guest().await];
    let game = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let path = format!("/v1/games/{game}/prompts");
    let first = app.get(&path, &players[0].token).await;
    let etag = first.etag.clone().expect("an ETag");
    let again = app
        .request(
            "GET",
            &path,
            Some(&players[0].token),
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.status, 304);
    assert!(again.text.is_empty());
    let other = app
        .request(
            "GET",
            &path,
            Some(&players[0].token),
            None,
            &[("if-none-match", "\"999999\"")],
        )
        .await;
    assert_eq!(other.status, 200);
}
