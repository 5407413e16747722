//! Issue 29: replays, exports, audits and event pages read from a replica when it holds the
//! version they need, from the primary otherwise. The "replica" is a second database of the
//! test cluster holding a copy of the primary's log taken at one moment: it lags because
//! nobody updates it after. Instances are extra servers on the primary's database (as in a
//! cluster), each with its own cache and counters.

use crate::audit::{players, sealed_malt_choice};
use homestretch_tests::{Database, Player, TestApp, spawn_app_with};
use serde_json::{Value, json};
use std::net::TcpListener;

/// The tables a replay, export or audit reads, in an order their foreign keys accept.
const LOG_TABLES: [&str; 6] = [
    "users",
    "games",
    "game_seats",
    "commands",
    "events",
    "snapshots",
];

/// Copies the primary's log tables into `replica` as of one snapshot of the primary (a
/// consistent prefix, as a streaming replica holds). Rows the template already holds (the
/// server's own users) are kept.
async fn copy_log(app: &TestApp, replica: &Database) {
    let mut read = app.pool.begin().await.unwrap();
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .execute(&mut *read)
        .await
        .unwrap();
    for table in LOG_TABLES {
        let rows: Value = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT coalesce(jsonb_agg(t), '[]') FROM {table} t"
        )))
        .fetch_one(&mut *read)
        .await
        .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {table} SELECT * FROM jsonb_populate_recordset(null::{table}, $1) \
             ON CONFLICT DO NOTHING"
        )))
        .bind(rows)
        .execute(&replica.pool)
        .await
        .unwrap();
    }
    read.commit().await.unwrap();
}

/// Another instance on `app`'s database, reading replicas from `replica_url`, clocks off (the
/// first instance runs them).
async fn instance(app: &TestApp, replica_url: Option<String>) -> TestApp {
    app.peer_with("replica29", |config| {
        config.clocks = None;
        config.replica_url = replica_url;
    })
    .await
}

/// `homestretch_replica_reads_total{source, reason}` on `app`'s metrics (0 when absent).
async fn replica_reads(app: &TestApp, source: &str, reason: &str) -> u64 {
    let metrics = app.request("GET", "/metrics", None, None, &[]).await.text;
    let series =
        format!("homestretch_replica_reads_total{{source=\"{source}\",reason=\"{reason}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series.as_str()))
        .map_or(0, |n| n.parse().unwrap())
}

async fn served_by_replica(app: &TestApp) -> u64 {
    replica_reads(app, "replica", "fresh").await
}

/// The body of a successful GET, as bytes (text).
async fn get_ok(app: &TestApp, path: &str, player: &Player) -> String {
    let answer = app.get(path, &player.token).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text);
    answer.text
}

async fn head(app: &TestApp, id: &str, player: &Player) -> u64 {
    app.game(id, player).await["version"].as_u64().unwrap()
}

/// A Whisky Race in which seat 1 has sealed its malt choice: the game, the version, and the
/// choice's salt (seat 1's secret until the reveal).
async fn sealed_choice(app: &TestApp, players: &[Player]) -> (String, u64, String) {
    let (id, salt) = sealed_malt_choice(app, players).await;
    let version = head(app, &id, &players[0]).await;
    (id, version, salt)
}

/// The replica holds version `v` of a game, the primary `w > v`. Replays at `v` are the
/// replica's, replays at `w` the primary's, byte for byte what a primary-only instance says;
/// exports, audits and event pages are the replica's only when it holds what the client says
/// it holds (`min_version`) and what the instance knows; a secret stays hidden on both paths.
#[actix_web::test]
async fn replica_reads_are_served_when_fresh_and_fall_back_when_behind() {
    let replica = Database::new().await;
    let url = Some(replica.url());
    let app = spawn_app_with(|c| c.replica_url = url.clone()).await;
    let primary_only = instance(&app, None).await;
    let players = players(&app).await;
    let (id, v, salt) = sealed_choice(&app, &players).await;
    // Before the copy the replica lacks the game: the primary answers.
    let replay_v = format!("/v1/games/{id}/state?at={v}");
    let early = get_ok(&app, &format!("/v1/games/{id}/state?at=1"), &players[1]).await;
    assert_eq!(served_by_replica(&app).await, 0);
    assert_eq!(replica_reads(&app, "primary", "behind").await, 1);
    copy_log(&app, &replica).await;

    // A fresh instance knows no head: with the replica caught up, it serves the export.
    let b = instance(&app, url.clone()).await;
    // A move that does not exist: the replica's refusal is checked with the primary (404), and
    // the replica is not thought down for it (the export below is still the replica's).
    let no_move = format!("/v1/games/{id}/audit/0");
    b.get(&no_move, &players[1].token).await.problem(404);
    assert_eq!(replica_reads(&b, "primary", "refused").await, 1);
    let export = format!("/v1/games/{id}/export");
    let from_replica = get_ok(&b, &export, &players[1]).await;
    assert_eq!(served_by_replica(&b).await, 1);
    let from_primary = get_ok(&primary_only, &export, &players[1]).await;
    assert_eq!(
        from_replica, from_primary,
        "the same version, byte for byte"
    );
    assert!(
        !from_replica.contains(&salt),
        "seat 1's salt leaked to seat 2"
    );

    // The primary moves on; the replica does not.
    app.command(
        &id,
        &players[1],
        json!({"type": "submit_malt_choice", "amount": 2}),
    )
    .await
    .ok();
    let w = head(&app, &id, &players[0]).await;
    assert!(w > v);

    // Replays: at v the replica's, at w the primary's; both as a primary-only instance says.
    let at_v = get_ok(&app, &replay_v, &players[1]).await;
    assert_eq!(served_by_replica(&app).await, 1);
    assert_eq!(at_v, get_ok(&primary_only, &replay_v, &players[1]).await);
    assert!(!at_v.contains(&salt), "seat 1's salt leaked to seat 2");
    assert_ne!(at_v, early);
    let replay_w = format!("/v1/games/{id}/state?at={w}");
    let at_w = get_ok(&app, &replay_w, &players[1]).await;
    assert_eq!(served_by_replica(&app).await, 1);
    assert_eq!(replica_reads(&app, "primary", "behind").await, 2);
    assert_eq!(at_w, get_ok(&primary_only, &replay_w, &players[1]).await);

    // This instance has seen w: its exports and audits never go back to v.
    let bundle: Value = serde_json::from_str(&get_ok(&app, &export, &players[1]).await).unwrap();
    assert_eq!(bundle["game"]["version"], w);
    let audit: Value =
        serde_json::from_str(&get_ok(&app, &format!("/v1/games/{id}/audit"), &players[1]).await)
            .unwrap();
    assert_eq!(audit["sound"], true, "{audit}");
    assert_eq!(served_by_replica(&app).await, 1);
    assert_eq!(replica_reads(&app, "primary", "behind").await, 4);

    // A fresh instance, and a client that was shown w elsewhere: the primary's.
    let c = instance(&app, url.clone()).await;
    let since_w = format!("{export}?min_version={w}");
    let bundle: Value = serde_json::from_str(&get_ok(&c, &since_w, &players[1]).await).unwrap();
    assert_eq!(bundle["game"]["version"], w);
    assert_eq!(served_by_replica(&c).await, 0);
    assert_eq!(replica_reads(&c, "primary", "behind").await, 1);
    let d = instance(&app, url.clone()).await;
    let page = format!("/v1/games/{id}/events?after=0&min_version={w}");
    let page: Value = serde_json::from_str(&get_ok(&d, &page, &players[1]).await).unwrap();
    assert_eq!(page["next_after"], w);
    assert_eq!(served_by_replica(&d).await, 0);

    // A fresh instance, a client that holds nothing: the replica's page (to v, more to come),
    // then the next page from the primary (the replica has nothing after v).
    let e = instance(&app, url.clone()).await;
    let first = get_ok(&e, &format!("/v1/games/{id}/events?after=0"), &players[1]).await;
    assert_eq!(served_by_replica(&e).await, 1);
    assert!(!first.contains(&salt), "seat 1's salt leaked to seat 2");
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        (first["next_after"].as_u64(), first["has_more"].as_bool()),
        (Some(v), Some(true))
    );
    let next = format!("/v1/games/{id}/events?after={v}");
    let next: Value = serde_json::from_str(&get_ok(&e, &next, &players[1]).await).unwrap();
    assert_eq!(
        (next["next_after"].as_u64(), next["has_more"].as_bool()),
        (Some(w), Some(false))
    );
    assert_eq!(served_by_replica(&e).await, 1);
    // The pages from either source together are the primary's log.
    let mut both: Vec<Value> = first["events"].as_array().unwrap().clone();
    both.extend(next["events"].as_array().unwrap().iter().cloned());
    assert_eq!(both, primary_only.all_events(&id, &players[1]).await);
}

/// A replica URL that points nowhere (a closed port): every read is the primary's, counted as
/// the replica's error (or time-out), never the client's; after one failure the replica rests
/// (`down`) instead of costing every read a failed connection.
#[actix_web::test]
async fn a_replica_that_is_down_leaves_every_read_to_the_primary() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("postgres://homestretch@127.0.0.1:{port}/homestretch");
    let app = spawn_app_with(|c| c.replica_url = Some(url)).await;
    let players = players(&app).await;
    let (id, v, _) = sealed_choice(&app, &players).await;
    for path in [
        format!("/v1/games/{id}/state?at={v}"),
        format!("/v1/games/{id}/export"),
        format!("/v1/games/{id}/audit"),
        format!("/v1/games/{id}/audit/{v}"),
        format!("/v1/games/{id}/events?after=0"),
    ] {
        get_ok(&app, &path, &players[1]).await;
    }
    let failed = replica_reads(&app, "primary", "error").await
        + replica_reads(&app, "primary", "timeout").await;
    let skipped = replica_reads(&app, "primary", "down").await;
    assert!(failed >= 1, "the replica was never tried");
    assert_eq!(failed + skipped, 5);
    assert_eq!(served_by_replica(&app).await, 0);
}

/// A `min_version` that is not a version is the client's error, named (problem+json).
#[actix_web::test]
async fn a_min_version_out_of_range_is_refused() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app).await;
    let (id, _, _) = sealed_choice(&app, &players).await;
    let answer = app
        .get(
            &format!("/v1/games/{id}/export?min_version={}", u64::MAX),
            &players[1].token,
        )
        .await;
    answer.problem(422);
}
