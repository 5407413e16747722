//! Shared application state handed to every handler.

use crate::auth::JwtKeys;
use crate::limits::RateLimiter;
use crate::metrics::Metrics;
use crate::sse::Hub;
use infra::accounts::Accounts;
use infra::games::GameService;
use std::collections::HashSet;
use std::sync::Arc;

pub struct AppState {
    pub games: Arc<GameService>,
    pub accounts: Accounts,
    pub jwt: JwtKeys,
    /// Lower-cased user names that are admins by configuration (`HOMESTRETCH_ADMINS`).
    pub admins: HashSet<String>,
    pub metrics: Arc<Metrics>,
    pub hub: Arc<Hub>,
    pub limiter: RateLimiter,
}

impl AppState {
    pub async fn is_admin(
        &self,
        user: &crate::auth::AuthUser,
    ) -> Result<bool, crate::error::ApiError> {
        if self.admins.contains(&user.name.to_lowercase()) {
            return Ok(true);
        }
        Ok(self
            .accounts
            .by_id(user.id)
            .await?
            .is_some_and(|u| u.is_admin))
    }
}
