//! Issue 31 (`hot36`): a command answer's `next` is rendered through the byte cache, so the
//! `GET /prompts` its client sends right after is a hit, not a second computation of its
//! `choices`. The answer's `next` stays byte for byte what a fresh `GET /prompts` of the same
//! version gives that seat; no other audience is served its bytes; a rename and a catch-up
//! from another instance change nothing of that.

use homestretch_tests::{Answer, Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};

/// The seat that must act now and one of its commands, as `app` reads them.
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

/// The raw text of a command answer's `next` (its last member), and its version.
#[track_caller]
fn next_text(answer: &Answer) -> (String, u64) {
    assert_eq!(answer.status, 200, "{}", answer.text);
    let marker = ",\"next\":{\"version\":";
    let at = answer.text.rfind(marker).expect("a `next` member") + ",\"next\":".len();
    let text = answer.text[at..answer.text.len() - 1].to_string();
    // The whole answer is still one JSON document, and `next` is what was spliced in.
    let parsed: Value = serde_json::from_str(&text).expect("next is JSON");
    assert_eq!(parsed, answer.body["next"]);
    let version = parsed["version"].as_u64().expect("next.version");
    (text, version)
}

/// `GET /prompts` as `reader` from `app` once it answers at `version` (an instance that did
/// not append hears the append a moment later).
async fn prompts_at(app: &TestApp, game: &str, reader: &Player, version: u64) -> String {
    let path = format!("/v1/games/{game}/prompts");
    for _ in 0..200 {
        let answer = app.get(&path, &reader.token).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        if answer.body["version"].as_u64() == Some(version) {
            assert_eq!(answer.etag, Some(format!("\"{version}\"")));
            return answer.text;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{} never read {game} at {version}", reader.name);
}

/// After `answer` (the command of `mover`): its `next` is the fresh prompts of its version
/// from `peer` (which renders them itself), the mover's next read from `app` is those very
/// bytes served from the cache (no render), and every other reader (the other seats, a
/// spectator) gets its own prompts, the same as `peer` renders for them.
async fn check_next(
    app: &TestApp,
    peer: &TestApp,
    game: &str,
    (answer, mover): (&Answer, &Player),
    readers: &[Player],
) {
    let (next, version) = next_text(answer);
    assert_eq!(
        next,
        prompts_at(peer, game, mover, version).await,
        "{}'s `next` at {version} differs from a fresh GET /prompts",
        mover.name
    );
    let before = app.state.services.reads.view_counts();
    let read = app
        .get(&format!("/v1/games/{game}/prompts"), &mover.token)
        .await;
    let after = app.state.services.reads.view_counts();
    assert_eq!(read.text, next, "{} read at {version}", mover.name);
    assert_eq!(read.etag, Some(format!("\"{version}\"")));
    assert_eq!(
        (after.renders - before.renders, after.hits - before.hits),
        (0, 1),
        "the read after the command renders nothing: {before:?} → {after:?}"
    );
    for reader in readers.iter().filter(|r| r.id != mover.id) {
        let mine = prompts_at(app, game, reader, version).await;
        let fresh = prompts_at(peer, game, reader, version).await;
        assert_eq!(mine, fresh, "{} at {version}", reader.name);
        // Seats with nothing to send share their bytes by right; choices are one seat's.
        if !answer.body["next"]["choices"]
            .as_array()
            .expect("choices")
            .is_empty()
        {
            assert_ne!(
                mine, next,
                "{} was served {}'s bytes",
                reader.name, mover.name
            );
        }
    }
}

async fn every_seat(kind: &str) {
    let app = spawn_app().await;
    let seats = vec![
        app.register("h1").await,
        app.register("h2").await,
        app.register("h3").await,
    ];
    let game = app.started_game(kind, &seats, json!({}), None).await;
    let peer = app.peer("hot36-fresh").await;
    let mut readers = seats.clone();
    readers.push(app.register("watcher").await);
    let mut movers = std::collections::HashSet::new();
    for _ in 0..12 {
        let Some((seat, command)) = next_move(&app, &game, &seats).await else {
            break;
        };
        let answer = app.command(&game, &seats[seat], command).await;
        check_next(&app, &peer, &game, (&answer, &seats[seat]), &readers).await;
        movers.insert(seat);
    }
    assert!(movers.len() >= 2, "only seats {movers:?} moved");
}

#[actix_web::test]
async fn hot36_next_is_the_fresh_prompts_of_its_version_for_every_seat_whisky_race() {
    every_seat("whisky_race").await;
}

#[actix_web::test]
async fn hot36_next_is_the_fresh_prompts_of_its_version_for_every_seat_bandits() {
    every_seat("bandits").await;
}

/// A guest seat registers in place (its name changes, not the version) and a move is made
/// through another instance this one has not heard yet: each command answer here still carries
/// the fresh prompts of its own version, and a repeat of the other instance's command id
/// answers with the prompts of the head it caught up to.
#[actix_web::test]
async fn hot36_next_after_a_rename_and_a_catch_up_from_another_instance() {
    let app = spawn_app().await;
    let guest = app.guest().await;
    let seats = vec![
        app.register("r1").await,
        guest.clone(),
        app.register("r3").await,
    ];
    let game = app.started_game("bandits", &seats, json!({}), None).await;
    let peer = app.peer("hot36-peer").await;

    // Every reader's prompts cached here, then the guest is renamed.
    for seat in &seats {
        app.get(&format!("/v1/games/{game}/prompts"), &seat.token)
            .await
            .ok();
    }
    let registered = app
        .request(
            "POST",
            "/v1/auth/register",
            Some(&guest.token),
            Some(&json!({"name": "renamed36", "password": "correct horse battery"})),
            &[],
        )
        .await
        .ok();
    let mut seats = seats;
    seats[1].token = registered["access_token"].as_str().expect("token").into();
    for _ in 0..3 {
        let (seat, command) = next_move(&app, &game, &seats).await.expect("a move");
        let answer = app.command(&game, &seats[seat], command).await;
        check_next(&app, &peer, &game, (&answer, &seats[seat]), &seats).await;
    }

    // The other instance moves; this one is told the same command id at once.
    let (seat, command) = next_move(&peer, &game, &seats).await.expect("a move");
    let body = json!({"command_id": uuid::Uuid::new_v4(), "command": command});
    let path = format!("/v1/games/{game}/commands");
    let first = peer.post(&path, &seats[seat].token, &body).await;
    let (_, moved_to) = next_text(&first);
    let repeat = app.post(&path, &seats[seat].token, &body).await;
    assert_eq!(
        repeat.body["version"], first.body["version"],
        "{}",
        repeat.text
    );
    let (_, version) = next_text(&repeat);
    assert!(version >= moved_to, "{version} < {moved_to}");
    check_next(&app, &peer, &game, (&repeat, &seats[seat]), &seats).await;

    // And a new command here right after another move there (a stale cache decides first).
    let (seat, command) = next_move(&peer, &game, &seats).await.expect("a move");
    let moved = peer.command(&game, &seats[seat], command).await.ok();
    let (seat, command) = {
        let version = moved["version"].as_u64().expect("version");
        let mover = moved["next"]["prompts"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["must"] == json!(true)))
            .and_then(|p| p["seat"].as_u64())
            .expect("a seat must act") as usize;
        let mine = prompts_at(&peer, &game, &seats[mover - 1], version).await;
        let mine: Value = serde_json::from_str(&mine).expect("json");
        (
            mover - 1,
            commands_of(&mine).into_iter().next().expect("a command"),
        )
    };
    let answer = app.command(&game, &seats[seat], command).await;
    check_next(&app, &peer, &game, (&answer, &seats[seat]), &seats).await;
}
