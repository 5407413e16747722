//! Disputes on a move: opened by a seated player, resolved by an admin. Every change is an
//! event in `dispute_events`; `disputes` is its projection, written in the same transaction.
//!
//! A dispute stores only the part of the move's audit that is the same for every reader
//! ([`public_audit`]: which move, who sent it, the checks). The command, the state before and
//! the events hold secrets: they are computed for each reader when the dispute is read.

use crate::error::{Result, StoreError};
use crate::ids::{GameId, UserId};
use domain::i18n::says;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, sqlx::FromRow)]
pub struct Dispute {
    pub id: Uuid,
    pub game_id: GameId,
    #[sqlx(try_from = "i64")]
    pub seq: u64,
    pub opened_by: UserId,
    pub reason: String,
    pub status: String,
    /// The stored, reader-independent part of the move's audit ([`public_audit`]).
    pub audit: Value,
    pub note: Option<String>,
    pub resolved_by: Option<UserId>,
    pub created_at: time::OffsetDateTime,
    pub resolved_at: Option<time::OffsetDateTime>,
    /// The dispute's own log.
    #[sqlx(skip)]
    pub history: Vec<Value>,
}

/// Fields of a move audit that every reader of a dispute may see.
const PUBLIC_AUDIT_FIELDS: [&str; 8] = [
    "seq",
    "first_seq",
    "last_seq",
    "seat",
    "sent_by",
    "recorded_at",
    "checks",
    "sound",
];

/// The reader-independent part of a move audit (an allow-list: anything else is dropped).
pub fn public_audit(audit: &Value) -> Value {
    let mut public = serde_json::Map::new();
    if let Value::Object(fields) = audit {
        for name in PUBLIC_AUDIT_FIELDS {
            if let Some(value) = fields.get(name) {
                public.insert(name.to_string(), value.clone());
            }
        }
    }
    Value::Object(public)
}

/// What filing a dispute did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    New(Uuid),
    /// The filer's dispute on this move, still open.
    Existing(Uuid),
    /// The filer already has as many open disputes as the quota allows.
    OverQuota,
}

#[derive(Clone)]
pub struct Disputes {
    pool: PgPool,
}

/// One entry of a dispute's own log.
#[derive(sqlx::FromRow)]
struct DisputeEventRow {
    seq: i32,
    #[sqlx(rename = "type")]
    kind: String,
    payload: Value,
    actor: Uuid,
    recorded_at: time::OffsetDateTime,
}

impl Disputes {
    pub fn new(pool: PgPool) -> Self {
        Disputes { pool }
    }

    /// `by`'s open dispute on move `seq` of `game`, if any.
    pub async fn open_one(&self, game: GameId, seq: u64, by: UserId) -> Result<Option<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM disputes WHERE game_id = $1 AND seq = $2 AND opened_by = $3 \
             AND status = 'open'",
        )
        .bind(game.0)
        .bind(seq as i64)
        .bind(by.0)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// How many disputes `by` has open.
    pub async fn open_count(&self, by: UserId) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM disputes WHERE opened_by = $1 AND status = 'open'",
        )
        .bind(by.0)
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u64)
    }

    /// Opens a dispute; only [`public_audit`] of `audit` is stored. One per (game, move, filer)
    /// while it is open (a repeat is answered with the open one), and at most `quota` open per
    /// filer: both checked under the filer's row lock, so concurrent filings are counted too
    /// (and `disputes_one_open` would refuse a second one anyway).
    pub async fn open(
        &self,
        game: GameId,
        seq: u64,
        by: UserId,
        reason: &str,
        audit: &Value,
        quota: u32,
    ) -> Result<Opened> {
        let audit = &public_audit(audit);
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE")
            .bind(by.0)
            .execute(&mut *tx)
            .await?;
        let (existing, open): (Option<Uuid>, i64) = sqlx::query_as(
            "SELECT (SELECT id FROM disputes WHERE game_id = $1 AND seq = $2 AND opened_by = $3 \
                     AND status = 'open'), \
                    (SELECT count(*) FROM disputes WHERE opened_by = $3 AND status = 'open')",
        )
        .bind(game.0)
        .bind(seq as i64)
        .bind(by.0)
        .fetch_one(&mut *tx)
        .await?;
        if let Some(id) = existing {
            return Ok(Opened::Existing(id));
        }
        if open >= i64::from(quota) {
            return Ok(Opened::OverQuota);
        }
        let id = Uuid::now_v7();
        sqlx::query("INSERT INTO dispute_events (dispute_id, seq, type, payload, actor) VALUES ($1, 1, 'opened', $2, $3)")
            .bind(id)
            .bind(json!({"game_id": game, "seq": seq, "reason": reason, "audit": audit}))
            .bind(by.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO disputes (id, game_id, seq, opened_by, reason, status, audit) VALUES ($1,$2,$3,$4,$5,'open',$6)",
        )
        .bind(id)
        .bind(game.0)
        .bind(seq as i64)
        .bind(by.0)
        .bind(reason)
        .bind(audit)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Opened::New(id))
    }

    /// Resolves an open dispute; `outbox` (issue 18: `dispute_resolved`) is written in the
    /// same transaction.
    pub async fn resolve(
        &self,
        id: Uuid,
        by: UserId,
        upheld: bool,
        note: &str,
        outbox: &[crate::outbox::NewNotification],
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM disputes WHERE id = $1 FOR UPDATE")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        match status.as_deref() {
            None => return Err(StoreError::NotFound(says("errors.dispute_not_found"))),
            Some("open") => {}
            Some(_) => {
                return Err(StoreError::Conflict(says(
                    "errors.dispute_already_resolved",
                )));
            }
        }
        let verdict = if upheld { "upheld" } else { "rejected" };
        let seq: i32 = sqlx::query_scalar(
            "SELECT coalesce(max(seq), 0) + 1 FROM dispute_events WHERE dispute_id = $1",
        )
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO dispute_events (dispute_id, seq, type, payload, actor) VALUES ($1, $2, 'resolved', $3, $4)")
            .bind(id)
            .bind(seq)
            .bind(json!({"verdict": verdict, "note": note}))
            .bind(by.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE disputes SET status = $2, note = $3, resolved_by = $4, resolved_at = now() WHERE id = $1")
            .bind(id)
            .bind(verdict)
            .bind(note)
            .bind(by.0)
            .execute(&mut *tx)
            .await?;
        crate::outbox::enqueue(&mut tx, outbox).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn get(&self, id: Uuid) -> Result<Dispute> {
        let mut dispute: Dispute = sqlx::query_as(
            "SELECT id, game_id, seq, opened_by, reason, status, audit, note, resolved_by, created_at, resolved_at \
             FROM disputes WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(says("errors.dispute_not_found")))?;
        let history: Vec<DisputeEventRow> = sqlx::query_as("SELECT seq, type, payload, actor, recorded_at FROM dispute_events WHERE dispute_id = $1 ORDER BY seq")
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        dispute.audit = public_audit(&dispute.audit);
        dispute.history = history
            .into_iter()
            .map(|r| {
                let mut payload = r.payload;
                // Disputes opened before issue 11 stored the filer's whole audit: serve only
                // its public part.
                if let Some(audit) = payload.get_mut("audit") {
                    *audit = public_audit(audit);
                }
                json!({
                    "seq": r.seq,
                    "type": r.kind,
                    "payload": payload,
                    "actor": r.actor,
                    "recorded_at": r.recorded_at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
                })
            })
            .collect();
        Ok(dispute)
    }
}
