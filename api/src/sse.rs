//! Live event streams: one LISTEN connection per server instance wakes the streams of every
//! game on `pg_notify`, so streams work with several instances on one database.

use infra::GameId;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::broadcast;

pub const CHANNEL: &str = "homestretch_events";

#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<GameId, broadcast::Sender<u64>>>,
    clients: AtomicUsize,
    per_user: Mutex<HashMap<infra::UserId, usize>>,
}

/// Held by an open stream; releases its slot when dropped.
pub struct StreamSlot {
    hub: std::sync::Arc<Hub>,
    user: infra::UserId,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.hub.clients.fetch_sub(1, Ordering::Relaxed);
        let mut per_user = self.hub.per_user.lock().expect("hub lock");
        if let Some(n) = per_user.get_mut(&self.user) {
            *n -= 1;
            if *n == 0 {
                per_user.remove(&self.user);
            }
        }
    }
}

impl Hub {
    pub fn subscribe(&self, game: GameId) -> broadcast::Receiver<u64> {
        let mut channels = self.channels.lock().expect("hub lock");
        channels
            .entry(game)
            .or_insert_with(|| broadcast::channel(64).0)
            .subscribe()
    }

    pub fn notify(&self, game: GameId, version: u64) {
        let mut channels = self.channels.lock().expect("hub lock");
        if let Some(sender) = channels.get(&game) {
            if sender.receiver_count() == 0 {
                channels.remove(&game);
            } else {
                let _ = sender.send(version);
            }
        }
    }

    pub fn clients(&self) -> usize {
        self.clients.load(Ordering::Relaxed)
    }

    /// Reserves a stream slot for `user`, at most `max` at once.
    pub fn open(
        self: &std::sync::Arc<Self>,
        user: infra::UserId,
        max: usize,
    ) -> Option<StreamSlot> {
        let mut per_user = self.per_user.lock().expect("hub lock");
        let n = per_user.entry(user).or_default();
        if *n >= max {
            return None;
        }
        *n += 1;
        self.clients.fetch_add(1, Ordering::Relaxed);
        Some(StreamSlot {
            hub: self.clone(),
            user,
        })
    }

    /// Forwards notifications to local streams for ever, reconnecting after database outages.
    pub async fn listen(
        self: std::sync::Arc<Self>,
        pool: PgPool,
        games: std::sync::Arc<infra::games::GameService>,
    ) {
        loop {
            match sqlx::postgres::PgListener::connect_with(&pool).await {
                Ok(mut listener) => {
                    if listener.listen(CHANNEL).await.is_ok() {
                        games.set_listening(true);
                        // `try_recv` reports a lost connection (`Ok(None)`) instead of silently
                        // reconnecting: notifications sent meanwhile are lost, and we must know.
                        while let Ok(Some(notification)) = listener.try_recv().await {
                            if let Some((game, version)) = notification.payload().split_once(':')
                                && let (Ok(game), Ok(version)) =
                                    (game.parse::<GameId>(), version.parse::<u64>())
                            {
                                games.heard(game, version);
                                self.notify(game, version);
                            }
                        }
                    }
                    games.set_listening(false);
                }
                Err(error) => tracing::warn!(%error, "event listener cannot connect; retrying"),
            }
            // Streams re-read the log on wake-up, so a missed notification only delays them.
            let games: Vec<GameId> = self
                .channels
                .lock()
                .expect("hub lock")
                .keys()
                .copied()
                .collect();
            for game in games {
                self.notify(game, 0);
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
