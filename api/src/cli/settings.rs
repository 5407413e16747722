//! Configuration: every setting from its flag or variable, the secret files kept in the data
//! folder (JWT secret, VAPID key), the open-file limit, and the `ServerConfig` built from them.

use super::error::CliError;
use crate::app::{self, ServerConfig};
use crate::limits::LimitsConfig;
use clap::Args;
use std::collections::HashSet;
use std::path::PathBuf;

/// Every setting the server takes from its environment (a flag of the same name overrides its
/// variable), read once at start and handed down: nothing else reads the environment.
#[derive(Args, Debug, Clone)]
pub struct Settings {
    /// Use this PostgreSQL database; without it a private cluster is started in the data
    /// folder and stopped on exit.
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// Data folder: the private cluster, its password, the generated JWT secret.
    #[arg(
        long,
        env = "HOMESTRETCH_DATA",
        global = true,
        default_value = ".homestretch"
    )]
    pub data: PathBuf,
    /// Listen address.
    #[arg(
        long,
        env = "HOMESTRETCH_LISTEN",
        global = true,
        default_value = "127.0.0.1:8080"
    )]
    pub listen: String,
    /// Token signing secret, at least 32 bytes (default: generated once, kept in the data folder).
    #[arg(
        long,
        env = "HOMESTRETCH_JWT_SECRET",
        global = true,
        hide_env_values = true
    )]
    pub jwt_secret: Option<String>,
    /// Web Push VAPID private key: a raw P-256 scalar, base64url (default: generated once, kept
    /// in the data folder). Every instance must share it: subscriptions are tied to its key.
    #[arg(
        long,
        env = "HOMESTRETCH_VAPID_PRIVATE_KEY",
        global = true,
        hide_env_values = true
    )]
    pub vapid_private_key: Option<String>,
    /// Comma-separated user IDS that are admins (names are refused: anyone can register a
    /// name; grant by name with `admin grant`).
    #[arg(long, env = "HOMESTRETCH_ADMINS", global = true, default_value = "")]
    pub admins: String,
    /// Seconds a spent refresh token still gets the same answer (0 to 300).
    #[arg(
        long,
        env = "HOMESTRETCH_REFRESH_LEEWAY",
        global = true,
        value_name = "SECONDS"
    )]
    pub refresh_leeway: Option<f64>,
    /// Comma-separated browser origins allowed by CORS, e.g. `https://play.example.com`
    /// (default none: no CORS headers, preflights refused).
    #[arg(
        long,
        env = "HOMESTRETCH_CORS_ORIGINS",
        global = true,
        default_value = ""
    )]
    pub cors_origins: String,
    /// Comma-separated hosts exempt from the notification SSRF checks, for which webhooks and
    /// push endpoints may also be plain http (e.g. `127.0.0.1` in tests; default none).
    #[arg(
        long,
        env = "HOMESTRETCH_ALLOW_HTTP_HOSTS",
        global = true,
        default_value = ""
    )]
    pub allow_http_hosts: String,
    /// Milliseconds a server bot waits after the game's last event before it moves (issue 17:
    /// a bot-only game plays at most 1000/N moves per second).
    #[arg(
        long,
        env = "HOMESTRETCH_BOT_INTERVAL_MS",
        global = true,
        default_value = "250",
        value_name = "MS"
    )]
    pub bot_interval_ms: u64,
    /// Seconds after its creation a lobby nobody started expires (0 = never).
    #[arg(
        long,
        env = "HOMESTRETCH_LOBBY_TTL",
        global = true,
        default_value = "604800",
        value_name = "SECONDS"
    )]
    pub lobby_ttl: u64,
    /// A streaming replica of the database (read-only): replays, exports, audits and event
    /// pages read it when it holds the version they need, else the primary (default none).
    #[arg(
        long,
        env = "HOMESTRETCH_REPLICA_URL",
        global = true,
        hide_env_values = true
    )]
    pub replica_url: Option<String>,
    /// Seconds a SIGTERM'd instance keeps serving after `/readyz` turned 503, so the load
    /// balancer takes it out before it stops accepting (0 to 300; SIGINT stops at once).
    #[arg(
        long,
        env = "HOMESTRETCH_DRAIN_S",
        global = true,
        default_value = "5",
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    pub drain_s: f64,
    #[command(flatten)]
    pub limits: LimitSettings,
}

/// The limits' variables, parsed by [`LimitsConfig::from_lookup`] (rates are N, N/s, N/min,
/// N/h; 0 = off).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Limits")]
pub struct LimitSettings {
    /// `off` turns every limit below off (benchmarks, load drills).
    #[arg(
        long = "limits",
        env = "HOMESTRETCH_LIMITS",
        global = true,
        value_name = "on|off"
    )]
    pub all: Option<String>,
    /// Requests per client IP (default 200/s).
    #[arg(long, env = "HOMESTRETCH_RATE_IP", global = true, value_name = "RATE")]
    pub rate_ip: Option<String>,
    /// Requests per user (default 50/s).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_USER",
        global = true,
        value_name = "RATE"
    )]
    pub rate_user: Option<String>,
    /// New accounts, guest or registered, per IP (default 30/h).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_ACCOUNTS_IP",
        global = true,
        value_name = "RATE"
    )]
    pub rate_accounts_ip: Option<String>,
    /// Login attempts per IP (default 30/min).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_LOGIN_IP",
        global = true,
        value_name = "RATE"
    )]
    pub rate_login_ip: Option<String>,
    /// Games created per IP (default 60/min).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_GAMES_IP",
        global = true,
        value_name = "RATE"
    )]
    pub rate_games_ip: Option<String>,
    /// Games created per user (default 10/min).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_GAMES_USER",
        global = true,
        value_name = "RATE"
    )]
    pub rate_games_user: Option<String>,
    /// Invite-code lookups (`POST /v1/games/join`) per address (default 30/min).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_JOIN_CODES_IP",
        global = true,
        value_name = "RATE"
    )]
    pub rate_join_codes_ip: Option<String>,
    /// Invite-code lookups per user (default 10/min).
    #[arg(
        long,
        env = "HOMESTRETCH_RATE_JOIN_CODES_USER",
        global = true,
        value_name = "RATE"
    )]
    pub rate_join_codes_user: Option<String>,
    /// Open event streams per user (default 16; 0 = off).
    #[arg(
        long,
        env = "HOMESTRETCH_STREAMS_PER_USER",
        global = true,
        value_name = "N"
    )]
    pub streams_per_user: Option<String>,
    /// Open event streams per IP (default 64).
    #[arg(
        long,
        env = "HOMESTRETCH_STREAMS_PER_IP",
        global = true,
        value_name = "N"
    )]
    pub streams_per_ip: Option<String>,
    /// Open event streams in total (default 4096).
    #[arg(
        long,
        env = "HOMESTRETCH_STREAMS_TOTAL",
        global = true,
        value_name = "N"
    )]
    pub streams_total: Option<String>,
    /// Open connections per IP (default 128).
    #[arg(
        long,
        env = "HOMESTRETCH_CONNECTIONS_PER_IP",
        global = true,
        value_name = "N"
    )]
    pub connections_per_ip: Option<String>,
    /// Open connections in total (default 8192, less when the file limit is lower).
    #[arg(
        long,
        env = "HOMESTRETCH_MAX_CONNECTIONS",
        global = true,
        value_name = "N"
    )]
    pub max_connections: Option<String>,
    /// Seconds to send a request head (default 5; 0 = off).
    #[arg(
        long,
        env = "HOMESTRETCH_HEADER_TIMEOUT",
        global = true,
        value_name = "SECONDS"
    )]
    pub header_timeout: Option<String>,
    /// Seconds to send a request body (default 10).
    #[arg(
        long,
        env = "HOMESTRETCH_BODY_TIMEOUT",
        global = true,
        value_name = "SECONDS"
    )]
    pub body_timeout: Option<String>,
    /// Seconds an idle connection is kept (default 10).
    #[arg(
        long,
        env = "HOMESTRETCH_KEEP_ALIVE",
        global = true,
        value_name = "SECONDS"
    )]
    pub keep_alive: Option<String>,
    /// Webhooks per user (default 5).
    #[arg(
        long,
        env = "HOMESTRETCH_QUOTA_WEBHOOKS",
        global = true,
        value_name = "N"
    )]
    pub quota_webhooks: Option<String>,
    /// Web Push subscriptions per user (default 10).
    #[arg(
        long,
        env = "HOMESTRETCH_QUOTA_PUSH_SUBSCRIPTIONS",
        global = true,
        value_name = "N"
    )]
    pub quota_push_subscriptions: Option<String>,
    /// Deliveries waiting per webhook or push subscription (default 1000; past it, the feed only).
    #[arg(
        long,
        env = "HOMESTRETCH_QUEUE_PER_DESTINATION",
        global = true,
        value_name = "N"
    )]
    pub queue_per_destination: Option<String>,
    /// Open disputes per user (default 10).
    #[arg(
        long,
        env = "HOMESTRETCH_QUOTA_DISPUTES",
        global = true,
        value_name = "N"
    )]
    pub quota_disputes: Option<String>,
    /// Unused stream tickets per user (default 8).
    #[arg(
        long,
        env = "HOMESTRETCH_QUOTA_STREAM_TICKETS",
        global = true,
        value_name = "N"
    )]
    pub quota_stream_tickets: Option<String>,
    /// Lobbies a user hosts that have not started (default 20).
    #[arg(
        long,
        env = "HOMESTRETCH_QUOTA_LOBBIES",
        global = true,
        value_name = "N"
    )]
    pub quota_lobbies: Option<String>,
    /// Heavy requests (audits, exports, replays) one user may have in flight (default 2).
    #[arg(
        long,
        env = "HOMESTRETCH_HEAVY_PER_USER",
        global = true,
        value_name = "N"
    )]
    pub heavy_per_user: Option<String>,
    /// Heavy requests in flight per IP (default 4).
    #[arg(
        long,
        env = "HOMESTRETCH_HEAVY_PER_IP",
        global = true,
        value_name = "N"
    )]
    pub heavy_per_ip: Option<String>,
    /// Threads that run heavy work (default: one fewer than the cores, at least one).
    #[arg(
        long,
        env = "HOMESTRETCH_HEAVY_THREADS",
        global = true,
        value_name = "N"
    )]
    pub heavy_threads: Option<String>,
    /// MiB of heavy answers kept per version (default 64; 0 = no cache).
    #[arg(
        long,
        env = "HOMESTRETCH_HEAVY_CACHE_MB",
        global = true,
        value_name = "MIB"
    )]
    pub heavy_cache_mb: Option<String>,
}

impl LimitSettings {
    /// The value of one limit variable, by its name (what `LimitsConfig::from_lookup` asks).
    pub(super) fn get(&self, name: &str) -> Option<String> {
        let value = match name {
            "HOMESTRETCH_LIMITS" => &self.all,
            "HOMESTRETCH_RATE_IP" => &self.rate_ip,
            "HOMESTRETCH_RATE_USER" => &self.rate_user,
            "HOMESTRETCH_RATE_ACCOUNTS_IP" => &self.rate_accounts_ip,
            "HOMESTRETCH_RATE_LOGIN_IP" => &self.rate_login_ip,
            "HOMESTRETCH_RATE_GAMES_IP" => &self.rate_games_ip,
            "HOMESTRETCH_RATE_GAMES_USER" => &self.rate_games_user,
            "HOMESTRETCH_RATE_JOIN_CODES_IP" => &self.rate_join_codes_ip,
            "HOMESTRETCH_RATE_JOIN_CODES_USER" => &self.rate_join_codes_user,
            "HOMESTRETCH_STREAMS_PER_USER" => &self.streams_per_user,
            "HOMESTRETCH_STREAMS_PER_IP" => &self.streams_per_ip,
            "HOMESTRETCH_STREAMS_TOTAL" => &self.streams_total,
            "HOMESTRETCH_CONNECTIONS_PER_IP" => &self.connections_per_ip,
            "HOMESTRETCH_MAX_CONNECTIONS" => &self.max_connections,
            "HOMESTRETCH_HEADER_TIMEOUT" => &self.header_timeout,
            "HOMESTRETCH_BODY_TIMEOUT" => &self.body_timeout,
            "HOMESTRETCH_KEEP_ALIVE" => &self.keep_alive,
            "HOMESTRETCH_QUOTA_WEBHOOKS" => &self.quota_webhooks,
            "HOMESTRETCH_QUOTA_PUSH_SUBSCRIPTIONS" => &self.quota_push_subscriptions,
            "HOMESTRETCH_QUEUE_PER_DESTINATION" => &self.queue_per_destination,
            "HOMESTRETCH_QUOTA_DISPUTES" => &self.quota_disputes,
            "HOMESTRETCH_QUOTA_STREAM_TICKETS" => &self.quota_stream_tickets,
            "HOMESTRETCH_QUOTA_LOBBIES" => &self.quota_lobbies,
            "HOMESTRETCH_HEAVY_PER_USER" => &self.heavy_per_user,
            "HOMESTRETCH_HEAVY_PER_IP" => &self.heavy_per_ip,
            "HOMESTRETCH_HEAVY_THREADS" => &self.heavy_threads,
            "HOMESTRETCH_HEAVY_CACHE_MB" => &self.heavy_cache_mb,
            _ => return None,
        };
        value.clone()
    }

    pub fn config(&self) -> Result<LimitsConfig, String> {
        LimitsConfig::from_lookup(|name| self.get(name))
    }
}

/// `HOMESTRETCH_ADMINS`: user ids only. A name would make admin whoever registers it first.
pub fn parse_admins(text: &str) -> Result<HashSet<infra::UserId>, CliError> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|entry| {
            entry.parse::<uuid::Uuid>().map(infra::UserId).map_err(|_| {
                CliError::Usage(format!(
                    "HOMESTRETCH_ADMINS takes user ids, and `{entry}` is not one: a name can be \
                     registered by anyone. Grant an existing user with `homestretch admin grant {entry}`."
                ))
            })
        })
        .collect()
}

/// Raises the open-file limit to its hard maximum and keeps the connection cap under it: a
/// flood of connections must meet our cap, not the file limit (issue 11, item 4).
fn fit_connections_to_file_limit(limits: &mut LimitsConfig) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct we pass.
    let files = unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = limit.rlim_max;
            }
        }
        limit.rlim_cur
    };
    // Room for the database pool, the log, the private cluster's pipes…
    let room = usize::try_from(files)
        .unwrap_or(usize::MAX)
        .saturating_sub(256)
        .max(64);
    if let Some(total) = &mut limits.connections_total
        && *total > room
    {
        tracing::warn!(
            files,
            cap = room,
            "the connection cap is lowered to fit the open-file limit"
        );
        *total = room;
    }
    if let Some(streams) = &mut limits.streams_total {
        *streams = (*streams).min(room);
    }
}

fn jwt_secret(settings: &Settings) -> Result<Vec<u8>, CliError> {
    if let Some(secret) = settings.jwt_secret.clone() {
        if secret.len() < 32 {
            return Err(CliError::Usage(
                "HOMESTRETCH_JWT_SECRET must be at least 32 bytes".into(),
            ));
        }
        return Ok(secret.into_bytes());
    }
    let dir = &settings.data;
    std::fs::create_dir_all(dir)?;
    let path = dir.join("jwt-secret");
    if let Ok(secret) = std::fs::read(&path)
        && secret.len() >= 32
    {
        return Ok(secret);
    }
    let mut bytes = [0u8; 32];
    infra::random::fill_random(&mut bytes);
    let secret = hex::encode(bytes).into_bytes();
    std::fs::write(&path, &secret)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    Ok(secret)
}

/// The VAPID private key: from the settings, else the one kept in the data folder (made once).
fn vapid_private_key(settings: &Settings) -> Result<Vec<u8>, CliError> {
    use crate::adapters::web_push::{Vapid, b64url_decode};
    let usage = || {
        CliError::Usage(
            "HOMESTRETCH_VAPID_PRIVATE_KEY must be a base64url P-256 private key (32 bytes)".into(),
        )
    };
    let encoded = match settings.vapid_private_key.clone() {
        Some(key) => key,
        None => {
            let dir = &settings.data;
            std::fs::create_dir_all(dir)?;
            let path = dir.join("vapid-private-key");
            match std::fs::read_to_string(&path) {
                Ok(key) => key.trim().to_string(),
                Err(_) => {
                    let key = Vapid::generate();
                    std::fs::write(&path, &key)?;
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
                    key
                }
            }
        }
    };
    let raw = b64url_decode(&encoded)
        .filter(|k| k.len() == 32)
        .ok_or_else(usage)?;
    Vapid::new(&raw, "mailto:push@homestretch.invalid").map_err(|_| usage())?;
    Ok(raw)
}

/// The server's configuration from `settings`, hosting the games of `registry`.
pub fn server_config(
    settings: &Settings,
    registry: domain::Registry,
) -> Result<ServerConfig, CliError> {
    let mut limits = settings.limits.config().map_err(CliError::Usage)?;
    fit_connections_to_file_limit(&mut limits);
    let refresh_leeway = match settings.refresh_leeway {
        Some(seconds) => Some(seconds)
            .filter(|s| s.is_finite() && (0.0..=300.0).contains(s))
            .map(std::time::Duration::from_secs_f64)
            .ok_or_else(|| {
                CliError::Usage("HOMESTRETCH_REFRESH_LEEWAY is 0 to 300 seconds".into())
            })?,
        None => app::REFRESH_LEEWAY,
    };
    Ok(ServerConfig {
        jwt_secret: jwt_secret(settings)?,
        admins: parse_admins(&settings.admins)?,
        limits,
        refresh_leeway,
        workers: None,
        registry,
        cors_origins: crate::cors::parse(&settings.cors_origins),
        notify: crate::adapters::http_delivery::NotifyConfig {
            allow_http_hosts: crate::adapters::http_delivery::NotifyConfig::parse_hosts(
                &settings.allow_http_hosts,
            ),
            vapid_private_key: vapid_private_key(settings)?,
            ..Default::default()
        },
        clocks: Some(crate::application::ClockConfig {
            bot_interval: std::time::Duration::from_millis(settings.bot_interval_ms),
            lobby_ttl: (settings.lobby_ttl > 0)
                .then(|| std::time::Duration::from_secs(settings.lobby_ttl)),
            ..Default::default()
        }),
        replica_url: replica_url(settings)?,
    })
}

/// `HOMESTRETCH_REPLICA_URL`, checked: a URL PostgreSQL would refuse is a usage error at start,
/// not a replica silently never read.
pub(super) fn replica_url(settings: &Settings) -> Result<Option<String>, CliError> {
    use std::str::FromStr;
    let Some(url) = settings.replica_url.as_ref().filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    sqlx::postgres::PgConnectOptions::from_str(url).map_err(|error| {
        CliError::Usage(format!(
            "HOMESTRETCH_REPLICA_URL is not a PostgreSQL URL: {error}"
        ))
    })?;
    Ok(Some(url.clone()))
}

/// The drain period of `HOMESTRETCH_DRAIN_S` (0 to 300 seconds).
pub(super) fn drain_period(settings: &Settings) -> Result<std::time::Duration, CliError> {
    Some(settings.drain_s)
        .filter(|s| s.is_finite() && (0.0..=300.0).contains(s))
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| CliError::Usage("HOMESTRETCH_DRAIN_S is 0 to 300 seconds".into()))
}
