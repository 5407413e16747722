//! One append as the statement that writes it (`append_command2`, migration 0011): its
//! arguments, owned so that it may wait in a batch ([`crate::group_commit`]), and its answer.
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

/// An append as `append_command2`'s arguments, owned (it may wait in a batch).
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
    /// The append alone, in one statement on `conn` (the pool, or a caller's transaction).
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
