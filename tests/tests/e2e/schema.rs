//! The schema stays shardable by game (docs/scaling.md, "Sharding by game"): every table that
//! holds a game's rows is keyed by `game_id` first, so Citus can distribute it on `game_id`,
//! co-located with `games`, and one command stays on one worker. Read from the catalog of the
//! real migrated database, so a new migration that breaks the rule fails here.
use homestretch_tests::Database;

/// Tables with a `game_id` column that are deliberately not keyed by it, and why. Each is a
/// reference/coordinator table in the Citus plan (docs/scaling.md).
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "disputes",
        "keyed by the dispute id (its log `dispute_events` is keyed by dispute); few rows, \
         looked up by id across games: a reference table",
    ),
    (
        "notifications",
        "per user, not per game (`game_id` is nullable context); sharded by `user_id` if ever",
    ),
    (
        "join_codes",
        "looked up by the invite code before the game is known: a reference table",
    ),
];

#[actix_web::test]
async fn every_game_table_is_keyed_by_game_id_first() {
    let db = Database::new().await;
    // Each base table with a `game_id` column (plus `games`, whose key `id` is the game id),
    // and the first column of its primary key (NULL when it has none).
    let rows: Vec<(String, Option<String>)> = sqlx::query_as(
        "SELECT c.relname::text, \
                (SELECT a.attname::text FROM pg_index i \
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] \
                  WHERE i.indrelid = c.oid AND i.indisprimary) \
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') \
            AND (c.relname = 'games' OR EXISTS (SELECT 1 FROM pg_attribute a \
                 WHERE a.attrelid = c.oid AND a.attname = 'game_id' AND NOT a.attisdropped)) \
          ORDER BY 1",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    let names: Vec<&str> = rows.iter().map(|(t, _)| t.as_str()).collect();
    // The catalog query itself must see the game tables (a query that finds nothing passes
    // everything).
    for table in [
        "games",
        "game_seats",
        "events",
        "commands",
        "snapshots",
        "deadlines",
        "inbox",
    ] {
        assert!(names.contains(&table), "{table} not found in {names:?}");
    }
    let offending: Vec<String> = rows
        .iter()
        .filter(|(table, _)| !EXCEPTIONS.iter().any(|(t, _)| t == table))
        .filter(|(table, first)| {
            let expected = if table == "games" { "id" } else { "game_id" };
            first.as_deref() != Some(expected)
        })
        .map(|(table, first)| format!("{table} (key starts with {first:?})"))
        .collect();
    assert!(
        offending.is_empty(),
        "game tables not keyed by game_id first: {offending:?}; key them by game_id first or \
         add them to EXCEPTIONS with the reason and their place in the Citus plan"
    );
    // An exception that no longer exists (or is now keyed by game_id) is stale: remove it.
    for (table, _) in EXCEPTIONS {
        let found = rows.iter().find(|(t, _)| t == table);
        assert!(
            matches!(found, Some((_, first)) if first.as_deref() != Some("game_id")),
            "stale exception {table}: {found:?}"
        );
    }
}
