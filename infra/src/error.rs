use domain::i18n::{Says, says};

/// What storage can say: the row is missing, the row is not in a state the write needs, the
/// database is away, the log does not fold, the database failed, or PostgreSQL refused a value.
/// What a use case answers is the application's own error (`api::application::AppError`),
/// which maps these. What a caller would be told is data, `Says` (an `errors.<key>` of the
/// catalogue and its arguments), so it can be told in French too (issue 18); the `String`s are
/// for the logs only.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NotFound(Says),
    /// The row is not in a state the write needs (a lobby already started, every seat taken, a
    /// dispute already resolved), seen under the row's lock.
    #[error("{0}")]
    Conflict(Says),
    /// The row belongs to someone else (a lobby's host), seen under the row's lock.
    #[error("{0}")]
    NotOwner(Says),
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    #[error("corrupt log: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// PostgreSQL refused a value (a data exception: a NUL in a string, a number out of range).
    #[error("{0}")]
    BadData(Says),
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
                StoreError::BadData(says("errors.invalid_data").arg("detail", db.message()))
            }
            _ => StoreError::Database(error),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
