//! Reads a streaming replica may serve (issue 29): replays, exports, audits and event pages.
//! A replica at some LSN holds a prefix of every game's log, so it may answer a read of game
//! `id` that needs version `v` only when its head of that game is at least `v` (monotonic
//! reads: nobody is shown a version older than one they were shown). Otherwise — no replica,
//! replica behind, erring or slow — the primary answers: the replica never causes an error.

use crate::error::{Result, StoreError};
use crate::ids::GameId;
use crate::store::Store;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long the replica has to say its head (and to hand out a connection). A replica that
/// answers slower than this is treated as down for that read.
pub const HEAD_TIMEOUT: Duration = Duration::from_millis(500);
/// How long a whole read on the replica may take before the primary is asked instead.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// After the replica errs or times out, reads skip it this long: a replica that is down
/// costs one slow read per this, not one per read.
pub const REST: Duration = Duration::from_secs(5);

/// Why a read went where it went (the `reason` label of `homestretch_replica_reads_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The replica's head of the game was at least the version needed.
    Fresh,
    /// No replica configured.
    Unset,
    /// The replica's head was older than the version needed (or it lacks the game).
    Behind,
    /// The replica answered with an error.
    Error,
    /// The replica did not answer in time.
    Timeout,
    /// The replica erred or timed out less than [`REST`] ago: not asked.
    Down,
    /// The replica refused the read as the client's error (a move that does not exist…): the
    /// primary's answer is the one given, and the replica is not thought down for it.
    Refused,
}

impl Reason {
    pub const ALL: [Reason; 7] = [
        Reason::Fresh,
        Reason::Unset,
        Reason::Behind,
        Reason::Error,
        Reason::Timeout,
        Reason::Down,
        Reason::Refused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Fresh => "fresh",
            Reason::Unset => "unset",
            Reason::Behind => "behind",
            Reason::Error => "error",
            Reason::Timeout => "timeout",
            Reason::Down => "down",
            Reason::Refused => "refused",
        }
    }

    /// `replica` or `primary`: who served a read that went this way.
    pub fn source(self) -> &'static str {
        match self {
            Reason::Fresh => "replica",
            _ => "primary",
        }
    }
}

/// A small read-only pool on the replica at `url`, connected on first use (a replica that is
/// down at start is not an error: reads go to the primary until it answers).
pub fn replica_store(url: &str) -> std::result::Result<Store, sqlx::Error> {
    // Read-only sessions: a write sent here by mistake fails instead of diverging.
    let options =
        PgConnectOptions::from_str(url)?.options([("default_transaction_read_only", "on")]);
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .min_connections(0)
        .acquire_timeout(HEAD_TIMEOUT)
        .connect_lazy_with(options);
    Ok(Store::new(pool))
}

/// Where replica-eligible reads go: the primary, and the replica when one is configured.
pub struct ReadSource {
    primary: Store,
    replica: Option<Store>,
    counts: [AtomicU64; Reason::ALL.len()],
    /// When the replica last erred or timed out.
    failed_at: Mutex<Option<Instant>>,
}

impl ReadSource {
    pub fn new(primary: Store, replica: Option<Store>) -> ReadSource {
        ReadSource {
            primary,
            replica,
            counts: Default::default(),
            failed_at: Mutex::new(None),
        }
    }

    /// Reads served so far, by reason (see [`Reason::source`]).
    pub fn counts(&self) -> Vec<(Reason, u64)> {
        Reason::ALL
            .iter()
            .zip(&self.counts)
            .map(|(reason, count)| (*reason, count.load(Ordering::Relaxed)))
            .collect()
    }

    fn count(&self, reason: Reason) {
        self.counts[reason as usize].fetch_add(1, Ordering::Relaxed);
        if matches!(reason, Reason::Error | Reason::Timeout) {
            *self.failed_at.lock().expect("replica lock") = Some(Instant::now());
        }
    }

    fn resting(&self) -> bool {
        let failed_at = *self.failed_at.lock().expect("replica lock");
        failed_at.is_some_and(|at| at.elapsed() < REST)
    }

    /// `read` of game `id`, which needs the log up to version `need`: on the replica when its
    /// head of the game is at least `need` and it answers in time without error, otherwise on
    /// the primary (an error from the primary is the answer).
    /// Generic over the error so a caller's own error type (the application's) passes through.
    pub async fn read<T, E, F, Fut>(&self, id: GameId, need: u64, read: F) -> Result<T, E>
    where
        E: SourceTrouble + std::fmt::Display,
        F: Fn(Store) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let reason = match &self.replica {
            None => Reason::Unset,
            Some(_) if self.resting() => Reason::Down,
            Some(replica) => match tokio::time::timeout(HEAD_TIMEOUT, replica.head(id)).await {
                Err(_) => Reason::Timeout,
                Ok(Err(StoreError::NotFound(_))) => Reason::Behind,
                Ok(Err(error)) => failure(&error),
                Ok(Ok((head, _))) if head < need => Reason::Behind,
                Ok(Ok(_)) => {
                    match tokio::time::timeout(READ_TIMEOUT, read(replica.clone())).await {
                        Ok(Ok(answer)) => {
                            self.count(Reason::Fresh);
                            return Ok(answer);
                        }
                        Ok(Err(error)) => failure(&error),
                        Err(_) => Reason::Timeout,
                    }
                }
            },
        };
        self.count(reason);
        read(self.primary.clone()).await
    }
}

/// Why a replica's error sends the read to the primary: the replica's own trouble, or the
/// client's (then the primary's answer is given, and the replica is not thought down).
fn failure(error: &(impl SourceTrouble + std::fmt::Display)) -> Reason {
    if error.is_source_trouble() {
        tracing::warn!(%error, "a replica read failed: reading the primary");
        Reason::Error
    } else {
        Reason::Refused
    }
}

/// Whether an error is the database's own trouble (away, failing, a log that does not fold),
/// not the request's.
pub trait SourceTrouble {
    fn is_source_trouble(&self) -> bool;
}

impl SourceTrouble for StoreError {
    fn is_source_trouble(&self) -> bool {
        matches!(
            self,
            StoreError::Unavailable(_) | StoreError::Database(_) | StoreError::Corrupt(_)
        )
    }
}
