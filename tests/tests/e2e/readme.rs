//! The README's example block runs as written (bash, curl, jq) against a fresh server, so the
//! docs cannot drift from the API.

use homestretch_tests::spawn_app;
use std::process::Command;

/// The first ```sh block after the heading `heading` in README.md.
fn block(heading: &str) -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let after = &readme[readme.find(heading).expect("the heading")..];
    let start = after.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = after[start..].find("```").expect("the block's end");
    after[start..start + end].to_string()
}

#[actix_web::test]
async fn the_readme_game_runs_as_written() {
    for tool in ["bash", "curl", "jq"] {
        assert!(
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success()),
            "the README's examples need {tool}: install it (Debian: apt-get install -y curl jq)"
        );
    }
    let app = spawn_app().await;
    let script = block("## A game in a few requests");
    let url = app.address.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .env("HS", url)
            .output()
            .expect("bash runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the README block failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // the last line is the command's answer: a new version and its events
    let last: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("output")).expect("JSON");
    assert!(last["version"].as_u64().unwrap() > 1, "{stdout}");
    assert!(!last["events"].as_array().unwrap().is_empty(), "{stdout}");
}

/// `homestretch help` lists every subcommand the command line dispatches on (read from its
/// `match`, so a new subcommand without a help line fails here).
#[test]
fn help_lists_every_subcommand() {
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../api/src/cli.rs")).unwrap();
    let dispatch = &source[source
        .find("match command.as_str() {")
        .expect("the dispatch")..];
    let mut commands = Vec::new();
    // The dispatch's own arms are indented by 8 spaces (nested matches are deeper).
    for line in dispatch.lines().skip(1) {
        let Some(line) = line.strip_prefix("        ") else {
            continue;
        };
        if line.starts_with('_') {
            break;
        }
        if line.starts_with(' ') {
            continue;
        }
        if let Some((arms, _)) = line.split_once("=>") {
            for arm in arms.split('|') {
                let arm = arm.trim();
                if let Some(name) = arm.strip_prefix('"').and_then(|a| a.split('"').next())
                    && !name.starts_with('-')
                {
                    commands.push(name.to_string());
                }
            }
        }
    }
    assert!(commands.len() >= 10, "{commands:?}");
    for command in commands {
        assert!(
            api::cli::USAGE.contains(&format!("homestretch {command}"))
                || (command == "serve" && api::cli::USAGE.contains("homestretch [serve]")),
            "`homestretch help` does not list `{command}`"
        );
    }
}
