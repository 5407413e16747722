use super::*;

/// A game as one user reads it (see [`GameService::detail`]).
pub struct GameRead {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    /// The user's view (null before the start).
    pub view: Value,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}

impl GameService {
    /// A game as `user` reads it: a started game from the cache (no database round trip
    /// while the listener is connected), with `user`'s view and the deadlines of the seats it
    /// waits for; a lobby from the database (no view yet).
    pub async fn detail(&self, id: GameId, user: UserId) -> Result<GameRead> {
        let cached = self
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
                    deadlines: loaded.deadlines(&loaded.state.prompts()),
                }
            })
            .await;
        match cached {
            // Not started: `with_game` refuses a lobby.
            Err(StoreError::Invalid(_)) => {
                let (row, seats) = self.game_row(id).await?;
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
        self.with_game(id, |loaded| loaded.prompts_for(user)).await
    }

    /// Events after `after`, as `user` may see them.
    pub async fn events(
        &self,
        id: GameId,
        user: UserId,
        after: u64,
        limit: u32,
    ) -> Result<(u64, Vec<StoredEvent>)> {
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
}
