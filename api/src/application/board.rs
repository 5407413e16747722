//! Seeing a game (issue 30): the picture of a position as one reader may see it, and the replay
//! page's record of the game told in words. No game is named here: the pictures are the games'
//! own (`AnyState::draw`, drawn from the reader's view), the words the catalogue's.
//!
//! Who sees what: a seated player its seat's picture, any other signed-in user the public one,
//! everyone everything once the game is over. A finished game is public (everything in it is,
//! design §2, and any guest account could already read it): its pictures and its replay need
//! no sign-in. A running game's need one (`None` below: the route answers 401).

use super::audit;
use super::audit::Audits;
use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::export::Exports;
use super::games::Games;
use super::heavy::Served;
use super::loaded::Loaded;
use super::replay::Replays;
use domain::AnyGame;
use domain::Seat;
use domain::Viewer;
use domain::i18n::says;
use domain::i18n::{Lang, describe_entry};
use infra::audit::{self as bundles};
use infra::ids::GameId;
use infra::ids::UserId;
use infra::store::Store;
use std::sync::Arc;
use time::OffsetDateTime;
use uuid::Uuid;

/// Who asks: a signed-in user, or nobody (a shared link to a finished game).
#[derive(Clone, Copy)]
pub enum Caller {
    User(UserId),
    Anonymous,
}

/// A picture and what its caching depends on.
pub struct Picture {
    /// The version drawn.
    pub at: u64,
    /// True once the game is over: every picture of it is then the same for everyone and never
    /// changes.
    pub finished: bool,
    pub svg: String,
}

impl Caller {
    /// The viewer of `loaded` this reader is: `None` for nobody on a game still running.
    fn viewer(self, loaded: &Loaded) -> Option<Viewer> {
        match self {
            _ if loaded.finished => Some(Viewer::Omniscient),
            Caller::User(user) => Some(loaded.viewer(user)),
            Caller::Anonymous => None,
        }
    }
}

/// Pictures and the replay page's record: drawn from the core's cached game, a replayed
/// state, the export and the audit as served.
pub struct Boards {
    games: Arc<Games>,
    store: Store,
    replays: Arc<Replays>,
    exports: Arc<Exports>,
    audits: Arc<Audits>,
}

impl Boards {
    pub fn new(
        games: Arc<Games>,
        replays: Arc<Replays>,
        exports: Arc<Exports>,
        audits: Arc<Audits>,
    ) -> Self {
        Boards {
            store: games.store.clone(),
            games,
            replays,
            exports,
            audits,
        }
    }
}

impl Boards {
    /// The picture of game `id` at version `at` (the head without it) as `reader` may see it;
    /// `None` when the reader must sign in first.
    pub async fn picture(
        &self,
        id: GameId,
        reader: Caller,
        at: Option<u64>,
    ) -> Result<Option<Picture>> {
        let (game, viewer, head, finished, now) = self
            .games
            .with_game(id, |loaded| {
                let viewer = reader.viewer(loaded);
                // The head is drawn from the cached state, under the game's lock.
                let now = match (viewer, at) {
                    (Some(viewer), None) => Some(loaded.state.draw(viewer)),
                    (Some(viewer), Some(at)) if at == loaded.version => {
                        Some(loaded.state.draw(viewer))
                    }
                    _ => None,
                };
                (loaded.game, viewer, loaded.version, loaded.finished, now)
            })
            .await?;
        let Some(viewer) = viewer else {
            return Ok(None);
        };
        if let Some(svg) = now {
            return Ok(Some(Picture {
                at: at.unwrap_or(head),
                finished,
                svg,
            }));
        }
        let at = at.unwrap_or(head);
        let svg = self.draw_at(id, game, viewer, at, head).await?;
        Ok(Some(Picture { at, finished, svg }))
    }

    /// The picture at version `at` for `viewer`, from the state `state?at=` views.
    pub(super) async fn draw_at(
        &self,
        id: GameId,
        game: &'static dyn AnyGame,
        viewer: Viewer,
        at: u64,
        head: u64,
    ) -> Result<String> {
        let state = self.replays.state_at(id, game, at, head).await?;
        guarded(|| state.draw(viewer))
    }

    /// The picture before (`after` false) or after the move that produced event `seq`, for a
    /// dispute's reader: everything for an arbiter (`everything`), else as `user` may see it.
    pub async fn move_picture(
        &self,
        id: GameId,
        user: UserId,
        seq: u64,
        after: bool,
        everything: bool,
    ) -> Result<Picture> {
        let (game, viewer, head, finished) = self
            .games
            .with_game(id, |loaded| {
                let viewer = if everything {
                    Viewer::Omniscient
                } else {
                    loaded.viewer(user)
                };
                (loaded.game, viewer, loaded.version, loaded.finished)
            })
            .await?;
        let command = self
            .store
            .commands(id)
            .await?
            .into_iter()
            .find(|c| c.first_seq <= seq && seq <= c.last_seq)
            .ok_or_else(|| AppError::NotFound(says("errors.move_not_found")))?;
        let at = if after {
            command.last_seq
        } else {
            command.first_seq - 1
        };
        let svg = self.draw_at(id, game, viewer, at, head).await?;
        Ok(Picture { at, finished, svg })
    }

    /// The record of game `id` for the replay page, told in `lang`: every move with its words,
    /// dice and audit verdict, the seed commitment and (after the end) the seed. `None` when the
    /// reader must sign in first.
    pub async fn replay_record(
        &self,
        id: GameId,
        reader: Caller,
        lang: Lang,
    ) -> Result<Option<ReplayRecord>> {
        let (finished, your_seat) = self
            .games
            .with_game(id, |loaded| {
                let seat = match reader {
                    Caller::User(user) => loaded.seat_of(user).map(Seat::number),
                    Caller::Anonymous => None,
                };
                (loaded.finished, seat)
            })
            .await?;
        let user = match reader {
            Caller::User(user) => user,
            // The export and the audit of a finished game are the same for every reader: one
            // with no seat stands for nobody.
            Caller::Anonymous if finished => UserId(Uuid::nil()),
            Caller::Anonymous => return Ok(None),
        };
        // The export and the audit as served (kept per version on the heavy threads).
        let bundle: infra::audit::Bundle = from_served(&self.exports.export(id, user).await?)?;
        let report: infra::audit::AuditReport = from_served(&self.audits.audit(id).await?)?;
        let game = self.games.game_of(&bundle.game.kind)?;
        let kind = bundle.game.kind.clone();
        let diverged = report.divergence.as_ref().map(|d| d.seq);
        let verdict = |first: u64, last: u64| match diverged {
            Some(seq) if seq < first => "unchecked",
            Some(seq) if seq <= last => "unsound",
            _ if report.sound => "sound",
            // A check of the whole game failed (the head, the seed) with no move to name.
            None => "unsound",
            Some(_) => "sound",
        };
        let mut moves: Vec<MoveRecord> = Vec::new();
        for event in &bundle.events {
            let command = bundle
                .commands
                .iter()
                .find(|c| c.first_seq <= event.seq && event.seq <= c.last_seq);
            let (first, last) =
                command.map_or((event.seq, event.seq), |c| (c.first_seq, c.last_seq));
            if moves.last().is_none_or(|m| m.first_seq != first) {
                moves.push(MoveRecord {
                    first_seq: first,
                    last_seq: last,
                    seat: command.and_then(|c| c.seat),
                    sent_by: command
                        .map(|c| audit::sender_name(&bundle, UserId(c.user_id)))
                        .unwrap_or_default(),
                    recorded_at: event.recorded_at,
                    verdict: verdict(first, last),
                    words: Vec::new(),
                    dice: Vec::new(),
                });
            }
            let record = moves.last_mut().expect("a move");
            record
                .words
                .push(describe_entry(&kind, &event.payload, lang));
            record.dice.extend(game.dice(&event.payload));
        }
        Ok(Some(ReplayRecord {
            kind,
            version: bundle.game.version,
            status: bundle.game.status.clone(),
            fair: bundle.game.fair,
            seed_commitment: bundle.game.seed_commitment.clone(),
            server_seed: bundle.server_seed.clone(),
            rules_version: bundle.game.rules_version.clone(),
            seats: bundle
                .game
                .seats
                .iter()
                .map(|s| (s.seat, s.name.clone()))
                .collect(),
            your_seat,
            sound: report.sound,
            checks: report.checks,
            divergence: diverged,
            moves,
        }))
    }
}

/// The replay page's record of a game (see [`Boards::replay_record`]).
pub struct ReplayRecord {
    pub kind: String,
    pub version: u64,
    pub status: String,
    pub fair: bool,
    pub seed_commitment: String,
    pub server_seed: Option<String>,
    pub rules_version: String,
    pub seats: Vec<(u8, String)>,
    pub your_seat: Option<u8>,
    pub sound: bool,
    pub checks: Vec<bundles::Check>,
    pub divergence: Option<u64>,
    pub moves: Vec<MoveRecord>,
}

/// One move: the events of one command (or one entry of the server's own).
pub struct MoveRecord {
    pub first_seq: u64,
    pub last_seq: u64,
    pub seat: Option<u8>,
    pub sent_by: String,
    pub recorded_at: OffsetDateTime,
    /// `sound`, `unsound`, or `unchecked` (after the first divergence).
    pub verdict: &'static str,
    /// Each event in words, in the reader's language.
    pub words: Vec<String>,
    /// The dice the move rolled, in order.
    pub dice: Vec<u8>,
}

/// A heavy answer read back from its JSON.
fn from_served<T: serde::de::DeserializeOwned>(served: &Served) -> Result<T> {
    serde_json::from_slice(&served.json).map_err(|e| AppError::Internal(e.to_string()))
}
