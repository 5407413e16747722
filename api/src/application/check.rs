use super::error::AppError;
use super::error::Result;
use super::games::Games;
use infra::ids::GameId;
use infra::ids::UserId;
use serde_json::Value;
use std::sync::Arc;

/// The dry run of a command (`Commands::command`'s checks on the cached game, nothing stored).
pub struct Checks {
    games: Arc<Games>,
}

impl Checks {
    pub fn new(games: Arc<Games>) -> Self {
        Checks { games }
    }
}

impl Checks {
    /// Would `command` from `user` be accepted now? (`POST …/commands/check`, issue 15.) The
    /// same seat, version and rules checks as `Commands::command`, nothing appended, and a
    /// throwaway RNG instead of the game's: acceptance never depends on the draw (decide draws
    /// only once a command is legal; the e2e exactness test compares checks with real sends).
    pub async fn check(
        &self,
        id: GameId,
        user: UserId,
        command: Value,
        expected_version: Option<u64>,
    ) -> Result<()> {
        self.games
            .with_game(id, move |loaded| {
                let seat = loaded.seat_for(user)?;
                if expected_version.is_some_and(|expected| expected != loaded.version) {
                    return Err(loaded.conflict());
                }
                let mut rng = domain::engine::seeded(0);
                loaded
                    .state
                    .decide(seat, &command, &mut rng)
                    .map(drop)
                    .map_err(AppError::Rejected)
            })
            .await?
    }
}
