use super::*;

impl GameService {
    /// A game's row, seats and `user`'s view: a started game from the cache (no database round
    /// trip while the listener is connected), a lobby from the database (no view yet).
    pub async fn detail(&self, id: GameId, user: UserId) -> Result<(GameRow, Vec<SeatRow>, Value)> {
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
                let view = loaded.state.view(loaded.viewer(user));
                (row, loaded.seats.clone(), view)
            })
            .await;
        match cached {
            // Not started: `with_game` refuses a lobby.
            Err(StoreError::Invalid(_)) => {
                let (row, seats) = self.game_row(id).await?;
                Ok((row, seats, Value::Null))
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
