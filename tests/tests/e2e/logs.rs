//! No secret or token is ever written to the logs: every log line of the server (at DEBUG, all
//! crates) is captured while accounts, tokens and games are used, then searched.

use homestretch_tests::spawn_app;
use serde_json::json;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn captured() -> &'static Captured {
    static LOGS: OnceLock<Captured> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Captured::default();
        let writer = logs.clone();
        tracing_subscriber::fmt()
            .json()
            .with_env_filter(tracing_subscriber::EnvFilter::new("debug"))
            .with_writer(move || writer.clone())
            .init();
        logs
    })
}

#[actix_web::test]
async fn no_secret_or_token_reaches_the_logs() {
    let logs = captured();
    let app = spawn_app().await;
    let password = "a very secret password 9381";
    let alice = app
        .request(
            "POST",
            "/v1/auth/register",
            None,
            Some(&json!({"name": "logged", "password": password})),
            &[],
        )
        .await
        .ok();
    let access = alice["access_token"].as_str().unwrap().to_string();
    let refresh = alice["refresh_token"].as_str().unwrap().to_string();
    app.request(
        "POST",
        "/v1/auth/login",
        None,
        Some(&json!({"name": "logged", "password": password})),
        &[],
    )
    .await
    .ok();
    app.request(
        "POST",
        "/v1/auth/login",
        None,
        Some(&json!({"name": "logged", "password": "wrong password 1234"})),
        &[],
    )
    .await;
    let rotated = app
        .request(
            "POST",
            "/v1/auth/refresh",
            None,
            Some(&json!({"refresh_token": refresh})),
            &[],
        )
        .await
        .ok();
    app.request(
        "POST",
        "/v1/auth/refresh",
        None,
        Some(&json!({"refresh_token": refresh})),
        &[],
    )
    .await; // reuse
    app.get("/v1/me", &access).await.ok();
    app.get("/v1/me", "forged.token.value").await;
    let others = [app.guest().await, app.guest().await];
    let players = [
        homestretch_tests::Player {
            token: access.clone(),
            refresh: refresh.clone(),
            id: String::new(),
            name: "logged".into(),
        },
        others[0].clone(),
        others[1].clone(),
    ];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.command(
        &id,
        &players[0],
        json!({"type": "submit_malt_choice", "amount": 2}),
    )
    .await
    .ok();
    let text = String::from_utf8_lossy(&logs.0.lock().unwrap()).to_string();
    assert!(text.contains("served"), "the request logs were captured");
    for (what, secret) in [
        ("password", password.to_string()),
        ("access token", access.clone()),
        ("refresh token", refresh.clone()),
        (
            "rotated refresh token",
            rotated["refresh_token"].as_str().unwrap().to_string(),
        ),
        (
            "JWT secret",
            String::from_utf8_lossy(homestretch_tests::JWT_SECRET).to_string(),
        ),
        ("wrong password", "wrong password 1234".to_string()),
    ] {
        assert!(
            !text.contains(&secret),
            "the {what} was written to the logs"
        );
    }
}
