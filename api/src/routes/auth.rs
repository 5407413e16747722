//! `/v1/auth/*` and `/v1/me`.

use crate::auth::{self, AuthUser, REFRESH_TTL_DAYS};
use crate::error::{ApiError, ApiResult, Problem};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, patch, post, web};
use infra::accounts::{RefreshOutcome, Revocation, Upgrade, User};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A user name: 1 to 32 letters, digits, `_`, `-`, `.` or spaces, not blank.
pub struct UserName(String);

impl UserName {
    pub fn parse(raw: &str) -> Result<UserName, ApiError> {
        let name = raw.trim();
        let ok_chars = name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
        if name.is_empty() || name.chars().count() > 32 || !ok_chars {
            return Err(ApiError::Invalid(
                "name must be 1 to 32 letters, digits, spaces, `_`, `-` or `.`".into(),
            ));
        }
        Ok(UserName(name.to_string()))
    }
}

fn parse_password(raw: &str) -> Result<&str, ApiError> {
    if raw.chars().count() < 8 || raw.chars().count() > 128 {
        return Err(ApiError::Invalid(
            "password must be 8 to 128 characters".into(),
        ));
    }
    Ok(raw)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    #[schema(example = "alice", max_length = 32)]
    pub name: String,
    #[schema(example = "correct horse battery", min_length = 8, max_length = 128)]
    pub password: String,
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct GuestRequest {
    /// Optional display name prefix; a unique suffix is added.
    #[schema(example = "Player", max_length = 20)]
    pub name: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

#[derive(Serialize, Deserialize, ToSchema, Clone)]
pub struct UserInfo {
    pub id: uuid::Uuid,
    pub name: String,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct TokenResponse {
    /// Short-lived HS256 JWT for `Authorization: Bearer`.
    pub access_token: String,
    /// Opaque: exchange it at `/v1/auth/refresh` for a new pair. It works once; the same token
    /// sent again within a few seconds (a client's own race) gets the same new pair, later it
    /// ends the session.
    pub refresh_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    /// Seconds until the access token expires.
    #[schema(example = 900)]
    pub expires_in: i64,
    pub user: UserInfo,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct Me {
    pub id: uuid::Uuid,
    pub name: String,
    pub is_guest: bool,
    pub is_admin: bool,
    /// The language of problem texts and notifications when a request sends no
    /// `Accept-Language` (issue 18); `null`: no preference (English).
    pub language: Option<Language>,
}

/// A language of the message catalogue.
#[derive(Serialize, Deserialize, ToSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    En,
    Fr,
}

impl From<Language> for domain::i18n::Lang {
    fn from(language: Language) -> Self {
        match language {
            Language::En => domain::i18n::Lang::En,
            Language::Fr => domain::i18n::Lang::Fr,
        }
    }
}

impl From<domain::i18n::Lang> for Language {
    fn from(lang: domain::i18n::Lang) -> Self {
        match lang {
            domain::i18n::Lang::En => Language::En,
            domain::i18n::Lang::Fr => Language::Fr,
        }
    }
}

/// `PATCH /v1/me`: the fields to change; a field left out stays as it is.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MePatch {
    /// `"en"`, `"fr"`, or `null` to clear the preference.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Language>)]
    pub language: Option<Option<Language>>,
}

/// A field that is present (even as `null`), told apart from one left out (`None`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A new session (family) for `user`: an access token and a random first refresh token.
async fn new_session(state: &AppState, user: &User) -> ApiResult<TokenResponse> {
    let family = uuid::Uuid::new_v4();
    let refresh_token = auth::new_refresh_token();
    state
        .accounts
        .store_refresh(
            &refresh_token,
            user.id,
            family,
            time::Duration::days(REFRESH_TTL_DAYS),
        )
        .await?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    pair(state, user, family, now, refresh_token)
}

fn pair(
    state: &AppState,
    user: &User,
    family: uuid::Uuid,
    issued_at: i64,
    refresh_token: String,
) -> ApiResult<TokenResponse> {
    Ok(TokenResponse {
        access_token: state.jwt.issue(user.id, &user.name, family, issued_at)?,
        refresh_token,
        token_type: "Bearer".into(),
        expires_in: auth::ACCESS_TTL_SECONDS,
        user: UserInfo {
            id: user.id.0,
            name: user.name.clone(),
        },
    })
}

/// Create an account with a password (stored as argon2id). Sent with a guest's bearer token,
/// it upgrades that guest in place instead (issue 18): the same user id, so the guest's seats
/// and games stay theirs and its sessions go on; the answer (200) is a new session under the
/// new name.
#[utoipa::path(post, path = "/v1/auth/register", tag = "auth", request_body = Credentials,
    security((), ("bearer" = [])),
    responses((status = 201, body = TokenResponse, description = "a new account"),
              (status = 200, body = TokenResponse, description = "the guest of the bearer token, now a named account (same user id)"),
              (status = 401, body = Problem, description = "the bearer token is invalid, expired or revoked"),
              (status = 422, body = Problem, description = "invalid or taken name, weak password, or the caller is already registered"),
              (status = 429, body = Problem, description = "too many new accounts from this address")))]
#[post("/v1/auth/register")]
pub async fn register(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Credentials>,
) -> ApiResult<HttpResponse> {
    // Limited per address before the body is read: `limits::route_limit`.
    let name = UserName::parse(&body.name)?;
    let password = parse_password(&body.password)?.to_string();
    // A token that does not verify is refused, never taken for "no token": the guest would
    // otherwise end up with a second, empty account.
    let upgrading = if req.headers().contains_key(header::AUTHORIZATION) {
        Some(AuthUser::extract(&req).await?)
    } else {
        None
    };
    let hash = web::block(move || auth::hash_password(&password))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    let Some(caller) = upgrading else {
        let Some(user) = state.accounts.create(&name.0, Some(&hash), false).await? else {
            return Err(ApiError::Invalid("this name is already taken".into()));
        };
        return Ok(HttpResponse::Created().json(new_session(&state, &user).await?));
    };
    match state
        .accounts
        .upgrade_guest(caller.id, &name.0, &hash)
        .await?
    {
        Upgrade::Upgraded(user) => {
            state.games.renamed(user.id, &user.name).await?;
            Ok(HttpResponse::Ok().json(new_session(&state, &user).await?))
        }
        Upgrade::NameTaken => Err(ApiError::Invalid("this name is already taken".into())),
        Upgrade::NotAGuest => Err(ApiError::Invalid(
            "you already have a registered account: sign in with `/v1/auth/login`, or register \
             a new account without the bearer token"
                .into(),
        )),
        Upgrade::UnknownUser => Err(ApiError::Unauthorized("unknown user".into())),
    }
}

/// Sign in with name and password.
#[utoipa::path(post, path = "/v1/auth/login", tag = "auth", request_body = Credentials,
    responses((status = 200, body = TokenResponse), (status = 401, body = Problem),
              (status = 429, body = Problem, description = "too many attempts from this address")))]
#[post("/v1/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    body: web::Json<Credentials>,
) -> ApiResult<HttpResponse> {
    // Each attempt costs an argon2id hash: limited per address (`limits::route_limit`).
    // A name no account can have (control characters, too long) is simply unknown.
    let user = match UserName::parse(&body.name) {
        Ok(name) => state.accounts.by_name(&name.0).await?,
        Err(_) => None,
    };
    let password = body.password.clone();
    let phc = user.as_ref().and_then(|u| u.password_hash.clone());
    // Verify even for unknown users, so timing does not reveal which names exist.
    let ok = web::block(move || match phc {
        Some(phc) => auth::verify_password(&password, &phc),
        None => {
            let _ = auth::verify_password(&password, DUMMY_HASH);
            false
        }
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?;
    match user {
        Some(user) if ok => Ok(HttpResponse::Ok().json(new_session(&state, &user).await?)),
        _ => Err(ApiError::Unauthorized("wrong name or password".into())),
    }
}

const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2o8r6GkN9X3hQvIuLZPqZ7o5b0zQ3z0V3S0b5V6b5lE";

/// Instant guest account, for a mobile app's first launch.
#[utoipa::path(post, path = "/v1/auth/guest", tag = "auth", request_body(content = Option<GuestRequest>, description = "optional"),
    responses((status = 201, body = TokenResponse),
              (status = 429, body = Problem, description = "too many new accounts from this address")))]
#[post("/v1/auth/guest")]
pub async fn guest(
    state: web::Data<AppState>,
    body: crate::routes::games::OptionalJson<GuestRequest>,
) -> ApiResult<HttpResponse> {
    // Limited per address before the body is read: `limits::route_limit`.
    let prefix = body
        .0
        .and_then(|b| b.name)
        .unwrap_or_else(|| "guest".into());
    let prefix: String = UserName::parse(&prefix)?.0.chars().take(20).collect();
    for _ in 0..5 {
        let mut suffix = [0u8; 4];
        infra::random::fill_random(&mut suffix);
        let name = format!("{prefix}-{}", hex::encode(suffix));
        if let Some(user) = state.accounts.create(&name, None, true).await? {
            return Ok(HttpResponse::Created().json(new_session(&state, &user).await?));
        }
    }
    Err(ApiError::Internal(
        "could not find a free guest name".into(),
    ))
}

/// Exchange a refresh token for a new pair. A refresh token works once. Sent again within the
/// leeway (a few seconds: two requests that hit 401 together and both refresh) it gets the very
/// same new pair; sent again later it is taken for a stolen copy and ends the whole session,
/// the tokens already issued from it included.
#[utoipa::path(post, path = "/v1/auth/refresh", tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = TokenResponse), (status = 401, body = Problem)))]
#[post("/v1/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: web::Json<RefreshRequest>,
) -> ApiResult<HttpResponse> {
    let successor = state.jwt.successor(&body.refresh_token);
    let outcome = state
        .accounts
        .spend_refresh(
            &body.refresh_token,
            &successor,
            time::Duration::days(REFRESH_TTL_DAYS),
            time::Duration::try_from(state.refresh_leeway).unwrap_or(time::Duration::ZERO),
        )
        .await?;
    match outcome {
        RefreshOutcome::Rotated {
            user,
            family,
            rotated_at,
        } => {
            let user = state
                .accounts
                .by_id(user)
                .await?
                .ok_or_else(|| ApiError::Unauthorized("unknown user".into()))?;
            // Issued at the first spend: every duplicate gets the same access token.
            let pair = pair(
                &state,
                &user,
                family,
                rotated_at.unix_timestamp(),
                successor,
            )?;
            Ok(HttpResponse::Ok().json(pair))
        }
        RefreshOutcome::Reused { family } => {
            state.sessions.remember(family, true);
            Err(ApiError::Unauthorized(
                "refresh token already used: every token of this session is revoked".into(),
            ))
        }
        RefreshOutcome::Invalid => Err(ApiError::Unauthorized(
            "invalid or expired refresh token".into(),
        )),
    }
}

/// End the caller's session: its refresh token and every access token of the session stop
/// working (other sessions of the same user go on).
#[utoipa::path(post, path = "/v1/auth/logout", tag = "auth", security(("bearer" = [])),
    responses((status = 204, description = "signed out"), (status = 401, body = Problem)))]
#[post("/v1/auth/logout")]
pub async fn logout(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    state
        .accounts
        .revoke_family(user.family, user.id, Revocation::Logout)
        .await?;
    state.sessions.remember(user.family, true);
    Ok(HttpResponse::NoContent().finish())
}

/// The signed-in user.
#[utoipa::path(get, path = "/v1/me", tag = "auth", security(("bearer" = [])),
    responses((status = 200, body = Me), (status = 401, body = Problem)))]
#[get("/v1/me")]
pub async fn me(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    me_of(&state, &user).await
}

async fn me_of(state: &AppState, user: &AuthUser) -> ApiResult<HttpResponse> {
    let record = state
        .accounts
        .by_id(user.id)
        .await?
        .ok_or_else(|| ApiError::Unauthorized("unknown user".into()))?;
    let is_admin = state.is_admin(user).await?;
    let language = state.accounts.language(user.id).await?.map(Language::from);
    Ok(HttpResponse::Ok().json(Me {
        id: record.id.0,
        name: record.name,
        is_guest: record.is_guest,
        is_admin,
        language,
    }))
}

/// Changes the signed-in user's settings: `language` (issue 18).
#[utoipa::path(patch, path = "/v1/me", tag = "auth", security(("bearer" = [])), request_body = MePatch,
    responses((status = 200, body = Me), (status = 401, body = Problem), (status = 422, body = Problem)))]
#[patch("/v1/me")]
pub async fn update_me(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<MePatch>,
) -> ApiResult<HttpResponse> {
    if let Some(language) = body.into_inner().language {
        state
            .accounts
            .set_language(user.id, language.map(Into::into))
            .await?;
    }
    me_of(&state, &user).await
}
