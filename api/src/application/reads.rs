use super::error::AppError;
use super::error::Result;
use super::loaded::Loaded;
use super::loaded::Prompts;
use super::service::GameService;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::store::GameRow;
use infra::store::GameStatus;
use infra::store::SeatRow;
use infra::store::Store;
use infra::store::StoredEvent;
use serde_json::Value;
use time::OffsetDateTime;
/// A game as one user reads it (see [`GameService::detail`]).
pub struct GameRead {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    /// The user's view (null before the start).
    pub view: Value,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}

impl Loaded {
    /// The game as `user` reads it: the row at the cached head, the seats, `user`'s view and
    /// the deadlines of the seats it waits for.
    pub(super) fn read_by(&self, user: UserId) -> GameRead {
        let mut row = self.row.clone();
        row.version = self.version;
        if self.finished {
            row.status = GameStatus::Finished;
            row.outcome = self
                .state
                .outcome()
                .and_then(|o| serde_json::to_value(o).ok());
        }
        GameRead {
            row,
            seats: self.seats.clone(),
            view: self.state.view(self.viewer(user)),
            deadlines: self.deadlines(&self.state.prompts()),
        }
    }
}

impl GameService {
    /// A game as `user` reads it: a started game from the cache (no database round trip
    /// while the listener is connected), with `user`'s view and the deadlines of the seats it
    /// waits for; a lobby from the database (no view yet).
    pub async fn detail(&self, id: GameId, user: UserId) -> Result<GameRead> {
        match self.with_game(id, |loaded| loaded.read_by(user)).await {
            // Not started: `with_game` refuses a lobby.
            Err(AppError::Invalid(_)) => self.lobby_read(id).await,
            other => other,
        }
    }

    /// A game not started, from the database (no view yet).
    pub(super) async fn lobby_read(&self, id: GameId) -> Result<GameRead> {
        let (row, seats) = self.game_row(id).await?;
        Ok(GameRead {
            row,
            seats,
            view: Value::Null,
            deadlines: Vec::new(),
        })
    }

    /// The caller's view, prompts and legal commands of a started game.
    pub async fn prompts(&self, id: GameId, user: UserId) -> Result<Prompts> {
        self.with_game(id, |loaded| loaded.prompts_for(user)).await
    }

    /// Events after `after`, as `user` may see them (from the primary: the live stream's
    /// catch-up must see every append).
    pub async fn events(
        &self,
        id: GameId,
        user: UserId,
        after: u64,
        limit: u32,
    ) -> Result<(u64, Vec<StoredEvent>)> {
        let stored = self.store.events(id, after, None, limit).await?;
        self.shown(id, user, after, stored).await
    }

    /// An event page (`GET /events`): [`Self::events`], read from the replica when its head of
    /// the game is at least `min_version` (what the client holds), the instance's known head
    /// and `after + 1` (a page always moves on: an empty page from a lagging replica would
    /// send its reader round in circles).
    pub async fn events_page(
        &self,
        id: GameId,
        user: UserId,
        after: u64,
        limit: u32,
        min_version: u64,
    ) -> Result<(u64, Vec<StoredEvent>)> {
        let need = self
            .read_floor(id, min_version)
            .max(after.saturating_add(1));
        let stored = self
            .reads
            .read(id, need, |store| async move {
                store.events(id, after, None, limit).await
            })
            .await?;
        self.shown(id, user, after, stored).await
    }

    /// `stored` as `user` may see them, and the seq the page ends at.
    async fn shown(
        &self,
        id: GameId,
        user: UserId,
        after: u64,
        stored: Vec<StoredEvent>,
    ) -> Result<(u64, Vec<StoredEvent>)> {
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

    /// This service reading replays, exports, audits and event pages from `replica` when it
    /// is fresh enough (issue 29; `None`: everything from the primary).
    pub fn with_replica(mut self, replica: Option<Store>) -> Self {
        self.reads = infra::replica::ReadSource::new(self.store.clone(), replica);
        self
    }

    /// Replica-eligible reads so far, by where they went and why (the metric).
    pub fn replica_counts(&self) -> Vec<(infra::replica::Reason, u64)> {
        self.reads.counts()
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
