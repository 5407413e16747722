//! `/v1/auth/*` and `/v1/me`.

use crate::application::accounts::{Password, Profile, Session, UserName};
use crate::auth::{self, AuthUser};
use crate::error::{ApiResult, Problem};
use crate::extract::OptionalAuth;
use crate::state::AppState;
use actix_web::{HttpResponse, get, patch, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

impl From<Session> for TokenResponse {
    fn from(session: Session) -> Self {
        TokenResponse {
            access_token: session.access_token,
            refresh_token: session.refresh_token,
            token_type: "Bearer".into(),
            expires_in: auth::ACCESS_TTL_SECONDS,
            user: UserInfo {
                id: session.user.id.0,
                name: session.user.name,
            },
        }
    }
}

/// Create an account with a password (stored as argon2id). Sent with a guest's bearer token,
/// it upgrades that guest in place instead (issue 18): the same user id, so the guest's seats
/// and games stay theirs and its sessions go on; the answer (200) is a new session under the
/// new name.
#[utoipa::path(tag = "auth", request_body = Credentials,
    security((), ("bearer" = [])),
    responses((status = 201, body = TokenResponse, description = "a new account"),
              (status = 200, body = TokenResponse, description = "the guest of the bearer token, now a named account (same user id)"),
              (status = 401, body = Problem, description = "the bearer token is invalid, expired or revoked"),
              (status = 422, body = Problem, description = "invalid or taken name, weak password, or the caller is already registered"),
              (status = 429, body = Problem, description = "too many new accounts from this address")))]
#[post("/v1/auth/register")]
pub async fn register(
    state: web::Data<AppState>,
    body: web::Json<Credentials>,
    upgrading: OptionalAuth,
) -> ApiResult<HttpResponse> {
    // Limited per address before the body is read: `limits::route_limit`. A guest's token
    // makes it an upgrade (checked after the name and password, as before): the guest would
    // otherwise end up with a second, empty account.
    let name = UserName::parse(&body.name)?;
    let password = Password::parse(&body.password)?;
    let (created, session) = state
        .users
        .register(name, password, upgrading.user()?.map(|u| u.id))
        .await?;
    let mut answer = if created {
        HttpResponse::Created()
    } else {
        HttpResponse::Ok()
    };
    Ok(answer.json(TokenResponse::from(session)))
}

/// Sign in with name and password.
#[utoipa::path(tag = "auth", request_body = Credentials,
    responses((status = 200, body = TokenResponse), (status = 401, body = Problem),
              (status = 429, body = Problem, description = "too many attempts from this address")))]
#[post("/v1/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    body: web::Json<Credentials>,
) -> ApiResult<HttpResponse> {
    // Limited per address before the body is read: `limits::route_limit`.
    let session = state.users.login(&body.name, &body.password).await?;
    Ok(HttpResponse::Ok().json(TokenResponse::from(session)))
}

/// Instant guest account, for a mobile app's first launch.
#[utoipa::path(tag = "auth", request_body(content = Option<GuestRequest>, description = "optional"),
    responses((status = 201, body = TokenResponse),
              (status = 429, body = Problem, description = "too many new accounts from this address")))]
#[post("/v1/auth/guest")]
pub async fn guest(
    state: web::Data<AppState>,
    body: crate::extract::OptionalJson<GuestRequest>,
) -> ApiResult<HttpResponse> {
    // Limited per address before the body is read: `limits::route_limit`.
    let session = state.users.guest(body.0.and_then(|b| b.name)).await?;
    Ok(HttpResponse::Created().json(TokenResponse::from(session)))
}

/// Exchange a refresh token for a new pair. A refresh token works once. Sent again within the
/// leeway (a few seconds: two requests that hit 401 together and both refresh) it gets the very
/// same new pair; sent again later it is taken for a stolen copy and ends the whole session,
/// the tokens already issued from it included.
#[utoipa::path(tag = "auth", request_body = RefreshRequest,
    responses((status = 200, body = TokenResponse), (status = 401, body = Problem)))]
#[post("/v1/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: web::Json<RefreshRequest>,
) -> ApiResult<HttpResponse> {
    let session = state.users.refresh(&body.refresh_token).await?;
    Ok(HttpResponse::Ok().json(TokenResponse::from(session)))
}

/// End the caller's session: its refresh token and every access token of the session stop
/// working (other sessions of the same user go on).
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses((status = 204, description = "signed out"), (status = 401, body = Problem)))]
#[post("/v1/auth/logout")]
pub async fn logout(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    state.users.logout(user.id, user.family).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The signed-in user.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses((status = 200, body = Me), (status = 401, body = Problem)))]
#[get("/v1/me")]
pub async fn me(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    let profile = state.users.profile(user.id, None).await?;
    Ok(HttpResponse::Ok().json(Me::from(profile)))
}

impl From<Profile> for Me {
    fn from(profile: Profile) -> Self {
        Me {
            id: profile.user.id.0,
            name: profile.user.name,
            is_guest: profile.user.is_guest,
            is_admin: profile.is_admin,
            language: profile.language.map(Language::from),
        }
    }
}

/// Changes the signed-in user's settings: `language` (issue 18).
#[utoipa::path(tag = "auth", security(("bearer" = [])), request_body = MePatch,
    responses((status = 200, body = Me), (status = 401, body = Problem), (status = 422, body = Problem)))]
#[patch("/v1/me")]
pub async fn update_me(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<MePatch>,
) -> ApiResult<HttpResponse> {
    let language = body.into_inner().language.map(|l| l.map(Into::into));
    let profile = state.users.profile(user.id, language).await?;
    Ok(HttpResponse::Ok().json(Me::from(profile)))
}
