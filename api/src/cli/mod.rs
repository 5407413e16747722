//! The `homestretch` command line (clap): `serve` (default), `migrate`, `openapi`, `admin`,
//! `verify`, `projections`, `inbox`, `snapshots`, `simulate`. Every setting the server takes from its
//! environment is a field of [`Settings`], read once and handed down; `homestretch help`
//! lists the commands and `homestretch help serve` every variable.
//!
//! The rooms, as in zero-to-production: this file (the command line and its dispatch),
//! `settings.rs` (configuration from flags and environment, secret files, rlimits),
//! `startup.rs` (the database, the private PostgreSQL, the server until a signal), and one file
//! per family of subcommands: `admin.rs`, `db.rs` (migrations, projections, inbox,
//! snapshots), `offline.rs` (openapi, verify, simulate: no database).

mod admin;
mod db;
mod offline;
mod settings;
mod startup;
#[cfg(test)]
mod tests;

pub use admin::admin;
pub use settings::{LimitSettings, Settings, parse_admins, server_config};
pub use startup::{database, ensure_database, init_tracing};

use clap::{Parser, Subcommand};
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

/// What `homestretch help` prints: every subcommand and every setting (clap renders it).
pub fn help_text() -> String {
    use clap::CommandFactory;
    Cli::command().render_long_help().to_string()
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
        Command::Serve => startup::serve(settings, registry).await,
        Command::Migrate => db::migrate(settings).await,
        Command::Openapi { write } => offline::openapi(&registry, write),
        Command::Admin { action } => admin::admin_command(settings, action).await,
        Command::Projections {
            action: ProjectionsAction::Rebuild,
        } => db::projections_rebuild(settings, &registry).await,
        Command::Snapshots {
            action: SnapshotsAction::Verify,
        } => db::snapshots_verify(settings, registry).await,
        Command::Inbox {
            action: InboxAction::Rebuild,
        } => db::inbox_rebuild(settings, registry).await,
        Command::Verify { bundle } => offline::verify(&registry, &bundle),
        Command::Simulate { game, games, seed } => offline::simulate(&registry, &game, games, seed),
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
