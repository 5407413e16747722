//! The game application service: lobby, start, commands (decide → append), reads and replays.
//!
//! Hot games are cached in process, each behind its own mutex; the cache is only a cache:
//! every append is checked against the head in PostgreSQL (optimistic concurrency), and reads
//! check the head version before serving.

use crate::audit::{self, AuditReport, Bundle, BundleCommand, BundleEvent, BundleGame, BundleSeat};
use crate::error::{Result, StoreError};
use crate::hash::{ChainedEvent, canonical_json, event_hash};
use crate::ids::{GameId, UserId};
use crate::store::{
    Append, AppendResult, GameRow, GameStatus, NewGame, SeatRow, Store, StoredEvent,
};
use domain::engine::{ChaChaRng, seed_commitment};
use domain::{AnyGame, AnyState, Outcome, Prompt, Seat, Viewer};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use time::OffsetDateTime;
use uuid::Uuid;

/// Event type of the server-seed reveal appended when a game ends; not a game event.
pub const SEED_REVEALED: &str = "server_seed_revealed";
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
}

impl Loaded {
    pub fn seat_of(&self, user: UserId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.user_id == user)
            .and_then(|s| Seat::new(s.seat).ok())
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
    fn client_seeds(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.client_seed.clone()).collect()
    }
    /// The caller's copy of a stored event, or `None` if hidden from them.
    pub fn redact(&self, event: &StoredEvent, viewer: Viewer) -> Option<RecordedEvent> {
        let payload = if event.kind == SEED_REVEALED || viewer == Viewer::Omniscient {
            event.payload.clone()
        } else {
            self.state.redact(&event.payload, viewer)?
        };
        Some(RecordedEvent {
            seq: event.seq,
            kind: event.kind.clone(),
            payload,
            actor: event.actor,
            recorded_at: event.recorded_at,
            hash: event.hash.clone(),
        })
    }
}

/// An event as a caller sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedEvent {
    pub seq: u64,
    pub kind: String,
    pub payload: Value,
    pub actor: Option<u8>,
    pub recorded_at: OffsetDateTime,
    pub hash: String,
}

/// One move explained (see `audit_move`).
pub struct MoveAudit {
    pub seq: u64,
    pub first_seq: u64,
    pub last_seq: u64,
    pub seat: Option<u8>,
    pub sent_by: String,
    pub recorded_at: OffsetDateTime,
    pub command: Value,
    pub state_before: Value,
    pub checks: Vec<audit::Check>,
    pub sound: bool,
    pub events: Vec<RecordedEvent>,
}

pub struct CommandRequest {
    pub command_id: Uuid,
    pub expected_version: Option<u64>,
    pub command: Value,
}

pub struct CommandAnswer {
    pub version: u64,
    pub events: Vec<RecordedEvent>,
    /// True when this was a repeat of an accepted command id.
    pub replayed: bool,
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
    pub store: Store,
    cache: Mutex<HashMap<GameId, Slot>>,
    pub counters: Counters,
    /// Newest version of each game heard from `pg_notify` (every instance's appends).
    heads: Mutex<HashMap<GameId, u64>>,
    /// True while the notification listener is connected, so `heads` is complete.
    listening: std::sync::atomic::AtomicBool,
}

fn body_hash(command: &Value) -> String {
    let mut text = String::new();
    canonical_json(command, &mut text);
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn is_meta(kind: &str) -> bool {
    kind == SEED_REVEALED
}

fn now_micros() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1000 * 1000)
        .unwrap_or(now)
}

fn game_of(kind: &str) -> Result<&'static dyn AnyGame> {
    domain::game(kind).ok_or_else(|| StoreError::Invalid(format!("unknown game kind `{kind}`")))
}

impl GameService {
    pub fn new(store: Store) -> Self {
        GameService {
            store,
            cache: Mutex::new(HashMap::new()),
            counters: Counters::default(),
            heads: Mutex::new(HashMap::new()),
            listening: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn slot(&self, id: GameId) -> Slot {
        let mut cache = self.cache.lock().expect("cache lock");
        cache.entry(id).or_default().clone()
    }

    /// Records a version heard from the notification channel.
    pub fn heard(&self, id: GameId, version: u64) {
        let mut heads = self.heads.lock().expect("heads lock");
        let head = heads.entry(id).or_default();
        *head = (*head).max(version);
    }

    fn heard_head(&self, id: GameId) -> u64 {
        self.heads
            .lock()
            .expect("heads lock")
            .get(&id)
            .copied()
            .unwrap_or(0)
    }

    /// The listener connected (`true`) or lost its connection (`false`). Notifications may
    /// have been missed in between, so reads check the database until it is back.
    pub fn set_listening(&self, up: bool) {
        if !up {
            self.listening
                .store(false, std::sync::atomic::Ordering::Release);
        } else {
            self.heads.lock().expect("heads lock").clear();
            // Whatever was missed while deaf: reload cached games from the log on next use.
            self.cache.lock().expect("cache lock").clear();
            self.listening
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// Number of games held in the in-process cache.
    pub fn cached_games(&self) -> usize {
        self.cache.lock().expect("cache lock").len()
    }

    pub async fn create(
        &self,
        host: UserId,
        request: CreateGame,
        is_admin: bool,
    ) -> Result<GameId> {
        let game = game_of(&request.kind)?;
        if !game.seat_range().contains(&request.seats) {
            let range = game.seat_range();
            return Err(StoreError::Invalid(format!(
                "{} is played by {} to {} players",
                request.kind,
                range.start(),
                range.end()
            )));
        }
        let options = game
            .normalize_options(&request.options)
            .map_err(|e| StoreError::Invalid(format!("options: {e}")))?;
        let (server_seed, fair) = match &request.rng_seed {
            Some(_) if !is_admin => {
                return Err(StoreError::Forbidden("only admins may fix rng_seed".into()));
            }
            Some(fixed) => (Sha256::digest(fixed.as_bytes()).into(), false),
            None => {
                let mut seed = [0u8; 32];
                fill_random(&mut seed);
                (seed, true)
            }
        };
        let id = GameId::new();
        let commitment = seed_commitment(&server_seed);
        self.store
            .create_game(NewGame {
                id,
                kind: game.kind(),
                seat_count: request.seats,
                options: &options,
                host,
                fair,
                server_seed,
                seed_commitment: &commitment,
                rules_version: game.rules_version(),
                host_client_seed: &request.client_seed,
            })
            .await?;
        Ok(id)
    }

    /// Starts a full lobby: runs the game's setup as the log's first command.
    pub async fn start(&self, id: GameId, user: UserId, command_id: Uuid) -> Result<CommandAnswer> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        let row = self.store.game(id).await?;
        if row.host_id != user {
            return Err(StoreError::Forbidden(
                "only the host may start the game".into(),
            ));
        }
        // Only the host's own records answer (the host is the only one who gets this far).
        if let Some((_, first, last)) = self.store.command(id, user, command_id).await? {
            self.ensure_fresh(id, &mut guard, None).await?;
            let loaded = guard.as_ref().expect("loaded");
            return self.answer_from_log(loaded, user, first, last).await;
        }
        if row.status != GameStatus::Lobby {
            return Err(StoreError::Invalid("the game has already started".into()));
        }
        let seats = self.store.seats(id).await?;
        let game = game_of(&row.kind)?;
        if seats.len() != usize::from(row.seat_count) {
            return Err(StoreError::Invalid(format!(
                "{} of {} seats are taken: the game starts when every seat is taken",
                seats.len(),
                row.seat_count
            )));
        }
        let client_seeds: Vec<String> = seats.iter().map(|s| s.client_seed.clone()).collect();
        let mut rng = ChaChaRng::for_command(&row.server_seed, &client_seeds, 0);
        let events = game.setup(&row.options, row.seat_count, &mut rng)?;
        let mut loaded = Loaded {
            game,
            version: 0,
            head_hash: row.head_hash.clone(),
            state: game.new_state(),
            finished: false,
            seats,
            row,
        };
        let answer = self
            .append_decided(
                &mut loaded,
                user,
                None,
                command_id,
                &json!({"type": "start"}),
                events,
                None,
                GameStatus::Active,
            )
            .await?;
        match answer {
            Ok(answer) => {
                *guard = Some(loaded);
                Ok(answer)
            }
            Err(current) => Err(StoreError::Conflict { current }),
        }
    }

    /// Loads a started game into its cache slot, or brings the cached copy up to the head.
    async fn ensure_fresh(
        &self,
        id: GameId,
        slot: &mut Option<Loaded>,
        known_head: Option<u64>,
    ) -> Result<()> {
        if let Some(loaded) = slot.as_mut() {
            let head = match known_head {
                Some(head) => head,
                // While this instance hears every append (LISTEN), the newest version heard is
                // the head; otherwise ask the database.
                None if self.listening.load(std::sync::atomic::Ordering::Acquire) => {
                    self.heard_head(id).max(loaded.version)
                }
                None => self.store.head(id).await?.0,
            };
            if head > loaded.version {
                self.catch_up(id, loaded).await?;
            }
            return Ok(());
        }
        let row = self.store.game(id).await?;
        if row.status == GameStatus::Lobby {
            return Err(StoreError::Invalid("the game has not started yet".into()));
        }
        let game = game_of(&row.kind)?;
        let seats = self.store.seats(id).await?;
        let (version, state) = self.restore(id, game, row.version).await?;
        let mut loaded = Loaded {
            game,
            version,
            head_hash: String::new(),
            state,
            finished: false,
            seats,
            row,
        };
        self.catch_up(id, &mut loaded).await?;
        *slot = Some(loaded);
        Ok(())
    }

    /// The state at the newest snapshot at or before `at` (or the empty state at version 0).
    /// A snapshot that does not load never bricks a game: the log is folded up to it instead,
    /// the error is logged, and the snapshot is rewritten from the fold.
    async fn restore(
        &self,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
    ) -> Result<(u64, Box<dyn AnyState>)> {
        let Some((version, snapshot)) = self.store.snapshot(id, at).await? else {
            return Ok((0, game.new_state()));
        };
        let error = match guarded(|| game.state_from_json(&snapshot))? {
            Ok(state) => return Ok((version, state)),
            Err(error) => error,
        };
        tracing::error!(game = %id.0, version, %error, "a snapshot does not load: folding the log instead");
        let mut state = game.new_state();
        self.fold(id, &mut state, 0, version).await?;
        if let Err(error) = self
            .store
            .replace_snapshot(id, version, &state.to_json())
            .await
        {
            tracing::warn!(game = %id.0, version, %error, "rewriting the snapshot failed");
        }
        Ok((version, state))
    }

    /// Applies the events `from < seq <= to` of the log to `state`.
    async fn fold(
        &self,
        id: GameId,
        state: &mut Box<dyn AnyState>,
        from: u64,
        to: u64,
    ) -> Result<()> {
        let mut version = from;
        while version < to {
            let batch = self.store.events(id, version, Some(to), 5000).await?;
            if batch.is_empty() {
                break;
            }
            for event in &batch {
                if !is_meta(&event.kind) {
                    state
                        .apply(&event.payload, event.schema_version)
                        .map_err(|e| {
                            StoreError::Corrupt(format!("event {} does not replay: {e}", event.seq))
                        })?;
                }
                version = event.seq;
            }
        }
        Ok(())
    }

    async fn catch_up(&self, id: GameId, loaded: &mut Loaded) -> Result<()> {
        loop {
            let batch = self.store.events(id, loaded.version, None, 5000).await?;
            if batch.is_empty() {
                break;
            }
            for event in &batch {
                if !is_meta(&event.kind) {
                    loaded
                        .state
                        .apply(&event.payload, event.schema_version)
                        .map_err(|e| {
                            StoreError::Corrupt(format!("event {} does not replay: {e}", event.seq))
                        })?;
                }
                loaded.version = event.seq;
                loaded.head_hash = event.hash.clone();
            }
        }
        if loaded.version > 0 && loaded.head_hash.is_empty() {
            // Restored from a snapshot with no later events: the head hash is the row's.
            loaded.head_hash = self.store.game(id).await?.head_hash;
        }
        if loaded.head_hash.is_empty() {
            loaded.head_hash = crate::hash::GENESIS.to_string();
        }
        loaded.finished = loaded.state.outcome().is_some();
        Ok(())
    }

    /// Runs `f` on the fresh state of a started game.
    pub async fn with_game<R>(&self, id: GameId, f: impl FnOnce(&Loaded) -> R) -> Result<R> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        self.ensure_fresh(id, &mut guard, None).await?;
        let loaded = guard.as_ref().expect("loaded");
        guarded(|| f(loaded))
    }

    pub async fn command(
        &self,
        id: GameId,
        user: UserId,
        request: CommandRequest,
    ) -> Result<CommandAnswer> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        // The cache is trusted for deciding: the append's version check catches a stale copy.
        let mut known_head = guard.as_ref().map(|loaded| loaded.version);
        for _attempt in 0..=MAX_RETRIES {
            self.ensure_fresh(id, &mut guard, known_head).await?;
            let loaded = guard.as_mut().expect("loaded");
            let Some(seat) = loaded.seat_of(user) else {
                return Err(StoreError::Forbidden(
                    "you have no seat in this game".into(),
                ));
            };
            if let Some(expected) = request.expected_version
                && expected != loaded.version
            {
                if expected < loaded.version {
                    // A stale version, unless this is a repeat of an accepted command.
                    if let Some(answer) = self.repeat(loaded, user, &request).await? {
                        return Ok(answer);
                    }
                    self.counters
                        .conflicts
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Err(StoreError::Conflict {
                        current: loaded.version,
                    });
                }
                // The client has seen a newer version than our cache: catch up and re-check.
                known_head = Some(expected);
                continue;
            }
            // A finished game still goes through `decide`, which refuses with the game's own
            // end-of-game rule (WR-132, …).
            let mut rng = ChaChaRng::for_command(
                &loaded.row.server_seed,
                &loaded.client_seeds(),
                loaded.version,
            );
            let decided = guarded(|| loaded.state.decide_next(seat, &request.command, &mut rng))?;
            let (events, next) = match decided {
                Ok(decided) => decided,
                Err(rejection) => {
                    if let Some(answer) = self.repeat(loaded, user, &request).await? {
                        return Ok(answer);
                    }
                    self.counters
                        .rejections
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Err(StoreError::Rejected(rejection));
                }
            };
            match self
                .append_decided(
                    loaded,
                    user,
                    Some(seat),
                    request.command_id,
                    &request.command,
                    events,
                    Some(next),
                    GameStatus::Active,
                )
                .await?
            {
                Ok(answer) => return Ok(answer),
                Err(current) => {
                    self.counters
                        .conflicts
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if request.expected_version.is_some() {
                        if let Some(answer) = self.repeat(loaded, user, &request).await? {
                            return Ok(answer);
                        }
                        return Err(StoreError::Conflict { current });
                    }
                    known_head = Some(current);
                }
            }
        }
        Err(StoreError::Conflict {
            current: guard.as_ref().map(|l| l.version).unwrap_or(0),
        })
    }

    /// The first answer to a command id the caller already sent and had accepted; 422 when
    /// the body differs. Another caller's records never answer: their id is just an id.
    /// (Runs under the game's slot lock: it must not take it again.)
    async fn repeat(
        &self,
        loaded: &Loaded,
        user: UserId,
        request: &CommandRequest,
    ) -> Result<Option<CommandAnswer>> {
        let id = loaded.row.id;
        match self.store.command(id, user, request.command_id).await? {
            None => Ok(None),
            Some((hash, _, _)) if hash != body_hash(&request.command) => {
                Err(StoreError::IdempotencyMismatch)
            }
            Some((_, first, last)) => {
                Ok(Some(self.answer_from_log(loaded, user, first, last).await?))
            }
        }
    }

    /// The answer to an accepted command, rebuilt from its events `first..=last` in the log,
    /// as `user` may see them. (Callers hold the game's slot lock.)
    async fn answer_from_log(
        &self,
        loaded: &Loaded,
        user: UserId,
        first: u64,
        last: u64,
    ) -> Result<CommandAnswer> {
        let events = self
            .store
            .events(
                loaded.row.id,
                first - 1,
                Some(last),
                (last + 1 - first) as u32 + 1,
            )
            .await?;
        let viewer = loaded.viewer(user);
        Ok(CommandAnswer {
            version: last,
            events: events
                .iter()
                .filter_map(|e| loaded.redact(e, viewer))
                .collect(),
            replayed: true,
        })
    }

    /// Hashes, appends and applies decided events. `Err(current)` on a version conflict.
    #[allow(clippy::too_many_arguments)]
    async fn append_decided(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        seat: Option<Seat>,
        command_id: Uuid,
        command: &Value,
        events: Vec<domain::EventData>,
        next: Option<Box<dyn AnyState>>,
        running: GameStatus,
    ) -> Result<std::result::Result<CommandAnswer, u64>> {
        // The state after the events (computed by `decide_next`, or applied here to a copy):
        // we need its outcome to know whether to reveal the seed.
        let schema = loaded.game.event_schema_version();
        let next = match next {
            Some(next) => next,
            None => {
                let mut next = loaded.state.clone_box();
                for event in &events {
                    next.apply(&event.payload, schema)
                        .map_err(StoreError::Corrupt)?;
                }
                next
            }
        };
        let outcome: Option<Outcome> = next.outcome();
        let mut kinds: Vec<String> = events.iter().map(|e| e.kind.clone()).collect();
        let mut payloads: Vec<Value> = events.into_iter().map(|e| e.payload).collect();
        if outcome.is_some() {
            kinds.push(SEED_REVEALED.into());
            payloads.push(
                json!({"type": SEED_REVEALED, "server_seed": hex::encode(loaded.row.server_seed)}),
            );
        }
        let recorded_at = now_micros();
        let mut hashes = Vec::with_capacity(kinds.len());
        let mut prev = loaded.head_hash.clone();
        for (i, (kind, payload)) in kinds.iter().zip(&payloads).enumerate() {
            let hash = event_hash(
                &prev,
                &ChainedEvent {
                    game_id: loaded.row.id.0,
                    seq: loaded.version + 1 + i as u64,
                    kind,
                    schema_version: schema,
                    command_id,
                    actor: seat.map(Seat::number),
                    payload,
                },
            );
            prev = hash.clone();
            hashes.push(hash);
        }
        let new_version = loaded.version + kinds.len() as u64;
        let crosses_snapshot = new_version / SNAPSHOT_EVERY > loaded.version / SNAPSHOT_EVERY;
        let snapshot = (crosses_snapshot || outcome.is_some()).then(|| next.to_json());
        let status = if outcome.is_some() {
            GameStatus::Finished
        } else {
            running
        };
        let result = self
            .store
            .append(Append {
                game: loaded.row.id,
                expected: loaded.version,
                command_id,
                user,
                seat: seat.map(Seat::number),
                body_hash: &body_hash(command),
                command,
                kinds: kinds.clone(),
                payloads: payloads.clone(),
                schema_version: schema,
                hashes: hashes.clone(),
                status,
                outcome: outcome
                    .as_ref()
                    .map(|o| serde_json::to_value(o).expect("outcome serializes")),
                snapshot,
                recorded_at,
            })
            .await?;
        match result {
            AppendResult::Appended {
                version, first_seq, ..
            } => {
                self.counters
                    .commands_appended
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.counters
                    .events_appended
                    .fetch_add(kinds.len() as u64, std::sync::atomic::Ordering::Relaxed);
                loaded.state = next;
                loaded.version = version;
                loaded.head_hash = prev;
                loaded.finished = outcome.is_some();
                loaded.row.status = status;
                let viewer = loaded.viewer(user);
                let stored: Vec<StoredEvent> = kinds
                    .into_iter()
                    .zip(payloads)
                    .zip(hashes)
                    .enumerate()
                    .map(|(i, ((kind, payload), hash))| StoredEvent {
                        seq: first_seq + i as u64,
                        kind,
                        payload,
                        schema_version: schema,
                        command_id,
                        actor: seat.map(Seat::number),
                        recorded_at,
                        prev_hash: String::new(),
                        hash,
                    })
                    .collect();
                let events = stored
                    .iter()
                    .filter_map(|e| loaded.redact(e, viewer))
                    .collect();
                Ok(Ok(CommandAnswer {
                    version,
                    events,
                    replayed: false,
                }))
            }
            AppendResult::Duplicate {
                first_seq,
                last_seq,
                ..
            } => Ok(Ok(self
                .answer_from_log(loaded, user, first_seq, last_seq)
                .await?)),
            AppendResult::Mismatch => Err(StoreError::IdempotencyMismatch),
            AppendResult::Conflict { current } => Ok(Err(current)),
        }
    }

    /// The caller's view, prompts and legal commands of a started game.
    pub async fn prompts(
        &self,
        id: GameId,
        user: UserId,
    ) -> Result<(u64, Vec<Prompt>, Vec<Value>)> {
        self.with_game(id, |loaded| {
            let legal = match loaded.seat_of(user) {
                Some(seat) if !loaded.finished => loaded.state.legal(seat),
                _ => Vec::new(),
            };
            (loaded.version, loaded.state.prompts(), legal)
        })
        .await
    }

    /// Events after `after`, as `user` may see them.
    pub async fn events(
        &self,
        id: GameId,
        user: UserId,
        after: u64,
        limit: u32,
    ) -> Result<(u64, Vec<RecordedEvent>)> {
        let stored = self.store.events(id, after, None, limit).await?;
        self.with_game(id, |loaded| {
            let viewer = loaded.viewer(user);
            let last = stored.last().map(|e| e.seq).unwrap_or(after);
            (
                last,
                stored
                    .iter()
                    .filter_map(|e| loaded.redact(e, viewer))
                    .collect(),
            )
        })
        .await
    }

    /// Replay: `user`'s view of the state at version `at`.
    pub async fn view_at(&self, id: GameId, user: UserId, at: u64) -> Result<(u64, Value)> {
        let (game, viewer, head) = self
            .with_game(id, |loaded| {
                (loaded.game, loaded.viewer(user), loaded.version)
            })
            .await?;
        if at > head {
            return Err(StoreError::Invalid(format!(
                "version {at} is beyond the head ({head})"
            )));
        }
        let (version, mut state) = self.restore(id, game, at).await?;
        self.fold(id, &mut state, version, at).await?;
        guarded(|| (at, state.view(viewer)))
    }

    /// The whole record of a game as the server holds it (every payload, no seed).
    async fn full_bundle(&self, id: GameId) -> Result<(Bundle, GameRow)> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        let commands = self.store.commands(id).await?;
        let mut events = Vec::new();
        loop {
            let batch = self
                .store
                .events(id, events.len() as u64, None, 10_000)
                .await?;
            if batch.is_empty() {
                break;
            }
            events.extend(batch);
        }
        let bundle = Bundle {
            format: audit::FORMAT.into(),
            game: BundleGame {
                id: row.id.0,
                kind: row.kind.clone(),
                options: row.options.clone(),
                seat_count: row.seat_count,
                seats: seats
                    .iter()
                    .map(|s| BundleSeat {
                        seat: s.seat,
                        user_id: s.user_id.0,
                        name: s.user_name.clone(),
                        client_seed: s.client_seed.clone(),
                    })
                    .collect(),
                fair: row.fair,
                seed_commitment: row.seed_commitment.clone(),
                rules_version: row.rules_version.clone(),
                status: row.status.as_str().into(),
                version: row.version,
                head_hash: row.head_hash.clone(),
            },
            server_seed: None,
            commands: commands
                .into_iter()
                .map(|c| BundleCommand {
                    command_id: c.command_id,
                    seat: c.seat,
                    user_id: c.user_id.0,
                    command: c.command,
                    first_seq: c.first_seq,
                    last_seq: c.last_seq,
                    recorded_at: c.recorded_at,
                })
                .collect(),
            events: events
                .into_iter()
                .map(|e| BundleEvent {
                    seq: e.seq,
                    kind: e.kind,
                    payload: e.payload,
                    schema_version: e.schema_version,
                    command_id: e.command_id,
                    actor: e.actor,
                    recorded_at: e.recorded_at,
                    prev_hash: e.prev_hash,
                    hash: e.hash,
                    redacted: false,
                })
                .collect(),
        };
        Ok((bundle, row))
    }

    /// The export bundle as `user` may see it: everything (with the seed) once the game is
    /// over; before that, other seats' secrets are redacted.
    pub async fn export(&self, id: GameId, user: UserId) -> Result<Bundle> {
        let (mut bundle, row) = self.full_bundle(id).await?;
        if row.status == GameStatus::Finished {
            bundle.server_seed = Some(hex::encode(row.server_seed));
            return Ok(bundle);
        }
        if row.status == GameStatus::Lobby {
            return Ok(bundle);
        }
        self.with_game(id, |loaded| {
            let viewer = loaded.viewer(user);
            let mut hidden_seqs = std::collections::HashSet::new();
            for event in &mut bundle.events {
                let shown = if event.kind == SEED_REVEALED {
                    Some(event.payload.clone())
                } else {
                    loaded.state.redact(&event.payload, viewer)
                };
                if shown.as_ref() != Some(&event.payload) {
                    event.payload = shown.unwrap_or(Value::Null);
                    event.redacted = true;
                    hidden_seqs.insert(event.seq);
                }
            }
            // A command whose events hold a secret is the sender's alone. (Matched by the seqs
            // it produced: command ids are only unique per caller.)
            let me = loaded.seat_of(user).map(Seat::number);
            for command in &mut bundle.commands {
                let hides =
                    (command.first_seq..=command.last_seq).any(|s| hidden_seqs.contains(&s));
                if hides && command.seat != me {
                    command.command = Value::Null;
                }
            }
            bundle
        })
        .await
    }

    /// Every check on the live log. The server re-runs the dice with its secret seed; before
    /// the end, details of a divergence are withheld from players (they could hold secrets).
    pub async fn audit(&self, id: GameId, user: UserId) -> Result<AuditReport> {
        let (bundle, row) = self.full_bundle(id).await?;
        let mut report = guarded(|| audit::verify_with_seed(&bundle, &row.server_seed))?;
        if row.status != GameStatus::Finished
            && let Some(divergence) = report.divergence.as_mut()
        {
            let _ = user;
            divergence.recorded = Value::Null;
            divergence.expected = Value::Null;
        }
        Ok(report)
    }

    /// Explains the move that produced event `seq`, as `user` may see it.
    pub async fn audit_move(&self, id: GameId, user: UserId, seq: u64) -> Result<MoveAudit> {
        self.audit_move_as(id, user, seq, false).await
    }

    /// Explains the move that produced event `seq`: as `user` may see it, or everything when
    /// `arbiter` (an admin resolving a dispute).
    pub async fn audit_move_as(
        &self,
        id: GameId,
        user: UserId,
        seq: u64,
        arbiter: bool,
    ) -> Result<MoveAudit> {
        let (bundle, row) = self.full_bundle(id).await?;
        let command = bundle
            .commands
            .iter()
            .find(|c| c.first_seq <= seq && seq <= c.last_seq)
            .cloned()
            .ok_or(StoreError::NotFound("move"))?;
        let game = game_of(&row.kind)?;
        let (viewer, redacted_events, command_visible) = self
            .with_game(id, |loaded| {
                let viewer = if arbiter {
                    Viewer::Omniscient
                } else {
                    loaded.viewer(user)
                };
                let events: Vec<RecordedEvent> = bundle
                    .events
                    .iter()
                    .filter(|e| e.seq >= command.first_seq && e.seq <= command.last_seq)
                    .filter_map(|e| {
                        loaded.redact(
                            &StoredEvent {
                                seq: e.seq,
                                kind: e.kind.clone(),
                                payload: e.payload.clone(),
                                schema_version: e.schema_version,
                                command_id: e.command_id,
                                actor: e.actor,
                                recorded_at: e.recorded_at,
                                prev_hash: e.prev_hash.clone(),
                                hash: e.hash.clone(),
                            },
                            viewer,
                        )
                    })
                    .collect();
                let all_shown = events.len() == (command.last_seq + 1 - command.first_seq) as usize
                    && events
                        .iter()
                        .zip(bundle.events.iter().skip(command.first_seq as usize - 1))
                        .all(|(a, b)| a.payload == b.payload);
                let visible = all_shown
                    || viewer == domain::Viewer::Omniscient
                    || loaded.seat_of(user).map(Seat::number) == command.seat;
                (viewer, events, visible)
            })
            .await?;
        // The state before the move, as the caller may see it.
        let mut state = game.new_state();
        for event in bundle.events.iter().take(command.first_seq as usize - 1) {
            if event.kind != SEED_REVEALED {
                state
                    .apply(&event.payload, event.schema_version)
                    .map_err(StoreError::Corrupt)?;
            }
        }
        let state_before = guarded(|| state.view(viewer))?;
        // Checks: the chain up to this move, and a re-run of this move alone.
        let mut prefix = bundle.clone();
        prefix.events.truncate(command.last_seq as usize);
        prefix.commands.retain(|c| c.first_seq <= command.first_seq);
        prefix.game.version = command.last_seq;
        prefix.game.head_hash = prefix
            .events
            .last()
            .map(|e| e.hash.clone())
            .unwrap_or_default();
        let report = guarded(|| audit::verify_with_seed(&prefix, &row.server_seed))?;
        let sender = bundle
            .game
            .seats
            .iter()
            .find(|s| s.user_id == command.user_id)
            .map(|s| s.name.clone());
        Ok(MoveAudit {
            seq,
            first_seq: command.first_seq,
            last_seq: command.last_seq,
            seat: command.seat,
            sent_by: sender.unwrap_or_default(),
            recorded_at: command.recorded_at,
            command: if command_visible {
                command.command.clone()
            } else {
                Value::Null
            },
            state_before,
            checks: report.checks,
            sound: report.sound,
            events: redacted_events,
        })
    }

    /// Checks every stored snapshot of a game against a fold of its log: each must load and
    /// serialize exactly as the folded state at its version. Returns the number checked and
    /// the versions of those that do not load or differ.
    pub async fn check_snapshots(&self, id: GameId) -> Result<(usize, Vec<u64>)> {
        let row = self.store.game(id).await?;
        let game = game_of(&row.kind)?;
        let snapshots = self.store.snapshots(id).await?;
        let mut state = game.new_state();
        let mut version = 0;
        let mut bad = Vec::new();
        for (at, snapshot) in &snapshots {
            self.fold(id, &mut state, version, *at).await?;
            version = *at;
            let loaded = guarded(|| game.state_from_json(snapshot))?;
            if loaded.map(|s| s.to_json()).as_ref() != Ok(&state.to_json()) {
                bad.push(*at);
            }
        }
        Ok((snapshots.len(), bad))
    }

    pub async fn game_row(&self, id: GameId) -> Result<(GameRow, Vec<SeatRow>)> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        Ok((row, seats))
    }
}

/// Runs rules-engine code; a panic (a bug) becomes an internal error instead of taking the
/// worker down, and nothing is appended.
fn guarded<R>(f: impl FnOnce() -> R) -> Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| StoreError::Corrupt("the rules engine panicked".into()))
}

/// 32 bytes from the operating system's CSPRNG.
pub fn fill_random(out: &mut [u8]) {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(out))
        .expect("the OS random source is readable");
}
