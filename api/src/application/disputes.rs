//! Disputes on a move: their log and projection live in `infra::disputes`; who may open, read
//! or resolve one is decided here ([`DisputeService`]), and the move's audit is computed in
//! [`super::audit`] for each reader. The admin checks ask the [`UserService`].

use super::accounts::UserService;
use super::audit::Audits;
use super::board::Boards;
use super::board::Picture;
use super::error::AppError;
use super::error::Result;
use super::games::Games;
use super::lobby::Lobby;
use super::move_audit::MoveAudit;
use super::notify;
use super::services::Services;
use domain::i18n::says;
use infra::ids::GameId;
use infra::ids::UserId;
use std::sync::Arc;
use uuid::Uuid;

pub use infra::disputes::{Dispute, Disputes, Opened};

/// A dispute as one reader may read it: the move's audit recomputed for them.
pub struct DisputeRead {
    pub dispute: Dispute,
    pub audit: MoveAudit,
}

/// Who reads a dispute, and so which audit they get.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// A seated player: their seat's view (everything once the game is over).
    Player,
    /// An admin with no seat in the game: everything.
    Arbiter,
    /// Neither.
    Stranger,
}

/// At most this many characters in a reason or a note.
const TEXT_MAX: usize = 2000;

/// The dispute use cases.
pub struct DisputeService {
    games: Arc<Games>,
    lobby: Arc<Lobby>,
    audits: Arc<Audits>,
    boards: Arc<Boards>,
    users: Arc<UserService>,
    /// Disputes one player may hold open (`HOMESTRETCH_QUOTA_DISPUTES`, issue 26).
    quota: u32,
}

impl DisputeService {
    /// The dispute use cases over the game services they ask (seats, move audits, pictures).
    pub fn new(services: &Services, users: Arc<UserService>, quota: u32) -> Self {
        DisputeService {
            games: services.games.clone(),
            lobby: services.lobby.clone(),
            audits: services.audits.clone(),
            boards: services.boards.clone(),
            users,
            quota,
        }
    }

    /// The disputes, in the same database as the games.
    pub fn disputes(&self) -> Disputes {
        Disputes::new(self.games.store.pool.clone())
    }

    /// Opens a dispute on the move that produced event `seq` (seated players only). A player's
    /// dispute on a move that is still open is answered again (`Ok((false, _))`), and a player
    /// has at most `quota` disputes open (issue 26: 429 past it).
    pub async fn open_dispute(
        &self,
        user: UserId,
        game: GameId,
        seq: u64,
        reason: &str,
    ) -> Result<(bool, DisputeRead)> {
        let reason = reason.trim();
        if reason.is_empty() || reason.chars().count() > TEXT_MAX {
            return Err(AppError::Invalid(
                says("errors.dispute_reason_length").arg("max", TEXT_MAX),
            ));
        }
        if self.reader(user, game).await? != Reader::Player {
            return Err(AppError::Forbidden(says("errors.dispute_players_only")));
        }
        let disputes = self.disputes();
        let quota = self.quota;
        let over_quota = || AppError::Quota(says("errors.dispute_quota").arg("max", quota));
        // The cheap checks first: a repeat or a filer over quota costs no audit. (Both are
        // checked again under the filer's lock when the dispute is written.)
        let opened = match disputes.open_one(game, seq, user).await? {
            Some(id) => Opened::Existing(id),
            None if disputes.open_count(user).await? >= u64::from(quota) => {
                return Err(over_quota());
            }
            None => {
                let audit = self.audits.audit_move(game, user, seq).await?;
                // Only the reader-independent part of the audit is stored
                // (`disputes::public_audit`).
                let audit =
                    serde_json::to_value(&audit).map_err(|e| AppError::Internal(e.to_string()))?;
                disputes
                    .open(game, seq, user, reason, &audit, quota)
                    .await?
            }
        };
        let (created, id) = match opened {
            Opened::New(id) => (true, id),
            Opened::Existing(id) => (false, id),
            Opened::OverQuota => return Err(over_quota()),
        };
        let read = self
            .read_as(user, Reader::Player, disputes.get(id).await?)
            .await?;
        Ok((created, read))
    }

    /// A dispute, for the game's players and admins.
    pub async fn dispute(&self, user: UserId, id: Uuid) -> Result<DisputeRead> {
        let dispute = self.disputes().get(id).await?;
        let reader = self.reader(user, dispute.game_id).await?;
        if reader == Reader::Stranger {
            return Err(AppError::Forbidden(says("errors.dispute_read_forbidden")));
        }
        self.read_as(user, reader, dispute).await
    }

    /// Resolves a dispute (admins not playing the game only): upheld or rejected, with a note;
    /// the game's players are told (`dispute_resolved`, in the same transaction).
    pub async fn resolve_dispute(
        &self,
        user: UserId,
        id: Uuid,
        upheld: bool,
        note: &str,
    ) -> Result<DisputeRead> {
        if !self.users.is_admin(user).await? {
            return Err(AppError::Forbidden(says("errors.dispute_admins_resolve")));
        }
        if note.chars().count() > TEXT_MAX {
            return Err(AppError::Invalid(
                says("errors.dispute_note_length").arg("max", TEXT_MAX),
            ));
        }
        let disputes = self.disputes();
        let game = disputes.get(id).await?.game_id;
        // No one judges a game they play in.
        if self.reader(user, game).await? != Reader::Arbiter {
            return Err(AppError::Forbidden(says("errors.dispute_admin_player")));
        }
        let (row, seats) = self.games.game_row(game).await?;
        let verdict = if upheld { "upheld" } else { "rejected" };
        let outbox = notify::dispute_resolved(&row, &seats, id, verdict);
        disputes.resolve(id, user, upheld, note, &outbox).await?;
        self.read_as(user, Reader::Arbiter, disputes.get(id).await?)
            .await
    }

    /// The picture before (`after` false) or after a disputed move, for the dispute's readers:
    /// an arbiter sees everything (as its audit shows the move), a player what its seat may see.
    pub async fn dispute_picture(&self, user: UserId, id: Uuid, after: bool) -> Result<Picture> {
        let dispute = self.disputes().get(id).await?;
        let reader = self.reader(user, dispute.game_id).await?;
        if reader == Reader::Stranger {
            return Err(AppError::Forbidden(says("errors.dispute_read_forbidden")));
        }
        let everything = reader == Reader::Arbiter;
        self.boards
            .move_picture(dispute.game_id, user, dispute.seq, after, everything)
            .await
    }

    async fn reader(&self, user: UserId, game: GameId) -> Result<Reader> {
        let seated = self.lobby.seated(game, user).await?;
        // A playing admin is a player: an arbiter never sees a game it plays in with more than
        // its seat's eyes.
        Ok(if seated {
            Reader::Player
        } else if self.users.is_admin(user).await? {
            Reader::Arbiter
        } else {
            Reader::Stranger
        })
    }

    async fn read_as(&self, user: UserId, reader: Reader, dispute: Dispute) -> Result<DisputeRead> {
        let arbiter = reader == Reader::Arbiter;
        let audit = self
            .audits
            .audit_move_as(dispute.game_id, user, dispute.seq, arbiter)
            .await?;
        Ok(DisputeRead { dispute, audit })
    }
}
