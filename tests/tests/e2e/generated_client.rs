//! A client generated from `openapi/openapi.json` by openapi-python-client (PyPI) plays whole
//! games of every kind against a real server: no hand-written request.

use homestretch_tests::spawn_app;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// Generates the Python client once per test run (installing the generator if needed).
fn generated_client() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let has_generator = Command::new("python3")
            .args(["-m", "openapi_python_client", "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !has_generator {
            let status = Command::new("python3")
                .args(["-m", "pip", "install", "--quiet", "openapi-python-client"])
                .status()
                .expect("python3 runs");
            assert!(
                status.success(),
                "could not install openapi-python-client from PyPI"
            );
        }
        let dir = std::env::temp_dir().join(format!("homestretch-client-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let output = Command::new("python3")
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
            .arg(dir.join("hs_client"))
            .output()
            .expect("the generator runs");
        assert!(
            dir.join("hs_client/api/games/send_command.py").exists(),
            "generation failed: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        dir
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
    let client = tokio::task::spawn_blocking(generated_client).await.unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/generated_client/play.py");
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
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
            .expect("python3 runs")
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "the generated client failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value =
        serde_json::from_slice(output.stdout.trim_ascii()).expect("a JSON summary");
    // the server agrees the game is over
    let summary: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE status = 'finished'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(summary, 1);
    result
}

#[actix_web::test]
async fn a_generated_client_plays_a_whole_whisky_race() {
    let result = play("whisky_race", 4, "{}", 3).await;
    assert!(result["commands"].as_u64().unwrap() > 10, "{result}");
}

#[actix_web::test]
async fn a_generated_client_plays_a_whole_bandits_game() {
    let result = play("bandits", 3, r#"{"pawns_per_player": 1}"#, 5).await;
    assert!(result["commands"].as_u64().unwrap() > 3, "{result}");
}

#[actix_web::test]
async fn a_generated_client_plays_a_whole_mush_race() {
    let result = play("mush", 3, r#"{"layout": "first_game"}"#, 7).await;
    assert!(result["commands"].as_u64().unwrap() > 10, "{result}");
}
