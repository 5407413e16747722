use super::error::AppError;
use super::error::Result;
use super::games::Games;
use super::loaded::Prompts;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::replica::ReadSource;
use infra::store::GameRow;
use infra::store::GameStatus;
use infra::store::SeatRow;
use infra::store::Store;
use infra::store::StoredEvent;
use serde_json::Value;
use std::sync::Arc;
use time::OffsetDateTime;
/// A game as one user reads it (see [`Reads::detail`]).
pub struct GameRead {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    /// The user's view (null before the start).
    pub view: Value,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}

/// Reads of a game as one user may see them: its detail, prompts and events, from the
/// core's cached game (the events from the store, redacted under the game's lock).
pub struct Reads {
    games: Arc<Games>,
    store: Store,
    /// Where event pages are read: a replica when fresh (issue 29).
    reads: Arc<ReadSource>,
}

impl Reads {
    pub fn new(games: Arc<Games>, reads: Arc<ReadSource>) -> Self {
        Reads {
            store: games.store.clone(),
            games,
            reads,
        }
    }
}

impl Reads {
    /// A game as `user` reads it: a started game from the cache (no database round trip
    /// while the listener is connected), with `user`'s view and the deadlines of the seats it
    /// waits for; a lobby from the database (no view yet).
    pub async fn detail(&self, id: GameId, user: UserId) -> Result<GameRead> {
        let cached = self
            .games
            .with_game(id, |loaded| {
                let mut row = loaded.row.clone();
                row.version = loaded.version;
                if loaded.finished {
                    row.status = GameStatus::Finished;
                    row.outcome = loaded
                        .state
                        .outcome()
                        .and_then(|o| serde_json::to_value(o).ok());
                }
                GameRead {
                    row,
                    seats: loaded.seats.clone(),
                    view: loaded.state.view(loaded.viewer(user)),
                    deadlines: loaded.deadlines(&loaded.prompts()),
                }
            })
            .await;
        match cached {
            // Not started: `with_game` refuses a lobby.
            Err(AppError::Invalid(_)) => {
                let (row, seats) = self.games.game_row(id).await?;
                Ok(GameRead {
                    row,
                    seats,
                    view: Value::Null,
                    deadlines: Vec::new(),
                })
            }
            other => other,
        }
    }

    /// The caller's view, prompts and legal commands of a started game.
    pub async fn prompts(&self, id: GameId, user: UserId) -> Result<Prompts> {
        self.games
            .with_game(id, |loaded| loaded.prompts_for(user))
            .await
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
            .games
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
        self.games
            .with_game(id, |loaded| {
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

    /// Replica-eligible reads so far, by where they went and why (the metric).
    pub fn replica_counts(&self) -> Vec<(infra::replica::Reason, u64)> {
        self.reads.counts()
    }
}
