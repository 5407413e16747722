//! One error type for the HTTP layer, mapped once to RFC 9457 `application/problem+json`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use infra::StoreError;
use serde::{Deserialize, Serialize};

pub const PROBLEM_JSON: &str = "application/problem+json";

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem (stable; part of the contract).
    #[serde(rename = "type")]
    #[schema(example = "/problems/rule-violation")]
    pub kind: String,
    #[schema(example = "Rule violation")]
    pub title: String,
    #[schema(example = 422)]
    pub status: u16,
    #[schema(example = "WR-019: the amount must be between 1 and your supply")]
    pub detail: String,
    /// The violated rule ID, for rule violations.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "WR-019")]
    pub rule: Option<String>,
    /// The current version, for version conflicts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// The request id (also in the `x-request-id` header and the server logs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

impl Problem {
    /// A problem of kind `/problems/{slug}` (no rule, version or request id).
    pub fn new(status: StatusCode, slug: &str, title: &str, detail: impl Into<String>) -> Self {
        Problem {
            kind: format!("/problems/{slug}"),
            title: title.into(),
            status: status.as_u16(),
            detail: detail.into(),
            rule: None,
            current_version: None,
            instance: None,
        }
    }

    /// The one place a problem+json answer is built: `response` (status and any other
    /// headers already set) with this problem as its body.
    pub fn respond(&self, mut response: actix_web::HttpResponseBuilder) -> HttpResponse {
        response.insert_header((header::CONTENT_TYPE, PROBLEM_JSON));
        response.body(serde_json::to_string(self).unwrap_or_default())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("version conflict: the game is at version {current}")]
    Conflict { current: u64 },
    #[error("{0}")]
    Invalid(String),
    #[error("{message}")]
    Rule { rule: String, message: String },
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("too many requests from this client; retry after {retry_after} s")]
    TooManyRequests { retry_after: u64 },
    #[error("the server is at capacity; retry after {retry_after} s")]
    Busy { retry_after: u64 },
    #[error("{0}")]
    Timeout(String),
    #[error("service unavailable: {0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    fn slug_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::BadRequest(_) => ("bad-request", "Bad request"),
            ApiError::Unauthorized(_) => ("unauthorized", "Unauthorized"),
            ApiError::Forbidden(_) => ("forbidden", "Forbidden"),
            ApiError::NotFound(_) => ("not-found", "Not found"),
            ApiError::Conflict { .. } => ("version-conflict", "Version conflict"),
            ApiError::Invalid(_) => ("invalid-request", "Invalid request"),
            ApiError::Rule { .. } => ("rule-violation", "Rule violation"),
            ApiError::PayloadTooLarge(_) => ("payload-too-large", "Payload too large"),
            ApiError::TooManyRequests { .. } => ("rate-limited", "Too many requests"),
            ApiError::Busy { .. } => ("at-capacity", "Server at capacity"),
            ApiError::Timeout(_) => ("request-timeout", "Request timeout"),
            ApiError::Unavailable(_) => ("unavailable", "Service unavailable"),
            ApiError::Internal(_) => ("internal", "Internal error"),
        }
    }

    pub fn problem(&self) -> Problem {
        let (slug, title) = self.slug_title();
        let detail = match self {
            // Internals are logged, never echoed.
            ApiError::Internal(_) => "an internal error occurred; it has been logged".to_string(),
            ApiError::Unavailable(_) => "the database is unavailable; retry shortly".to_string(),
            ApiError::Rule { rule, message } => format!("{rule}: {message}"),
            other => other.to_string(),
        };
        Problem {
            rule: match self {
                ApiError::Rule { rule, .. } => Some(rule.clone()),
                _ => None,
            },
            current_version: match self {
                ApiError::Conflict { current } => Some(*current),
                _ => None,
            },
            ..Problem::new(self.status_code(), slug, title, detail)
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Invalid(_) | ApiError::Rule { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(detail) = self {
            tracing::error!(%detail, "internal error");
        }
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Unauthorized(_) => {
                response.insert_header((
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"homestretch\""),
                ));
            }
            ApiError::TooManyRequests { retry_after } | ApiError::Busy { retry_after } => {
                response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
            }
            ApiError::Timeout(_) => {
                // The rest of a slow body is not worth waiting for: close the connection.
                response.force_close();
            }
            ApiError::Unavailable(_) => {
                response.insert_header((header::RETRY_AFTER, "2"));
            }
            _ => {}
        }
        self.problem().respond(response)
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(what) => ApiError::NotFound(format!("{what} not found")),
            StoreError::Conflict { current } => ApiError::Conflict { current },
            StoreError::IdempotencyMismatch => ApiError::Invalid(
                "this command_id was already used with a different command".into(),
            ),
            StoreError::Rejected(domain::Rejection::Rule(v)) => ApiError::Rule {
                rule: v.rule.into_owned(),
                message: v.message,
            },
            StoreError::Rejected(domain::Rejection::Malformed(m)) => {
                ApiError::Invalid(format!("invalid command: {m}"))
            }
            StoreError::Forbidden(m) => ApiError::Forbidden(m),
            StoreError::Invalid(m) => ApiError::Invalid(m),
            StoreError::Unavailable(m) => ApiError::Unavailable(m),
            StoreError::Corrupt(m) => ApiError::Internal(format!("corrupt: {m}")),
            StoreError::Database(e) => ApiError::Internal(e.to_string()),
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
