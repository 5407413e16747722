use homestretch_tests::{Answer, JWT_SECRET, TestApp, spawn_app, spawn_app_with};
use serde_json::json;

/// base64url without padding, as JWTs and Web Push write it.
fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn claims(sub: &str, overrides: serde_json::Value) -> serde_json::Value {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let mut claims = json!({"sub": sub, "name": "x", "iss": "homestretch", "aud": "homestretch-api",
                            "exp": now + 600, "nbf": now - 5, "iat": now - 5,
                            "fam": uuid::Uuid::new_v4()});
    for (k, v) in overrides.as_object().expect("object") {
        claims[k] = v.clone();
    }
    claims
}

fn sign(claims: &serde_json::Value, secret: &[u8], alg: jsonwebtoken::Algorithm) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(alg),
        claims,
        &jsonwebtoken::EncodingKey::from_secret(secret),
    )
    .expect("sign")
}

#[actix_web::test]
async fn register_login_guest_and_me() {
    let app = spawn_app().await;
    let alice = app.register("alice").await;
    let me = app.get("/v1/me", &alice.token).await.ok();
    assert_eq!(me["name"], "alice");
    assert_eq!(me["is_guest"], false);
    // login with the right password works, with a wrong one it is a 401
    let ok = app
        .request(
            "POST",
            "/v1/auth/login",
            None,
            Some(&json!({"name": "alice", "password": "correct horse battery"})),
            &[],
        )
        .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.body["token_type"], "Bearer");
    assert!(ok.body["expires_in"].as_i64().unwrap() > 0);
    let bad = app
        .request(
            "POST",
            "/v1/auth/login",
            None,
            Some(&json!({"name": "alice", "password": "wrong password"})),
            &[],
        )
        .await;
    bad.problem(401);
    // the name is taken now (case-insensitively)
    app.request(
        "POST",
        "/v1/auth/register",
        None,
        Some(&json!({"name": "ALICE", "password": "another password"})),
        &[],
    )
    .await
    .problem(422);
    let guest = app.guest().await;
    let me = app.get("/v1/me", &guest.token).await.ok();
    assert_eq!(me["is_guest"], true);
    // passwords are stored as argon2id PHC strings, never in clear
    let stored: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE name = 'alice'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(stored.starts_with("$argon2id$"), "{stored}");
    assert!(!stored.contains("correct horse"));
}

async fn refresh(app: &TestApp, token: &str) -> Answer {
    app.request(
        "POST",
        "/v1/auth/refresh",
        None,
        Some(&json!({"refresh_token": token})),
        &[],
    )
    .await
}

/// Issue 11, item 6: a client's own race (two requests hit 401 together and both refresh)
/// never ends its session: both get the very same new pair, and it works.
#[actix_web::test]
async fn concurrent_refreshes_within_the_leeway_get_the_same_pair_and_both_sessions_work() {
    let app = spawn_app().await;
    for race in 0..30 {
        let guest = app.guest().await;
        let (a, b) = tokio::join!(refresh(&app, &guest.refresh), refresh(&app, &guest.refresh));
        assert_eq!(a.status, 200, "race {race}: {}", a.text);
        assert_eq!(b.status, 200, "race {race}: {}", b.text);
        assert_eq!(
            a.body, b.body,
            "race {race}: both answers are the same pair"
        );
        assert_ne!(a.body["refresh_token"], json!(guest.refresh));
        let access = a.body["access_token"].as_str().unwrap();
        assert_eq!(app.get("/v1/me", access).await.status, 200, "race {race}");
        // The session goes on: the new refresh token rotates as usual.
        let next = refresh(&app, a.body["refresh_token"].as_str().unwrap()).await;
        assert_eq!(next.status, 200, "race {race}: {}", next.text);
        let access = next.body["access_token"].as_str().unwrap();
        assert_eq!(app.get("/v1/me", access).await.status, 200, "race {race}");
    }
    // Refresh tokens are stored hashed, never in clear.
    let guest = app.guest().await;
    let clear: i64 =
        sqlx::query_scalar("SELECT count(*) FROM refresh_tokens WHERE token_hash = $1")
            .bind(&guest.refresh)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(clear, 0);
}

/// Issue 11, item 6: a spent refresh token sent after the leeway is a stolen copy: the whole
/// family is revoked, the tokens already issued to the winner included (access tokens too).
#[actix_web::test]
async fn a_refresh_token_reused_after_the_leeway_kills_every_token_of_its_family() {
    let app = spawn_app_with(|config| {
        config.refresh_leeway = std::time::Duration::from_millis(500);
    })
    .await;
    let alice = app.register("alice").await;
    // Another session of the same user (another device) must survive.
    let other_device = app
        .request(
            "POST",
            "/v1/auth/login",
            None,
            Some(&json!({"name": "alice", "password": "correct horse battery"})),
            &[],
        )
        .await
        .ok();
    let winner = refresh(&app, &alice.refresh).await.ok();
    let winner_access = winner["access_token"].as_str().unwrap().to_string();
    let winner_refresh = winner["refresh_token"].as_str().unwrap().to_string();
    assert_eq!(app.get("/v1/me", &winner_access).await.status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    // The thief (or the owner) comes back with the spent token.
    refresh(&app, &alice.refresh).await.problem(401);
    // Every token of the family is dead now.
    app.get("/v1/me", &winner_access).await.problem(401);
    app.get("/v1/me", &alice.token).await.problem(401);
    refresh(&app, &winner_refresh).await.problem(401);
    refresh(&app, &alice.refresh).await.problem(401);
    // The other session is untouched.
    let other_access = other_device["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", other_access).await.status, 200);
    refresh(&app, other_device["refresh_token"].as_str().unwrap())
        .await
        .ok();
}

/// Issue 11, item 6: `POST /v1/auth/logout` ends the caller's session at once.
#[actix_web::test]
async fn logout_revokes_the_callers_family_and_only_it() {
    let app = spawn_app().await;
    let guest = app.guest().await;
    let rotated = refresh(&app, &guest.refresh).await.ok();
    let access = rotated["access_token"].as_str().unwrap().to_string();
    let refresh_token = rotated["refresh_token"].as_str().unwrap().to_string();
    let bob = app.register("bob").await;
    let logout = app
        .request("POST", "/v1/auth/logout", Some(&access), None, &[])
        .await;
    assert_eq!(logout.status, 204, "{}", logout.text);
    app.get("/v1/me", &access).await.problem(401);
    app.get("/v1/me", &guest.token).await.problem(401);
    refresh(&app, &refresh_token).await.problem(401);
    app.request("POST", "/v1/auth/logout", Some(&access), None, &[])
        .await
        .problem(401);
    // Without a token there is nothing to end.
    app.request("POST", "/v1/auth/logout", None, None, &[])
        .await
        .problem(401);
    assert_eq!(app.get("/v1/me", &bob.token).await.status, 200);
}

#[actix_web::test]
async fn bad_tokens_are_refused_with_www_authenticate() {
    let app = spawn_app().await;
    let alice = app.register("alice").await;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let header_none = b64(br#"{"alg":"none","typ":"JWT"}"#);
    let body = b64(claims(&alice.id, json!({})).to_string().as_bytes());
    let cases = [
        (
            "wrong signature",
            sign(
                &claims(&alice.id, json!({})),
                b"another-secret-another-secret-!!!!!",
                jsonwebtoken::Algorithm::HS256,
            ),
        ),
        ("alg none", format!("{header_none}.{body}.")),
        (
            "other algorithm",
            sign(
                &claims(&alice.id, json!({})),
                JWT_SECRET,
                jsonwebtoken::Algorithm::HS512,
            ),
        ),
        (
            "wrong audience",
            sign(
                &claims(&alice.id, json!({"aud": "someone-else"})),
                JWT_SECRET,
                jsonwebtoken::Algorithm::HS256,
            ),
        ),
        (
            "wrong issuer",
            sign(
                &claims(&alice.id, json!({"iss": "evil"})),
                JWT_SECRET,
                jsonwebtoken::Algorithm::HS256,
            ),
        ),
        (
            "expired",
            sign(
                &claims(
                    &alice.id,
                    json!({"exp": now - 120, "iat": now - 1000, "nbf": now - 1000}),
                ),
                JWT_SECRET,
                jsonwebtoken::Algorithm::HS256,
            ),
        ),
        (
            "not yet valid",
            sign(
                &claims(&alice.id, json!({"nbf": now + 3600})),
                JWT_SECRET,
                jsonwebtoken::Algorithm::HS256,
            ),
        ),
        ("garbage", "not.a.token".to_string()),
    ];
    for (what, token) in cases {
        let answer = app.get("/v1/me", &token).await;
        answer.problem(401);
        assert!(
            answer
                .www_authenticate
                .as_deref()
                .unwrap_or("")
                .starts_with("Bearer"),
            "{what}: no WWW-Authenticate"
        );
    }
    let missing = app.request("GET", "/v1/me", None, None, &[]).await;
    missing.problem(401);
    // a correctly signed token works
    let good = sign(
        &claims(&alice.id, json!({})),
        JWT_SECRET,
        jsonwebtoken::Algorithm::HS256,
    );
    assert_eq!(app.get("/v1/me", &good).await.status, 200);
}
