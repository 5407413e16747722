//! Two server instances on one database (issue 29, what the cluster drill found): instance B
//! has the game cached and has not heard A's append yet (its `LISTEN` session is frozen with
//! SIGSTOP, as a notification late in transit), so B's cache is behind the log.
//!
//! * a retry through B of a command A accepted answers A's answer, and its `next` describes
//!   the game at least at that answer's version (not B's stale copy);
//! * a command legal only in A's newer state, sent through B, is accepted (never refused by a
//!   rule the stale copy believes in).

use homestretch_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// B's `LISTEN` session stopped (SIGSTOP): notifications wait in PostgreSQL's queue and B still
/// believes it hears every append. Resumed (SIGCONT) when dropped, even when the test fails.
struct Deaf(i32);

impl Deaf {
    /// Stops the `LISTEN` session of the instance whose sessions are named `name`.
    async fn stop(app: &TestApp, name: &str) -> Deaf {
        let started = Instant::now();
        loop {
            let pid: Option<i32> = sqlx::query_scalar(
                "SELECT pid FROM pg_stat_activity \
                 WHERE datname = current_database() AND application_name = $1 \
                   AND query LIKE 'LISTEN%'",
            )
            .bind(name)
            .fetch_optional(&app.pool)
            .await
            .unwrap();
            if let Some(pid) = pid {
                // SAFETY: a signal to a PostgreSQL backend of the tests' own cluster.
                assert_eq!(
                    unsafe { libc::kill(pid, libc::SIGSTOP) },
                    0,
                    "SIGSTOP {pid}"
                );
                return Deaf(pid);
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{name} never listened"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Deaf {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe { libc::kill(self.0, libc::SIGCONT) };
    }
}

/// The version `app` shows of `game` (from its cache while it listens).
async fn version_on(app: &TestApp, game: &str, player: &Player) -> u64 {
    app.game(game, player).await["version"].as_u64().unwrap()
}

/// Waits until `app` shows `game` at `version` at least (it heard the append).
async fn until_at(app: &TestApp, game: &str, player: &Player, version: u64) {
    let started = Instant::now();
    while version_on(app, game, player).await < version {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never at {version}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Each seat's legal commands, read through `app`.
async fn legal(app: &TestApp, game: &str, players: &[Player]) -> Vec<Vec<Value>> {
    let mut all = Vec::new();
    for p in players {
        let prompts = app
            .get(&format!("/v1/games/{game}/prompts"), &p.token)
            .await
            .ok();
        all.push(prompts["legal"].as_array().unwrap().clone());
    }
    all
}

/// A started Bandits game for two through A, cached by B at its head.
/// The first seat with something to do.
fn acting_seat(legal: &[Vec<Value>]) -> usize {
    legal
        .iter()
        .position(|l| !l.is_empty())
        .expect("a seat acts")
}

async fn game_on_both(a: &TestApp, b: &TestApp) -> (String, Vec<Player>) {
    let players = vec![a.guest().await, a.guest().await];
    let game = a.started_game("bandits", &players, json!({}), None).await;
    let head = version_on(a, &game, &players[0]).await;
    until_at(b, &game, &players[0], head).await;
    (game, players)
}

#[actix_web::test]
async fn a_retry_through_a_stale_instance_answers_the_first_answer_and_a_next_as_new() {
    let a = spawn_app().await;
    let b = a.peer("fix29-b").await;
    let (game, players) = game_on_both(&a, &b).await;
    let before = legal(&a, &game, &players).await;
    let seat = acting_seat(&before);
    let body = json!({"command_id": uuid::Uuid::new_v4(), "command": before[seat][0]});
    let path = format!("/v1/games/{game}/commands");
    let stale = version_on(&b, &game, &players[0]).await;

    let deaf = Deaf::stop(&a, "fix29-b").await;
    let first = a.post(&path, &players[seat].token, &body).await.ok();
    let answered = first["version"].as_u64().unwrap();
    assert!(answered > stale);
    // B has not heard it: its copy is still the one the command was decided on.
    assert_eq!(version_on(&b, &game, &players[0]).await, stale);

    let again = b.post(&path, &players[seat].token, &body).await.ok();
    drop(deaf);
    assert_eq!(again["version"], first["version"]);
    assert_eq!(again["events"], first["events"]);
    // Today's main answered `next` from B's stale cache: version `stale` < `answered`.
    let next = again["next"]["version"].as_u64().unwrap();
    assert!(
        next >= answered,
        "next at {next}, older than the answer's {answered}"
    );
    assert_eq!(again["next"], first["next"], "the same game, the same seat");
    drop(b);
}

#[actix_web::test]
async fn a_command_legal_only_in_a_newer_state_is_accepted_by_a_stale_instance() {
    let a = spawn_app().await;
    let b = a.peer("fix29-b").await;
    let (game, players) = game_on_both(&a, &b).await;
    // Play through A until a command makes some seat able to act that could not before.
    for _ in 0..40 {
        let before = legal(&a, &game, &players).await;
        let seat = acting_seat(&before);
        let stale = version_on(&b, &game, &players[0]).await;
        let deaf = Deaf::stop(&a, "fix29-b").await;
        let sent = a
            .command(&game, &players[seat], before[seat][0].clone())
            .await
            .ok();
        let head = sent["version"].as_u64().unwrap();
        let after = legal(&a, &game, &players).await;
        let Some(newly) =
            (0..players.len()).find(|&s| before[s].is_empty() && !after[s].is_empty())
        else {
            drop(deaf);
            until_at(&b, &game, &players[0], head).await;
            continue;
        };
        assert_eq!(version_on(&b, &game, &players[0]).await, stale, "B heard");
        // Legal at `head`, not at `stale`: today's main refused it with 422 from B's copy.
        let answer = b
            .command(&game, &players[newly], after[newly][0].clone())
            .await;
        drop(deaf);
        assert_eq!(
            answer.status, 200,
            "refused on a stale copy: {}",
            answer.text
        );
        assert!(answer.body["version"].as_u64().unwrap() > head);
        drop(b);
        return;
    }
    panic!("no command in 40 made a new seat able to act");
}

/// A rule refusal still comes back when the copy is current (the head read changes nothing):
/// a seat with nothing to do is refused with its rule through the stale instance.
#[actix_web::test]
async fn a_command_illegal_in_the_newest_state_is_refused_through_a_stale_instance() {
    let a = spawn_app().await;
    let b = a.peer("fix29-b").await;
    let (game, players) = game_on_both(&a, &b).await;
    let before = legal(&a, &game, &players).await;
    let seat = acting_seat(&before);
    let command = before[seat][0].clone();
    let deaf = Deaf::stop(&a, "fix29-b").await;
    a.command(&game, &players[seat], command.clone()).await.ok();
    let after = legal(&a, &game, &players).await;
    let refused = b.command(&game, &players[seat], command.clone()).await;
    drop(deaf);
    if after[seat].contains(&command) {
        // Still legal (a repeatable action): nothing to refuse here.
        assert_eq!(refused.status, 200, "{}", refused.text);
    } else {
        let problem = refused.problem(422);
        assert!(problem["rule"].is_string(), "{problem}");
    }
    let events = a.all_events(&game, &players[0]).await;
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] > w[0]));
    drop(b);
}

/// Graceful drain (issue 29): the real server binary, SIGTERM'd with a stream open. `/readyz`
/// turns 503 while the process still answers (the balancer takes it out), the stream ends (its
/// client resumes elsewhere), reads and commands are still served during the drain period, and
/// the process exits 0 by itself with no deadline lease left. Today's main stopped accepting at
/// once: `/readyz` was never 503, the next request found the port closed.
#[actix_web::test]
async fn sigterm_turns_readyz_503_ends_streams_keeps_serving_then_exits_0() {
    use homestretch_tests::Database;
    use homestretch_tests::process::{Server, ok};
    let db = Database::new().await;
    let dir = std::env::temp_dir().join(format!("homestretch-drain-{}", uuid::Uuid::new_v4()));
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_homestretch-e2e"));
    let drain = [("HOMESTRETCH_DRAIN_S", "3")];
    let mut server = Server::start_with(binary, "drain-a", &db.url(), &dir, &drain).await;
    let host = ok(server.call("POST", "/v1/auth/guest", None, None).await);
    let token = host["access_token"].as_str().unwrap().to_string();
    let body = json!({"kind": "bandits", "seats": 2});
    let game = ok(server
        .call("POST", "/v1/games", Some(&token), Some(&body))
        .await);
    let id = game["id"].as_str().unwrap().to_string();
    let bot = json!({"policy": "random"});
    ok(server
        .call(
            "POST",
            &format!("/v1/games/{id}/seats/bots"),
            Some(&token),
            Some(&bot),
        )
        .await);
    ok(server
        .call(
            "POST",
            &format!("/v1/games/{id}/start"),
            Some(&token),
            Some(&json!({})),
        )
        .await);
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(60))
        .finish();
    let mut stream = client
        .get(format!("{}/v1/games/{id}/events/stream", server.address()))
        .bearer_auth(&token)
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(stream.status().as_u16(), 200);
    // Live: the log's first event has come.
    let mut seen = String::new();
    while !seen.contains("id: 1\n") {
        use futures_util::StreamExt;
        let chunk = tokio::time::timeout(Duration::from_secs(20), stream.next())
            .await
            .expect("an event")
            .expect("the stream is open")
            .expect("a chunk");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }

    server.terminate();
    // Every answer is 200 until the signal is handled, then 503: never a closed port.
    let started = Instant::now();
    loop {
        let (status, body) = server.call("GET", "/readyz", None, None).await;
        if status == 503 {
            assert_eq!(body["type"], "/problems/unavailable", "{body}");
            break;
        }
        assert_eq!(status, 200, "{body}");
        assert!(started.elapsed() < Duration::from_secs(20), "never 503");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The stream ends cleanly (its client resumes with Last-Event-ID elsewhere)...
    tokio::time::timeout(Duration::from_secs(20), stream.body().limit(1 << 20))
        .await
        .expect("the stream ended")
        .expect("cleanly");
    // ...while requests are still served: a read and a command.
    let path = format!("/v1/games/{id}/prompts");
    let prompts = ok(server.call("GET", &path, Some(&token), None).await);
    let command = prompts["legal"][0].clone();
    assert!(command.is_object(), "the host acts first: {prompts}");
    let sent = json!({"command_id": uuid::Uuid::new_v4(), "command": command});
    let path = format!("/v1/games/{id}/commands");
    ok(server.call("POST", &path, Some(&token), Some(&sent)).await);

    let status = server
        .exited(Duration::from_secs(60))
        .await
        .expect("it stops by itself");
    let log = server.log();
    assert!(status.success(), "{status}:\n{log}");
    assert!(
        log.contains("SIGTERM: draining") && log.contains("homestretch stopped"),
        "{log}"
    );
    // The workers stopped between rounds: no claim of theirs is left to run out.
    let leased: i64 =
        sqlx::query_scalar("SELECT count(*) FROM deadlines WHERE leased_until > now()")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(leased, 0);
    let _ = std::fs::remove_dir_all(&dir);
}
