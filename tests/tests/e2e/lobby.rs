use homestretch_tests::spawn_app;
use serde_json::json;

#[actix_web::test]
async fn create_join_leave_start_and_list() {
    let app = spawn_app().await;
    let (a, b, c) = (
        app.register("ann").await,
        app.register("bob").await,
        app.guest().await,
    );
    let game = app
        .post(
            "/v1/games",
            &a.token,
            &json!({"kind": "whisky_race", "seats": 3, "options": {}}),
        )
        .await
        .ok();
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["status"], "lobby");
    assert_eq!(game["fair"], true);
    assert_eq!(game["seed_commitment"].as_str().unwrap().len(), 64);
    // starting before every seat is taken is refused
    app.post(&format!("/v1/games/{id}/start"), &a.token, &json!({}))
        .await
        .problem(422);
    app.post(
        &format!("/v1/games/{id}/seats"),
        &b.token,
        &json!({"client_seed": "bob's dice"}),
    )
    .await
    .ok();
    // bob leaves and comes back; joining twice is refused
    assert_eq!(
        app.request(
            "DELETE",
            &format!("/v1/games/{id}/seats/me"),
            Some(&b.token),
            None,
            &[]
        )
        .await
        .status,
        204
    );
    app.post(&format!("/v1/games/{id}/seats"), &b.token, &json!({}))
        .await
        .ok();
    app.post(&format!("/v1/games/{id}/seats"), &b.token, &json!({}))
        .await
        .problem(422);
    let full = app
        .post(&format!("/v1/games/{id}/seats"), &c.token, &json!({}))
        .await
        .ok();
    assert_eq!(full["seats"].as_array().unwrap().len(), 3);
    assert_eq!(full["seats"][1]["user"]["name"], "bob");
    // only the host starts
    app.post(&format!("/v1/games/{id}/start"), &b.token, &json!({}))
        .await
        .problem(403);
    let started = app
        .post(&format!("/v1/games/{id}/start"), &a.token, &json!({}))
        .await
        .ok();
    assert!(started["version"].as_u64().unwrap() >= 1);
    // starting again returns the first answer (idempotent per game)
    let again = app
        .post(&format!("/v1/games/{id}/start"), &a.token, &json!({}))
        .await
        .ok();
    assert_eq!(again["version"], started["version"]);
    // no joining or leaving once started
    let d = app.guest().await;
    app.post(&format!("/v1/games/{id}/seats"), &d.token, &json!({}))
        .await
        .problem(422);
    // lists: mine, by status, paginated with a Link header
    for _ in 0..3 {
        app.post(
            "/v1/games",
            &d.token,
            &json!({"kind": "whisky_race", "seats": 3}),
        )
        .await
        .ok();
    }
    let mine = app.get("/v1/games?mine=true", &a.token).await.ok();
    assert_eq!(mine["games"].as_array().unwrap().len(), 1);
    let page1 = app.get("/v1/games?limit=2", &a.token).await;
    assert_eq!(page1.status, 200);
    let cursor = page1.body["next_cursor"]
        .as_str()
        .expect("next cursor")
        .to_string();
    let page2 = app
        .get(&format!("/v1/games?limit=2&cursor={cursor}"), &a.token)
        .await
        .ok();
    let page3_cursor = page2["next_cursor"].as_str();
    assert!(page3_cursor.is_none());
    let ids: Vec<_> = page1.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .chain(page2["games"].as_array().unwrap())
        .map(|g| g["id"].clone())
        .collect();
    assert_eq!(ids.len(), 4);
    let active = app.get("/v1/games?status=active", &a.token).await.ok();
    assert_eq!(active["games"].as_array().unwrap().len(), 1);
    app.get("/v1/games?limit=1000", &a.token).await.problem(422);
}

#[actix_web::test]
async fn fixed_rng_seed_is_for_admins_and_marks_the_game_unfair() {
    let app = spawn_app().await;
    let player = app.register("someone").await;
    app.post(
        "/v1/games",
        &player.token,
        &json!({"kind": "whisky_race", "seats": 3, "rng_seed": "42"}),
    )
    .await
    .problem(403);
    let admin = app.admin("root-admin").await;
    let game = app
        .post(
            "/v1/games",
            &admin.token,
            &json!({"kind": "whisky_race", "seats": 3, "rng_seed": "42"}),
        )
        .await
        .ok();
    assert_eq!(game["fair"], false);
    let me = app.get("/v1/me", &admin.token).await.ok();
    assert_eq!(me["is_admin"], true);
}

#[actix_web::test]
async fn bad_game_parameters_are_refused() {
    let app = spawn_app().await;
    let p = app.register("p").await;
    app.post("/v1/games", &p.token, &json!({"kind": "chess", "seats": 3}))
        .await
        .problem(422);
    app.post(
        "/v1/games",
        &p.token,
        &json!({"kind": "whisky_race", "seats": 9}),
    )
    .await
    .problem(422);
    app.post(
        "/v1/games",
        &p.token,
        &json!({"kind": "whisky_race", "seats": 3, "options": {"no_such_option": true}}),
    )
    .await
    .problem(422);
    app.get("/v1/games/not-a-uuid", &p.token).await.problem(404);
    app.get(&format!("/v1/games/{}", uuid::Uuid::new_v4()), &p.token)
        .await
        .problem(404);
}

/// Issue 11, item 5: admin was whoever registered the configured name first. Now configuration
/// names user ids only, and `homestretch admin grant` flags an existing user's row: registering
/// an admin's name (before or after) gives nothing.
#[actix_web::test]
async fn registering_an_admins_name_does_not_make_you_admin() {
    // A name in HOMESTRETCH_ADMINS is refused at start-up, with the way to do it instead.
    let refused = api::cli::parse_admins("root-admin")
        .unwrap_err()
        .to_string();
    assert!(refused.contains("admin grant"), "{refused}");
    let id = uuid::Uuid::new_v4();
    assert_eq!(
        api::cli::parse_admins(&format!(" {id} ,")).unwrap(),
        std::collections::HashSet::from([infra::UserId(id)])
    );

    let app = homestretch_tests::spawn_app().await;
    let url = homestretch_tests::database_url(&app.database);
    // Granting a name nobody has yet fails: it cannot wait for someone to register it.
    let grant = |who: &str| vec!["grant".to_string(), who.to_string()];
    assert!(api::cli::admin(&url, &grant("root-admin")).await.is_err());
    let squatter = app.register("root-admin").await;
    let me = app.get("/v1/me", &squatter.token).await.ok();
    assert_eq!(me["is_admin"], false);
    app.post(
        "/v1/games",
        &squatter.token,
        &json!({"kind": "whisky_race", "seats": 3, "rng_seed": "42"}),
    )
    .await
    .problem(403);

    // The real admin is granted by id (or by name: the row that exists now).
    let real = app.register("the-operator").await;
    api::cli::admin(&url, &grant(&real.id))
        .await
        .expect("grant by id");
    assert_eq!(app.get("/v1/me", &real.token).await.ok()["is_admin"], true);
    let listed = api::cli::admin(&url, &["list".to_string()]).await.unwrap();
    assert!(
        listed.contains(&real.id) && !listed.contains(&squatter.id),
        "{listed}"
    );
    api::cli::admin(&url, &["revoke".to_string(), "THE-OPERATOR".to_string()])
        .await
        .expect("revoke by name");
    assert_eq!(app.get("/v1/me", &real.token).await.ok()["is_admin"], false);

    // An admin by id in configuration (a second server on the same database): that account.
    let mut config = homestretch_tests::test_config();
    config.admins = std::collections::HashSet::from([infra::UserId(real.id.parse().unwrap())]);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let state = api::app::app_state(app.pool.clone(), &config);
    actix_web::rt::spawn(api::app::serve(listener, state, &config).unwrap());
    let is_admin = |token: String| {
        let url = format!("{address}/v1/me");
        async move {
            let mut res = awc::Client::default()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            res.json::<serde_json::Value>().await.unwrap()["is_admin"].clone()
        }
    };
    assert_eq!(is_admin(real.token.clone()).await, true);
    assert_eq!(is_admin(squatter.token.clone()).await, false);
}
