//! A client generated from `openapi/openapi.json` by openapi-python-client (PyPI) plays whole
//! games of every kind against a real server, picking its moves from `choices`: no hand-written
//! request, and every command kind of each game is sent at least once (issue 14). The server's
//! dice are fixed by an admin host (`rng_seed`), so the rare windows (a Banff veto, an
//! interrogation) open on every run: no kind is exempt.
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

/// One game for the generated client: kind, seats, options, the bot's seed, and the server's
/// dice seed (`rng_seed`, fixed by an admin host) so that rare windows are reached on every run.
type Game = (&'static str, u8, &'static str, u64, &'static str);

async fn play((kind, seats, options, seed, dice): Game) -> serde_json::Value {
    let app = spawn_app().await;
    let url = app.address.clone();
    // Fixing the dice is an admin's right: the client hosts with an admin's token (the other
    // seats stay guests created by the client itself).
    let host = app.admin("gen-host").await.token;
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
                dice,
            ])
            .env("HS_HOST_TOKEN", host)
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

/// Plays the games (at once: each has its own server and client process) and checks that
/// together they sent every command kind of the game's union.
async fn every_kind(prefix: &str, games: &[Game]) {
    let mut used = BTreeSet::new();
    for result in futures_util::future::join_all(games.iter().copied().map(play)).await {
        assert!(result["commands"].as_u64().unwrap() > 3, "{result}");
        used.extend(
            result["kinds_used"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string()),
        );
    }
    let missing: Vec<_> = command_kinds(prefix).difference(&used).cloned().collect();
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
                // These dice let a Banff be bought while another seat sells: a veto window.
                "dice-3",
            ),
            ("whisky_race", 3, "{}", 4, "dice-0"),
        ],
    )
    .await;
}

#[actix_web::test]
async fn a_generated_client_plays_bandits_with_every_command_kind() {
    every_kind(
        "Bandits",
        // Two short games with fixed dice: each sends a pawn to interrogation and keeps a hand
        // over the limit (the bot's thrift); with other dice one game may miss either. Since
        // BD-516 (the hunter's move in pieces) games run differently: the bots of seeds 5 and
        // 6 (and 7) no longer reach the hand limit; those of 8 and 9 each send every kind.
        &[
            (
                "bandits",
                3,
                r#"{"pawns_per_player": 2, "bounty_hunter": true}"#,
                8,
                "dice-0",
            ),
            (
                "bandits",
                3,
                r#"{"pawns_per_player": 2, "bounty_hunter": true}"#,
                9,
                "dice-0",
            ),
        ],
    )
    .await;
}

#[actix_web::test]
async fn a_generated_client_plays_mush_races_with_every_command_kind() {
    every_kind(
        "Mush",
        &[
            ("mush", 3, r#"{"layout": "first_game"}"#, 7, "dice-0"),
            ("mush", 4, r#"{"layout": "base"}"#, 8, "dice-0"),
        ],
    )
    .await;
}
