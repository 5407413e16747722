//! Leased claims of background work (issues 17, 18, 26): several instances take due rows at
//! once, each row by one of them (`FOR UPDATE SKIP LOCKED`), for a lease after which a crashed
//! instance's rows come due again. The claims of the deadlines (`deadlines.rs`) and of the
//! outbox (`outbox.rs`) are run here, so both bind their limit and lease the same way.

use crate::error::Result;
use sqlx::PgPool;
use sqlx::postgres::PgRow;
use std::time::Duration;

/// A duration as whole milliseconds for SQL (`$n * interval '1 millisecond'`), saturating.
pub fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Runs a claim statement: `$1` is how many rows at most, `$2` the lease in milliseconds; the
/// statement picks its due rows `FOR UPDATE SKIP LOCKED`, leases them, and returns them.
pub async fn claim(
    pool: &PgPool,
    sql: &'static str,
    limit: u32,
    lease: Duration,
) -> Result<Vec<PgRow>> {
    Ok(sqlx::query(sql)
        .bind(i64::from(limit))
        .bind(millis(lease))
        .fetch_all(pool)
        .await?)
}
