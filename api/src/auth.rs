//! Authentication: short-lived HS256 access tokens (algorithm pinned; iss/aud/exp/nbf/iat
//! checked), rotating opaque refresh tokens, argon2id passwords, and the `AuthUser` extractor.

use crate::error::ApiError;
use crate::state::AppState;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use infra::UserId;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::future::{Ready, ready};

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
}

pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "nbf", "iat", "iss", "aud", "sub"]);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.leeway = 5;
        JwtKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    pub fn issue(&self, user: UserId, name: &str) -> Result<String, ApiError> {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let claims = Claims {
            sub: user.to_string(),
            name: name.to_string(),
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            exp: now + ACCESS_TTL_SECONDS,
            nbf: now,
            iat: now,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))
    }

    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| {
                ApiError::Unauthorized(format!("invalid access token: {}", describe(e.kind())))
            })?;
        let claims = data.claims;
        if claims.iat > time::OffsetDateTime::now_utc().unix_timestamp() + 5 {
            return Err(ApiError::Unauthorized(
                "invalid access token: issued in the future".into(),
            ));
        }
        Ok(claims)
    }
}

fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind as K;
    match kind {
        K::ExpiredSignature => "expired",
        K::ImmatureSignature => "not yet valid",
        K::InvalidSignature => "bad signature",
        K::InvalidAlgorithm | K::InvalidAlgorithmName => "algorithm not allowed",
        K::InvalidAudience => "wrong audience",
        K::InvalidIssuer => "wrong issuer",
        K::MissingRequiredClaim(_) => "missing claim",
        _ => "malformed",
    }
}

/// The signed-in caller.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: UserId,
    pub name: String,
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(authenticate(req))
    }
}

fn authenticate(req: &HttpRequest) -> Result<AuthUser, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::Internal("app state missing".into()))?;
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    let value = header
        .to_str()
        .map_err(|_| ApiError::Unauthorized("malformed Authorization header".into()))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(|| ApiError::Unauthorized("expected `Authorization: Bearer <token>`".into()))?;
    let claims = state.jwt.verify(token.trim())?;
    let id = claims
        .sub
        .parse()
        .map_err(|_| ApiError::Unauthorized("invalid access token: bad subject".into()))?;
    Ok(AuthUser {
        id,
        name: claims.name,
    })
}

pub fn hash_password(password: &str) -> Result<String, ApiError> {
    use argon2::{Argon2, PasswordHasher};
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| ApiError::Internal(format!("hashing a password: {e}")))
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
    infra::games::fill_random(&mut bytes);
    hex::encode(bytes)
}
