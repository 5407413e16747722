//! Live event streams: one LISTEN connection per server instance wakes the streams of every
//! game on `pg_notify`, so streams work with several instances on one database.

use crate::limits::{Counts, IpKey, LimitsConfig, Refusal};
use infra::GameId;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::broadcast;

pub const CHANNEL: &str = "homestretch_events";

/// Open streams are counted per user, per IP and in total (issue 11, item 4): a stream holds a
/// connection and a file descriptor for as long as the client likes.
#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<GameId, broadcast::Sender<u64>>>,
    per_user: Counts<infra::UserId>,
    per_ip: Counts<IpKey>,
    /// Each user's notification feed (issue 18): woken on `infra::outbox::CHANNEL`.
    feeds: Mutex<HashMap<infra::UserId, broadcast::Sender<()>>>,
    /// Wakes this instance's delivery worker when any instance commits a notification.
    pub outbox_wake: std::sync::Arc<tokio::sync::Notify>,
    /// The games' live fan-outs (issue 31), each fed by its game's channel here.
    pub game_feeds: crate::adapters::game_feed::GameFeeds,
}

/// Held by an open stream; releases its slots when dropped.
pub struct StreamSlot {
    hub: std::sync::Arc<Hub>,
    user: infra::UserId,
    ip: IpKey,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.hub.per_user.release(&self.user);
        self.hub.per_ip.release(&self.ip);
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

    pub fn subscribe_feed(&self, user: infra::UserId) -> broadcast::Receiver<()> {
        let mut feeds = self.feeds.lock().expect("hub lock");
        feeds
            .entry(user)
            .or_insert_with(|| broadcast::channel(16).0)
            .subscribe()
    }

    fn notify_feed(&self, user: infra::UserId) {
        let mut feeds = self.feeds.lock().expect("hub lock");
        if let Some(sender) = feeds.get(&user) {
            if sender.receiver_count() == 0 {
                feeds.remove(&user);
            } else {
                let _ = sender.send(());
            }
        }
    }

    pub fn clients(&self) -> usize {
        self.per_ip.total()
    }

    /// Reserves a stream slot for `user` at `ip`: a user or an IP over its cap is a 429, the
    /// server at its total a 503 (`STREAMS_PER_USER`, `STREAMS_PER_IP`, `STREAMS_TOTAL`).
    pub fn open(
        self: &std::sync::Arc<Self>,
        user: infra::UserId,
        ip: IpKey,
        limits: &LimitsConfig,
    ) -> Result<StreamSlot, Refusal> {
        self.per_ip
            .acquire(&ip, limits.streams_per_ip, limits.streams_total)?;
        if let Err(refusal) = self.per_user.acquire(&user, limits.streams_per_user, None) {
            self.per_ip.release(&ip);
            return Err(refusal);
        }
        Ok(StreamSlot {
            hub: self.clone(),
            user,
            ip,
        })
    }

    /// Forwards notifications to local streams for ever, reconnecting after database outages.
    /// Also hears session revocations from every instance (`REVOKED_CHANNEL`).
    pub async fn listen(
        self: std::sync::Arc<Self>,
        pool: PgPool,
        games: std::sync::Arc<dyn crate::application::Heads>,
        sessions: std::sync::Arc<crate::auth::Sessions>,
    ) {
        use infra::accounts::REVOKED_CHANNEL;
        // Revocations come from the database too, not only from notifications (issue 26).
        tokio::spawn(
            sessions
                .clone()
                .poll_revocations(infra::accounts::Accounts::new(pool.clone())),
        );
        loop {
            match sqlx::postgres::PgListener::connect_with(&pool).await {
                Ok(mut listener) => {
                    if listener
                        .listen_all([CHANNEL, REVOKED_CHANNEL, infra::outbox::CHANNEL])
                        .await
                        .is_ok()
                    {
                        games.set_listening(true);
                        // Revocations sent while we were not listening are unknown: ask again.
                        sessions.forget_all();
                        // `try_recv` reports a lost connection (`Ok(None)`) instead of silently
                        // reconnecting: notifications sent meanwhile are lost, and we must know.
                        while let Ok(Some(notification)) = listener.try_recv().await {
                            if notification.channel() == REVOKED_CHANNEL {
                                if let Ok(family) = notification.payload().parse() {
                                    sessions.remember(family, true);
                                }
                            } else if notification.channel() == infra::outbox::CHANNEL {
                                if let Ok(user) = notification.payload().parse() {
                                    self.notify_feed(user);
                                }
                                self.outbox_wake.notify_one();
                            } else if let Some((game, version)) =
                                notification.payload().split_once(':')
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
            // Feeds re-read too, and the worker looks for rows it was not woken for.
            let users: Vec<infra::UserId> = self
                .feeds
                .lock()
                .expect("hub lock")
                .keys()
                .copied()
                .collect();
            for user in users {
                self.notify_feed(user);
            }
            self.outbox_wake.notify_one();
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
