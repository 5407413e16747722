//! Accounts and rotating refresh tokens (stored hashed). Tokens of one sign-in form a family
//! (a session). A spent token presented again within the leeway is a client's own race and gets
//! the same successor; after the leeway it is a stolen copy, and the whole family is revoked.

use crate::error::{Result, StoreError};
use crate::ids::UserId;
use domain::i18n::says;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: UserId,
    pub name: String,
    pub password_hash: Option<String>,
    pub is_guest: bool,
    pub is_admin: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// The token was valid (or is a duplicate within the leeway): its user, its family, and
    /// when it was first spent (the same for every duplicate, so the answer is the same).
    Rotated {
        user: UserId,
        family: Uuid,
        rotated_at: OffsetDateTime,
    },
    /// Unknown, expired or revoked.
    Invalid,
    /// A spent token came back after the leeway: `family` is now revoked.
    Reused { family: Uuid },
}

/// The answer to a guest's upgrade to a named account.
#[derive(Debug, PartialEq, Eq)]
pub enum Upgrade {
    Upgraded(User),
    NameTaken,
    /// The caller is already a registered account.
    NotAGuest,
    /// The token names a user that does not exist.
    UnknownUser,
}

/// Why a family was revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revocation {
    Logout,
    Reuse,
}

/// The keys under which a name must be unique (issue 26, item 11), from its NFKC form: the
/// UTS #39 confusable skeleton of the case-folded name (`Аdmin` with a Cyrillic `А`, `ａｄｍｉｎ`,
/// `ADMIN` all give `admin`'s), and the skeleton of the name as written, lower-cased (`AIice`
/// with a capital `I` gives `Alice`'s: case folding alone would make it `aiice`). The database
/// keeps each unique (`users_name_skeleton`, `users_name_shape`).
pub fn name_keys(name: &str) -> (String, String) {
    use unicode_normalization::UnicodeNormalization;
    use unicode_security::confusable_detection::skeleton;
    let nfkc: String = name.nfkc().collect();
    let folded: String = nfkc.to_lowercase().nfkc().collect();
    let key = skeleton(&folded).collect::<String>().to_lowercase();
    let shape = skeleton(&nfkc).collect::<String>().to_lowercase();
    (key, shape)
}

/// Fills in the name keys of the users made before they existed (migration 0010), oldest
/// first: a name that looks like an earlier one keeps its name and login, with keys of its own
/// (`#` and its id: no name has a `#`), and the pair is logged for an admin to settle.
pub async fn fill_name_keys(pool: &PgPool) -> Result<()> {
    let users: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, name FROM users WHERE name_key IS NULL OR name_shape IS NULL \
         ORDER BY created_at, id",
    )
    .fetch_all(pool)
    .await?;
    for (id, name) in users {
        let (key, shape) = name_keys(&name);
        let earlier: Option<String> = sqlx::query_scalar(
            "SELECT name FROM users WHERE (name_key = $1 OR name_shape = $2) AND id <> $3 LIMIT 1",
        )
        .bind(&key)
        .bind(&shape)
        .bind(id)
        .fetch_optional(pool)
        .await?;
        let (key, shape) = match earlier {
            None => (key, shape),
            Some(earlier) => {
                tracing::warn!(%id, name, earlier, "a user's name looks like an earlier one's");
                (format!("{key}#{id}"), format!("{shape}#{id}"))
            }
        };
        sqlx::query("UPDATE users SET name_key = $2, name_shape = $3 WHERE id = $1")
            .bind(id)
            .bind(key)
            .bind(shape)
            .execute(pool)
            .await?;
    }
    Ok(())
}

/// Channel on which revocations are announced to every server instance (payload: family id).
pub const REVOKED_CHANNEL: &str = "homestretch_revoked";

#[derive(Clone)]
pub struct Accounts {
    pool: PgPool,
}

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A refresh token as `spend_refresh` reads it (with its family's revocation).
#[derive(sqlx::FromRow)]
struct RefreshRow {
    user_id: UserId,
    family_id: Uuid,
    expires_at: OffsetDateTime,
    spent_at: Option<OffsetDateTime>,
    revoked_at: Option<OffsetDateTime>,
    within_leeway: bool,
    family_revoked: bool,
}

impl Accounts {
    pub fn new(pool: PgPool) -> Self {
        Accounts { pool }
    }

    /// Creates a user; `None` when the name is taken, or looks like one that is ([`name_keys`]:
    /// the database refuses it, so two look-alikes registering at once cannot both succeed).
    pub async fn create(
        &self,
        name: &str,
        password_hash: Option<&str>,
        is_guest: bool,
    ) -> Result<Option<User>> {
        let id = UserId::new();
        let (key, shape) = name_keys(name);
        let inserted = sqlx::query_as(
            "INSERT INTO users (id, name, password_hash, is_guest, name_key, name_shape) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT DO NOTHING RETURNING id, name, password_hash, is_guest, is_admin",
        )
        .bind(id.0)
        .bind(name)
        .bind(password_hash)
        .bind(is_guest)
        .bind(key)
        .bind(shape)
        .fetch_optional(&self.pool)
        .await?;
        Ok(inserted)
    }

    /// Turns guest `id` into a named account in place (issue 18): same id, so its seats,
    /// games and sessions stay its own. Refused when the user is not a guest (anymore) or the
    /// name is taken.
    pub async fn upgrade_guest(
        &self,
        id: UserId,
        name: &str,
        password_hash: &str,
    ) -> Result<Upgrade> {
        let mut tx = self.pool.begin().await?;
        // The row lock orders two upgrades of one guest: the second sees a registered user.
        let is_guest: Option<bool> =
            sqlx::query_scalar("SELECT is_guest FROM users WHERE id = $1 FOR UPDATE")
                .bind(id.0)
                .fetch_optional(&mut *tx)
                .await?;
        match is_guest {
            None => return Ok(Upgrade::UnknownUser),
            Some(false) => return Ok(Upgrade::NotAGuest),
            Some(true) => {}
        }
        let (key, shape) = name_keys(name);
        let updated = sqlx::query_as::<_, User>(
            "UPDATE users SET name = $2, password_hash = $3, is_guest = false, name_key = $4, \
             name_shape = $5 WHERE id = $1 \
             RETURNING id, name, password_hash, is_guest, is_admin",
        )
        .bind(id.0)
        .bind(name)
        .bind(password_hash)
        .bind(key)
        .bind(shape)
        .fetch_one(&mut *tx)
        .await;
        let user = match updated {
            Ok(user) => user,
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                return Ok(Upgrade::NameTaken);
            }
            Err(other) => return Err(other.into()),
        };
        tx.commit().await?;
        Ok(Upgrade::Upgraded(user))
    }

    pub async fn by_name(&self, name: &str) -> Result<Option<User>> {
        Ok(sqlx::query_as("SELECT id, name, password_hash, is_guest, is_admin FROM users WHERE lower(name) = lower($1)")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?)
    }

    pub async fn by_id(&self, id: UserId) -> Result<Option<User>> {
        Ok(sqlx::query_as(
            "SELECT id, name, password_hash, is_guest, is_admin FROM users WHERE id = $1",
        )
        .bind(id.0)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The user's stored language preference (`en`, `fr`), if any (issue 18).
    pub async fn language(&self, id: UserId) -> Result<Option<domain::i18n::Lang>> {
        let tag: Option<Option<String>> =
            sqlx::query_scalar("SELECT language FROM users WHERE id = $1")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        Ok(tag
            .flatten()
            .as_deref()
            .and_then(domain::i18n::Lang::from_tag))
    }

    /// Stores (or with `None` clears) the user's language preference.
    pub async fn set_language(&self, id: UserId, lang: Option<domain::i18n::Lang>) -> Result<()> {
        sqlx::query("UPDATE users SET language = $2 WHERE id = $1")
            .bind(id.0)
            .bind(lang.map(domain::i18n::Lang::tag))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// An existing user, by id or by name.
    pub async fn find(&self, id_or_name: &str) -> Result<Option<User>> {
        match id_or_name.trim().parse::<Uuid>() {
            Ok(id) => self.by_id(UserId(id)).await,
            Err(_) => self.by_name(id_or_name.trim()).await,
        }
    }

    /// Makes an existing user (by id or name) an admin, or no longer one. The flag is on the
    /// user's row: registering a name later never makes anyone an admin.
    pub async fn set_admin(&self, id_or_name: &str, admin: bool) -> Result<User> {
        let user = self
            .find(id_or_name)
            .await?
            .ok_or_else(|| StoreError::NotFound(says("errors.user_not_found")))?;
        sqlx::query("UPDATE users SET is_admin = $2 WHERE id = $1")
            .bind(user.id.0)
            .bind(admin)
            .execute(&self.pool)
            .await?;
        Ok(User {
            is_admin: admin,
            ..user
        })
    }

    /// Users with the admin flag.
    pub async fn admins(&self) -> Result<Vec<User>> {
        Ok(sqlx::query_as(
            "SELECT id, name, password_hash, is_guest, is_admin FROM users WHERE is_admin ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await?)
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

    /// Spends refresh `token`, storing `successor` (its replacement, of the same family).
    /// A duplicate within `leeway` of the first spend is answered like the first (the caller
    /// recomputes the same successor); after it, the family is revoked.
    pub async fn spend_refresh(
        &self,
        token: &str,
        successor: &str,
        ttl: Duration,
        leeway: Duration,
    ) -> Result<RefreshOutcome> {
        let mut tx = self.pool.begin().await?;
        // The row lock orders concurrent duplicates: the second sees the first one's spend.
        let row: Option<RefreshRow> = sqlx::query_as(
            "SELECT t.user_id, t.family_id, t.expires_at, t.spent_at, t.revoked_at, \
                    t.spent_at IS NOT NULL AND now() - t.spent_at <= make_interval(secs => $2) AS within_leeway, \
                    EXISTS (SELECT 1 FROM revoked_families f WHERE f.family_id = t.family_id) AS family_revoked \
             FROM refresh_tokens t WHERE t.token_hash = $1 FOR UPDATE OF t",
        )
        .bind(token_hash(token))
        .bind(leeway.as_seconds_f64())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(RefreshOutcome::Invalid);
        };
        let RefreshRow {
            user_id: user,
            family_id: family,
            expires_at: expires,
            spent_at: spent,
            revoked_at: revoked,
            within_leeway,
            family_revoked,
        } = row;
        if revoked.is_some() || family_revoked {
            return Ok(RefreshOutcome::Invalid);
        }
        if let Some(rotated_at) = spent {
            if within_leeway {
                // The client's own race (two requests refreshing at once): same answer.
                return Ok(RefreshOutcome::Rotated {
                    user,
                    family,
                    rotated_at,
                });
            }
            // A spent token after the leeway: someone else holds a copy. End the session,
            // the winner's tokens included.
            revoke_family_in(&mut tx, family, user, Revocation::Reuse).await?;
            tx.commit().await?;
            return Ok(RefreshOutcome::Reused { family });
        }
        if expires <= OffsetDateTime::now_utc() {
            return Ok(RefreshOutcome::Invalid);
        }
        let rotated_at: OffsetDateTime = sqlx::query_scalar(
            "UPDATE refresh_tokens SET spent_at = now() WHERE token_hash = $1 RETURNING spent_at",
        )
        .bind(token_hash(token))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO refresh_tokens (token_hash, user_id, family_id, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))")
            .bind(token_hash(successor))
            .bind(user.0)
            .bind(family)
            .bind(ttl.as_seconds_f64())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(RefreshOutcome::Rotated {
            user,
            family,
            rotated_at,
        })
    }

    /// Ends session `family` (logout): its refresh tokens and access tokens stop working.
    pub async fn revoke_family(&self, family: Uuid, user: UserId, why: Revocation) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        revoke_family_in(&mut tx, family, user, why).await?;
        tx.commit().await?;
        Ok(())
    }

    /// How many lobbies `user` hosts that have not started (issue 26: their quota).
    pub async fn open_lobbies(&self, user: UserId) -> Result<u64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM games WHERE host_id = $1 AND status = 'lobby'",
        )
        .bind(user.0)
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u64)
    }

    /// The sessions revoked within the last `window` (every instance polls this: issue 26).
    pub async fn revoked_within(&self, window: std::time::Duration) -> Result<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT family_id FROM revoked_families \
             WHERE revoked_at > now() - make_interval(secs => $1)",
        )
        .bind(window.as_secs_f64())
        .fetch_all(&self.pool)
        .await?)
    }

    /// Whether session `family` was revoked.
    pub async fn family_revoked(&self, family: Uuid) -> Result<bool> {
        Ok(sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM revoked_families WHERE family_id = $1)",
        )
        .bind(family)
        .fetch_one(&self.pool)
        .await?)
    }
}

async fn revoke_family_in(
    tx: &mut sqlx::PgConnection,
    family: Uuid,
    user: UserId,
    why: Revocation,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO revoked_families (family_id, user_id, reason) VALUES ($1, $2, $3) \
         ON CONFLICT (family_id) DO NOTHING",
    )
    .bind(family)
    .bind(user.0)
    .bind(match why {
        Revocation::Logout => "logout",
        Revocation::Reuse => "reuse",
    })
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL",
    )
    .bind(family)
    .execute(&mut *tx)
    .await?;
    // Every instance drops the family from its cache (delivered at commit).
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(REVOKED_CHANNEL)
        .bind(family.to_string())
        .execute(&mut *tx)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::name_keys;

    // The look-alikes of `admin` (item 11) and a few classics share a key with the name
    // they imitate; different names do not.
    #[test]
    fn look_alike_names_share_a_key_and_different_names_do_not() {
        let clash = |a: &str, b: &str| {
            let (ka, sa) = name_keys(a);
            let (kb, sb) = name_keys(b);
            ka == kb || sa == sb
        };
        for fake in [
            "\u{430}dmin",                              // Cyrillic а
            "a\u{501}min",                              // Cyrillic ԁ
            "\u{ff41}\u{ff44}\u{ff4d}\u{ff49}\u{ff4e}", // fullwidth ａｄｍｉｎ
            "ADMIN",
            "Admin",
            "\u{410}DMIN",                                   // Cyrillic А
            "adm\u{456}n",                                   // Cyrillic і
            "\u{1d41a}\u{1d41d}\u{1d426}\u{1d422}\u{1d427}", // mathematical bold 𝐚𝐝𝐦𝐢𝐧
            "adrnin",                                        // rn for m
        ] {
            assert!(clash(fake, "admin"), "{fake} passes for admin");
        }
        assert!(clash("AIice", "Alice"), "a capital I passes for an l");
        assert!(clash("paypa1", "paypal"));
        for (a, b) in [
            ("alice", "alicia"),
            ("bob", "rob"),
            ("admin", "admins"),
            ("ann", "anne"),
        ] {
            assert!(!clash(a, b), "{a} and {b} are different names");
        }
    }
}
