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

/// `homestretch help` lists every subcommand (clap renders it from the one `Command` enum, so a
/// new subcommand cannot be left out) — and every `homestretch WORD` the README names is one.
#[test]
fn help_lists_every_subcommand() {
    let help = api::cli::help_text();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let mut named = Vec::new();
    for (at, _) in readme.match_indices("homestretch ") {
        let word: String = readme[at + "homestretch ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if word.len() > 2 && !named.contains(&word) {
            named.push(word);
        }
    }
    assert!(named.len() >= 3, "{named:?}");
    for word in named {
        assert!(
            help.contains(&format!("  {word}")),
            "the README names `homestretch {word}`, which `homestretch help` does not list:\n{help}"
        );
    }
}
