//! Accounts and rotating refresh tokens (stored hashed; a spent token presented again revokes
//! its whole family).

use crate::error::{Result, StoreError};
use crate::ids::UserId;
use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub password_hash: Option<String>,
    pub is_guest: bool,
    pub is_admin: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// The token was valid: here is its user and the family to continue.
    Rotated { user: UserId, family: Uuid },
    /// Unknown, expired or revoked.
    Invalid,
    /// A spent token came back: the family is now revoked.
    Reused,
}

#[derive(Clone)]
pub struct Accounts {
    pool: PgPool,
}

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn user_from_row(row: &sqlx::postgres::PgRow) -> Result<User> {
    Ok(User {
        id: UserId(row.try_get("id")?),
        name: row.try_get("name")?,
        password_hash: row.try_get("password_hash")?,
        is_guest: row.try_get("is_guest")?,
        is_admin: row.try_get("is_admin")?,
    })
}

impl Accounts {
    pub fn new(pool: PgPool) -> Self {
        Accounts { pool }
    }

    /// Creates a user; `None` when the name is taken (case-insensitively).
    pub async fn create(
        &self,
        name: &str,
        password_hash: Option<&str>,
        is_guest: bool,
    ) -> Result<Option<User>> {
        let id = UserId::new();
        let inserted = sqlx::query(
            "INSERT INTO users (id, name, password_hash, is_guest) VALUES ($1, $2, $3, $4) \
             ON CONFLICT DO NOTHING RETURNING id, name, password_hash, is_guest, is_admin",
        )
        .bind(id.0)
        .bind(name)
        .bind(password_hash)
        .bind(is_guest)
        .fetch_optional(&self.pool)
        .await?;
        inserted.as_ref().map(user_from_row).transpose()
    }

    pub async fn by_name(&self, name: &str) -> Result<Option<User>> {
        let row = sqlx::query("SELECT id, name, password_hash, is_guest, is_admin FROM users WHERE lower(name) = lower($1)")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    pub async fn by_id(&self, id: UserId) -> Result<Option<User>> {
        let row = sqlx::query(
            "SELECT id, name, password_hash, is_guest, is_admin FROM users WHERE id = $1",
        )
        .bind(id.0)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    pub async fn grant_admin(&self, name: &str) -> Result<()> {
        let done = sqlx::query("UPDATE users SET is_admin = true WHERE lower(name) = lower($1)")
            .bind(name)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("user"));
        }
        Ok(())
    }

    /// Stores a new refresh token of `family`.
    pub async fn store_refresh(
        &self,
        token: &str,
        user: UserId,
        family: Uuid,
        ttl: Duration,
    ) -> Result<()> {
        sqlx::query("INSERT INTO refresh_tokens (token_hash, user_id, family_id, expires_at) VALUES ($1, $2, $3, $4)")
            .bind(token_hash(token))
            .bind(user.0)
            .bind(family)
            .bind(OffsetDateTime::now_utc() + ttl)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Spends a refresh token (once). Reuse of a spent one revokes the family.
    pub async fn spend_refresh(&self, token: &str) -> Result<RefreshOutcome> {
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "SELECT user_id, family_id, expires_at, spent_at, revoked_at FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE",
        )
        .bind(token_hash(token))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(RefreshOutcome::Invalid);
        };
        let family: Uuid = row.try_get("family_id")?;
        let spent: Option<OffsetDateTime> = row.try_get("spent_at")?;
        let revoked: Option<OffsetDateTime> = row.try_get("revoked_at")?;
        let expires: OffsetDateTime = row.try_get("expires_at")?;
        if spent.is_some() {
            sqlx::query("UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL")
                .bind(family)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok(RefreshOutcome::Reused);
        }
        if revoked.is_some() || expires <= OffsetDateTime::now_utc() {
            return Ok(RefreshOutcome::Invalid);
        }
        sqlx::query("UPDATE refresh_tokens SET spent_at = now() WHERE token_hash = $1")
            .bind(token_hash(token))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(RefreshOutcome::Rotated {
            user: UserId(row.try_get("user_id")?),
            family,
        })
    }
}
