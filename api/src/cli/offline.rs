//! Subcommands that need no database: `openapi`, `verify`, `simulate`.

use super::error::CliError;
use std::path::PathBuf;

/// `homestretch openapi [--write PATH]`: the document of the games hosted.
pub(super) fn openapi(registry: &domain::Registry, write: Option<PathBuf>) -> Result<(), CliError> {
    let spec = crate::openapi::spec_json(registry);
    match write {
        Some(path) => std::fs::write(path, spec)?,
        None => print!("{spec}"),
    }
    Ok(())
}

/// `homestretch verify BUNDLE.json`: an export checked offline.
pub(super) fn verify(registry: &domain::Registry, path: &std::path::Path) -> Result<(), CliError> {
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

/// `homestretch simulate --game KIND`: random-bot games of a hosted game, as JSON statistics.
pub(super) fn simulate(
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
