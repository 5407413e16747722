//! Issue 31: the prompts and detail answers of a started game are rendered once per (game,
//! version, audience) and served as bytes. Each audience (a seat, a spectator) still gets its
//! own answer, at the version its `ETag` names, before and after the version moves and while
//! commands race the readers; `If-None-Match` still answers 304.

use homestretch_tests::{Answer, Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};
use std::collections::HashMap;

/// A Bandits game (hands are hidden) of three seats, and a spectator.
async fn bandits(app: &TestApp) -> (String, Vec<Player>, Player) {
    let seats = vec![
        // An admin hosts: only admins may fix the seed.
        app.admin("v1").await,
        app.register("v2").await,
        app.register("v3").await,
    ];
    let spectator = app.register("watcher").await;
    let game = app
        .started_game("bandits", &seats, json!({}), Some("views31"))
        .await;
    (game, seats, spectator)
}

fn paths(game: &str) -> [String; 2] {
    [
        format!("/v1/games/{game}/prompts"),
        format!("/v1/games/{game}"),
    ]
}

/// A 200 whose `ETag` is the version inside its bytes.
#[track_caller]
fn tagged(answer: &Answer) -> u64 {
    assert_eq!(answer.status, 200, "{}", answer.text);
    let version = answer.body["version"].as_u64().expect("version");
    assert_eq!(
        answer.etag.as_deref(),
        Some(format!("\"{version}\"").as_str()),
        "the ETag names the version of the bytes"
    );
    version
}

/// The seat that must act now and one of its commands.
async fn next_move(app: &TestApp, game: &str, seats: &[Player]) -> Option<(usize, Value)> {
    let prompts = app
        .get(&format!("/v1/games/{game}/prompts"), &seats[0].token)
        .await
        .ok();
    let seat = prompts["prompts"]
        .as_array()?
        .iter()
        .find(|p| p["must"] == json!(true))?["seat"]
        .as_u64()? as usize;
    let mine = app
        .get(&format!("/v1/games/{game}/prompts"), &seats[seat - 1].token)
        .await
        .ok();
    let command = commands_of(&mine).into_iter().next()?;
    Some((seat - 1, command))
}

/// Every reader's answers of both routes from `app` and, rendered afresh by a second instance
/// on the same database (its first read of each audience), from `peer`: the same bytes, each
/// tagged with its version; and no two audiences share a view.
async fn same_as_fresh(app: &TestApp, peer: &TestApp, game: &str, readers: &[Player]) -> u64 {
    let mut version = None;
    for path in paths(game) {
        let mut views = Vec::new();
        // Reversed on the second pass: a cached audience is never served to the next reader.
        for reader in readers.iter().chain(readers.iter().rev()) {
            let cached = app.get(&path, &reader.token).await;
            let fresh = peer.get(&path, &reader.token).await;
            let v = tagged(&cached);
            assert_eq!(tagged(&fresh), v, "{path} as {}", reader.name);
            assert_eq!(cached.text, fresh.text, "{path} as {}", reader.name);
            assert_eq!(*version.get_or_insert(v), v);
            if !path.ends_with("prompts") {
                views.push((reader.name.clone(), cached.body["view"].to_string()));
            }
        }
        for (i, (a, view_a)) in views.iter().enumerate().take(readers.len()) {
            for (b, view_b) in views.iter().take(readers.len()).skip(i + 1) {
                assert_ne!(view_a, view_b, "{a} and {b} see the same view");
            }
        }
    }
    version.expect("read")
}

#[actix_web::test]
async fn views31_each_audience_gets_its_own_bytes_before_and_after_a_move() {
    let app = spawn_app().await;
    let (game, seats, spectator) = bandits(&app).await;
    let mut readers = seats.clone();
    readers.push(spectator);
    let peer = app.peer("views31-fresh").await;
    let before = same_as_fresh(&app, &peer, &game, &readers).await;
    for _ in 0..3 {
        let (seat, command) = next_move(&app, &game, &seats).await.expect("a move");
        let answer = app.command(&game, &seats[seat], command).await.ok();
        // Right after its own append, the mover reads the new version (not the bytes of the
        // one before, though the notification of the append may not be heard yet), and the
        // cached prompts are the ones the command answered.
        let version = answer["version"].as_u64().expect("version");
        let mine = app
            .get(&format!("/v1/games/{game}/prompts"), &seats[seat].token)
            .await;
        assert_eq!(tagged(&mine), version);
        assert_eq!(mine.body, answer["next"]);
    }
    let after = same_as_fresh(&app, &peer, &game, &readers).await;
    assert!(after > before, "{before} → {after}");
    drop(peer);
}

#[actix_web::test]
async fn views31_rendered_once_per_version_and_audience() {
    let app = spawn_app().await;
    let (game, seats, spectator) = bandits(&app).await;
    let mut readers = seats.clone();
    readers.push(spectator);
    let start = app.state.services.reads.view_counts();
    for _ in 0..5 {
        for reader in &readers {
            for path in paths(&game) {
                tagged(&app.get(&path, &reader.token).await);
            }
        }
    }
    let counts = app.state.services.reads.view_counts();
    // Four audiences × two routes rendered once; the other 32 reads are served as bytes.
    assert_eq!(counts.renders - start.renders, 8, "{counts:?}");
    assert_eq!(counts.hits - start.hits, 32, "{counts:?}");
    assert!(counts.bytes > 0 && counts.games >= 1, "{counts:?}");
    // The figure the report gives: a three-seat game's eight answers, what they cost.
    eprintln!(
        "views31: one cached game = {} bytes ({counts:?})",
        counts.bytes
    );

    // A move: the next reads render the new version once each again.
    let (seat, command) = next_move(&app, &game, &seats).await.expect("a move");
    app.command(&game, &seats[seat], command).await.ok();
    let moved = app.state.services.reads.view_counts();
    for _ in 0..3 {
        for reader in &readers {
            tagged(&app.get(&paths(&game)[1], &reader.token).await);
        }
    }
    let counts = app.state.services.reads.view_counts();
    assert_eq!(counts.renders - moved.renders, 4, "{counts:?}");
}

#[actix_web::test]
async fn views31_conditional_get_answers_304_from_the_cached_bytes() {
    let app = spawn_app().await;
    let (game, seats, _) = bandits(&app).await;
    for path in paths(&game) {
        // Twice: the second answer comes from the cache.
        for _ in 0..2 {
            let first = app.get(&path, &seats[1].token).await;
            let etag = first.etag.clone().expect("etag");
            tagged(&first);
            let again = app.get_if_none_match(&path, &seats[1].token, &etag).await;
            assert_eq!(again.status, 304, "{path}");
            assert_eq!(again.etag.as_deref(), Some(etag.as_str()));
            assert!(again.text.is_empty());
            let weak = format!("W/{etag}");
            let again = app.get_if_none_match(&path, &seats[1].token, &weak).await;
            assert_eq!(again.status, 304, "{path} weak");
        }
    }
    // After a move the old tag is stale: a 200 with the new version.
    let old = app.get(&paths(&game)[0], &seats[1].token).await;
    let old_tag = old.etag.clone().expect("etag");
    let (seat, command) = next_move(&app, &game, &seats).await.expect("a move");
    app.command(&game, &seats[seat], command).await.ok();
    for path in paths(&game) {
        let answer = app
            .get_if_none_match(&path, &seats[1].token, &old_tag)
            .await;
        assert!(tagged(&answer) > tagged(&old), "{path}");
    }
}

/// Readers of every audience in a loop while the seats play: each answer carries its own
/// audience (`your_seat`) and the version its `ETag` names; one (audience, version) is always
/// the same bytes; no reader sees a version older than one it saw before; and the mover's
/// prompts at each version are the ones its command answered.
#[actix_web::test]
async fn views31_readers_racing_commands_get_their_own_audience_and_version() {
    let app = spawn_app().await;
    let (game, seats, spectator) = bandits(&app).await;
    let mut readers: Vec<(Option<u64>, Player)> = seats
        .iter()
        .enumerate()
        .map(|(i, p)| (Some(i as u64 + 1), p.clone()))
        .collect();
    readers.push((None, spectator));
    let done = std::rc::Rc::new(std::cell::Cell::new(false));
    let mut tasks = Vec::new();
    for (seat, reader) in &readers {
        let seat = *seat;
        for copy in 0..3 {
            let address = app.address.clone();
            let game = game.clone();
            let done = done.clone();
            let reader = reader.clone();
            tasks.push(actix_web::rt::spawn(async move {
                let client = awc::Client::default();
                let mut seen: Vec<(String, u64, String)> = Vec::new();
                let mut newest = [0u64; 2];
                while !done.get() {
                    for (route, path) in paths(&game).iter().enumerate() {
                        let mut res = client
                            .get(format!("{address}{path}"))
                            .insert_header(("authorization", format!("Bearer {}", reader.token)))
                            .send()
                            .await
                            .expect("sent");
                        let etag = res
                            .headers()
                            .get("etag")
                            .map(|v| v.to_str().unwrap().to_string());
                        let text =
                            String::from_utf8(res.body().await.expect("body").to_vec()).unwrap();
                        assert_eq!(res.status().as_u16(), 200, "{text}");
                        let body: Value = serde_json::from_str(&text).expect("json");
                        let version = body["version"].as_u64().expect("version");
                        assert_eq!(etag, Some(format!("\"{version}\"")), "copy {copy}");
                        assert!(
                            version >= newest[route],
                            "{path}: {version} after {}",
                            newest[route]
                        );
                        newest[route] = version;
                        if route == 1 {
                            assert_eq!(
                                body["your_seat"].as_u64(),
                                seat,
                                "{} got another's bytes",
                                reader.name
                            );
                        }
                        seen.push((path.clone(), version, text));
                    }
                    tokio::task::yield_now().await;
                }
                (reader.name.clone(), seen)
            }));
        }
    }
    let mut answered: HashMap<u64, Value> = HashMap::new();
    let mut movers: HashMap<u64, String> = HashMap::new();
    for _ in 0..12 {
        let Some((seat, command)) = next_move(&app, &game, &seats).await else {
            break;
        };
        let answer = app.command(&game, &seats[seat], command).await.ok();
        let version = answer["version"].as_u64().expect("version");
        answered.insert(version, answer["next"].clone());
        movers.insert(version, seats[seat].name.clone());
    }
    done.set(true);
    let mut bytes: HashMap<(String, String, u64), String> = HashMap::new();
    let mut versions = 0;
    for task in tasks {
        let (name, seen) = task.await.expect("reader");
        for (path, version, text) in seen {
            if path.ends_with("prompts") && movers.get(&version) == Some(&name) {
                let body: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(body, answered[&version], "{name}'s prompts at {version}");
            }
            let key = (name.clone(), path, version);
            match bytes.get(&key) {
                Some(first) => assert_eq!(first, &text, "{key:?}: two answers"),
                None => {
                    versions += 1;
                    bytes.insert(key, text);
                }
            }
        }
    }
    assert!(movers.len() >= 6, "{} moves", movers.len());
    // The readers saw the game move (more than one version per reader and route).
    assert!(versions > 2 * readers.len(), "{versions}");
}
