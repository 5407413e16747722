//! Export bundles and their verification: the hash chain, the seed commitment, and a re-run of
//! every command through the rules (`setup`/`decide`) from the revealed seed.
//!
//! Verification is pure (no database, no network): `homestretch verify BUNDLE.json` runs it
//! offline; `GET /v1/games/{id}/audit` runs it on the live log.

use crate::event::{Entry, StoredEvent};
use crate::hash::{GENESIS, event_hash};
use domain::Seat;
use domain::engine::{ChaChaRng, seed_commitment};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const FORMAT: &str = "homestretch-export/1";

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct BundleSeat {
    pub seat: u8,
    pub user_id: uuid::Uuid,
    pub name: String,
    pub client_seed: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct BundleGame {
    pub id: uuid::Uuid,
    pub kind: String,
    #[schema(value_type = Object)]
    pub options: Value,
    pub seat_count: u8,
    pub seats: Vec<BundleSeat>,
    pub fair: bool,
    pub seed_commitment: String,
    pub rules_version: String,
    pub status: String,
    /// The head the server claims: number of events.
    pub version: u64,
    pub head_hash: String,
    /// The time control (`{"per_decision_s": N, "abandon_after": K}`), if any: every
    /// `seat_timed_out` is checked against the deadline it derives (issue 17).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub clock: Option<Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct BundleCommand {
    pub command_id: uuid::Uuid,
    /// Seat that sent it; null for the host's start (which runs `setup`).
    pub seat: Option<u8>,
    pub user_id: uuid::Uuid,
    /// Null in an export before the end when it holds another seat's secret.
    #[schema(value_type = Option<Object>)]
    pub command: Value,
    pub first_seq: u64,
    pub last_seq: u64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: time::OffsetDateTime,
}

/// A self-contained record of a game.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[schema(as = ExportBundle)]
pub struct Bundle {
    #[schema(example = "homestretch-export/1")]
    pub format: String,
    pub game: BundleGame,
    /// Hex of the 32-byte server seed, present once the game has ended.
    pub server_seed: Option<String>,
    pub commands: Vec<BundleCommand>,
    pub events: Vec<StoredEvent>,
}

/// One check and its result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// The first point where the record and the rules disagree.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Divergence {
    pub seq: u64,
    pub what: String,
    #[schema(value_type = Object)]
    pub recorded: Value,
    #[schema(value_type = Object)]
    pub expected: Value,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct AuditReport {
    /// True when every check passed.
    pub sound: bool,
    pub checks: Vec<Check>,
    pub divergence: Option<Divergence>,
}

impl AuditReport {
    fn push(&mut self, name: &str, passed: bool, detail: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            passed,
            detail: detail.into(),
        });
        self.sound &= passed;
    }
    fn diverge(&mut self, seq: u64, what: impl Into<String>, recorded: Value, expected: Value) {
        if self.divergence.is_none() {
            self.divergence = Some(Divergence {
                seq,
                what: what.into(),
                recorded,
                expected,
            });
        }
        self.sound = false;
    }
}

/// Checks the hash chain: each event links to the previous one and hashes to its stored hash;
/// the head the server claims is the last event.
pub fn check_chain(bundle: &Bundle, report: &mut AuditReport) {
    let mut prev = GENESIS.to_string();
    let mut broken = None;
    for (i, event) in bundle.events.iter().enumerate() {
        let expected_seq = i as u64 + 1;
        if event.seq != expected_seq {
            broken = Some((
                event.seq,
                format!(
                    "seq {} found where {expected_seq} was expected (a gap)",
                    event.seq
                ),
            ));
            report.diverge(
                event.seq,
                "sequence gap",
                Value::from(event.seq),
                Value::from(expected_seq),
            );
            break;
        }
        if event.redacted {
            prev = event.hash.clone();
            continue;
        }
        if event.prev_hash != prev {
            broken = Some((
                event.seq,
                "prev_hash does not link to the previous event".into(),
            ));
            report.diverge(
                event.seq,
                "broken link",
                Value::from(event.prev_hash.clone()),
                Value::from(prev.clone()),
            );
            break;
        }
        let recomputed = event_hash(bundle.game.id, event);
        if recomputed != event.hash {
            broken = Some((
                event.seq,
                "the event's content does not match its hash (altered)".into(),
            ));
            report.diverge(
                event.seq,
                "altered event",
                Value::from(event.hash.clone()),
                Value::from(recomputed),
            );
            break;
        }
        prev = event.hash.clone();
    }
    match broken {
        Some((seq, why)) => report.push(
            "hash_chain",
            false,
            format!("first broken seq {seq}: {why}"),
        ),
        None => report.push(
            "hash_chain",
            true,
            format!("{} events chained", bundle.events.len()),
        ),
    }
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
/// with the recorded ones. Without a seed, only the commands' acceptance is checked.
pub fn check_rules(
    registry: &domain::Registry,
    bundle: &Bundle,
    seed: Option<&[u8; 32]>,
    report: &mut AuditReport,
) {
    let Some(game) = registry.get(&bundle.game.kind) else {
        report.push(
            "rules",
            false,
            format!("unknown game kind {}", bundle.game.kind),
        );
        return;
    };
    if game.rules_version() != bundle.game.rules_version {
        if !game
            .reads_rules()
            .contains(&bundle.game.rules_version.as_str())
        {
            report.push(
                "rules_version",
                false,
                format!(
                    "recorded with {}, this verifier has {}",
                    bundle.game.rules_version,
                    game.rules_version()
                ),
            );
            return;
        }
        // An older log this engine still reads: its events are upcast and its commands re-run
        // under the current rules.
        report.push(
            "rules_version",
            true,
            format!(
                "recorded with {}, re-run with {} (older events upcast)",
                bundle.game.rules_version,
                game.rules_version()
            ),
        );
    }
    let client_seeds: Vec<String> = bundle
        .game
        .seats
        .iter()
        .map(|s| s.client_seed.clone())
        .collect();
    let mut state = game.new_state();
    let mut commands = bundle.commands.clone();
    commands.sort_by_key(|c| c.first_seq);
    let mut checked = 0usize;
    for command in &commands {
        let recorded: Vec<&StoredEvent> = bundle
            .events
            .iter()
            .filter(|e| {
                e.seq >= command.first_seq && e.seq <= command.last_seq && e.entry() == Entry::Game
            })
            .collect();
        // Issue 17: the server's own commands. A resignation records only `seat_abandoned`;
        // a timeout must come at or after its deadline (derived from the log), then its
        // default move is re-run like any command.
        match server_command(bundle, command) {
            Ok(ServerCommand::Resigned) => {
                checked += 1;
                continue;
            }
            Ok(ServerCommand::TimedOut | ServerCommand::Player) => {}
            Err(why) => {
                report.diverge(
                    command.first_seq,
                    why.clone(),
                    command.command.clone(),
                    Value::Null,
                );
                report.push("clock", false, why);
                return;
            }
        }
        let version = command.first_seq - 1;
        let schema = recorded
            .first()
            .map_or(game.event_schema_version(), |e| e.schema_version);
        let produced = match seed {
            Some(seed) => {
                let mut rng = ChaChaRng::for_command(seed, &client_seeds, version);
                run(game, &*state, command, bundle, &mut rng, schema)
            }
            None => {
                // Without the seed, draws differ: only check the command is accepted.
                let mut rng = ChaChaRng::for_command(&[0; 32], &client_seeds, version);
                run(game, &*state, command, bundle, &mut rng, schema).map(|_| Vec::new())
            }
        };
        match produced {
            Err(why) => {
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
                return;
            }
            Ok(produced) => {
                // Replay the recorded events (upcasting older schemas) and compare what they
                // amount to with what the rules produce.
                let mut upcast = Vec::with_capacity(recorded.len());
                for event in &recorded {
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
                            return;
                        }
                    }
                }
                if seed.is_none() {
                    checked += 1;
                    continue;
                }
                let recorded_payloads: Vec<&Value> = upcast.iter().collect();
                let produced_payloads: Vec<&Value> = produced.iter().map(|e| &e.payload).collect();
                if recorded_payloads != produced_payloads {
                    let at = recorded_payloads
                        .iter()
                        .zip(&produced_payloads)
                        .position(|(a, b)| a != b)
                        .unwrap_or(recorded_payloads.len().min(produced_payloads.len()));
                    // Upcasting may change the number of events: point at the command's events.
                    let seq = if upcast.len() == recorded.len() {
                        command.first_seq + at as u64
                    } else {
                        command.first_seq
                    };
                    report.diverge(
                        seq,
                        "the recorded events differ from what the rules produce",
                        recorded_payloads
                            .get(at)
                            .map(|v| (*v).clone())
                            .unwrap_or(Value::Null),
                        produced_payloads
                            .get(at)
                            .map(|v| (*v).clone())
                            .unwrap_or(Value::Null),
                    );
                    report.push("rules", false, format!("divergence at seq {seq}"));
                    return;
                }
            }
        }
        checked += 1;
    }
    let detail = match seed {
        Some(_) => format!(
            "{checked} commands re-run from the revealed seed: every recorded event reproduced"
        ),
        None => format!(
            "{checked} commands re-validated (dice and draws are checked once the seed is revealed)"
        ),
    };
    report.push("rules", true, detail);
}

enum ServerCommand {
    Player,
    Resigned,
    TimedOut,
}

/// What kind of command `command` is, checking the server's own entries among its events: a
/// resignation is `seat_abandoned` for its seat alone; a timeout (`seat_timed_out` first) is
/// recorded no earlier than the previous entry's time plus the clock's `per_decision_s`.
fn server_command(bundle: &Bundle, command: &BundleCommand) -> Result<ServerCommand, String> {
    let at = |seq: u64| bundle.events.iter().find(|e| e.seq == seq);
    let Some(first) = at(command.first_seq) else {
        return Ok(ServerCommand::Player);
    };
    let seat = command.seat.map(u64::from);
    if command.command.get("type").and_then(Value::as_str) == Some("resign") {
        let sole = command.first_seq == command.last_seq
            && Entry::of(&first.kind) == Entry::SeatAbandoned
            && first.payload.get("seat").and_then(Value::as_u64) == seat;
        return if sole {
            Ok(ServerCommand::Resigned)
        } else {
            Err(format!(
                "the resignation at seq {} records more than its seat's hand-over",
                command.first_seq
            ))
        };
    }
    if Entry::of(&first.kind) != Entry::SeatTimedOut {
        return Ok(ServerCommand::Player);
    }
    let per_decision = bundle
        .game
        .clock
        .as_ref()
        .and_then(|c| c.get("per_decision_s"))
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("a timeout at seq {} in a game without a clock", first.seq))?;
    if first.payload.get("seat").and_then(Value::as_u64) != seat {
        return Err(format!(
            "the timeout at seq {} names another seat",
            first.seq
        ));
    }
    let before = at(first.seq - 1)
        .ok_or_else(|| format!("no entry before the timeout at seq {}", first.seq))?;
    let deadline = before.recorded_at + time::Duration::seconds(per_decision as i64);
    if first.recorded_at < deadline {
        return Err(format!(
            "the timeout at seq {} was recorded before its deadline ({} < {})",
            first.seq, first.recorded_at, deadline
        ));
    }
    Ok(ServerCommand::TimedOut)
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

/// Every check on a bundle of a game of `registry`: chain, head, seed commitment, and the
/// rules re-run.
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
    check_rules(registry, bundle, Some(seed), &mut report);
    report
}
