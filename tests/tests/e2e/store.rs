use homestretch_tests::spawn_app;
use infra::GameId;
use serde_json::json;

#[actix_web::test]
async fn the_log_refuses_update_and_delete() {
    let app = spawn_app().await;
    let players = [
        app.register("a").await,
        app.register("b").await,
        app.register("c").await,
    ];
    app.started_game("whisky_race", &players, json!({}), None)
        .await;
    let update = sqlx::query("UPDATE events SET payload = '{}'::jsonb")
        .execute(&app.pool)
        .await;
    assert!(update.unwrap_err().to_string().contains("append-only"));
    let delete = sqlx::query("DELETE FROM events").execute(&app.pool).await;
    assert!(delete.unwrap_err().to_string().contains("append-only"));
    let truncate = sqlx::query("TRUNCATE events CASCADE")
        .execute(&app.pool)
        .await;
    assert!(truncate.is_err());
}

#[actix_web::test]
async fn the_hash_chain_links_every_event() {
    let app = spawn_app().await;
    let players = [
        app.register("a").await,
        app.register("b").await,
        app.register("c").await,
    ];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.play_randomly(&id, &players, 11, 60).await;
    let store = infra::store::Store::new(app.pool.clone());
    let game: GameId = id.parse().unwrap();
    let events = store.events(game, 0, None, 10_000).await.unwrap();
    let mut prev = infra::hash::GENESIS.to_string();
    for e in &events {
        assert_eq!(e.prev_hash, prev, "seq {}", e.seq);
        let recomputed = infra::hash::event_hash(game.0, e);
        assert_eq!(recomputed, e.hash, "seq {}", e.seq);
        prev = e.hash.clone();
    }
    assert_eq!(store.game(game).await.unwrap().head_hash, prev);
}

#[actix_web::test]
async fn projections_rebuilt_from_the_log_equal_the_inline_ones() {
    let app = spawn_app().await;
    let players = [
        app.register("a").await,
        app.register("b").await,
        app.register("c").await,
    ];
    let finished = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.play_randomly(&finished, &players, 5, 5000).await;
    let running = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.play_randomly(&running, &players, 6, 25).await;
    app.post(
        "/v1/games",
        &players[0].token,
        &json!({"kind": "whisky_race", "seats": 3}),
    )
    .await
    .ok();
    let store = infra::store::Store::new(app.pool.clone());
    for id in [&finished, &running] {
        let id: GameId = id.parse().unwrap();
        let folded = infra::projections::fold_head(&store, &domain::registry(), id)
            .await
            .unwrap();
        let stored = infra::projections::stored_head(&store, id).await.unwrap();
        assert_eq!(folded, stored);
    }
    let report = infra::projections::rebuild_all(&store, &domain::registry())
        .await
        .unwrap();
    assert_eq!(report.games, 3);
    assert!(
        report.rewritten.is_empty(),
        "inline projections differ from the log: {:?}",
        report.rewritten
    );
    // a damaged projection is detected and rewritten from the log
    sqlx::query("UPDATE games SET version = version + 7, status = 'active'")
        .execute(&app.pool)
        .await
        .unwrap();
    let report = infra::projections::rebuild_all(&store, &domain::registry())
        .await
        .unwrap();
    assert_eq!(report.rewritten.len(), 3);
    let finished_id: GameId = finished.parse().unwrap();
    assert_eq!(
        infra::projections::stored_head(&store, finished_id)
            .await
            .unwrap()
            .status,
        infra::store::GameStatus::Finished
    );
}
