//! The event store: games, seats, the append-only log, snapshots and idempotency records.

use crate::error::{Result, StoreError};
pub use crate::event::{Entry, StoredEvent, replay};
use crate::ids::{GameId, UserId};
use serde_json::Value;
use sqlx::{PgPool, Row};
use time::OffsetDateTime;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Lobby,
    Active,
    Finished,
}

impl GameStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Lobby => "lobby",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lobby" => Some(GameStatus::Lobby),
            "active" => Some(GameStatus::Active),
            "finished" => Some(GameStatus::Finished),
            _ => None,
        }
    }
}

/// A game's row: metadata and the inline projection of its log head.
#[derive(Clone, Debug)]
pub struct GameRow {
    pub id: GameId,
    pub kind: String,
    pub status: GameStatus,
    pub seat_count: u8,
    pub options: Value,
    pub host_id: UserId,
    pub fair: bool,
    pub server_seed: [u8; 32],
    pub seed_commitment: String,
    pub rules_version: String,
    pub version: u64,
    pub head_hash: String,
    pub outcome: Option<Value>,
    pub created_at: OffsetDateTime,
    pub started_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SeatRow {
    pub seat: u8,
    pub user_id: UserId,
    pub user_name: String,
    pub client_seed: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StoredCommand {
    pub command_id: Uuid,
    pub seat: Option<u8>,
    pub user_id: UserId,
    pub command: Value,
    pub first_seq: u64,
    pub last_seq: u64,
    pub recorded_at: OffsetDateTime,
}

pub struct NewGame<'a> {
    pub id: GameId,
    pub kind: &'a str,
    pub seat_count: u8,
    pub options: &'a Value,
    pub host: UserId,
    pub fair: bool,
    pub server_seed: [u8; 32],
    pub seed_commitment: &'a str,
    pub rules_version: &'a str,
    pub host_client_seed: &'a str,
}

/// One command's append, decided against `expected` (the version it saw).
pub struct Append<'a> {
    pub game: GameId,
    pub expected: u64,
    pub command_id: Uuid,
    pub user: UserId,
    pub seat: Option<u8>,
    pub body_hash: &'a str,
    pub command: &'a Value,
    /// The command's entries, chained after the head at `expected` (seq `expected + 1`…; the
    /// hash covers the seq, so the entries are complete before they are written).
    pub events: &'a [StoredEvent],
    pub status: GameStatus,
    pub outcome: Option<Value>,
    pub snapshot: Option<Value>,
    pub recorded_at: OffsetDateTime,
    /// The seats the game waits for after this append, `[{seat, kinds, deadline}]`: the inbox,
    /// rewritten in the same statement (`crate::lobby::INBOX_SET`).
    pub waiting: Value,
}

impl Append<'_> {
    /// The entries must be what `append_command` writes: seq after `expected`, this command's
    /// id, seat, time and schema version. A mismatch is a bug, refused before any write.
    fn check_entries(&self) -> Result<()> {
        let schema = self.events.first().map(|e| e.schema_version);
        for (i, e) in self.events.iter().enumerate() {
            let fits = e.seq == self.expected + 1 + i as u64
                && e.command_id == self.command_id
                && e.actor == self.seat
                && e.recorded_at == self.recorded_at
                && Some(e.schema_version) == schema
                && !e.redacted
                && (i == 0 || e.prev_hash == self.events[i - 1].hash);
            if !fits {
                return Err(StoreError::Corrupt(format!(
                    "entry {} does not fit its append",
                    e.seq
                )));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppendResult {
    Appended {
        version: u64,
        first_seq: u64,
        last_seq: u64,
    },
    Duplicate {
        version: u64,
        first_seq: u64,
        last_seq: u64,
    },
    Mismatch,
    Conflict {
        current: u64,
    },
}

#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub kind: Option<String>,
    pub status: Option<GameStatus>,
    pub member: Option<UserId>,
    /// Keyset cursor: games created strictly before this (created_at, id).
    pub before: Option<(OffsetDateTime, Uuid)>,
    pub limit: u32,
}

#[derive(Clone)]
pub struct Store {
    pub pool: PgPool,
}

fn seed_from(bytes: Vec<u8>) -> Result<[u8; 32]> {
    bytes
        .try_into()
        .map_err(|_| StoreError::Corrupt("server seed is not 32 bytes".into()))
}

fn game_from_row(row: &sqlx::postgres::PgRow) -> Result<GameRow> {
    let status: String = row.try_get("status")?;
    Ok(GameRow {
        id: GameId(row.try_get("id")?),
        kind: row.try_get("kind")?,
        status: GameStatus::parse(&status)
            .ok_or_else(|| StoreError::Corrupt(format!("status {status}")))?,
        seat_count: row.try_get::<i16, _>("seat_count")? as u8,
        options: row.try_get("options")?,
        host_id: UserId(row.try_get("host_id")?),
        fair: row.try_get("fair")?,
        server_seed: seed_from(row.try_get("server_seed")?)?,
        seed_commitment: row.try_get("seed_commitment")?,
        rules_version: row.try_get("rules_version")?,
        version: row.try_get::<i64, _>("version")? as u64,
        head_hash: row.try_get("head_hash")?,
        outcome: row.try_get("outcome")?,
        created_at: row.try_get("created_at")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
    })
}

const GAME_COLUMNS: &str = "id, kind, status, seat_count, options, host_id, fair, server_seed, seed_commitment, \
     rules_version, version, head_hash, outcome, created_at, started_at, finished_at";

fn event_from_row(row: &sqlx::postgres::PgRow) -> Result<StoredEvent> {
    Ok(StoredEvent {
        seq: row.try_get::<i64, _>("seq")? as u64,
        kind: row.try_get("type")?,
        payload: row.try_get("payload")?,
        schema_version: row.try_get::<i32, _>("schema_version")? as u32,
        command_id: row.try_get("command_id")?,
        actor: row.try_get::<Option<i16>, _>("actor")?.map(|a| a as u8),
        recorded_at: row.try_get("recorded_at")?,
        prev_hash: row.try_get("prev_hash")?,
        hash: row.try_get("hash")?,
        redacted: false,
    })
}

impl Store {
    pub fn new(pool: PgPool) -> Self {
        Store { pool }
    }

    pub async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub async fn create_game(&self, game: NewGame<'_>) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        insert_game(&mut tx, &game).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn game(&self, id: GameId) -> Result<GameRow> {
        let row = // Only static fragments are interpolated; values are bound.
        sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1")))
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("game"))?;
        game_from_row(&row)
    }

    /// The head of the log: (version, status). One small indexed read.
    pub async fn head(&self, id: GameId) -> Result<(u64, GameStatus)> {
        let row = sqlx::query("SELECT version, status FROM games WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound("game"))?;
        let status: String = row.try_get("status")?;
        Ok((
            row.try_get::<i64, _>("version")? as u64,
            GameStatus::parse(&status).ok_or_else(|| StoreError::Corrupt(status))?,
        ))
    }

    pub async fn seats(&self, id: GameId) -> Result<Vec<SeatRow>> {
        let rows = sqlx::query(
            "SELECT s.seat, s.user_id, u.name, s.client_seed FROM game_seats s JOIN users u ON u.id = s.user_id \
             WHERE s.game_id = $1 ORDER BY s.seat",
        )
        .bind(id.0)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SeatRow {
                    seat: r.try_get::<i16, _>("seat")? as u8,
                    user_id: UserId(r.try_get("user_id")?),
                    user_name: r.try_get("name")?,
                    client_seed: r.try_get("client_seed")?,
                })
            })
            .collect()
    }

    /// Takes the lowest free seat of a game in its lobby.
    pub async fn join(&self, id: GameId, user: UserId, client_seed: &str) -> Result<u8> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query("SELECT status, seat_count FROM games WHERE id = $1 FOR UPDATE")
            .bind(id.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("game"))?;
        let status: String = row.try_get("status")?;
        if status != "lobby" {
            return Err(StoreError::Invalid("the game has already started".into()));
        }
        let seat_count = row.try_get::<i16, _>("seat_count")?;
        let taken: Vec<(i16, Uuid)> =
            sqlx::query_as("SELECT seat, user_id FROM game_seats WHERE game_id = $1")
                .bind(id.0)
                .fetch_all(&mut *tx)
                .await?;
        if taken.iter().any(|(_, u)| *u == user.0) {
            return Err(StoreError::Invalid(
                "you already have a seat in this game".into(),
            ));
        }
        let seat = (1..=seat_count)
            .find(|s| !taken.iter().any(|(t, _)| t == s))
            .ok_or_else(|| StoreError::Invalid("every seat is taken".into()))?;
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, user_id, client_seed) VALUES ($1,$2,$3,$4)",
        )
        .bind(id.0)
        .bind(seat)
        .bind(user.0)
        .bind(client_seed)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(seat as u8)
    }

    /// Leaves a lobby; later seats move down so seats stay numbered in joining order.
    pub async fn leave(&self, id: GameId, user: UserId) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query("SELECT status, host_id FROM games WHERE id = $1 FOR UPDATE")
            .bind(id.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("game"))?;
        let status: String = row.try_get("status")?;
        if status != "lobby" {
            return Err(StoreError::Invalid(
                "seats cannot be left once the game has started".into(),
            ));
        }
        let host: Uuid = row.try_get("host_id")?;
        if host == user.0 {
            return Err(StoreError::Invalid(
                "the host cannot leave their own game".into(),
            ));
        }
        let seat: Option<i16> = sqlx::query_scalar(
            "DELETE FROM game_seats WHERE game_id = $1 AND user_id = $2 RETURNING seat",
        )
        .bind(id.0)
        .bind(user.0)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seat) = seat else {
            return Err(StoreError::NotFound("seat"));
        };
        sqlx::query("UPDATE game_seats SET seat = seat - 1 WHERE game_id = $1 AND seat > $2")
            .bind(id.0)
            .bind(seat)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn list(&self, filter: &ListFilter) -> Result<Vec<GameRow>> {
        let mut query = sqlx::QueryBuilder::<sqlx::Postgres>::new(format!(
            "SELECT {GAME_COLUMNS} FROM games g WHERE true"
        ));
        if let Some(kind) = &filter.kind {
            query.push(" AND kind = ").push_bind(kind);
        }
        if let Some(status) = filter.status {
            query.push(" AND status = ").push_bind(status.as_str());
        }
        if let Some(member) = filter.member {
            query
                .push(" AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.user_id = ")
                .push_bind(member.0)
                .push(")");
        }
        if let Some((at, id)) = filter.before {
            query
                .push(" AND (created_at, id) < (")
                .push_bind(at)
                .push(", ")
                .push_bind(id)
                .push(")");
        }
        query
            .push(" ORDER BY created_at DESC, id DESC LIMIT ")
            .push_bind(i64::from(filter.limit));
        let rows = query.build().fetch_all(&self.pool).await?;
        rows.iter().map(game_from_row).collect()
    }

    /// Events with `after < seq <= upto`, in order, at most `limit`.
    pub async fn events(
        &self,
        id: GameId,
        after: u64,
        upto: Option<u64>,
        limit: u32,
    ) -> Result<Vec<StoredEvent>> {
        let rows = sqlx::query(
            "SELECT seq, type, payload, schema_version, command_id, actor, recorded_at, prev_hash, hash \
             FROM events WHERE game_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4",
        )
        .bind(id.0)
        .bind(after as i64)
        .bind(upto.map(|u| u as i64).unwrap_or(i64::MAX))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    /// The newest snapshot at or before `at`.
    pub async fn snapshot(&self, id: GameId, at: u64) -> Result<Option<(u64, Value)>> {
        let row = sqlx::query(
            "SELECT version, state FROM snapshots WHERE game_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1",
        )
        .bind(id.0)
        .bind(at as i64)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| Ok((r.try_get::<i64, _>("version")? as u64, r.try_get("state")?)))
            .transpose()
    }

    /// Every snapshot of a game, oldest first.
    pub async fn snapshots(&self, id: GameId) -> Result<Vec<(u64, Value)>> {
        let rows =
            sqlx::query("SELECT version, state FROM snapshots WHERE game_id = $1 ORDER BY version")
                .bind(id.0)
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>("version")? as u64, r.try_get("state")?)))
            .collect()
    }

    /// Ids of every game that has started (lobbies have no log).
    pub async fn started_games(&self) -> Result<Vec<GameId>> {
        let ids: Vec<Uuid> =
            sqlx::query_scalar("SELECT id FROM games WHERE status <> 'lobby' ORDER BY created_at")
                .fetch_all(&self.pool)
                .await?;
        Ok(ids.into_iter().map(GameId).collect())
    }

    /// Replaces the snapshot at `version` (one that no longer loads) with a good one.
    pub async fn replace_snapshot(&self, id: GameId, version: u64, state: &Value) -> Result<()> {
        sqlx::query(
            "INSERT INTO snapshots (game_id, version, state) VALUES ($1, $2, $3) \
             ON CONFLICT (game_id, version) DO UPDATE SET state = EXCLUDED.state",
        )
        .bind(id.0)
        .bind(version as i64)
        .bind(state)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The first answer to a command id `user` sent before, if it was accepted. Only the
    /// caller's own records: another caller's id never answers (no oracle on their body).
    pub async fn command(
        &self,
        id: GameId,
        user: UserId,
        command_id: Uuid,
    ) -> Result<Option<(String, u64, u64)>> {
        let row = sqlx::query(
            "SELECT body_hash, first_seq, last_seq FROM commands WHERE game_id = $1 AND user_id = $2 AND command_id = $3",
        )
            .bind(id.0)
            .bind(user.0)
            .bind(command_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok((
                r.try_get("body_hash")?,
                r.try_get::<i64, _>("first_seq")? as u64,
                r.try_get::<i64, _>("last_seq")? as u64,
            ))
        })
        .transpose()
    }

    /// Every accepted command of a game, in log order.
    pub async fn commands(&self, id: GameId) -> Result<Vec<StoredCommand>> {
        let rows = sqlx::query(
            "SELECT command_id, seat, user_id, command, first_seq, last_seq, recorded_at FROM commands \
             WHERE game_id = $1 ORDER BY first_seq",
        )
        .bind(id.0)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(StoredCommand {
                    command_id: r.try_get("command_id")?,
                    seat: r.try_get::<Option<i16>, _>("seat")?.map(|s| s as u8),
                    user_id: UserId(r.try_get("user_id")?),
                    command: r.try_get("command")?,
                    first_seq: r.try_get::<i64, _>("first_seq")? as u64,
                    last_seq: r.try_get::<i64, _>("last_seq")? as u64,
                    recorded_at: r.try_get("recorded_at")?,
                })
            })
            .collect()
    }

    /// The command that produced event `seq`.
    pub async fn command_at(&self, id: GameId, seq: u64) -> Result<Option<StoredCommand>> {
        Ok(self
            .commands(id)
            .await?
            .into_iter()
            .find(|c| c.first_seq <= seq && seq <= c.last_seq))
    }

    /// One command in one round trip (the `append_command` function of the schema).
    pub async fn append(&self, append: Append<'_>) -> Result<AppendResult> {
        append.check_entries()?;
        let events = append.events;
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        let payloads: Vec<&Value> = events.iter().map(|e| &e.payload).collect();
        let hashes: Vec<&str> = events.iter().map(|e| e.hash.as_str()).collect();
        // One schema version per command (all its events come from one engine).
        let schema_version = events.first().map_or(0, |e| e.schema_version);
        // Only static fragments are interpolated; values are bound.
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT a.result, a.version, a.first_seq, a.last_seq, {} AS inbox \
             FROM append_command($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) a",
            crate::lobby::INBOX_SET
        )))
        .bind(append.game.0)
        .bind(append.expected as i64)
        .bind(append.command_id)
        .bind(append.user.0)
        .bind(append.seat.map(i16::from))
        .bind(append.body_hash)
        .bind(append.command)
        .bind(&kinds)
        .bind(&payloads)
        .bind(schema_version as i32)
        .bind(&hashes)
        .bind(append.status.as_str())
        .bind(&append.outcome)
        .bind(&append.snapshot)
        .bind(append.recorded_at)
        .bind(&append.waiting)
        .fetch_one(&self.pool)
        .await?;
        let result: String = row.try_get("result")?;
        let version = row.try_get::<i64, _>("version")? as u64;
        let first_seq = row.try_get::<i64, _>("first_seq")? as u64;
        let last_seq = row.try_get::<i64, _>("last_seq")? as u64;
        Ok(match result.as_str() {
            "ok" => AppendResult::Appended {
                version,
                first_seq,
                last_seq,
            },
            "duplicate" => AppendResult::Duplicate {
                version,
                first_seq,
                last_seq,
            },
            "mismatch" => AppendResult::Mismatch,
            "conflict" => AppendResult::Conflict { current: version },
            "not_found" => return Err(StoreError::NotFound("game")),
            other => {
                return Err(StoreError::Corrupt(format!(
                    "append_command answered {other}"
                )));
            }
        })
    }
}

/// Inserts a new game in its lobby with its host in seat 1, in the caller's transaction.
pub(crate) async fn insert_game(conn: &mut sqlx::PgConnection, game: &NewGame<'_>) -> Result<()> {
    sqlx::query(
            "INSERT INTO games (id, kind, status, seat_count, options, host_id, fair, server_seed, \
             seed_commitment, rules_version, head_hash) VALUES ($1,$2,'lobby',$3,$4,$5,$6,$7,$8,$9,$10)",
        )
        .bind(game.id.0)
        .bind(game.kind)
        .bind(i16::from(game.seat_count))
        .bind(game.options)
        .bind(game.host.0)
        .bind(game.fair)
        .bind(&game.server_seed[..])
        .bind(game.seed_commitment)
        .bind(game.rules_version)
        .bind(crate::hash::GENESIS)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "INSERT INTO game_seats (game_id, seat, user_id, client_seed) VALUES ($1, 1, $2, $3)",
    )
    .bind(game.id.0)
    .bind(game.host.0)
    .bind(game.host_client_seed)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append_of(events: &[StoredEvent]) -> Append<'_> {
        Append {
            game: GameId(Uuid::nil()),
            expected: 4,
            command_id: Uuid::from_u128(9),
            user: UserId(Uuid::nil()),
            seat: Some(2),
            body_hash: "b",
            command: &Value::Null,
            events,
            status: GameStatus::Active,
            outcome: None,
            snapshot: None,
            recorded_at: OffsetDateTime::UNIX_EPOCH,
            waiting: Value::Null,
        }
    }

    fn entries() -> Vec<StoredEvent> {
        (5..=6)
            .map(|seq| StoredEvent {
                seq,
                kind: "x".into(),
                payload: serde_json::json!({"type": "x"}),
                schema_version: 1,
                command_id: Uuid::from_u128(9),
                actor: Some(2),
                recorded_at: OffsetDateTime::UNIX_EPOCH,
                prev_hash: format!("h{}", seq - 1),
                hash: format!("h{seq}"),
                redacted: false,
            })
            .collect()
    }

    #[test]
    fn an_append_refuses_entries_that_do_not_fit_it() {
        let good = entries();
        assert!(append_of(&good).check_entries().is_ok());
        let breakages: [fn(&mut StoredEvent); 5] = [
            |e| e.seq += 1,
            |e| e.actor = None,
            |e| e.command_id = Uuid::nil(),
            |e| e.prev_hash = "elsewhere".into(),
            |e| e.redacted = true,
        ];
        for breakage in breakages {
            let mut bad = entries();
            breakage(&mut bad[1]);
            assert!(append_of(&bad).check_entries().is_err(), "{:?}", bad[1]);
        }
    }
}
