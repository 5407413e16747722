//! [`MoveAudit`]: one move explained, as `audit.rs` computes it, the heavy-work cache keeps it
//! and a dispute stores it.

use infra::audit as bundles;
use infra::store::StoredEvent;
use serde_json::Value;
use time::OffsetDateTime;

/// One move explained (see `audit_move`). Serialized (its events left out) as a dispute
/// stores it: the fields are the wire `MoveAudit`'s.
#[derive(Clone, serde::Serialize)]
pub struct MoveAudit {
    pub seq: u64,
    pub first_seq: u64,
    pub last_seq: u64,
    pub seat: Option<u8>,
    pub sent_by: String,
    #[serde(with = "time::serde::rfc3339")]
    pub recorded_at: OffsetDateTime,
    pub command: Value,
    pub state_before: Value,
    pub checks: Vec<bundles::Check>,
    pub sound: bool,
    #[serde(skip)]
    pub events: Vec<StoredEvent>,
}
