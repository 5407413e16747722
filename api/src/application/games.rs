//! [`Games`]: what the game use cases share. The store, the registry, the cache of hot games
//! (one slot per game behind its own lock, brought up to the head before use), the heads heard
//! by LISTEN, and the fold that loads a game (newest snapshot + `replay()` of the tail). Each
//! use case is a service of its own holding an `Arc` of this core (`commands.rs`, `lobby.rs`,
//! `reads.rs`…).

use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::loaded::Decision;
use super::loaded::Loaded;
use domain::AnyGame;
use domain::AnyState;
use domain::Registry;
use domain::i18n::says;
use infra::ids::GameId;
use infra::store::GameRow;
use infra::store::SeatRow;
use infra::store::Store;
use infra::store::replay;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;

/// Re-decide attempts when a command without `expected_version` loses a race.
pub(super) const MAX_RETRIES: usize = 5;

pub(super) type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// The hot games of this instance and how to load one: shared by every game use case.
pub struct Games {
    pub(super) store: Store,
    /// The games this server hosts: no game is known here by name.
    pub(super) registry: Registry,
    pub(super) cache: Mutex<HashMap<GameId, Slot>>,
    /// Newest version of each game heard from `pg_notify` (every instance's appends).
    pub(super) heads: Mutex<HashMap<GameId, u64>>,
    /// True while the notification listener is connected, so `heads` is complete.
    pub(super) listening: std::sync::atomic::AtomicBool,
    /// The prompts and detail answers rendered once per version and audience (issue 31).
    pub(super) views: super::views::Views,
}

impl Games {
    /// The games in `registry`, stored in `store`.
    pub fn new(store: Store, registry: Registry) -> Self {
        Games {
            store,
            registry,
            cache: Mutex::new(HashMap::new()),
            heads: Mutex::new(HashMap::new()),
            listening: std::sync::atomic::AtomicBool::new(false),
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

impl Games {
    pub(super) fn slot(&self, id: GameId) -> Slot {
        let mut cache = self.cache.lock().expect("cache lock");
        cache.entry(id).or_default().clone()
    }

    pub(super) fn heard_head(&self, id: GameId) -> u64 {
        self.heads
            .lock()
            .expect("heads lock")
            .get(&id)
            .copied()
            .unwrap_or(0)
    }

    /// Number of games held in the in-process cache.
    pub fn cached_games(&self) -> usize {
        self.cache.lock().expect("cache lock").len()
    }

    /// Loads a started game into its cache slot, or brings the cached copy up to the head.
    pub(super) async fn ensure_fresh(
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
                self.sync_decisions(id, loaded).await?;
            }
            return Ok(());
        }
        let row = self.store.game(id).await?;
        if row.started_at.is_none() {
            // A lobby, or one that was cancelled or expired (issue 17): no log.
            return Err(AppError::Invalid(
                says("errors.game_not_started").arg("status", row.status.as_str()),
            ));
        }
        let game = self.game_of(&row.kind)?;
        let seats = self.store.seats(id).await?;
        let (version, state) = self.restore(id, game, row.version).await?;
        let mut loaded = Loaded::new(game, row, seats, version, String::new(), state);
        self.catch_up(id, &mut loaded).await?;
        self.sync_decisions(id, &mut loaded).await?;
        *slot = Some(loaded);
        Ok(())
    }

    /// Reads back the decisions a game of clock version 2 waits for (issue 26) once this
    /// instance loaded it or caught up with appends it did not make: the last append stored
    /// them with its inbox rows, read here beside the version they belong to (catching up
    /// again when the game moved on in between).
    pub(super) async fn sync_decisions(&self, id: GameId, loaded: &mut Loaded) -> Result<()> {
        if !loaded.clock().is_some_and(|c| c.per_decision()) {
            return Ok(());
        }
        for _attempt in 0..=MAX_RETRIES {
            let (version, decided) = self.store.decisions(id).await?;
            if version > loaded.version {
                self.catch_up(id, loaded).await?;
                continue;
            }
            loaded.decisions = decided
                .iter()
                .map(|d| Decision {
                    seat: d.seat,
                    since: d.since_seq.unwrap_or(version),
                    at: d.since,
                })
                .collect();
            return Ok(());
        }
        Err(AppError::Conflict {
            current: loaded.version,
        })
    }

    /// Runs `f` on the fresh state of a started game.
    pub async fn with_game<R>(&self, id: GameId, f: impl FnOnce(&Loaded) -> R) -> Result<R> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        self.ensure_fresh(id, &mut guard, None).await?;
        let loaded = guard.as_ref().expect("loaded");
        guarded(|| f(loaded))
    }
}

impl Games {
    pub async fn game_row(&self, id: GameId) -> Result<(GameRow, Vec<SeatRow>)> {
        let row = self.store.game(id).await?;
        let seats = self.store.seats(id).await?;
        Ok((row, seats))
    }

    /// The version a replica-eligible read of `id` needs at least: what the client says it
    /// holds, and the newest head this instance knows without asking the database (heard by
    /// LISTEN or cached): it may have shown that one to anyone.
    pub(super) fn read_floor(&self, id: GameId, min_version: u64) -> u64 {
        let slot = self.cache.lock().expect("cache lock").get(&id).cloned();
        // A slot being loaded or written is skipped: its head is heard by LISTEN anyway.
        let cached = slot
            .and_then(|slot| {
                slot.try_lock()
                    .ok()
                    .and_then(|s| s.as_ref().map(|l| l.version))
            })
            .unwrap_or(0);
        min_version.max(cached).max(self.heard_head(id))
    }
}

impl Games {
    /// The state at the newest snapshot at or before `at` (or the empty state at version 0).
    /// A snapshot that does not load never bricks a game: the log is folded up to it instead,
    /// the error is logged, and the snapshot is rewritten from the fold.
    pub(super) async fn restore(
        &self,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
    ) -> Result<(u64, Box<dyn AnyState>)> {
        self.restore_from(&self.store, id, game, at).await
    }

    /// [`Self::restore`] reading `store` (the primary or a replica); a snapshot rewrite goes to
    /// the primary.
    pub(super) async fn restore_from(
        &self,
        store: &Store,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
    ) -> Result<(u64, Box<dyn AnyState>)> {
        let Some((version, snapshot)) = store.snapshot(id, at).await? else {
            return Ok((0, game.new_state()));
        };
        let error = match guarded(|| game.state_from_json(&snapshot))? {
            Ok(state) => return Ok((version, state)),
            Err(error) => error,
        };
        tracing::error!(game = %id.0, version, %error, "a snapshot does not load: folding the log instead");
        let mut state = game.new_state();
        fold_from(store, id, &mut state, 0, version).await?;
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
    pub(super) async fn fold(
        &self,
        id: GameId,
        state: &mut Box<dyn AnyState>,
        from: u64,
        to: u64,
    ) -> Result<()> {
        fold_from(&self.store, id, state, from, to).await
    }

    pub(super) async fn catch_up(&self, id: GameId, loaded: &mut Loaded) -> Result<()> {
        loop {
            let batch = self.store.events(id, loaded.version, None, 5000).await?;
            if batch.is_empty() {
                break;
            }
            replay(loaded.state.as_mut(), &batch)?;
            for event in &batch {
                loaded.note_entry(&event.kind, &event.payload);
            }
            let last = batch.last().expect("a non-empty batch");
            loaded.head_at = Some(last.recorded_at);
            loaded.version = last.seq;
            loaded.head_hash = last.hash.clone();
        }
        // Bytes rendered before go now, heard or not (issue 31).
        self.views.moved(id, loaded.version);
        if loaded.version > 0 && loaded.head_hash.is_empty() {
            // Restored from a snapshot with no later events: the head hash is the row's.
            loaded.head_hash = self.store.game(id).await?.head_hash;
        }
        if loaded.head_hash.is_empty() {
            loaded.head_hash = infra::hash::GENESIS.to_string();
        }
        if loaded.head_at.is_none() && loaded.version > 0 {
            // Restored from a snapshot with no later events: the head event's time (clocks).
            let head = self
                .store
                .events(id, loaded.version - 1, Some(loaded.version), 1)
                .await?;
            loaded.head_at = head.first().map(|e| e.recorded_at);
        }
        loaded.finished = loaded.state.outcome().is_some();
        Ok(())
    }
}

/// Applies the events `from < seq <= to` of the log in `store` to `state`.
async fn fold_from(
    store: &Store,
    id: GameId,
    state: &mut Box<dyn AnyState>,
    from: u64,
    to: u64,
) -> Result<()> {
    let mut version = from;
    while version < to {
        let batch = store.events(id, version, Some(to), 5000).await?;
        if batch.is_empty() {
            break;
        }
        version = replay(state.as_mut(), &batch)?.unwrap_or(version);
    }
    Ok(())
}

/// What the notification listener (`adapters::pg_listen`) tells the games: the heads every
/// instance appends, and whether it hears them.
pub trait Heads: Send + Sync {
    /// A version heard from the notification channel.
    fn heard(&self, id: GameId, version: u64);
    /// The listener connected (`true`) or lost its connection (`false`).
    fn set_listening(&self, up: bool);
}

impl Heads for Games {
    fn heard(&self, id: GameId, version: u64) {
        let mut heads = self.heads.lock().expect("heads lock");
        let head = heads.entry(id).or_default();
        *head = (*head).max(version);
    }

    // Notifications may have been missed in between, so reads check the database until the
    // listener is back.
    fn set_listening(&self, up: bool) {
        if !up {
            self.listening
                .store(false, std::sync::atomic::Ordering::Release);
        } else {
            self.heads.lock().expect("heads lock").clear();
            // Whatever was missed while deaf: reload cached games from the log on next use.
            self.cache.lock().expect("cache lock").clear();
            self.views.clear();
            self.listening
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }
}
