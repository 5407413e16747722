use super::error::AppError;
use super::error::Result;
use super::export::Exports;
use super::games::Games;
use super::heavy;
use super::heavy::Heavy;
use super::heavy::Served;
use super::loaded::redact_for;
use super::move_audit::MoveAudit;
use domain::AnyGame;
use domain::Registry;
use domain::Viewer;
use domain::i18n::says;
use infra::audit::Bundle;
use infra::audit::{self as bundles};
use infra::deadlines::{CLOCK_USER, bot_user};
use infra::ids::GameId;
use infra::ids::UserId;
use infra::replica::ReadSource;
use infra::store::GameStatus;
use infra::store::Store;
use infra::store::StoredEvent;
use infra::store::replay;
use serde_json::Value;
use std::sync::Arc;

/// Audits: every check on a game's log, and the explanation of one move, re-run with the
/// registry's game on the heavy threads and kept per version (and viewer, for a move).
pub struct Audits {
    games: Arc<Games>,
    /// The primary (an arbiter's move audit reads it; the others read `reads`).
    store: Store,
    /// The games an audit re-runs a log with.
    registry: Registry,
    /// The heavy-work threads and kept answers shared with exports and replays.
    heavy: Arc<Heavy>,
    /// Where the log is read: a replica when fresh (issue 29).
    reads: Arc<ReadSource>,
}

impl Audits {
    pub fn new(games: Arc<Games>, heavy: Arc<Heavy>, reads: Arc<ReadSource>) -> Self {
        Audits {
            store: games.store.clone(),
            registry: games.registry.clone(),
            games,
            heavy,
            reads,
        }
    }
}

impl Audits {
    /// Every check on the live log. The server re-runs the dice with its secret seed; before
    /// the end, details of a divergence are withheld from players (they could hold secrets), so
    /// the report is the same for every caller. Made on a heavy thread, kept per version.
    pub async fn audit(&self, id: GameId) -> Result<Served> {
        self.audit_since(id, 0).await
    }

    /// [`Self::audit`] of a version at least `min_version` (what the client holds) and the
    /// instance's known head: from the replica when it has that, else the primary (issue 29).
    pub async fn audit_since(&self, id: GameId, min_version: u64) -> Result<Served> {
        let need = self.games.read_floor(id, min_version);
        self.reads
            .read(id, need, |store| async move {
                self.audit_from(&store, id).await
            })
            .await
    }

    async fn audit_from(&self, store: &Store, id: GameId) -> Result<Served> {
        let (row, seats, record) = heavy::record(store, id).await?;
        let make = async {
            let bundle = Exports::bundle_of(store, &row, &seats).await?;
            let registry = self.registry.clone();
            let (seed, finished) = (row.server_seed, row.status == GameStatus::Finished);
            let json = self
                .heavy
                .run(move || {
                    let mut report = bundles::verify_with_seed(&registry, &bundle, &seed);
                    if !finished && let Some(divergence) = report.divergence.as_mut() {
                        divergence.recorded = Value::Null;
                        divergence.expected = Value::Null;
                    }
                    serde_json::to_vec(&report).map_err(|e| AppError::Internal(e.to_string()))
                })
                .await?;
            Ok(heavy::Kept::json(json))
        };
        let (answer, kept) = self.heavy.answer(heavy::Key::Audit(record), make).await?;
        Ok(Served {
            json: answer.json()?,
            kept,
        })
    }

    /// Explains the move that produced event `seq`, as `user` may see it.
    pub async fn audit_move(&self, id: GameId, user: UserId, seq: u64) -> Result<MoveAudit> {
        self.audit_move_as(id, user, seq, false).await
    }

    /// [`Self::audit_move`] from a log holding at least `seq`, `min_version` and the
    /// instance's known head: the replica when it has that, else the primary (issue 29).
    pub async fn audit_move_since(
        &self,
        id: GameId,
        user: UserId,
        seq: u64,
        min_version: u64,
    ) -> Result<MoveAudit> {
        let need = self.games.read_floor(id, min_version).max(seq);
        self.reads
            .read(id, need, |store| async move {
                self.audit_move_from(&store, id, user, seq, false).await
            })
            .await
    }

    /// Explains the move that produced event `seq`: as `user` may see it, or everything when
    /// `arbiter` (an admin resolving a dispute). Made on a heavy thread, kept per version and
    /// viewer.
    pub async fn audit_move_as(
        &self,
        id: GameId,
        user: UserId,
        seq: u64,
        arbiter: bool,
    ) -> Result<MoveAudit> {
        self.audit_move_from(&self.store, id, user, seq, arbiter)
            .await
    }

    async fn audit_move_from(
        &self,
        store: &Store,
        id: GameId,
        user: UserId,
        seq: u64,
        arbiter: bool,
    ) -> Result<MoveAudit> {
        let (row, seats, record) = heavy::record(store, id).await?;
        if seq == 0 || seq > row.version {
            return Err(AppError::NotFound(says("errors.move_not_found")));
        }
        let viewer = if arbiter {
            Viewer::Omniscient
        } else {
            self.games
                .with_game(id, |loaded| loaded.viewer(user))
                .await?
        };
        let game = self.games.game_of(&row.kind)?;
        let make = async {
            let bundle = Exports::bundle_of(store, &row, &seats).await?;
            let registry = self.registry.clone();
            let seed = row.server_seed;
            let audit = self
                .heavy
                .run(move || explain(&registry, game, &bundle, &seed, seq, viewer))
                .await?;
            let bytes = serde_json::to_vec(&audit).map_or(0, |json| json.len());
            Ok(heavy::Kept::weighed(
                heavy::Answer::Move(Arc::new(audit)),
                bytes,
            ))
        };
        let key = heavy::Key::Move(record, seq, viewer);
        let (answer, _) = self.heavy.answer(key, make).await?;
        Ok(MoveAudit::clone(&*answer.move_audit()?))
    }
}

/// The move that produced event `seq` of `bundle`, explained for `viewer`: the state before it
/// as the viewer may see it, the command (when the viewer may see it), the checks of the chain
/// up to it and of a re-run of it, and its events as the viewer may see them.
fn explain(
    registry: &domain::Registry,
    game: &'static dyn AnyGame,
    bundle: &Bundle,
    seed: &[u8; 32],
    seq: u64,
    viewer: Viewer,
) -> Result<MoveAudit> {
    let command = bundle
        .commands
        .iter()
        .find(|c| c.first_seq <= seq && seq <= c.last_seq)
        .cloned()
        .ok_or_else(|| AppError::NotFound(says("errors.move_not_found")))?;
    let mut state = game.new_state();
    let events: Vec<StoredEvent> = bundle
        .events
        .iter()
        .filter(|e| e.seq >= command.first_seq && e.seq <= command.last_seq)
        .filter_map(|e| redact_for(state.as_ref(), e, viewer))
        .collect();
    let all_shown = events.len() == (command.last_seq + 1 - command.first_seq) as usize
        && events.iter().all(|e| !e.redacted);
    let own = match viewer {
        Viewer::Seat(seat) => Some(seat.number()),
        _ => None,
    };
    let command_visible = all_shown || viewer == Viewer::Omniscient || own == command.seat;
    // The state before the move, as the caller may see it.
    replay(
        state.as_mut(),
        bundle.events.iter().take(command.first_seq as usize - 1),
    )?;
    let state_before = state.view(viewer);
    // Checks: the chain up to this move, and a re-run of this move alone.
    let mut prefix = bundle.clone();
    prefix.events.truncate(command.last_seq as usize);
    prefix.commands.retain(|c| c.first_seq <= command.first_seq);
    prefix.game.version = command.last_seq;
    prefix.game.head_hash = prefix
        .events
        .last()
        .map(|e| e.hash.clone())
        .unwrap_or_default();
    let report = bundles::verify_with_seed(registry, &prefix, seed);
    Ok(MoveAudit {
        seq,
        first_seq: command.first_seq,
        last_seq: command.last_seq,
        seat: command.seat,
        sent_by: sender_name(bundle, UserId(command.user_id)),
        recorded_at: command.recorded_at,
        command: if command_visible {
            command.command.clone()
        } else {
            Value::Null
        },
        state_before,
        checks: report.checks,
        sound: report.sound,
        events,
    })
}

/// The sender's name as the log knows it: a seat holder's name, or the server's own actor
/// that sent it (issue 17: the clock for a timeout, a bot for a seat a person left).
pub(super) fn sender_name(bundle: &Bundle, user: UserId) -> String {
    if let Some(seat) = bundle.game.seats.iter().find(|s| s.user_id == user.0) {
        return seat.name.clone();
    }
    if user == CLOCK_USER {
        return "clock:".into();
    }
    (1..=6u8)
        .find(|&n| bot_user(n) == user)
        .map(|n| format!("bot:{n}"))
        .unwrap_or_default()
}
