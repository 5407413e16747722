use domain::Rejection;

/// Errors of the persistence and application layer, mapped once to HTTP by the api crate.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found: {0}")]
    NotFound(&'static str),
    #[error("version conflict: the game is at version {current}")]
    Conflict { current: u64 },
    #[error("command id already used with a different body")]
    IdempotencyMismatch,
    #[error(transparent)]
    Rejected(#[from] Rejection),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Invalid(String),
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
                StoreError::Invalid(format!("invalid data: {}", db.message()))
            }
            _ => StoreError::Database(error),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
