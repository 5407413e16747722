//! The lobby's own tables (issue 18): invite codes, rematch links and the inbox. Each is an
//! `impl Store` block here, so `store.rs` keeps only the log.

use crate::error::{Result, StoreError};
use crate::ids::{GameId, UserId};
use crate::store::{GameStatus, NewGame, Store, insert_game};
use domain::i18n::says;
use serde_json::Value;
use sqlx::Row;
use time::OffsetDateTime;
use uuid::Uuid;

/// Invite codes use 32 symbols that cannot be mistaken for one another when read aloud or
/// typed from a screen: no `0`/`O`, no `1`/`I`. 8 of them = 40 bits (about 10^12 codes):
/// guessing an open lobby's code takes on the order of a billion tries per thousand open
/// lobbies, and lookups are rate-limited per user and per address (`limits`).
pub const JOIN_CODE_ALPHABET: &[u8; 32] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
pub const JOIN_CODE_LEN: usize = 8;

/// A fresh random invite code.
pub fn new_join_code() -> String {
    let mut bytes = [0u8; JOIN_CODE_LEN];
    crate::random::fill_random(&mut bytes);
    // 256 is a multiple of 32: every symbol is equally likely.
    bytes
        .iter()
        .map(|b| JOIN_CODE_ALPHABET[usize::from(b & 31)] as char)
        .collect()
}

/// A code as typed by a person: case, spaces and dashes do not matter. `None` when it cannot
/// be a code (wrong length or a symbol outside the alphabet).
pub fn normalize_join_code(raw: &str) -> Option<String> {
    let code: String = raw
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let ok = code.len() == JOIN_CODE_LEN && code.bytes().all(|b| JOIN_CODE_ALPHABET.contains(&b));
    ok.then_some(code)
}

/// One game of a user's inbox.
#[derive(Clone, Debug, PartialEq)]
pub struct InboxRow {
    pub game_id: GameId,
    pub kind: String,
    pub version: u64,
    pub kinds: Vec<String>,
    pub deadline: Option<OffsetDateTime>,
    pub since: OffsetDateTime,
}

/// A seat's owed decision as stored with its inbox row (issue 26): since when it counts, and
/// from which entry (`None` for a row written without it: clock version 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decided {
    pub seat: u8,
    pub since_seq: Option<u64>,
    pub since: OffsetDateTime,
}

/// A rematch as opened (or found).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rematch {
    pub game: GameId,
    /// False when another player had already opened it (the same lobby is answered).
    pub created: bool,
}

impl Store {
    /// Creates a lobby (its host in seat 1) with its invite code, in one transaction; returns
    /// the code.
    pub async fn create_lobby(&self, game: NewGame<'_>) -> Result<String> {
        let mut tx = self.pool.begin().await?;
        insert_game(&mut tx, &game).await?;
        let code = insert_join_code(&mut tx, game.id).await?;
        tx.commit().await?;
        Ok(code)
    }

    /// A game's invite code (`None` for a game created before codes existed).
    pub async fn join_code(&self, game: GameId) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT code FROM join_codes WHERE game_id = $1")
                .bind(game.0)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// The game an invite code names, with its status.
    pub async fn game_by_code(&self, code: &str) -> Result<Option<(GameId, GameStatus)>> {
        let row = sqlx::query(
            "SELECT g.id, g.status FROM join_codes c JOIN games g ON g.id = c.game_id WHERE c.code = $1",
        )
        .bind(code)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            let status: String = r.try_get("status")?;
            Ok((
                GameId(r.try_get("id")?),
                GameStatus::parse(&status).ok_or_else(|| StoreError::Corrupt(status))?,
            ))
        })
        .transpose()
    }

    /// The lobby opened as a rematch of `game`, if any.
    pub async fn rematch_of(&self, game: GameId) -> Result<Option<GameId>> {
        let id: Option<Uuid> =
            sqlx::query_scalar("SELECT rematch_id FROM rematches WHERE game_id = $1")
                .bind(game.0)
                .fetch_optional(&self.pool)
                .await?;
        Ok(id.map(GameId))
    }

    /// Opens `lobby` as the rematch of finished game `of`, unless one is open already (then that
    /// one). The finished game's row lock orders concurrent presses: the second sees the first.
    /// `invitations` (the other players' `invited` notifications) are written in the same
    /// transaction, only when this call opens the lobby.
    pub async fn open_rematch(
        &self,
        of: GameId,
        lobby: NewGame<'_>,
        invitations: &[crate::outbox::NewNotification],
    ) -> Result<Rematch> {
        let mut tx = self.pool.begin().await?;
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM games WHERE id = $1 FOR UPDATE")
                .bind(of.0)
                .fetch_optional(&mut *tx)
                .await?;
        match status.as_deref() {
            None => return Err(StoreError::NotFound(says("errors.game_not_found"))),
            Some("finished") => {}
            Some(_) => {
                return Err(StoreError::Conflict(says("errors.rematch_not_over")));
            }
        }
        let existing: Option<Uuid> =
            sqlx::query_scalar("SELECT rematch_id FROM rematches WHERE game_id = $1")
                .bind(of.0)
                .fetch_optional(&mut *tx)
                .await?;
        if let Some(existing) = existing {
            return Ok(Rematch {
                game: GameId(existing),
                created: false,
            });
        }
        insert_game(&mut tx, &lobby).await?;
        insert_join_code(&mut tx, lobby.id).await?;
        sqlx::query("INSERT INTO rematches (game_id, rematch_id) VALUES ($1, $2)")
            .bind(of.0)
            .bind(lobby.id.0)
            .execute(&mut *tx)
            .await?;
        // The invitations commit with the lobby or not at all (issue 18).
        crate::outbox::enqueue(&mut tx, invitations).await?;
        tx.commit().await?;
        Ok(Rematch {
            game: lobby.id,
            created: true,
        })
    }

    /// Every game `user` has a seat in.
    pub async fn games_of(&self, user: UserId) -> Result<Vec<GameId>> {
        let ids: Vec<Uuid> =
            sqlx::query_scalar("SELECT game_id FROM game_seats WHERE user_id = $1")
                .bind(user.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(ids.into_iter().map(GameId).collect())
    }

    /// The games where `user` must act, most urgent first: the nearest deadline, then the
    /// seat waited for the longest. One index read (`inbox_user`) and a key join.
    pub async fn inbox(&self, user: UserId) -> Result<Vec<InboxRow>> {
        let rows = sqlx::query(
            "SELECT i.game_id, g.kind, g.version, i.kinds, i.deadline, i.since \
             FROM inbox i JOIN games g ON g.id = i.game_id \
             WHERE i.user_id = $1 AND g.status = 'active' \
             ORDER BY i.deadline ASC NULLS LAST, i.since ASC, i.game_id ASC",
        )
        .bind(user.0)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(InboxRow {
                    game_id: GameId(r.try_get("game_id")?),
                    kind: r.try_get("kind")?,
                    version: r.try_get::<i64, _>("version")? as u64,
                    kinds: r.try_get("kinds")?,
                    deadline: r.try_get("deadline")?,
                    since: r.try_get("since")?,
                })
            })
            .collect()
    }

    /// The game's version and, at that version, the decisions it waits for, as the last append
    /// stored them with its inbox rows (issue 26): `(seat, since_seq, since)` for each seat a
    /// person plays. One statement, so the rows are those of that version.
    pub async fn decisions(&self, game: GameId) -> Result<(u64, Vec<Decided>)> {
        let rows = sqlx::query(
            "SELECT g.version, i.seat, i.since_seq, i.since \
             FROM games g LEFT JOIN inbox i ON i.game_id = g.id WHERE g.id = $1 ORDER BY i.seat",
        )
        .bind(game.0)
        .fetch_all(&self.pool)
        .await?;
        let Some(first) = rows.first() else {
            return Err(StoreError::NotFound(says("errors.game_not_found")));
        };
        let version = first.try_get::<i64, _>("version")? as u64;
        let mut decided = Vec::new();
        for r in &rows {
            let (Some(seat), Some(since)) = (
                r.try_get::<Option<i16>, _>("seat")?,
                r.try_get::<Option<OffsetDateTime>, _>("since")?,
            ) else {
                continue;
            };
            decided.push(Decided {
                seat: seat as u8,
                since_seq: r.try_get::<Option<i64>, _>("since_seq")?.map(|s| s as u64),
                since,
            });
        }
        Ok((version, decided))
    }

    /// Rewrites a game's inbox rows outside an append (`homestretch inbox rebuild`, for games
    /// started before the inbox existed).
    pub async fn set_inbox(&self, game: GameId, waiting: &Value) -> Result<()> {
        sqlx::query("SELECT inbox_set($1, $2, now())")
            .bind(game.0)
            .bind(waiting)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Gives `game` a fresh invite code (a new draw on the rare collision).
async fn insert_join_code(conn: &mut sqlx::PgConnection, game: GameId) -> Result<String> {
    for _ in 0..8 {
        let code = new_join_code();
        let inserted = sqlx::query(
            "INSERT INTO join_codes (code, game_id) VALUES ($1, $2) ON CONFLICT (code) DO NOTHING",
        )
        .bind(&code)
        .bind(game.0)
        .execute(&mut *conn)
        .await?;
        if inserted.rows_affected() == 1 {
            return Ok(code);
        }
    }
    Err(StoreError::Corrupt(
        "could not draw a free invite code".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_the_unambiguous_alphabet_and_normalize_back() {
        for _ in 0..100 {
            let code = new_join_code();
            assert_eq!(code.len(), JOIN_CODE_LEN);
            assert_eq!(normalize_join_code(&code).as_deref(), Some(code.as_str()));
            let typed = format!("{}-{}", &code[..4], &code[4..]).to_lowercase();
            assert_eq!(normalize_join_code(&typed).as_deref(), Some(code.as_str()));
        }
        assert!(!JOIN_CODE_ALPHABET.iter().any(|c| b"01IO".contains(c)));
        assert_eq!(normalize_join_code("ABCD0FGH"), None);
        assert_eq!(normalize_join_code("ABCDEFG"), None);
    }
}
