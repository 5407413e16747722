//! Issue 18: a guest keeps their games when registering; invites (join codes); rematch.

use homestretch_tests::test_game::registry_with_countdown;
use homestretch_tests::{Answer, Player, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

async fn register_with(app: &TestApp, token: Option<&str>, name: &str) -> Answer {
    app.request(
        "POST",
        "/v1/auth/register",
        token,
        Some(&json!({"name": name, "password": "correct horse battery"})),
        &[],
    )
    .await
}

fn player(body: &Value) -> Player {
    Player {
        token: body["access_token"].as_str().expect("access token").into(),
        refresh: body["refresh_token"]
            .as_str()
            .expect("refresh token")
            .into(),
        id: body["user"]["id"].as_str().expect("user id").into(),
        name: body["user"]["name"].as_str().expect("name").into(),
    }
}

#[actix_web::test]
async fn a_guest_registers_in_place_and_keeps_their_seats_games_and_sessions() {
    let app = spawn_app().await;
    let guest = app.guest().await;
    let host = app.register("host").await;
    let game = app
        .started_game(
            "whisky_race",
            &[host.clone(), guest.clone(), app.guest().await],
            json!({}),
            None,
        )
        .await;
    let upgraded = register_with(&app, Some(&guest.token), "Gwen").await;
    assert_eq!(upgraded.status, 200, "{}", upgraded.text);
    let gwen = player(&upgraded.body);
    // Same user id: the seat and the game are still theirs.
    assert_eq!(gwen.id, guest.id);
    assert_eq!(gwen.name, "Gwen");
    let me = app.get("/v1/me", &gwen.token).await.ok();
    assert_eq!(
        (me["is_guest"].clone(), me["name"].clone()),
        (json!(false), json!("Gwen"))
    );
    let seen = app
        .get(&format!("/v1/games/{game}"), &gwen.token)
        .await
        .ok();
    assert_eq!(seen["your_seat"], 2);
    assert_eq!(seen["seats"][1]["user"]["name"], "Gwen");
    let mine = app.get("/v1/games?mine=true", &gwen.token).await.ok();
    assert_eq!(mine["games"][0]["id"], json!(game));
    // The guest's own session goes on: its access token still works, its refresh token rotates
    // (and the new access token carries the new name).
    app.get("/v1/me", &guest.token).await.ok();
    let refreshed = app
        .request(
            "POST",
            "/v1/auth/refresh",
            None,
            Some(&json!({"refresh_token": guest.refresh})),
            &[],
        )
        .await
        .ok();
    assert_eq!(refreshed["user"]["name"], "Gwen");
    // The new name and password sign in to the same account.
    let login = app
        .request(
            "POST",
            "/v1/auth/login",
            None,
            Some(&json!({"name": "gwen", "password": "correct horse battery"})),
            &[],
        )
        .await
        .ok();
    assert_eq!(login["user"]["id"], json!(guest.id));
    // Without a token, register still creates a new account (201).
    let other = register_with(&app, None, "someone else").await;
    assert_eq!(other.status, 201, "{}", other.text);
    assert_ne!(other.body["user"]["id"], json!(guest.id));
}

#[actix_web::test]
async fn registering_with_a_token_refuses_a_registered_caller_a_taken_name_and_a_bad_token() {
    let app = spawn_app().await;
    let alice = app.register("alice").await;
    // An already-registered caller: 422, nothing changes.
    let again = register_with(&app, Some(&alice.token), "alice2").await;
    let detail = again.problem(422)["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("already have a registered account"),
        "{detail}"
    );
    assert_eq!(app.get("/v1/me", &alice.token).await.ok()["name"], "alice");
    // A guest asking for a taken name: 422, and they stay a guest.
    let guest = app.guest().await;
    let taken = register_with(&app, Some(&guest.token), "ALICE").await;
    assert!(
        taken.problem(422)["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("taken")
    );
    assert_eq!(app.get("/v1/me", &guest.token).await.ok()["is_guest"], true);
    // A token that does not verify (forged, or another server's) is a 401, never a new account.
    let forged = register_with(&app, Some("not-a-token"), "mallory").await;
    forged.problem(401);
    // A guest's revoked session cannot upgrade it.
    let logout = app
        .request("POST", "/v1/auth/logout", Some(&guest.token), None, &[])
        .await;
    assert_eq!(logout.status, 204);
    register_with(&app, Some(&guest.token), "late guest")
        .await
        .problem(401);
    let nobody: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM users WHERE name IN ('mallory', 'late guest', 'alice2')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(nobody, 0);
}

#[actix_web::test]
async fn a_join_code_takes_the_next_free_seat_until_the_game_starts() {
    let app = spawn_app().await;
    let (host, bob, cid, dan) = (
        app.register("host").await,
        app.register("bob").await,
        app.guest().await,
        app.guest().await,
    );
    let lobby = app
        .post(
            "/v1/games",
            &host.token,
            &json!({"kind": "whisky_race", "seats": 3}),
        )
        .await
        .ok();
    let id = lobby["id"].as_str().unwrap().to_string();
    let code = lobby["join_code"]
        .as_str()
        .expect("a join code")
        .to_string();
    assert_eq!(code.len(), 8);
    assert!(
        code.chars()
            .all(|c| "23456789ABCDEFGHJKLMNPQRSTUVWXYZ".contains(c)),
        "{code}"
    );
    assert_eq!(
        lobby["join_url"],
        json!(format!("homestretch://join/{code}"))
    );
    // Only seated players see the code; lists never show it.
    let outside = app.get(&format!("/v1/games/{id}"), &bob.token).await.ok();
    assert_eq!(outside["join_code"], Value::Null);
    let listed = app.get("/v1/games?status=lobby", &host.token).await.ok();
    assert_eq!(listed["games"][0]["join_code"], Value::Null);
    // Typed by a person: lower case and a dash are fine.
    let typed = format!("{}-{}", &code[..4], &code[4..]).to_lowercase();
    let joined = app
        .post(
            "/v1/games/join",
            &bob.token,
            &json!({"code": typed, "client_seed": "b"}),
        )
        .await
        .ok();
    assert_eq!(joined["id"], json!(id));
    assert_eq!(joined["seats"][1]["user"]["name"], "bob");
    assert_eq!(joined["join_code"], json!(code));
    // Same errors as joining by id: seated already.
    app.post("/v1/games/join", &bob.token, &json!({"code": code}))
        .await
        .problem(422);
    // Unknown and malformed codes: 404; unknown fields: 422.
    app.post("/v1/games/join", &cid.token, &json!({"code": "ZZZZZZZZ"}))
        .await
        .problem(404);
    app.post("/v1/games/join", &cid.token, &json!({"code": "0O1I"}))
        .await
        .problem(404);
    app.post(
        "/v1/games/join",
        &cid.token,
        &json!({"code": code, "seat": 3}),
    )
    .await
    .problem(422);
    app.post("/v1/games/join", &cid.token, &json!({"code": code}))
        .await
        .ok();
    // Full: every seat is taken.
    app.post("/v1/games/join", &dan.token, &json!({"code": code}))
        .await
        .problem(422);
    app.post(&format!("/v1/games/{id}/start"), &host.token, &json!({}))
        .await
        .ok();
    // Started: the code no longer joins, and is no longer shown.
    let expired = app
        .post("/v1/games/join", &dan.token, &json!({"code": code}))
        .await;
    assert!(
        expired.problem(422)["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("started")
    );
    let started = app.get(&format!("/v1/games/{id}"), &host.token).await.ok();
    assert_eq!(started["join_code"], Value::Null);
}

#[actix_web::test]
async fn join_code_lookups_are_rate_limited_per_user_and_per_address() {
    let app = spawn_app_with(|config| {
        config.limits.join_codes_per_user = Some(api::limits::Rate::per_minute(3));
        config.limits.join_codes_per_ip = Some(api::limits::Rate::per_minute(5));
    })
    .await;
    let guess = json!({"code": "ZZZZZZZZ"});
    let (first, second) = (app.guest().await, app.guest().await);
    for _ in 0..3 {
        app.post("/v1/games/join", &first.token, &guess)
            .await
            .problem(404);
    }
    // The user's own limit (which does not use up the address's).
    app.post("/v1/games/join", &first.token, &guess)
        .await
        .problem(429);
    // Another user of the same address: two more lookups, then the address's limit.
    for _ in 0..2 {
        app.post("/v1/games/join", &second.token, &guess)
            .await
            .problem(404);
    }
    let limited = app.post("/v1/games/join", &second.token, &guess).await;
    limited.problem(429);
    // A user from another address is not held back.
    let third = app.guest().await;
    let elsewhere = homestretch_tests::client_from("127.0.0.2");
    let answer = elsewhere
        .post(app.url("/v1/games/join"))
        .insert_header(("authorization", format!("Bearer {}", third.token)))
        .send_json(&guess)
        .await
        .expect("sent");
    assert_eq!(answer.status().as_u16(), 404);
}

/// Plays a `countdown` game (target 2) of `players` to its end: seat 1 wins.
async fn finished_countdown(app: &TestApp, players: &[Player]) -> String {
    let game = app
        .started_game("countdown", players, json!({}), None)
        .await;
    for _round in 0..2 {
        for p in players {
            let answer = app.command(&game, p, json!({"type": "step"})).await;
            if answer.status != 200 {
                break;
            }
        }
    }
    let done = app
        .get(&format!("/v1/games/{game}"), &players[0].token)
        .await
        .ok();
    assert_eq!(done["status"], "finished", "{done}");
    game
}

#[actix_web::test]
async fn a_rematch_opens_one_lobby_like_the_finished_game_for_every_player() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let (ann, bob, eve) = (
        app.register("ann").await,
        app.register("bob").await,
        app.guest().await,
    );
    let players = [ann.clone(), bob.clone()];
    let lobby = app
        .post(
            "/v1/games",
            &ann.token,
            &json!({"kind": "countdown", "seats": 2, "options": {"target": 1}}),
        )
        .await
        .ok();
    let unfinished = lobby["id"].as_str().unwrap().to_string();
    // Not over (a lobby here): no rematch yet.
    app.post(
        &format!("/v1/games/{unfinished}/rematch"),
        &ann.token,
        &json!({}),
    )
    .await
    .problem(422);
    let old = finished_countdown(&app, &players).await;
    let before = app.get(&format!("/v1/games/{old}"), &bob.token).await;
    assert_eq!(before.body["rematch"], Value::Null);
    // Someone who did not play: 403.
    app.post(&format!("/v1/games/{old}/rematch"), &eve.token, &json!({}))
        .await
        .problem(403);
    // Bob asks: a new lobby, same kind, options and seats, bob its host in seat 1.
    let opened = app
        .post(&format!("/v1/games/{old}/rematch"), &bob.token, &json!({}))
        .await;
    assert_eq!(opened.status, 201, "{}", opened.text);
    let new = opened.body.clone();
    let new_id = new["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, old);
    assert_eq!(new["status"], "lobby");
    assert_eq!(new["kind"], "countdown");
    assert_eq!(new["seat_count"], 2);
    assert_eq!(new["options"], before.body["options"]);
    assert_eq!(new["host"], json!(bob.id));
    assert_eq!(new["seats"].as_array().map(Vec::len), Some(1));
    assert_eq!(new["seats"][0]["user"]["id"], json!(bob.id));
    assert_eq!(new["fair"], true);
    let code = new["join_code"]
        .as_str()
        .expect("the rematch has a join code")
        .to_string();
    // Idempotent: ann pressing rematch too (at the same time as bob again) gets the same lobby.
    let (path, empty) = (format!("/v1/games/{old}/rematch"), json!({}));
    let (a, c) = tokio::join!(
        app.post(&path, &ann.token, &empty),
        app.post(&path, &bob.token, &empty),
    );
    for answer in [&a, &c] {
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.body["id"], json!(new_id));
    }
    // Discoverable from the finished game, and its ETag moved although its version did not.
    let after = app.get(&format!("/v1/games/{old}"), &ann.token).await;
    assert_eq!(after.body["rematch"], json!(new_id));
    assert_ne!(after.etag, before.etag);
    let stale = app
        .request(
            "GET",
            &format!("/v1/games/{old}"),
            Some(&ann.token),
            None,
            &[("if-none-match", before.etag.as_deref().unwrap())],
        )
        .await;
    assert_eq!(stale.status, 200);
    // The invited player takes the seat by code and the rematch plays.
    app.post("/v1/games/join", &ann.token, &json!({"code": code}))
        .await
        .ok();
    let started = app
        .post(&format!("/v1/games/{new_id}/start"), &bob.token, &json!({}))
        .await
        .ok();
    assert!(started["version"].as_u64().unwrap() >= 1);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM rematches")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(rows, 1);
    // The other player was invited once (the outbox, in the rematch's transaction), the one who
    // asked was not, however many presses.
    let invitations = |player: Player| {
        let app = &app;
        async move {
            let feed = app
                .get("/v1/me/notifications?after=0&limit=500", &player.token)
                .await
                .ok();
            feed["notifications"]
                .as_array()
                .expect("notifications")
                .iter()
                .map(|n| n["notification"].clone())
                .filter(|n| n["type"] == "invited")
                .collect::<Vec<_>>()
        }
    };
    let to_ann = invitations(ann.clone()).await;
    assert_eq!(to_ann.len(), 1, "{to_ann:?}");
    assert_eq!(to_ann[0]["game_id"], json!(new_id));
    assert_eq!(to_ann[0]["rematch_of"], json!(old));
    assert!(invitations(bob.clone()).await.is_empty());
}

#[actix_web::test]
async fn two_players_pressing_rematch_at_once_open_one_lobby() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let players = [app.register("ann").await, app.register("bob").await];
    let old = finished_countdown(&app, &players).await;
    let (path, empty) = (format!("/v1/games/{old}/rematch"), json!({}));
    let (a, b) = tokio::join!(
        app.post(&path, &players[0].token, &empty),
        app.post(&path, &players[1].token, &empty),
    );
    assert_eq!(a.body["id"], b.body["id"], "{} / {}", a.text, b.text);
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(statuses, [200, 201]);
    let lobbies: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE status = 'lobby'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(lobbies, 1);
}
