//! Browser clients: CORS for the configured origins only (`HOMESTRETCH_CORS_ORIGINS`).

use homestretch_tests::{spawn_app, spawn_app_with};

const ALLOWED: &str = "https://play.example.com";

async fn preflight(app: &homestretch_tests::TestApp, origin: &str) -> awc::http::StatusCode {
    let res = app
        .client
        .request(awc::http::Method::OPTIONS, app.url("/v1/games"))
        .insert_header(("origin", origin))
        .insert_header(("access-control-request-method", "POST"))
        .insert_header((
            "access-control-request-headers",
            "authorization, content-type",
        ))
        .send()
        .await
        .unwrap();
    let allow = res
        .headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_string());
    if origin == ALLOWED && allow.is_some() {
        assert_eq!(allow.as_deref(), Some(ALLOWED));
        let methods = res
            .headers()
            .get("access-control-allow-methods")
            .unwrap()
            .to_str()
            .unwrap();
        assert!(methods.contains("POST"), "{methods}");
        let headers = res
            .headers()
            .get("access-control-allow-headers")
            .unwrap()
            .to_str()
            .unwrap()
            .to_lowercase();
        assert!(headers.contains("authorization"), "{headers}");
    } else {
        assert!(allow.is_none(), "origin {origin} was allowed");
    }
    res.status()
}

#[actix_web::test]
async fn cors_answers_preflights_for_configured_origins_only() {
    let app = spawn_app_with(|c| c.cors_origins = vec![ALLOWED.into()]).await;
    assert!(preflight(&app, ALLOWED).await.is_success());
    assert!(!preflight(&app, "https://evil.example").await.is_success());
    // A real request from the allowed origin carries the CORS headers a client needs to read.
    let res = app
        .client
        .get(app.url("/healthz"))
        .insert_header(("origin", ALLOWED))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    assert_eq!(
        res.headers()
            .get("access-control-allow-origin")
            .unwrap()
            .to_str()
            .unwrap(),
        ALLOWED
    );
    let exposed = res
        .headers()
        .get("access-control-expose-headers")
        .unwrap()
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        exposed.contains("etag") && exposed.contains("retry-after"),
        "{exposed}"
    );
    // Another origin is still served (non-browser clients do not care), without CORS headers.
    let res = app
        .client
        .get(app.url("/healthz"))
        .insert_header(("origin", "https://evil.example"))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    assert!(res.headers().get("access-control-allow-origin").is_none());
}

#[actix_web::test]
async fn cors_allows_no_origin_by_default() {
    let app = spawn_app().await;
    assert!(!preflight(&app, ALLOWED).await.is_success());
}

/// Every problem `type` the server can answer with resolves to a page describing it. The slugs
/// are read from the code that builds problems, so a new one without a page fails here.
#[actix_web::test]
async fn every_problem_type_resolves_to_a_page() {
    let mut slugs = std::collections::BTreeSet::new();
    for file in ["error.rs", "app.rs"] {
        let source =
            std::fs::read_to_string(format!("{}/../api/src/{file}", env!("CARGO_MANIFEST_DIR")))
                .unwrap();
        // `("slug", "Title")` pairs and literal `/problems/slug` URIs.
        for piece in source.split("(\"").skip(1) {
            if let Some((slug, rest)) = piece.split_once("\", \"")
                && !slug.is_empty()
                && slug.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && rest.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            {
                slugs.insert(slug.to_string());
            }
        }
        for piece in source.split("\"/problems/").skip(1) {
            let slug: String = piece
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !slug.is_empty() {
                slugs.insert(slug);
            }
        }
    }
    assert!(slugs.len() >= 10, "{slugs:?}");
    let app = spawn_app().await;
    for slug in &slugs {
        let page = app
            .request("GET", &format!("/problems/{slug}"), None, None, &[])
            .await;
        assert_eq!(page.status, 200, "/problems/{slug}: {}", page.text);
        assert!(page.content_type.starts_with("text/html"));
    }
    // a real problem's type is fetchable
    let problem = app.request("GET", "/v1/games", None, None, &[]).await;
    let kind = problem.problem(401)["type"].as_str().unwrap().to_string();
    assert_eq!(app.request("GET", &kind, None, None, &[]).await.status, 200);
    let index = app.request("GET", "/problems", None, None, &[]).await;
    assert!(index.text.contains("/problems/rule-violation"));
    assert_eq!(
        app.request("GET", "/problems/no-such-thing", None, None, &[])
            .await
            .status,
        404
    );
}

/// `EventSource` authentication: a short-lived, single-use ticket opens a stream; a used or
/// unknown ticket is a 401; the ticket is never the long-lived token.
#[actix_web::test]
async fn a_stream_ticket_opens_one_stream_once() {
    let app = spawn_app().await;
    let players = vec![app.guest().await, app.guest().await, app.guest().await];
    let game = app
        .started_game("whisky_race", &players, serde_json::json!({}), None)
        .await;
    let issued = app
        .post(
            "/v1/stream-tickets",
            &players[0].token,
            &serde_json::json!({}),
        )
        .await;
    assert_eq!(issued.status, 201, "{}", issued.text);
    let ticket = issued.body["ticket"].as_str().unwrap().to_string();
    assert!(!ticket.contains(&players[0].token) && ticket.len() >= 32);
    assert!(issued.body["expires_in"].as_u64().unwrap() <= 60);
    let url = app.url(&format!("/v1/games/{game}/events/stream?ticket={ticket}"));
    let mut res = app.client.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // the stream carries the game's events (first chunk arrives)
    use futures_util::StreamExt;
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), res.next())
        .await
        .expect("a first chunk")
        .expect("a chunk")
        .unwrap();
    assert!(!first.is_empty());
    drop(res);
    // single use
    let again = app
        .request(
            "GET",
            &format!("/v1/games/{game}/events/stream?ticket={ticket}"),
            None,
            None,
            &[],
        )
        .await;
    again.problem(401);
    let unknown = app
        .request(
            "GET",
            &format!("/v1/games/{game}/events/stream?ticket=00ff"),
            None,
            None,
            &[],
        )
        .await;
    unknown.problem(401);
    // without a ticket nor a token: 401
    app.request(
        "GET",
        &format!("/v1/games/{game}/events/stream"),
        None,
        None,
        &[],
    )
    .await
    .problem(401);
}

/// A stream ends when its access expires: opened with a token that expires in 3 s, the stream
/// closes by itself soon after (the client refreshes and resumes with `Last-Event-ID`).
#[actix_web::test]
async fn a_stream_ends_when_its_access_expires() {
    use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
    let app = spawn_app().await;
    let players = vec![app.guest().await, app.guest().await, app.guest().await];
    let game = app
        .started_game("whisky_race", &players, serde_json::json!({}), None)
        .await;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.validate_aud = false;
    let mut claims = jsonwebtoken::decode::<api::auth::Claims>(
        &players[0].token,
        &DecodingKey::from_secret(homestretch_tests::JWT_SECRET),
        &validation,
    )
    .unwrap()
    .claims;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    claims.exp = now + 3;
    let short = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(homestretch_tests::JWT_SECRET),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let mut res = app
        .client
        .get(app.url(&format!("/v1/games/{game}/events/stream")))
        .insert_header(("authorization", format!("Bearer {short}")))
        .timeout(std::time::Duration::from_secs(60))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    use futures_util::StreamExt;
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(chunk) = res.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream outlived its access");
    assert!(started.elapsed() >= std::time::Duration::from_secs(1));
}
