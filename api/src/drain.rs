//! Graceful drain on SIGTERM (issue 29): what a stateless instance behind a load balancer owes
//! the cluster when it is asked to stop. At once `/readyz` answers 503 (the balancer takes the
//! instance out after its failed checks), answers carry `Connection: close` (nobody keeps a
//! connection to it), event streams end (clients resume with `Last-Event-ID` on another
//! instance) and the background workers stop at their next wait (a deadline or a delivery
//! being handled is finished, so no lease is left to expire). Requests still arriving are
//! served for the drain period; then the server stops accepting, finishes what is in flight
//! and the process exits 0.

use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Default drain period (`HOMESTRETCH_DRAIN_S`): HAProxy with `inter 500ms fall 2` takes an
/// instance out within about a second; a few more cover slower balancers.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(5);

/// The instance's draining flag and its background workers.
pub struct Drain {
    draining: watch::Sender<bool>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl Default for Drain {
    fn default() -> Self {
        Drain {
            draining: watch::Sender::new(false),
            workers: Mutex::new(Vec::new()),
        }
    }
}

impl Drain {
    /// Starts draining (idempotent).
    pub fn start(&self) {
        self.draining.send_replace(true);
    }

    pub fn is_draining(&self) -> bool {
        *self.draining.borrow()
    }

    /// Resolves once draining has started.
    pub fn started(&self) -> impl std::future::Future<Output = ()> + 'static {
        let mut flag = self.draining.subscribe();
        async move {
            // An error means the sender is gone: the instance is going away anyway.
            let _ = flag.wait_for(|draining| *draining).await;
        }
    }

    /// A background worker, joined by [`Drain::workers_stopped`].
    pub fn track(&self, worker: JoinHandle<()>) {
        self.workers.lock().expect("drain lock").push(worker);
    }

    /// Waits (at most `limit`) for every tracked worker to return; true if they all did.
    pub async fn workers_stopped(&self, limit: Duration) -> bool {
        let workers = std::mem::take(&mut *self.workers.lock().expect("drain lock"));
        tokio::time::timeout(limit, futures_util::future::join_all(workers))
            .await
            .is_ok()
    }
}
