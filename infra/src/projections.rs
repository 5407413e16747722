//! Rebuilding projections from the log. The inline head projection (`games.version`,
//! `head_hash`, `status`, `outcome`) must equal what a fold of the events gives.

use crate::error::{Result, StoreError};
use crate::hash::GENESIS;
use crate::ids::GameId;
use crate::store::{GameStatus, Store, replay};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct HeadProjection {
    pub version: u64,
    pub head_hash: String,
    pub status: GameStatus,
    pub outcome: Option<Value>,
}

/// The head projection of one game of `registry`, computed from its events alone.
pub async fn fold_head(
    store: &Store,
    registry: &domain::Registry,
    id: GameId,
) -> Result<HeadProjection> {
    let row = store.game(id).await?;
    let game = registry
        .get(&row.kind)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown kind {}", row.kind)))?;
    let mut state = game.new_state();
    let mut head = HeadProjection {
        version: 0,
        head_hash: GENESIS.into(),
        status: GameStatus::Lobby,
        outcome: None,
    };
    loop {
        let batch = store.events(id, head.version, None, 5000).await?;
        if batch.is_empty() {
            break;
        }
        replay(state.as_mut(), &batch)?;
        let last = batch.last().expect("a non-empty batch");
        head.version = last.seq;
        head.head_hash = last.hash.clone();
    }
    if head.version > 0 {
        head.status = GameStatus::Active;
    } else if matches!(row.status, GameStatus::Cancelled | GameStatus::Expired) {
        // A lobby has no log: its cancellation or expiry (issue 17) is the row's alone.
        head.status = row.status;
    }
    if let Some(outcome) = state.outcome() {
        head.status = GameStatus::Finished;
        head.outcome = Some(serde_json::to_value(outcome).expect("outcome serializes"));
    }
    Ok(head)
}

/// The head projection as stored inline.
pub async fn stored_head(store: &Store, id: GameId) -> Result<HeadProjection> {
    let row = store.game(id).await?;
    Ok(HeadProjection {
        version: row.version,
        head_hash: row.head_hash,
        status: row.status,
        outcome: row.outcome,
    })
}

#[derive(Debug, Default)]
pub struct RebuildReport {
    pub games: usize,
    /// Games whose stored projection differed from the fold (and were rewritten).
    pub rewritten: Vec<GameId>,
}

/// Recomputes every game's head projection from its events and rewrites rows that differ.
pub async fn rebuild_all(store: &Store, registry: &domain::Registry) -> Result<RebuildReport> {
    let ids: Vec<GameId> = sqlx::query_scalar("SELECT id FROM games ORDER BY created_at")
        .fetch_all(&store.pool)
        .await?;
    let mut report = RebuildReport::default();
    for id in ids {
        report.games += 1;
        let folded = fold_head(store, registry, id).await?;
        if folded != stored_head(store, id).await? {
            sqlx::query("UPDATE games SET version = $2, head_hash = $3, status = $4, outcome = $5, updated_at = now() WHERE id = $1")
                .bind(id.0)
                .bind(folded.version as i64)
                .bind(&folded.head_hash)
                .bind(folded.status.as_str())
                .bind(&folded.outcome)
                .execute(&store.pool)
                .await?;
            report.rewritten.push(id);
        }
    }
    Ok(report)
}
