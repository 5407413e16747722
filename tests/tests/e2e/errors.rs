use homestretch_tests::spawn_app;
use serde_json::json;

#[actix_web::test]
async fn every_error_is_problem_json_and_changes_nothing() {
    let app = spawn_app().await;
    let players = [
        app.register("a").await,
        app.register("b").await,
        app.register("c").await,
    ];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let head = |app: &homestretch_tests::TestApp| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT count(*) FROM events")
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    let before = head(&app).await;
    let path = format!("/v1/games/{id}/commands");
    let token = players[0].token.as_str();
    // malformed JSON
    let raw = app
        .request(
            "POST",
            &path,
            Some(token),
            None,
            &[("content-type", "application/json")],
        )
        .await;
    assert!(raw.status == 400 || raw.status == 422, "{}", raw.text);
    let broken = app
        .client
        .post(app.url(&path))
        .insert_header(("authorization", format!("Bearer {token}")))
        .insert_header(("content-type", "application/json"))
        .send_body("{\"command\": ")
        .await
        .unwrap();
    assert_eq!(broken.status().as_u16(), 400);
    // wrong types
    app.post(&path, token, &json!({"command": "finish"}))
        .await
        .problem(422);
    app.post(
        &path,
        token,
        &json!({"command_id": 5, "command": {"type": "finish_movement"}}),
    )
    .await
    .problem(422);
    app.post(
        &path,
        token,
        &json!({"command": {"type": "no_such_command"}}),
    )
    .await
    .problem(422);
    app.post(
        &path,
        token,
        &json!({"command": {"type": "submit_malt_choice", "amount": "lots"}}),
    )
    .await
    .problem(422);
    // oversized body
    let big =
        json!({"command": {"type": "submit_malt_choice", "amount": 1, "pad": "x".repeat(200_000)}});
    app.post(&path, token, &big).await.problem(413);
    // deep nesting
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let nested = app
        .client
        .post(app.url(&path))
        .insert_header(("authorization", format!("Bearer {token}")))
        .insert_header(("content-type", "application/json"))
        .send_body(deep)
        .await
        .unwrap();
    assert!(nested.status().is_client_error());
    // unknown route and method
    app.get("/v1/nowhere", token).await.problem(404);
    let wrong_method = app.request("PUT", "/v1/me", Some(token), None, &[]).await;
    assert!(
        wrong_method
            .content_type
            .starts_with("application/problem+json")
    );
    assert!(wrong_method.status == 404 || wrong_method.status == 405);
    // a rule violation names its rule
    let violation = app
        .command(
            &id,
            &players[0],
            json!({"type": "submit_malt_choice", "amount": 99}),
        )
        .await;
    let problem = violation.problem(422);
    assert!(
        problem["rule"].as_str().unwrap().starts_with("WR-"),
        "{problem}"
    );
    assert_eq!(
        head(&app).await,
        before,
        "a refused request appended something"
    );
}
