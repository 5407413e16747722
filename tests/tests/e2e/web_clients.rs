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
