//! The export bundle (`homestretch-export/1`) and the audit report: the types the audit's
//! files share, and the entries of a command in a bundle.

use crate::event::StoredEvent;
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
    pub(super) fn push(&mut self, name: &str, passed: bool, detail: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            passed,
            detail: detail.into(),
        });
        self.sound &= passed;
    }
    pub(super) fn diverge(
        &mut self,
        seq: u64,
        what: impl Into<String>,
        recorded: Value,
        expected: Value,
    ) {
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

/// The entries in seq order, to find each command's by binary search (a log holds thousands).
pub(super) fn by_seq(bundle: &Bundle) -> Vec<&StoredEvent> {
    let mut sorted: Vec<&StoredEvent> = bundle.events.iter().collect();
    sorted.sort_by_key(|e| e.seq);
    sorted
}

/// The entries of `command` (`first_seq..=last_seq`) among `sorted`.
pub(super) fn entries_of<'s, 'b>(
    sorted: &'s [&'b StoredEvent],
    command: &BundleCommand,
) -> &'s [&'b StoredEvent] {
    let from = sorted.partition_point(|e| e.seq < command.first_seq);
    let to = sorted.partition_point(|e| e.seq <= command.last_seq);
    &sorted[from..to.max(from)]
}

/// A failure already written into the report (its check and divergence).
pub(super) struct Reported;
