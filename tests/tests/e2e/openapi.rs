//! The committed `openapi/openapi.json` must equal what the code generates.
//! Regenerate with `UPDATE_OPENAPI=1 cargo test -p homestretch-tests --test e2e openapi`.

use homestretch_tests::spawn_app;

#[test]
fn committed_openapi_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let generated = api::openapi::spec_json(&domain::registry());
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &generated).expect("write openapi.json");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date: run `UPDATE_OPENAPI=1 cargo test -p homestretch-tests --test e2e openapi` and commit it"
    );
    let spec: serde_json::Value = serde_json::from_str(&generated).unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3.1"));
    for route in [
        "/v1/auth/register",
        "/v1/games",
        "/v1/games/{id}/commands",
        "/v1/games/{id}/events/stream",
        "/docs",
    ] {
        assert!(
            spec["paths"][route].is_object(),
            "{route} missing from the spec"
        );
    }
    assert!(spec["components"]["schemas"]["WhiskyRaceCommand"].is_object());
}

#[actix_web::test]
async fn the_server_serves_its_spec_and_docs_page() {
    let app = spawn_app().await;
    let spec = app.request("GET", "/openapi.json", None, None, &[]).await;
    assert_eq!(spec.status, 200);
    assert_eq!(spec.text, api::openapi::spec_json(&domain::registry()));
    let docs = app.request("GET", "/docs", None, None, &[]).await;
    assert_eq!(docs.status, 200);
    assert!(docs.text.contains("/openapi.json"));
    // served entirely by this server: no other host is referenced
    assert!(
        !docs.text.contains("http://") && !docs.text.contains("https://"),
        "the docs page references another host"
    );
    // The renderer's script comes from this server too (compiled into the binary).
    assert!(docs.text.contains("src=\"/docs/rapidoc-min.js\""));
    let script = app
        .request("GET", "/docs/rapidoc-min.js", None, None, &[])
        .await;
    assert_eq!(script.status, 200);
    assert!(script.text.contains("rapi-doc"));
    assert_eq!(
        app.request("GET", "/healthz", None, None, &[]).await.status,
        200
    );
    assert_eq!(
        app.request("GET", "/readyz", None, None, &[]).await.status,
        200
    );
    let metrics = app.request("GET", "/metrics", None, None, &[]).await;
    assert!(metrics.text.contains("homestretch_http_requests_total"));
    assert!(metrics.text.contains("homestretch_commands_appended_total"));
    // The healthz and readyz above are counted, by route and status, with their latency.
    for line in [
        "homestretch_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 1",
        "homestretch_http_request_duration_seconds_count{route=\"/readyz\"} 1",
        "homestretch_http_request_duration_seconds_bucket{le=\"+Inf\",route=\"/healthz\"} 1",
        "process_resident_memory_bytes ",
        "# EOF",
    ] {
        assert!(
            metrics.text.contains(line),
            "{line} missing:\n{}",
            metrics.text
        );
    }
}
