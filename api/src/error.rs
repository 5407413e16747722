//! One error type for the HTTP layer, mapped once to RFC 9457 `application/problem+json`.

use crate::application::error::AppError;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use domain::i18n::{self, Lang, Says, says};
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
    /// The specifics as data (a catalogue key and its arguments: the engine's `violations.*`
    /// or the server's `errors.*`), to tell them in the caller's language; never serialized.
    #[serde(skip)]
    pub says: Option<Says>,
}

impl Problem {
    /// This problem with `says` as its specifics (the English `detail` is told from it).
    pub fn saying(self, says: Says) -> Self {
        Problem {
            detail: says.tell(Lang::En),
            says: Some(says),
            ..self
        }
    }

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
    /// `retry_after`), then the server's specifics told from the catalogue's `errors.<key>`
    /// (issue 18: a French caller is told what was wrong, in French). `type`, `rule` and
    /// `status` never change. Specifics that are not data (a problem built elsewhere, a rule
    /// violation of a test game) are English text: English answers keep them, French ones
    /// leave them out.
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
            None => {
                let specific = match &self.says {
                    Some(says) => says.tell(lang),
                    None => self.detail.clone(),
                };
                (i18n::fill(&text.detail, lang, &args), specific)
            }
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

/// The errors of the HTTP layer. What a caller is told is data, [`Says`] (an `errors.<key>`
/// of the catalogue and its arguments), never an English sentence, so every problem is told
/// in French too (issue 18). The `String`s of `Unavailable` and `Internal` are for the logs:
/// they never reach the caller.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(Says),
    #[error("{0}")]
    Unauthorized(Says),
    #[error("{0}")]
    Forbidden(Says),
    #[error("{0}")]
    NotFound(Says),
    #[error("version conflict: the game is at version {current}")]
    Conflict { current: u64 },
    #[error("{0}")]
    Invalid(Says),
    #[error("{message}")]
    Rule {
        rule: String,
        message: String,
        /// The specifics as data, to tell them in the caller's language.
        says: Option<Says>,
    },
    #[error("{0}")]
    PayloadTooLarge(Says),
    #[error("too many requests from this client; retry after {retry_after} s")]
    TooManyRequests { retry_after: u64 },
    /// The caller holds as many of something as its quota allows (issue 26): 429 naming the
    /// quota; deleting one makes room (no `Retry-After`: waiting does not).
    #[error("{0}")]
    Quota(Says),
    #[error("the server is at capacity; retry after {retry_after} s")]
    Busy { retry_after: u64 },
    #[error("{0}")]
    Timeout(Says),
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
            ApiError::Quota(_) => ("quota-exceeded", "Quota exceeded"),
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
            says: self.says().cloned(),
            ..Problem::new(self.status_code(), slug, title, detail)
        }
    }
}

impl ApiError {
    /// The specifics as data, if the error has any to tell.
    pub fn says(&self) -> Option<&Says> {
        match self {
            ApiError::BadRequest(says)
            | ApiError::Unauthorized(says)
            | ApiError::Forbidden(says)
            | ApiError::NotFound(says)
            | ApiError::Invalid(says)
            | ApiError::PayloadTooLarge(says)
            | ApiError::Quota(says)
            | ApiError::Timeout(says) => Some(says),
            ApiError::Rule { says, .. } => says.as_ref(),
            ApiError::Conflict { .. }
            | ApiError::TooManyRequests { .. }
            | ApiError::Busy { .. }
            | ApiError::Unavailable(_)
            | ApiError::Internal(_) => None,
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
            ApiError::TooManyRequests { .. } | ApiError::Quota(_) => StatusCode::TOO_MANY_REQUESTS,
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

/// The one mapping of a use case's answer to the HTTP layer's errors (and so to problem+json).
impl From<AppError> for ApiError {
    fn from(error: AppError) -> Self {
        match error {
            AppError::NotFound(says) => ApiError::NotFound(says),
            AppError::Unauthenticated(says) => ApiError::Unauthorized(says),
            AppError::Forbidden(says) => ApiError::Forbidden(says),
            AppError::Invalid(says) => ApiError::Invalid(says),
            AppError::Quota(says) => ApiError::Quota(says),
            AppError::IdempotencyMismatch => ApiError::Invalid(says("errors.command_id_reused")),
            AppError::Rejected(domain::Rejection::Rule(v)) => ApiError::Rule {
                rule: v.rule.into_owned(),
                message: v.message,
                says: v.says,
            },
            AppError::Rejected(domain::Rejection::Malformed(m)) => {
                // serde's words (a command that does not parse): English, and said to be.
                ApiError::Invalid(says("errors.invalid_command").arg("detail", m))
            }
            AppError::Conflict { current } => ApiError::Conflict { current },
            AppError::Unavailable(m) => ApiError::Unavailable(m),
            AppError::Internal(m) => ApiError::Internal(m),
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

    // Issue 18: the server's own specifics are data too, told in the caller's language; the
    // English answer is the text it always was.
    #[test]
    fn server_specifics_are_told_in_both_languages() {
        let error: ApiError = AppError::Invalid(says("errors.game_already_started")).into();
        let problem = error.problem();
        assert_eq!(problem.kind, "/problems/invalid-request");
        assert_eq!(
            problem.localized(Lang::En, None).detail,
            "The request is not valid. (the game has already started)"
        );
        let fr = problem.localized(Lang::Fr, None);
        assert_eq!(
            fr.detail,
            "La requête n'est pas valide. (la partie a déjà commencé)"
        );
        assert_eq!(fr.title, "Requête invalide");
        assert!(!fr.to_json().contains("says"), "{}", fr.to_json());
        // Arguments are filled in each language.
        let missing = ApiError::NotFound(says("errors.game_not_found")).problem();
        assert_eq!(
            missing.localized(Lang::Fr, None).detail,
            "Il n'y a rien ici. (partie introuvable)"
        );
        let range = ApiError::Invalid(
            says("errors.limit_between")
                .arg("min", 1u32)
                .arg("max", 100u32),
        )
        .problem();
        assert_eq!(
            range.localized(Lang::Fr, None).detail,
            "La requête n'est pas valide. (limit doit être entre 1 et 100)"
        );
    }

    // serde's and PostgreSQL's words are not ours to translate: a French answer keeps them,
    // saying in French that they are English.
    #[test]
    fn foreign_words_are_kept_under_a_french_sentence_that_says_so() {
        let error =
            ApiError::Invalid(says("errors.invalid_body").arg("detail", "unknown field `junk`"));
        let problem = error.problem();
        assert_eq!(
            problem.localized(Lang::En, None).detail,
            "The request is not valid. (invalid body: unknown field `junk`)"
        );
        assert_eq!(
            problem.localized(Lang::Fr, None).detail,
            "La requête n'est pas valide. (corps de requête invalide ; détail (en anglais) : \
             unknown field `junk`)"
        );
    }

    // A problem built without data (a test game's untold rule) stays English-only.
    #[test]
    fn a_problem_without_data_keeps_its_english_specifics_out_of_french() {
        let problem = Problem::new(
            StatusCode::NOT_FOUND,
            "not-found",
            "Not found",
            "no such thing",
        );
        assert!(
            problem
                .localized(Lang::En, None)
                .detail
                .contains("no such thing")
        );
        assert_eq!(
            problem.localized(Lang::Fr, None).detail,
            "Il n'y a rien ici."
        );
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
