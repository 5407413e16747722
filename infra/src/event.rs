//! The one log entry: [`StoredEvent`] is what the store reads and appends, what the replay
//! fold and the redaction take, what an export bundle lists (serialized as the bundle's
//! `BundleEvent`), and what the hash chain hashes. The other shapes are edge conversions:
//! `domain::EventData` (what `decide` produces) in, the HTTP `EventOut` out.

use crate::error::{Result, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

// The serde and schema attributes keep the export format `homestretch-export/1` byte for byte
// (old bundles must still verify offline) and the OpenAPI component name `BundleEvent`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema, sqlx::FromRow)]
#[schema(as = BundleEvent)]
pub struct StoredEvent {
    #[sqlx(try_from = "i64")]
    pub seq: u64,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub kind: String,
    /// Null in an export before the end when the event is hidden from the caller.
    #[schema(value_type = Option<Object>)]
    pub payload: Value,
    #[sqlx(try_from = "i32")]
    pub schema_version: u32,
    pub command_id: Uuid,
    #[sqlx(try_from = "crate::db::SeatColumn")]
    pub actor: Option<u8>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: OffsetDateTime,
    pub prev_hash: String,
    pub hash: String,
    /// True when the payload was redacted for the caller (the chain cannot be checked there).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[sqlx(skip)]
    pub redacted: bool,
}

impl StoredEvent {
    /// Which entry this is: a game event or the seed reveal.
    pub fn entry(&self) -> Entry {
        Entry::of(&self.kind)
    }

    /// The caller's copy: the same entry with `payload` in place of the recorded one, flagged
    /// `redacted` when it differs (its hash then no longer covers what is shown).
    pub fn shown_as(&self, payload: Value) -> StoredEvent {
        StoredEvent {
            redacted: self.redacted || payload != self.payload,
            payload,
            ..self.clone()
        }
    }
}

/// The tag of the server's own log entry revealing the seed when a game ends.
const SEED_REVEALED: &str = "server_seed_revealed";

/// The tag of the clock's entry before a timed-out seat's default move (issue 17).
pub const SEAT_TIMED_OUT: &str = "seat_timed_out";
/// The tag of the entry handing a seat to a bot (resigned, or timed out too often; issue 17).
pub const SEAT_ABANDONED: &str = "seat_abandoned";

/// What a log entry records: one of the game's events, the server's reveal of its seed
/// (appended when a game ends), or a seat's timeout / abandonment (issue 17). The server's
/// entries are not game events: they are never folded into a state, and they are public
/// (never redacted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Game,
    SeedRevealed,
    SeatTimedOut,
    SeatAbandoned,
}

impl Entry {
    /// The entry a stored `type` tag names.
    pub fn of(kind: &str) -> Entry {
        match kind {
            SEED_REVEALED => Entry::SeedRevealed,
            SEAT_TIMED_OUT => Entry::SeatTimedOut,
            SEAT_ABANDONED => Entry::SeatAbandoned,
            _ => Entry::Game,
        }
    }

    /// The seed reveal, as an event to append after the game's last one.
    pub fn seed_reveal(server_seed: &[u8; 32]) -> domain::EventData {
        domain::EventData {
            kind: SEED_REVEALED.to_string(),
            payload: serde_json::json!({
                "type": SEED_REVEALED,
                "server_seed": hex::encode(server_seed),
            }),
        }
    }
}

/// The one replay fold: applies `entries` (in log order) to `state`, skipping the seed
/// reveal; returns the seq of the last entry seen (`None` when there was none).
pub fn replay<'a>(
    state: &mut dyn domain::AnyState,
    entries: impl IntoIterator<Item = &'a StoredEvent>,
) -> Result<Option<u64>> {
    let mut last = None;
    for event in entries {
        if event.entry() == Entry::Game {
            state
                .apply(&event.payload, event.schema_version)
                .map_err(|e| {
                    StoreError::Corrupt(format!("event {} does not replay: {e}", event.seq))
                })?;
        }
        last = Some(event.seq);
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry() -> StoredEvent {
        StoredEvent {
            seq: 3,
            kind: "rolled".into(),
            payload: json!({"type": "rolled", "die": 4}),
            schema_version: 2,
            command_id: Uuid::nil(),
            actor: Some(1),
            recorded_at: OffsetDateTime::UNIX_EPOCH,
            prev_hash: "p".into(),
            hash: "h".into(),
            redacted: false,
        }
    }

    /// The export format `homestretch-export/1` lists entries in exactly this JSON.
    #[test]
    fn an_entry_serializes_as_the_bundle_event_of_the_export_format() {
        let expected = json!({
            "seq": 3, "type": "rolled", "payload": {"type": "rolled", "die": 4},
            "schema_version": 2, "command_id": "00000000-0000-0000-0000-000000000000",
            "actor": 1, "recorded_at": "1970-01-01T00:00:00Z", "prev_hash": "p", "hash": "h",
        });
        assert_eq!(serde_json::to_value(entry()).unwrap(), expected);
        let back: StoredEvent = serde_json::from_value(expected).unwrap();
        assert_eq!(back, entry());
        let shown = entry().shown_as(Value::Null);
        assert_eq!(
            serde_json::to_value(&shown).unwrap()["redacted"],
            json!(true)
        );
    }

    #[test]
    fn a_copy_is_flagged_redacted_only_when_its_payload_differs() {
        let event = entry();
        assert!(!event.shown_as(event.payload.clone()).redacted);
        let shown = event.shown_as(json!({"type": "rolled"}));
        assert!(shown.redacted);
        assert_eq!(shown.hash, event.hash);
    }

    #[test]
    fn the_seed_reveal_is_its_own_entry() {
        let reveal = Entry::seed_reveal(&[7; 32]);
        assert_eq!(Entry::of(&reveal.kind), Entry::SeedRevealed);
        assert_eq!(reveal.payload["type"], json!(reveal.kind));
        assert_eq!(entry().entry(), Entry::Game);
    }
}
