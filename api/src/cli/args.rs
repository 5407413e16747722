//! The command line's shape (clap): the subcommands and their arguments.

use super::settings::Settings;
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
