//! Issue 28: the game use cases are small services, each type implemented in its one home file
//! (`api/src/application/`), and `MoveAudit` is one type: the move audit a use case computes, a
//! dispute stores and the HTTP answer serializes (its events in the `EventOut` wire shape).

use homestretch_tests::spawn_app;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const APPLICATION: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../api/src/application");

/// The production code of each file of `application/` (its `#[cfg(test)]` module left out).
fn application_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(Path::new(APPLICATION))
        .expect("the application folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            let name = path.file_name().expect("a name").to_string_lossy().into();
            (name, code)
        })
        .collect();
    files.sort();
    files
}

/// The type an `impl` line implements (`impl<E> X<E>`, `impl Trait for X` → `X`).
fn implemented(line: &str) -> Option<String> {
    let rest = line.strip_prefix("impl")?;
    let rest = if rest.starts_with('<') {
        // Skip the impl's own generics, nested `<…>` included.
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(i, c)| {
            depth += match c {
                '<' => 1,
                '>' => -1,
                _ => 0,
            };
            (depth == 0).then_some(i + 1)
        })?;
        &rest[end..]
    } else {
        rest
    };
    let rest = rest.trim_start();
    let target = match rest.split_once(" for ") {
        Some((_, target)) => target,
        None => rest,
    };
    let name: String = target
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Each type defined in `files`, with its home file; and the files implementing each type.
fn homes_and_impls(
    files: &[(String, String)],
) -> (BTreeMap<String, String>, BTreeMap<String, BTreeSet<String>>) {
    let mut homes = BTreeMap::new();
    let mut impls: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in files {
        for line in code.lines() {
            let bare = line
                .trim_start_matches("pub ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub(crate) ");
            for keyword in ["struct ", "enum ", "trait "] {
                if let Some(rest) = bare.strip_prefix(keyword) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    homes.insert(name, file.clone());
                }
            }
            if let Some(name) = implemented(line) {
                impls.entry(name).or_default().insert(file.clone());
            }
        }
    }
    (homes, impls)
}

/// Types of `application/` implemented outside their home file, as `Type: files`.
fn strays(files: &[(String, String)]) -> Vec<String> {
    let (homes, impls) = homes_and_impls(files);
    impls
        .iter()
        .filter_map(|(name, in_files)| {
            let home = homes.get(name)?;
            let away: Vec<&String> = in_files.iter().filter(|f| *f != home).collect();
            (!away.is_empty()).then(|| format!("{name} (home {home}): {away:?}"))
        })
        .collect()
}

#[test]
fn each_application_service_is_implemented_in_its_home_file_only() {
    let found = strays(&application_files());
    // `Loaded` (a cached game, `loaded.rs`) keeps its clock methods in `clocks.rs` and its
    // command methods in `commands.rs`: moving them home would make `loaded.rs` name
    // `clocks.rs`, which names `loaded.rs` (an import circle). It is no service.
    let found: Vec<String> = found
        .into_iter()
        .filter(|s| !s.starts_with("Loaded "))
        .collect();
    assert_eq!(found, Vec::<String>::new(), "impl blocks away from home");
}

#[test]
fn the_home_file_check_finds_a_stray_impl() {
    // The shape of today's main before issue 28's split: one service, its methods in the
    // files of its use cases.
    let files = vec![
        (
            "service.rs".to_string(),
            "pub struct GameService {}\nimpl GameService {}\n".to_string(),
        ),
        (
            "reads.rs".to_string(),
            "impl GameService {\n    pub fn detail(&self) {}\n}\n".to_string(),
        ),
        (
            "games.rs".to_string(),
            "pub struct Games;\npub trait Heads {}\nimpl Heads for Games {}\n\
             impl<E: Clone> Games {}\n#[cfg(test)]\nmod tests { impl Games {} }\n"
                .to_string(),
        ),
    ];
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|(name, text)| {
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (name, code)
        })
        .collect();
    assert_eq!(
        strays(&files),
        vec![r#"GameService (home service.rs): ["reads.rs"]"#.to_string()]
    );
}

#[test]
fn move_audit_is_defined_once() {
    let api = Path::new(APPLICATION).join("..");
    let mut defined = Vec::new();
    let mut stack = vec![api];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                if text.contains("struct MoveAudit") {
                    defined.push(path.display().to_string());
                }
            }
        }
    }
    assert_eq!(defined.len(), 1, "{defined:?}");
}

/// The keys of an `EventOut` (`components.schemas.EventOut` in the served document).
const EVENT_OUT: [&str; 6] = ["actor", "data", "hash", "recorded_at", "seq", "type"];

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

#[actix_web::test]
async fn a_move_audit_answers_its_events_in_the_wire_shape_and_a_dispute_stores_none() {
    let app = spawn_app().await;
    let players = crate::audit::players(&app).await;
    let id = app.started_game("mush", &players, json!({}), None).await;
    app.play_randomly(&id, &players, 5, 6).await;
    let version = app.game(&id, &players[0]).await["version"]
        .as_u64()
        .expect("a version");
    let explained = app
        .get(
            &format!("/v1/games/{id}/audit/{version}"),
            &players[0].token,
        )
        .await
        .ok();
    let events = explained["events"].as_array().expect("events");
    assert!(!events.is_empty(), "{explained}");
    for event in events {
        assert_eq!(keys(event), EVENT_OUT, "{event}");
    }
    let last = events.last().expect("an event");
    assert_eq!(last["seq"], version, "{explained}");
    // The dispute answers the filer's audit with its events, and stores only its public part.
    let dispute = app
        .post(
            &format!("/v1/games/{id}/disputes"),
            &players[0].token,
            &json!({"seq": version, "reason": "too fast"}),
        )
        .await
        .ok();
    assert_eq!(dispute["audit"]["events"], explained["events"], "{dispute}");
    let dispute_id = uuid::Uuid::parse_str(dispute["id"].as_str().expect("an id")).expect("a uuid");
    let stored: Value = sqlx::query_scalar("SELECT audit FROM disputes WHERE id = $1")
        .bind(dispute_id)
        .fetch_one(&app.pool)
        .await
        .expect("the stored dispute");
    assert_eq!(stored["seq"], version, "{stored}");
    assert!(stored.get("events").is_none(), "{stored}");
    assert!(stored.get("state_before").is_none(), "{stored}");
}
