//! Mush errata MU-162 … MU-168 (issue 14) over real HTTP and a real PostgreSQL.
//!
//! Positions are reached by playing, not by editing a database: each test fixes the game's
//! `rng_seed` (as an admin may) and first plays the game in the domain with the same seeds the
//! server derives (a *mirror*), choosing commands with a small goal-driven policy and trying seeds
//! until the position it needs is reached. The planned commands are then sent over HTTP; every
//! answer must be a 200 with the same events as the mirror, so the server really is in the planned
//! position, and the assertions read the server's answers and views.

use domain::engine::{ChaChaRng, Seat, Viewer};
use domain::mush::board::{self, SegmentId, SpaceId};
use domain::{AnyGame, AnyState};
use homestretch_tests::{Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The server's game, replayed in process with the server's seeds (`api::application`: the server
/// seed is SHA-256 of the admin's `rng_seed`, every client seed is empty, and each command's
/// stream is keyed by the version before it).
struct Mirror {
    game: &'static dyn AnyGame,
    state: Box<dyn AnyState>,
    version: u64,
    server_seed: [u8; 32],
    client_seeds: Vec<String>,
    /// Every command sent: (seat, command, the event types it produced).
    log: Vec<(u8, Value, Vec<String>)>,
}

impl Mirror {
    fn start(rng_seed: &str, seats: u8, options: &Value) -> Mirror {
        let game = domain::game("mush").expect("mush");
        let server_seed: [u8; 32] = Sha256::digest(rng_seed.as_bytes()).into();
        let client_seeds = vec![String::new(); usize::from(seats)];
        let options = game.normalize_options(options).expect("options");
        let mut rng = ChaChaRng::for_command(&server_seed, &client_seeds, 0);
        let mut state = game.new_state();
        let events = game.setup(&options, seats, &mut rng).expect("setup");
        for e in &events {
            state
                .apply(&e.payload, game.event_schema_version())
                .unwrap();
        }
        Mirror {
            game,
            state,
            version: events.len() as u64,
            server_seed,
            client_seeds,
            log: Vec::new(),
        }
    }

    fn try_send(&self, seat: u8, command: &Value) -> Result<Vec<domain::EventData>, String> {
        let mut rng = ChaChaRng::for_command(&self.server_seed, &self.client_seeds, self.version);
        self.state
            .decide(Seat::new(seat).unwrap(), command, &mut rng)
            .map_err(|e| match e {
                domain::Rejection::Rule(v) => v.rule.to_string(),
                other => other.to_string(),
            })
    }

    fn send(&mut self, seat: u8, command: Value) {
        let events = self
            .try_send(seat, &command)
            .unwrap_or_else(|e| panic!("planned {command} from seat {seat} refused: {e}"));
        for e in &events {
            self.state
                .apply(&e.payload, self.game.event_schema_version())
                .unwrap();
        }
        self.version += events.len() as u64;
        let kinds = events.iter().map(|e| e.kind.clone()).collect();
        self.log.push((seat, command, kinds));
    }

    fn view(&self) -> Value {
        self.state.view(Viewer::Spectator)
    }

    fn legal(&self, seat: u8) -> Vec<Value> {
        self.state.legal(Seat::new(seat).unwrap())
    }

    /// The lowest prompted seat, if anyone is prompted.
    fn next_seat(&self) -> Option<u8> {
        self.state.prompts().iter().map(|p| p.seat.number()).min()
    }

    fn player(&self, seat: u8) -> Value {
        self.view()["players"][usize::from(seat - 1)].clone()
    }

    fn space(&self, seat: u8) -> String {
        self.player(seat)["space"].as_str().unwrap().to_string()
    }
}

/// Steps from every space to `target` in a layout (u16::MAX: unreachable).
fn distances_to(layout: &[SegmentId], target: &str) -> Vec<u16> {
    let graph = board::graph(board::layout_index(layout).expect("legal layout") as u8);
    let target = SpaceId::of(target);
    let mut dist = vec![u16::MAX; graph.out.len()];
    dist[target.index()] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for (i, outs) in graph.out.iter().enumerate() {
            if let Some(best) = outs
                .iter()
                .map(|t| dist[t.index()])
                .filter(|d| *d != u16::MAX)
                .min()
                && best + 1 < dist[i]
            {
                dist[i] = best + 1;
                changed = true;
            }
        }
    }
    dist
}

fn of_type<'a>(legal: &'a [Value], kind: &str) -> Vec<&'a Value> {
    legal.iter().filter(|c| c["type"] == kind).collect()
}

/// The answer of a seat that only waits: pass every window, bid 0, skip the early step, take
/// the first legal training.
fn idle(legal: &[Value]) -> Option<Value> {
    for kind in [
        "pass_reroll",
        "pass_reduction",
        "skip_early_riser",
        "choose_training",
    ] {
        if let Some(c) = of_type(legal, kind).first() {
            return Some((*c).clone());
        }
    }
    of_type(legal, "submit_bid")
        .into_iter()
        .find(|c| c["amount"] == 0)
        .cloned()
}

/// In movement: the step that brings the sled nearest to its target (the largest modifier for
/// a roll); `end_movement` when none gets nearer.
fn toward(m: &Mirror, seat: u8, legal: &[Value], dist: &[u16]) -> Value {
    let d = |space: &str| dist[SpaceId::of(space).index()];
    let here = d(&m.space(seat));
    of_type(legal, "step")
        .into_iter()
        .filter(|c| d(c["to"].as_str().unwrap()) < here)
        .min_by_key(|c| {
            (
                d(c["to"].as_str().unwrap()),
                u64::MAX - c["modifier"].as_u64().unwrap(),
            )
        })
        .cloned()
        .unwrap_or_else(|| json!({"type": "end_movement"}))
}

fn rest(option: &str) -> Value {
    json!({"type": "declare_rest", "option": option})
}

/// Plays `policy` (asked for every turn-start and movement decision; every other prompt is
/// answered by [`idle`]) until `done`, trying the seeds `{name}-0`, `{name}-1`, …
fn plan(
    name: &str,
    seats: u8,
    options: &Value,
    max_commands: usize,
    mut policy: impl FnMut(&Mirror, u8, &[Value]) -> Value,
    done: impl Fn(&Mirror) -> bool,
) -> (String, Mirror) {
    for attempt in 0..40 {
        let seed = format!("{name}-{attempt}");
        let mut m = Mirror::start(&seed, seats, options);
        for _ in 0..max_commands {
            if done(&m) {
                return (seed, m);
            }
            let Some(seat) = m.next_seat() else { break };
            let legal = m.legal(seat);
            let phase = m.view()["phase"].as_str().unwrap().to_string();
            let command = match phase.as_str() {
                "turn_start" | "movement" => policy(&m, seat, &legal),
                _ => idle(&legal).expect("an idle answer"),
            };
            m.send(seat, command);
        }
    }
    panic!("{name}: no seed reached the position");
}

/// Admin host (only admins may fix `rng_seed`) and two more players.
async fn table(app: &TestApp, seats: usize) -> Vec<Player> {
    let mut players = vec![app.admin("root-admin").await];
    for i in 1..seats {
        players.push(app.register(&format!("musher{i}")).await);
    }
    players
}

/// Sends the mirror's commands over HTTP: each must be a 200 with the same events (plus the
/// server's own `server_seed_revealed` when a game ends).
async fn replay(app: &TestApp, id: &str, players: &[Player], m: &Mirror) {
    let mut server_events = 0;
    for (seat, command, kinds) in &m.log {
        let answer = app
            .command(id, &players[usize::from(*seat) - 1], command.clone())
            .await;
        assert_eq!(answer.status, 200, "{command}: {}", answer.text);
        let got: Vec<&str> = answer.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .filter(|kind| {
                let ours = *kind == "server_seed_revealed";
                server_events += u64::from(ours);
                !ours
            })
            .collect();
        assert_eq!(got, *kinds, "{command}: the server and the mirror differ");
    }
    let view = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(
        view["version"],
        m.version + server_events,
        "versions differ"
    );
}

async fn start(app: &TestApp, players: &[Player], options: Value, seed: &str) -> String {
    app.started_game("mush", players, options, Some(seed)).await
}

async fn view(app: &TestApp, id: &str, player: &Player) -> Value {
    app.get(&format!("/v1/games/{id}"), &player.token)
        .await
        .ok()["view"]
        .clone()
}

fn rested_of(answer: &Value) -> Value {
    answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "rested")
        .map(|e| e["data"].clone())
        .expect("a rested event")
}

/// MU-162: every rest option id, in the spec's spelling, is accepted over HTTP (each in a place
/// that offers it); serde's old spelling is a malformed command.
#[actix_web::test]
async fn mu162_every_rest_option_id_is_accepted_over_http() {
    let layout = vec![SegmentId::Anchorage, SegmentId::Koyuk, SegmentId::Nome];
    let options = json!({"layout": ["anchorage", "koyuk", "nome"]});
    let to_eagle = distances_to(&layout, "anc_b2");
    let to_unalakleet = distances_to(&layout, "koy_c4");
    let to_mountain = distances_to(&layout, "anc_a6");
    // Each seat's rests still to take, in order, and where.
    let wants = |seat: u8| -> Vec<&'static str> {
        match seat {
            1 => vec![
                "draw_1",
                "remove_3",
                "draw_6",
                "remove_2_draw_2",
                "remove_1_draw_4",
            ],
            2 => vec![
                "remove_1",
                "draw_2",
                "remove_2",
                "draw_4",
                "remove_1_draw_2",
            ],
            _ => vec!["stranded_recover"],
        }
    };
    // The wanted options a seat has not rested with yet.
    let missing = |m: &Mirror, seat: u8| -> Vec<&'static str> {
        wants(seat)
            .into_iter()
            .filter(|o| !m.log.iter().any(|(s, c, _)| *s == seat && c == &rest(o)))
            .collect()
    };
    let (seed, m) = plan(
        "mu162",
        3,
        &options,
        4000,
        |m, seat, legal| {
            let next = missing(m, seat).first().copied();
            let offered = |o: &str| legal.contains(&rest(o));
            if let Some(o) = next.filter(|o| offered(o)) {
                // Seat 2 takes its wilderness rests on the way, seat 1 its Eagle River ones
                // there, seat 3 its stranded rest when stranded.
                let here = m.space(seat);
                let place_ok = match (seat, o) {
                    (2, "remove_1" | "draw_2") => here != "ANCHORAGE",
                    _ => true,
                };
                if place_ok {
                    return rest(o);
                }
            }
            if m.view()["phase"] == "movement" {
                let dist = match seat {
                    1 => &to_eagle,
                    2 => &to_unalakleet,
                    _ => &to_mountain,
                };
                // Seat 3 stays on the mountain once there: it tires its dogs until stranded.
                if seat == 3 && m.space(3) == "anc_a6" {
                    return json!({"type": "end_movement"});
                }
                return toward(m, seat, legal, dist);
            }
            if legal.contains(&json!({"type": "declare_move"})) && next.is_some() {
                return json!({"type": "declare_move"});
            }
            // Done (or forced to rest): any rest, else move and stop at once.
            of_type(legal, "declare_rest")
                .first()
                .map(|c| (*c).clone())
                .unwrap_or_else(|| json!({"type": "declare_move"}))
        },
        |m| (1..=3).all(|seat| missing(m, seat).is_empty()),
    );
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    let id = start(&app, &players, options, &seed).await;
    // Replay, keeping every rest's answer.
    let mut rests = Vec::new();
    for (seat, command, kinds) in &m.log {
        let player = &players[usize::from(*seat) - 1];
        if command["type"] == "declare_rest" {
            // The old serde spelling is not a command at all.
            let old = command["option"].as_str().unwrap().replace('_', "");
            if old != command["option"].as_str().unwrap() {
                let wrong = app.command(&id, player, rest(&old)).await;
                assert_eq!(
                    wrong.problem(422)["rule"],
                    Value::Null,
                    "{old}: {}",
                    wrong.text
                );
            }
        }
        let answer = app.command(&id, player, command.clone()).await;
        assert_eq!(answer.status, 200, "{command}: {}", answer.text);
        let got: Vec<&str> = answer.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(got, *kinds, "{command}");
        if command["type"] == "declare_rest" {
            rests.push(rested_of(&answer.body));
        }
    }
    let ids: std::collections::BTreeSet<&str> = rests
        .iter()
        .map(|r| r["option"].as_str().unwrap())
        .collect();
    let all = [
        "draw_1",
        "remove_1",
        "remove_2",
        "draw_4",
        "remove_1_draw_2",
        "remove_3",
        "draw_6",
        "remove_2_draw_2",
        "remove_1_draw_4",
        "draw_2",
        "stranded_recover",
    ];
    assert_eq!(ids, all.into_iter().collect());
    // MU-163: Unalakleet's draw_4 draws 4, Eagle River's options are given in full.
    assert!(
        rests
            .iter()
            .any(|r| r["option"] == "draw_4" && r["drawn"] == 4)
    );
    assert!(
        rests
            .iter()
            .any(|r| r["option"] == "remove_1_draw_4" && r["drawn"] == 4)
    );
}

/// MU-163: resting in Eagle River with `draw_6` draws 6 (the reconstructed sign said 4).
#[actix_web::test]
async fn mu163_resting_in_eagle_river_with_draw_6_draws_6_over_http() {
    let layout = board::data().first_game_layout.clone();
    let to_eagle = distances_to(&layout, "anc_b2");
    let (seed, m) = plan(
        "mu163",
        2,
        &json!({"layout": "first_game"}),
        2000,
        |m, seat, legal| match (seat, m.view()["phase"].as_str().unwrap()) {
            (1, "movement") => toward(m, 1, legal, &to_eagle),
            (1, _)
                if m.space(1) != "anc_b2" && legal.contains(&json!({"type": "declare_move"})) =>
            {
                json!({"type": "declare_move"})
            }
            _ => of_type(legal, "declare_rest")[0].clone(),
        },
        |m| m.space(1) == "anc_b2" && m.view()["phase"] == "turn_start" && m.view()["active"] == 1,
    );
    let app = spawn_app().await;
    let players = table(&app, 2).await;
    let id = start(&app, &players, json!({"layout": "first_game"}), &seed).await;
    replay(&app, &id, &players, &m).await;
    let before = view(&app, &id, &players[0]).await["players"][0]["tokens"]
        .as_u64()
        .unwrap();
    let answer = app.command(&id, &players[0], rest("draw_6")).await.ok();
    let rested = rested_of(&answer);
    assert_eq!(
        (rested["option"].clone(), rested["drawn"].clone()),
        (json!("draw_6"), json!(6))
    );
    let after = view(&app, &id, &players[0]).await["players"][0]["tokens"]
        .as_u64()
        .unwrap();
    assert_eq!(after, before + 6);
}

/// MU-165: resting in Anchorage draws 1 token and removes no fatigue.
#[actix_web::test]
async fn mu165_resting_in_anchorage_removes_no_fatigue_over_http() {
    // Seat 1 declares a move and stops at once: still in Anchorage with one tired dog.
    let (seed, m) = plan(
        "mu165",
        2,
        &json!({"layout": "first_game"}),
        500,
        |m, seat, legal| match (seat, m.view()["phase"].as_str().unwrap()) {
            (1, "movement") => json!({"type": "end_movement"}),
            (1, _) if m.player(1)["fatigue"] == 0 => json!({"type": "declare_move"}),
            _ => of_type(legal, "declare_rest")[0].clone(),
        },
        |m| {
            m.player(1)["fatigue"] == 1
                && m.view()["phase"] == "turn_start"
                && m.view()["active"] == 1
        },
    );
    let app = spawn_app().await;
    let players = table(&app, 2).await;
    let id = start(&app, &players, json!({"layout": "first_game"}), &seed).await;
    replay(&app, &id, &players, &m).await;
    let me = &view(&app, &id, &players[0]).await["players"][0];
    assert_eq!(
        (me["space"].clone(), me["fatigue"].clone()),
        (json!("ANCHORAGE"), json!(1))
    );
    let tokens = me["tokens"].as_u64().unwrap();
    let refused = app.command(&id, &players[0], rest("remove_1")).await;
    assert_eq!(refused.problem(422)["rule"], "MU-165");
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
        .await
        .ok();
    let all = commands_of(&prompts);
    let rests: Vec<&Value> = of_type(&all, "declare_rest");
    assert_eq!(rests, vec![&rest("draw_1")]);
    let answer = app.command(&id, &players[0], rest("draw_1")).await.ok();
    let rested = rested_of(&answer);
    assert_eq!(
        (rested["removed"].clone(), rested["drawn"].clone()),
        (json!(0), json!(1))
    );
    let me = &view(&app, &id, &players[0]).await["players"][0];
    assert_eq!(me["fatigue"], 1);
    assert_eq!(me["tokens"].as_u64().unwrap(), tokens + 1);
}

/// MU-164: a sled standing in a village can only be passed with the overtaking right.
#[actix_web::test]
async fn mu164_passing_a_sled_in_a_village_requires_the_overtaking_right_over_http() {
    let layout = board::data().first_game_layout.clone();
    let to_eagle = distances_to(&layout, "anc_b2");
    let to_b3 = distances_to(&layout, "anc_b3");
    // Seat 2 goes to Eagle River and waits there; seat 1 waits in Anchorage, then, with at
    // least 3 points and 4 tokens, runs into Eagle River and stops in front of the pass.
    let (seed, m) = plan(
        "mu164",
        3,
        &json!({"layout": "first_game"}),
        3000,
        |m, seat, legal| {
            let phase = m.view()["phase"].as_str().unwrap().to_string();
            match (seat, phase.as_str()) {
                (2, "movement") => toward(m, 2, legal, &to_eagle),
                (2, _)
                    if m.space(2) != "anc_b2"
                        && legal.contains(&json!({"type": "declare_move"})) =>
                {
                    json!({"type": "declare_move"})
                }
                // From Anchorage, run only with the 3 points the pass needs.
                (1, "movement")
                    if m.space(1) == "ANCHORAGE"
                        && m.view()["movement"]["movement_points"].as_u64().unwrap() < 3 =>
                {
                    json!({"type": "end_movement"})
                }
                (1, "movement") => toward(m, 1, legal, &to_b3),
                (1, _)
                    if m.space(2) == "anc_b2"
                        && m.space(1) == "ANCHORAGE"
                        && m.player(1)["tokens"].as_u64().unwrap() >= 4
                        && legal.contains(&json!({"type": "declare_move"})) =>
                {
                    json!({"type": "declare_move"})
                }
                _ => of_type(legal, "declare_rest")[0].clone(),
            }
        },
        |m| {
            // Seat 1 has just entered Eagle River (where seat 2 stands) with points left.
            m.view()["phase"] == "movement"
                && m.view()["active"] == 1
                && m.space(1) == "anc_b2"
                && m.space(2) == "anc_b2"
                && m.view()["movement"]["movement_points"].as_u64().unwrap() >= 1
        },
    );
    // The mirror agrees the pass needs the right.
    assert_eq!(
        m.try_send(1, &json!({"type": "step", "to": "anc_b3", "modifier": 0})),
        Err("MU-164".to_string())
    );
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    let id = start(&app, &players, json!({"layout": "first_game"}), &seed).await;
    replay(&app, &id, &players, &m).await;
    let pass = json!({"type": "step", "to": "anc_b3", "modifier": 0});
    let refused = app.command(&id, &players[0], pass.clone()).await;
    assert_eq!(refused.problem(422)["rule"], "MU-164");
    let tokens = view(&app, &id, &players[0]).await["players"][0]["tokens"]
        .as_u64()
        .unwrap();
    app.command(&id, &players[0], json!({"type": "buy_overtake"}))
        .await
        .ok();
    let moved = app.command(&id, &players[0], pass).await.ok();
    assert!(
        moved["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "sled_moved" && e["data"]["to"] == "anc_b3")
    );
    let me = &view(&app, &id, &players[0]).await["players"][0];
    assert_eq!(me["space"], "anc_b3");
    assert_eq!(me["tokens"].as_u64().unwrap(), tokens - 4);
}

/// MU-166: two opponents pool their tokens to remove one die of the mover.
#[actix_web::test]
async fn mu166_opponents_pool_tokens_to_remove_a_die_over_http() {
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    let id = start(&app, &players, json!({"layout": "first_game"}), "mu166").await;
    // Play idly up to the first turn (every answer from the server's own legal lists).
    let active = loop {
        let p = app
            .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
            .await
            .ok();
        let seat = p["prompts"][0]["seat"].as_u64().unwrap() as usize;
        let kinds = p["prompts"][0]["kinds"].as_array().unwrap();
        if kinds.contains(&json!("declare_move")) {
            break seat;
        }
        let mine = app
            .get(&format!("/v1/games/{id}/prompts"), &players[seat - 1].token)
            .await
            .ok();
        let command = idle(mine["legal"].as_array().unwrap()).expect("idle answer");
        app.command(&id, &players[seat - 1], command).await.ok();
    };
    let mover = &players[active - 1];
    let declared = app
        .command(&id, mover, json!({"type": "declare_move"}))
        .await
        .ok();
    let d0 = declared["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "move_declared")
        .map(|e| e["data"]["dice"].as_u64().unwrap())
        .unwrap();
    let left = active % 3 + 1;
    let right = left % 3 + 1;
    // The left neighbour is asked first; its legal list offers every amount up to the cap.
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[left - 1].token)
        .await
        .ok();
    assert_eq!(prompts["prompts"][0]["seat"], left);
    let mut amounts: Vec<u64> = of_type(&commands_of(&prompts), "reduce_dice")
        .iter()
        .map(|c| c["tokens"].as_u64().unwrap())
        .collect();
    amounts.sort_unstable();
    assert_eq!(amounts, (1..=6).collect::<Vec<_>>());
    let one = json!({"type": "reduce_dice", "tokens": 1});
    let paid = app.command(&id, &players[left - 1], one.clone()).await.ok();
    assert_eq!(paid["events"][0]["type"], "tokens_pooled");
    let pool = &view(&app, &id, &players[0]).await["reduction"];
    assert_eq!(
        (pool["pooled"].clone(), pool["reduced"].clone()),
        (json!(1), json!(0))
    );
    app.command(&id, &players[right - 1], one).await.ok();
    app.command(&id, &players[left - 1], json!({"type": "pass_reduction"}))
        .await
        .ok();
    let closed = app
        .command(&id, &players[right - 1], json!({"type": "pass_reduction"}))
        .await
        .ok();
    let event = closed["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "reduction_closed")
        .expect("the window closed")["data"]
        .clone();
    assert_eq!(
        event,
        json!({"type": "reduction_closed", "reduced": 1, "dice": d0 - 1})
    );
    let v = view(&app, &id, &players[0]).await;
    let tokens = |seat: usize| v["players"][seat - 1]["tokens"].as_u64().unwrap();
    assert_eq!((tokens(left), tokens(right)), (19, 19));
    assert_eq!(v["movement"]["reduced"], 1);
}

/// MU-167: the first-trainer roll can be re-rolled for 3 tokens.
#[actix_web::test]
async fn mu167_the_first_trainer_roll_can_be_rerolled_over_http() {
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    let id = start(&app, &players, json!({}), "mu167").await;
    let v = view(&app, &id, &players[0]).await;
    assert_eq!(
        (v["phase"].clone(), v["reroll"]["roll"].clone()),
        (json!("reroll_window"), json!("first_trainer"))
    );
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
        .await
        .ok();
    assert_eq!(prompts["prompts"][0]["seat"], 1);
    assert!(commands_of(&prompts).contains(&json!({"type": "buy_reroll"})));
    let answer = app
        .command(&id, &players[0], json!({"type": "buy_reroll"}))
        .await
        .ok();
    let kinds: Vec<&str> = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reroll_bought", "first_trainer_rolled"]);
    let rolled = &answer["events"][1]["data"];
    assert_eq!(rolled["attempt"], 2);
    let v = view(&app, &id, &players[0]).await;
    assert_eq!(v["players"][0]["tokens"], 17);
    assert_eq!(v["reroll"]["attempt"], 2);
    assert_eq!(v["training_chooser"], rolled["seat"]);
}

/// A race on the two-segment layout (MU-168) planned in the mirror: everyone moves when a dog
/// is fresh and rests otherwise, until a sled enters Nome.
fn two_segment_race(name: &str) -> (Value, String, Mirror) {
    let layout = vec![SegmentId::Anchorage, SegmentId::Nome];
    let options = json!({"layout": ["anchorage", "nome"]});
    let to_nome = distances_to(&layout, "NOME");
    let (seed, m) = plan(
        name,
        3,
        &options,
        5000,
        |m, seat, legal| {
            if m.view()["phase"] == "movement" {
                return toward(m, seat, legal, &to_nome);
            }
            if legal.contains(&json!({"type": "declare_move"}))
                && m.player(seat)["fatigue"].as_u64().unwrap() < 6
            {
                return json!({"type": "declare_move"});
            }
            of_type(legal, "declare_rest")
                .first()
                .map(|c| (*c).clone())
                .unwrap_or_else(|| json!({"type": "declare_move"}))
        },
        |m| m.view()["phase"] == "game_over",
    );
    (options, seed, m)
}

/// MU-168: a two-segment layout is accepted and a whole race is played on it.
#[actix_web::test]
async fn mu168_a_two_segment_layout_is_accepted_and_plays_over_http() {
    let (options, seed, m) = two_segment_race("mu168");
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    let id = start(&app, &players, options, &seed).await;
    let game = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(game["view"]["layout"], json!(["anchorage", "nome"]));
    replay(&app, &id, &players, &m).await;
    let done = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(done["status"], "finished");
    let winner = done["view"]["winner"].as_u64().unwrap() as usize;
    assert_eq!(done["view"]["players"][winner - 1]["space"], "NOME");
}

/// MU-152 (issue 27): Mush ranks only its winner. When the race ends every player gets
/// `game_finished` with no place — the losers are told they did not win (on main they were
/// told they came 2nd, a place made up from scores) — in their own language.
#[actix_web::test]
async fn mu152_the_losers_are_told_they_did_not_win_in_english_and_french() {
    let (options, seed, m) = two_segment_race("mu152");
    let app = spawn_app().await;
    let players = table(&app, 3).await;
    // Seat 2 reads French (its stored preference), the others English.
    app.request(
        "PATCH",
        "/v1/me",
        Some(&players[1].token),
        Some(&json!({"language": "fr"})),
        &[],
    )
    .await
    .ok();
    let id = start(&app, &players, options, &seed).await;
    replay(&app, &id, &players, &m).await;
    let done = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(done["outcome"].get("places"), None, "{}", done["outcome"]);
    let winner = done["view"]["winner"].as_u64().unwrap();
    let mut losers = 0;
    for (i, player) in players.iter().enumerate() {
        let seat = i as u64 + 1;
        let page = app
            .get("/v1/me/notifications?after=0&limit=500", &player.token)
            .await
            .ok();
        let finished: Vec<&Value> = page["notifications"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| &n["notification"])
            .filter(|n| n["type"] == "game_finished" && n["game_id"] == id.as_str())
            .collect();
        assert_eq!(finished.len(), 1, "{page}");
        let note = finished[0];
        assert_eq!(note.get("place"), None, "no place is made up: {note}");
        let (result, body) = match (seat == winner, seat == 2) {
            (true, false) => ("won", "The game mush is over: you won."),
            (false, false) => ("not_won", "The game mush is over: you did not win."),
            (true, true) => ("won", "La partie mush est terminée : vous avez gagné."),
            (false, true) => (
                "not_won",
                "La partie mush est terminée : vous n'avez pas gagné.",
            ),
        };
        assert_eq!(note["result"], result, "{note}");
        assert_eq!(note["body"], body, "{note}");
        losers += usize::from(seat != winner);
    }
    assert_eq!(losers, 2);
}

/// MU-162: commands reject unknown fields with a 422 problem, and nothing is recorded.
#[actix_web::test]
async fn mu162_a_command_with_an_unknown_field_is_a_422() {
    let app = spawn_app().await;
    let players = table(&app, 2).await;
    let id = start(&app, &players, json!({}), "mu162-fields").await;
    let before = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok()["version"]
        .clone();
    for bad in [
        json!({"type": "pass_reroll", "tokens": 3}),
        json!({"type": "buy_reroll", "for": 2}),
        json!({"type": "declare_rest", "option": "draw_1", "note": "x"}),
    ] {
        let answer = app.command(&id, &players[0], bad.clone()).await;
        let problem = answer.problem(422);
        assert!(
            problem["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("unknown field"),
            "{bad}: {}",
            answer.text
        );
    }
    let after = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok()["version"]
        .clone();
    assert_eq!(before, after);
    app.command(&id, &players[0], json!({"type": "pass_reroll"}))
        .await
        .ok();
}
