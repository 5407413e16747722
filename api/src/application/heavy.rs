//! Heavy work (issue 26, item 2). Audits, exports, move audits and replays re-read or re-run a
//! whole game: done on a request worker, a few of them stalled every other request. Here they
//! run on a few threads of their own at a lower priority (fewer than the cores: heavy work never
//! takes every core, and a request worker never waits on it), at most twice as many load their
//! game at once, and each answer is kept under what it depends on — the game, its version, the
//! log's mark ([`Store::log_mark`]), its seats and the viewer — so a finished game is audited
//! once, and concurrent requests for the same answer wait for one computation. How many heavy
//! requests one caller may have in flight is the request gate's (`crate::limits::is_heavy`).

use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::move_audit::MoveAudit;
use domain::Viewer;
use infra::ids::GameId;
use infra::store::GameRow;
use infra::store::SeatRow;
use infra::store::Store;
use serde_json::Value;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, mpsc};

/// What a kept answer depends on.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// The audit of a game's log (it depends on no viewer).
    Audit(Record),
    /// The export of a game's log for a viewer.
    Export(Record, Viewer),
    /// The audit of the move that produced event `seq`, for a viewer.
    Move(Record, u64, Viewer),
    /// The view at a version (a pure fold of the log up to it).
    View(GameId, u64, Viewer),
}

/// A game's record as of one read: its row's version, status and head, the log's mark, and
/// its seats (a guest who registers renames its seat without a new event).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct Record {
    game: GameId,
    version: u64,
    status: &'static str,
    head_hash: String,
    log: String,
    seats: u64,
}

impl Record {
    pub(super) fn new(row: &GameRow, seats: &[SeatRow], log: String) -> Record {
        let mut digest = std::collections::hash_map::DefaultHasher::new();
        for s in seats {
            (s.seat, s.user_id.0, &s.user_name, &s.client_seed, &s.bot).hash(&mut digest);
        }
        Record {
            game: row.id,
            version: row.version,
            status: row.status.as_str(),
            head_hash: row.head_hash.clone(),
            log,
            seats: digest.finish(),
        }
    }
}

/// A game's row and seats, and its record: what a bundle is built from, and what an answer
/// computed from it is kept under. Read from `store` (the primary or a fresh replica).
pub(super) async fn record(store: &Store, id: GameId) -> Result<(GameRow, Vec<SeatRow>, Record)> {
    let row = store.game(id).await?;
    let seats = store.seats(id).await?;
    let log = store.log_mark(id).await?;
    let record = Record::new(&row, &seats, log);
    Ok((row, seats, record))
}

/// A kept answer: JSON ready to send (audits, exports), a move audit, or a view.
#[derive(Clone)]
pub(super) enum Answer {
    Json(bytes::Bytes),
    Move(Arc<MoveAudit>),
    View(Arc<Value>),
}

impl Answer {
    pub(super) fn json(self) -> Result<bytes::Bytes> {
        match self {
            Answer::Json(json) => Ok(json),
            _ => Err(other_kind()),
        }
    }

    pub(super) fn move_audit(self) -> Result<Arc<MoveAudit>> {
        match self {
            Answer::Move(audit) => Ok(audit),
            _ => Err(other_kind()),
        }
    }

    pub(super) fn view(self) -> Result<Arc<Value>> {
        match self {
            Answer::View(view) => Ok(view),
            _ => Err(other_kind()),
        }
    }
}

fn other_kind() -> AppError {
    AppError::Internal("a kept answer of another kind".into())
}

/// A heavy answer as JSON, and whether it was served from the cache (the route says so in
/// `Cache-Status`).
pub struct Served {
    pub json: bytes::Bytes,
    pub kept: bool,
}

/// An answer and its size, the cache's weight.
#[derive(Clone)]
pub(super) struct Kept {
    pub(super) answer: Answer,
    bytes: u64,
}

impl Kept {
    pub(super) fn json(json: Vec<u8>) -> Kept {
        Kept {
            bytes: json.len() as u64,
            answer: Answer::Json(json.into()),
        }
    }

    pub(super) fn weighed(answer: Answer, bytes: usize) -> Kept {
        Kept {
            answer,
            bytes: bytes as u64,
        }
    }
}

#[derive(Clone)]
struct ByBytes;

impl quick_cache::Weighter<Key, Kept> for ByBytes {
    fn weight(&self, _: &Key, kept: &Kept) -> u64 {
        kept.bytes.max(1)
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The heavy work of one server: its threads (started on first use), the gate on loads, the
/// kept answers and their counts.
pub struct Heavy {
    threads: usize,
    jobs: OnceLock<Mutex<mpsc::Sender<Job>>>,
    loading: tokio::sync::Semaphore,
    cache: quick_cache::sync::Cache<Key, Kept, ByBytes>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Heavy {
    pub(super) fn new(threads: usize, cache_mb: Option<usize>) -> Heavy {
        let threads = threads.max(1);
        let bytes = cache_mb.map_or(0, |mb| (mb as u64) << 20);
        Heavy {
            threads,
            jobs: OnceLock::new(),
            loading: tokio::sync::Semaphore::new(2 * threads),
            // A few dozen answers of a few MB at most: one shard holds them all.
            cache: quick_cache::sync::Cache::with_weighter(32, bytes, ByBytes),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Answers served from the cache, and computed.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    fn sender(&self) -> mpsc::Sender<Job> {
        let jobs = self.jobs.get_or_init(|| {
            let (sender, receiver) = mpsc::channel::<Job>();
            let receiver = Arc::new(Mutex::new(receiver));
            for n in 0..self.threads {
                let receiver = receiver.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("heavy-{n}"))
                    .spawn(move || {
                        // Below the request workers: a request never waits for a heavy job to
                        // give up the core (Linux: the nice value of this thread alone).
                        // SAFETY: setpriority on the calling thread only reads its arguments.
                        unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 10) };
                        loop {
                            let job = receiver.lock().expect("heavy queue").recv();
                            match job {
                                Ok(job) => job(),
                                Err(_) => break, // the server is gone
                            }
                        }
                    });
                if let Err(error) = spawned {
                    tracing::error!(%error, "a heavy-work thread did not start");
                }
            }
            Mutex::new(sender)
        });
        jobs.lock().expect("heavy sender").clone()
    }

    /// Runs `work` on a heavy thread (a panic is an internal error, as in [`guarded`]). Work
    /// whose request went away before its turn is skipped.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tell, told) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            if !tell.is_closed() {
                let _ = tell.send(guarded(work).and_then(|r| r));
            }
        });
        self.sender()
            .send(job)
            .map_err(|_| AppError::Unavailable("heavy work stopped".into()))?;
        told.await
            .map_err(|_| AppError::Internal("a heavy job was lost".into()))?
    }

    /// The answer kept under `key`, or `make`'s (then kept): `(answer, true when kept)`.
    /// Requests for an answer being made wait for it; at most twice the threads make answers
    /// at once (loading their game included).
    pub(super) async fn answer(
        &self,
        key: Key,
        make: impl Future<Output = Result<Kept>>,
    ) -> Result<(Answer, bool)> {
        let guard = match self.cache.get_value_or_guard_async(&key).await {
            Ok(kept) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Ok((kept.answer, true));
            }
            Err(guard) => guard,
        };
        let _loading = self
            .loading
            .acquire()
            .await
            .map_err(|_| AppError::Unavailable("heavy work stopped".into()))?;
        self.misses.fetch_add(1, Ordering::Relaxed);
        let kept = make.await?;
        let _ = guard.insert(kept.clone());
        Ok((kept.answer, false))
    }
}
