//! The catalogue is complete (issue 18): every rule ID of the specs, every problem type,
//! every notification type and every error the server says (`errors.*`) has an English and a
//! French text, with the same arguments, and nothing else is in it.

use super::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn keys<V>(map: &BTreeMap<String, V>) -> BTreeSet<&str> {
    map.keys().map(String::as_str).collect()
}

/// The rule IDs a spec defines: its lines `* **WR-016** …` / `- **MU-021** …`.
fn defined_ids(spec: &str) -> BTreeSet<String> {
    spec.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = line
                .strip_prefix("* **")
                .or_else(|| line.strip_prefix("- **"))?;
            let (id, _) = rest.split_once("**")?;
            let (prefix, number) = id.split_once('-')?;
            (["WR", "BD", "MU"].contains(&prefix)
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit()))
            .then(|| id.to_string())
        })
        .collect()
}

/// The rules this project adds where the rulebook is silent (a protocol rule such as BD-515):
/// the numbered items `11. **BD-515, …**` of `docs/rules/*.md`, in this repository.
fn project_ids() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules");
    let mut ids = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for line in text.lines() {
            let Some((number, rest)) = line.trim_start().split_once(". **") else {
                continue;
            };
            let id = rest.split([',', '*', ' ']).next().unwrap_or_default();
            if number.bytes().all(|b| b.is_ascii_digit())
                && let Some((prefix, n)) = id.split_once('-')
                && ["WR", "BD", "MU"].contains(&prefix)
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
            {
                ids.insert(id.to_string());
            }
        }
    }
    ids
}

/// The specs (`shared/rules/*.md`, beside the repository; `HOMESTRETCH_RULES_DIR` overrides).
fn spec_dir() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("HOMESTRETCH_RULES_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            manifest.join("../../shared/rules"),
            manifest.join("../../../shared/rules"),
        ])
        .find(|dir| dir.join("whisky-race.md").is_file())
}

/// Every rule ID written as a string literal in the engine's source (`ensure(…, "WR-019", …)`).
fn ids_in_source(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            ids_in_source(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for piece in text.split('"').skip(1).step_by(2) {
                if let Some((prefix, number)) = piece.split_once('-')
                    && ["WR", "BD", "MU"].contains(&prefix)
                    && !number.is_empty()
                    && number.bytes().all(|b| b.is_ascii_digit())
                {
                    out.insert(piece.to_string());
                }
            }
        }
    }
}

#[test]
fn both_languages_have_the_same_entries_and_arguments() {
    let (en, fr) = (catalogue(Lang::En), catalogue(Lang::Fr));
    assert_eq!(keys(&en.rules), keys(&fr.rules), "rule IDs differ");
    assert_eq!(
        keys(&en.problems),
        keys(&fr.problems),
        "problem types differ"
    );
    assert_eq!(keys(&en.notifications), keys(&fr.notifications));
    assert_eq!(keys(&en.errors), keys(&fr.errors), "error keys differ");
    let same_args = |what: &str, a: &str, b: &str| {
        let (mut x, mut y) = (placeholders(a), placeholders(b));
        x.sort_unstable();
        y.sort_unstable();
        assert_eq!(x, y, "{what}: the arguments differ between {a:?} and {b:?}");
    };
    for (id, text) in &en.rules {
        assert!(
            !text.trim().is_empty() && !fr.rules[id].trim().is_empty(),
            "{id}"
        );
        same_args(id, text, &fr.rules[id]);
    }
    for (slug, text) in &en.problems {
        same_args(slug, &text.detail, &fr.problems[slug].detail);
        same_args(slug, &text.title, &fr.problems[slug].title);
    }
    for (kind, text) in &en.notifications {
        let french = &fr.notifications[kind];
        same_args(kind, &text.detail, &french.detail);
        same_args(kind, &text.title, &french.title);
        assert_eq!(
            text.otherwise.is_some(),
            french.otherwise.is_some(),
            "{kind}"
        );
        if let (Some(a), Some(b)) = (&text.otherwise, &french.otherwise) {
            same_args(kind, a, b);
        }
    }
    for (slug, text) in en.problems.iter().chain(&fr.problems) {
        assert!(text.otherwise.is_none(), "{slug}: problems have one text");
    }
}

#[test]
fn every_notification_type_has_both_languages_and_no_other() {
    for lang in LANGS {
        let listed: BTreeSet<&str> = NOTIFICATION_TYPES.into_iter().collect();
        assert_eq!(keys(&catalogue(lang).notifications), listed, "{lang:?}");
    }
}

#[test]
fn every_rule_id_of_the_specs_has_both_languages_and_no_orphan() {
    let Some(dir) = spec_dir() else {
        eprintln!("rule specs not found beside the repository; checking the engine's IDs only");
        return;
    };
    let mut specified = BTreeSet::new();
    for spec in ["whisky-race.md", "bandits.md", "mush.md"] {
        let text = std::fs::read_to_string(dir.join(spec)).unwrap();
        let ids = defined_ids(&text);
        assert!(ids.len() > 100, "{spec}: only {} rule IDs read", ids.len());
        specified.extend(ids);
    }
    let added = project_ids();
    assert!(added.contains("BD-515"), "project rules read: {added:?}");
    specified.extend(added);
    for lang in LANGS {
        let catalogued: BTreeSet<String> = catalogue(lang).rules.keys().cloned().collect();
        let missing: Vec<_> = specified.difference(&catalogued).collect();
        let orphans: Vec<_> = catalogued.difference(&specified).collect();
        assert!(missing.is_empty(), "{lang:?}: no message for {missing:?}");
        assert!(
            orphans.is_empty(),
            "{lang:?}: not a rule of the specs: {orphans:?}"
        );
    }
}

#[test]
fn every_rule_id_the_engine_names_has_both_languages() {
    let mut named = BTreeSet::new();
    ids_in_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut named,
    );
    assert!(
        named.len() > 100,
        "only {} IDs found in the source",
        named.len()
    );
    for lang in LANGS {
        let missing: Vec<_> = named.iter().filter(|id| rule(id, lang).is_none()).collect();
        assert!(missing.is_empty(), "{lang:?}: no message for {missing:?}");
    }
}

#[test]
fn accept_language_honours_q_values() {
    let cases = [
        ("fr", Some(Lang::Fr)),
        ("fr-CA", Some(Lang::Fr)),
        ("FR-ca;q=0.9", Some(Lang::Fr)),
        ("en-GB", Some(Lang::En)),
        ("de", Some(Lang::En)),
        ("*", Some(Lang::En)),
        ("de, fr;q=0.5", Some(Lang::Fr)),
        ("en;q=0.4, fr;q=0.8", Some(Lang::Fr)),
        ("fr;q=0.4, en;q=0.8", Some(Lang::En)),
        ("fr;q=0, en;q=0.1", Some(Lang::En)),
        ("fr, en", Some(Lang::Fr)),
        ("en, fr", Some(Lang::En)),
        ("fr;q=0", Some(Lang::En)),
        ("", None),
        (" , ", None),
    ];
    for (header, expected) in cases {
        assert_eq!(Lang::from_accept_language(header), expected, "{header:?}");
    }
}

#[test]
fn arguments_are_filled_and_places_are_ordinals_of_the_language() {
    let params = [("game", "Mush #7"), ("place", "2")];
    assert_eq!(
        notification("game_finished", Lang::En, &params),
        "The game Mush #7 is over: you came 2nd."
    );
    assert_eq!(
        notification("game_finished", Lang::Fr, &params),
        "La partie Mush #7 est terminée : vous êtes 2e."
    );
    // A player the game does not rank (only its winner has a place) is told the game is over.
    assert_eq!(
        notification("game_finished", Lang::Fr, &[("game", "Bandits #2")]),
        "La partie Bandits #2 est terminée."
    );
    assert_eq!(
        notification("your_turn", Lang::En, &[("game", "Mush #7")]),
        "It is your turn in the game Mush #7."
    );
    assert_eq!(ordinal("1", Lang::Fr), "1er");
    assert_eq!(ordinal("11", Lang::En), "11th");
    assert_eq!(ordinal("23", Lang::En), "23rd");
    // A missing argument stays visible instead of vanishing.
    assert_eq!(fill("a {b} c", Lang::En, &[]), "a {b} c");
    assert_eq!(notification("no_such_type", Lang::Fr, &[]), "no_such_type");
}

/// Every `says("key")` of the source under `dir` with the names of its `.arg("name", …)` /
/// `.seat("name", …)` chain, as `(file, key, names)`.
fn says_in_source(dir: &Path, out: &mut Vec<(String, String, BTreeSet<String>)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            says_in_source(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("i18n/tests.rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            // `says("key")`, or as rustfmt may break it: `says(\n "key",\n)`.
            for piece in text.split("says(").skip(1) {
                let Some(piece) = piece.trim_start().strip_prefix('"') else {
                    continue;
                };
                let Some((key, rest)) = piece.split_once('"') else {
                    continue;
                };
                let mut names = BTreeSet::new();
                // The chain: `)` then any number of `.arg("name", value)` / `.seat(…)`.
                let rest = rest.trim_start();
                let rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
                let Some(mut rest) = rest.strip_prefix(')') else {
                    continue;
                };
                loop {
                    let trimmed = rest.trim_start();
                    let Some(call) = trimmed
                        .strip_prefix(".arg(\"")
                        .or_else(|| trimmed.strip_prefix(".seat(\""))
                    else {
                        break;
                    };
                    let Some((name, after)) = call.split_once('"') else {
                        break;
                    };
                    names.insert(name.to_string());
                    // Skip the value: to the `)` that closes the call.
                    let mut depth = 1;
                    let mut end = after.len();
                    for (i, c) in after.char_indices() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    end = i + 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    rest = &after[end..];
                }
                out.push((path.display().to_string(), key.to_string(), names));
            }
        }
    }
}

/// Issue 18: every message the engine says is in the catalogue in both languages, with exactly
/// the arguments the code gives it; and the catalogue holds no message nobody says.
#[test]
fn every_violation_message_the_engine_says_has_both_languages_and_its_arguments() {
    let mut used = Vec::new();
    says_in_source(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut used,
    );
    assert!(used.len() > 100, "only {} messages found", used.len());
    let (en, fr) = (catalogue(Lang::En), catalogue(Lang::Fr));
    assert_eq!(keys(&en.violations), keys(&fr.violations), "keys differ");
    for (key, text) in &en.violations {
        let (mut a, mut b) = (placeholders(text), placeholders(&fr.violations[key]));
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(
            a, b,
            "violations.{key}: the arguments differ between en and fr"
        );
        assert!(!text.trim().is_empty() && !fr.violations[key].trim().is_empty());
    }
    for (file, key, names) in &used {
        for lang in LANGS {
            let Some(template) = violation_text(key, lang) else {
                panic!("{file}: violations.{key} is not in the {lang:?} catalogue");
            };
            let wanted: BTreeSet<String> = placeholders(template)
                .into_iter()
                .map(String::from)
                .collect();
            assert_eq!(
                &wanted, names,
                "{file}: violations.{key} ({lang:?}: {template:?}) is given other arguments"
            );
        }
    }
    let said: BTreeSet<&str> = used.iter().map(|(_, key, _)| key.as_str()).collect();
    let orphans: Vec<_> = keys(&en.violations).difference(&said).copied().collect();
    assert!(orphans.is_empty(), "catalogued but never said: {orphans:?}");
}

#[test]
fn a_message_is_told_in_each_language_with_its_arguments() {
    let says = says("did_not_pass_seat_target_turn").seat("target", crate::Seat::new(3).unwrap());
    assert_eq!(says.tell(Lang::En), "you did not pass seat 3 this turn");
    assert_eq!(
        says.tell(Lang::Fr),
        "vous n'avez pas dépassé le joueur 3 ce tour-ci"
    );
    let violation = crate::engine::RuleViolation::said("WR-157", says);
    assert_eq!(violation.message, "you did not pass seat 3 this turn");
    assert_eq!(
        violation.to_string(),
        "WR-157: you did not pass seat 3 this turn"
    );
    assert!(violation.message_in(Lang::Fr).starts_with("vous n'avez"));
    // A key the catalogue lacks says itself rather than nothing.
    assert_eq!(super::says("no_such_key").tell(Lang::Fr), "no_such_key");
}

/// Every problem type has its page in both languages (`/problems/{slug}`), with the same
/// placeholders; notifications have none.
#[test]
fn every_problem_type_has_its_page_in_both_languages() {
    let (en, fr) = (catalogue(Lang::En), catalogue(Lang::Fr));
    for (slug, text) in &en.problems {
        let (a, b) = (text.page.as_deref(), fr.problems[slug].page.as_deref());
        let (Some(a), Some(b)) = (a, b) else {
            panic!("problems.{slug}: no page in one language");
        };
        assert_ne!(a, b, "problems.{slug}: the French page is the English one");
        assert_eq!(placeholders(a), placeholders(b), "problems.{slug}");
    }
    for text in en.notifications.values().chain(fr.notifications.values()) {
        assert!(text.page.is_none());
    }
}

/// Every `says("errors.<key>")` of the server's source (`api`, `infra`; the engine's too),
/// with its arguments.
fn errors_said() -> Vec<(String, String, BTreeSet<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut used = Vec::new();
    for krate in ["api/src", "infra/src", "domain/src"] {
        says_in_source(&root.join(krate), &mut used);
    }
    used.retain(|(_, key, _)| key.starts_with(ERRORS));
    used
}

/// Issue 18: every error specific the server says has an English and a French text, with the
/// same arguments, and neither is blank.
#[test]
fn every_error_message_has_both_languages_with_the_same_arguments() {
    let (en, fr) = (catalogue(Lang::En), catalogue(Lang::Fr));
    assert_eq!(keys(&en.errors), keys(&fr.errors), "error keys differ");
    assert!(
        en.errors.len() > 50,
        "only {} error messages",
        en.errors.len()
    );
    for (key, text) in &en.errors {
        let french = &fr.errors[key];
        assert!(
            !text.trim().is_empty() && !french.trim().is_empty(),
            "errors.{key}"
        );
        assert_ne!(
            text, french,
            "errors.{key}: the French text is the English one"
        );
        let (mut a, mut b) = (placeholders(text), placeholders(french));
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "errors.{key}: the arguments differ between en and fr");
    }
}

/// Issue 18: every `errors.*` message the code says is catalogued in both languages with
/// exactly the arguments the code gives it, and every catalogued one is said somewhere (no
/// dead keys).
#[test]
fn every_error_message_is_said_by_the_server_with_its_arguments_and_no_other_is_catalogued() {
    let used = errors_said();
    assert!(used.len() > 50, "only {} error messages found", used.len());
    for (file, key, names) in &used {
        for lang in LANGS {
            let Some(template) = message_text(key, lang) else {
                panic!("{file}: {key} is not in the {lang:?} catalogue");
            };
            let wanted: BTreeSet<String> = placeholders(template)
                .into_iter()
                .map(String::from)
                .collect();
            assert_eq!(
                &wanted, names,
                "{file}: {key} ({lang:?}: {template:?}) is given other arguments"
            );
        }
    }
    let said: BTreeSet<&str> = used
        .iter()
        .filter_map(|(_, key, _)| key.strip_prefix(ERRORS))
        .collect();
    let dead: Vec<_> = keys(&catalogue(Lang::En).errors)
        .difference(&said)
        .copied()
        .collect();
    assert!(dead.is_empty(), "catalogued but never said: {dead:?}");
}

#[test]
fn an_error_is_told_in_each_language_and_its_display_is_english() {
    let says = says("errors.seats_not_all_taken")
        .arg("taken", 2u8)
        .arg("seats", 3u8);
    assert_eq!(
        says.tell(Lang::En),
        "2 of 3 seats are taken: the game starts when every seat is taken"
    );
    assert_eq!(
        says.tell(Lang::Fr),
        "2 places sur 3 sont prises : la partie commence quand toutes les places sont prises"
    );
    assert_eq!(says.to_string(), says.tell(Lang::En));
    // The two tables do not mix: a violation key is not an error key and back.
    assert!(message_text("errors.game_not_found", Lang::Fr).is_some());
    assert!(message_text("game_not_found", Lang::Fr).is_none());
}
