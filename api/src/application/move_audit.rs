//! [`MoveAudit`]: one move explained, as `audit.rs` computes it, the heavy-work cache keeps it,
//! a dispute stores it (`infra::disputes::public_audit` keeps its reader-independent fields)
//! and the HTTP answer serializes it (its events in their wire shape). One type for all: the
//! OpenAPI component `MoveAudit` is its schema.

use infra::audit as bundles;
use infra::store::StoredEvent;
use serde_json::Value;
use time::OffsetDateTime;

/// One move explained.
// `E`: how its events are held. The use cases hold the log's entries (`StoredEvent`); the
// route answers with the events as the caller sees them on the wire (`MoveAudit::shown_as`).
// The schema is the answer's whatever `E` is: its events are a list of `EventOut`.
#[derive(Clone, serde::Serialize, utoipa::ToSchema)]
#[schema(bound = "")]
pub struct MoveAudit<E = StoredEvent> {
    /// The event asked about.
    pub seq: u64,
    /// The events of the command that produced it: `first_seq..=last_seq`.
    pub first_seq: u64,
    pub last_seq: u64,
    /// Seat that sent the command (null for the host's start).
    pub seat: Option<u8>,
    pub sent_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: OffsetDateTime,
    /// The command (null when it holds another seat's secret, and for the start).
    #[schema(value_type = Option<Object>)]
    pub command: Value,
    /// The state before the move, as the caller may see it.
    #[schema(value_type = Object)]
    pub state_before: Value,
    pub checks: Vec<bundles::Check>,
    pub sound: bool,
    #[schema(schema_with = event_list)]
    pub events: Vec<E>,
}

impl<E> MoveAudit<E> {
    /// The same audit with each event shown as `shown` makes it (the route: its wire shape).
    pub fn shown_as<F>(self, shown: impl FnMut(E) -> F) -> MoveAudit<F> {
        MoveAudit {
            seq: self.seq,
            first_seq: self.first_seq,
            last_seq: self.last_seq,
            seat: self.seat,
            sent_by: self.sent_by,
            recorded_at: self.recorded_at,
            command: self.command,
            state_before: self.state_before,
            checks: self.checks,
            sound: self.sound,
            events: self.events.into_iter().map(shown).collect(),
        }
    }
}

/// The schema of the answer's events: the component the route's event type (`EventOut`)
/// declares, named here because the application names no route.
fn event_list() -> utoipa::openapi::schema::Array {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(utoipa::openapi::Ref::from_schema_name("EventOut"))
        .build()
}
