use super::*;

impl GameService {
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
