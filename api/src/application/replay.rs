use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::games::Games;
use super::heavy;
use super::heavy::Heavy;
use domain::AnyGame;
use domain::AnyState;
use domain::i18n::says;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::replica::ReadSource;
use infra::store::Store;
use infra::store::replay;
use serde_json::Value;
use std::sync::Arc;
/// Replays: the state of a game at a past version (`?at=`), and the check of its snapshots.
/// The fold itself is the core's ([`Games::restore`], [`Games::fold`]).
pub struct Replays {
    games: Arc<Games>,
    store: Store,
    /// The heavy-work threads and kept answers shared with audits and exports.
    heavy: Arc<Heavy>,
    /// Where the log is read: a replica when fresh (issue 29).
    reads: Arc<ReadSource>,
}

impl Replays {
    pub fn new(games: Arc<Games>, heavy: Arc<Heavy>, reads: Arc<ReadSource>) -> Self {
        Replays {
            store: games.store.clone(),
            games,
            heavy,
            reads,
        }
    }
}

impl Replays {
    /// Replay: `user`'s view of the state at version `at`. The fold runs on a heavy thread;
    /// the view is kept per version and viewer (it is a pure fold of the log up to `at`). The
    /// log is read from the replica when its head of the game is at least `at` (issue 29).
    pub async fn view_at(&self, id: GameId, user: UserId, at: u64) -> Result<(u64, Value)> {
        let (game, viewer, head) = self
            .games
            .with_game(id, |loaded| {
                (loaded.game, loaded.viewer(user), loaded.version)
            })
            .await?;
        beyond_head(at, head)?;
        let make = async {
            let (mut state, events) = self
                .reads
                .read(id, at, |store| async move {
                    let (version, state) = self.games.restore_from(&store, id, game, at).await?;
                    let mut events = Vec::new();
                    while version + (events.len() as u64) < at {
                        let after = version + events.len() as u64;
                        let batch = store.events(id, after, Some(at), 1000).await?;
                        if batch.is_empty() {
                            break;
                        }
                        events.extend(batch);
                    }
                    Ok::<_, AppError>((state, events))
                })
                .await?;
            let view = self
                .heavy
                .run(move || {
                    replay(state.as_mut(), &events)?;
                    Ok(state.view(viewer))
                })
                .await?;
            let bytes = serde_json::to_vec(&view).map_or(0, |json| json.len());
            Ok(heavy::Kept::weighed(
                heavy::Answer::View(Arc::new(view)),
                bytes,
            ))
        };
        let key = heavy::Key::View(id, at, viewer);
        let (answer, _) = self.heavy.answer(key, make).await?;
        Ok((at, Value::clone(&*answer.view()?)))
    }

    /// The state at version `at` of a log whose head is `head`: the newest snapshot at or
    /// before it and the log folded up to it (the picture of `?at=`).
    pub(super) async fn state_at(
        &self,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
        head: u64,
    ) -> Result<Box<dyn AnyState>> {
        beyond_head(at, head)?;
        let (version, mut state) = self.games.restore(id, game, at).await?;
        self.games.fold(id, &mut state, version, at).await?;
        Ok(state)
    }

    /// Checks every stored snapshot of a game against a fold of its log: each must load and
    /// serialize exactly as the folded state at its version. Returns the number checked and
    /// the versions of those that do not load or differ.
    pub async fn check_snapshots(&self, id: GameId) -> Result<(usize, Vec<u64>)> {
        let row = self.store.game(id).await?;
        let game = self.games.game_of(&row.kind)?;
        let snapshots = self.store.snapshots(id).await?;
        let mut state = game.new_state();
        let mut version = 0;
        let mut bad = Vec::new();
        for (at, snapshot) in &snapshots {
            self.games.fold(id, &mut state, version, *at).await?;
            version = *at;
            let loaded = guarded(|| game.state_from_json(snapshot))?;
            if loaded.map(|s| s.to_json()).as_ref() != Ok(&state.to_json()) {
                bad.push(*at);
            }
        }
        Ok((snapshots.len(), bad))
    }
}

/// `?at=` past the log's head is invalid input, not a missing game.
fn beyond_head(at: u64, head: u64) -> Result<()> {
    if at > head {
        return Err(AppError::Invalid(
            says("errors.version_beyond_head")
                .arg("at", at)
                .arg("head", head),
        ));
    }
    Ok(())
}
