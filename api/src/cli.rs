//! The `homestretch` command line (clap): `serve` (default), `migrate`, `openapi`, `admin`,
//! `verify`, `projections`, `inbox`, `snapshots`, `simulate`. Every setting the server takes from its
//! environment is a field of [`Settings`], read once here and handed down; `homestretch help`
//! lists the commands and `homestretch help serve` every variable.

use crate::app::{self, ServerConfig};
use crate::application::GameService;
use crate::limits::LimitsConfig;
use clap::{Args, Parser, Subcommand};
use infra::pg::Cluster;
use std::collections::HashSet;
use std::net::TcpListener;
use std::path::PathBuf;

/// homestretch — event-sourced board-game server.
#[derive(Parser, Debug)]
#[command(
    name = "homestretch",
    version,
    after_help = "RUST_LOG sets the log filter (default info); logs are JSON when not on a terminal.\n\
                  The load tool is a separate binary: homestretch-load (bench/load)."
)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    /// Default: serve.
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the server (the default command).
    Serve,
    /// Apply the database migrations and exit.
    Migrate,
    /// Print (or write) the OpenAPI document.
    Openapi {
        /// Write it to this file instead.
        #[arg(long, value_name = "PATH")]
        write: Option<PathBuf>,
    },
    /// Grant, revoke or list admins (existing users, by name or id).
    Admin {
        #[command(subcommand)]
        action: AdminAction,
    },
    /// Check an export offline: hash chain, seed, re-run of every command.
    Verify {
        #[arg(value_name = "BUNDLE.json")]
        bundle: PathBuf,
    },
    /// Projections of the event log.
    Projections {
        #[command(subcommand)]
        action: ProjectionsAction,
    },
    /// The inbox table (issue 18).
    Inbox {
        #[command(subcommand)]
        action: InboxAction,
    },
    /// Stored snapshots.
    Snapshots {
        #[command(subcommand)]
        action: SnapshotsAction,
    },
    /// Play N random-bot games and print statistics (JSON).
    Simulate {
        /// The game kind.
        #[arg(long, value_name = "KIND")]
        game: String,
        #[arg(long, default_value_t = 1000)]
        games: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Subcommand, Debug)]
pub enum AdminAction {
    /// Make USER (an existing user: name or id) an admin.
    Grant { user: String },
    /// Take it back.
    Revoke { user: String },
    /// List the admins.
    List,
}

#[derive(Subcommand, Debug)]
pub enum ProjectionsAction {
    /// Recompute every projection from the event log.
    Rebuild,
}

#[derive(Subcommand, Debug)]
pub enum InboxAction {
    /// Rewrite every started game's inbox rows from its state (for games started before the
    /// inbox existed; the server keeps them up to date with every move).
    Rebuild,
}

#[derive(Subcommand, Debug)]
pub enum SnapshotsAction {
    /// Check every stored snapshot against a fold of the log.
    Verify,
}

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
    fn get(&self, name: &str) -> Option<String> {
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

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Launch(#[from] infra::pg::LaunchError),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    Store(#[from] infra::StoreError),
    #[error("{0}")]
    App(#[from] crate::application::AppError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Failed(String),
}

/// The database to use: `DATABASE_URL`, or a private cluster (started here).
pub async fn database(settings: &Settings) -> Result<(String, Option<Cluster>), CliError> {
    if let Some(url) = &settings.database_url {
        return Ok((url.clone(), None));
    }
    let root = settings.data.clone();
    let cluster = tokio::task::spawn_blocking(move || Cluster::start(&root))
        .await
        .map_err(|e| CliError::Failed(e.to_string()))??;
    ensure_database(&cluster, "homestretch").await?;
    Ok((cluster.url("homestretch"), Some(cluster)))
}

/// Creates `name` in the cluster if it does not exist yet.
pub async fn ensure_database(cluster: &Cluster, name: &str) -> Result<(), CliError> {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&cluster.url("postgres")).await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(&mut conn)
            .await?;
    if !exists {
        // The name is ours, not user input.
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut conn)
            .await?;
    }
    Ok(())
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

/// The server's configuration from the settings (the JWT secret may be generated and kept in
/// the data folder).
/// What `homestretch help` prints: every subcommand and every setting (clap renders it).
pub fn help_text() -> String {
    use clap::CommandFactory;
    Cli::command().render_long_help().to_string()
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
fn replica_url(settings: &Settings) -> Result<Option<String>, CliError> {
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

/// `homestretch admin grant|revoke USER` and `admin list` against the database at `url`.
/// USER is an existing user's id or name: the flag goes on that user's row.
pub async fn admin(url: &str, args: &[String]) -> Result<String, CliError> {
    const USAGE: &str = "usage: homestretch admin grant USER | admin revoke USER | admin list";
    let pool = infra::db::connect(url, 2).await?;
    infra::db::migrate(&pool).await?;
    let accounts = infra::accounts::Accounts::new(pool.clone());
    let result = match args {
        [verb, user] if verb == "grant" || verb == "revoke" => accounts
            .set_admin(user, verb == "grant")
            .await
            .map(|u| {
                format!(
                    "{} ({}) is {} an admin",
                    u.name,
                    u.id,
                    if u.is_admin { "now" } else { "no longer" }
                )
            })
            .map_err(|e| match e {
                infra::StoreError::NotFound(_) => CliError::Failed(format!(
                    "no user `{user}`: admins are existing users (register first, then grant)"
                )),
                other => other.into(),
            }),
        [verb] if verb == "list" => accounts.admins().await.map_err(Into::into).map(|admins| {
            admins
                .iter()
                .map(|u| format!("{}\t{}", u.id, u.name))
                .collect::<Vec<_>>()
                .join("\n")
        }),
        _ => Err(CliError::Usage(USAGE.into())),
    };
    pool.close().await;
    result
}

pub fn init_tracing() {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if std::io::stderr().is_terminal() {
        let _ = builder.try_init();
    } else {
        let _ = builder.json().try_init();
    }
}

/// Parses `args` (without the program name) and runs the command. `help` and `--version`
/// print and succeed; a bad command line is a `Usage` error carrying clap's message.
pub async fn run(args: Vec<String>) -> Result<(), CliError> {
    let Some(cli) = parse(args)? else {
        return Ok(());
    };
    // The games this binary hosts: built here, once, and handed to every command.
    let registry = domain::registry();
    let settings = &cli.settings;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(settings, registry).await,
        Command::Migrate => migrate(settings).await,
        Command::Openapi { write } => openapi(&registry, write),
        Command::Admin { action } => admin_command(settings, action).await,
        Command::Projections {
            action: ProjectionsAction::Rebuild,
        } => projections_rebuild(settings, &registry).await,
        Command::Snapshots {
            action: SnapshotsAction::Verify,
        } => snapshots_verify(settings, registry).await,
        Command::Inbox {
            action: InboxAction::Rebuild,
        } => inbox_rebuild(settings, registry).await,
        Command::Verify { bundle } => verify(&registry, &bundle),
        Command::Simulate { game, games, seed } => simulate(&registry, &game, games, seed),
    }
}

/// The command line; `None` when clap printed help or the version.
fn parse(args: Vec<String>) -> Result<Option<Cli>, CliError> {
    match Cli::try_parse_from(std::iter::once("homestretch".to_string()).chain(args)) {
        Ok(cli) => Ok(Some(cli)),
        Err(error) if !error.use_stderr() => {
            error.print()?;
            Ok(None)
        }
        Err(error) => Err(CliError::Usage(error.render().to_string())),
    }
}

/// Runs `job` on the migrated database of `settings`; a private cluster started for it is
/// stopped after.
async fn with_database<R, Job>(
    settings: &Settings,
    job: impl FnOnce(sqlx::PgPool) -> Job,
) -> Result<R, CliError>
where
    Job: std::future::Future<Output = Result<R, CliError>>,
{
    let (url, cluster) = database(settings).await?;
    let result = async {
        let pool = infra::db::connect(&url, 2).await?;
        infra::db::migrate(&pool).await?;
        let result = job(pool.clone()).await;
        pool.close().await;
        result
    }
    .await;
    stop(cluster);
    result
}

/// `homestretch migrate`.
async fn migrate(settings: &Settings) -> Result<(), CliError> {
    with_database(settings, |_| async { Ok(()) }).await?;
    println!("migrations applied");
    Ok(())
}

/// `homestretch openapi [--write PATH]`: the document of the games hosted.
fn openapi(registry: &domain::Registry, write: Option<PathBuf>) -> Result<(), CliError> {
    let spec = crate::openapi::spec_json(registry);
    match write {
        Some(path) => std::fs::write(path, spec)?,
        None => print!("{spec}"),
    }
    Ok(())
}

/// `homestretch admin grant|revoke USER | list`.
async fn admin_command(settings: &Settings, action: AdminAction) -> Result<(), CliError> {
    let args = match action {
        AdminAction::Grant { user } => vec!["grant".to_string(), user],
        AdminAction::Revoke { user } => vec!["revoke".to_string(), user],
        AdminAction::List => vec!["list".to_string()],
    };
    let (url, cluster) = database(settings).await?;
    let result = admin(&url, &args).await;
    stop(cluster);
    println!("{}", result?);
    Ok(())
}

/// `homestretch projections rebuild`: every game's head projection folded from its log.
async fn projections_rebuild(
    settings: &Settings,
    registry: &domain::Registry,
) -> Result<(), CliError> {
    let report = with_database(settings, |pool| async move {
        let store = infra::store::Store::new(pool);
        Ok(infra::projections::rebuild_all(&store, registry).await?)
    })
    .await?;
    println!(
        "{} games folded from the log; {} projections rewritten",
        report.games,
        report.rewritten.len()
    );
    for id in report.rewritten {
        println!("  rewritten: {id}");
    }
    Ok(())
}

/// `homestretch inbox rebuild`: every started game's inbox rows from its state.
async fn inbox_rebuild(settings: &Settings, registry: domain::Registry) -> Result<(), CliError> {
    let rebuilt = with_database(settings, |pool| async move {
        let games = GameService::new(infra::store::Store::new(pool), registry);
        Ok(games.rebuild_inbox().await?)
    })
    .await?;
    println!("inbox rewritten for {rebuilt} started games");
    Ok(())
}

/// `homestretch simulate --game KIND`: random-bot games of a hosted game, as JSON statistics.
fn simulate(
    registry: &domain::Registry,
    kind: &str,
    games: u64,
    seed: u64,
) -> Result<(), CliError> {
    let game = registry
        .find(kind)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let report = game.simulate(games, seed).map_err(CliError::Failed)?;
    println!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    Ok(())
}

/// `homestretch snapshots verify`: every stored snapshot against a fold of the log.
async fn snapshots_verify(settings: &Settings, registry: domain::Registry) -> Result<(), CliError> {
    let (count, checked, bad) = with_database(settings, |pool| async move {
        let games = GameService::new(infra::store::Store::new(pool), registry);
        let (mut checked, mut bad, mut count) = (0, Vec::new(), 0);
        for id in games.started_games().await? {
            let (n, wrong) = games.check_snapshots(id).await?;
            checked += n;
            count += 1;
            bad.extend(wrong.into_iter().map(|v| format!("{id}@{v}")));
        }
        Ok((count, checked, bad))
    })
    .await?;
    println!(
        "{checked} snapshots of {count} games checked against a fold of the log; {} differ",
        bad.len()
    );
    for snapshot in &bad {
        println!("  differs: {snapshot}");
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(
            "some snapshots differ from the log".into(),
        ))
    }
}

/// `homestretch verify BUNDLE.json`: an export checked offline.
fn verify(registry: &domain::Registry, path: &std::path::Path) -> Result<(), CliError> {
    let text = std::fs::read_to_string(path)?;
    let bundle: infra::audit::Bundle = serde_json::from_str(&text).map_err(|e| {
        CliError::Failed(format!("{} is not an export bundle: {e}", path.display()))
    })?;
    let report = infra::audit::verify_bundle_in(registry, &bundle);
    for check in &report.checks {
        println!(
            "{} {:<16} {}",
            if check.passed { "ok  " } else { "FAIL" },
            check.name,
            check.detail
        );
    }
    if let Some(d) = &report.divergence {
        println!(
            "first divergence at seq {}: {}\n  recorded: {}\n  expected: {}",
            d.seq, d.what, d.recorded, d.expected
        );
    }
    if report.sound {
        println!("the game is sound");
        Ok(())
    } else {
        Err(CliError::Failed("the game is NOT sound".into()))
    }
}

fn stop(cluster: Option<Cluster>) {
    if let Some(cluster) = cluster
        && cluster.started_here
        && let Err(error) = cluster.stop()
    {
        tracing::warn!(%error, "stopping the private PostgreSQL cluster");
    }
}

/// The drain period of `HOMESTRETCH_DRAIN_S` (0 to 300 seconds).
fn drain_period(settings: &Settings) -> Result<std::time::Duration, CliError> {
    Some(settings.drain_s)
        .filter(|s| s.is_finite() && (0.0..=300.0).contains(s))
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| CliError::Usage("HOMESTRETCH_DRAIN_S is 0 to 300 seconds".into()))
}

/// Runs `server` until a signal. SIGTERM drains first (issue 29, `crate::drain`): `/readyz`
/// 503, streams ended, workers stopped, requests still served for `period`; then, as for
/// SIGINT or a second signal, the server stops accepting and finishes what is in flight.
async fn run_until_signal(
    server: actix_web::dev::Server,
    state: &crate::state::AppState,
    period: std::time::Duration,
) -> Result<(), CliError> {
    use tokio::signal::unix::{SignalKind, signal};
    let handle = server.handle();
    let mut running = actix_web::rt::spawn(server);
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    tokio::select! {
        ended = &mut running => return Ok(ended.map_err(std::io::Error::other)??),
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {
            tracing::info!(seconds = period.as_secs_f64(), "SIGTERM: draining");
            state.drain.start();
            // Workers finish the deadline or delivery in hand (bounded by their timeouts).
            let workers = state.drain.workers_stopped(period + std::time::Duration::from_secs(10));
            let drained = async { tokio::join!(tokio::time::sleep(period), workers).1 };
            tokio::select! {
                stopped = drained => if !stopped {
                    tracing::warn!("background workers still busy at the end of the drain");
                },
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        }
    }
    tracing::info!("stopping: no new connections, finishing requests in flight");
    handle.stop(true).await;
    Ok(running.await.map_err(std::io::Error::other)??)
}

async fn serve(settings: &Settings, registry: domain::Registry) -> Result<(), CliError> {
    let config = server_config(settings, registry)?;
    let period = drain_period(settings)?;
    let (url, cluster) = database(settings).await?;
    if let Some(cluster) = &cluster {
        tracing::info!(data = %cluster.data_dir.display(), port = cluster.port, "private PostgreSQL cluster running");
    }
    let result = async {
        let pool = infra::db::connect(&url, 32).await?;
        infra::db::migrate(&pool).await?;
        let listener = TcpListener::bind(&settings.listen)?;
        tracing::info!(addr = %app::local_addr(&listener), "homestretch listening");
        let state = app::app_state(pool, &config);
        run_until_signal(
            app::serve(listener, state.clone(), &config)?,
            &state,
            period,
        )
        .await?;
        tracing::info!("homestretch stopped");
        Ok::<(), CliError>(())
    }
    .await;
    stop(cluster);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::cell::RefCell;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// One settings struct: every variable the limits read is a documented setting, with its
    /// flag, and reaches `LimitsConfig` through it.
    #[test]
    fn every_limit_variable_is_a_setting() {
        let asked = RefCell::new(Vec::new());
        LimitsConfig::from_lookup(|name| {
            asked.borrow_mut().push(name.to_string());
            None
        })
        .unwrap();
        let command = Cli::command();
        let envs: Vec<String> = command
            .get_arguments()
            .filter_map(|a| a.get_env())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        let asked = asked.into_inner();
        assert!(asked.len() >= 15, "{asked:?}");
        for name in &asked {
            assert!(envs.contains(name), "{name} is not a setting");
            let flag = format!(
                "--{}",
                command
                    .get_arguments()
                    .find(|a| a.get_env().is_some_and(|e| e == name.as_str()))
                    .and_then(|a| a.get_long())
                    .unwrap()
            );
            // A value the limits refuse, given by flag, must come back as their error.
            let cli = Cli::try_parse_from(["homestretch", "serve", &flag, "nonsense"]).unwrap();
            let settings = &cli.settings.limits;
            assert_eq!(settings.get(name).as_deref(), Some("nonsense"));
            assert!(settings.config().is_err(), "{flag} nonsense was accepted");
        }
    }

    /// Issue 29: the replica is a setting (flag and variable); a URL PostgreSQL refuses stops
    /// the start with a usage error naming it; none means none.
    #[test]
    fn the_replica_url_is_a_setting_and_a_bad_one_is_a_usage_error() {
        let command = Cli::command();
        let argument = command
            .get_arguments()
            .find(|a| a.get_long() == Some("replica-url"))
            .expect("a --replica-url flag");
        assert_eq!(argument.get_env().unwrap(), "HOMESTRETCH_REPLICA_URL");
        let parse = |args: &[&str]| {
            let line = ["homestretch"].iter().chain(args).copied();
            replica_url(&Cli::try_parse_from(line).unwrap().settings)
        };
        let url = "postgres://homestretch@127.0.0.1:5433/homestretch";
        assert_eq!(
            parse(&["--replica-url", url]).unwrap().as_deref(),
            Some(url)
        );
        assert_eq!(parse(&[]).unwrap(), None);
        match parse(&["--replica-url", "not a url"]) {
            Err(CliError::Usage(text)) => assert!(text.contains("HOMESTRETCH_REPLICA_URL")),
            other => panic!("{other:?}"),
        }
    }

    /// The drain period (issue 29) is a setting like the others: 5 s unless told, 0 to 300.
    #[test]
    fn the_drain_period_is_a_setting_of_0_to_300_seconds() {
        let default = Cli::try_parse_from(["homestretch", "serve"]).unwrap();
        assert_eq!(
            drain_period(&default.settings).unwrap(),
            crate::drain::DEFAULT_DRAIN
        );
        let quick = Cli::try_parse_from(["homestretch", "serve", "--drain-s", "0.5"]).unwrap();
        assert_eq!(
            drain_period(&quick.settings).unwrap(),
            std::time::Duration::from_millis(500)
        );
        for bad in ["301", "-1", "NaN"] {
            let cli = Cli::try_parse_from(["homestretch", "serve", "--drain-s", bad]).unwrap();
            assert!(drain_period(&cli.settings).is_err(), "{bad} was accepted");
        }
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains("HOMESTRETCH_DRAIN_S"), "{help}");
    }

    #[test]
    fn settings_come_before_or_after_the_command_and_serve_is_the_default() {
        let before =
            Cli::try_parse_from(["homestretch", "--listen", "0.0.0.0:1", "--limits", "off"])
                .unwrap();
        assert!(before.command.is_none());
        assert_eq!(before.settings.listen, "0.0.0.0:1");
        assert_eq!(
            before.settings.limits.config().unwrap(),
            LimitsConfig::off()
        );
        let after = Cli::try_parse_from(["homestretch", "serve", "--listen", "0.0.0.0:2"]).unwrap();
        assert!(matches!(after.command, Some(Command::Serve)));
        assert_eq!(after.settings.listen, "0.0.0.0:2");
    }

    #[test]
    fn help_lists_every_command_and_a_bad_line_is_a_usage_error() {
        let help = Cli::command().render_long_help().to_string();
        for name in [
            "serve",
            "migrate",
            "openapi",
            "admin",
            "verify",
            "projections",
            "snapshots",
            "simulate",
            "HOMESTRETCH_RATE_IP",
            "DATABASE_URL",
        ] {
            assert!(help.contains(name), "help lacks {name}:\n{help}");
        }
        assert!(Cli::try_parse_from(["homestretch", "no-such-command"]).is_err());
        assert!(Cli::try_parse_from(["homestretch", "admin", "grant"]).is_err());
    }
}
