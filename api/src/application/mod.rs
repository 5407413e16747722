//! The application layer: the use cases of the server, between HTTP (`routes`) and the
//! PostgreSQL adapter (`infra::store`). One file per use case: [`commands`] (load → authorize
//! seat → decide → append → answer), [`lobby`] (create, start), [`reads`] (prompts, events),
//! [`replay`] (the one fold of the log, snapshots, the state at a version), [`export`],
//! [`audit`], [`disputes`]; [`cache`] keeps hot games in process.
//!
//! Hot games are cached in process, each behind its own mutex; the cache is only a cache:
//! every append is checked against the head in PostgreSQL (optimistic concurrency), and reads
//! check the head version before serving.

pub mod accounts;
mod audit;
pub mod board;
mod cache;
mod check;
mod clocks;
mod commands;
pub mod disputes;
pub mod error;
mod export;
mod heavy;
mod inbox;
mod lobby;
pub mod notify;
mod reads;
mod replay;
pub mod subscriptions;

use domain::engine::{ChaChaRng, seed_commitment};
use domain::i18n::says;
use domain::{AnyGame, AnyState, Outcome, Prompt, Registry, Seat, Viewer};
pub use error::{AppError, Result};
use infra::audit::{self as bundles, Bundle, BundleCommand, BundleGame, BundleSeat};
use infra::hash::{canonical_json, event_hash};
use infra::ids::{GameId, UserId};
use infra::store::{
    Append, AppendResult, Entry, GameRow, GameStatus, ListFilter, NewGame, SeatRow, Store,
    StoredEvent, replay,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;
use uuid::Uuid;

pub use cache::Heads;
pub use clocks::{Clock, ClockConfig};
pub use heavy::Served;
pub use infra::random::fill_random;
pub use reads::GameRead;

/// A snapshot of the state is stored every this many events (and when the game ends).
pub const SNAPSHOT_EVERY: u64 = 128;
/// Re-decide attempts when a command without `expected_version` loses a race.
const MAX_RETRIES: usize = 5;

/// A loaded, started game.
pub struct Loaded {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    pub game: &'static dyn AnyGame,
    pub version: u64,
    pub head_hash: String,
    pub state: Box<dyn AnyState>,
    pub finished: bool,
    /// `recorded_at` of the head event: a clocked game's deadlines count from it (issue 17).
    pub head_at: Option<OffsetDateTime>,
    /// The seats the game waits for and where each one's decision began (clock version 2,
    /// issue 26; empty otherwise): their deadlines count from there.
    pub decisions: Vec<clocks::Decision>,
}

impl Loaded {
    pub fn seat_of(&self, user: UserId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.user_id == user)
            .and_then(|s| Seat::new(s.seat).ok())
    }
    /// `user`'s seat: sending or checking a command needs one (403 otherwise).
    pub fn seat_for(&self, user: UserId) -> Result<Seat> {
        self.seat_of(user)
            .ok_or_else(|| AppError::Forbidden(says("errors.no_seat")))
    }
    /// The version conflict of a command decided against `expected` (409 naming the current).
    fn conflict(&self) -> AppError {
        AppError::Conflict {
            current: self.version,
        }
    }
    /// What `user` may see: everything once the game is over.
    pub fn viewer(&self, user: UserId) -> Viewer {
        if self.finished {
            Viewer::Omniscient
        } else {
            self.seat_of(user)
                .map(Viewer::Seat)
                .unwrap_or(Viewer::Spectator)
        }
    }
    /// The version, who must or may act now, and `user`'s legal commands as JSON Schema
    /// families (issue 15: `choices`, the contract; `legal` is drawn from them at the edge).
    pub fn prompts_for(&self, user: UserId) -> Prompts {
        let (choices, legal) = match self.seat_of(user) {
            // One computation of the families; `legal` is drawn from them.
            Some(seat) if !self.finished => self.state.choices_and_legal(seat),
            _ => (Vec::new(), Vec::new()),
        };
        let prompts = self.state.prompts();
        Prompts {
            version: self.version,
            deadlines: self.deadlines(&prompts),
            prompts,
            choices,
            legal,
        }
    }
    fn client_seeds(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.client_seed.clone()).collect()
    }
    /// The caller's copy of a stored event (payload redacted, flagged), or `None` if the
    /// event is hidden from them altogether.
    pub fn redact(&self, event: &StoredEvent, viewer: Viewer) -> Option<StoredEvent> {
        redact_for(self.state.as_ref(), event, viewer)
    }
}

/// `viewer`'s copy of a stored event, redacted by the rules of `game`'s state (any state of
/// the game: redaction depends on the event and the viewer only).
fn redact_for(game: &dyn AnyState, event: &StoredEvent, viewer: Viewer) -> Option<StoredEvent> {
    // The server's own entries (seed reveal, timeouts, abandonment) are public.
    if event.entry() != Entry::Game || viewer == Viewer::Omniscient {
        return Some(event.clone());
    }
    let payload = game.redact(&event.payload, viewer)?;
    Some(event.shown_as(payload))
}

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

pub struct CommandRequest {
    pub command_id: Uuid,
    pub expected_version: Option<u64>,
    pub command: Value,
}

/// The version, who must or may act, and the caller's `choices` (one family per command family,
/// the contract) with `legal`, the game's concrete list for simple bots drawn from them (each
/// game keeps it short: sampled trades, one order of a swap).
pub struct Prompts {
    pub version: u64,
    pub prompts: Vec<Prompt>,
    pub choices: Vec<domain::choices::Family>,
    pub legal: Vec<Value>,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}

pub struct CommandAnswer {
    pub version: u64,
    pub events: Vec<StoredEvent>,
    /// True when this was a repeat of an accepted command id.
    pub replayed: bool,
    /// After the command: the version, who must or may act, the caller's legal commands
    /// (computed under the command's lock: no second lock, no re-read).
    pub next: Prompts,
}

pub struct CreateGame {
    pub kind: String,
    pub seats: u8,
    pub options: Value,
    pub rng_seed: Option<String>,
    pub client_seed: String,
}

/// Counters the metrics endpoint reads.
#[derive(Default)]
pub struct Counters {
    pub commands_appended: std::sync::atomic::AtomicU64,
    pub events_appended: std::sync::atomic::AtomicU64,
    pub conflicts: std::sync::atomic::AtomicU64,
    pub rejections: std::sync::atomic::AtomicU64,
}

type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

pub struct GameService {
    store: Store,
    /// The games this server hosts: no game is known here by name.
    registry: Registry,
    cache: Mutex<HashMap<GameId, Slot>>,
    pub counters: Counters,
    /// Newest version of each game heard from `pg_notify` (every instance's appends).
    heads: Mutex<HashMap<GameId, u64>>,
    /// True while the notification listener is connected, so `heads` is complete.
    listening: std::sync::atomic::AtomicBool,
    /// Audits, exports and replays: their threads and kept answers (issue 26).
    heavy: heavy::Heavy,
    /// Where replays, exports, audits and event pages read: a replica when fresh (issue 29).
    reads: infra::replica::ReadSource,
}

fn body_hash(command: &Value) -> String {
    let mut text = String::new();
    canonical_json(command, &mut text);
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn now_micros() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1000 * 1000)
        .unwrap_or(now)
}

impl GameService {
    /// The service of the games in `registry`, stored in `store`.
    pub fn new(store: Store, registry: Registry) -> Self {
        GameService {
            reads: infra::replica::ReadSource::new(store.clone(), None),
            store,
            registry,
            cache: Mutex::new(HashMap::new()),
            counters: Counters::default(),
            heads: Mutex::new(HashMap::new()),
            listening: std::sync::atomic::AtomicBool::new(false),
            heavy: heavy::Heavy::new(crate::limits::default_heavy_threads(), Some(64)),
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// `kind` if a registered game has it (else a 422 naming the known kinds).
    pub fn known_kind(&self, kind: &str) -> Result<&'static str> {
        Ok(self.game_of(kind)?.kind())
    }

    /// The game of a stored or requested `kind` (422 naming the known kinds if unknown).
    fn game_of(&self, kind: &str) -> Result<&'static dyn AnyGame> {
        self.registry.find(kind).map_err(|unknown| {
            AppError::Invalid(
                says("errors.unknown_game_kind")
                    .arg("kind", &unknown.kind)
                    .arg("known", unknown.known.join(", ")),
            )
        })
    }
}

/// Runs rules-engine code; a panic (a bug) becomes an internal error instead of taking the
/// worker down, and nothing is appended.
fn guarded<R>(f: impl FnOnce() -> R) -> Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| AppError::Internal("the rules engine panicked".into()))
}
