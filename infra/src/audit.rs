//! Export bundles and their verification: the hash chain, the seed commitment, and a re-run of
//! every command through the rules (`setup`/`decide`) from the revealed seed.
//!
//! Verification is pure (no database, no network): `homestretch verify BUNDLE.json` runs it
//! offline; `GET /v1/games/{id}/audit` runs it on the live log.

use crate::event::{Entry, StoredEvent};
use crate::hash::{GENESIS, event_hash};
use domain::Seat;
use domain::engine::{ChaChaRng, seed_commitment};

use serde_json::Value;

mod bundle;
mod decisions;
mod server_moves;
pub use bundle::{
    AuditReport, Bundle, BundleCommand, BundleGame, BundleSeat, Check, Divergence, FORMAT,
};
use bundle::{Reported, by_seq, entries_of};
pub use server_moves::check_server_moves;

/// Where the hash chain first breaks, and how.
struct Break {
    seq: u64,
    /// For the `hash_chain` check.
    why: String,
    /// For the divergence.
    what: &'static str,
    recorded: Value,
    expected: Value,
}

/// Checks the hash chain: each event links to the previous one and hashes to its stored hash;
/// the head the server claims is the last event.
pub fn check_chain(bundle: &Bundle, report: &mut AuditReport) {
    match first_break(bundle) {
        Some(b) => {
            report.diverge(b.seq, b.what, b.recorded, b.expected);
            report.push(
                "hash_chain",
                false,
                format!("first broken seq {}: {}", b.seq, b.why),
            );
        }
        None => report.push(
            "hash_chain",
            true,
            format!("{} events chained", bundle.events.len()),
        ),
    }
    check_head(bundle, report);
}

/// The first event that does not follow from the one before (only the first is named: every
/// later link depends on it).
fn first_break(bundle: &Bundle) -> Option<Break> {
    let mut prev = GENESIS.to_string();
    for (i, event) in bundle.events.iter().enumerate() {
        if let Some(broken) = link_break(bundle.game.id, event, i as u64 + 1, &prev) {
            return Some(broken);
        }
        prev = event.hash.clone();
    }
    None
}

/// How `event` (expected at `expected_seq`, after an event hashed `prev`) breaks the chain.
fn link_break(
    game: uuid::Uuid,
    event: &StoredEvent,
    expected_seq: u64,
    prev: &str,
) -> Option<Break> {
    if event.seq != expected_seq {
        return Some(Break {
            seq: event.seq,
            why: format!(
                "seq {} found where {expected_seq} was expected (a gap)",
                event.seq
            ),
            what: "sequence gap",
            recorded: Value::from(event.seq),
            expected: Value::from(expected_seq),
        });
    }
    // A redacted copy's hash covers a payload the reader does not have: its link is taken
    // as stored (the rules re-run refuses such a bundle anyway).
    if event.redacted {
        return None;
    }
    if event.prev_hash != prev {
        return Some(Break {
            seq: event.seq,
            why: "prev_hash does not link to the previous event".into(),
            what: "broken link",
            recorded: Value::from(event.prev_hash.clone()),
            expected: Value::from(prev),
        });
    }
    let recomputed = event_hash(game, event);
    (recomputed != event.hash).then(|| Break {
        seq: event.seq,
        why: "the event's content does not match its hash (altered)".into(),
        what: "altered event",
        recorded: Value::from(event.hash.clone()),
        expected: Value::from(recomputed),
    })
}

/// The head the game claims (version and hash) is the log's last event: deleting the last
/// events, which leaves a valid chain, shows here.
fn check_head(bundle: &Bundle, report: &mut AuditReport) {
    let last = bundle
        .events
        .last()
        .map(|e| (e.seq, e.hash.clone()))
        .unwrap_or((0, GENESIS.into()));
    let head_ok = last.0 == bundle.game.version && last.1 == bundle.game.head_hash;
    report.push(
        "head",
        head_ok,
        if head_ok {
            format!("head at seq {}", last.0)
        } else {
            format!(
                "the head moved: the game claims version {} ({}), the log ends at seq {} ({})",
                bundle.game.version, bundle.game.head_hash, last.0, last.1
            )
        },
    );
    if !head_ok {
        report.diverge(
            last.0,
            "head moved",
            Value::from(last.0),
            Value::from(bundle.game.version),
        );
    }
}

/// Re-runs every command through the rules from `seed` and compares the events it produces
/// with the recorded ones. Without a seed, only the commands' acceptance is checked. (The
/// server's own entries — timeouts, hand-overs, resignations — and who sent each command are
/// [`check_server_moves`]'s.)
pub fn check_rules(
    registry: &domain::Registry,
    bundle: &Bundle,
    seed: Option<&[u8; 32]>,
    report: &mut AuditReport,
) {
    let Some(game) = rules_of(registry, bundle, report) else {
        return;
    };
    let rerun = Rerun {
        game,
        bundle,
        sorted: by_seq(bundle),
        seed,
        client_seeds: bundle
            .game
            .seats
            .iter()
            .map(|s| s.client_seed.clone())
            .collect(),
    };
    let mut state = game.new_state();
    let mut commands: Vec<&BundleCommand> = bundle.commands.iter().collect();
    commands.sort_by_key(|c| c.first_seq);
    // Clock version 2 (issue 26): where each seat's decision began, for its timeouts.
    let mut decisions = decisions::Decisions::of(bundle, game, seed, &rerun.client_seeds);
    for command in &commands {
        if let Some(decisions) = decisions.as_mut() {
            let entries = entries_of(&rerun.sorted, command);
            if decisions.check(&*state, command, entries, report).is_err() {
                return;
            }
        }
        if rerun.command(state.as_mut(), command, report).is_err() {
            return;
        }
        if let Some(decisions) = decisions.as_mut() {
            decisions.after(&*state, command);
        }
    }
    if let Some(decisions) = &decisions {
        decisions.report(report);
    }
    let detail = match seed {
        Some(_) => format!(
            "{} commands re-run from the revealed seed: every recorded event reproduced",
            commands.len()
        ),
        None => format!(
            "{} commands re-validated (dice and draws are checked once the seed is revealed)",
            commands.len()
        ),
    };
    report.push("rules", true, detail);
}

/// The rules the bundle was recorded with, if this verifier has them (the current ones, or
/// older ones it still reads: their events are upcast, their commands re-run as of now).
fn rules_of(
    registry: &domain::Registry,
    bundle: &Bundle,
    report: &mut AuditReport,
) -> Option<&'static dyn domain::AnyGame> {
    let Some(game) = registry.get(&bundle.game.kind) else {
        report.push(
            "rules",
            false,
            format!("unknown game kind {}", bundle.game.kind),
        );
        return None;
    };
    let recorded = bundle.game.rules_version.as_str();
    if game.rules_version() == recorded {
        return Some(game);
    }
    let reads = game.reads_rules().contains(&recorded);
    report.push(
        "rules_version",
        reads,
        if reads {
            format!(
                "recorded with {recorded}, re-run with {} (older events upcast)",
                game.rules_version()
            )
        } else {
            format!(
                "recorded with {recorded}, this verifier has {}",
                game.rules_version()
            )
        },
    );
    reads.then_some(game)
}

/// What re-running a command needs besides the state.
struct Rerun<'a> {
    game: &'a dyn domain::AnyGame,
    bundle: &'a Bundle,
    /// The bundle's entries in seq order.
    sorted: Vec<&'a StoredEvent>,
    seed: Option<&'a [u8; 32]>,
    client_seeds: Vec<String>,
}

impl<'a> Rerun<'a> {
    /// Re-runs `command` on `state`, compares, and moves `state` past its recorded events.
    fn command(
        &self,
        state: &mut dyn domain::AnyState,
        command: &BundleCommand,
        report: &mut AuditReport,
    ) -> Result<(), Reported> {
        // A resignation records only its seat's hand-over (checked with the server's moves):
        // the rules have nothing to re-run.
        if server_moves::is_resignation(command) {
            return Ok(());
        }
        let recorded = self.recorded(command);
        let produced = self
            .produce(&*state, command, &recorded)
            .map_err(|why| refused(report, command, why))?;
        let upcast = replay_recorded(state, &recorded, report)?;
        match produced {
            Some(produced) => compare(command, recorded.len(), &upcast, &produced, report),
            None => Ok(()),
        }
    }

    /// The game events `command` recorded (not the server's entries among them).
    fn recorded(&self, command: &BundleCommand) -> Vec<&'a StoredEvent> {
        entries_of(&self.sorted, command)
            .iter()
            .copied()
            .filter(|e| e.entry() == Entry::Game)
            .collect()
    }

    /// The events the rules produce for `command` (`None` without the seed: the draws would
    /// differ, so only the command's acceptance is checked).
    fn produce(
        &self,
        state: &dyn domain::AnyState,
        command: &BundleCommand,
        recorded: &[&StoredEvent],
    ) -> Result<Option<Vec<domain::EventData>>, String> {
        let version = command.first_seq.saturating_sub(1);
        let schema = recorded
            .first()
            .map_or(self.game.event_schema_version(), |e| e.schema_version);
        let key = self.seed.unwrap_or(&[0; 32]);
        let mut rng = ChaChaRng::for_command(key, &self.client_seeds, version);
        let produced = run(self.game, state, command, self.bundle, &mut rng, schema)?;
        Ok(self.seed.map(|_| produced))
    }
}

fn refused(report: &mut AuditReport, command: &BundleCommand, why: String) -> Reported {
    report.diverge(
        command.first_seq,
        format!("command refused by the rules: {why}"),
        command.command.clone(),
        Value::Null,
    );
    report.push(
        "rules",
        false,
        format!(
            "the command recorded at seq {} is not accepted by the rules: {why}",
            command.first_seq
        ),
    );
    Reported
}

/// Applies the recorded events to `state` (upcasting older schemas); what they amount to.
fn replay_recorded(
    state: &mut dyn domain::AnyState,
    recorded: &[&StoredEvent],
    report: &mut AuditReport,
) -> Result<Vec<Value>, Reported> {
    let mut upcast = Vec::with_capacity(recorded.len());
    for event in recorded {
        match state.apply_upcast(&event.payload, event.schema_version) {
            Ok(applied) => upcast.extend(applied),
            Err(why) => {
                report.diverge(
                    event.seq,
                    format!("event does not replay: {why}"),
                    event.payload.clone(),
                    Value::Null,
                );
                report.push(
                    "rules",
                    false,
                    format!("event {} does not replay", event.seq),
                );
                return Err(Reported);
            }
        }
    }
    Ok(upcast)
}

/// The recorded events (as upcast) are exactly what the rules produce; else the first
/// difference is the divergence.
fn compare(
    command: &BundleCommand,
    recorded_len: usize,
    upcast: &[Value],
    produced: &[domain::EventData],
    report: &mut AuditReport,
) -> Result<(), Reported> {
    let produced: Vec<&Value> = produced.iter().map(|e| &e.payload).collect();
    let recorded: Vec<&Value> = upcast.iter().collect();
    if recorded == produced {
        return Ok(());
    }
    let at = recorded
        .iter()
        .zip(&produced)
        .position(|(a, b)| a != b)
        .unwrap_or(recorded.len().min(produced.len()));
    // Upcasting may change the number of events: point at the command's events.
    let seq = if upcast.len() == recorded_len {
        command.first_seq + at as u64
    } else {
        command.first_seq
    };
    let value = |v: Option<&&Value>| v.map(|v| (*v).clone()).unwrap_or(Value::Null);
    report.diverge(
        seq,
        "the recorded events differ from what the rules produce",
        value(recorded.get(at)),
        value(produced.get(at)),
    );
    report.push("rules", false, format!("divergence at seq {seq}"));
    Err(Reported)
}

fn run(
    game: &dyn domain::AnyGame,
    state: &dyn domain::AnyState,
    command: &BundleCommand,
    bundle: &Bundle,
    rng: &mut ChaChaRng,
    schema: u32,
) -> Result<Vec<domain::EventData>, String> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match command.seat {
        // An older log's setup is re-run as of the schema it was recorded with.
        None => game
            .setup_as_of(&bundle.game.options, bundle.game.seat_count, rng, schema)
            .map_err(|e| e.to_string()),
        Some(seat) => {
            let seat = Seat::new(seat).map_err(|e| e.to_string())?;
            state
                .decide(seat, &command.command, rng)
                .map_err(|e| e.to_string())
        }
    }));
    outcome.unwrap_or_else(|_| Err("the rules engine panicked".into()))
}

/// [`verify_bundle_in`] the default games (`domain::registry()`), for tests and tools.
pub fn verify_bundle(bundle: &Bundle) -> AuditReport {
    verify_bundle_in(&domain::registry(), bundle)
}

/// Every check on a bundle of a game of `registry`: chain, head, seed commitment, the
/// server's own moves and who sent each command, and the rules re-run.
pub fn verify_bundle_in(registry: &domain::Registry, bundle: &Bundle) -> AuditReport {
    let mut report = AuditReport {
        sound: true,
        checks: Vec::new(),
        divergence: None,
    };
    if bundle.format != FORMAT {
        report.push("format", false, format!("unknown format {}", bundle.format));
        return report;
    }
    check_chain(bundle, &mut report);
    let seed = match &bundle.server_seed {
        None => None,
        Some(hex_seed) => match hex::decode(hex_seed)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
        {
            None => {
                report.push("seed", false, "the revealed seed is not 32 bytes of hex");
                return report;
            }
            Some(seed) => {
                let matches = seed_commitment(&seed) == bundle.game.seed_commitment;
                report.push(
                    "seed_commitment",
                    matches,
                    if matches {
                        "SHA-256(revealed seed) equals the commitment published at creation"
                            .to_string()
                    } else {
                        "the revealed seed does not match the commitment".to_string()
                    },
                );
                Some(seed)
            }
        },
    };
    // The server's entries are public (never redacted): checked on any export.
    check_server_moves(bundle, &mut report);
    if bundle.events.iter().any(|e| e.redacted) {
        report.push(
            "rules",
            false,
            "the bundle has redacted events: export it after the game ends to re-run it",
        );
        return report;
    }
    check_rules(registry, bundle, seed.as_ref(), &mut report);
    report
}

/// Audit with the server's own knowledge of the seed (the live log, before the end): the dice
/// are checked too, though only the server can vouch for that until the seed is revealed.
pub fn verify_with_seed(
    registry: &domain::Registry,
    bundle: &Bundle,
    seed: &[u8; 32],
) -> AuditReport {
    let mut report = AuditReport {
        sound: true,
        checks: Vec::new(),
        divergence: None,
    };
    check_chain(bundle, &mut report);
    report.push(
        "seed_commitment",
        seed_commitment(seed) == bundle.game.seed_commitment,
        "checked by the server",
    );
    check_server_moves(bundle, &mut report);
    check_rules(registry, bundle, Some(seed), &mut report);
    report
}
