//! Shared application state handed to every handler.

use crate::application::GameService;
use crate::auth::{JwtKeys, Sessions};
use crate::limits::Limits;
use crate::metrics::Metrics;
use crate::sse::Hub;
use infra::UserId;
use infra::accounts::Accounts;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

pub struct AppState {
    pub games: Arc<GameService>,
    pub accounts: Accounts,
    pub jwt: JwtKeys,
    /// Admins by configuration (`HOMESTRETCH_ADMINS`): user ids, never names — a name can be
    /// registered by anyone (issue 11, item 5). Others are granted with `homestretch admin grant`.
    pub admins: HashSet<UserId>,
    pub metrics: Arc<Metrics>,
    pub hub: Arc<Hub>,
    pub limits: Arc<Limits>,
    pub sessions: Arc<Sessions>,
    /// How long a spent refresh token still gets the same answer (a client's own race).
    pub refresh_leeway: Duration,
    /// Notification destinations and feeds (issue 18).
    pub outbox: infra::outbox::Outbox,
    pub notify: crate::application::delivery::NotifyConfig,
    pub vapid: Arc<crate::application::webpush::Vapid>,
    /// The OpenAPI document of the games this server hosts, built on first request.
    pub openapi: std::sync::OnceLock<String>,
    /// Set on SIGTERM: `/readyz` 503, streams end, workers stop (issue 29).
    pub drain: Arc<crate::drain::Drain>,
}

impl AppState {
    /// This server's OpenAPI document: its registry's games (`crate::openapi::spec_json`).
    pub fn openapi(&self) -> &str {
        self.openapi
            .get_or_init(|| crate::openapi::spec_json(self.games.registry()))
    }

    pub async fn is_admin(
        &self,
        user: &crate::auth::AuthUser,
    ) -> Result<bool, crate::error::ApiError> {
        if self.admins.contains(&user.id) {
            return Ok(true);
        }
        Ok(self
            .accounts
            .by_id(user.id)
            .await?
            .is_some_and(|u| u.is_admin))
    }
}
