//! Connecting to PostgreSQL and running the embedded migrations.

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::str::FromStr;
use std::time::Duration;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

/// How long a connection may sit idle and still be handed out without a ping.
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// A pool whose acquire times out quickly, so a database outage becomes a 503, not a hang.
pub async fn connect(url: &str, max_connections: u32) -> Result<PgPool, sqlx::Error> {
    let options = PgConnectOptions::from_str(url)?;
    PgPoolOptions::new()
        .max_connections(max_connections)
        .min_connections(1)
        // A ping (a Sync round trip) only for a connection idle over a second, not on every
        // acquire: under load every command's append paid one (issue 31). HikariCP skips its
        // check likewise for a connection used within 500 ms. After an outage the connections
        // have been idle for seconds, so a dead one is still found and replaced here.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > PING_AFTER_IDLE {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        .acquire_timeout(Duration::from_secs(3))
        .connect_with(options)
        .await
}

pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await?;
    // What SQL cannot compute: the name keys of users made before migration 0010 (issue 26).
    crate::accounts::fill_name_keys(pool)
        .await
        .map_err(|e| sqlx::migrate::MigrateError::Source(Box::new(e)))
}

/// A nullable `smallint` seat column (a command's seat, an event's actor) read as a seat
/// number: `#[sqlx(try_from = "SeatColumn")]` on an `Option<u8>` field of a `FromRow` row.
pub struct SeatColumn(Option<i16>);

impl sqlx::Type<sqlx::Postgres> for SeatColumn {
    fn type_info() -> sqlx::postgres::PgTypeInfo {
        <i16 as sqlx::Type<sqlx::Postgres>>::type_info()
    }
    fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
        <i16 as sqlx::Type<sqlx::Postgres>>::compatible(ty)
    }
}

impl<'r> sqlx::Decode<'r, sqlx::Postgres> for SeatColumn {
    fn decode(value: sqlx::postgres::PgValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        <Option<i16> as sqlx::Decode<sqlx::Postgres>>::decode(value).map(SeatColumn)
    }
}

impl TryFrom<SeatColumn> for Option<u8> {
    type Error = std::num::TryFromIntError;
    fn try_from(column: SeatColumn) -> Result<Self, Self::Error> {
        column.0.map(u8::try_from).transpose()
    }
}
