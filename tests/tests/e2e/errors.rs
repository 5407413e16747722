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

/// Found by schemathesis: a NUL character (which PostgreSQL text and jsonb cannot hold) used to
/// reach the database and come back as a 500.
#[actix_web::test]
async fn nul_characters_are_bad_input_not_server_errors() {
    let app = spawn_app().await;
    let login = app
        .request(
            "POST",
            "/v1/auth/login",
            None,
            Some(&json!({"name": "a\u{0}b", "password": "whatever password"})),
            &[],
        )
        .await;
    login.problem(401);
    let p = app.register("n").await;
    app.request(
        "POST",
        "/v1/auth/register",
        None,
        Some(&json!({"name": "x\u{0}", "password": "long enough password"})),
        &[],
    )
    .await
    .problem(422);
    let players = [p.clone(), app.register("o").await, app.register("q").await];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let answer = app
        .post(
            &format!("/v1/games/{id}/disputes"),
            &p.token,
            &json!({"seq": 1, "reason": "nul \u{0} here"}),
        )
        .await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    let seeded = app
        .post(
            "/v1/games",
            &p.token,
            &json!({"kind": "whisky_race", "seats": 3, "client_seed": "\u{0}"}),
        )
        .await;
    assert_eq!(seeded.status, 422, "{}", seeded.text);
}
