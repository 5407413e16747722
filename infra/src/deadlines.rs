//! Issue 17 in PostgreSQL: the due deadlines of clocked games and bot seats (claimed with
//! `FOR UPDATE SKIP LOCKED` and a short lease, so whichever instance gets there first fires
//! them), bot seats, and lobbies that are cancelled, handed over or expire.
//!
//! The `deadlines` table is kept by a trigger on `games` in each append's own transaction
//! (`migrations/0005_clocks.sql`): a deadline can never be lost by a crash. Firing one is
//! exactly-once because the fired command is appended against the version the deadline was
//! computed for (a second instance gets a version conflict, or the same deterministic command
//! id back as a duplicate).

use crate::error::{Result, StoreError};
use crate::ids::{GameId, UserId};
use crate::lease;
use crate::store::{GameStatus, Store};
use domain::i18n::says;
use sqlx::Row;
use std::time::Duration;
use time::OffsetDateTime;
use uuid::Uuid;

/// The clock's own user: a timed-out seat's default move is recorded as sent by it.
pub const CLOCK_USER: UserId = UserId(Uuid::from_u128(0x00000000_0000_7000_8000_00000000c10c));

/// The bot users (`bot:1` … `bot:6`), one per seat: seat n's bot is `bot:n`, whether it was
/// given in the lobby (it holds the seat: a user holds one seat per game) or plays a seat a
/// person left, so two seats' bots never share a name in a log.
pub fn bot_user(n: u8) -> UserId {
    UserId(Uuid::from_u128(
        0x00000000_0000_7000_8000_000000000b00 + u128::from(n),
    ))
}

/// Whether `user` is one of the server's own actors (the clock or a bot).
pub fn is_server_actor(user: UserId) -> bool {
    user == CLOCK_USER || (1..=6).any(|n| bot_user(n) == user)
}

/// Gives each bot seated in lobby `id` its seat's own bot user (after seats moved down, or in
/// a lobby seated before seats had their own bot). Deleted and inserted again rather than
/// updated: an update would meet the bot user another row still holds.
async fn rekey_bots(conn: &mut sqlx::PgConnection, id: GameId) -> Result<()> {
    let bots: Vec<(i16, String, OffsetDateTime, String)> = sqlx::query_as(
        "DELETE FROM game_seats WHERE game_id = $1 AND bot_policy IS NOT NULL \
         RETURNING seat, client_seed, joined_at, bot_policy",
    )
    .bind(id.0)
    .fetch_all(&mut *conn)
    .await?;
    for (seat, client_seed, joined_at, policy) in bots {
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, user_id, client_seed, joined_at, bot_policy) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(id.0)
        .bind(seat)
        .bind(bot_user(seat as u8).0)
        .bind(client_seed)
        .bind(joined_at)
        .bind(policy)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// A claimed deadline: the game needs the server as of its log head `version`.
#[derive(Clone, Debug, PartialEq)]
pub struct Due {
    pub game: GameId,
    pub version: u64,
    /// `recorded_at` of the head event: every deadline is counted from it.
    pub head_at: OffsetDateTime,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// The due deadlines, oldest first, each leased for `$2` ms (see `crate::lease`).
const CLAIM_DUE_SQL: &str = "UPDATE deadlines d \
     SET leased_until = now() + $2 * interval '1 millisecond' \
     WHERE d.game_id IN (SELECT game_id FROM deadlines \
         WHERE due_at <= now() AND (leased_until IS NULL OR leased_until < now()) \
         ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED) \
     RETURNING d.game_id, d.version, d.head_at";

impl Store {
    /// Claims up to `limit` due deadlines for `lease` (another instance skips them while the
    /// lease runs; a crashed instance's claims come back when it ends).
    pub async fn claim_due(&self, limit: u32, lease: Duration) -> Result<Vec<Due>> {
        let rows = lease::claim(&self.pool, CLAIM_DUE_SQL, limit, lease).await?;
        rows.iter()
            .map(|r| {
                Ok(Due {
                    game: GameId(r.try_get("game_id")?),
                    version: r.try_get::<i64, _>("version")? as u64,
                    head_at: r.try_get("head_at")?,
                })
            })
            .collect()
    }

    /// Nothing to fire yet at `version`: wake at `at` (never when `None`), lease released.
    /// (No-op when the log moved on: the trigger already set the new deadline.)
    pub async fn reschedule(
        &self,
        game: GameId,
        version: u64,
        at: Option<OffsetDateTime>,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE deadlines SET due_at = coalesce($3, 'infinity'::timestamptz), leased_until = NULL \
             WHERE game_id = $1 AND version = $2",
        )
        .bind(game.0)
        .bind(version as i64)
        .bind(at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The deadline row of a game, if any: (version, due_at).
    pub async fn deadline(&self, game: GameId) -> Result<Option<(u64, OffsetDateTime)>> {
        let row = sqlx::query("SELECT version, due_at FROM deadlines WHERE game_id = $1")
            .bind(game.0)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| Ok((r.try_get::<i64, _>("version")? as u64, r.try_get("due_at")?)))
            .transpose()
    }

    /// How many timeouts in a row `seat` has had: the clock's commands for it since the last
    /// command anyone else sent for it.
    pub async fn consecutive_timeouts(&self, game: GameId, seat: u8) -> Result<u32> {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM commands c WHERE c.game_id = $1 AND c.seat = $2 AND c.user_id = $3 \
               AND c.first_seq > coalesce((SELECT max(o.first_seq) FROM commands o \
                   WHERE o.game_id = $1 AND o.seat = $2 AND o.user_id <> $3), 0)",
        )
        .bind(game.0)
        .bind(i16::from(seat))
        .bind(CLOCK_USER.0)
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u32)
    }

    /// `host` gives the lowest free seat of a lobby to a server bot playing `policy`; the seat.
    /// Checked and written under the game's row lock (issue 26).
    pub async fn add_bot(&self, id: GameId, host: UserId, policy: &str) -> Result<u8> {
        let mut locked = self.lock_game(id).await?;
        if locked.row.host_id != host {
            return Err(StoreError::NotOwner(says("errors.host_only_bot")));
        }
        let status = locked.row.status;
        if status != GameStatus::Lobby {
            return Err(StoreError::Conflict(
                says("errors.bots_join_lobby").arg("status", status.as_str()),
            ));
        }
        let seat = (1..=locked.row.seat_count)
            .find(|s| !locked.seats.iter().any(|t| t.seat == *s))
            .ok_or_else(|| StoreError::Conflict(says("errors.every_seat_taken")))?;
        // The seat's own bot user (`bot_user`); a lobby seated before seats had their own
        // bot may hold one at another seat: only then are the seats re-keyed.
        let misplaced =
            |t: &crate::store::SeatRow| is_server_actor(t.user_id) && t.user_id != bot_user(t.seat);
        if locked.seats.iter().any(misplaced) {
            rekey_bots(locked.conn(), id).await?;
        }
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, user_id, client_seed, bot_policy) VALUES ($1,$2,$3,'',$4)",
        )
        .bind(id.0)
        .bind(i16::from(seat))
        .bind(bot_user(seat).0)
        .bind(policy)
        .execute(locked.conn())
        .await?;
        locked.commit().await?;
        Ok(seat)
    }

    /// Leaves a lobby; later seats move down so seats stay numbered in joining order. The
    /// host's leaving hands the lobby to the next seated person; with nobody left but bots it
    /// cancels the lobby.
    pub async fn leave_lobby(&self, id: GameId, user: UserId) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query("SELECT status, host_id FROM games WHERE id = $1 FOR UPDATE")
            .bind(id.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| StoreError::NotFound(domain::i18n::says("errors.game_not_found")))?;
        let status: String = row.try_get("status")?;
        if status != "lobby" {
            return Err(StoreError::Conflict(
                domain::i18n::says("errors.leave_only_lobby")
                    .arg("status", &status)
                    .arg("id", id.0.to_string()),
            ));
        }
        let host: Uuid = row.try_get("host_id")?;
        let seat: Option<i16> = sqlx::query_scalar(
            "DELETE FROM game_seats WHERE game_id = $1 AND user_id = $2 RETURNING seat",
        )
        .bind(id.0)
        .bind(user.0)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seat) = seat else {
            return Err(StoreError::NotFound(domain::i18n::says(
                "errors.seat_not_found",
            )));
        };
        // Moved down by deleting and inserting again: one `UPDATE … SET seat = seat - 1` meets
        // the primary key whenever it reaches a later seat's row before the one below it (a
        // table's rows lie in no particular order: the race test of issue 26 found it).
        let later: Vec<(i16, Uuid, String, OffsetDateTime, Option<String>)> = sqlx::query_as(
            "DELETE FROM game_seats WHERE game_id = $1 AND seat > $2 \
             RETURNING seat, user_id, client_seed, joined_at, bot_policy",
        )
        .bind(id.0)
        .bind(seat)
        .fetch_all(&mut *tx)
        .await?;
        for (seat, user, client_seed, joined_at, policy) in later {
            sqlx::query(
                "INSERT INTO game_seats (game_id, seat, user_id, client_seed, joined_at, bot_policy) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(id.0)
            .bind(seat - 1)
            .bind(user)
            .bind(client_seed)
            .bind(joined_at)
            .bind(policy)
            .execute(&mut *tx)
            .await?;
        }
        rekey_bots(&mut tx, id).await?;
        if host == user.0 {
            let next: Option<Uuid> = sqlx::query_scalar(
                "SELECT user_id FROM game_seats WHERE game_id = $1 AND bot_policy IS NULL \
                 ORDER BY seat LIMIT 1",
            )
            .bind(id.0)
            .fetch_optional(&mut *tx)
            .await?;
            match next {
                Some(next) => {
                    sqlx::query("UPDATE games SET host_id = $2, updated_at = now() WHERE id = $1")
                        .bind(id.0)
                        .bind(next)
                        .execute(&mut *tx)
                        .await?;
                }
                None => {
                    // The host is kept (a game always has one); the seats too, for the record.
                    sqlx::query(
                        "UPDATE games SET status = 'cancelled', updated_at = now() WHERE id = $1",
                    )
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// `host` cancels their lobby, checked under the game's row lock (issue 26): a start,
    /// a hand-over or an expiry that got there first is seen, never overwritten.
    pub async fn cancel_lobby(&self, id: GameId, host: UserId) -> Result<()> {
        let mut locked = self.lock_game(id).await?;
        if locked.row.host_id != host {
            return Err(StoreError::NotOwner(says("errors.host_only_cancel")));
        }
        let status = locked.row.status;
        if status != GameStatus::Lobby {
            return Err(StoreError::Conflict(
                says("errors.cancel_only_lobby").arg("status", status.as_str()),
            ));
        }
        sqlx::query("UPDATE games SET status = 'cancelled', updated_at = now() WHERE id = $1")
            .bind(id.0)
            .execute(locked.conn())
            .await?;
        locked.commit().await
    }

    /// Marks `expired` every lobby created more than `ttl` ago; how many. (One statement: each
    /// row is updated under its lock and its status re-checked after any start, join or cancel
    /// that held it, so a lobby that started meanwhile stays started.)
    pub async fn expire_lobbies(&self, ttl: Duration) -> Result<u64> {
        let done = sqlx::query(
            "UPDATE games SET status = 'expired', updated_at = now() \
             WHERE status = 'lobby' AND created_at < now() - make_interval(secs => $1)",
        )
        .bind(secs(ttl))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }
}
