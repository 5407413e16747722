//! Subcommands on the database: `migrate`, `projections rebuild`, `inbox rebuild`,
//! `snapshots verify`.

use super::error::CliError;
use super::settings::Settings;
use super::startup::with_database;
use crate::application::Services;

/// `homestretch migrate`.
pub(super) async fn migrate(settings: &Settings) -> Result<(), CliError> {
    with_database(settings, |_| async { Ok(()) }).await?;
    println!("migrations applied");
    Ok(())
}

/// `homestretch projections rebuild`: every game's head projection folded from its log.
pub(super) async fn projections_rebuild(
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
pub(super) async fn inbox_rebuild(
    settings: &Settings,
    registry: domain::Registry,
) -> Result<(), CliError> {
    let rebuilt = with_database(settings, |pool| async move {
        let services = Services::new(infra::store::Store::new(pool), registry);
        Ok(services.inbox.rebuild_inbox().await?)
    })
    .await?;
    println!("inbox rewritten for {rebuilt} started games");
    Ok(())
}

/// `homestretch snapshots verify`: every stored snapshot against a fold of the log.
pub(super) async fn snapshots_verify(
    settings: &Settings,
    registry: domain::Registry,
) -> Result<(), CliError> {
    let (count, checked, bad) = with_database(settings, |pool| async move {
        let services = Services::new(infra::store::Store::new(pool), registry);
        let (mut checked, mut bad, mut count) = (0, Vec::new(), 0);
        for id in services.lobby.started_games().await? {
            let (n, wrong) = services.replays.check_snapshots(id).await?;
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
