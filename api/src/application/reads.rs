use super::error::AppError;
use super::error::Result;
use super::games::Games;
use super::live::{Audiences, LiveRead};
use super::loaded::Loaded;
use super::loaded::Prompts;
use super::views::{Audience, Rendered, Route, ViewCounts};
use bytes::Bytes;
use domain::Viewer;
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
use std::sync::atomic::Ordering;
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

/// A game's detail for one caller: cached bytes tagged with their version, or (a lobby, a
/// finished game) the read the HTTP layer completes per request.
pub enum DetailAnswer {
    Bytes(u64, Bytes),
    Read(Box<GameRead>),
}

/// The game as `user` reads it: the row at the cached head, the seats, `user`'s view and the
/// deadlines of the seats it waits for.
pub(super) fn read_by(loaded: &Loaded, user: UserId) -> GameRead {
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
}

/// Reads of a game as one user may see them: its detail, prompts and events, from the
/// core's cached game (the events from the store, redacted under the game's lock).
pub struct Reads {
    pub(super) games: Arc<Games>,
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
        match self
            .games
            .with_game(id, |loaded| read_by(loaded, user))
            .await
        {
            // Not started: `with_game` refuses a lobby.
            Err(AppError::Invalid(_)) => self.lobby_read(id).await,
            other => other,
        }
    }

    /// A game not started, from the database (no view yet).
    pub(super) async fn lobby_read(&self, id: GameId) -> Result<GameRead> {
        let (row, seats) = self.games.game_row(id).await?;
        Ok(GameRead {
            row,
            seats,
            view: Value::Null,
            deadlines: Vec::new(),
        })
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

/// Who reads a started game's prompts: the seat for its choices while the game runs.
fn prompts_audience(loaded: &Loaded, user: UserId) -> Audience {
    if loaded.finished {
        None
    } else {
        loaded.seat_of(user).map(|s| s.number())
    }
}

impl Reads {
    /// Bytes the fast path may serve: while the listener hears every append, the newest
    /// version heard (or appended here, see [`Views::moved`]) is the head, as for
    /// `ensure_fresh`; otherwise the game's lock and the database decide.
    fn served(&self, id: GameId, user: UserId, route: Route) -> Option<(u64, Bytes)> {
        if !self.games.listening.load(Ordering::Acquire) {
            return None;
        }
        let hit = self
            .games
            .views
            .hit(id, user, route, self.games.heard_head(id))?;
        self.games.views.hits.fetch_add(1, Ordering::Relaxed);
        Some(hit)
    }

    /// `user`'s prompts of a started game as `render` serializes them, with their version:
    /// rendered once per version and audience.
    pub async fn prompts_bytes(
        &self,
        id: GameId,
        user: UserId,
        render: impl FnOnce(Prompts) -> Bytes,
    ) -> Result<(u64, Bytes)> {
        if let Some(hit) = self.served(id, user, Route::Prompts) {
            return Ok(hit);
        }
        let generation = self.games.views.generation.load(Ordering::Acquire);
        self.games
            .with_game(id, |loaded| {
                let audience = prompts_audience(loaded, user);
                let bytes =
                    self.games
                        .views
                        .rendered(generation, loaded, Route::Prompts, audience, || {
                            render(loaded.prompts_for(user))
                        });
                (loaded.version, bytes)
            })
            .await
    }

    /// `user`'s detail of a game: of an active game, `render`'s bytes of the read and the
    /// caller's seat, rendered once per version and audience; else the read itself.
    pub async fn detail_bytes(
        &self,
        id: GameId,
        user: UserId,
        render: impl FnOnce(GameRead, Option<u8>) -> Bytes,
    ) -> Result<DetailAnswer> {
        if let Some((version, bytes)) = self.served(id, user, Route::Detail) {
            return Ok(DetailAnswer::Bytes(version, bytes));
        }
        let generation = self.games.views.generation.load(Ordering::Acquire);
        let answer = self
            .games
            .with_game(id, |loaded| {
                if loaded.finished {
                    return DetailAnswer::Read(Box::new(read_by(loaded, user)));
                }
                let seat = loaded.seat_of(user).map(|s| s.number());
                let bytes =
                    self.games
                        .views
                        .rendered(generation, loaded, Route::Detail, seat, || {
                            render(read_by(loaded, user), seat)
                        });
                DetailAnswer::Bytes(loaded.version, bytes)
            })
            .await;
        match answer {
            // Not started: `with_game` refuses a lobby.
            Err(AppError::Invalid(_)) => {
                Ok(DetailAnswer::Read(Box::new(self.lobby_read(id).await?)))
            }
            other => other,
        }
    }

    /// What the byte cache served and rendered so far, and what it holds now.
    pub fn view_counts(&self) -> ViewCounts {
        let games = self.games.views.lock();
        ViewCounts {
            hits: self.games.views.hits.load(Ordering::Relaxed),
            renders: self.games.views.renders.load(Ordering::Relaxed),
            games: games.len(),
            bytes: games.values().map(Rendered::bytes).sum(),
        }
    }
}

impl Reads {
    /// The head version of a game as stored (an events page's `head`; where a live fan-out
    /// starts).
    pub async fn head(&self, id: GameId) -> Result<u64> {
        Ok(self.store.head(id).await?.0)
    }

    /// The entries of game `id` after `after` (at most `limit`), read from the primary (a live
    /// stream must see every append), with each audience's copy.
    pub async fn live_read(&self, id: GameId, after: u64, limit: u32) -> Result<LiveRead> {
        let stored = self.store.events(id, after, None, limit).await?;
        self.games
            .with_game(id, |loaded| {
                // Whoever is not seated: a spectator, or omniscient once the game is over.
                let mut viewers = vec![if loaded.finished {
                    Viewer::Omniscient
                } else {
                    Viewer::Spectator
                }];
                let seated = loaded
                    .seats
                    .iter()
                    .map(|seat| {
                        let viewer = loaded.viewer(seat.user_id);
                        let copy = viewers
                            .iter()
                            .position(|v| *v == viewer)
                            .unwrap_or_else(|| {
                                viewers.push(viewer);
                                viewers.len() - 1
                            });
                        (seat.user_id, copy)
                    })
                    .collect();
                LiveRead {
                    last: stored.last().map_or(after, |e| e.seq),
                    copies: viewers
                        .iter()
                        .map(|viewer| {
                            stored
                                .iter()
                                .filter_map(|e| loaded.redact(e, *viewer))
                                .collect()
                        })
                        .collect(),
                    audiences: Audiences { seated },
                }
            })
            .await
    }
}
