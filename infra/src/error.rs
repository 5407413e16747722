use domain::Rejection;
use domain::i18n::{Says, says};

/// Errors of the persistence and application layer, mapped once to HTTP by the api crate.
/// What a caller is told is data, `Says` (an `errors.<key>` of the catalogue and its
/// arguments), so it can be told in French too (issue 18); the `String`s are for the logs only.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NotFound(Says),
    #[error("version conflict: the game is at version {current}")]
    Conflict { current: u64 },
    #[error("command id already used with a different body")]
    IdempotencyMismatch,
    #[error(transparent)]
    Rejected(#[from] Rejection),
    #[error("{0}")]
    Forbidden(Says),
    #[error("{0}")]
    Invalid(Says),
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error("corrupt log: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Database(sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_) => StoreError::Unavailable(error.to_string()),
            sqlx::Error::Database(db)
                if db
                    .code()
                    .is_some_and(|c| c.starts_with("08") || c.starts_with("57P")) =>
            {
                // connection exceptions and operator intervention (shutdown, cannot connect now)
                StoreError::Unavailable(error.to_string())
            }
            // Data exceptions (class 22: a NUL in a string, a number out of range…) are bad
            // input, not a server failure.
            sqlx::Error::Database(db) if db.code().is_some_and(|c| c.starts_with("22")) => {
                // PostgreSQL's words: English, and said to be.
                StoreError::Invalid(says("errors.invalid_data").arg("detail", db.message()))
            }
            _ => StoreError::Database(error),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
