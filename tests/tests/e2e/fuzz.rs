//! Spec fuzzing: schemathesis (PyPI) generates requests for every operation of the served
//! `openapi.json` — examples, boundary values, random and stateful sequences — with a valid
//! token, and checks every answer: no 5xx, documented status codes, documented content types,
//! bodies and headers that match the spec. (A bounded run; `tests/drills/fuzz.sh` runs longer.)
//!
//! The fuzzer's user hosts a game of every kind with every option sample, each played across
//! several snapshots (or to its end) before the run; `tests/drills/schemathesis_hooks.py`
//! points most generated game ids at those games, so commands, replays, audits, exports and
//! disputes are fuzzed against real states of every game, as a seated player.

use api::application::CommandRequest;
use homestretch_tests::{Player, TestApp, spawn_app};
use std::process::Command;

/// schemathesis, pinned, in the suite's virtual environment under `target/` (never global).
fn ensure_schemathesis() -> std::path::PathBuf {
    homestretch_tests::venv::python()
}

/// Plays random legal commands in process (fast: this is the fuzzing's setup, not what is
/// tested) until the game has more than `events` events or ends. Returns its version.
async fn play_past(app: &TestApp, id: &str, players: &[Player], events: u64, seed: u64) -> u64 {
    let game: infra::GameId = id.parse().unwrap();
    let users: Vec<infra::UserId> = players.iter().map(|p| p.id.parse().unwrap()).collect();
    let mut rng = seed | 1;
    let mut pick = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    loop {
        let answer = app
            .state
            .services
            .reads
            .prompts(game, users[0])
            .await
            .unwrap();
        let (version, prompts) = (answer.version, answer.prompts);
        if version > events || prompts.is_empty() {
            return version;
        }
        let seat = prompts[pick(prompts.len())].seat;
        let user = users[seat.index()];
        let legal = app
            .state
            .services
            .reads
            .prompts(game, user)
            .await
            .unwrap()
            .legal;
        let command = legal[pick(legal.len())].clone();
        app.state
            .services
            .commands
            .command(
                game,
                user,
                CommandRequest {
                    command_id: uuid::Uuid::new_v4(),
                    expected_version: None,
                    command,
                },
            )
            .await
            .expect("a legal command is accepted");
    }
}

#[actix_web::test]
async fn schemathesis_finds_no_server_error_and_no_answer_outside_the_spec() {
    let python = tokio::task::spawn_blocking(ensure_schemathesis)
        .await
        .unwrap();
    let app = spawn_app().await;
    let player = app.guest().await;
    // Every kind and option sample, at its smallest table, past three snapshots (played
    // side by side: the time goes to commits, not to the CPU).
    let started = std::time::Instant::now();
    let mut tables = Vec::new();
    for game in domain::games() {
        let seats = *game.seat_range().start();
        for (i, options) in game.option_samples(seats).into_iter().enumerate() {
            let mut table = vec![player.clone()];
            for _ in 1..seats {
                table.push(app.guest().await);
            }
            let id = app.started_game(game.kind(), &table, options, None).await;
            tables.push((game.kind(), i, id, table));
        }
    }
    let played = futures_util::future::join_all(
        tables
            .iter()
            .map(|(_, i, id, table)| play_past(&app, id, table, 3 * 128, *i as u64 + 1)),
    )
    .await;
    eprintln!("tables played in {:.1} s", started.elapsed().as_secs_f64());
    let mut games = Vec::new();
    for ((kind, i, id, _), version) in tables.into_iter().zip(played) {
        eprintln!("{kind} sample {i}: version {version}");
        games.push(id);
    }
    let url = format!("{}/openapi.json", app.address);
    let drills = concat!(env!("CARGO_MANIFEST_DIR"), "/drills");
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .args(["-m", "schemathesis.cli", "run", &url])
            .args(["-H", &format!("Authorization: Bearer {}", player.token)])
            .args([
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance",
            ])
            .args(["-n", "15", "--seed", "20261122", "--request-timeout", "20"])
            .env("NO_COLOR", "1")
            .env("PYTHONPATH", drills)
            .env("SCHEMATHESIS_HOOKS", "schemathesis_hooks")
            .env("HOMESTRETCH_FUZZ_GAMES", games.join(","))
            .output()
            .expect("schemathesis runs")
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis found problems:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("passed"), "no test case ran:\n{report}");
}
