//! No import circle between the files of `api/` and `infra/`, nor between the rooms of a game
//! in `domain/` (issue 28): the graph of their `use` lines and paths
//! (`bench/tools/import_graph.py`, see `docs/architecture.md`) has no cycle, so a new circle
//! fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The circles the tool reports in `folders` (its lines), and whether it said there were any.
fn circles(root: &Path, folders: &[&str]) -> (Vec<String>, bool) {
    let tool = Path::new(ROOT).join("bench/tools/import_graph.py");
    let output = Command::new("python3")
        .arg(tool)
        .args(folders)
        .current_dir(root)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found = stdout
        .lines()
        .filter(|l| l.starts_with("circle in"))
        .map(str::to_string)
        .collect();
    (found, !output.status.success())
}

#[test]
fn no_import_circle_between_the_files_of_api_and_infra() {
    let (found, _) = circles(Path::new(ROOT), &["api/src", "infra/src"]);
    assert_eq!(found, Vec::<String>::new(), "a new import circle");
}

#[test]
fn no_import_circle_between_the_rooms_of_a_game() {
    let (found, _) = circles(
        Path::new(ROOT),
        &[
            "--rooms",
            "domain/src/whisky_race",
            "domain/src/bandits",
            "domain/src/mush",
        ],
    );
    assert_eq!(found, Vec::<String>::new(), "a new circle between rooms");
}

// The files of `domain/src` too: the engine's basics below the `Game` trait, `any.rs` below
// `sim.rs`, each game's rooms below its `mod.rs`, the files of a room below its `mod.rs`.
#[test]
fn no_import_circle_between_the_files_of_domain() {
    let (found, _) = circles(Path::new(ROOT), &["domain/src"]);
    assert_eq!(
        found,
        Vec::<String>::new(),
        "a new import circle in domain/src"
    );
}

/// A crate under a fresh folder, from `(path, text)` pairs.
fn crate_of(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("import-graph-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

// The check can fail: a glob `use super::*` of a child whose parent re-exports it, and two
// siblings naming each other, are circles; the same names in comments, strings and test
// modules are not.
#[test]
fn the_circle_check_finds_circles_and_only_in_code() {
    let dir = crate_of(
        "circles",
        &[
            ("src/lib.rs", "mod app;\nmod a;\nmod b;\n"),
            (
                "src/app/mod.rs",
                "mod child;\npub use child::Thing;\npub struct Shared;\n",
            ),
            (
                "src/app/child.rs",
                "use super::*;\npub struct Thing(Shared);\n",
            ),
            ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
            ("src/b.rs", "pub struct B(Box<crate::a::A>);\n"),
        ],
    );
    let (found, failed) = circles(&dir, &["src"]);
    assert!(failed, "{found:?}");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .any(|c| c.contains("src/a.rs") && c.contains("src/b.rs"))
    );
    assert!(found.iter().any(|c| c.contains("src/app/child.rs")));

    let clean = crate_of(
        "clean",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
            (
                "src/b.rs",
                "// crate::a::A is named in a comment only\npub struct B;\n\
                 pub const S: &str = \"crate::a::A\";\n\
                 #[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
            ),
        ],
    );
    let (found, failed) = circles(&clean, &["src"]);
    assert!(!failed && found.is_empty(), "{found:?}");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(clean);
}

// `--rooms` collapses each file to its room: two rooms naming each other through their files
// are a circle; a room's test file (`#[cfg(test)] mod tests;`) naming a room above it, and a
// `super::` inside an inline `mod` block (the file's own module, not `mod.rs`), are not.
#[test]
fn the_room_check_finds_circles_between_rooms_only() {
    let game = |name: &str, flow: &str| {
        crate_of(
            name,
            &[
                ("src/lib.rs", "pub mod game;\n"),
                (
                    "src/game/mod.rs",
                    "pub mod choices;\npub mod decide;\npub mod state;\npub use choices::LIMIT;\n",
                ),
                ("src/game/state.rs", "pub struct State;\n"),
                (
                    "src/game/decide/mod.rs",
                    "mod flow;\nuse super::state::State;\npub fn decide(_: &State) {}\n\
                     #[cfg(test)]\nmod tests;\n",
                ),
                ("src/game/decide/flow.rs", flow),
                (
                    "src/game/decide/tests.rs",
                    "use crate::game::choices::LIMIT;\n",
                ),
                (
                    "src/game/choices.rs",
                    "pub const LIMIT: usize = 3;\n\
                     pub fn f() { super::decide::decide(&super::state::State) }\n\
                     mod helpers {\n    use super::LIMIT;\n    pub const N: usize = LIMIT;\n}\n",
                ),
            ],
        )
    };
    let tangled = game(
        "rooms-tangled",
        "pub fn guard() -> usize { crate::game::choices::LIMIT }\n",
    );
    let (found, failed) = circles(&tangled, &["--rooms", "src/game"]);
    assert!(failed, "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("choices → decide → choices"), "{found:?}");

    let layered = game("rooms-layered", "pub fn guard() {}\n");
    let (found, failed) = circles(&layered, &["--rooms", "src/game"]);
    assert!(!failed && found.is_empty(), "{found:?}");
    let _ = std::fs::remove_dir_all(tangled);
    let _ = std::fs::remove_dir_all(layered);
}
