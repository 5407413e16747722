//! The notification outbox (issue 18): notifications are written in the same transaction as
//! the events that cause them ([`enqueue`]), then delivered at least once by any instance
//! ([`Outbox::claim`] with `FOR UPDATE SKIP LOCKED`, leased, retried with backoff). What a
//! notification says and who gets it is decided by `api::application::notify`; this module
//! only stores and hands out rows.
//!
//! Issue 26: each destination (webhook, push subscription) has a queue (`outbox_queues`) made
//! and deleted with it. Its capacity bounds what it holds, the quotas bound how many a user has,
//! and the claim takes the head of the queues that are due in the order they came due, one per
//! destination ([`CLAIM_SQL`]): a few index reads whatever the outbox holds, and one user's
//! backlog never holds another user's delivery.

use crate::error::Result;
use crate::ids::{GameId, UserId};
use crate::lease;
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
/// recipient's feed and one outbox row per webhook and push subscription of theirs whose queue
/// has room. Nothing is visible (nor delivered) unless the caller commits.
///
/// This is the one way to enqueue a notification: any use case that must notify (a seat taken,
/// a dispute resolved, an invitation to a rematch) calls it with its own transaction, so the
/// notification commits or rolls back with the fact that causes it; a command's append sends the
/// same [`Notes`] to the same SQL function (`enqueue_notifications`, migration 0011) inside its
/// own statement. One round trip either way.
pub async fn enqueue(tx: &mut PgConnection, notes: &[NewNotification]) -> Result<()> {
    if notes.is_empty() {
        return Ok(());
    }
    let notes = Notes::of(notes);
    sqlx::query("SELECT enqueue_notifications($1, $2, $3, $4, $5)")
        .bind(&notes.users)
        .bind(&notes.ids)
        .bind(&notes.games)
        .bind(&notes.kinds)
        .bind(&notes.payloads)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Notifications as the parallel arrays `enqueue_notifications` takes (migration 0011).
#[derive(Debug, Default)]
pub struct Notes {
    pub users: Vec<Uuid>,
    pub ids: Vec<Uuid>,
    pub games: Vec<Option<Uuid>>,
    pub kinds: Vec<String>,
    /// Each notification told in every language of the catalogue, keyed by tag, and as given
    /// under `""` when that differs from its English telling: the SQL picks the recipient's
    /// stored language (`users.language`), so no lookup round trip is needed.
    pub payloads: Vec<Value>,
}

impl Notes {
    pub fn of(notes: &[NewNotification]) -> Notes {
        // Recipients in one order (user id) so two transactions notifying the same users lock
        // their feed heads in the same order and cannot deadlock; the order within one
        // recipient is kept (stable sort).
        let mut sorted: Vec<&NewNotification> = notes.iter().collect();
        sorted.sort_by_key(|n| n.user);
        let mut out = Notes::default();
        for note in sorted {
            let mut told = serde_json::Map::new();
            for lang in domain::i18n::LANGS {
                let mut payload = note.payload.clone();
                domain::i18n::tell_notification(&mut payload, lang);
                told.insert(lang.tag().to_string(), payload);
            }
            // A recipient without a language gets the payload as given (today's English).
            if told.get(domain::i18n::Lang::En.tag()) != Some(&note.payload) {
                told.insert(String::new(), note.payload.clone());
            }
            out.users.push(note.user.0);
            out.ids.push(note.id);
            out.games.push(note.game.map(|g| g.0));
            out.kinds.push(note.kind.clone());
            out.payloads.push(Value::Object(told));
        }
        out
    }
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

/// One delivery claimed by this instance (its destination leased until it reports back).
#[derive(Clone, Debug)]
pub struct Due {
    pub outbox_id: i64,
    /// The webhook's or push subscription's id (its queue's key).
    pub destination: Uuid,
    /// Attempts so far, this one included.
    pub attempts: u32,
    pub notification: Uuid,
    pub user: UserId,
    pub payload: Value,
    /// `None`: the destination was deleted meanwhile (the claim drops such a delivery).
    pub target: Option<Target>,
}

/// One entry of a user's feed (the app stream, the resync after a long sleep).
#[derive(Clone, Debug)]
pub struct FeedEntry {
    pub seq: u64,
    pub kind: String,
    pub payload: Value,
}

/// How many destinations a user may register, and how many deliveries each may hold
/// (issue 26: `HOMESTRETCH_QUOTA_WEBHOOKS`, `…_PUSH_SUBSCRIPTIONS`,
/// `HOMESTRETCH_QUEUE_PER_DESTINATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    /// Destinations of this kind per user.
    pub per_user: u32,
    /// Deliveries waiting per destination.
    pub queue: u32,
}

/// What registering a destination did.
#[derive(Clone, Debug, PartialEq)]
pub enum Registered<T> {
    /// A new destination (`true`) or the caller's own one updated in place (`false`).
    Done(T, bool),
    /// The user already has `Quota::per_user` destinations of this kind.
    OverQuota,
}

#[derive(Clone)]
pub struct Outbox {
    pool: PgPool,
}

/// The claim (issue 26): the due queues in `due_at` order (`outbox_queues_due`), each leased
/// for `$2` ms, and the oldest delivery of each (`outbox_destination`): one per destination, so
/// its deliveries go out in order, and the cost is a few index pages per claimed row whatever
/// the outbox holds. (The head is sought as the first row at or after `(destination, 0)` in
/// `outbox_destination`'s order: asked as `destination = $d ORDER BY id`, the planner may walk
/// the primary key instead when a few destinations hold most rows — 450 ms at 1,000,000 rows in
/// 10 queues.) A delivered queue comes due again at the time of its delivery: behind
/// every queue that was already waiting (round-robin), never ahead of another user's. A
/// destination's row may be missing (deleted meanwhile, after the claim read it): `target` is
/// then `None`. Public so that the tests and the drill read its plan.
pub const CLAIM_SQL: &str = "WITH leased AS (
         UPDATE outbox_queues SET due_at = now() + $2 * interval '1 millisecond'
          WHERE destination = ANY (ARRAY(
              SELECT destination FROM outbox_queues
               WHERE due_at <= now()
               ORDER BY due_at
               LIMIT $1
               FOR UPDATE SKIP LOCKED))
         RETURNING destination),
     head AS (
         SELECT h.id FROM leased CROSS JOIN LATERAL (
             SELECT o.id, o.destination FROM outbox o
              WHERE (o.destination, o.id) > (leased.destination, 0)
              ORDER BY o.destination, o.id LIMIT 1) h
          WHERE h.destination = leased.destination),
     claimed AS (
         UPDATE outbox o SET attempts = o.attempts + 1
           FROM head WHERE o.id = head.id
         RETURNING o.id, o.attempts, o.notification_id, o.destination)
     SELECT c.id, c.destination, c.attempts, n.id AS notification, n.user_id, n.payload,
            w.id AS webhook, w.url, w.secret,
            s.id AS push, s.endpoint, s.p256dh, s.auth
       FROM claimed c JOIN notifications n ON n.id = c.notification_id
       LEFT JOIN webhooks w ON w.id = c.destination
       LEFT JOIN push_subscriptions s ON s.id = c.destination
      ORDER BY c.id";

impl Outbox {
    pub fn new(pool: PgPool) -> Self {
        Outbox { pool }
    }

    /// Claims up to `limit` due deliveries, at most one per destination, leasing each
    /// destination for `lease` (its delivery comes due again if this instance dies before
    /// reporting). Several instances claim at once without ever sharing a row (`SKIP LOCKED`).
    pub async fn claim(&self, limit: u32, lease: Duration) -> Result<Vec<Due>> {
        let rows = lease::claim(&self.pool, CLAIM_SQL, limit, lease).await?;
        rows.iter()
            .map(|r| {
                let target = match (
                    r.try_get::<Option<Uuid>, _>("webhook")?,
                    r.try_get::<Option<Uuid>, _>("push")?,
                ) {
                    (Some(id), _) => Some(Target::Webhook {
                        id,
                        url: r.try_get("url")?,
                        secret: r.try_get("secret")?,
                    }),
                    (None, Some(id)) => Some(Target::Push {
                        id,
                        endpoint: r.try_get("endpoint")?,
                        p256dh: r.try_get("p256dh")?,
                        auth: r.try_get("auth")?,
                    }),
                    (None, None) => None,
                };
                Ok(Due {
                    outbox_id: r.try_get("id")?,
                    destination: r.try_get("destination")?,
                    attempts: r.try_get::<i32, _>("attempts")? as u32,
                    notification: r.try_get("notification")?,
                    user: UserId(r.try_get("user_id")?),
                    payload: r.try_get("payload")?,
                    target,
                })
            })
            .collect()
    }

    /// The delivery is done (delivered, dropped after its last attempt, or its destination is
    /// gone): forget it; its queue's next delivery is due now, behind the queues already due.
    pub async fn delivered(&self, due: &Due) -> Result<()> {
        sqlx::query(
            "WITH gone AS (DELETE FROM outbox WHERE id = $1 RETURNING destination)
             UPDATE outbox_queues q
                SET queued = greatest(q.queued - 1, 0),
                    due_at = CASE WHEN q.queued > 1 THEN now() END
               FROM gone WHERE q.destination = gone.destination",
        )
        .bind(due.outbox_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The delivery failed: its destination is tried again after `after`.
    pub async fn retry(&self, due: &Due, after: Duration, error: &str) -> Result<()> {
        sqlx::query(
            "WITH failed AS (UPDATE outbox SET last_error = $3 WHERE id = $1 RETURNING destination)
             UPDATE outbox_queues q SET due_at = now() + $2 * interval '1 millisecond'
               FROM failed WHERE q.destination = failed.destination",
        )
        .bind(due.outbox_id)
        .bind(lease::millis(after))
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

    /// Registers a webhook for `user`; the same URL again replaces its secret. Refused past
    /// `quota.per_user` webhooks (counted under the user's row lock, so two registrations at
    /// once cannot both take the last place).
    pub async fn add_webhook(
        &self,
        user: UserId,
        url: &str,
        secret: &str,
        quota: Quota,
    ) -> Result<Registered<Webhook>> {
        let mut tx = self.pool.begin().await?;
        if !room_for(&mut tx, user, "webhooks", "url", url, quota).await? {
            return Ok(Registered::OverQuota);
        }
        let row = sqlx::query(
            "INSERT INTO webhooks (id, user_id, url, secret) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (user_id, url) DO UPDATE SET secret = EXCLUDED.secret \
             RETURNING id, url, created_at, (xmax = 0) AS created",
        )
        .bind(Uuid::now_v7())
        .bind(user.0)
        .bind(url)
        .bind(secret)
        .fetch_one(&mut *tx)
        .await?;
        let hook = Webhook {
            id: row.try_get("id")?,
            url: row.try_get("url")?,
            created_at: row.try_get("created_at")?,
        };
        let created: bool = row.try_get("created")?;
        if created {
            open_queue(&mut tx, hook.id, user, quota).await?;
        }
        tx.commit().await?;
        Ok(Registered::Done(hook, created))
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

    /// Removes `user`'s webhook `id` and its pending deliveries; false if there was none.
    pub async fn remove_webhook(&self, user: UserId, id: Uuid) -> Result<bool> {
        self.remove(
            "DELETE FROM webhooks WHERE id = $1 AND user_id = $2 RETURNING id",
            id,
            user,
        )
        .await
    }

    /// Registers a push subscription for `user`. It is the user's own: the same endpoint
    /// registered again by this user updates its keys in place; registered by another user
    /// (another account signed in on that browser) it is that user's own subscription, and
    /// this one is untouched. Refused past `quota.per_user` subscriptions.
    pub async fn add_push(
        &self,
        user: UserId,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
        quota: Quota,
    ) -> Result<Registered<PushSubscription>> {
        let mut tx = self.pool.begin().await?;
        if !room_for(
            &mut tx,
            user,
            "push_subscriptions",
            "endpoint",
            endpoint,
            quota,
        )
        .await?
        {
            return Ok(Registered::OverQuota);
        }
        let row = sqlx::query(
            "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (user_id, endpoint) DO UPDATE SET \
               p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth \
             RETURNING id, endpoint, created_at, (xmax = 0) AS created",
        )
        .bind(Uuid::now_v7())
        .bind(user.0)
        .bind(endpoint)
        .bind(p256dh)
        .bind(auth)
        .fetch_one(&mut *tx)
        .await?;
        let sub = PushSubscription {
            id: row.try_get("id")?,
            endpoint: row.try_get("endpoint")?,
            created_at: row.try_get("created_at")?,
        };
        let created: bool = row.try_get("created")?;
        if created {
            open_queue(&mut tx, sub.id, user, quota).await?;
        }
        tx.commit().await?;
        Ok(Registered::Done(sub, created))
    }

    /// Removes `user`'s subscription to `endpoint` and its pending deliveries; false if there
    /// was none. Another user's subscription to the same endpoint is not touched.
    pub async fn remove_push(&self, user: UserId, endpoint: &str) -> Result<bool> {
        let id: Option<Uuid> = sqlx::query_scalar(
            "SELECT id FROM push_subscriptions WHERE endpoint = $1 AND user_id = $2",
        )
        .bind(endpoint)
        .bind(user.0)
        .fetch_optional(&self.pool)
        .await?;
        match id {
            Some(id) => {
                self.remove(
                    "DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2 RETURNING id",
                    id,
                    user,
                )
                .await
            }
            None => Ok(false),
        }
    }

    /// The push service said subscription `id` is gone (404/410): drop it and its deliveries.
    pub async fn expire_push(&self, id: Uuid) -> Result<()> {
        let owner: Option<Uuid> =
            sqlx::query_scalar("SELECT user_id FROM push_subscriptions WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        if let Some(owner) = owner {
            self.remove(
                "DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2 RETURNING id",
                id,
                UserId(owner),
            )
            .await?;
        }
        Ok(())
    }

    /// Deletes destination `id` of `user` with `delete_sql` (`$1` id, `$2` user), its queue
    /// first: an enqueue that holds the queue's row commits first and its deliveries are then
    /// deleted too; one that comes after finds no queue. So no delivery outlives its
    /// destination.
    async fn remove(&self, delete_sql: &'static str, id: Uuid, user: UserId) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM outbox_queues WHERE destination = $1 AND user_id = $2")
            .bind(id)
            .bind(user.0)
            .execute(&mut *tx)
            .await?;
        let gone: Option<Uuid> = sqlx::query_scalar(delete_sql)
            .bind(id)
            .bind(user.0)
            .fetch_optional(&mut *tx)
            .await?;
        if gone.is_none() {
            return Ok(false);
        }
        sqlx::query("DELETE FROM outbox WHERE destination = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// Whether `user` may register `value` in `table`'s `column`: it is already theirs (updated in
/// place), or they have fewer than `quota.per_user`. Takes the user's row lock (`FOR NO KEY
/// UPDATE`: foreign-key checks on the user go on) until the caller's transaction ends.
async fn room_for(
    tx: &mut PgConnection,
    user: UserId,
    table: &'static str,
    column: &'static str,
    value: &str,
    quota: Quota,
) -> Result<bool> {
    sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE")
        .bind(user.0)
        .execute(&mut *tx)
        .await?;
    let sql = format!(
        "SELECT count(*) FILTER (WHERE {column} = $2) AS mine, count(*) AS all \
         FROM {table} WHERE user_id = $1"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(user.0)
        .bind(value)
        .fetch_one(&mut *tx)
        .await?;
    let (mine, all): (i64, i64) = (row.try_get("mine")?, row.try_get("all")?);
    Ok(mine > 0 || all < i64::from(quota.per_user))
}

/// The queue of a new destination, holding at most `quota.queue` deliveries.
async fn open_queue(
    tx: &mut PgConnection,
    destination: Uuid,
    user: UserId,
    quota: Quota,
) -> Result<()> {
    sqlx::query("INSERT INTO outbox_queues (destination, user_id, capacity) VALUES ($1, $2, $3)")
        .bind(destination)
        .bind(user.0)
        .bind(i32::try_from(quota.queue).unwrap_or(i32::MAX))
        .execute(&mut *tx)
        .await?;
    Ok(())
}
