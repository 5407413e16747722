use homestretch_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};

async fn three_players(app: &TestApp) -> [Player; 3] {
    [
        app.register("alice").await,
        app.register("bob").await,
        app.guest().await,
    ]
}

fn legal_of_type<'a>(prompts: &'a Value, kind: &str) -> Vec<&'a Value> {
    prompts["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == kind)
        .collect()
}

#[actix_web::test]
async fn three_players_play_a_whole_game_over_http() {
    let app = spawn_app().await;
    let players = three_players(&app).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let view = app.get(&format!("/v1/games/{id}"), &players[1].token).await;
    assert_eq!(view.status, 200);
    assert_eq!(view.body["status"], "active");
    assert_eq!(view.body["your_seat"], 2);
    assert_eq!(
        view.etag.as_deref(),
        Some(format!("\"{}\"", view.body["version"]).as_str())
    );
    let sent = app.play_randomly(&id, &players, 7, 5000).await;
    assert!(sent < 5000, "the game did not end");
    let done = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(done["status"], "finished");
    assert!(
        done["outcome"]["winners"]
            .as_array()
            .is_some_and(|w| !w.is_empty()),
        "{done}"
    );
    // the server seed is revealed at the end and matches the commitment
    let events = app
        .get(
            &format!("/v1/games/{id}/events?after=0&limit=1000"),
            &players[0].token,
        )
        .await
        .ok();
    let mut all = events["events"].as_array().unwrap().clone();
    let mut after = events["next_after"].as_u64().unwrap();
    while all
        .last()
        .map(|e| e["type"] != "server_seed_revealed")
        .unwrap_or(true)
    {
        let page = app
            .get(
                &format!("/v1/games/{id}/events?after={after}&limit=1000"),
                &players[0].token,
            )
            .await
            .ok();
        all.extend(page["events"].as_array().unwrap().iter().cloned());
        after = page["next_after"].as_u64().unwrap();
        assert!(
            !page["events"].as_array().unwrap().is_empty(),
            "no seed reveal at the end"
        );
    }
    let seed = all.last().unwrap()["data"]["server_seed"].as_str().unwrap();
    let seed: [u8; 32] = hex::decode(seed).unwrap().try_into().unwrap();
    assert_eq!(
        domain::engine::seed_commitment(&seed),
        done["seed_commitment"].as_str().unwrap()
    );
    // after the end nothing more is accepted
    let late = app
        .command(
            &id,
            &players[0],
            json!({"type": "submit_malt_choice", "amount": 1}),
        )
        .await;
    assert_eq!(late.status, 422, "{}", late.text);
}

#[actix_web::test]
async fn stale_version_is_a_409_and_a_retry_is_idempotent() {
    let app = spawn_app().await;
    let players = three_players(&app).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let prompts = app
        .get(&format!("/v1/games/{id}/prompts"), &players[0].token)
        .await
        .ok();
    let version = prompts["version"].as_u64().unwrap();
    let command = legal_of_type(&prompts, "submit_malt_choice")[0].clone();
    let path = format!("/v1/games/{id}/commands");
    // a stale expected_version: 409 problem with the current version
    let stale = app.post(&path, &players[0].token, &json!({"command_id": uuid::Uuid::new_v4(), "expected_version": version - 1, "command": command})).await;
    assert_eq!(stale.problem(409)["current_version"], version);
    // the same through If-Match
    let stale = app
        .request(
            "POST",
            &path,
            Some(&players[0].token),
            Some(&json!({"command": command})),
            &[("if-match", &format!("\"{}\"", version - 1))],
        )
        .await;
    stale.problem(409);
    // accepted once...
    let command_id = uuid::Uuid::new_v4();
    let body = json!({"command_id": command_id, "expected_version": version, "command": command});
    let first = app.post(&path, &players[0].token, &body).await.ok();
    let count = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM events")
            .fetch_one(&app.pool)
            .await
            .unwrap()
    };
    let events_after_first = count().await;
    // ...and a retry with the same id returns the first answer and appends nothing
    let retry = app.post(&path, &players[0].token, &body).await.ok();
    assert_eq!(retry, first);
    assert_eq!(count().await, events_after_first);
    // the same id with another body is a 422
    let other =
        json!({"command_id": command_id, "command": {"type": "submit_malt_choice", "amount": 2}});
    app.post(&path, &players[0].token, &other)
        .await
        .problem(422);
    assert_eq!(count().await, events_after_first);
}

#[actix_web::test]
async fn acting_outside_ones_seat_is_refused() {
    let app = spawn_app().await;
    let players = three_players(&app).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let stranger = app.register("stranger").await;
    let command = json!({"type": "submit_malt_choice", "amount": 3});
    app.command(&id, &stranger, command.clone())
        .await
        .problem(403);
    // a spectator sees the public view and no legal commands
    let spectator = app
        .get(&format!("/v1/games/{id}/prompts"), &stranger.token)
        .await
        .ok();
    assert!(spectator["legal"].as_array().unwrap().is_empty());
    assert_eq!(
        app.get(&format!("/v1/games/{id}"), &stranger.token)
            .await
            .body["your_seat"],
        Value::Null
    );
    // seat 1 submits; submitting again (as if for another turn) is a rule violation
    app.command(&id, &players[0], command.clone()).await.ok();
    let again = app.command(&id, &players[0], command).await;
    assert!(
        again.problem(422)["rule"]
            .as_str()
            .unwrap()
            .starts_with("WR-")
    );
}

/// Reads the SSE stream of `game` as `player` until `needle` appears or `budget` bytes.
async fn read_stream(app: &TestApp, game: &str, player: &Player, needle: &str) -> String {
    use futures_util::StreamExt;
    let mut res = app
        .client
        .get(app.url(&format!("/v1/games/{game}/events/stream")))
        .insert_header(("authorization", format!("Bearer {}", player.token)))
        .send()
        .await
        .expect("stream");
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(
        res.headers().get("content-type").unwrap().to_str().unwrap(),
        "text/event-stream"
    );
    let mut text = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !text.contains(needle) && std::time::Instant::now() < deadline {
        match tokio::time::timeout(std::time::Duration::from_secs(5), res.next()).await {
            Ok(Some(Ok(chunk))) => text.push_str(&String::from_utf8_lossy(&chunk)),
            _ => break,
        }
    }
    text
}

#[actix_web::test]
async fn a_secret_malt_choice_stays_hidden_until_the_reveal() {
    let app = spawn_app().await;
    let players = three_players(&app).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let amount = 5;
    let answer = app
        .command(
            &id,
            &players[0],
            json!({"type": "submit_malt_choice", "amount": amount}),
        )
        .await
        .ok();
    // seat 1 sees its own choice and salt
    let own = answer["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "malt_committed")
        .expect("commitment event")
        .clone();
    assert_eq!(own["data"]["amount"], amount);
    let salt = own["data"]["salt"].as_str().expect("own salt").to_string();
    let commitment = own["data"]["commitment"].as_str().unwrap().to_string();
    assert_eq!(domain::engine::sealed_commitment(&salt, amount), commitment);
    for watcher in [&players[1], &players[2]] {
        let view = app
            .get(&format!("/v1/games/{id}"), &watcher.token)
            .await
            .text;
        let events = app
            .get(&format!("/v1/games/{id}/events"), &watcher.token)
            .await;
        let prompts = app
            .get(&format!("/v1/games/{id}/prompts"), &watcher.token)
            .await
            .text;
        let stream = read_stream(&app, &id, watcher, "malt_committed").await;
        for (what, text) in [
            ("view", &view),
            ("events", &events.text),
            ("prompts", &prompts),
            ("stream", &stream),
        ] {
            assert!(
                !text.contains(&salt),
                "seat 1's salt leaked to another seat through the {what}"
            );
        }
        let masked = events.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["type"] == "malt_committed")
            .expect("masked event");
        assert_eq!(masked["data"]["commitment"], commitment.as_str());
        assert!(
            masked["data"]["amount"].is_null(),
            "amount leaked: {masked}"
        );
        assert!(
            stream.contains(&commitment),
            "the stream shows the commitment"
        );
    }
    // the others choose; the reveal publishes every amount and salt together
    for p in &players[1..] {
        app.command(&id, p, json!({"type": "submit_malt_choice", "amount": 4}))
            .await
            .ok();
    }
    let events = app
        .get(&format!("/v1/games/{id}/events"), &players[2].token)
        .await
        .text;
    assert!(events.contains(&salt), "the reveal publishes the salts");
}

#[actix_web::test]
async fn replay_returns_the_view_at_any_version() {
    let app = spawn_app().await;
    let players = three_players(&app).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.play_randomly(&id, &players, 3, 40).await;
    let head = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    let version = head["version"].as_u64().unwrap();
    for at in [0, 1, version / 2, version] {
        let state = app
            .get(&format!("/v1/games/{id}/state?at={at}"), &players[0].token)
            .await
            .ok();
        assert_eq!(state["version"], at);
    }
    let now = app
        .get(
            &format!("/v1/games/{id}/state?at={version}"),
            &players[0].token,
        )
        .await
        .ok();
    assert_eq!(now["view"], head["view"]);
    app.get(
        &format!("/v1/games/{id}/state?at={}", version + 1),
        &players[0].token,
    )
    .await
    .problem(422);
}

/// The load tool's bots (`homestretch-load play`) read only the version, the prompt list and
/// `legal` of each answer (issue 31: parsing whole answers cost the tool, and every figure
/// measured beside it, half its CPU). Against the real server they still play every kind:
/// commands accepted in each, and no answer but a 200, a 201 or a lost race (409).
#[actix_web::test]
async fn the_load_tools_bots_play_every_kind_reading_only_what_they_need() {
    let app = spawn_app().await;
    for game in domain::games() {
        let report = homestretch_load::play::run(homestretch_load::play::LoadConfig {
            url: app.address.clone(),
            games: 2,
            duration: std::time::Duration::from_secs(2),
            kind: Some(game.kind().to_string()),
            seats: None,
            json: true,
            expected_version: false,
            ack_log: None,
            host_token: None,
            debug: true,
            progress: false,
        })
        .await
        .expect("the bots played");
        let played = &report["by_kind"][game.kind()];
        assert!(played["accepted_commands"].as_u64() > Some(0), "{report}");
        let statuses = report["statuses"].as_object().expect("statuses");
        assert!(
            statuses
                .keys()
                .all(|s| ["200", "201", "409"].contains(&s.as_str())),
            "{}: {statuses:?}",
            game.kind()
        );
    }
}
