//! Logs written with event schema 1 (rules 1.0.0, every command ending with an `awaiting`
//! event that copied the control state): they replay through the upcaster, which checks at
//! every `awaiting` that the control state `evolve` derives equals the recorded copy, and the
//! current `decide` re-run on them reproduces the upcast events wherever the errata did not
//! change the outcome.

use crate::engine::{ChaChaRng, Seat};
use serde_json::{Value, json};

pub struct Log {
    pub key: [u8; 32],
    pub client_seeds: Vec<String>,
    /// (seat — none for the start —, command, events as stored with schema 1)
    pub commands: Vec<(Option<u8>, Value, Vec<Value>)>,
}

#[derive(Debug, Default)]
pub struct Report {
    pub commands: usize,
    pub events: usize,
    pub upcast_events: usize,
    pub awaiting_dropped: usize,
    pub facts_written: Vec<String>,
    /// Commands whose re-run differs (type of the command, first differing events).
    pub divergences: Vec<(usize, String, Value, Value)>,
}

/// Replays (must succeed) and re-runs (reports divergences) one schema-1 log.
pub fn check_log(log: &Log) -> Result<Report, String> {
    let game = crate::game("bandits").unwrap();
    let mut state = game.new_state();
    let mut report = Report::default();
    let mut version = 0u64;
    for (i, (seat, command, events)) in log.commands.iter().enumerate() {
        let mut rng = ChaChaRng::for_command(&log.key, &log.client_seeds, version);
        let produced = seat.map(|s| state.decide(Seat::new(s).unwrap(), command, &mut rng));
        let mut upcast = Vec::new();
        for e in events {
            if e["type"] == "server_seed_revealed" {
                continue;
            }
            let applied = state
                .apply_upcast(e, 1)
                .map_err(|why| format!("command {i} ({command}): {why}"))?;
            if e["type"] == "awaiting" {
                if applied.is_empty() {
                    report.awaiting_dropped += 1;
                } else {
                    report
                        .facts_written
                        .extend(applied.iter().map(|a| a["type"].to_string()));
                }
            }
            upcast.extend(applied);
        }
        report.commands += 1;
        report.events += events
            .iter()
            .filter(|e| e["type"] != "server_seed_revealed")
            .count();
        report.upcast_events += upcast.len();
        version += events.len() as u64;
        state
            .check_invariants()
            .map_err(|why| format!("command {i}: invariant: {why}"))?;
        if seat.is_none() {
            continue;
        }
        match produced.expect("a seat's command") {
            Ok(produced) => {
                let produced: Vec<Value> = produced.into_iter().map(|e| e.payload).collect();
                if produced != upcast {
                    let at = produced
                        .iter()
                        .zip(&upcast)
                        .position(|(a, b)| a != b)
                        .unwrap_or(produced.len().min(upcast.len()));
                    report.divergences.push((
                        i,
                        command.to_string(),
                        upcast.get(at).cloned().unwrap_or(Value::Null),
                        produced.get(at).cloned().unwrap_or(Value::Null),
                    ));
                }
            }
            Err(why) => report.divergences.push((
                i,
                command.to_string(),
                json!(why.to_string()),
                Value::Null,
            )),
        }
    }
    Ok(report)
}

/// A schema-1 game recorded by the generator of the legacy corpus (see the ignored test).
pub fn corpus_log(v: &Value) -> Log {
    let key: [u8; 32] = hex::decode(v["key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let commands = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .zip(v["batches"].as_array().unwrap())
        .map(|(c, b)| {
            (
                c["seat"].as_u64().map(|s| s as u8),
                c["command"].clone(),
                b.as_array().unwrap().clone(),
            )
        })
        .collect();
    Log {
        key,
        client_seeds: vec![],
        commands,
    }
}

/// An export bundle (`homestretch-export/1`) of a finished schema-1 game.
pub fn bundle_log(bundle: &Value) -> Log {
    let key: [u8; 32] = hex::decode(bundle["server_seed"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let client_seeds = bundle["game"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["client_seed"].as_str().unwrap().to_string())
        .collect();
    let events = bundle["events"].as_array().unwrap();
    let mut commands: Vec<&Value> = bundle["commands"].as_array().unwrap().iter().collect();
    commands.sort_by_key(|c| c["first_seq"].as_u64());
    let commands = commands
        .into_iter()
        .map(|c| {
            let (first, last) = (
                c["first_seq"].as_u64().unwrap(),
                c["last_seq"].as_u64().unwrap(),
            );
            let batch = events[(first - 1) as usize..last as usize]
                .iter()
                .map(|e| e["payload"].clone())
                .collect();
            (
                c["seat"].as_u64().map(|s| s as u8),
                c["command"].clone(),
                batch,
            )
        })
        .collect();
    Log {
        key,
        client_seeds,
        commands,
    }
}

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_schema1_game_replays_and_reruns_exactly() {
    // Recorded over HTTP before the change (tests/fixtures/bandits-schema1-game.json); the
    // bots kept clear of the positions the errata changed, so every command re-runs exactly.
    let r = check_log(&bundle_log(&fixture("bandits-schema1-game.json")["bundle"])).unwrap();
    assert_eq!(r.divergences, vec![], "{r:?}");
    assert!(r.awaiting_dropped > 100, "{r:?}");
    assert!(r.facts_written.iter().any(|f| f == "\"passed\""), "{r:?}");
    assert_eq!(
        r.upcast_events,
        r.events - r.awaiting_dropped,
        "every awaiting is dropped or replaced by one fact"
    );
}

#[test]
fn schema1_random_bot_games_replay_with_their_recorded_control_state() {
    // Random bots passed in every window, accused, chose rolls …: each `awaiting` is dropped
    // (its control state checked against the derived one) or replaced by the fact it stood for.
    let mut facts = std::collections::BTreeSet::new();
    for name in [
        "bandits-schema1-bots-0152.json",
        "bandits-schema1-bots-0161.json",
    ] {
        let r = check_log(&corpus_log(&fixture(name))).unwrap();
        facts.extend(r.facts_written.iter().cloned());
        // The re-run under the errata differs only where they changed the rules, e.g. a
        // `pass` with a pawn that could leave the probation officer (BD-506).
        for (_, _, recorded, _) in &r.divergences {
            if let Some(why) = recorded.as_str() {
                assert!(
                    [
                        "BD-505", "BD-506", "BD-507", "BD-508", "BD-510", "BD-511", "BD-512",
                        "BD-513"
                    ]
                    .iter()
                    .any(|rule| why.starts_with(rule)),
                    "{name}: {why}"
                );
            }
        }
    }
    for fact in ["\"passed\"", "\"pawn_accused\"", "\"rolls_granted\""] {
        assert!(facts.contains(fact), "{fact} in {facts:?}");
    }
}

#[test]
fn a_tampered_schema1_control_state_does_not_replay() {
    // The recorded control state is a check: an `awaiting` that disagrees with the facts
    // (here: another seat to act) stops the replay instead of being believed.
    let mut v = fixture("bandits-schema1-bots-0152.json");
    let batches = v["batches"].as_array_mut().unwrap();
    let batch = batches[5].as_array_mut().unwrap();
    let last = batch.last_mut().unwrap();
    assert_eq!(last["type"], "awaiting");
    last["control"]["attempts"] = json!(7);
    let e = check_log(&corpus_log(&v)).unwrap_err();
    assert!(e.contains("control state"), "{e}");
}

/// The whole legacy corpus (not in the repository: `target/corpus`, written by the schema-1
/// engine before the change).
#[test]
#[ignore]
fn legacy_corpus_replays() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut games, mut clean, mut facts) = (0, 0, std::collections::BTreeMap::new());
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let log = if v.get("bundle").is_some() {
            bundle_log(&v["bundle"])
        } else {
            corpus_log(&v)
        };
        let r = check_log(&log).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        games += 1;
        for x in &r.facts_written {
            *facts.entry(x.clone()).or_insert(0) += 1;
        }
        if r.divergences.is_empty() {
            clean += 1;
        } else {
            let (i, c, rec, prod) = &r.divergences[0];
            let k: Value = serde_json::from_str(c).unwrap();
            *kinds.entry(k["type"].to_string()).or_default() += 1;
            if std::env::var("SHOW").is_ok() {
                println!(
                    "{}: {} divergent commands; first #{i} {c}\n  recorded {rec}\n  produced {prod}",
                    f.display(),
                    r.divergences.len()
                );
            }
        }
    }
    println!(
        "{games} logs replayed; {clean} re-run without divergence; facts written {facts:?}; first divergent command kinds {kinds:?}"
    );
}
