use super::error::AppError;
use super::error::Result;
use super::games::Games;
use super::heavy;
use super::heavy::Heavy;
use super::heavy::Served;
use super::loaded::redact_for;
use domain::AnyState;
use domain::Viewer;
use infra::audit::Bundle;
use infra::audit::BundleCommand;
use infra::audit::BundleGame;
use infra::audit::BundleSeat;
use infra::audit::{self as bundles};
use infra::ids::GameId;
use infra::ids::UserId;
use infra::replica::ReadSource;
use infra::store::GameRow;
use infra::store::GameStatus;
use infra::store::SeatRow;
use infra::store::Store;
use serde_json::Value;
use std::sync::Arc;
/// Exports: the whole record of a game as one reader may see it (a `homestretch-export/1`
/// bundle), made on the heavy threads and kept per version and viewer.
pub struct Exports {
    games: Arc<Games>,
    /// The heavy-work threads and kept answers shared with audits and replays.
    heavy: Arc<Heavy>,
    /// Where the log is read: a replica when fresh (issue 29).
    reads: Arc<ReadSource>,
}

impl Exports {
    pub fn new(games: Arc<Games>, heavy: Arc<Heavy>, reads: Arc<ReadSource>) -> Self {
        Exports {
            games,
            heavy,
            reads,
        }
    }
}

impl Exports {
    /// The whole record of a game as the server holds it (every payload, no seed), from its
    /// row and seats as read for its [`heavy::Record`], from the same `store`.
    pub(super) async fn bundle_of(
        store: &Store,
        row: &GameRow,
        seats: &[SeatRow],
    ) -> Result<Bundle> {
        let mut commands = store.commands(row.id).await?;
        let mut events = Vec::new();
        loop {
            // Small batches: the worker decoding them serves other requests in between.
            let batch = store
                .events(row.id, events.len() as u64, None, 1000)
                .await?;
            if batch.is_empty() {
                break;
            }
            events.extend(batch);
        }
        // A live game (a player, a bot, the clock) may move between these reads: the log then
        // ends past the head read first, and an audit would say "the head moved" of a sound
        // game (issue 17: half the audits of a game played by bots did). Such entries were
        // committed with a newer head, which a second read shows: the bundle is the log as of
        // the first head. Entries past even the newer head are left in, for the audit to name.
        if events.last().is_some_and(|e| e.seq > row.version) {
            let moved_to = store.game(row.id).await?.version;
            if events.last().is_some_and(|e| e.seq <= moved_to) {
                events.retain(|e| e.seq <= row.version);
                commands.retain(|c| c.last_seq <= row.version);
            }
        }
        let bundle = Bundle {
            format: bundles::FORMAT.into(),
            game: BundleGame {
                id: row.id.0,
                kind: row.kind.clone(),
                options: row.options.clone(),
                seat_count: row.seat_count,
                seats: seats
                    .iter()
                    .map(|s| BundleSeat {
                        seat: s.seat,
                        user_id: s.user_id.0,
                        name: s.user_name.clone(),
                        client_seed: s.client_seed.clone(),
                    })
                    .collect(),
                fair: row.fair,
                seed_commitment: row.seed_commitment.clone(),
                rules_version: row.rules_version.clone(),
                status: row.status.as_str().into(),
                version: row.version,
                head_hash: row.head_hash.clone(),
                clock: row.clock.clone(),
            },
            server_seed: None,
            commands: commands
                .into_iter()
                .map(|c| BundleCommand {
                    command_id: c.command_id,
                    seat: c.seat,
                    user_id: c.user_id.0,
                    command: c.command,
                    first_seq: c.first_seq,
                    last_seq: c.last_seq,
                    recorded_at: c.recorded_at,
                })
                .collect(),
            events,
        };
        Ok(bundle)
    }

    /// The export bundle as `user` may see it: everything (with the seed) once the game is
    /// over; before that, other seats' secrets are redacted. Made on a heavy thread, kept per
    /// version and viewer (`kept`: served from the cache).
    pub async fn export(&self, id: GameId, user: UserId) -> Result<Served> {
        self.export_since(id, user, 0).await
    }

    /// [`Self::export`] of a version at least `min_version` (what the client holds) and the
    /// instance's known head: from the replica when it has that, else the primary (issue 29).
    pub async fn export_since(&self, id: GameId, user: UserId, min_version: u64) -> Result<Served> {
        let need = self.games.read_floor(id, min_version);
        self.reads
            .read(id, need, |store| async move {
                self.export_from(&store, id, user).await
            })
            .await
    }

    async fn export_from(&self, store: &Store, id: GameId, user: UserId) -> Result<Served> {
        let (row, seats, record) = heavy::record(store, id).await?;
        let viewer = match row.status {
            GameStatus::Finished | GameStatus::Lobby => Viewer::Omniscient,
            _ => {
                self.games
                    .with_game(id, |loaded| loaded.viewer(user))
                    .await?
            }
        };
        let game = self.games.game_of(&row.kind)?;
        let make = async {
            let mut bundle = Self::bundle_of(store, &row, &seats).await?;
            let seed = (row.status == GameStatus::Finished).then(|| hex::encode(row.server_seed));
            let json = self
                .heavy
                .run(move || {
                    bundle.server_seed = seed;
                    redact_bundle(&mut bundle, game.new_state().as_ref(), viewer);
                    serde_json::to_vec(&bundle).map_err(|e| AppError::Internal(e.to_string()))
                })
                .await?;
            Ok(heavy::Kept::json(json))
        };
        let (answer, kept) = self
            .heavy
            .answer(heavy::Key::Export(record, viewer), make)
            .await?;
        Ok(Served {
            json: answer.json()?,
            kept,
        })
    }
}

/// `viewer`'s copy of a bundle: other seats' secrets redacted (nothing for an omniscient one).
fn redact_bundle(bundle: &mut Bundle, game: &dyn AnyState, viewer: Viewer) {
    let mut hidden_seqs = std::collections::HashSet::new();
    for event in &mut bundle.events {
        // An event hidden altogether keeps its place, with a null payload.
        *event = redact_for(game, event, viewer).unwrap_or_else(|| event.shown_as(Value::Null));
        if event.redacted {
            hidden_seqs.insert(event.seq);
        }
    }
    // A command whose events hold a secret is the sender's alone. (Matched by the seqs it
    // produced: command ids are only unique per caller.)
    let me = match viewer {
        Viewer::Seat(seat) => Some(seat.number()),
        _ => None,
    };
    for command in &mut bundle.commands {
        let hides = (command.first_seq..=command.last_seq).any(|s| hidden_seqs.contains(&s));
        if hides && command.seat != me {
            command.command = Value::Null;
        }
    }
}
