//! Issue 28: each route declared once (`api/src/routes/mod.rs` registers the list and the
//! OpenAPI document takes its paths from it), request ids and spans from tracing-actix-web.
//! The document itself is guarded byte for byte by `openapi::committed_openapi_matches_the_code`;
//! these tests guard what the server does with the list and with the ids.

use homestretch_tests::{Database, spawn_app};
use serde_json::Value;
use std::collections::BTreeSet;

/// Every operation of the served document reaches its own route: a request to each, with
/// made-up path parameters, is counted in the metrics under that operation's method and path
/// template. A route listed in the wrong place (a `{id}` route before a literal one, the page
/// before its assets) or documented but not registered would be counted elsewhere or not at
/// all.
#[actix_web::test]
async fn every_documented_operation_reaches_its_own_route() {
    let app = spawn_app().await;
    let spec = app.request("GET", "/openapi.json", None, None, &[]).await;
    let spec: Value = serde_json::from_str(&spec.text).expect("the document");
    let mut operations = BTreeSet::new();
    for (template, item) in spec["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            operations.insert((method.to_uppercase(), template.clone()));
        }
    }
    assert!(operations.len() > 50, "{operations:?}");
    for (method, template) in &operations {
        let path = template
            .replace("{id}", &uuid::Uuid::new_v4().to_string())
            .replace("{seq}", "1")
            .replace("{slug}", "not-found");
        assert!(!path.contains('{'), "a parameter left in {path}");
        // No token: most answers are 401 or 404, counted under the route all the same.
        app.request(method, &path, None, None, &[]).await;
    }
    let metrics = app.request("GET", "/metrics", None, None, &[]).await.text;
    let counted: BTreeSet<(String, String)> = metrics
        .lines()
        .filter(|line| line.starts_with("homestretch_http_requests_total{"))
        .filter_map(|line| Some((label(line, "method")?, label(line, "route")?)))
        .collect();
    let missing: Vec<_> = operations.difference(&counted).collect();
    assert!(
        missing.is_empty(),
        "not routed to their own route: {missing:?}"
    );
}

/// The value of `name="..."` in a metrics line.
fn label(line: &str, name: &str) -> Option<String> {
    let start = line.find(&format!("{name}=\""))? + name.len() + 2;
    let end = start + line[start..].find('"')?;
    Some(line[start..end].to_string())
}

/// The request id and span, through the real binary and its JSON logs: a sane `x-request-id`
/// of the caller's is answered back, logged and named by the framework's error pages, a bad one
/// or none gets a new 32-hex-digit id;
/// every request is logged as `served` (`status`, `ms`) inside a span `request` with `id`,
/// `method` and `route` (the route pattern, or `unmatched`). These are the names the logs and
/// answers had before tracing-actix-web opened the span.
#[actix_web::test]
async fn request_ids_are_answered_and_logged_in_the_request_span() {
    use homestretch_tests::process::Server;
    let db = Database::new().await;
    let dir = std::env::temp_dir().join(format!("homestretch-ids-{}", uuid::Uuid::new_v4()));
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_homestretch-e2e"));
    // The line saying where it listens (`api::cli`), and the request logs.
    let env = [("RUST_LOG", "warn,api::cli=info,api::app=info")];
    let server = Server::start_with(binary, "ids", &db.url(), &dir, &env).await;
    let client = awc::Client::default();
    let send = |path: &str, id: Option<&str>| {
        let mut request = client.get(format!("{}{path}", server.address()));
        if let Some(id) = id {
            request = request.insert_header(("x-request-id", id));
        }
        async move {
            let mut answer = request.send().await.expect("an answer");
            let _ = answer.body().await;
            let id = answer
                .headers()
                .get("x-request-id")
                .map(|v| v.to_str().expect("an ASCII id").to_string());
            (
                answer.status().as_u16(),
                id.expect("an x-request-id header"),
            )
        }
    };
    let made = |id: &str| id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit());

    let (status, own) = send("/healthz", Some("client-Id-42")).await;
    assert_eq!((status, own.as_str()), (200, "client-Id-42"));
    let too_long = "a".repeat(65);
    let mut fresh = Vec::new();
    for bad in [Some("not sane!"), Some(too_long.as_str()), None] {
        let (status, id) = send("/healthz", bad).await;
        assert_eq!(status, 200);
        assert!(made(&id), "{bad:?} → {id}");
        fresh.push(id);
    }
    let (status, unmatched) = send("/v1/no-such-route", None).await;
    assert_eq!(status, 404);
    assert!(made(&unmatched), "{unmatched}");
    fresh.push(unmatched.clone());
    // The framework's own errors (a body over the limit) name the request id as `instance`.
    let mut too_big = client
        .post(format!("{}/v1/auth/guest", server.address()))
        .insert_header(("x-request-id", "big-body-1"))
        .insert_header(("content-type", "application/json"))
        .send_body(vec![b' '; 70 * 1024])
        .await
        .expect("an answer");
    assert_eq!(too_big.status().as_u16(), 413);
    assert_eq!(
        too_big.headers().get("x-request-id").map(|v| v.as_bytes()),
        Some(&b"big-body-1"[..])
    );
    let problem: Value = too_big.json().await.expect("a problem");
    assert_eq!(problem["instance"], "big-body-1", "{problem}");
    let distinct: BTreeSet<_> = fresh.iter().collect();
    assert_eq!(distinct.len(), fresh.len(), "{fresh:?}");

    // The `served` line of each request, by the id of its span.
    let served = |id: &str| -> Option<Value> {
        server.log().lines().find_map(|line| {
            let line: Value = serde_json::from_str(line).ok()?;
            (line["fields"]["message"] == "served" && line["span"]["id"] == id).then_some(line)
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while served(&unmatched).is_none() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for (id, route, status) in [
        (own.as_str(), "/healthz", 200),
        (fresh[0].as_str(), "/healthz", 200),
        (unmatched.as_str(), "unmatched", 404),
    ] {
        let line =
            served(id).unwrap_or_else(|| panic!("no served line for {id}:\n{}", server.log()));
        let span = &line["span"];
        assert_eq!(span["name"], "request", "{line}");
        assert_eq!(span["method"], "GET", "{line}");
        assert_eq!(span["route"], route, "{line}");
        assert_eq!(line["fields"]["status"], status, "{line}");
        assert!(line["fields"]["ms"].is_number(), "{line}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
