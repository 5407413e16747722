//! No import circle between the files of `api/` and `infra/` (issue 28): the graph of their
//! `use` lines and paths (`bench/tools/import_graph.py`, see `docs/architecture.md`) has no
//! cycle, so a new circle fails here.

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
