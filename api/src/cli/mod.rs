//! The `homestretch` command line (clap): `serve` (default), `migrate`, `openapi`, `admin`,
//! `verify`, `projections`, `inbox`, `snapshots`, `simulate`. Every setting the server takes from its
//! environment is a field of [`Settings`], read once and handed down; `homestretch help`
//! lists the commands and `homestretch help serve` every variable.
//!
//! The rooms, as in zero-to-production: this file (the command line and its dispatch),
//! `settings.rs` (configuration from flags and environment, secret files, rlimits),
//! `args.rs` (the clap definitions), `error.rs` (`CliError`),
//! `startup.rs` (the database, the private PostgreSQL, the server until a signal), and one file
//! per family of subcommands: `admin.rs`, `db.rs` (migrations, projections, inbox,
//! snapshots), `offline.rs` (openapi, verify, simulate: no database).

mod admin;
mod args;
mod db;
mod error;
mod offline;
mod settings;
mod startup;
#[cfg(test)]
mod tests;

pub use admin::admin;
pub use args::{AdminAction, Cli, Command, InboxAction, ProjectionsAction, SnapshotsAction};
pub use error::CliError;
pub use settings::{LimitSettings, Settings, parse_admins, server_config};
pub use startup::{database, ensure_database, init_tracing};

use clap::Parser;

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
