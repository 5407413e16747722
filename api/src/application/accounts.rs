//! Account use cases (sign-up, sign-in, guests, refresh-token rotation, who is an admin, the
//! lobby quota): the handlers in `routes/auth.rs` parse and answer, [`UserService`] decides. It
//! holds what it needs: the accounts, the lobby (a rename), the token keys, the session list.

use super::error::{AppError, Result};
use super::lobby::Lobby;
use crate::auth::{self, JwtKeys, REFRESH_TTL_DAYS, Sessions};
use domain::i18n::{Lang, says};
use infra::UserId;
use infra::accounts::{Accounts, RefreshOutcome, Revocation, Upgrade, User};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// A signed-in session: the routes answer it as a `TokenResponse`.
pub struct Session {
    pub access_token: String,
    pub refresh_token: String,
    pub user: User,
}

/// A signed-in user's account as they read it.
pub struct Profile {
    pub user: User,
    pub is_admin: bool,
    pub language: Option<Lang>,
}

/// A user name: 1 to 32 letters, digits, `_`, `-`, `.` or spaces, not blank.
pub struct UserName(String);

impl UserName {
    pub fn parse(raw: &str) -> Result<UserName> {
        let name = raw.trim();
        let ok_chars = name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
        if name.is_empty() || name.chars().count() > 32 || !ok_chars {
            return Err(AppError::Invalid(says("errors.name_invalid")));
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
    pub fn parse(raw: &str) -> Result<Password> {
        if raw.chars().count() < 8 || raw.chars().count() > 128 {
            return Err(AppError::Invalid(says("errors.password_length")));
        }
        Ok(Password(raw.to_string()))
    }
}

const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2o8r6GkN9X3hQvIuLZPqZ7o5b0zQ3z0V3S0b5V6b5lE";

/// Runs an argon2id computation off the async workers.
async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Result<R> {
    actix_web::web::block(f)
        .await
        .map_err(|e| AppError::Internal(e.to_string()))
}

/// The account use cases, built once at start-up (`app.rs`).
pub struct UserService {
    pub accounts: Accounts,
    pub lobby: Arc<Lobby>,
    pub jwt: Arc<JwtKeys>,
    pub sessions: Arc<Sessions>,
    /// How long a spent refresh token still gets the same answer (a client's own race).
    pub refresh_leeway: Duration,
    /// Admins by configuration (`HOMESTRETCH_ADMINS`): user ids, never names — a name can be
    /// registered by anyone (issue 11, item 5). Others are granted with `homestretch admin grant`.
    pub admins: HashSet<UserId>,
    /// Lobbies one user may host at once (`HOMESTRETCH_QUOTA_LOBBIES`, issue 26).
    pub lobby_quota: u32,
}

impl UserService {
    /// Whether `user` is an admin: by configuration or granted.
    pub async fn is_admin(&self, user: UserId) -> Result<bool> {
        if self.admins.contains(&user) {
            return Ok(true);
        }
        Ok(self.accounts.by_id(user).await?.is_some_and(|u| u.is_admin))
    }

    /// Ends session `family` of `user`: its refresh token and its access tokens stop working.
    pub async fn logout(&self, user: UserId, family: uuid::Uuid) -> Result<()> {
        self.accounts
            .revoke_family(family, user, Revocation::Logout)
            .await?;
        self.sessions.remember(family, true);
        Ok(())
    }

    /// `user`'s account, whether it is an admin and its language, after setting the language
    /// when `language` says one (`Some(None)`: none).
    pub async fn profile(&self, user: UserId, language: Option<Option<Lang>>) -> Result<Profile> {
        if let Some(language) = language {
            self.accounts.set_language(user, language).await?;
        }
        let account = self
            .accounts
            .by_id(user)
            .await?
            .ok_or_else(|| AppError::Unauthenticated(says("errors.unknown_user")))?;
        Ok(Profile {
            is_admin: self.is_admin(user).await?,
            language: self.accounts.language(user).await?,
            user: account,
        })
    }

    /// A new account with a password; with `upgrading` (a guest's verified token), that guest
    /// becomes the named account in place (issue 18: same user id, its seats and games stay
    /// its own). `Ok((true, _))` when a new account was created.
    pub async fn register(
        &self,
        name: UserName,
        password: Password,
        upgrading: Option<UserId>,
    ) -> Result<(bool, Session)> {
        let hash = blocking(move || auth::hash_password(&password.0)).await??;
        let Some(caller) = upgrading else {
            let Some(user) = self.accounts.create(&name.0, Some(&hash), false).await? else {
                return Err(self.name_refused(&name).await);
            };
            return Ok((true, self.new_session(user).await?));
        };
        match self.accounts.upgrade_guest(caller, &name.0, &hash).await? {
            Upgrade::Upgraded(user) => {
                self.lobby.renamed(user.id, &user.name).await?;
                Ok((false, self.new_session(user).await?))
            }
            Upgrade::NameTaken => Err(self.name_refused(&name).await),
            Upgrade::NotAGuest => Err(AppError::Invalid(says("errors.already_registered"))),
            Upgrade::UnknownUser => Err(AppError::Unauthenticated(says("errors.unknown_user"))),
        }
    }

    /// Why `name` could not be had: it is taken, or it looks like a name that is (issue 26:
    /// the same skeleton under NFKC and UTS #39).
    async fn name_refused(&self, name: &UserName) -> AppError {
        match self.accounts.by_name(&name.0).await {
            Ok(None) => AppError::Invalid(says("errors.name_look_alike")),
            _ => AppError::Invalid(says("errors.name_taken")),
        }
    }

    /// Refuses a new lobby to a user who hosts `HOMESTRETCH_QUOTA_LOBBIES` lobbies that have not
    /// started (issue 26: 429). Checked before the lobby is made: lobbies created at the same
    /// instant may pass it together, within the per-user game rate.
    pub async fn lobby_quota(&self, user: UserId) -> Result<()> {
        let quota = self.lobby_quota;
        if quota != u32::MAX && self.accounts.open_lobbies(user).await? >= u64::from(quota) {
            return Err(AppError::Quota(
                says("errors.lobby_quota").arg("max", quota),
            ));
        }
        Ok(())
    }

    /// Signs in with name and password (each attempt costs an argon2id hash, limited per
    /// address by `limits::route_limit`).
    pub async fn login(&self, name: &str, password: &str) -> Result<Session> {
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
            _ => Err(AppError::Unauthenticated(says("errors.wrong_credentials"))),
        }
    }

    /// A new guest account named `prefix` (default `guest`) and a unique random suffix.
    pub async fn guest(&self, prefix: Option<String>) -> Result<Session> {
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
        Err(AppError::Internal(
            "could not find a free guest name".into(),
        ))
    }

    /// Spends a refresh token for a new pair. The same token within the leeway gets the very
    /// same pair; later, it is taken for a stolen copy and ends the whole session.
    pub async fn refresh(&self, token: &str) -> Result<Session> {
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
                    .ok_or_else(|| AppError::Unauthenticated(says("errors.unknown_user")))?;
                // Issued at the first spend: every duplicate gets the same access token.
                self.session(user, family, rotated_at.unix_timestamp(), successor)
            }
            RefreshOutcome::Reused { family } => {
                self.sessions.remember(family, true);
                Err(AppError::Unauthenticated(says(
                    "errors.refresh_token_reused",
                )))
            }
            RefreshOutcome::Invalid => Err(AppError::Unauthenticated(says(
                "errors.refresh_token_invalid",
            ))),
        }
    }

    /// A new session (family) for `user`: an access token and a random first refresh token.
    async fn new_session(&self, user: User) -> Result<Session> {
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
    ) -> Result<Session> {
        Ok(Session {
            access_token: self.jwt.issue(user.id, &user.name, family, issued_at)?,
            refresh_token,
            user,
        })
    }
}
