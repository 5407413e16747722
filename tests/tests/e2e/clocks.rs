//! Issue 17 over real HTTP and a real PostgreSQL: lobbies that do not rot, bots in seats,
//! resigning, clocks with timeouts and default moves, abandonment, and deadlines that fire
//! exactly once across instances and restarts.

use api::application::{ClockConfig, Services};
use homestretch_tests::{Player, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn delete(app: &TestApp, path: &str, player: &Player) -> u16 {
    app.request("DELETE", path, Some(&player.token), None, &[])
        .await
        .status
}

async fn game(app: &TestApp, id: &str, player: &Player) -> Value {
    app.get(&format!("/v1/games/{id}"), &player.token)
        .await
        .ok()
}

/// The whole log of game `id` as `player` reads it, page after page.
pub(crate) async fn events(app: &TestApp, id: &str, player: &Player) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let page = app
            .get(
                &format!("/v1/games/{id}/events?after={}", all.len()),
                &player.token,
            )
            .await
            .ok();
        let batch = page["events"].as_array().expect("events").clone();
        if batch.is_empty() {
            return all;
        }
        all.extend(batch);
    }
}

/// Plays `player`'s seat with random legal commands whenever the game waits for it, until the
/// game is finished (bots play the other seats). Panics after `limit`.
async fn play_until_finished(app: &TestApp, id: &str, player: &Player, limit: Duration) {
    let started = Instant::now();
    let mut pick = 7usize;
    loop {
        let summary = game(app, id, player).await;
        if started.elapsed() > limit {
            let prompts = app
                .get(&format!("/v1/games/{id}/prompts"), &player.token)
                .await
                .ok();
            panic!(
                "game {id} not over after {limit:?}: version {}, seats {}, prompts {}",
                summary["version"], summary["seats"], prompts["prompts"]
            );
        }
        if summary["status"] == "finished" {
            return;
        }
        let mine = app
            .get(&format!("/v1/games/{id}/prompts"), &player.token)
            .await
            .ok();
        let my_seat = summary["your_seat"].as_u64();
        let waited = mine["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .any(|p| p["must"] == true && p["seat"].as_u64() == my_seat);
        let legal = mine["legal"].as_array().cloned().unwrap_or_default();
        if waited && !legal.is_empty() {
            // A random kind, then a random command of it (as the random bot plays).
            let tag = |c: &Value| c["type"].as_str().unwrap_or("").to_string();
            let mut kinds: Vec<String> = legal.iter().map(tag).collect();
            kinds.sort();
            kinds.dedup();
            pick = pick.wrapping_mul(31).wrapping_add(17);
            let kind = &kinds[(pick / 7) % kinds.len()];
            let of_kind: Vec<&Value> = legal.iter().filter(|c| &tag(c) == kind).collect();
            let command = of_kind[pick % of_kind.len()].clone();
            let answer = app.command(id, player, command.clone()).await;
            // A bot may have moved meanwhile (a may-prompt seat): only a refusal of a legal
            // command at an unchanged version would be a bug, and the audit checks the log.
            assert!(
                answer.status == 200 || answer.status == 422 || answer.status == 409,
                "{command}: {}",
                answer.text
            );
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn audit_is_sound(app: &TestApp, id: &str, player: &Player) {
    let audit = app
        .get(&format!("/v1/games/{id}/audit"), &player.token)
        .await
        .ok();
    assert_eq!(audit["sound"], true, "{audit}");
    let bundle: infra::audit::Bundle = serde_json::from_value(
        app.get(&format!("/v1/games/{id}/export"), &player.token)
            .await
            .ok(),
    )
    .expect("a bundle");
    let report = infra::audit::verify_bundle(&bundle);
    assert!(report.sound, "{report:?}");
}

#[actix_web::test]
async fn the_host_cancels_a_lobby_or_hands_it_over_by_leaving() {
    let app = spawn_app().await;
    let (ann, bob, cy) = (
        app.register("ann").await,
        app.register("bob").await,
        app.register("cy").await,
    );
    let id = app.lobby("whisky_race", 3, &ann).await;
    app.post(&format!("/v1/games/{id}/seats"), &bob.token, &json!({}))
        .await
        .ok();
    // Only the host cancels.
    assert_eq!(delete(&app, &format!("/v1/games/{id}"), &bob).await, 403);
    // The host leaves: the next seated person becomes host, seats move down.
    assert_eq!(
        delete(&app, &format!("/v1/games/{id}/seats/me"), &ann).await,
        204
    );
    let handed = game(&app, &id, &bob).await;
    assert_eq!(handed["host"], bob.id.to_string());
    assert_eq!(handed["seats"][0]["user"]["name"], "bob");
    assert_eq!(handed["status"], "lobby");
    // The new host cancels: the game says so, and nobody can join or start it.
    assert_eq!(delete(&app, &format!("/v1/games/{id}"), &bob).await, 204);
    assert_eq!(game(&app, &id, &bob).await["status"], "cancelled");
    app.post(&format!("/v1/games/{id}/seats"), &cy.token, &json!({}))
        .await
        .problem(422);
    app.post(&format!("/v1/games/{id}/start"), &bob.token, &json!({}))
        .await
        .problem(422);
    // Cancelling twice, or a started game, is refused.
    assert_eq!(delete(&app, &format!("/v1/games/{id}"), &bob).await, 422);
    let listed = app.get("/v1/games?status=cancelled", &bob.token).await.ok();
    assert_eq!(listed["games"].as_array().unwrap().len(), 1);
    // A host alone who leaves cancels the lobby.
    let solo = app
        .post("/v1/games", &cy.token, &json!({"kind": "mush", "seats": 2}))
        .await
        .ok();
    let solo = solo["id"].as_str().unwrap().to_string();
    assert_eq!(
        delete(&app, &format!("/v1/games/{solo}/seats/me"), &cy).await,
        204
    );
    assert_eq!(game(&app, &solo, &cy).await["status"], "cancelled");
}

#[actix_web::test]
async fn a_lobby_nobody_starts_expires() {
    let app = spawn_app_with(|config| {
        if let Some(clocks) = config.clocks.as_mut() {
            clocks.lobby_ttl = Some(Duration::from_millis(300));
        }
    })
    .await;
    let ann = app.register("ann").await;
    let id = app.lobby("mush", 2, &ann).await;
    let started = Instant::now();
    while game(&app, &id, &ann).await["status"] != "expired" {
        assert!(started.elapsed() < Duration::from_secs(10), "never expired");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .problem(422);
}

#[actix_web::test]
async fn bots_take_lobby_seats_only_from_the_host_with_a_known_policy() {
    let app = spawn_app().await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let id = app.lobby("mush", 2, &ann).await;
    let bots = format!("/v1/games/{id}/seats/bots");
    app.post(&bots, &bob.token, &json!({"policy": "random"}))
        .await
        .problem(403);
    app.post(&bots, &ann.token, &json!({"policy": "genius"}))
        .await
        .problem(422);
    app.post(&bots, &ann.token, &json!({"policy": "random", "x": 1}))
        .await
        .problem(422);
    let seated = app
        .post(&bots, &ann.token, &json!({"policy": "greedy"}))
        .await;
    assert_eq!(seated.status, 201, "{}", seated.text);
    assert_eq!(seated.body["seats"][1]["bot"], "greedy");
    // Full: no more bots.
    app.post(&bots, &ann.token, &json!({"policy": "random"}))
        .await
        .problem(422);
}

/// Every seat has a bot of its own (`bot:<seat>`): a lobby bot keeps its seat's when seats
/// move down, and a seat a person resigns is played by its own, never by a lobby bot's. (A
/// lobby bot once took the first free bot user: seat 3's was `bot:1`, and so was the bot of
/// seat 1 after its person resigned — two seats, one name in the log.)
#[actix_web::test]
async fn each_seat_s_bot_is_its_own_through_seats_moving_down_and_a_resignation() {
    use infra::deadlines::{CLOCK_USER, bot_user};
    let app = spawn_app().await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let id = app.lobby("mush", 3, &ann).await;
    let bots = format!("/v1/games/{id}/seats/bots");
    app.post(&format!("/v1/games/{id}/seats"), &bob.token, &json!({}))
        .await
        .ok();
    let seated = app
        .post(&bots, &ann.token, &json!({"policy": "random"}))
        .await;
    assert_eq!(
        seated.body["seats"][2]["user"]["name"], "bot:3",
        "{}",
        seated.text
    );
    // Bob leaves: the bot moves down to seat 2, and takes seat 2's bot user.
    assert_eq!(
        delete(&app, &format!("/v1/games/{id}/seats/me"), &bob).await,
        204
    );
    let names = |game: &Value| -> Vec<Value> {
        game["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s["user"]["name"].clone())
            .collect()
    };
    assert_eq!(
        names(&game(&app, &id, &ann).await),
        [json!("ann"), json!("bot:2")]
    );
    let seated = app
        .post(&bots, &ann.token, &json!({"policy": "greedy"}))
        .await;
    assert_eq!(
        names(&seated.body),
        [json!("ann"), json!("bot:2"), json!("bot:3")]
    );
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .ok();
    app.post(
        &format!("/v1/games/{id}/seats/me/resign"),
        &ann.token,
        &json!({}),
    )
    .await
    .ok();
    let started = Instant::now();
    while !game(&app, &id, &ann).await["outcome"].is_object() {
        assert!(started.elapsed() < Duration::from_secs(240), "never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let bundle: infra::audit::Bundle = serde_json::from_value(
        app.get(&format!("/v1/games/{id}/export"), &ann.token)
            .await
            .ok(),
    )
    .expect("a bundle");
    let mut moved = std::collections::BTreeSet::new();
    for command in &bundle.commands {
        let Some(seat) = command.seat else { continue };
        if command.user_id.to_string() == ann.id || command.user_id == CLOCK_USER.0 {
            continue;
        }
        assert_eq!(
            command.user_id,
            bot_user(seat).0,
            "seat {seat}'s move at seq {} is another's bot's",
            command.first_seq
        );
        moved.insert(seat);
    }
    assert_eq!(
        moved.into_iter().collect::<Vec<_>>(),
        [1, 2, 3],
        "every bot moved"
    );
    audit_is_sound(&app, &id, &ann).await;
}

/// One person against bots, for every game: the bots play their seats through the command
/// path until the game ends, and the log audits sound (bot moves are re-run like any other).
/// The games run at once, on one server.
#[actix_web::test]
async fn one_person_and_bots_play_every_game_to_the_end() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    let games = domain::registry()
        .kinds()
        .into_iter()
        .map(|kind| plays_against_bots_to_the_end(&app, &ann, kind));
    futures_util::future::join_all(games).await;
}

async fn plays_against_bots_to_the_end(app: &TestApp, ann: &Player, kind: &str) {
    let game_of = domain::game(kind).expect("a default game");
    let seats = (*game_of.seat_range().start()).clamp(2, 3);
    let id = app.lobby(kind, usize::from(seats), ann).await;
    for n in 1..seats {
        let policy = if n % 2 == 1 { "random" } else { "greedy" };
        app.post(
            &format!("/v1/games/{id}/seats/bots"),
            &ann.token,
            &json!({ "policy": policy }),
        )
        .await
        .ok();
    }
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .ok();
    // A generous bound: a random bot's Bandits game runs to thousands of versions, and the
    // machine may be shared (this is a liveness check, not a timing claim).
    play_until_finished(app, &id, ann, Duration::from_secs(600)).await;
    let done = game(app, &id, ann).await;
    assert!(done["outcome"].is_object(), "{kind}: {done}");
    assert_eq!(done["seats"][1]["bot"], "random", "{kind}");
    assert!(
        done.get("abandoned").is_none(),
        "{kind}: lobby bots abandon nothing"
    );
    let log = events(app, &id, ann).await;
    assert!(log.iter().any(|e| e["actor"] == 2), "{kind}: the bot moved");
    audit_is_sound(app, &id, ann).await;
}

#[actix_web::test]
async fn a_resigned_seat_passes_to_a_bot_and_the_outcome_marks_it() {
    let app = spawn_app().await;
    let players = [app.register("ann").await, app.register("bob").await];
    let id = app.started_game("mush", &players, json!({}), None).await;
    // Untimed and without a bot, the game never needs the server on its own: no deadline row,
    // and the append's deadline trigger does not even run for it (issue 31).
    assert_eq!(deadline_rows(&app, &id).await, (false, 0));
    let resign = format!("/v1/games/{id}/seats/me/resign");
    let outsider = app.register("cy").await;
    app.post(&resign, &outsider.token, &json!({}))
        .await
        .problem(403);
    let resigned = app.post(&resign, &players[1].token, &json!({})).await.ok();
    // The seat's bot makes it a game with a bot, in the resignation's own transaction, and the
    // same append gave it its deadline row: the bot is due.
    assert_eq!(deadline_rows(&app, &id).await, (true, 1));
    // Resigning again (same default key) answers the same; the seat is the bot's.
    let again = app.post(&resign, &players[1].token, &json!({})).await.ok();
    assert_eq!(again["version"], resigned["version"]);
    let log = events(&app, &id, &players[0]).await;
    let entry = log
        .iter()
        .find(|e| e["type"] == "seat_abandoned")
        .expect("the log says so");
    assert_eq!(entry["data"]["seat"], 2);
    assert_eq!(entry["data"]["reason"], "resigned");
    let summary = game(&app, &id, &players[0]).await;
    assert_eq!(summary["seats"][1]["bot"], "greedy");
    assert_eq!(summary["abandoned"], json!([2]));
    // The resigned player can no longer move for the seat.
    let legal = app
        .get(&format!("/v1/games/{id}/prompts"), &players[1].token)
        .await
        .ok()["legal"]
        .clone();
    if let Some(command) = legal.as_array().and_then(|l| l.first()) {
        app.command(&id, &players[1], command.clone())
            .await
            .problem(403);
    }
    play_until_finished(&app, &id, &players[0], Duration::from_secs(240)).await;
    let done = game(&app, &id, &players[0]).await;
    assert!(done["outcome"].is_object());
    assert_eq!(done["abandoned"], json!([2]));
    audit_is_sound(&app, &id, &players[0]).await;
}

/// Whether game `id` is marked as having a bot seat, and how many deadline rows it has.
async fn deadline_rows(app: &TestApp, id: &str) -> (bool, i64) {
    let id: uuid::Uuid = id.parse().expect("a game id");
    sqlx::query_as(
        "SELECT g.has_bot, (SELECT count(*) FROM deadlines d WHERE d.game_id = g.id) \
         FROM games g WHERE g.id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("the game row")
}

/// Nobody answers a clocked game: each waited-for seat times out (a `seat_timed_out` entry,
/// then its default move sent by the clock), never before its deadline; after
/// `abandon_after` timeouts in a row the seat passes to a bot.
#[actix_web::test]
async fn timeouts_apply_default_moves_and_three_hand_the_seat_to_a_bot() {
    let app = spawn_app().await;
    let players = [app.register("ann").await, app.register("bob").await];
    let id = app
        .started_game(
            "mush",
            &players,
            json!({"clock": {"per_decision_s": 1, "abandon_after": 3}}),
            None,
        )
        .await;
    let summary = game(&app, &id, &players[0]).await;
    assert_eq!(
        summary["clock"],
        json!({"per_decision_s": 1, "abandon_after": 3})
    );
    // The waited-for seat's prompt carries its deadline; the game resource shows it too.
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
        .await
        .ok();
    let waited = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["must"] == true)
        .expect("someone must act")
        .clone();
    assert!(waited["deadline"].is_string(), "{prompts}");
    let seat = waited["seat"].as_u64().unwrap() as usize;
    assert_eq!(
        summary["seats"][seat - 1]["deadline"],
        waited["deadline"],
        "{summary}"
    );
    // Wait for a seat to be abandoned after three timeouts in a row.
    let started = Instant::now();
    let log = loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no abandonment"
        );
        let log = events(&app, &id, &players[0]).await;
        if log.iter().any(|e| e["type"] == "seat_abandoned") {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let parse = |e: &Value| {
        time::OffsetDateTime::parse(
            e["recorded_at"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    let mut in_a_row = std::collections::HashMap::new();
    for (i, event) in log.iter().enumerate() {
        if event["type"] != "seat_timed_out" {
            continue;
        }
        // Never before the deadline: a full decision time after the previous event.
        let before = parse(&log[i - 1]);
        assert!(
            parse(event) - before >= time::Duration::seconds(1),
            "timeout at seq {} fired early",
            event["seq"]
        );
        let seat = event["data"]["seat"].as_u64().unwrap();
        assert_eq!(event["actor"].as_u64(), Some(seat));
        let count = in_a_row.entry(seat).or_insert(0u64);
        *count += 1;
        assert_eq!(event["data"]["in_a_row"].as_u64(), Some(*count));
        // The default move follows, in the same command.
        assert_ne!(log[i + 1]["type"], "seat_timed_out");
    }
    let abandoned = log.iter().find(|e| e["type"] == "seat_abandoned").unwrap();
    assert_eq!(abandoned["data"]["reason"], "timeouts");
    let seat = abandoned["data"]["seat"].as_u64().unwrap();
    assert_eq!(in_a_row[&seat], 3);
    // The audit re-checks every timeout like any other move.
    let audit = app
        .get(&format!("/v1/games/{id}/audit"), &players[0].token)
        .await
        .ok();
    assert_eq!(audit["sound"], true, "{audit}");
    let summary = game(&app, &id, &players[0]).await;
    assert_eq!(summary["seats"][seat as usize - 1]["bot"], "greedy");
}

/// Deadlines live in PostgreSQL: two instances on one database fire each due deadline once;
/// an instance that claimed deadlines and died (its lease runs out) leaves them to another,
/// which fires them once.
#[actix_web::test]
async fn deadlines_fire_once_across_two_instances_and_a_restart() {
    // The HTTP server fires nothing itself here: the test drives the instances' workers.
    let app = spawn_app_with(|config| config.clocks = None).await;
    let players = [app.register("ann").await, app.register("bob").await];
    let id = app
        .started_game(
            "mush",
            &players,
            json!({"clock": {"per_decision_s": 1, "abandon_after": 100}}),
            None,
        )
        .await;
    let instance = || {
        Services::new(
            infra::store::Store::new(app.pool.clone()),
            domain::registry(),
        )
        .clocks
    };
    let (one, two) = (instance(), instance());
    let config = ClockConfig::default();
    let timeouts = |log: &[Value]| log.iter().filter(|e| e["type"] == "seat_timed_out").count();
    for round in 1..=3 {
        tokio::time::sleep(Duration::from_millis(1100)).await;
        // Both instances at once, twice: each due deadline fires once.
        let (a, b) = tokio::join!(one.clock_tick(&config), two.clock_tick(&config));
        a.unwrap();
        b.unwrap();
        let (a, b) = tokio::join!(one.clock_tick(&config), two.clock_tick(&config));
        a.unwrap();
        b.unwrap();
        let log = events(&app, &id, &players[0]).await;
        assert_eq!(timeouts(&log), round, "round {round}");
    }
    // An instance claims the due deadline and dies before firing it.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let store = infra::store::Store::new(app.pool.clone());
    let claimed = store
        .claim_due(16, Duration::from_millis(800))
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    drop(store);
    // While its lease runs, nobody else fires it.
    assert_eq!(two.clock_tick(&config).await.unwrap(), 0);
    assert_eq!(timeouts(&events(&app, &id, &players[0]).await), 3);
    // After the lease, a freshly started instance (empty cache) fires it once.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let restarted = instance();
    let (a, b) = tokio::join!(restarted.clock_tick(&config), two.clock_tick(&config));
    a.unwrap();
    b.unwrap();
    assert_eq!(timeouts(&events(&app, &id, &players[0]).await), 4);
    // Every timeout was sent by the clock, each against its own version.
    let sent_by_clock: i64 =
        sqlx::query_scalar("SELECT count(*) FROM commands WHERE game_id = $1 AND user_id = $2")
            .bind(uuid::Uuid::parse_str(&id).unwrap())
            .bind(infra::deadlines::CLOCK_USER.0)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(sent_by_clock, 4);
}

#[actix_web::test]
async fn a_bad_clock_is_refused_naming_the_option() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    for clock in [
        json!({"per_decision_s": 0}),
        json!({"per_decision_s": 10, "abandon_after": 0}),
        json!({"per_decision_s": 10, "tempo": "blitz"}),
        json!("fast"),
    ] {
        let refused = app
            .post(
                "/v1/games",
                &ann.token,
                &json!({"kind": "mush", "seats": 2, "options": {"clock": clock}}),
            )
            .await;
        assert_eq!(refused.status, 422, "{clock}: {}", refused.text);
        assert!(refused.text.contains("clock"), "{}", refused.text);
    }
}

/// Issue 17: a game whose humans have all gone plays on to its end, and its bots act at a
/// bounded rate — each bot move comes at least `bot_interval` after the entry before it
/// (`recorded_at` in the log), so a bot-only game cannot run away with the CPU.
#[actix_web::test]
async fn a_game_whose_humans_have_all_gone_plays_to_its_end_at_the_bots_rate() {
    let interval = Duration::from_millis(30);
    let app = spawn_app_with(|config| {
        if let Some(clocks) = config.clocks.as_mut() {
            clocks.bot_interval = interval;
        }
    })
    .await;
    let ann = app.register("ann").await;
    let id = app.lobby("mush", 2, &ann).await;
    app.post(
        &format!("/v1/games/{id}/seats/bots"),
        &ann.token,
        &json!({"policy": "random"}),
    )
    .await
    .ok();
    app.post(&format!("/v1/games/{id}/start"), &ann.token, &json!({}))
        .await
        .ok();
    app.post(
        &format!("/v1/games/{id}/seats/me/resign"),
        &ann.token,
        &json!({}),
    )
    .await
    .ok();
    // Nobody sends anything now: the bots alone finish the game.
    let started = Instant::now();
    while game(&app, &id, &ann).await["status"] != "finished" {
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the bots did not finish"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let done = game(&app, &id, &ann).await;
    assert!(done["outcome"].is_object(), "{done}");
    assert_eq!(done["abandoned"], json!([1]));
    let bundle = app
        .get(&format!("/v1/games/{id}/export"), &ann.token)
        .await
        .ok();
    let commands = bundle["commands"].as_array().expect("commands");
    let at = |c: &Value| {
        time::OffsetDateTime::parse(
            c["recorded_at"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    let resigned = commands
        .iter()
        .position(|c| c["user_id"] == ann.id.as_str())
        .map(|_| {
            commands
                .iter()
                .rposition(|c| c["user_id"] == ann.id.as_str())
                .unwrap()
        })
        .expect("ann's commands");
    let bot_moves = &commands[resigned..];
    assert!(bot_moves.len() > 20, "{} bot moves", bot_moves.len());
    for pair in bot_moves.windows(2) {
        let gap = at(&pair[1]) - at(&pair[0]);
        assert!(
            gap >= interval,
            "a bot moved {gap} after the entry before it (bound {interval:?}): {} then {}",
            pair[0]["first_seq"],
            pair[1]["first_seq"]
        );
    }
    audit_is_sound(&app, &id, &ann).await;
}
