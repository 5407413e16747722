use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::loaded::Decision;
use super::loaded::Loaded;
use super::service::GameService;
use super::service::MAX_RETRIES;
use super::service::Slot;
use domain::i18n::says;
use infra::ids::GameId;
impl GameService {
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
        let mut loaded = Loaded {
            game,
            version,
            head_hash: String::new(),
            state,
            finished: false,
            head_at: None,
            decisions: Vec::new(),
            seats,
            row,
        };
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

/// What the notification listener (`adapters::pg_listen`) tells the games: the heads every
/// instance appends, and whether it hears them.
pub trait Heads: Send + Sync {
    /// A version heard from the notification channel.
    fn heard(&self, id: GameId, version: u64);
    /// The listener connected (`true`) or lost its connection (`false`).
    fn set_listening(&self, up: bool);
}

impl Heads for GameService {
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
