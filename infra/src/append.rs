//! One append as the statement that writes it (`append_command2`, migration 0011): its
//! arguments, owned so that it may wait in a batch ([`crate::group_commit`]); a batch as the
//! parallel arrays `append_batch2` (migration 0012) takes; and the answers.
//! Its own file so that the store and the group committer both use it without naming each other.

use crate::error::{Result, StoreError};
use domain::i18n::says;
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

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

/// An append's arguments, owned (it may wait in a batch).
#[derive(Debug)]
pub(crate) struct Args {
    pub(crate) game: Uuid,
    pub(crate) expected: i64,
    pub(crate) command_id: Uuid,
    pub(crate) user: Uuid,
    pub(crate) seat: Option<i16>,
    pub(crate) body_hash: String,
    pub(crate) command: Value,
    pub(crate) kinds: Vec<String>,
    pub(crate) payloads: Vec<Value>,
    pub(crate) schema_version: i32,
    pub(crate) hashes: Vec<String>,
    pub(crate) status: &'static str,
    pub(crate) outcome: Option<Value>,
    pub(crate) snapshot: Option<Value>,
    pub(crate) recorded_at: OffsetDateTime,
    pub(crate) waiting: Value,
    pub(crate) notes: crate::outbox::Notes,
}

impl Args {
    /// The append alone, in one statement on `conn` (the pool, or a caller's transaction):
    /// `append_command2` with bound arguments. Not the batch of one: `append_many`'s dozen
    /// statements are planned on every call, which costs a lone append 2.6-2.8x the execution time
    /// (measured, issue 31), while a batch shares that cost among its items.
    pub(crate) async fn run<'c>(&self, conn: impl sqlx::PgExecutor<'c>) -> Result<AppendResult> {
        let (result, version, first_seq, last_seq): (String, i64, i64, i64) = sqlx::query_as(
            "SELECT result, version, first_seq, last_seq FROM append_command2(\
             $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)",
        )
        .bind(self.game)
        .bind(self.expected)
        .bind(self.command_id)
        .bind(self.user)
        .bind(self.seat)
        .bind(&self.body_hash)
        .bind(&self.command)
        .bind(&self.kinds)
        .bind(&self.payloads)
        .bind(self.schema_version)
        .bind(&self.hashes)
        .bind(self.status)
        .bind(&self.outcome)
        .bind(&self.snapshot)
        .bind(self.recorded_at)
        .bind(&self.waiting)
        .bind(&self.notes.users)
        .bind(&self.notes.ids)
        .bind(&self.notes.games)
        .bind(&self.notes.kinds)
        .bind(&self.notes.payloads)
        .fetch_one(conn)
        .await?;
        answer(&result, version, first_seq, last_seq)
    }
}

/// Appends as the parallel arrays `append_many` (migration 0012) takes: one entry per append,
/// per event (`e_item`, 1-based, naming its append) and per notification (`n_item`).
#[derive(Default)]
pub(crate) struct Batch<'a> {
    game: Vec<uuid::Uuid>,
    expected: Vec<i64>,
    command_id: Vec<uuid::Uuid>,
    user: Vec<uuid::Uuid>,
    seat: Vec<Option<i16>>,
    body_hash: Vec<&'a str>,
    command: Vec<&'a Value>,
    schema: Vec<i32>,
    status: Vec<&'a str>,
    outcome: Vec<Option<&'a Value>>,
    snapshot: Vec<Option<&'a Value>>,
    at: Vec<OffsetDateTime>,
    waiting: Vec<&'a Value>,
    /// The hash the game's head takes (its last event's), `None` for an append of no events.
    head: Vec<Option<&'a str>>,
    events: Vec<i32>,
    e_item: Vec<i32>,
    e_type: Vec<&'a str>,
    e_payload: Vec<&'a Value>,
    e_hash: Vec<&'a str>,
    n_item: Vec<i32>,
    n_user: Vec<uuid::Uuid>,
    n_id: Vec<uuid::Uuid>,
    n_game: Vec<Option<uuid::Uuid>>,
    n_kind: Vec<&'a str>,
    n_payload: Vec<&'a Value>,
}

impl<'a> Batch<'a> {
    pub(crate) fn of(items: &[&'a Args]) -> Batch<'a> {
        let mut b = Batch::default();
        for (i, a) in items.iter().enumerate() {
            let item = i as i32 + 1;
            b.game.push(a.game);
            b.expected.push(a.expected);
            b.command_id.push(a.command_id);
            b.user.push(a.user);
            b.seat.push(a.seat);
            b.body_hash.push(&a.body_hash);
            b.command.push(&a.command);
            b.schema.push(a.schema_version);
            b.status.push(a.status);
            b.outcome.push(a.outcome.as_ref());
            b.snapshot.push(a.snapshot.as_ref());
            b.at.push(a.recorded_at);
            b.waiting.push(&a.waiting);
            b.head.push(a.hashes.last().map(String::as_str));
            b.events.push(a.kinds.len() as i32);
            for ((kind, payload), hash) in a.kinds.iter().zip(&a.payloads).zip(&a.hashes) {
                b.e_item.push(item);
                b.e_type.push(kind);
                b.e_payload.push(payload);
                b.e_hash.push(hash);
            }
            let n = &a.notes;
            for j in 0..n.users.len() {
                b.n_item.push(item);
                b.n_user.push(n.users[j]);
                b.n_id.push(n.ids[j]);
                b.n_game.push(n.games[j]);
                b.n_kind.push(&n.kinds[j]);
                b.n_payload.push(&n.payloads[j]);
            }
        }
        b
    }

    /// Sends the batch as one `append_batch2` statement: each append's answer, in order, or the
    /// statement's error (then nothing of it was written).
    pub(crate) async fn send<'c>(
        &self,
        conn: impl sqlx::PgExecutor<'c>,
    ) -> std::result::Result<Vec<Result<AppendResult>>, sqlx::Error> {
        let rows: Vec<(i32, String, i64, i64, i64)> = sqlx::query_as(
            "SELECT item, result, version, first_seq, last_seq FROM append_batch2(\
             $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25) \
             ORDER BY item",
        )
            .bind(&self.game)
            .bind(&self.expected)
            .bind(&self.command_id)
            .bind(&self.user)
            .bind(&self.seat)
            .bind(&self.body_hash)
            .bind(&self.command)
            .bind(&self.schema)
            .bind(&self.status)
            .bind(&self.outcome)
            .bind(&self.snapshot)
            .bind(&self.at)
            .bind(&self.waiting)
            .bind(&self.head)
            .bind(&self.events)
            .bind(&self.e_item)
            .bind(&self.e_type)
            .bind(&self.e_payload)
            .bind(&self.e_hash)
            .bind(&self.n_item)
            .bind(&self.n_user)
            .bind(&self.n_id)
            .bind(&self.n_game)
            .bind(&self.n_kind)
            .bind(&self.n_payload)
            .fetch_all(conn)
            .await?;
        // One answer per append, in order: anything else is not this function's answer.
        let whole = rows.len() == self.game.len()
            && rows.iter().enumerate().all(|(i, r)| r.0 == i as i32 + 1);
        if !whole {
            return Err(sqlx::Error::Protocol(format!(
                "append_batch2 answered {} rows for {} appends",
                rows.len(),
                self.game.len()
            )));
        }
        Ok(rows
            .into_iter()
            .map(|(_, result, version, first, last)| answer(&result, version, first, last))
            .collect())
    }
}

/// `append_command`'s answer as an [`AppendResult`].
pub(crate) fn answer(
    result: &str,
    version: i64,
    first_seq: i64,
    last_seq: i64,
) -> Result<AppendResult> {
    let (version, first_seq, last_seq) = (version as u64, first_seq as u64, last_seq as u64);
    Ok(match result {
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
        "not_found" => return Err(StoreError::NotFound(says("errors.game_not_found"))),
        other => {
            return Err(StoreError::Corrupt(format!(
                "append_command answered {other}"
            )));
        }
    })
}
