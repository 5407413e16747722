use homestretch_tests::{JWT_SECRET, spawn_app};
use serde_json::json;

fn b64(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn claims(sub: &str, overrides: serde_json::Value) -> serde_json::Value {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let mut claims = json!({"sub": sub, "name": "x", "iss": "homestretch", "aud": "homestretch-api",
                            "exp": now + 600, "nbf": now - 5, "iat": now - 5});
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

#[actix_web::test]
async fn refresh_rotates_and_reuse_revokes_the_family() {
    let app = spawn_app().await;
    let alice = app.register("alice").await;
    let first = app
        .request(
            "POST",
            "/v1/auth/refresh",
            None,
            Some(&json!({"refresh_token": alice.refresh})),
            &[],
        )
        .await
        .ok();
    let second_refresh = first["refresh_token"].as_str().unwrap().to_string();
    assert_ne!(second_refresh, alice.refresh);
    // the spent token comes back: refused, and the whole family is revoked
    app.request(
        "POST",
        "/v1/auth/refresh",
        None,
        Some(&json!({"refresh_token": alice.refresh})),
        &[],
    )
    .await
    .problem(401);
    app.request(
        "POST",
        "/v1/auth/refresh",
        None,
        Some(&json!({"refresh_token": second_refresh})),
        &[],
    )
    .await
    .problem(401);
    // refresh tokens are stored hashed
    let clear: i64 =
        sqlx::query_scalar("SELECT count(*) FROM refresh_tokens WHERE token_hash = $1")
            .bind(&alice.refresh)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(clear, 0);
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
