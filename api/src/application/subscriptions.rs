//! Where a user's notifications go (issue 18): webhooks, Web Push subscriptions, and the feed
//! an app reads to resync. The routes in `routes/me.rs` parse; [`Subscriptions`] checks the
//! destination (through [`Destinations`], an adapter: DNS and the SSRF rules), the quota, and
//! stores it in the outbox.

use super::error::{AppError, Result};
use domain::i18n::{Says, says};
use futures_util::future::LocalBoxFuture;
use infra::UserId;
use infra::outbox::{FeedEntry, Outbox, PushSubscription, Quota, Registered, Webhook};
use uuid::Uuid;

/// Whether a URL may receive notifications: the checked URL, or why not (naming `field`).
pub trait Destinations: Send + Sync {
    fn check<'a>(
        &'a self,
        raw: &'a str,
        field: &'static str,
    ) -> LocalBoxFuture<'a, std::result::Result<url::Url, Says>>;
}

/// The notification destinations and feed use cases.
pub struct Subscriptions {
    outbox: Outbox,
    destinations: Box<dyn Destinations>,
    webhooks: Quota,
    pushes: Quota,
}

impl Subscriptions {
    /// `webhooks` and `pushes`: each kind's quota per user and queue per destination.
    pub fn new(
        outbox: Outbox,
        destinations: Box<dyn Destinations>,
        webhooks: Quota,
        pushes: Quota,
    ) -> Self {
        Subscriptions {
            outbox,
            destinations,
            webhooks,
            pushes,
        }
    }

    /// Registers a webhook (or updates the caller's own one to the same URL: `false`).
    pub async fn add_webhook(
        &self,
        user: UserId,
        url: &str,
        secret: &str,
    ) -> Result<(Webhook, bool)> {
        let secret_len = secret.chars().count();
        if !(16..=256).contains(&secret_len) {
            return Err(AppError::Invalid(
                says("errors.webhook_secret_length")
                    .arg("min", 16u32)
                    .arg("max", 256u32),
            ));
        }
        let url = self.checked(url, "url").await?;
        let quota = self.webhooks;
        match self
            .outbox
            .add_webhook(user, url.as_str(), secret, quota)
            .await?
        {
            Registered::Done(hook, created) => Ok((hook, created)),
            Registered::OverQuota => Err(AppError::Quota(
                says("errors.webhook_quota").arg("max", quota.per_user),
            )),
        }
    }

    pub async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>> {
        Ok(self.outbox.webhooks(user).await?)
    }

    /// Removes one of `user`'s webhooks (404 for any other id).
    pub async fn remove_webhook(&self, user: UserId, id: Uuid) -> Result<()> {
        if !self.outbox.remove_webhook(user, id).await? {
            return Err(AppError::NotFound(says("errors.webhook_not_found")));
        }
        Ok(())
    }

    /// Subscribes a browser's endpoint (or updates the caller's own one: `false`).
    pub async fn add_push(
        &self,
        user: UserId,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
    ) -> Result<(PushSubscription, bool)> {
        let url = self.checked(endpoint, "endpoint").await?;
        let quota = self.pushes;
        match self
            .outbox
            .add_push(user, url.as_str(), p256dh, auth, quota)
            .await?
        {
            Registered::Done(sub, created) => Ok((sub, created)),
            Registered::OverQuota => Err(AppError::Quota(
                says("errors.push_subscription_quota").arg("max", quota.per_user),
            )),
        }
    }

    /// Unsubscribes `user`'s browser at `endpoint` (404 when it has none there).
    pub async fn remove_push(&self, user: UserId, endpoint: &str) -> Result<()> {
        if !self.outbox.remove_push(user, endpoint).await? {
            return Err(AppError::NotFound(says(
                "errors.push_subscription_not_found",
            )));
        }
        Ok(())
    }

    /// `user`'s notifications after `after`, oldest first, at most `limit`.
    pub async fn feed(&self, user: UserId, after: u64, limit: u32) -> Result<Vec<FeedEntry>> {
        Ok(self.outbox.feed(user, after, limit).await?)
    }

    async fn checked(&self, raw: &str, field: &'static str) -> Result<url::Url> {
        self.destinations
            .check(raw, field)
            .await
            .map_err(AppError::Invalid)
    }
}
