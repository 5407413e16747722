//! A TypeScript client generated from `openapi/openapi.json` (openapi-typescript types +
//! openapi-fetch) compiles under `tsc --strict` without a cast or `any` and plays a whole game
//! of each kind against a real server; the spec passes Redocly's and Spectral's linters with 0
//! errors. The npm packages are installed into `target/ts-client` by `npm ci` from the lockfile
//! committed in `tests/ts_client/` (nothing global, nothing in /tmp).

use homestretch_tests::spawn_app;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const SOURCES: [&str; 5] = [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "play.ts",
    ".spectral.yaml",
];

fn run(dir: &Path, program: &str, args: &[&str]) -> Output {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(
        output.status.success(),
        "`{program} {}` failed:\n{}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn spec() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json")
}

/// `target/ts-client`, with the pinned packages installed and the client generated and
/// compiled (once per test run).
fn workspace() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("ts_client");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ts-client");
        std::fs::create_dir_all(&dir).unwrap();
        for file in SOURCES {
            std::fs::copy(source.join(file), dir.join(file)).unwrap();
        }
        // `npm ci` again only when the lockfile changed (npm ci would wipe and refetch).
        let lock = std::fs::read(dir.join("package-lock.json")).unwrap();
        let stamp = dir.join("node_modules/.homestretch-lock");
        if std::fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
            run(&dir, "npm", &["ci", "--no-audit", "--no-fund"]);
            std::fs::write(&stamp, &lock).unwrap();
        }
        let bin = |tool: &str| dir.join("node_modules/.bin").join(tool);
        run(
            &dir,
            bin("openapi-typescript").to_str().unwrap(),
            &[spec(), "--output", "schema.d.ts"],
        );
        let _ = std::fs::remove_dir_all(dir.join("dist"));
        // tsconfig.json: strict, noImplicitAny, noUncheckedIndexedAccess.
        run(&dir, bin("tsc").to_str().unwrap(), &["-p", "tsconfig.json"]);
        dir
    })
    .clone()
}

#[test]
fn the_typescript_client_has_no_cast_and_no_any() {
    let play =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/ts_client/play.ts")).unwrap();
    // Code only: comments may say "as".
    let play: String = play
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    for banned in [" as ", "<any>", ": any", "any[]", "@ts-", "!."] {
        assert!(!play.contains(banned), "play.ts uses `{banned}`");
    }
}

#[test]
fn the_spec_passes_redocly_and_spectral_with_no_errors() {
    let dir = workspace();
    let bin = |tool: &str| dir.join("node_modules/.bin").join(tool);
    // Redocly's recommended ruleset: exits non-zero on any error.
    run(&dir, bin("redocly").to_str().unwrap(), &["lint", spec()]);
    // Spectral with `spectral:oas`: fails on errors (warnings kept are listed in docs/api.md).
    run(
        &dir,
        bin("spectral").to_str().unwrap(),
        &[
            "lint",
            "--ruleset",
            ".spectral.yaml",
            "--fail-severity",
            "error",
            spec(),
        ],
    );
}

async fn play(kind: &'static str, seats: u8, seed: u64) -> serde_json::Value {
    let app = spawn_app().await;
    let url = app.address.clone();
    let dir = tokio::task::spawn_blocking(workspace).await.unwrap();
    let output = tokio::task::spawn_blocking(move || {
        run(
            &dir,
            "node",
            &[
                "dist/play.js",
                &url,
                kind,
                &seats.to_string(),
                &seed.to_string(),
            ],
        )
    })
    .await
    .unwrap();
    let result: serde_json::Value =
        serde_json::from_slice(output.stdout.trim_ascii()).expect("a JSON summary");
    assert_eq!(result["kind"], kind, "{result}");
    assert!(
        !result["winners"].as_array().unwrap().is_empty(),
        "{result}"
    );
    let finished: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE status = 'finished'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(finished, 1);
    result
}

#[actix_web::test]
async fn the_typescript_client_plays_a_whole_whisky_race() {
    let result = play("whisky_race", 4, 3).await;
    assert!(result["commands"].as_u64().unwrap() > 10, "{result}");
}

#[actix_web::test]
async fn the_typescript_client_plays_a_whole_bandits_game() {
    let result = play("bandits", 3, 5).await;
    assert!(result["commands"].as_u64().unwrap() > 3, "{result}");
}

#[actix_web::test]
async fn the_typescript_client_plays_a_whole_mush_race() {
    let result = play("mush", 3, 7).await;
    assert!(result["commands"].as_u64().unwrap() > 10, "{result}");
}
