//! [`GameService`]: the games' use cases hold the store, the registry, the cache of hot games,
//! the heads heard, the heavy-work threads and the read source. Its methods live with their use
//! case (`commands.rs`, `lobby.rs`, `reads.rs`…); this file holds what they share.

use super::error::AppError;
use super::error::Result;
use super::heavy::{Heavy, Record};
use super::loaded::Loaded;
use domain::AnyGame;
use domain::Registry;
use domain::i18n::says;
use infra::hash::canonical_json;
use infra::ids::GameId;
use infra::store::GameRow;
use infra::store::SeatRow;
use infra::store::Store;
use serde_json::Value;
use sha2::Digest;
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use time::OffsetDateTime;
/// A snapshot of the state is stored every this many events (and when the game ends).
pub const SNAPSHOT_EVERY: u64 = 128;
/// Re-decide attempts when a command without `expected_version` loses a race.
pub(super) const MAX_RETRIES: usize = 5;

/// Counters the metrics endpoint reads.
#[derive(Default)]
pub struct Counters {
    pub commands_appended: std::sync::atomic::AtomicU64,
    pub events_appended: std::sync::atomic::AtomicU64,
    pub conflicts: std::sync::atomic::AtomicU64,
    pub rejections: std::sync::atomic::AtomicU64,
}

pub(super) type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

pub struct GameService {
    pub(super) store: Store,
    /// The games this server hosts: no game is known here by name.
    pub(super) registry: Registry,
    pub(super) cache: Mutex<HashMap<GameId, Slot>>,
    pub counters: Counters,
    /// Newest version of each game heard from `pg_notify` (every instance's appends).
    pub(super) heads: Mutex<HashMap<GameId, u64>>,
    /// True while the notification listener is connected, so `heads` is complete.
    pub(super) listening: std::sync::atomic::AtomicBool,
    /// Audits, exports and replays: their threads and kept answers (issue 26).
    pub(super) heavy: Heavy,
    /// Where replays, exports, audits and event pages read: a replica when fresh (issue 29).
    pub(super) reads: infra::replica::ReadSource,
    /// The prompts and detail answers rendered once per version and audience (issue 31).
    pub(super) views: super::views::Views,
}

pub(super) fn body_hash(command: &Value) -> String {
    let mut text = String::new();
    canonical_json(command, &mut text);
    hex::encode(Sha256::digest(text.as_bytes()))
}

pub(super) fn now_micros() -> OffsetDateTime {
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
            heavy: Heavy::new(crate::limits::default_heavy_threads(), Some(64)),
            views: Default::default(),
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
    pub(super) fn game_of(&self, kind: &str) -> Result<&'static dyn AnyGame> {
        self.registry.find(kind).map_err(|unknown| {
            AppError::Invalid(
                says("errors.unknown_game_kind")
                    .arg("kind", &unknown.kind)
                    .arg("known", unknown.known.join(", ")),
            )
        })
    }
}

impl GameService {
    /// This service with `threads` heavy-work threads and `cache_mb` MiB of kept answers.
    pub fn with_heavy(mut self, threads: usize, cache_mb: Option<usize>) -> Self {
        self.heavy = Heavy::new(threads, cache_mb);
        self
    }

    /// The heavy-work counts: answers served from the cache, and computed.
    pub fn heavy_counts(&self) -> (u64, u64) {
        self.heavy.counts()
    }

    /// A game's row and seats, and its record: what a bundle is built from, and what an answer
    /// computed from it is kept under. Read from `store` (the primary or a fresh replica).
    pub(super) async fn record(
        store: &Store,
        id: GameId,
    ) -> Result<(GameRow, Vec<SeatRow>, Record)> {
        let row = store.game(id).await?;
        let seats = store.seats(id).await?;
        let log = store.log_mark(id).await?;
        let record = Record::new(&row, &seats, log);
        Ok((row, seats, record))
    }
}
