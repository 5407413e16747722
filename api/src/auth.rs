//! Authentication: short-lived HS256 access tokens (algorithm pinned; iss/aud/exp/nbf/iat
//! checked), rotating opaque refresh tokens grouped in families (a session), argon2id passwords,
//! the caller (`AuthUser`; its extractor, which also refuses tokens of a revoked family, is in
//! `extract.rs`).

use crate::application::error::AppError;
use crate::error::ApiError;
use actix_web::HttpRequest;
use domain::i18n::{Says, says};
use infra::UserId;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use uuid::Uuid;

pub const ISSUER: &str = "homestretch";
pub const AUDIENCE: &str = "homestretch-api";
pub const ACCESS_TTL_SECONDS: i64 = 900;
pub const REFRESH_TTL_DAYS: i64 = 30;

#[derive(Debug, Serialize, Deserialize, Clone, PartialEq)]
pub struct Claims {
    pub sub: String,
    pub name: String,
    pub iss: String,
    pub aud: String,
    pub exp: i64,
    pub nbf: i64,
    pub iat: i64,
    /// The session (refresh-token family) this token belongs to: revoking the family (logout,
    /// a refresh token reused after the leeway) ends its access tokens too.
    pub fam: Uuid,
}

pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// Derives a refresh token's successor (see [`JwtKeys::successor`]).
    rotation_key: Vec<u8>,
    /// Tokens whose signature and claims were verified, by their exact text: see
    /// [`JwtKeys::verify`].
    verified: quick_cache::sync::Cache<Box<str>, Claims>,
}

/// At most this many verified tokens are remembered (a few hundred bytes each); beyond it the
/// cache drops the least used.
const VERIFIED_TOKENS: usize = 1024;

/// Seconds of clock skew allowed on `exp`, `nbf` and `iat`.
const LEEWAY: i64 = 5;

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "nbf", "iat", "iss", "aud", "sub"]);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.leeway = LEEWAY as u64;
        JwtKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            rotation_key: [b"homestretch refresh rotation\0".as_slice(), secret].concat(),
            verified: quick_cache::sync::Cache::new(VERIFIED_TOKENS),
        }
    }

    /// An access token of session `family`, issued at `issued_at` (unix seconds). The same
    /// arguments give the same token (HS256 is deterministic): a duplicate refresh within the
    /// leeway is answered with exactly the pair the first one got.
    pub fn issue(
        &self,
        user: UserId,
        name: &str,
        family: Uuid,
        issued_at: i64,
    ) -> Result<String, AppError> {
        let claims = Claims {
            sub: user.to_string(),
            name: name.to_string(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            exp: issued_at + ACCESS_TTL_SECONDS,
            nbf: issued_at,
            iat: issued_at,
            fam: family,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| AppError::Internal(format!("signing a token: {e}")))
    }

    /// The refresh token that replaces `token`: HMAC-SHA256 of it under a server key. Only a
    /// holder of `token` can compute it, and recomputing it answers a concurrent duplicate with
    /// the same new token without ever storing a token in clear.
    pub fn successor(&self, token: &str) -> String {
        use hmac::{KeyInit, Mac};
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&self.rotation_key)
            .expect("HMAC takes keys of any length");
        mac.update(token.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// The claims of `token` once its signature and claims are verified. A mobile client sends
    /// one token with every request for its 15 minutes, and verifying it (base64, HMAC, JSON)
    /// was 5-6 % of the server's CPU at 64 games (issue 31): a token verified before is
    /// recognised by its exact text, so only its expiry is checked again. Only verified tokens
    /// are remembered; any other text, however close, takes the whole verification.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        self.verify_at(token, time::OffsetDateTime::now_utc().unix_timestamp())
    }

    fn verify_at(&self, token: &str, now: i64) -> Result<Claims, ApiError> {
        if let Some(claims) = self.verified.get(token) {
            // `nbf` and `iat` held when it was verified and time only moves on; `exp` may not.
            if claims.exp + LEEWAY < now {
                self.verified.remove(token);
                return Err(ApiError::Unauthorized(says("errors.token_expired")));
            }
            return Ok(claims);
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| ApiError::Unauthorized(describe(e.kind())))?;
        let claims = data.claims;
        if claims.iat > now + LEEWAY {
            return Err(ApiError::Unauthorized(says(
                "errors.token_issued_in_future",
            )));
        }
        self.verified.insert(token.into(), claims.clone());
        Ok(claims)
    }
}

/// Why an access token is refused.
fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> Says {
    use jsonwebtoken::errors::ErrorKind as K;
    match kind {
        K::ExpiredSignature => says("errors.token_expired"),
        K::ImmatureSignature => says("errors.token_not_yet_valid"),
        K::InvalidSignature => says("errors.token_bad_signature"),
        K::InvalidAlgorithm | K::InvalidAlgorithmName => says("errors.token_algorithm"),
        K::InvalidAudience => says("errors.token_wrong_audience"),
        K::InvalidIssuer => says("errors.token_wrong_issuer"),
        K::MissingRequiredClaim(_) => says("errors.token_missing_claim"),
        _ => says("errors.token_malformed"),
    }
}

/// The signed-in caller.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: UserId,
    pub name: String,
    /// The caller's session (refresh-token family).
    pub family: Uuid,
    /// When the access token expires (its `exp`, Unix seconds): an event stream ends then.
    pub expires: i64,
}

/// The bearer token's verification, done once per request by the request middleware (which
/// needs the user for the per-user rate limit) and read back by the extractor.
#[derive(Clone)]
pub struct Verified(pub Result<AuthUser, ApiError>);

/// Verifies the request's bearer token (signature and claims, not the family).
pub fn verify_request(req: &HttpRequest, jwt: &JwtKeys) -> Result<AuthUser, ApiError> {
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| ApiError::Unauthorized(says("errors.missing_bearer_token")))?;
    let value = header
        .to_str()
        .map_err(|_| ApiError::Unauthorized(says("errors.malformed_authorization")))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(|| ApiError::Unauthorized(says("errors.expected_bearer")))?;
    let claims = jwt.verify(token.trim())?;
    let id = claims
        .sub
        .parse()
        .map_err(|_| ApiError::Unauthorized(says("errors.token_bad_subject")))?;
    Ok(AuthUser {
        id,
        name: claims.name,
        family: claims.fam,
        expires: claims.exp,
    })
}

/// Which sessions are revoked, cached: the check runs on every authenticated request, so a
/// family's answer is kept for `ttl`. A revocation here updates the cache at once; one on
/// another instance arrives by `pg_notify` (see `adapters::pg_listen::Hub::listen`) and by
/// [`Sessions::poll_revocations`], which reads the recent revocations from the database every
/// [`REVOCATION_POLL`] (issue 26, item 6: a lost notification delays a revocation by seconds,
/// not by `ttl`). Every revocation learnt is announced to the open streams ([`Sessions::ended`]),
/// which end at once.
pub struct Sessions {
    cache: Mutex<HashMap<Uuid, (bool, Instant)>>,
    ttl: Duration,
    revoked: tokio::sync::broadcast::Sender<Uuid>,
}

/// How often every instance reads the revocations of the last [`REVOCATION_WINDOW`].
pub const REVOCATION_POLL: Duration = Duration::from_secs(2);
/// How far back each poll looks (it overlaps the previous polls: a revocation that commits
/// late, or while a poll failed, is still found).
const REVOCATION_WINDOW: Duration = Duration::from_secs(30);
/// An open stream also asks the (cached) session list this often, in case it missed an
/// announcement.
const STREAM_RECHECK: Duration = Duration::from_secs(5);

/// How long a family known to be alive is believed without asking the database again.
pub const SESSION_CACHE_TTL: Duration = Duration::from_secs(60);

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            cache: Mutex::new(HashMap::new()),
            ttl: SESSION_CACHE_TTL,
            revoked: tokio::sync::broadcast::channel(1024).0,
        }
    }
}

impl Sessions {
    /// Resolves when session `family` is revoked (logout, a refresh token reused, any other
    /// revocation): what ends an open stream. Woken by every revocation this instance learns
    /// (its own, `pg_notify`, the poll), and asks the cached list every [`STREAM_RECHECK`].
    pub fn ended(
        self: &std::sync::Arc<Self>,
        accounts: infra::accounts::Accounts,
        family: Uuid,
    ) -> impl std::future::Future<Output = ()> + 'static {
        use tokio::sync::broadcast::error::RecvError;
        let mut heard = self.revoked.subscribe();
        let sessions = self.clone();
        async move {
            loop {
                if let Ok(true) = sessions.revoked(&accounts, family).await {
                    return;
                }
                tokio::select! {
                    news = heard.recv() => match news {
                        Ok(revoked) if revoked == family => return,
                        Ok(_) | Err(RecvError::Lagged(_)) => {}
                        // The session list outlives its streams; never reached.
                        Err(RecvError::Closed) => std::future::pending::<()>().await,
                    },
                    _ = tokio::time::sleep(STREAM_RECHECK) => {}
                }
            }
        }
    }

    /// Reads the revocations of the last [`REVOCATION_WINDOW`] every [`REVOCATION_POLL`], for
    /// ever: the database, not a notification that may be lost, tells every instance.
    pub async fn poll_revocations(self: std::sync::Arc<Self>, accounts: infra::accounts::Accounts) {
        loop {
            match accounts.revoked_within(REVOCATION_WINDOW).await {
                Ok(families) => {
                    for family in families {
                        self.remember(family, true);
                    }
                }
                Err(error) => tracing::debug!(%error, "revocation poll failed; retrying"),
            }
            tokio::time::sleep(REVOCATION_POLL).await;
        }
    }

    /// Whether `family` is revoked (cached; the database when the cache does not know).
    async fn revoked(
        &self,
        accounts: &infra::accounts::Accounts,
        family: Uuid,
    ) -> Result<bool, ApiError> {
        let cached = self
            .cache
            .lock()
            .expect("sessions lock")
            .get(&family)
            .copied();
        Ok(match cached {
            Some((revoked, at)) if revoked || at.elapsed() < self.ttl => revoked,
            _ => match accounts.family_revoked(family).await {
                Ok(revoked) => {
                    self.remember(family, revoked);
                    revoked
                }
                // The database is away: a session seen alive recently stays usable (its tokens
                // live ACCESS_TTL_SECONDS at most); an unknown one cannot be checked.
                Err(_) if cached.is_some() => false,
                Err(error) => return Err(AppError::from(error).into()),
            },
        })
    }

    /// `Ok` when `family` is not revoked; 401 when it is.
    pub async fn ensure_alive(
        &self,
        accounts: &infra::accounts::Accounts,
        family: Uuid,
    ) -> Result<(), ApiError> {
        if self.revoked(accounts, family).await? {
            return Err(ApiError::Unauthorized(says("errors.session_ended")));
        }
        Ok(())
    }

    pub fn remember(&self, family: Uuid, revoked: bool) {
        let mut cache = self.cache.lock().expect("sessions lock");
        let news = revoked && !cache.get(&family).is_some_and(|(known, _)| *known);
        if news {
            // Open streams of the family end (none listening is no error).
            let _ = self.revoked.send(family);
        }
        if cache.len() > 100_000 {
            let ttl = self.ttl;
            cache.retain(|_, (revoked, at)| *revoked || at.elapsed() < ttl);
            if cache.len() > 100_000 {
                // Revoked families are in the database too: forgetting them costs a query.
                cache.clear();
            }
        }
        cache.insert(family, (revoked, Instant::now()));
    }

    /// Notifications may have been missed: ask the database again for every family.
    pub fn forget_all(&self) {
        self.cache
            .lock()
            .expect("sessions lock")
            .retain(|_, (revoked, _)| *revoked);
    }
}

pub fn hash_password(password: &str) -> Result<String, AppError> {
    use argon2::{Argon2, PasswordHasher};
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| AppError::Internal(format!("hashing a password: {e}")))
}

pub fn verify_password(password: &str, phc: &str) -> bool {
    use argon2::{Argon2, PasswordHash, PasswordVerifier};
    PasswordHash::new(phc)
        .map(|hash| {
            Argon2::default()
                .verify_password(password.as_bytes(), &hash)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A new opaque refresh token (256 random bits, URL-safe).
pub fn new_refresh_token() -> String {
    let mut bytes = [0u8; 32];
    infra::random::fill_random(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"a test secret a test secret a test secret";

    fn now() -> i64 {
        time::OffsetDateTime::now_utc().unix_timestamp()
    }

    fn token(keys: &JwtKeys, issued_at: i64) -> String {
        let user: UserId = Uuid::now_v7().to_string().parse().unwrap();
        keys.issue(user, "ada", Uuid::now_v7(), issued_at).unwrap()
    }

    fn refusal(result: Result<Claims, ApiError>) -> String {
        match result {
            Err(ApiError::Unauthorized(says)) => says.key.to_string(),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_verified_token_is_remembered_and_gives_the_same_claims() {
        let keys = JwtKeys::new(SECRET);
        let token = token(&keys, now());
        let first = keys.verify(&token).unwrap();
        assert_eq!(keys.verified.len(), 1);
        assert_eq!(keys.verify(&token).unwrap(), first);
        assert_eq!(keys.verified.len(), 1);
    }

    #[test]
    fn a_remembered_token_is_refused_once_it_expires() {
        let keys = JwtKeys::new(SECRET);
        let token = token(&keys, now());
        let claims = keys.verify(&token).unwrap();
        assert!(keys.verify_at(&token, claims.exp + LEEWAY).is_ok());
        assert_eq!(
            refusal(keys.verify_at(&token, claims.exp + LEEWAY + 1)),
            "errors.token_expired"
        );
        assert!(keys.verified.is_empty(), "an expired token is forgotten");
    }

    #[test]
    fn a_remembered_tokens_signature_on_other_claims_is_refused() {
        let keys = JwtKeys::new(SECRET);
        let token = token(&keys, now());
        keys.verify(&token).unwrap();
        // Another user's claims under the remembered token's header and signature.
        let other = self::token(&keys, now());
        let [header, _, signature]: [&str; 3] =
            token.split('.').collect::<Vec<_>>().try_into().unwrap();
        let forged = format!("{header}.{}.{signature}", other.split('.').nth(1).unwrap());
        assert_eq!(refusal(keys.verify(&forged)), "errors.token_bad_signature");
        // Nor is a token signed with another secret remembered as verified.
        let stranger = self::token(&JwtKeys::new(b"another secret another secret"), now());
        assert_eq!(
            refusal(keys.verify(&stranger)),
            "errors.token_bad_signature"
        );
        assert_eq!(keys.verified.len(), 1);
    }

    #[test]
    fn the_memory_of_verified_tokens_is_bounded() {
        let keys = JwtKeys::new(SECRET);
        for _ in 0..VERIFIED_TOKENS + 10 {
            keys.verify(&token(&keys, now())).unwrap();
            assert!(keys.verified.len() <= VERIFIED_TOKENS);
        }
    }
}
