//! Account use cases (sign-up, sign-in, guests, refresh-token rotation): the handlers in
//! `routes/auth.rs` parse and answer, these decide. They need the accounts, the token keys and
//! the session list of [`AppState`], so they are methods of it.

use crate::auth::{self, AuthUser, REFRESH_TTL_DAYS};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use domain::i18n::says;
use infra::accounts::{RefreshOutcome, Upgrade, User};

/// A signed-in session: the routes answer it as a `TokenResponse`.
pub struct Session {
    pub access_token: String,
    pub refresh_token: String,
    pub user: User,
}

/// A user name: 1 to 32 letters, digits, `_`, `-`, `.` or spaces, not blank.
pub struct UserName(String);

impl UserName {
    pub fn parse(raw: &str) -> Result<UserName, ApiError> {
        let name = raw.trim();
        let ok_chars = name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
        if name.is_empty() || name.chars().count() > 32 || !ok_chars {
            return Err(ApiError::Invalid(says("errors.name_invalid")));
        }
        Ok(UserName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password: 8 to 128 characters.
pub struct Password(String);

impl Password {
    pub fn parse(raw: &str) -> Result<Password, ApiError> {
        if raw.chars().count() < 8 || raw.chars().count() > 128 {
            return Err(ApiError::Invalid(says("errors.password_length")));
        }
        Ok(Password(raw.to_string()))
    }
}

const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2o8r6GkN9X3hQvIuLZPqZ7o5b0zQ3z0V3S0b5V6b5lE";

/// Runs an argon2id computation off the async workers.
async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> ApiResult<R> {
    actix_web::web::block(f)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))
}

impl AppState {
    /// A new account with a password; with `upgrading` (a guest's verified token), that guest
    /// becomes the named account in place (issue 18: same user id, its seats and games stay
    /// its own). `Ok((true, _))` when a new account was created.
    pub async fn register(
        &self,
        name: UserName,
        password: Password,
        upgrading: Option<AuthUser>,
    ) -> ApiResult<(bool, Session)> {
        let hash = blocking(move || auth::hash_password(&password.0)).await??;
        let Some(caller) = upgrading else {
            let Some(user) = self.accounts.create(&name.0, Some(&hash), false).await? else {
                return Err(self.name_refused(&name).await);
            };
            return Ok((true, self.new_session(user).await?));
        };
        match self
            .accounts
            .upgrade_guest(caller.id, &name.0, &hash)
            .await?
        {
            Upgrade::Upgraded(user) => {
                self.games.renamed(user.id, &user.name).await?;
                Ok((false, self.new_session(user).await?))
            }
            Upgrade::NameTaken => Err(self.name_refused(&name).await),
            Upgrade::NotAGuest => Err(ApiError::Invalid(says("errors.already_registered"))),
            Upgrade::UnknownUser => Err(ApiError::Unauthorized(says("errors.unknown_user"))),
        }
    }

    /// Why `name` could not be had: it is taken, or it looks like a name that is (issue 26:
    /// the same skeleton under NFKC and UTS #39).
    async fn name_refused(&self, name: &UserName) -> ApiError {
        match self.accounts.by_name(&name.0).await {
            Ok(None) => ApiError::Invalid(says("errors.name_look_alike")),
            _ => ApiError::Invalid(says("errors.name_taken")),
        }
    }

    /// Refuses a new lobby to a user who hosts `HOMESTRETCH_QUOTA_LOBBIES` lobbies that have not
    /// started (issue 26: 429). Checked before the lobby is made: lobbies created at the same
    /// instant may pass it together, within the per-user game rate.
    pub async fn lobby_quota(&self, user: &AuthUser) -> ApiResult<()> {
        let quota = crate::limits::cap(self.limits.config.lobbies_per_user);
        if quota != u32::MAX && self.accounts.open_lobbies(user.id).await? >= u64::from(quota) {
            return Err(ApiError::Quota(
                says("errors.lobby_quota").arg("max", quota),
            ));
        }
        Ok(())
    }

    /// Signs in with name and password (each attempt costs an argon2id hash, limited per
    /// address by `limits::route_limit`).
    pub async fn login(&self, name: &str, password: &str) -> ApiResult<Session> {
        // A name no account can have (control characters, too long) is simply unknown.
        let user = match UserName::parse(name) {
            Ok(name) => self.accounts.by_name(&name.0).await?,
            Err(_) => None,
        };
        let password = password.to_string();
        let phc = user.as_ref().and_then(|u| u.password_hash.clone());
        // Verify even for unknown users, so timing does not reveal which names exist.
        let ok = blocking(move || match phc {
            Some(phc) => auth::verify_password(&password, &phc),
            None => {
                let _ = auth::verify_password(&password, DUMMY_HASH);
                false
            }
        })
        .await?;
        match user {
            Some(user) if ok => self.new_session(user).await,
            _ => Err(ApiError::Unauthorized(says("errors.wrong_credentials"))),
        }
    }

    /// A new guest account named `prefix` (default `guest`) and a unique random suffix.
    pub async fn guest(&self, prefix: Option<String>) -> ApiResult<Session> {
        let prefix = prefix.unwrap_or_else(|| "guest".into());
        let prefix: String = UserName::parse(&prefix)?.0.chars().take(20).collect();
        for _ in 0..5 {
            let mut suffix = [0u8; 4];
            infra::random::fill_random(&mut suffix);
            let name = format!("{prefix}-{}", hex::encode(suffix));
            if let Some(user) = self.accounts.create(&name, None, true).await? {
                return self.new_session(user).await;
            }
        }
        Err(ApiError::Internal(
            "could not find a free guest name".into(),
        ))
    }

    /// Spends a refresh token for a new pair. The same token within the leeway gets the very
    /// same pair; later, it is taken for a stolen copy and ends the whole session.
    pub async fn refresh(&self, token: &str) -> ApiResult<Session> {
        let successor = self.jwt.successor(token);
        let leeway = time::Duration::try_from(self.refresh_leeway).unwrap_or(time::Duration::ZERO);
        let ttl = time::Duration::days(REFRESH_TTL_DAYS);
        match self
            .accounts
            .spend_refresh(token, &successor, ttl, leeway)
            .await?
        {
            RefreshOutcome::Rotated {
                user,
                family,
                rotated_at,
            } => {
                let user = self
                    .accounts
                    .by_id(user)
                    .await?
                    .ok_or_else(|| ApiError::Unauthorized(says("errors.unknown_user")))?;
                // Issued at the first spend: every duplicate gets the same access token.
                self.session(user, family, rotated_at.unix_timestamp(), successor)
            }
            RefreshOutcome::Reused { family } => {
                self.sessions.remember(family, true);
                Err(ApiError::Unauthorized(says("errors.refresh_token_reused")))
            }
            RefreshOutcome::Invalid => {
                Err(ApiError::Unauthorized(says("errors.refresh_token_invalid")))
            }
        }
    }

    /// A new session (family) for `user`: an access token and a random first refresh token.
    async fn new_session(&self, user: User) -> ApiResult<Session> {
        let family = uuid::Uuid::new_v4();
        let refresh_token = auth::new_refresh_token();
        let ttl = time::Duration::days(REFRESH_TTL_DAYS);
        self.accounts
            .store_refresh(&refresh_token, user.id, family, ttl)
            .await?;
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        self.session(user, family, now, refresh_token)
    }

    fn session(
        &self,
        user: User,
        family: uuid::Uuid,
        issued_at: i64,
        refresh_token: String,
    ) -> ApiResult<Session> {
        Ok(Session {
            access_token: self.jwt.issue(user.id, &user.name, family, issued_at)?,
            refresh_token,
            user,
        })
    }
}
