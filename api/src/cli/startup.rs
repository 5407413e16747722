//! Start-up: logging, the database (or the private PostgreSQL cluster), and the server run
//! until a signal, drained on SIGTERM.

use super::error::CliError;
use super::settings::{Settings, drain_period, server_config};
use crate::app;
use infra::pg::Cluster;
use std::net::TcpListener;

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

/// Runs `job` on the migrated database of `settings`; a private cluster started for it is
/// stopped after.
pub(super) async fn with_database<R, Job>(
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

pub(super) fn stop(cluster: Option<Cluster>) {
    if let Some(cluster) = cluster
        && cluster.started_here
        && let Err(error) = cluster.stop()
    {
        tracing::warn!(%error, "stopping the private PostgreSQL cluster");
    }
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

/// `homestretch serve` (the default command).
pub(super) async fn serve(settings: &Settings, registry: domain::Registry) -> Result<(), CliError> {
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
