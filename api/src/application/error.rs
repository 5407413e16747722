//! What a use case can answer. The HTTP edge (`crate::error`) maps it once to problem+json;
//! storage errors (`infra::StoreError`) are mapped into it here, once.

use domain::Rejection;
use domain::i18n::Says;
use infra::StoreError;

/// The answer of a use case that did not succeed. What a caller is told is data, [`Says`] (an
/// `errors.<key>` of the catalogue and its arguments), so it is told in French too (issue 18);
/// the `String`s of `Unavailable` and `Internal` are for the logs only.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    NotFound(Says),
    /// The caller is not who they say (a wrong password, a spent refresh token).
    #[error("{0}")]
    Unauthenticated(Says),
    #[error("{0}")]
    Forbidden(Says),
    #[error("{0}")]
    Invalid(Says),
    /// A rule of the game refused the command (or it did not parse as one).
    #[error(transparent)]
    Rejected(#[from] Rejection),
    /// The command was decided against a version that is not the game's.
    #[error("version conflict: the game is at version {current}")]
    Conflict { current: u64 },
    /// A command id sent again with another body.
    #[error("command id already used with a different body")]
    IdempotencyMismatch,
    /// The caller holds as many of something as its quota allows (issue 26).
    #[error("{0}")]
    Quota(Says),
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// What storage said, as a use case answers it: a row in the wrong state or a refused value is
/// an invalid request, another's row is forbidden, a log that does not fold is internal.
impl From<StoreError> for AppError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(says) => AppError::NotFound(says),
            StoreError::Conflict(says) | StoreError::BadData(says) => AppError::Invalid(says),
            StoreError::NotOwner(says) => AppError::Forbidden(says),
            StoreError::Unavailable(m) => AppError::Unavailable(m),
            StoreError::Corrupt(m) => AppError::Internal(format!("corrupt: {m}")),
            StoreError::Database(e) => AppError::Internal(e.to_string()),
        }
    }
}

/// A replica read that fails with the source's trouble is read again from the primary.
impl infra::replica::SourceTrouble for AppError {
    fn is_source_trouble(&self) -> bool {
        matches!(self, AppError::Unavailable(_) | AppError::Internal(_))
    }
}

/// Runs rules-engine code; a panic (a bug) becomes an internal error instead of taking the
/// worker down, and nothing is appended.
pub(crate) fn guarded<R>(f: impl FnOnce() -> R) -> Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| AppError::Internal("the rules engine panicked".into()))
}

pub type Result<T, E = AppError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use actix_web::ResponseError;
    use domain::i18n::says;

    // What storage says under a row lock keeps the answer it had when storage said it as an
    // application meaning: another's lobby 403, a row in the wrong state or a refused value 422,
    // a log that does not fold 500 (issue 28).
    #[test]
    fn storage_errors_keep_their_http_answers() {
        let status = |error: StoreError| {
            let api: ApiError = AppError::from(error).into();
            (api.status_code().as_u16(), api.problem().kind)
        };
        let host = says("errors.host_only_bot");
        assert_eq!(
            status(StoreError::NotOwner(host)),
            (403, "/problems/forbidden".into())
        );
        let started = says("errors.game_already_started");
        assert_eq!(
            status(StoreError::Conflict(started)),
            (422, "/problems/invalid-request".into())
        );
        let data = says("errors.invalid_data").arg("detail", "x");
        assert_eq!(
            status(StoreError::BadData(data)),
            (422, "/problems/invalid-request".into())
        );
        assert_eq!(
            status(StoreError::Corrupt("bad".into())),
            (500, "/problems/internal".into())
        );
        assert_eq!(
            status(StoreError::NotFound(says("errors.game_not_found"))),
            (404, "/problems/not-found".into())
        );
    }
}
