//! `homestretch admin grant|revoke USER | list`.

use super::args::AdminAction;
use super::error::CliError;
use super::settings::Settings;
use super::startup::{database, stop};

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

/// `homestretch admin grant|revoke USER | list`.
pub(super) async fn admin_command(
    settings: &Settings,
    action: AdminAction,
) -> Result<(), CliError> {
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
