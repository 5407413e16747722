use super::*;

impl GameService {
    /// Would `command` from `user` be accepted now? (`POST …/commands/check`, issue 15.) The
    /// same seat, version and rules checks as [`GameService::command`], nothing appended, and a
    /// throwaway RNG instead of the game's: acceptance never depends on the draw (decide draws
    /// only once a command is legal; the e2e exactness test compares checks with real sends).
    pub async fn check(
        &self,
        id: GameId,
        user: UserId,
        command: Value,
        expected_version: Option<u64>,
    ) -> Result<()> {
        self.with_game(id, move |loaded| {
            let seat = loaded
                .seat_of(user)
                .ok_or_else(|| StoreError::Forbidden("you have no seat in this game".into()))?;
            if let Some(expected) = expected_version
                && expected != loaded.version
            {
                return Err(StoreError::Conflict {
                    current: loaded.version,
                });
            }
            let mut rng = domain::engine::seeded(0);
            loaded
                .state
                .decide(seat, &command, &mut rng)
                .map(drop)
                .map_err(StoreError::Rejected)
        })
        .await?
    }
}
