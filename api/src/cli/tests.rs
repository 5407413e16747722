//! The command line and its settings.

use super::settings::{drain_period, replica_url};
use super::*;
use crate::limits::LimitsConfig;
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
        Cli::try_parse_from(["homestretch", "--listen", "0.0.0.0:1", "--limits", "off"]).unwrap();
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
