//! Group commit across games (issue 31): appends that arrive while a batch is in flight are
//! sent together as one statement, `append_batch2` (migration 0012), in one transaction, so one
//! WAL flush acknowledges them all. The statement is set-based: one statement per table for the
//! whole batch, not a loop of per-item calls.
//!
//! Each item keeps its own version check, idempotency check and answer (items of one game are
//! taken in arrival order: two appends of one game in a batch behave as if sent one after the
//! other). Expected outcomes (`duplicate`, `mismatch`, `conflict`,
//! `not_found`) are answers, not errors, so they never touch the other items; an unexpected
//! error of the batch statement (a constraint a forged item breaks, a deadlock with another
//! instance's batch) rolls the batch back and each item is then sent alone, so it fails only
//! its own caller. A lone append is never delayed: the worker takes whatever waits as soon as
//! the previous batch is done, and with nothing in flight that is the one append, sent as
//! `append_command2` with bound arguments (a batch of one costs more: its statements are
//! planned on every call).
//!
//! `HOMESTRETCH_GROUP_COMMIT=off` sends every append alone (for comparison).

use crate::append::{AppendResult, Args, Batch};
use crate::error::{Result, StoreError};
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use tokio::sync::{mpsc, oneshot};

/// At most this many appends per batch: a batch holds its games' row locks until it commits.
pub const MAX_BATCH: usize = 64;

/// The setting that switches group commit off (`off`); anything else, or unset, leaves it on.
pub const SETTING: &str = "HOMESTRETCH_GROUP_COMMIT";

struct Job {
    args: Args,
    answer: oneshot::Sender<Result<AppendResult>>,
}

/// One store's queue of appends and its worker (started with the store, or on its first append,
/// on that runtime; it ends when the store and its clones are gone).
#[derive(Default)]
pub struct GroupCommit {
    queue: OnceLock<mpsc::UnboundedSender<Job>>,
    /// Guards the worker's start (two first appends at once start one worker).
    start: Mutex<()>,
    /// Appends sent and not answered yet (their callers still wait).
    in_flight: AtomicUsize,
}

/// One append counted in flight until its caller has the answer or stopped waiting.
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    fn count(in_flight: &'a AtomicUsize) -> Self {
        in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(in_flight)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl GroupCommit {
    /// On unless `HOMESTRETCH_GROUP_COMMIT=off` (read once, when the store is made).
    pub fn from_env() -> Option<GroupCommit> {
        enabled(std::env::var(SETTING).ok().as_deref()).then(GroupCommit::default)
    }

    /// Appends sent to the worker and not answered yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }

    pub(crate) async fn append(&self, pool: &PgPool, args: Args) -> Result<AppendResult> {
        let _counted = InFlight::count(&self.in_flight);
        let (answer, answered) = oneshot::channel();
        if let Err(mpsc::error::SendError(job)) = self.queue(pool).send(Job { args, answer }) {
            // The worker's runtime is gone (a store outliving its runtime): send it alone.
            return job.args.run(pool).await;
        }
        answered.await.unwrap_or_else(|_| {
            Err(StoreError::Unavailable(
                "the group commit worker stopped before answering".into(),
            ))
        })
    }

    /// Starts the worker now when there is a runtime (the server makes its store on its main
    /// runtime, which is otherwise idle: the worker does not share an HTTP worker's thread).
    pub(crate) fn start(&self, pool: &PgPool) {
        if tokio::runtime::Handle::try_current().is_ok() {
            self.queue(pool);
        }
    }

    fn queue(&self, pool: &PgPool) -> &mpsc::UnboundedSender<Job> {
        if let Some(queue) = self.queue.get() {
            return queue;
        }
        let _start = self.start.lock().unwrap_or_else(|e| e.into_inner());
        self.queue.get_or_init(|| {
            let (queue, jobs) = mpsc::unbounded_channel();
            tokio::spawn(work(pool.clone(), jobs));
            queue
        })
    }
}

/// Whether the setting's value leaves group commit on: anything but `off` (any case).
pub fn enabled(setting: Option<&str>) -> bool {
    !setting.is_some_and(|v| v.trim().eq_ignore_ascii_case("off"))
}

/// The worker: takes what waits (at most [`MAX_BATCH`]), commits it, answers, again.
async fn work(pool: PgPool, mut jobs: mpsc::UnboundedReceiver<Job>) {
    let mut writer = Writer { pool, conn: None };
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // By game (stable: one game's appends keep their order), so two instances' batches
        // lock game rows in one order.
        batch.sort_by_key(|j| j.args.game);
        if let [job] = &mut batch[..] {
            let result = writer.append(&job.args).await;
            answer_job(batch.pop(), result);
            continue;
        }
        let args: Vec<&Args> = batch.iter().map(|j| &j.args).collect();
        match writer.commit(&args).await {
            Ok(results) => {
                for (job, result) in batch.drain(..).zip(results) {
                    answer_job(Some(job), result);
                }
            }
            Err(error) => {
                // Nothing of the batch committed: each item alone, at once and side by side,
                // fails or waits only for its own caller; the next batch does not wait for them.
                tracing::warn!(
                    items = batch.len(),
                    %error,
                    "group commit: the batch failed, each append is sent alone"
                );
                for job in batch.drain(..) {
                    let pool = writer.pool.clone();
                    tokio::spawn(async move {
                        let result = job.args.run(&pool).await;
                        answer_job(Some(job), result);
                    });
                }
            }
        }
    }
}

/// The worker's own connection, kept from one append to the next: at one game's pace every
/// append goes to the same warm backend, with no pool acquire (and its ping) in between
/// (issue 31). A connection that broke is given up and another taken for the next append.
struct Writer {
    pool: PgPool,
    conn: Option<PoolConnection<Postgres>>,
}

impl Writer {
    /// `args` alone, on the kept connection; once more on a fresh one when the kept one failed
    /// (it may have died while idle: PostgreSQL restarted). The repeat is safe: if the first
    /// try did commit, the command's record answers it as a duplicate.
    async fn append(&mut self, args: &Args) -> Result<AppendResult> {
        let kept = self.conn.is_some();
        let result = self.run(args).await;
        if kept && matches!(result, Err(StoreError::Unavailable(_))) {
            return self.run(args).await;
        }
        result
    }

    async fn run(&mut self, args: &Args) -> Result<AppendResult> {
        let result = match self.conn().await {
            Ok(conn) => args.run(conn).await,
            Err(error) => Err(error.into()),
        };
        self.keep_if_ok(&result);
        result
    }

    /// `items` (two or more) as one `append_batch2` statement (migration 0012) on the kept
    /// connection: each item's own answer, or the statement's error (nothing of it committed).
    async fn commit(
        &mut self,
        items: &[&Args],
    ) -> std::result::Result<Vec<Result<AppendResult>>, sqlx::Error> {
        let sent = match self.conn().await {
            Ok(conn) => Batch::of(items).send(conn).await,
            Err(error) => Err(error),
        };
        self.keep_if_ok(&sent);
        sent
    }

    async fn conn(&mut self) -> std::result::Result<&mut PgConnection, sqlx::Error> {
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => self.pool.acquire().await?,
        };
        Ok(&mut **self.conn.insert(conn))
    }

    /// Gives the connection up after any error (rare; the next append takes another), so a
    /// connection that broke is never kept.
    fn keep_if_ok<T, E>(&mut self, result: &std::result::Result<T, E>) {
        if result.is_err() {
            self.conn = None;
        }
    }
}

fn answer_job(job: Option<Job>, result: Result<AppendResult>) {
    // A caller that stopped waiting (its request was dropped) needs no answer.
    if let Some(job) = job {
        let _ = job.answer.send(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_counts_in_flight_until_its_caller_stops_waiting() {
        let group = GroupCommit::default();
        assert_eq!(group.in_flight(), 0);
        let counted = InFlight::count(&group.in_flight);
        assert_eq!(group.in_flight(), 1);
        drop(counted);
        assert_eq!(group.in_flight(), 0);
    }

    #[test]
    fn only_off_switches_group_commit_off() {
        assert!(enabled(None));
        assert!(enabled(Some("on")));
        assert!(!enabled(Some("off")));
        assert!(!enabled(Some(" OFF ")));
    }
}
