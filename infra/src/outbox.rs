//! The notification outbox (issue 18): notifications are written in the same transaction as
//! the events that cause them ([`enqueue`]), then delivered at least once by any instance
//! ([`Outbox::claim`] with `FOR UPDATE SKIP LOCKED`, retried with backoff). What a
//! notification says and who gets it is decided by `api::application::notify`; this module
//! only stores and hands out rows.

use crate::error::{Result, StoreError};
use crate::ids::{GameId, UserId};
use serde_json::Value;
use sqlx::{PgConnection, PgPool, Row};
use std::time::Duration;
use uuid::Uuid;

/// `pg_notify` channel: the payload is the recipient's user id (wakes the app streams and the
/// delivery workers of every instance).
pub const CHANNEL: &str = "homestretch_notifications";

/// A notification to write: `payload` is the exact JSON delivered (it carries `id`).
#[derive(Clone, Debug, PartialEq)]
pub struct NewNotification {
    pub id: Uuid,
    pub user: UserId,
    pub game: Option<GameId>,
    pub kind: String,
    pub payload: Value,
}

/// Writes `notes` inside the caller's transaction `tx`: each becomes the next entry of its
/// recipient's feed and one outbox row per registered webhook and push subscription. Nothing is
/// visible (nor delivered) unless the caller commits.
///
/// This is the one way to enqueue a notification: any use case that must notify (a command's
/// append, a seat taken, a dispute resolved, an invitation to a rematch) calls it with its own
/// transaction, so the notification commits or rolls back with the fact that causes it.
pub async fn enqueue(tx: &mut PgConnection, notes: &[NewNotification]) -> Result<()> {
    if notes.is_empty() {
        return Ok(());
    }
    // Lock the recipients' feed heads in one order (user id) so two transactions notifying the
    // same users cannot deadlock; the order within one recipient is kept (stable sort).
    let mut sorted: Vec<&NewNotification> = notes.iter().collect();
    sorted.sort_by_key(|n| n.user);
    // Each recipient reads it in their stored language (English without one): the texts come
    // from the message catalogue, filled from the payload's own fields.
    let recipients: Vec<Uuid> = sorted.iter().map(|n| n.user.0).collect();
    let languages: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, language FROM users WHERE id = ANY($1) AND language IS NOT NULL",
    )
    .bind(&recipients)
    .fetch_all(&mut *tx)
    .await?;
    for note in &sorted {
        let language = languages
            .iter()
            .find(|(user, _)| *user == note.user.0)
            .and_then(|(_, tag)| domain::i18n::Lang::from_tag(tag));
        let mut payload = note.payload.clone();
        if let Some(language) = language {
            domain::i18n::tell_notification(&mut payload, language);
        }
        sqlx::query(
            "WITH head AS (
                 INSERT INTO notification_heads (user_id, seq) VALUES ($1, 1)
                 ON CONFLICT (user_id) DO UPDATE SET seq = notification_heads.seq + 1
                 RETURNING seq),
             n AS (
                 INSERT INTO notifications (id, user_id, seq, game_id, type, payload)
                 SELECT $2, $1, head.seq, $3, $4, $5 FROM head RETURNING id)
             INSERT INTO outbox (notification_id, webhook_id, push_id)
             SELECT n.id, w.id, NULL FROM n, webhooks w WHERE w.user_id = $1
             UNION ALL
             SELECT n.id, NULL, p.id FROM n, push_subscriptions p WHERE p.user_id = $1",
        )
        .bind(note.user.0)
        .bind(note.id)
        .bind(note.game.map(|g| g.0))
        .bind(&note.kind)
        .bind(&payload)
        .execute(&mut *tx)
        .await?;
    }
    let mut users: Vec<Uuid> = sorted.iter().map(|n| n.user.0).collect();
    users.dedup();
    sqlx::query("SELECT pg_notify($1, u::text) FROM unnest($2::uuid[]) AS u")
        .bind(CHANNEL)
        .bind(&users)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// A registered webhook (the secret is never read back out).
#[derive(Clone, Debug, PartialEq)]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    pub created_at: time::OffsetDateTime,
}

/// A registered Web Push subscription.
#[derive(Clone, Debug, PartialEq)]
pub struct PushSubscription {
    pub id: Uuid,
    pub endpoint: String,
    pub created_at: time::OffsetDateTime,
}

/// Where a claimed delivery goes.
#[derive(Clone, Debug)]
pub enum Target {
    Webhook {
        id: Uuid,
        url: String,
        secret: String,
    },
    Push {
        id: Uuid,
        endpoint: String,
        p256dh: String,
        auth: String,
    },
}

/// One delivery claimed by this instance (leased until it reports back).
#[derive(Clone, Debug)]
pub struct Due {
    pub outbox_id: i64,
    /// Attempts so far, this one included.
    pub attempts: u32,
    pub notification: Uuid,
    pub user: UserId,
    pub payload: Value,
    pub target: Target,
}

/// One entry of a user's feed (the app stream, the resync after a long sleep).
#[derive(Clone, Debug)]
pub struct FeedEntry {
    pub seq: u64,
    pub kind: String,
    pub payload: Value,
}

#[derive(Clone)]
pub struct Outbox {
    pool: PgPool,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Outbox {
    pub fn new(pool: PgPool) -> Self {
        Outbox { pool }
    }

    /// Claims up to `limit` due deliveries, leasing each for `lease` (it comes due again if
    /// this instance dies before reporting). A destination's deliveries go out in order: a row
    /// is claimed only when no older row for the same destination is still pending.
    pub async fn claim(&self, limit: u32, lease: Duration) -> Result<Vec<Due>> {
        let rows = sqlx::query(
            "WITH due AS (
                 SELECT o.id FROM outbox o
                  WHERE o.due_at <= now()
                    AND NOT EXISTS (
                        SELECT 1 FROM outbox p WHERE p.id < o.id
                           AND (p.webhook_id = o.webhook_id OR p.push_id = o.push_id))
                  ORDER BY o.id LIMIT $1
                  FOR UPDATE SKIP LOCKED),
             claimed AS (
                 UPDATE outbox o SET due_at = now() + $2 * interval '1 millisecond',
                                     attempts = o.attempts + 1
                   FROM due WHERE o.id = due.id
                 RETURNING o.id, o.attempts, o.notification_id, o.webhook_id, o.push_id)
             SELECT c.id, c.attempts, n.id AS notification, n.user_id, n.payload,
                    w.id AS webhook, w.url, w.secret,
                    s.id AS push, s.endpoint, s.p256dh, s.auth
               FROM claimed c JOIN notifications n ON n.id = c.notification_id
               LEFT JOIN webhooks w ON w.id = c.webhook_id
               LEFT JOIN push_subscriptions s ON s.id = c.push_id
              ORDER BY c.id",
        )
        .bind(i64::from(limit))
        .bind(millis(lease))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let target = match (
                    r.try_get::<Option<Uuid>, _>("webhook")?,
                    r.try_get::<Option<Uuid>, _>("push")?,
                ) {
                    (Some(id), _) => Target::Webhook {
                        id,
                        url: r.try_get("url")?,
                        secret: r.try_get("secret")?,
                    },
                    (None, Some(id)) => Target::Push {
                        id,
                        endpoint: r.try_get("endpoint")?,
                        p256dh: r.try_get("p256dh")?,
                        auth: r.try_get("auth")?,
                    },
                    (None, None) => {
                        return Err(StoreError::Corrupt("outbox row without target".into()));
                    }
                };
                Ok(Due {
                    outbox_id: r.try_get("id")?,
                    attempts: r.try_get::<i32, _>("attempts")? as u32,
                    notification: r.try_get("notification")?,
                    user: UserId(r.try_get("user_id")?),
                    payload: r.try_get("payload")?,
                    target,
                })
            })
            .collect()
    }

    /// The delivery succeeded: forget it.
    pub async fn delivered(&self, outbox_id: i64) -> Result<()> {
        sqlx::query("DELETE FROM outbox WHERE id = $1")
            .bind(outbox_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The delivery failed: try again after `after`.
    pub async fn retry(&self, outbox_id: i64, after: Duration, error: &str) -> Result<()> {
        sqlx::query(
            "UPDATE outbox SET due_at = now() + $2 * interval '1 millisecond', last_error = $3 \
             WHERE id = $1",
        )
        .bind(outbox_id)
        .bind(millis(after))
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Deliveries still pending (all destinations), for the metrics and the tests.
    pub async fn pending(&self) -> Result<u64> {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox")
            .fetch_one(&self.pool)
            .await?;
        Ok(n as u64)
    }

    /// `user`'s notifications after `after` (their feed seq), oldest first, at most `limit`.
    pub async fn feed(&self, user: UserId, after: u64, limit: u32) -> Result<Vec<FeedEntry>> {
        let rows = sqlx::query(
            "SELECT seq, type, payload FROM notifications WHERE user_id = $1 AND seq > $2 \
             ORDER BY seq LIMIT $3",
        )
        .bind(user.0)
        .bind(after as i64)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(FeedEntry {
                    seq: r.try_get::<i64, _>("seq")? as u64,
                    kind: r.try_get("type")?,
                    payload: r.try_get("payload")?,
                })
            })
            .collect()
    }

    /// Registers a webhook for `user` (the same URL again replaces its secret).
    pub async fn add_webhook(&self, user: UserId, url: &str, secret: &str) -> Result<Webhook> {
        let row = sqlx::query(
            "INSERT INTO webhooks (id, user_id, url, secret) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (user_id, url) DO UPDATE SET secret = EXCLUDED.secret \
             RETURNING id, url, created_at",
        )
        .bind(Uuid::now_v7())
        .bind(user.0)
        .bind(url)
        .bind(secret)
        .fetch_one(&self.pool)
        .await?;
        Ok(Webhook {
            id: row.try_get("id")?,
            url: row.try_get("url")?,
            created_at: row.try_get("created_at")?,
        })
    }

    pub async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>> {
        let rows = sqlx::query(
            "SELECT id, url, created_at FROM webhooks WHERE user_id = $1 ORDER BY created_at, id",
        )
        .bind(user.0)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Webhook {
                    id: r.try_get("id")?,
                    url: r.try_get("url")?,
                    created_at: r.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// Removes `user`'s webhook `id` (and its pending deliveries); false if there was none.
    pub async fn remove_webhook(&self, user: UserId, id: Uuid) -> Result<bool> {
        let done = sqlx::query("DELETE FROM webhooks WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user.0)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Registers a push subscription for `user`. An endpoint is one browser's: registering it
    /// again (another user signed in on that browser) moves it to the new user.
    pub async fn add_push(
        &self,
        user: UserId,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
    ) -> Result<PushSubscription> {
        let row = sqlx::query(
            "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, \
               p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth \
             RETURNING id, endpoint, created_at",
        )
        .bind(Uuid::now_v7())
        .bind(user.0)
        .bind(endpoint)
        .bind(p256dh)
        .bind(auth)
        .fetch_one(&self.pool)
        .await?;
        Ok(PushSubscription {
            id: row.try_get("id")?,
            endpoint: row.try_get("endpoint")?,
            created_at: row.try_get("created_at")?,
        })
    }

    /// Removes `user`'s subscription to `endpoint`; false if there was none.
    pub async fn remove_push(&self, user: UserId, endpoint: &str) -> Result<bool> {
        let done =
            sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1 AND user_id = $2")
                .bind(endpoint)
                .bind(user.0)
                .execute(&self.pool)
                .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The push service said the subscription is gone (404/410): drop it and its deliveries.
    pub async fn expire_push(&self, id: Uuid) -> Result<()> {
        sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
