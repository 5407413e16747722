//! The registry is a value handed to the server: a game registered only in the tests plays
//! over real HTTP, and a kind no registered game has is a 422 naming the known kinds.

use homestretch_tests::test_game::registry_with_countdown;
use homestretch_tests::{spawn_app, spawn_app_with};
use serde_json::json;

#[actix_web::test]
async fn a_fourth_game_registered_only_in_the_tests_plays_over_http() {
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    let summary = app.game(&game, &ann).await;
    assert_eq!(summary["kind"], "countdown");
    // CD-1: seats take turns from seat 1; the refusal names the test game's own rule.
    let refused = app.command(&game, &bob, json!({"type": "step"})).await;
    assert_eq!(refused.problem(422)["rule"], "CD-1");
    // Commands reject unknown fields, for a game the server does not know by name too.
    app.command(&game, &ann, json!({"type": "step", "far": 2}))
        .await
        .problem(422);
    for player in [&ann, &bob, &ann] {
        app.command(&game, player, json!({"type": "step"}))
            .await
            .ok();
    }
    // CD-3: ann reached the target (2 steps): the game is over and the seed revealed.
    let done = app.game(&game, &bob).await;
    assert_eq!(done["status"], "finished", "{done}");
    let events = app.all_events(&game, &bob).await;
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        types,
        [
            "started",
            "stepped",
            "stepped",
            "stepped",
            "server_seed_revealed"
        ]
    );
    let listed = app.get("/v1/games?kind=countdown", &ann.token).await.ok();
    assert_eq!(listed["games"].as_array().map(Vec::len), Some(1));
}

#[actix_web::test]
async fn an_unknown_kind_is_refused_naming_the_known_kinds() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    // The default server does not host the tests' game: never a default kind instead.
    let answer = app
        .post(
            "/v1/games",
            &ann.token,
            &json!({"kind": "countdown", "seats": 2}),
        )
        .await;
    let detail = answer.problem(422)["detail"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    for kind in domain::registry().kinds() {
        assert!(detail.contains(kind), "{detail}");
    }
    app.get("/v1/games?kind=countdown", &ann.token)
        .await
        .problem(422);
}

/// The served OpenAPI document, the live audit and the offline verifier all take the registry
/// the server is handed: the tests' game is in the document, and its export verifies.
#[actix_web::test]
async fn the_document_and_the_verifier_know_the_game_registered_only_in_the_tests() {
    let registry = registry_with_countdown();
    let hosted = registry.clone();
    let app = spawn_app_with(move |config| config.registry = hosted).await;
    let served = app.request("GET", "/openapi.json", None, None, &[]).await;
    let spec: serde_json::Value = serde_json::from_str(&served.text).expect("the document");
    let schemas = &spec["components"]["schemas"];
    assert!(
        schemas["GameKind"]["enum"]
            .as_array()
            .is_some_and(|kinds| kinds.contains(&json!("countdown"))),
        "{}",
        schemas["GameKind"]
    );
    assert!(schemas["CountdownCommand"].is_object());
    assert!(
        schemas["CountdownGame"].is_object(),
        "the game resource's branch"
    );
    let (ann, bob) = (app.register("ann").await, app.register("bob").await);
    let game = app
        .started_game("countdown", &[ann.clone(), bob.clone()], json!({}), None)
        .await;
    for player in [&ann, &bob, &ann] {
        app.command(&game, player, json!({"type": "step"}))
            .await
            .ok();
    }
    let audit = app
        .get(&format!("/v1/games/{game}/audit"), &ann.token)
        .await
        .ok();
    assert_eq!(audit["sound"], true, "{audit}");
    let export = app
        .get(&format!("/v1/games/{game}/export"), &ann.token)
        .await
        .ok();
    let bundle: infra::audit::Bundle = serde_json::from_value(export).expect("a bundle");
    let report = infra::audit::verify_bundle_in(&registry, &bundle);
    assert!(report.sound, "{report:?}");
    // A verifier without the game says so: it never re-runs the log as another game's.
    let without = infra::audit::verify_bundle(&bundle);
    assert!(!without.sound);
    assert!(
        without
            .checks
            .iter()
            .any(|c| c.name == "rules" && !c.passed),
        "{without:?}"
    );
}
