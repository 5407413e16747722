//! The `homestretch` command line: `serve` (default), `migrate`, `openapi`, `admin grant`,
//! `simulate`.

use crate::app::{self, ServerConfig};
use crate::limits::LimitsConfig;
use infra::pg::Cluster;
use std::collections::HashSet;
use std::net::TcpListener;
use std::path::PathBuf;

pub const USAGE: &str = "\
homestretch — event-sourced board-game server

USAGE:
  homestretch [serve] [--listen ADDR]     run the server (default 127.0.0.1:8080, or HOMESTRETCH_LISTEN)
  homestretch migrate                     apply database migrations and exit
  homestretch openapi [--write PATH]      print (or write) the OpenAPI document
  homestretch admin grant USER            make USER (an existing user: name or id) an admin
  homestretch admin revoke USER           take it back
  homestretch admin list                  list the admins
  homestretch verify BUNDLE.json          check an export offline: hash chain, seed, re-run of every command
  homestretch projections rebuild         recompute every projection from the event log
  homestretch snapshots verify            check every stored snapshot against a fold of the log
  homestretch load [--url URL] [--games N] [--duration S] [--kind K] [--seats N] [--expected-version] [--ack-log FILE] [--host-token T] [--json]
  homestretch load --list-tables [--kind K]   the tables the load tool plays: kind, seats, options
                                          bot players over HTTP against a running server, every game (or
                                          --kind K), every seat count and option sample; throughput and latency
  homestretch flood [--url URL] [--from IP] [--probe-from IP] [--duration S] [--workers N]
                    [--streams N] [--idle N] [--slow N] [--no-probe | --probe-only]
                                          one IP floods a running server while another measures
                                          its latency (JSON; see docs/reliability.md)
  homestretch simulate --game KIND [--games N] [--seed S]
                                          play N random-bot games and print statistics (JSON)
  homestretch bench-reads [--url URL] [--clients N] [--duration S]
                                          read throughput and latency of a running server (JSON)
  homestretch bench-sse [--url URL] [--subscribers N] [--moves N]
                                          event-stream fan-out latency (JSON)
  homestretch bench-replay [--url URL] [--events N] [--samples N]
                                          replay (`/state?at=`) latency on a long game (JSON)
  homestretch bench-memory [--url URL] [--games N] [--moves N]
                                          server memory per cached game (JSON)
  homestretch help                        this text

ENVIRONMENT:
  DATABASE_URL            use this PostgreSQL database; without it a private cluster is started
                          in HOMESTRETCH_DATA (default ./.homestretch) and stopped on exit
  HOMESTRETCH_LISTEN      listen address (overridden by --listen)
  HOMESTRETCH_JWT_SECRET  token signing secret (default: generated once, kept in the data folder)
  HOMESTRETCH_ADMINS      comma-separated user IDS that are admins (names are refused: anyone
                          can register a name; grant by name with `admin grant`)
  HOMESTRETCH_REFRESH_LEEWAY  seconds a spent refresh token still gets the same answer (10)
  HOMESTRETCH_LIMITS      `off` turns every limit below off (benchmarks, load drills)
  HOMESTRETCH_RATE_IP     requests per client IP (default 200/s; rates are N, N/s, N/min, N/h; 0 = off)
  HOMESTRETCH_RATE_USER   requests per user (default 50/s)
  HOMESTRETCH_RATE_ACCOUNTS_IP  new accounts, guest or registered, per IP (default 30/h)
  HOMESTRETCH_RATE_LOGIN_IP     login attempts per IP (default 30/min)
  HOMESTRETCH_RATE_GAMES_IP     games created per IP (default 60/min)
  HOMESTRETCH_RATE_GAMES_USER   games created per user (default 10/min)
  HOMESTRETCH_STREAMS_PER_USER  open event streams per user (default 16; 0 = off)
  HOMESTRETCH_STREAMS_PER_IP    open event streams per IP (default 64)
  HOMESTRETCH_STREAMS_TOTAL     open event streams in total (default 4096)
  HOMESTRETCH_CONNECTIONS_PER_IP  open connections per IP (default 128)
  HOMESTRETCH_MAX_CONNECTIONS   open connections in total (default 8192, less when the file limit is lower)
  HOMESTRETCH_HEADER_TIMEOUT    seconds to send a request head (default 5; 0 = off)
  HOMESTRETCH_BODY_TIMEOUT      seconds to send a request body (default 10)
  HOMESTRETCH_KEEP_ALIVE        seconds an idle connection is kept (default 10)
  HOMESTRETCH_CORS_ORIGINS  comma-separated browser origins allowed by CORS (default none)
  RUST_LOG                log filter (default info); logs are JSON when not on a terminal
";

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
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Failed(String),
}

fn data_dir() -> PathBuf {
    std::env::var_os("HOMESTRETCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".homestretch"))
}

/// The database to use: `DATABASE_URL`, or a private cluster (started here).
pub async fn database() -> Result<(String, Option<Cluster>), CliError> {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        return Ok((url, None));
    }
    let root = data_dir();
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

fn jwt_secret() -> Result<Vec<u8>, CliError> {
    if let Ok(secret) = std::env::var("HOMESTRETCH_JWT_SECRET") {
        if secret.len() < 32 {
            return Err(CliError::Usage(
                "HOMESTRETCH_JWT_SECRET must be at least 32 bytes".into(),
            ));
        }
        return Ok(secret.into_bytes());
    }
    let dir = data_dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("jwt-secret");
    if let Ok(secret) = std::fs::read(&path)
        && secret.len() >= 32
    {
        return Ok(secret);
    }
    let mut bytes = [0u8; 32];
    infra::games::fill_random(&mut bytes);
    let secret = hex::encode(bytes).into_bytes();
    std::fs::write(&path, &secret)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    Ok(secret)
}

pub fn server_config() -> Result<ServerConfig, CliError> {
    let mut limits =
        LimitsConfig::from_lookup(|name| std::env::var(name).ok()).map_err(CliError::Usage)?;
    fit_connections_to_file_limit(&mut limits);
    let refresh_leeway = match std::env::var("HOMESTRETCH_REFRESH_LEEWAY") {
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && (0.0..=300.0).contains(s))
            .map(std::time::Duration::from_secs_f64)
            .ok_or_else(|| {
                CliError::Usage("HOMESTRETCH_REFRESH_LEEWAY is 0 to 300 seconds".into())
            })?,
        Err(_) => app::REFRESH_LEEWAY,
    };
    Ok(ServerConfig {
        jwt_secret: jwt_secret()?,
        admins: parse_admins(&std::env::var("HOMESTRETCH_ADMINS").unwrap_or_default())?,
        limits,
        refresh_leeway,
        workers: None,
        cors_origins: crate::cors::origins_from_env(),
    })
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

pub async fn run(args: Vec<String>) -> Result<(), CliError> {
    let mut args = args.into_iter().peekable();
    let command = match args.peek().map(String::as_str) {
        Some(first) if !first.starts_with('-') => args.next().unwrap_or_default(),
        _ => String::from("serve"),
    };
    let rest: Vec<String> = args.collect();
    match command.as_str() {
        "serve" => serve(&rest).await,
        "migrate" => {
            let (url, cluster) = database().await?;
            let pool = infra::db::connect(&url, 2).await?;
            infra::db::migrate(&pool).await?;
            pool.close().await;
            println!("migrations applied");
            stop(cluster);
            Ok(())
        }
        "openapi" => {
            let spec = crate::openapi::spec_json();
            match flag(&rest, "--write") {
                Some(path) => std::fs::write(path, spec)?,
                None => print!("{spec}"),
            }
            Ok(())
        }
        "admin" => {
            if !matches!(
                rest.first().map(String::as_str),
                Some("grant" | "revoke" | "list")
            ) {
                return Err(CliError::Usage(
                    "usage: homestretch admin grant USER | admin revoke USER | admin list".into(),
                ));
            }
            let (url, cluster) = database().await?;
            let result = admin(&url, &rest).await;
            stop(cluster);
            println!("{}", result?);
            Ok(())
        }
        "projections" => {
            if rest.first().map(String::as_str) != Some("rebuild") {
                return Err(CliError::Usage(
                    "usage: homestretch projections rebuild".into(),
                ));
            }
            let (url, cluster) = database().await?;
            let pool = infra::db::connect(&url, 2).await?;
            infra::db::migrate(&pool).await?;
            let report =
                infra::projections::rebuild_all(&infra::store::Store::new(pool.clone())).await;
            pool.close().await;
            stop(cluster);
            let report = report?;
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
        "snapshots" => {
            if rest.first().map(String::as_str) != Some("verify") {
                return Err(CliError::Usage(
                    "usage: homestretch snapshots verify".into(),
                ));
            }
            let (url, cluster) = database().await?;
            let pool = infra::db::connect(&url, 2).await?;
            infra::db::migrate(&pool).await?;
            let games = infra::games::GameService::new(infra::store::Store::new(pool.clone()));
            let result = async {
                let (mut checked, mut bad, mut count) = (0, Vec::new(), 0);
                for id in games.store.started_games().await? {
                    let (n, wrong) = games.check_snapshots(id).await?;
                    checked += n;
                    count += 1;
                    bad.extend(wrong.into_iter().map(|v| format!("{id}@{v}")));
                }
                Ok::<_, CliError>((count, checked, bad))
            }
            .await;
            pool.close().await;
            stop(cluster);
            let (count, checked, bad) = result?;
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
        "verify" => {
            let [path] = rest.as_slice() else {
                return Err(CliError::Usage(
                    "usage: homestretch verify BUNDLE.json".into(),
                ));
            };
            let text = std::fs::read_to_string(path)?;
            let bundle: infra::audit::Bundle = serde_json::from_str(&text)
                .map_err(|e| CliError::Failed(format!("{path} is not an export bundle: {e}")))?;
            let report = infra::audit::verify_bundle(&bundle);
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
        "load" if rest.iter().any(|a| a == "--list-tables") => {
            let tables =
                crate::load::tables(flag(&rest, "--kind"), None).map_err(CliError::Usage)?;
            for t in tables {
                println!("{} {} {}", t.kind, t.seats, t.options);
            }
            Ok(())
        }
        "load" => {
            let url = flag(&rest, "--url")
                .unwrap_or("http://127.0.0.1:8080")
                .to_string();
            let number = |name: &str, default: u64| -> Result<u64, CliError> {
                flag(&rest, name)
                    .map(|v| {
                        v.parse()
                            .map_err(|_| CliError::Usage(format!("{name} needs a number")))
                    })
                    .transpose()
                    .map(|v| v.unwrap_or(default))
            };
            let config = crate::load::LoadConfig {
                url,
                games: number("--games", 16)? as usize,
                duration: std::time::Duration::from_secs(number("--duration", 30)?),
                // Default: every game, every seat count, every option sample, in turn.
                kind: flag(&rest, "--kind").map(String::from),
                seats: flag(&rest, "--seats")
                    .map(|v| {
                        v.parse()
                            .map_err(|_| CliError::Usage("--seats needs a number".into()))
                    })
                    .transpose()?,
                json: rest.iter().any(|a| a == "--json"),
                expected_version: rest.iter().any(|a| a == "--expected-version"),
                ack_log: flag(&rest, "--ack-log").map(std::path::PathBuf::from),
                host_token: flag(&rest, "--host-token").map(String::from),
            };
            let json_out = config.json;
            let report = crate::load::run(config).await.map_err(CliError::Usage)?;
            if json_out {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                );
            } else {
                crate::load::print_human(&report);
            }
            Ok(())
        }
        "bench-reads" => {
            let url = flag(&rest, "--url")
                .unwrap_or("http://127.0.0.1:8080")
                .to_string();
            let clients = flag(&rest, "--clients")
                .and_then(|v| v.parse().ok())
                .unwrap_or(16);
            let seconds = flag(&rest, "--duration")
                .and_then(|v| v.parse().ok())
                .unwrap_or(10);
            let reads =
                crate::load::run_reads(&url, clients, std::time::Duration::from_secs(seconds))
                    .await
                    .ok_or_else(|| {
                        CliError::Failed("could not set up the read benchmark".into())
                    })?;
            println!("{reads:.0}");
            Ok(())
        }
        "bench-sse" | "bench-replay" | "bench-memory" => {
            let url = flag(&rest, "--url")
                .unwrap_or("http://127.0.0.1:8080")
                .to_string();
            let n = |name: &str, default: usize| {
                flag(&rest, name)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(default)
            };
            let report = match command.as_str() {
                "bench-sse" => {
                    crate::load::run_sse(&url, n("--subscribers", 1000), n("--moves", 100)).await
                }
                "bench-replay" => {
                    crate::load::run_replay(&url, n("--events", 10_000) as u64, n("--samples", 200))
                        .await
                }
                _ => crate::load::run_memory(&url, n("--games", 1000), n("--moves", 10)).await,
            }
            .ok_or_else(|| CliError::Failed(format!("{command} could not run")))?;
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
            Ok(())
        }
        "flood" => {
            let ip = |name: &str, default: &str| -> Result<std::net::IpAddr, CliError> {
                flag(&rest, name)
                    .unwrap_or(default)
                    .parse()
                    .map_err(|_| CliError::Usage(format!("{name} needs an IP address")))
            };
            let n = |name: &str, default: usize| -> Result<usize, CliError> {
                flag(&rest, name)
                    .map(|v| {
                        v.parse()
                            .map_err(|_| CliError::Usage(format!("{name} needs a number")))
                    })
                    .transpose()
                    .map(|v| v.unwrap_or(default))
            };
            let config = crate::flood::FloodConfig {
                url: flag(&rest, "--url")
                    .unwrap_or("http://127.0.0.1:8080")
                    .to_string(),
                flood_from: ip("--from", "127.0.0.2")?,
                probe_from: ip("--probe-from", "127.0.0.1")?,
                duration: std::time::Duration::from_secs(n("--duration", 20)? as u64),
                workers: n("--workers", 64)?,
                streams: n("--streams", 2000)?,
                idle_connections: n("--idle", 2000)?,
                slow_bodies: n("--slow", 200)?,
                flood: !rest.iter().any(|a| a == "--probe-only"),
                probe: !rest.iter().any(|a| a == "--no-probe"),
            };
            let report = crate::flood::run(config)
                .await
                .ok_or_else(|| CliError::Failed("the flood could not set up its game".into()))?;
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
            Ok(())
        }
        "simulate" => {
            let kind = flag(&rest, "--game")
                .ok_or_else(|| CliError::Usage("simulate needs --game KIND".into()))?;
            let games = flag(&rest, "--games")
                .map(|g| g.parse())
                .transpose()
                .map_err(|_| CliError::Usage("--games N".into()))?
                .unwrap_or(1000);
            let seed = flag(&rest, "--seed")
                .map(|g| g.parse())
                .transpose()
                .map_err(|_| CliError::Usage("--seed S".into()))?
                .unwrap_or(1);
            let report = domain::simulate(kind, games, seed).map_err(CliError::Failed)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
            Ok(())
        }
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(CliError::Usage(format!(
            "unknown command `{other}`\n\n{USAGE}"
        ))),
    }
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn stop(cluster: Option<Cluster>) {
    if let Some(cluster) = cluster
        && cluster.started_here
        && let Err(error) = cluster.stop()
    {
        tracing::warn!(%error, "stopping the private PostgreSQL cluster");
    }
}

async fn serve(args: &[String]) -> Result<(), CliError> {
    let listen = flag(args, "--listen")
        .map(String::from)
        .or_else(|| std::env::var("HOMESTRETCH_LISTEN").ok())
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    let config = server_config()?;
    let (url, cluster) = database().await?;
    if let Some(cluster) = &cluster {
        tracing::info!(data = %cluster.data_dir.display(), port = cluster.port, "private PostgreSQL cluster running");
    }
    let result = async {
        let pool = infra::db::connect(&url, 32).await?;
        infra::db::migrate(&pool).await?;
        let listener = TcpListener::bind(&listen)?;
        tracing::info!(addr = %app::local_addr(&listener), "homestretch listening");
        let state = app::app_state(pool, &config);
        // actix-web stops gracefully on SIGINT/SIGTERM, finishing in-flight requests.
        app::serve(listener, state, &config)?.await?;
        Ok::<(), CliError>(())
    }
    .await;
    stop(cluster);
    result
}
