//! The event store: games, seats, the append-only log, snapshots and idempotency records.

pub use crate::append::AppendResult;
use crate::append::Args;
use crate::error::{Result, StoreError};
pub use crate::event::{Entry, StoredEvent, replay};
use crate::ids::{GameId, UserId};
use domain::i18n::says;
use serde_json::Value;
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Lobby,
    Active,
    Finished,
    /// The host cancelled the lobby (issue 17).
    Cancelled,
    /// Nobody started the lobby within `HOMESTRETCH_LOBBY_TTL` (issue 17).
    Expired,
}

impl GameStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Lobby => "lobby",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
            GameStatus::Cancelled => "cancelled",
            GameStatus::Expired => "expired",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lobby" => Some(GameStatus::Lobby),
            "active" => Some(GameStatus::Active),
            "finished" => Some(GameStatus::Finished),
            "cancelled" => Some(GameStatus::Cancelled),
            "expired" => Some(GameStatus::Expired),
            _ => None,
        }
    }
}

/// A stored status that is not one of ours.
impl TryFrom<String> for GameStatus {
    type Error = String;
    fn try_from(status: String) -> std::result::Result<Self, String> {
        GameStatus::parse(&status).ok_or_else(|| format!("unknown game status {status}"))
    }
}

/// A game's row: metadata and the inline projection of its log head.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameRow {
    pub id: GameId,
    pub kind: String,
    #[sqlx(try_from = "String")]
    pub status: GameStatus,
    #[sqlx(try_from = "i16")]
    pub seat_count: u8,
    pub options: Value,
    pub host_id: UserId,
    pub fair: bool,
    #[sqlx(try_from = "Vec<u8>")]
    pub server_seed: [u8; 32],
    pub seed_commitment: String,
    pub rules_version: String,
    #[sqlx(try_from = "i64")]
    pub version: u64,
    pub head_hash: String,
    pub outcome: Option<Value>,
    pub created_at: OffsetDateTime,
    pub started_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
    /// The time control (`options.clock`, issue 17), if any.
    pub clock: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SeatRow {
    #[sqlx(try_from = "i16")]
    pub seat: u8,
    pub user_id: UserId,
    #[sqlx(rename = "name")]
    pub user_name: String,
    pub client_seed: String,
    /// The server bot playing this seat (`random` | `greedy`), if any (issue 17).
    pub bot: Option<String>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct StoredCommand {
    pub command_id: Uuid,
    #[sqlx(try_from = "crate::db::SeatColumn")]
    pub seat: Option<u8>,
    pub user_id: UserId,
    pub command: Value,
    #[sqlx(try_from = "i64")]
    pub first_seq: u64,
    #[sqlx(try_from = "i64")]
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
    pub clock: Option<&'a Value>,
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
    /// rewritten in the same statement.
    pub waiting: Value,
    /// Notifications the command causes: written in the append's transaction (issue 18).
    pub outbox: Vec<crate::outbox::NewNotification>,
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
    /// The group committer of this store's appends (`None`: `HOMESTRETCH_GROUP_COMMIT=off`).
    group: Option<std::sync::Arc<crate::group_commit::GroupCommit>>,
}

const GAME_COLUMNS: &str = "id, kind, status, seat_count, options, host_id, fair, server_seed, seed_commitment, \
     rules_version, version, head_hash, outcome, created_at, started_at, finished_at, clock";

impl Store {
    pub fn new(pool: PgPool) -> Self {
        let group = crate::group_commit::GroupCommit::from_env().map(std::sync::Arc::new);
        if let Some(group) = &group {
            group.start(&pool);
        }
        Store { pool, group }
    }

    /// This store's appends sent to the group committer and not answered yet (0 without one).
    pub fn appends_in_flight(&self) -> usize {
        self.group.as_ref().map_or(0, |group| group.in_flight())
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
        sqlx::QueryBuilder::<sqlx::Postgres>::new(format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE id = "
        ))
        .push_bind(id.0)
        .build_query_as::<GameRow>()
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(says("errors.game_not_found")))
    }

    /// The head of the log: (version, status). One small indexed read.
    pub async fn head(&self, id: GameId) -> Result<(u64, GameStatus)> {
        let (version, status): (i64, String) =
            sqlx::query_as("SELECT version, status FROM games WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| StoreError::NotFound(says("errors.game_not_found")))?;
        Ok((
            version as u64,
            GameStatus::try_from(status).map_err(StoreError::Corrupt)?,
        ))
    }

    pub async fn seats(&self, id: GameId) -> Result<Vec<SeatRow>> {
        seats_of(&self.pool, id).await
    }

    /// Begins the transaction of a lobby transition (issue 26): the game's row locked (`FOR
    /// UPDATE`, as every append locks it), so no join, leave, cancel, start, bot, expiry or
    /// command of any instance runs beside it, and its seats read under that lock. Dropped
    /// without [`Locked::append`] or [`Locked::commit`], it rolls back.
    pub async fn lock_game(&self, id: GameId) -> Result<Locked> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::QueryBuilder::<sqlx::Postgres>::new(format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE id = "
        ))
        .push_bind(id.0)
        .push(" FOR UPDATE")
        .build_query_as::<GameRow>()
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(says("errors.game_not_found")))?;
        let seats = seats_of(&mut *tx, id).await?;
        Ok(Locked { tx, row, seats })
    }

    /// Takes the lowest free seat of a game in its lobby; `notify(seat, others)` names the
    /// notifications written in the same transaction (issue 18: `player_joined`).
    pub async fn join(
        &self,
        id: GameId,
        user: UserId,
        client_seed: &str,
        notify: impl FnOnce(u8, &[UserId]) -> Vec<crate::outbox::NewNotification>,
    ) -> Result<u8> {
        let mut tx = self.pool.begin().await?;
        let (status, seat_count): (String, i16) =
            sqlx::query_as("SELECT status, seat_count FROM games WHERE id = $1 FOR UPDATE")
                .bind(id.0)
                .fetch_optional(&mut *tx)
                .await?
                .ok_or_else(|| StoreError::NotFound(says("errors.game_not_found")))?;
        if status != "lobby" {
            return Err(StoreError::Conflict(says("errors.game_already_started")));
        }
        let taken: Vec<(i16, Uuid)> =
            sqlx::query_as("SELECT seat, user_id FROM game_seats WHERE game_id = $1")
                .bind(id.0)
                .fetch_all(&mut *tx)
                .await?;
        if taken.iter().any(|(_, u)| *u == user.0) {
            return Err(StoreError::Conflict(says("errors.already_seated")));
        }
        let seat = (1..=seat_count)
            .find(|s| !taken.iter().any(|(t, _)| t == s))
            .ok_or_else(|| StoreError::Conflict(says("errors.every_seat_taken")))?;
        sqlx::query(
            "INSERT INTO game_seats (game_id, seat, user_id, client_seed) VALUES ($1,$2,$3,$4)",
        )
        .bind(id.0)
        .bind(seat)
        .bind(user.0)
        .bind(client_seed)
        .execute(&mut *tx)
        .await?;
        let others: Vec<UserId> = taken.iter().map(|(_, u)| UserId(*u)).collect();
        crate::outbox::enqueue(&mut tx, &notify(seat as u8, &others)).await?;
        tx.commit().await?;
        Ok(seat as u8)
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
        Ok(query.build_query_as().fetch_all(&self.pool).await?)
    }

    /// Events with `after < seq <= upto`, in order, at most `limit`.
    pub async fn events(
        &self,
        id: GameId,
        after: u64,
        upto: Option<u64>,
        limit: u32,
    ) -> Result<Vec<StoredEvent>> {
        Ok(sqlx::query_as(
            "SELECT seq, type, payload, schema_version, command_id, actor, recorded_at, prev_hash, hash \
             FROM events WHERE game_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4",
        )
        .bind(id.0)
        .bind(after as i64)
        .bind(upto.map(|u| u as i64).unwrap_or(i64::MAX))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?)
    }

    /// The newest snapshot at or before `at`.
    pub async fn snapshot(&self, id: GameId, at: u64) -> Result<Option<(u64, Value)>> {
        let row: Option<(i64, Value)> = sqlx::query_as(
            "SELECT version, state FROM snapshots WHERE game_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1",
        )
        .bind(id.0)
        .bind(at as i64)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(version, state)| (version as u64, state)))
    }

    /// Every snapshot of a game, oldest first.
    pub async fn snapshots(&self, id: GameId) -> Result<Vec<(u64, Value)>> {
        let rows: Vec<(i64, Value)> = sqlx::query_as(
            "SELECT version, state FROM snapshots WHERE game_id = $1 ORDER BY version",
        )
        .bind(id.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(version, state)| (version as u64, state))
            .collect())
    }

    /// A mark of what a game's log holds now: its events and commands, counted, and the
    /// transactions that wrote them. Any change — an append, or a row rewritten or deleted
    /// behind the append-only triggers — changes it, so an answer computed from the log can be
    /// kept under it (issue 26: a cached audit never hides tampering done after it).
    pub async fn log_mark(&self, id: GameId) -> Result<String> {
        Ok(sqlx::query_scalar(
            "SELECT concat_ws(':', \
               (SELECT concat_ws('/', count(*), sum(xmin::text::bigint)) FROM events WHERE game_id = $1), \
               (SELECT concat_ws('/', count(*), sum(xmin::text::bigint)) FROM commands WHERE game_id = $1))",
        )
        .bind(id.0)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Ids of every game that has started (lobbies have no log).
    pub async fn started_games(&self) -> Result<Vec<GameId>> {
        let ids: Vec<Uuid> =
            sqlx::query_scalar("SELECT id FROM games WHERE status NOT IN ('lobby', 'cancelled', 'expired') ORDER BY created_at")
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
        command_of(&self.pool, id, user, command_id).await
    }

    /// Every accepted command of a game, in log order.
    pub async fn commands(&self, id: GameId) -> Result<Vec<StoredCommand>> {
        Ok(sqlx::query_as(
            "SELECT command_id, seat, user_id, command, first_seq, last_seq, recorded_at FROM commands \
             WHERE game_id = $1 ORDER BY first_seq",
        )
        .bind(id.0)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The command that produced event `seq`.
    pub async fn command_at(&self, id: GameId, seq: u64) -> Result<Option<StoredCommand>> {
        Ok(self
            .commands(id)
            .await?
            .into_iter()
            .find(|c| c.first_seq <= seq && seq <= c.last_seq))
    }

    /// One command in one statement: `append_command2` (migration 0011) writes the events,
    /// the head, the command record, the snapshot, the inbox and the notifications, or nothing
    /// (a statement is atomic: no `BEGIN`/`COMMIT`). Appends of several games that arrive
    /// together share one statement, one transaction and one WAL flush
    /// ([`crate::group_commit`]), each with its own checks and answer;
    /// `HOMESTRETCH_GROUP_COMMIT=off` sends each alone.
    pub async fn append(&self, append: Append<'_>) -> Result<AppendResult> {
        append.check_entries()?;
        let args = args_of(&append);
        match &self.group {
            Some(group) => group.append(&self.pool, args).await,
            None => args.run(&self.pool).await,
        }
    }
}

/// An [`Append`] as `append_command2`'s arguments (owned: it may wait in a batch).
fn args_of(append: &Append<'_>) -> Args {
    let events = append.events;
    Args {
        game: append.game.0,
        expected: append.expected as i64,
        command_id: append.command_id,
        user: append.user.0,
        seat: append.seat.map(i16::from),
        body_hash: append.body_hash.to_string(),
        command: append.command.clone(),
        kinds: events.iter().map(|e| e.kind.clone()).collect(),
        payloads: events.iter().map(|e| e.payload.clone()).collect(),
        // One schema version per command (all its events come from one engine).
        schema_version: events.first().map_or(0, |e| e.schema_version as i32),
        hashes: events.iter().map(|e| e.hash.clone()).collect(),
        status: append.status.as_str(),
        outcome: append.outcome.clone(),
        snapshot: append.snapshot.clone(),
        recorded_at: append.recorded_at,
        waiting: append.waiting.clone(),
        notes: crate::outbox::Notes::of(&append.outbox),
    }
}

/// A game's row locked for one transaction ([`Store::lock_game`]), with the seats read under
/// the lock: a lobby transition's whole view of the game.
pub struct Locked {
    tx: sqlx::Transaction<'static, sqlx::Postgres>,
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
}

impl Locked {
    /// [`Store::command`] under the lock: a repeat sent through another instance is seen here.
    pub async fn command(
        &mut self,
        user: UserId,
        command_id: Uuid,
    ) -> Result<Option<(String, u64, u64)>> {
        command_of(&mut *self.tx, self.row.id, user, command_id).await
    }

    /// [`Store::append`] in this transaction, then the commit: the log begins with the seats
    /// it was decided on.
    pub async fn append(mut self, append: Append<'_>) -> Result<AppendResult> {
        append.check_entries()?;
        let result = args_of(&append).run(&mut *self.tx).await?;
        self.tx.commit().await?;
        Ok(result)
    }

    /// The transaction's connection, for a transition's own statements.
    pub fn conn(&mut self) -> &mut sqlx::PgConnection {
        &mut self.tx
    }

    pub async fn commit(self) -> Result<()> {
        Ok(self.tx.commit().await?)
    }
}

async fn seats_of<'c>(conn: impl sqlx::PgExecutor<'c>, id: GameId) -> Result<Vec<SeatRow>> {
    Ok(sqlx::query_as(
        "SELECT s.seat, s.user_id, u.name, s.client_seed, s.bot_policy AS bot FROM game_seats s JOIN users u ON u.id = s.user_id \
         WHERE s.game_id = $1 ORDER BY s.seat",
    )
    .bind(id.0)
    .fetch_all(conn)
    .await?)
}

async fn command_of<'c>(
    conn: impl sqlx::PgExecutor<'c>,
    id: GameId,
    user: UserId,
    command_id: Uuid,
) -> Result<Option<(String, u64, u64)>> {
    let row: Option<(String, i64, i64)> = sqlx::query_as(
        "SELECT body_hash, first_seq, last_seq FROM commands WHERE game_id = $1 AND user_id = $2 AND command_id = $3",
    )
    .bind(id.0)
    .bind(user.0)
    .bind(command_id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|(hash, first, last)| (hash, first as u64, last as u64)))
}

/// Inserts a new game in its lobby with its host in seat 1, in the caller's transaction.
pub(crate) async fn insert_game(conn: &mut sqlx::PgConnection, game: &NewGame<'_>) -> Result<()> {
    sqlx::query(
            "INSERT INTO games (id, kind, status, seat_count, options, host_id, fair, server_seed, \
             seed_commitment, rules_version, head_hash, clock) VALUES ($1,$2,'lobby',$3,$4,$5,$6,$7,$8,$9,$10,$11)",
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
        .bind(game.clock)
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
            outbox: Vec::new(),
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
