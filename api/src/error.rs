//! One error type for the HTTP layer, mapped once to RFC 9457 `application/problem+json`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use domain::i18n::{self, Lang, Says};
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
    /// A rule violation's specifics as the engine said them (a catalogue key and its
    /// arguments), to tell them in the caller's language; never serialized.
    #[serde(skip)]
    pub says: Option<Says>,
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
            says: None,
        }
    }

    /// The one place a problem+json answer is built: `response` (status and any other
    /// headers already set) with this problem, told in English, as its body. The problem as
    /// given rides along in the response's extensions, for `crate::i18n::localize` to tell it
    /// again in the language the request asks for.
    pub fn respond(&self, mut response: actix_web::HttpResponseBuilder) -> HttpResponse {
        response.insert_header((header::CONTENT_TYPE, PROBLEM_JSON));
        response.insert_header((header::CONTENT_LANGUAGE, Lang::En.tag()));
        let response = response.finish();
        let retry_after = retry_after_of(response.headers());
        let body = self.localized(Lang::En, retry_after).to_json();
        let mut response = response.set_body(body).map_into_boxed_body();
        response.extensions_mut().insert(self.clone());
        response
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// This problem told in `lang` from the catalogue (`domain/i18n`, issue 18): the title of
    /// its type; as detail, for a rule violation `"<rule>: <the rule's sentence> (<the
    /// engine's specifics>)"`, the specifics told from the catalogue's `violations.<key>` in
    /// `lang` too; else the type's sentence with its arguments (`current_version`,
    /// `retry_after`). `type`, `rule` and `status` never change. English answers keep the
    /// server's other specifics (the field a body lacks …) after the sentence; they are English
    /// text, so a French answer leaves them out and stays entirely French.
    pub fn localized(&self, lang: Lang, retry_after: Option<u64>) -> Problem {
        let slug = self.kind.strip_prefix("/problems/").unwrap_or(&self.kind);
        let Some(text) = i18n::problem(slug, lang) else {
            return self.clone();
        };
        let version = self.current_version.map(|v| v.to_string());
        let retry = retry_after.map(|s| s.to_string());
        let mut args: Vec<(&str, &str)> = Vec::new();
        if let Some(v) = &version {
            args.push(("current_version", v));
        }
        if let Some(r) = &retry {
            args.push(("retry_after", r));
        }
        let (sentence, specific) = match &self.rule {
            Some(rule) => {
                // A rule the catalogue does not know (a test game's) gets the type's sentence.
                let text = i18n::rule(rule, lang).unwrap_or(&text.detail);
                let colon = if lang == Lang::Fr { " : " } else { ": " };
                let specific = match &self.says {
                    Some(says) => says.tell(lang),
                    None => self
                        .detail
                        .strip_prefix(rule.as_str())
                        .and_then(|d| d.strip_prefix(": "))
                        .unwrap_or(&self.detail)
                        .to_string(),
                };
                (format!("{rule}{colon}{text}"), specific)
            }
            None => (i18n::fill(&text.detail, lang, &args), self.detail.clone()),
        };
        let specific = specific.as_str();
        // French specifics only when the catalogue told them (any other is English text).
        let told = lang == Lang::En || self.says.is_some();
        let detail = if told
            && !specific.is_empty()
            && !specific.eq_ignore_ascii_case(&text.title)
            && !sentence.ends_with(specific)
        {
            format!("{sentence} ({specific})")
        } else {
            sentence
        };
        Problem {
            title: text.title.clone(),
            detail,
            ..self.clone()
        }
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
    Rule {
        rule: String,
        message: String,
        /// The specifics as data, to tell them in the caller's language.
        says: Option<Says>,
    },
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
            // Internals are logged, never echoed; for these the catalogue's sentence (with its
            // arguments) says all there is to say, in the caller's language.
            ApiError::Internal(_)
            | ApiError::Unavailable(_)
            | ApiError::TooManyRequests { .. }
            | ApiError::Busy { .. }
            | ApiError::Conflict { .. } => String::new(),
            ApiError::Rule { rule, message, .. } => format!("{rule}: {message}"),
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
            says: match self {
                ApiError::Rule { says, .. } => says.clone(),
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
                says: v.says,
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

/// The seconds of a `Retry-After` header, the argument of the "retry after" texts.
pub fn retry_after_of(headers: &header::HeaderMap) -> Option<u64> {
    headers
        .get(header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(rule: &str, message: &str) -> Problem {
        ApiError::Rule {
            rule: rule.into(),
            message: message.into(),
            says: None,
        }
        .problem()
    }

    // Issue 18: the engine's specifics are told from the catalogue in each language.
    #[test]
    fn the_engine_specifics_are_told_in_both_languages() {
        let says = i18n::says("tax_no_partial_payment_allowed_discard").arg("t", 3u32);
        let problem = ApiError::Rule {
            rule: "WR-120".into(),
            message: says.tell(Lang::En),
            says: Some(says.clone()),
        }
        .problem();
        let en = problem.localized(Lang::En, None);
        assert_eq!(
            en.detail,
            format!(
                "WR-120: {} (the tax is 3 and no partial payment is allowed; discard a whisky instead)",
                i18n::rule("WR-120", Lang::En).unwrap()
            )
        );
        let fr = problem.localized(Lang::Fr, None);
        assert_eq!(
            fr.detail,
            format!(
                "WR-120 : {} ({})",
                i18n::rule("WR-120", Lang::Fr).unwrap(),
                says.tell(Lang::Fr)
            )
        );
        assert!(says.tell(Lang::Fr).contains("la taxe est de 3"), "{fr:?}");
        // The data never reaches the wire.
        assert!(!fr.to_json().contains("says"), "{}", fr.to_json());
    }

    #[test]
    fn english_keeps_untold_specifics_and_french_is_french_throughout() {
        let problem = rule("WR-120", "the tax is 3 and no partial payment is allowed");
        let en = problem.localized(Lang::En, None);
        assert_eq!(
            en.detail,
            format!(
                "WR-120: {} (the tax is 3 and no partial payment is allowed)",
                i18n::rule("WR-120", Lang::En).unwrap()
            )
        );
        let fr = problem.localized(Lang::Fr, None);
        assert_eq!(
            fr.detail,
            format!("WR-120 : {}", i18n::rule("WR-120", Lang::Fr).unwrap())
        );
        assert_eq!(fr.title, "Coup contraire aux règles");
        for localized in [&en, &fr] {
            assert_eq!(localized.kind, "/problems/rule-violation");
            assert_eq!(localized.rule.as_deref(), Some("WR-120"));
            assert_eq!(localized.status, 422);
        }
    }

    #[test]
    fn a_rule_the_catalogue_does_not_know_gets_the_generic_sentence() {
        let fr = rule("CD-1", "not your turn").localized(Lang::Fr, None);
        let generic = &i18n::problem("rule-violation", Lang::Fr).unwrap().detail;
        assert_eq!(fr.detail, format!("CD-1 : {generic}"));
        assert_eq!(fr.rule.as_deref(), Some("CD-1"));
    }

    #[test]
    fn arguments_fill_the_generic_sentences() {
        let busy = ApiError::TooManyRequests { retry_after: 7 }.problem();
        assert_eq!(
            busy.localized(Lang::Fr, Some(7)).detail,
            "Trop de requêtes ; attendez 7 s puis réessayez."
        );
        let stale = ApiError::Conflict { current: 12 }.problem();
        assert!(
            stale
                .localized(Lang::En, None)
                .detail
                .contains("version 12"),
            "{:?}",
            stale.localized(Lang::En, None)
        );
        // Internals are never echoed, in any language.
        let internal = ApiError::Internal("secret path /etc".into()).problem();
        for lang in i18n::LANGS {
            assert!(!internal.localized(lang, None).detail.contains("secret"));
        }
    }
}
