//! Issue 18: the inbox lists exactly the games where the caller must act, most urgent first,
//! and answers 304 while nothing changed.

use homestretch_tests::{Answer, Player, TestApp, spawn_app};
use serde_json::{Value, json};
use std::collections::HashMap;

/// What `player`'s inbox must show: per game waiting for one of their seats, the kinds of its
/// `must` prompts (in prompt order, once each), the version, and the step since which it waits.
#[derive(Clone, Debug, PartialEq)]
struct Waiting {
    kind: String,
    version: u64,
    kinds: Vec<String>,
    since_step: usize,
}

/// The caller's copy of the inbox, sending the last ETag: a 304 means "what you had".
async fn inbox(app: &TestApp, player: &Player, etag: Option<&str>) -> Answer {
    match etag {
        Some(tag) => {
            app.get_if_none_match("/v1/me/inbox", &player.token, tag)
                .await
        }
        None => app.get("/v1/me/inbox", &player.token).await,
    }
}

fn must_kinds(prompts: &Value, seat: u64) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for prompt in prompts.as_array().expect("prompts") {
        if prompt["seat"] == seat && prompt["must"] == true {
            for kind in prompt["kinds"].as_array().expect("kinds") {
                let kind = kind.as_str().expect("kind").to_string();
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        }
    }
    kinds
}

struct Table {
    id: String,
    kind: String,
    /// The players in seat order.
    seats: Vec<usize>,
    /// Every seat's prompts now (`GET …/prompts`, then each command's `next`).
    prompts: Value,
    finished: bool,
}

/// Three players play a whole game of each kind at once, the tests' bot sending a random legal
/// command from a seat the game prompts; after every command each player's inbox must list
/// exactly the games whose prompts say `must` for their seat, with those kinds and the version,
/// ordered by how long the game has waited for them (no clocks here: no deadlines).
#[actix_web::test]
async fn the_inbox_lists_exactly_the_games_each_seat_must_act_in_at_every_step() {
    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.guest().await,
    ];
    // Seats differ per game, so a player's seat number says nothing about the game.
    let plans = [
        ("whisky_race", vec![0, 1, 2]),
        ("bandits", vec![1, 2, 0]),
        ("mush", vec![2, 0, 1]),
    ];
    let mut expected: Vec<HashMap<String, Waiting>> = vec![HashMap::new(); players.len()];
    // Per player: the last ETag and the inbox it was checked to stand for.
    let mut etags: Vec<Option<(String, Value)>> = vec![None; players.len()];
    let mut tables = Vec::new();
    let mut step = 0usize;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for (kind, order) in plans {
        let seated: Vec<Player> = order.iter().map(|&i| players[i].clone()).collect();
        let id = app.started_game(kind, &seated, json!({}), None).await;
        let prompts = app
            .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
            .await
            .ok();
        tables.push(Table {
            id,
            kind: kind.to_string(),
            seats: order,
            prompts,
            finished: false,
        });
        let table = tables.last().expect("table");
        step += 1;
        update(&mut expected, table, &table.prompts, step);
        check(&app, &players, &expected, &mut etags).await;
    }
    let mut commands = 0;
    while tables.iter().any(|t| !t.finished) {
        let open: Vec<usize> = (0..tables.len()).filter(|&t| !tables[t].finished).collect();
        let table = &mut tables[open[next(open.len())]];
        let seats: Vec<u64> = table.prompts["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .filter_map(|p| p["seat"].as_u64())
            .collect();
        assert!(!seats.is_empty(), "{} waits for nobody", table.kind);
        let seat = seats[next(seats.len())];
        let player = &players[table.seats[seat as usize - 1]];
        let mine = app
            .get(&format!("/v1/games/{}/prompts", table.id), &player.token)
            .await
            .ok();
        let legal = mine["legal"].as_array().expect("legal").clone();
        assert!(!legal.is_empty(), "seat {seat} prompted without a command");
        let command = legal[next(legal.len())].clone();
        let answer = app.command(&table.id, player, command.clone()).await;
        assert_eq!(answer.status, 200, "{command}: {}", answer.text);
        commands += 1;
        assert!(commands < 20_000, "the games do not end");
        // The command's answer carries every seat's prompts after it (`next.prompts`).
        table.prompts = answer.body["next"].clone();
        table.finished = table.prompts["prompts"]
            .as_array()
            .is_some_and(Vec::is_empty);
        step += 1;
        update(&mut expected, table, &table.prompts, step);
        check(&app, &players, &expected, &mut etags).await;
    }
    println!("{commands} commands over three games, the inboxes checked after each");
    // Every game is over: every inbox is empty.
    for player in &players {
        let empty = inbox(&app, player, None).await.ok();
        assert_eq!(empty, json!({"count": 0, "games": []}));
    }
}

/// After a change of `table` (its prompts now `prompts` at `prompts.version`), at `step`.
fn update(expected: &mut [HashMap<String, Waiting>], table: &Table, prompts: &Value, step: usize) {
    let version = prompts["version"].as_u64().expect("version");
    for (seat, &player) in table.seats.iter().enumerate() {
        let kinds = must_kinds(&prompts["prompts"], seat as u64 + 1);
        let games = &mut expected[player];
        if kinds.is_empty() {
            games.remove(&table.id);
            continue;
        }
        // A seat still waited for keeps its place in the queue.
        let since_step = games.get(&table.id).map_or(step, |w| w.since_step);
        games.insert(
            table.id.clone(),
            Waiting {
                kind: table.kind.clone(),
                version,
                kinds,
                since_step,
            },
        );
    }
}

async fn check(
    app: &TestApp,
    players: &[Player],
    expected: &[HashMap<String, Waiting>],
    etags: &mut [Option<(String, Value)>],
) {
    for (i, player) in players.iter().enumerate() {
        let mut games: Vec<(&String, &Waiting)> = expected[i].iter().collect();
        games.sort_by_key(|(id, w)| (w.since_step, (*id).clone()));
        let want = json!({
            "count": games.len(),
            "games": games.iter().map(|(id, w)| json!({
                "id": id, "kind": w.kind, "version": w.version, "kinds": w.kinds, "deadline": null,
            })).collect::<Vec<_>>(),
        });
        let last = etags[i].as_ref().map(|(etag, _)| etag.as_str());
        let answer = inbox(app, player, last).await;
        let etag = answer.etag.clone().expect("the inbox has an ETag");
        match answer.status {
            // "Unchanged": right only if the inbox that ETag was checked to be is still the one
            // due (a game moved on without the caller, say).
            304 => {
                let (last, was) = etags[i].as_ref().expect("a 304 answers an ETag sent");
                assert_eq!(&etag, last);
                assert_eq!(was, &want, "304 while the inbox of {} changed", player.name);
            }
            200 => assert_eq!(answer.body, want, "inbox of {}", player.name),
            other => panic!("inbox answered {other}: {}", answer.text),
        }
        etags[i] = Some((etag, want));
    }
}

#[actix_web::test]
async fn an_unchanged_inbox_is_a_304_and_needs_a_token() {
    let app = spawn_app().await;
    let (ann, bob, cy) = (
        app.register("ann").await,
        app.register("bob").await,
        app.guest().await,
    );
    let empty = inbox(&app, &ann, None).await;
    assert_eq!(empty.body, json!({"count": 0, "games": []}));
    let etag = empty.etag.clone().expect("ETag");
    let same = inbox(&app, &ann, Some(&etag)).await;
    assert_eq!(same.status, 304);
    assert!(same.text.is_empty());
    assert_eq!(same.etag.as_deref(), Some(etag.as_str()));
    // A game that waits for ann: the ETag moves and the game is listed.
    let game = app
        .started_game(
            "whisky_race",
            &[ann.clone(), bob.clone(), cy],
            json!({}),
            None,
        )
        .await;
    let now = inbox(&app, &ann, Some(&etag)).await;
    assert_eq!(now.status, 200);
    assert_eq!(now.body["count"], 1, "{}", now.text);
    assert_eq!(now.body["games"][0]["id"], json!(game));
    let unauthenticated = app.request("GET", "/v1/me/inbox", None, None, &[]).await;
    unauthenticated.problem(401);
}

/// The inbox's cost, measured (not run in CI): a user with 50 active games, all waiting for
/// them, polls `GET /v1/me/inbox` 2,000 times, with and without `If-None-Match`. Run:
/// `cargo test -p homestretch-tests --test e2e inbox_latency -- --ignored --nocapture`
#[actix_web::test]
#[ignore]
async fn inbox_latency_for_a_user_with_50_active_games() {
    let app = spawn_app().await;
    let players = [
        app.register("ann").await,
        app.register("bob").await,
        app.guest().await,
    ];
    let ann = players[0].clone();
    for _ in 0..50 {
        app.started_game("whisky_race", &players, json!({}), None)
            .await;
    }
    let first = inbox(&app, &ann, None).await;
    assert_eq!(first.body["count"], 50);
    let etag = first.etag.clone().expect("ETag");
    for (label, conditional) in [
        ("200 (full body)", None),
        ("304 (If-None-Match)", Some(etag.as_str())),
    ] {
        let mut times = Vec::with_capacity(2000);
        for _ in 0..2000 {
            let started = std::time::Instant::now();
            let answer = inbox(&app, &ann, conditional).await;
            times.push(started.elapsed());
            assert!(answer.status == 200 || answer.status == 304);
        }
        times.sort();
        let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
        println!(
            "inbox, 50 active games, {label}: p50 {:?}, p99 {:?}, max {:?} ({} requests, one client, debug build)",
            at(0.50),
            at(0.99),
            times[times.len() - 1],
            times.len()
        );
    }
}

/// In a clocked game (issue 17) the inbox carries the deadline the prompts show, and a seat
/// handed to a bot (here: resigned) leaves its owner's inbox for good.
#[actix_web::test]
async fn a_clocked_game_s_inbox_shows_the_deadline_and_a_resigned_seat_leaves_it() {
    let app = spawn_app().await;
    let players = [app.register("ann").await, app.register("bob").await];
    let id = app
        .started_game(
            "mush",
            &players,
            json!({"clock": {"per_decision_s": 86400, "abandon_after": 3}}),
            None,
        )
        .await;
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
        .await
        .ok();
    let waited = prompts["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .find(|p| p["must"] == true)
        .expect("the game waits for someone")
        .clone();
    let deadline = waited["deadline"]
        .as_str()
        .expect("a clocked prompt has a deadline");
    let seat = waited["seat"].as_u64().unwrap();
    let player = &players[seat as usize - 1];
    let listed = inbox(&app, player, None).await.ok();
    let entry = listed["games"]
        .as_array()
        .expect("games")
        .iter()
        .find(|g| g["id"] == json!(id))
        .expect("the waited-for seat's inbox lists the game")
        .clone();
    assert_eq!(entry["deadline"], json!(deadline));
    app.post(
        &format!("/v1/games/{id}/seats/me/resign"),
        &player.token,
        &json!({}),
    )
    .await
    .ok();
    // Whatever the bot now playing that seat is asked, the person is never asked again.
    for _ in 0..20 {
        let listed = inbox(&app, player, None).await.ok();
        assert!(
            listed["games"]
                .as_array()
                .expect("games")
                .iter()
                .all(|g| g["id"] != json!(id)),
            "a resigned seat is in its owner's inbox: {listed}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}
