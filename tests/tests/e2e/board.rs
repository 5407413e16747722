//! Issue 30: the pictures (`board.svg`), the replay record and page, their sign-in, the
//! pictures of a disputed move, and the leak checker over every picture and record of every
//! viewer at every version of a game of each kind.

use crate::trust::strings;
use homestretch_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};
use std::collections::HashSet;

async fn players(app: &TestApp) -> Vec<Player> {
    vec![
        app.register("ada").await,
        app.register("ben").await,
        app.register("cy").await,
    ]
}

fn board(id: &str, at: Option<u64>) -> String {
    match at {
        Some(at) => format!("/v1/games/{id}/board.svg?at={at}"),
        None => format!("/v1/games/{id}/board.svg"),
    }
}

/// A Whisky Race game where seat 1 has sealed `amount` malt (a secret of its seat).
async fn sealed_whisky_race(app: &TestApp, players: &[Player], amount: u64) -> String {
    let id = app
        .started_game("whisky_race", players, json!({}), None)
        .await;
    app.command(
        &id,
        &players[0],
        json!({"type": "submit_malt_choice", "amount": amount}),
    )
    .await
    .ok();
    id
}

/// A picture is an SVG document with a viewBox and a title.
#[track_caller]
fn assert_svg(answer: &homestretch_tests::Answer) {
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        answer.content_type.starts_with("image/svg+xml"),
        "{}",
        answer.content_type
    );
    assert!(
        answer
            .text
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=")
    );
    assert!(answer.text.contains("<title>"));
}

#[actix_web::test]
async fn the_picture_follows_the_viewer_the_version_and_the_etag() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let stranger = app.register("dee").await;
    // Seat 1 seals 5: its own picture shows it, nobody else's does.
    let id = sealed_whisky_race(&app, &players, 5).await;
    let own = app.get(&board(&id, None), &players[0].token).await;
    assert_svg(&own);
    assert!(own.text.contains("sealed 5 (yours only)"), "{}", own.text);
    for other in [&players[1], &stranger] {
        let picture = app.get(&board(&id, None), &other.token).await;
        assert_svg(&picture);
        assert!(picture.text.contains("sealed (hidden)"));
        assert!(
            !picture.text.contains("sealed 5"),
            "another seat's choice shows"
        );
    }
    // The ETag is the version: unchanged → 304, a move later → a new picture.
    let etag = own.etag.clone().expect("an ETag");
    let again = app
        .request(
            "GET",
            &board(&id, None),
            Some(&players[0].token),
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.status, 304);
    let head = app.game(&id, &players[0]).await["version"]
        .as_u64()
        .unwrap();
    assert_eq!(etag, format!("\"{head}\""));
    // Any version, and never past the head.
    let first = app.get(&board(&id, Some(0)), &players[0].token).await;
    assert_svg(&first);
    assert_eq!(first.etag.as_deref(), Some("\"0-at\""));
    app.get(&board(&id, Some(head + 1)), &players[0].token)
        .await
        .problem(422);
    app.get("/v1/games/not-a-game/board.svg", &players[0].token)
        .await
        .problem(404);
    app.get(&board(&id, None), "forged").await.problem(401);
    // A running game is not public.
    let anonymous = app.request("GET", &board(&id, None), None, None, &[]).await;
    anonymous.problem(401);
    app.request("GET", &format!("/v1/games/{id}/replay"), None, None, &[])
        .await
        .problem(401);
    // Once over, it is: everyone sees everything, cacheable by anyone.
    let sent = app.play_randomly(&id, &players, 30, 5000).await;
    assert!(sent < 5000, "the game ended");
    let public = app.request("GET", &board(&id, None), None, None, &[]).await;
    assert_svg(&public);
    assert!(
        public
            .etag
            .as_deref()
            .is_some_and(|e| e.ends_with("-final\""))
    );
    let seat = app.get(&board(&id, None), &players[1].token).await;
    assert_eq!(
        seat.text, public.text,
        "after the end every reader sees the same"
    );
    let record = app
        .request("GET", &format!("/v1/games/{id}/replay"), None, None, &[])
        .await
        .ok();
    assert!(record["server_seed"].is_string(), "the seed is revealed");
    assert_eq!(record["sound"], true);
}

#[actix_web::test]
async fn the_replay_record_tells_every_move_in_words_with_dice_and_verdicts() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let id = app.started_game("bandits", &players, json!({}), None).await;
    app.play_randomly(&id, &players, 7, 40).await;
    let path = format!("/v1/games/{id}/replay");
    let en = app.get(&path, &players[0].token).await.ok();
    let fr = app
        .request(
            "GET",
            &path,
            Some(&players[0].token),
            None,
            &[("accept-language", "fr-CA,fr;q=0.9")],
        )
        .await
        .ok();
    assert_eq!(en["lang"], "en");
    assert_eq!(fr["lang"], "fr");
    assert_eq!(en["your_seat"], 1);
    let moves = en["moves"].as_array().unwrap();
    assert!(moves.len() > 5);
    let head = en["version"].as_u64().unwrap();
    // Every event is in exactly one move, in order.
    let mut next = 1;
    for m in moves {
        assert_eq!(m["first_seq"].as_u64().unwrap(), next);
        next = m["last_seq"].as_u64().unwrap() + 1;
        assert_eq!(m["verdict"], "sound");
        assert!(!m["words"].as_array().unwrap().is_empty());
    }
    assert_eq!(next, head + 1);
    let text = |v: &Value| v["moves"].to_string();
    assert!(text(&en).contains("rolled"), "{}", text(&en));
    assert!(text(&fr).contains("au dé"), "{}", text(&fr));
    assert!(
        moves
            .iter()
            .any(|m| !m["dice"].as_array().unwrap().is_empty()),
        "the dice of the moves"
    );
    assert_eq!(en["seed_commitment"].as_str().unwrap().len(), 64);
    assert!(en["server_seed"].is_null(), "no seed before the end");
}

#[actix_web::test]
async fn the_page_is_served_alone_and_signs_in_with_a_single_use_ticket() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let id = app.started_game("mush", &players, json!({}), None).await;
    let page = app
        .request(
            "GET",
            &format!("/games/{id}"),
            None,
            None,
            &[("accept-language", "fr")],
        )
        .await;
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.text.contains(&format!("data-game=\"{id}\"")));
    assert!(page.text.contains("Rejouer et vérifier"));
    assert!(!page.text.contains("://"), "nothing from another host");
    for asset in ["/games/assets/replay.js", "/games/assets/replay.css"] {
        let answer = app.request("GET", asset, None, None, &[]).await;
        assert_eq!(answer.status, 200, "{asset}");
        assert!(!answer.text.contains("://"), "{asset} names another host");
    }
    app.request("GET", "/games/nope", None, None, &[])
        .await
        .problem(404);
    // The app buys a ticket; the page trades it once for a token of the same user.
    let ticket = app
        .post("/v1/stream-tickets", &players[1].token, &json!({}))
        .await
        .ok()["ticket"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/v1/page-sessions?ticket={ticket}");
    let session = app.request("POST", &path, None, None, &[]).await.ok();
    let token = session["access_token"].as_str().unwrap();
    assert!(session["expires_in"].as_u64().unwrap() <= 900);
    let record = app.get(&format!("/v1/games/{id}/replay"), token).await.ok();
    assert_eq!(
        record["your_seat"], 2,
        "the page reads as the ticket's user"
    );
    app.request("POST", &path, None, None, &[])
        .await
        .problem(401);
}

#[actix_web::test]
async fn a_dispute_shows_the_move_before_and_after_to_its_readers_only() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let arbiter = app.admin("judge").await;
    let stranger = app.register("dee").await;
    let id = sealed_whisky_race(&app, &players, 4).await;
    let seq = app.game(&id, &players[0]).await["version"]
        .as_u64()
        .unwrap();
    let dispute = app
        .post(
            &format!("/v1/games/{id}/disputes"),
            &players[0].token,
            &json!({"seq": seq, "reason": "why?"}),
        )
        .await
        .ok();
    let did = dispute["id"].as_str().unwrap();
    let side = |s: &str| format!("/v1/disputes/{did}/board.svg?side={s}");
    let before = app.get(&side("before"), &arbiter.token).await;
    let after = app.get(&side("after"), &arbiter.token).await;
    assert_svg(&before);
    assert_svg(&after);
    assert_ne!(before.text, after.text);
    // The arbiter sees the sealed choice; the other players do not.
    assert!(after.text.contains("sealed 4 (secret)"), "{}", after.text);
    assert!(
        !after.text.contains("yours"),
        "nothing is the arbiter's own"
    );
    let seen_by_ben = app.get(&side("after"), &players[1].token).await;
    assert_svg(&seen_by_ben);
    assert!(!seen_by_ben.text.contains("sealed 4"));
    app.get(&side("after"), &stranger.token).await.problem(403);
    app.get(
        &format!("/v1/disputes/{did}/board.svg?side=middle"),
        &arbiter.token,
    )
    .await
    .problem(422);
}

/// The strings of every event as `player` sees them.
async fn seen_by(app: &TestApp, id: &str, player: &Player) -> HashSet<String> {
    let mut seen = HashSet::new();
    for event in app.all_events(id, player).await {
        strings(&event["data"], &mut seen);
    }
    seen
}

/// The leak checker (issue 30): while a game of each kind is played, every viewer (each seat and
/// a spectator) reads the picture of every new version and the replay record; none shows a
/// string that another seat's events carry and its own never showed it (a salt, a card in
/// another hand).
#[actix_web::test]
async fn no_picture_or_record_shows_another_seats_secret() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let spectator = app.register("dee").await;
    for (kind, seed) in [("whisky_race", 3), ("bandits", 4), ("mush", 5)] {
        let id = app.started_game(kind, &players, json!({}), None).await;
        let mut version = 0;
        let mut checked = 0;
        for round in 0..60 {
            let head = app.game(&id, &players[0]).await["version"]
                .as_u64()
                .unwrap();
            let logs: Vec<HashSet<String>> = {
                let mut logs = Vec::new();
                for p in &players {
                    logs.push(seen_by(&app, &id, p).await);
                }
                logs
            };
            let everything: HashSet<String> = logs.iter().flatten().cloned().collect();
            let mut viewers: Vec<(&Player, HashSet<String>)> = players
                .iter()
                .zip(&logs)
                .map(|(p, log)| (p, everything.difference(log).cloned().collect()))
                .collect();
            let public = logs[0]
                .iter()
                .filter(|s| logs.iter().all(|l| l.contains(*s)))
                .cloned()
                .collect::<HashSet<String>>();
            viewers.push((
                &spectator,
                everything.difference(&public).cloned().collect(),
            ));
            for (viewer, secrets) in &viewers {
                let mut texts = vec![app.get(&format!("/games/{id}"), &viewer.token).await.text];
                for at in version..=head {
                    let picture = app.get(&board(&id, Some(at)), &viewer.token).await;
                    assert_svg(&picture);
                    texts.push(picture.text);
                }
                if round % 10 == 0 {
                    texts.push(
                        app.get(&format!("/v1/games/{id}/replay"), &viewer.token)
                            .await
                            .ok()
                            .to_string(),
                    );
                }
                for text in &texts {
                    for secret in secrets {
                        assert!(
                            !text.contains(secret.as_str()),
                            "{kind} version {head}: {} reads another seat's secret {secret:?}",
                            viewer.name
                        );
                    }
                }
                checked += secrets.len();
            }
            version = head + 1;
            if app.play_randomly(&id, &players, seed + round, 3).await < 3 {
                break;
            }
        }
        assert!(checked > 0, "{kind}: no secret was ever held back");
        eprintln!("{kind}: {checked} (viewer, secret) pairs checked");
    }
}
