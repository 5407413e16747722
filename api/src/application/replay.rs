use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::heavy;
use super::loaded::Loaded;
use super::service::GameService;
use domain::AnyGame;
use domain::AnyState;
use domain::i18n::says;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::store::Store;
use infra::store::replay;
use serde_json::Value;
use std::sync::Arc;
impl GameService {
    /// The state at the newest snapshot at or before `at` (or the empty state at version 0).
    /// A snapshot that does not load never bricks a game: the log is folded up to it instead,
    /// the error is logged, and the snapshot is rewritten from the fold.
    pub(super) async fn restore(
        &self,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
    ) -> Result<(u64, Box<dyn AnyState>)> {
        self.restore_from(&self.store, id, game, at).await
    }

    /// [`Self::restore`] reading `store` (the primary or a replica); a snapshot rewrite goes to
    /// the primary.
    async fn restore_from(
        &self,
        store: &Store,
        id: GameId,
        game: &'static dyn AnyGame,
        at: u64,
    ) -> Result<(u64, Box<dyn AnyState>)> {
        let Some((version, snapshot)) = store.snapshot(id, at).await? else {
            return Ok((0, game.new_state()));
        };
        let error = match guarded(|| game.state_from_json(&snapshot))? {
            Ok(state) => return Ok((version, state)),
            Err(error) => error,
        };
        tracing::error!(game = %id.0, version, %error, "a snapshot does not load: folding the log instead");
        let mut state = game.new_state();
        fold_from(store, id, &mut state, 0, version).await?;
        if let Err(error) = self
            .store
            .replace_snapshot(id, version, &state.to_json())
            .await
        {
            tracing::warn!(game = %id.0, version, %error, "rewriting the snapshot failed");
        }
        Ok((version, state))
    }

    /// Applies the events `from < seq <= to` of the log to `state`.
    pub(super) async fn fold(
        &self,
        id: GameId,
        state: &mut Box<dyn AnyState>,
        from: u64,
        to: u64,
    ) -> Result<()> {
        fold_from(&self.store, id, state, from, to).await
    }

    pub(super) async fn catch_up(&self, id: GameId, loaded: &mut Loaded) -> Result<()> {
        loop {
            let batch = self.store.events(id, loaded.version, None, 5000).await?;
            if batch.is_empty() {
                break;
            }
            replay(loaded.state.as_mut(), &batch)?;
            for event in &batch {
                loaded.note_entry(&event.kind, &event.payload);
            }
            let last = batch.last().expect("a non-empty batch");
            loaded.head_at = Some(last.recorded_at);
            loaded.version = last.seq;
            loaded.head_hash = last.hash.clone();
        }
        // Bytes rendered before go now, heard or not (issue 31).
        self.views.moved(id, loaded.version);
        if loaded.version > 0 && loaded.head_hash.is_empty() {
            // Restored from a snapshot with no later events: the head hash is the row's.
            loaded.head_hash = self.store.game(id).await?.head_hash;
        }
        if loaded.head_hash.is_empty() {
            loaded.head_hash = infra::hash::GENESIS.to_string();
        }
        if loaded.head_at.is_none() && loaded.version > 0 {
            // Restored from a snapshot with no later events: the head event's time (clocks).
            let head = self
                .store
                .events(id, loaded.version - 1, Some(loaded.version), 1)
                .await?;
            loaded.head_at = head.first().map(|e| e.recorded_at);
        }
        loaded.finished = loaded.state.outcome().is_some();
        Ok(())
    }

    /// Replay: `user`'s view of the state at version `at`. The fold runs on a heavy thread;
    /// the view is kept per version and viewer (it is a pure fold of the log up to `at`). The
    /// log is read from the replica when its head of the game is at least `at` (issue 29).
    pub async fn view_at(&self, id: GameId, user: UserId, at: u64) -> Result<(u64, Value)> {
        let (game, viewer, head) = self
            .with_game(id, |loaded| {
                (loaded.game, loaded.viewer(user), loaded.version)
            })
            .await?;
        beyond_head(at, head)?;
        let make = async {
            let (mut state, events) = self
                .reads
                .read(id, at, |store| async move {
                    let (version, state) = self.restore_from(&store, id, game, at).await?;
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
        let (version, mut state) = self.restore(id, game, at).await?;
        self.fold(id, &mut state, version, at).await?;
        Ok(state)
    }

    /// Checks every stored snapshot of a game against a fold of its log: each must load and
    /// serialize exactly as the folded state at its version. Returns the number checked and
    /// the versions of those that do not load or differ.
    pub async fn check_snapshots(&self, id: GameId) -> Result<(usize, Vec<u64>)> {
        let row = self.store.game(id).await?;
        let game = self.game_of(&row.kind)?;
        let snapshots = self.store.snapshots(id).await?;
        let mut state = game.new_state();
        let mut version = 0;
        let mut bad = Vec::new();
        for (at, snapshot) in &snapshots {
            self.fold(id, &mut state, version, *at).await?;
            version = *at;
            let loaded = guarded(|| game.state_from_json(snapshot))?;
            if loaded.map(|s| s.to_json()).as_ref() != Ok(&state.to_json()) {
                bad.push(*at);
            }
        }
        Ok((snapshots.len(), bad))
    }
}

/// Applies the events `from < seq <= to` of the log in `store` to `state`.
async fn fold_from(
    store: &Store,
    id: GameId,
    state: &mut Box<dyn AnyState>,
    from: u64,
    to: u64,
) -> Result<()> {
    let mut version = from;
    while version < to {
        let batch = store.events(id, version, Some(to), 5000).await?;
        if batch.is_empty() {
            break;
        }
        version = replay(state.as_mut(), &batch)?.unwrap_or(version);
    }
    Ok(())
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
