//! Issue 11, items 4 and 7: the limits a real service has, over real HTTP. Loopback addresses
//! (127.0.0.2, 127.0.0.3…) stand in for other client machines: the limits key on the peer.

use api::limits::{LimitsConfig, Rate};
use homestretch_tests::{Player, TestApp, client_from, spawn_app_with};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Accounts of people (the server's own clock and bot users, seeded by a migration, aside).
async fn people(app: &TestApp) -> usize {
    let ids: Vec<uuid::Uuid> = sqlx::query_scalar("SELECT id FROM users")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    ids.into_iter()
        .filter(|id| !infra::deadlines::is_server_actor(infra::UserId(*id)))
        .count()
}

/// A status, its headers and its body, from a request sent from `ip`.
async fn from(
    app: &TestApp,
    ip: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Option<String>, String, Value) {
    let client = client_from(ip);
    let method = actix_web::http::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = client.request(method, app.url(path));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    let mut res = match body {
        Some(body) => req.send_json(&body).await,
        None => req.send().await,
    }
    .expect("request sent");
    let bytes = res.body().await.unwrap_or_default();
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    (
        res.status().as_u16(),
        header("retry-after"),
        header("content-type").unwrap_or_default(),
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

async fn guest_from(app: &TestApp, ip: &str) -> Player {
    let (status, _, _, body) = from(app, ip, "POST", "/v1/auth/guest", None, None).await;
    assert_eq!(status, 201, "{body}");
    Player {
        token: body["access_token"].as_str().unwrap().into(),
        refresh: body["refresh_token"].as_str().unwrap().into(),
        id: body["user"]["id"].as_str().unwrap().into(),
        name: body["user"]["name"].as_str().unwrap().into(),
    }
}

#[track_caller]
fn assert_limited(answer: &(u16, Option<String>, String, Value), status: u16) {
    assert_eq!(answer.0, status, "{}", answer.3);
    assert!(
        answer.2.starts_with("application/problem+json"),
        "{}",
        answer.2
    );
    let wait: u64 = answer
        .1
        .as_deref()
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(wait >= 1, "Retry-After {wait}");
}

fn server_addr(app: &TestApp) -> SocketAddr {
    app.address.trim_start_matches("http://").parse().unwrap()
}

async fn connect_from(ip: &str, to: SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(ip.parse().unwrap(), 0))
        .unwrap();
    socket.connect(to).await.expect("connect")
}

/// Reads until the server closes the connection (or `within` passes: `None`).
async fn read_until_closed(socket: &mut tokio::net::TcpStream, within: Duration) -> Option<String> {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, socket.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&all).into_owned()),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
    }
}

/// Item 7: 8,883 guests in 10 s from one IP got no 429. Now new accounts (guest or registered)
/// are limited per IP, with 429 problem+json and `Retry-After`; other IPs are not affected.
#[actix_web::test]
async fn guest_accounts_are_limited_per_ip() {
    let app = spawn_app_with(|config| {
        config.limits.accounts_per_ip = Some(Rate::per_hour(5));
    })
    .await;
    for _ in 0..5 {
        guest_from(&app, "127.0.0.2").await;
    }
    let refused = from(&app, "127.0.0.2", "POST", "/v1/auth/guest", None, None).await;
    assert_limited(&refused, 429);
    assert_eq!(refused.3["type"], "/problems/rate-limited");
    let register = json!({"name": "mallory", "password": "correct horse battery"});
    let refused = from(
        &app,
        "127.0.0.2",
        "POST",
        "/v1/auth/register",
        None,
        Some(register),
    )
    .await;
    assert_limited(&refused, 429);
    // Nothing was created by the refused requests.
    let users = people(&app).await;
    assert_eq!(users, 5);
    guest_from(&app, "127.0.0.3").await;
}

/// Item 7: 2,000 lobbies in 8 s from one user got no 429. Now game creation is limited per
/// user and per IP.
#[actix_web::test]
async fn game_creation_is_limited_per_user_and_per_ip() {
    let app = spawn_app_with(|config| {
        config.limits.games_per_user = Some(Rate::per_minute(3));
        config.limits.games_per_ip = Some(Rate::per_minute(5));
    })
    .await;
    let game = json!({"kind": "whisky_race", "seats": 3});
    let (a, b, c) = (
        guest_from(&app, "127.0.0.2").await,
        guest_from(&app, "127.0.0.2").await,
        guest_from(&app, "127.0.0.3").await,
    );
    for _ in 0..3 {
        let made = from(
            &app,
            "127.0.0.2",
            "POST",
            "/v1/games",
            Some(&a.token),
            Some(game.clone()),
        )
        .await;
        assert_eq!(made.0, 201, "{}", made.3);
    }
    // a's own limit
    let refused = from(
        &app,
        "127.0.0.2",
        "POST",
        "/v1/games",
        Some(&a.token),
        Some(game.clone()),
    )
    .await;
    assert_limited(&refused, 429);
    // b, same IP: two more, then the IP's limit
    for _ in 0..2 {
        let made = from(
            &app,
            "127.0.0.2",
            "POST",
            "/v1/games",
            Some(&b.token),
            Some(game.clone()),
        )
        .await;
        assert_eq!(made.0, 201, "{}", made.3);
    }
    let refused = from(
        &app,
        "127.0.0.2",
        "POST",
        "/v1/games",
        Some(&b.token),
        Some(game.clone()),
    )
    .await;
    assert_limited(&refused, 429);
    // another IP, another user: unaffected
    let made = from(
        &app,
        "127.0.0.3",
        "POST",
        "/v1/games",
        Some(&c.token),
        Some(game.clone()),
    )
    .await;
    assert_eq!(made.0, 201, "{}", made.3);
    // the per-user limit follows the user to another IP
    let refused = from(
        &app,
        "127.0.0.4",
        "POST",
        "/v1/games",
        Some(&a.token),
        Some(game),
    )
    .await;
    assert_limited(&refused, 429);
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(games, 6);
}

/// Login attempts cost an argon2id hash each: limited per IP.
#[actix_web::test]
async fn login_attempts_are_limited_per_ip() {
    let app = spawn_app_with(|config| {
        config.limits.logins_per_ip = Some(Rate::per_minute(3));
    })
    .await;
    app.register("carol").await;
    let wrong = json!({"name": "carol", "password": "not her password"});
    for _ in 0..3 {
        let answer = from(
            &app,
            "127.0.0.2",
            "POST",
            "/v1/auth/login",
            None,
            Some(wrong.clone()),
        )
        .await;
        assert_eq!(answer.0, 401);
    }
    let right = json!({"name": "carol", "password": "correct horse battery"});
    let refused = from(
        &app,
        "127.0.0.2",
        "POST",
        "/v1/auth/login",
        None,
        Some(right.clone()),
    )
    .await;
    assert_limited(&refused, 429);
    let answer = from(
        &app,
        "127.0.0.3",
        "POST",
        "/v1/auth/login",
        None,
        Some(right),
    )
    .await;
    assert_eq!(answer.0, 200);
}

/// Item 4: event streams per IP (429) and in total (503), whatever the number of accounts.
#[actix_web::test]
async fn event_streams_are_capped_per_ip_and_in_total() {
    let app = spawn_app_with(|config| {
        config.limits.streams_per_ip = Some(3);
        config.limits.streams_total = Some(5);
        config.limits.streams_per_user = Some(2);
    })
    .await;
    let players = [app.guest().await, app.guest().await, app.guest().await];
    let game = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let path = format!("/v1/games/{game}/events/stream");
    let mut held = Vec::new();
    let open = |ip: &'static str, token: String| {
        let url = app.url(&path);
        async move {
            let client = client_from(ip);
            let res = client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("sent");
            (res.status().as_u16(), res)
        }
    };
    // Per user: a third stream of one user is refused even from another IP.
    let u = guest_from(&app, "127.0.0.9").await;
    for _ in 0..2 {
        let (status, res) = open("127.0.0.9", u.token.clone()).await;
        assert_eq!(status, 200);
        held.push(res);
    }
    let (status, _) = open("127.0.0.8", u.token.clone()).await;
    assert_eq!(status, 429, "the user's cap");
    // Per IP: a new account per stream does not help.
    for _ in 0..1 {
        let g = guest_from(&app, "127.0.0.9").await;
        let (status, res) = open("127.0.0.9", g.token).await;
        assert_eq!(status, 200);
        held.push(res);
    }
    let g = guest_from(&app, "127.0.0.9").await;
    let answer = from(&app, "127.0.0.9", "GET", &path, Some(&g.token), None).await;
    assert_limited(&answer, 429);
    // In total: two more from elsewhere fill the server; the next one is a 503.
    for ip in ["127.0.0.10", "127.0.0.11"] {
        let g = guest_from(&app, ip).await;
        let (status, res) = open(ip, g.token).await;
        assert_eq!(status, 200);
        held.push(res);
    }
    let g = guest_from(&app, "127.0.0.12").await;
    let answer = from(&app, "127.0.0.12", "GET", &path, Some(&g.token), None).await;
    assert_limited(&answer, 503);
    assert_eq!(answer.3["type"], "/problems/at-capacity");
    // Closing streams gives their places back: a closed socket is noticed at the latest when
    // the next keep-alive (15 s) is written; four of them allow for a loaded machine (it took
    // more than 20 s once with eight test threads).
    held.clear();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, _res) = open("127.0.0.12", g.token.clone()).await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "places never came back: {status}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Item 4: connections per IP are capped (429 and the connection closed); other IPs connect.
#[actix_web::test]
async fn connections_are_capped_per_ip() {
    let app = spawn_app_with(|config| {
        config.limits.connections_per_ip = Some(3);
    })
    .await;
    let addr = server_addr(&app);
    // Three connections, each answered once (so the server has counted them; the workers take
    // connections in no set order), then kept open.
    let mut idle = Vec::new();
    for _ in 0..3 {
        let mut socket = connect_from("127.0.0.2", addr).await;
        socket
            .write_all(b"GET /healthz HTTP/1.1\r\nhost: test\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = socket.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        idle.push(socket);
    }
    let mut extra = connect_from("127.0.0.2", addr).await;
    extra
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: test\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut extra, Duration::from_secs(10))
        .await
        .expect("the over-cap connection is answered and closed");
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.to_lowercase().contains("retry-after"), "{answer}");
    let other = from(&app, "127.0.0.3", "GET", "/healthz", None, None).await;
    assert_eq!(other.0, 200);
    // Refused connections waiting for their answer are capped too: past that the server shuts
    // new ones at once (an address cannot pile up sockets faster than the timeouts free them).
    let mut waiting = Vec::new();
    for _ in 0..3 {
        waiting.push(connect_from("127.0.0.2", addr).await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await; // counted by now
    let mut shut = connect_from("127.0.0.2", addr).await;
    let answer = read_until_closed(&mut shut, Duration::from_secs(5))
        .await
        .expect("shut at once");
    assert_eq!(answer, "", "no answer, just closed");
    // Once the connections close, the IP may connect again.
    drop(waiting);
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(10);
    while from(&app, "127.0.0.2", "GET", "/healthz", None, None)
        .await
        .0
        != 200
    {
        assert!(Instant::now() < deadline, "the places never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Item 4: connections in total are capped too: past the cap any address gets 503 (the server is
/// full, not this client) and the connection closed.
#[actix_web::test]
async fn connections_are_capped_in_total_with_503() {
    let app = spawn_app_with(|config| {
        config.limits.connections_total = Some(2);
    })
    .await;
    let addr = server_addr(&app);
    let mut held = Vec::new();
    for ip in ["127.0.0.2", "127.0.0.3"] {
        let mut socket = connect_from(ip, addr).await;
        socket
            .write_all(b"GET /healthz HTTP/1.1\r\nhost: test\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 1024];
        let n = socket.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        held.push(socket);
    }
    let mut third = connect_from("127.0.0.4", addr).await;
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: test\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut third, Duration::from_secs(10))
        .await
        .expect("answered and closed");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("/problems/at-capacity"), "{answer}");
    assert!(answer.to_lowercase().contains("retry-after"), "{answer}");
}

/// Item 4: a body sent one byte every 0.5 s was never cut off. Now: 408 problem+json and the
/// connection closed once the body timeout passes; nothing was created.
#[actix_web::test]
async fn a_slow_body_is_cut_off_with_408_and_the_connection_closed() {
    let app = spawn_app_with(|config| {
        config.limits.body_timeout = Some(Duration::from_secs(1));
    })
    .await;
    let mut socket = connect_from("127.0.0.2", server_addr(&app)).await;
    let body = br#"{"name":"slowloris","password":"correct horse battery"}"#;
    let head = format!(
        "POST /v1/auth/register HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    for byte in body {
        if socket.write_all(&[*byte]).await.is_err() {
            break;
        }
        let mut buf = [0u8; 4096];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(500), socket.read(&mut buf)).await
        {
            answer.extend_from_slice(&buf[..n]);
            break;
        }
    }
    assert!(!answer.is_empty(), "the server never cut the slow body off");
    let rest = read_until_closed(&mut socket, Duration::from_secs(5))
        .await
        .expect("the connection is closed after the 408");
    let answer = String::from_utf8_lossy(&answer).into_owned() + &rest;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.contains("/problems/request-timeout"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(4));
    let users = people(&app).await;
    assert_eq!(users, 0);
}

/// Item 4: a request head trickled in is cut off too (408, closed), and an idle kept-alive
/// connection is closed after the keep-alive timeout.
#[actix_web::test]
async fn a_slow_head_and_an_idle_connection_are_closed() {
    let app = spawn_app_with(|config| {
        config.limits.header_timeout = Some(Duration::from_secs(1));
        config.limits.keep_alive = Some(Duration::from_secs(1));
    })
    .await;
    let addr = server_addr(&app);
    let mut slow = connect_from("127.0.0.2", addr).await;
    let started = Instant::now();
    let mut answer = None;
    for byte in b"GET /healthz HTTP/1.1\r\nhost: test\r\nx-slow: 1234567890\r\n\r\n" {
        if slow.write_all(&[*byte]).await.is_err() {
            break;
        }
        let mut buf = [0u8; 1024];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(300), slow.read(&mut buf)).await
        {
            answer = Some(String::from_utf8_lossy(&buf[..n]).into_owned());
            break;
        }
    }
    let answer = answer.expect("the slow head is cut off");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(4));

    let mut idle = connect_from("127.0.0.2", addr).await;
    idle.write_all(b"GET /healthz HTTP/1.1\r\nhost: test\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let started = Instant::now();
    read_until_closed(&mut idle, Duration::from_secs(5))
        .await
        .expect("the idle connection is closed");
    assert!(started.elapsed() >= Duration::from_millis(500));
}

/// `HOMESTRETCH_LIMITS=off` (benchmarks, load drills): nothing is limited.
#[actix_web::test]
async fn with_limits_off_nothing_is_limited() {
    let app = spawn_app_with(|config| config.limits = LimitsConfig::off()).await;
    for _ in 0..60 {
        guest_from(&app, "127.0.0.2").await;
    }
    let p = guest_from(&app, "127.0.0.2").await;
    for _ in 0..40 {
        let made = from(
            &app,
            "127.0.0.2",
            "POST",
            "/v1/games",
            Some(&p.token),
            Some(json!({"kind": "whisky_race", "seats": 3})),
        )
        .await;
        assert_eq!(made.0, 201);
    }
}

/// The defaults hold a flood from one IP (guests, lobbies, a request storm, streams, idle
/// connections, slow bodies) while a client from another IP is served without a single refusal.
/// The latency figure under flood is measured on a release build (`docs/reliability.md`); here
/// the flood is short and the machine shared, so only a loose bound is asserted.
#[actix_web::test]
async fn a_flood_from_one_ip_leaves_other_clients_served() {
    let app = spawn_app_with(|config| config.limits = LimitsConfig::defaults()).await;
    let report = homestretch_load::flood::run(homestretch_load::flood::FloodConfig {
        url: app.address.clone(),
        flood_from: "127.0.0.2".parse().unwrap(),
        probe_from: "127.0.0.1".parse().unwrap(),
        duration: Duration::from_secs(4),
        workers: 16,
        streams: 200,
        idle_connections: 200,
        slow_bodies: 20,
        flood: true,
        probe: true,
        heavy: None,
    })
    .await
    .expect("the flood ran");
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    let probe = &report["probe"];
    let statuses = probe["statuses"].as_object().unwrap();
    assert!(
        statuses.keys().all(|s| s == "200"),
        "the other client was refused: {statuses:?}"
    );
    assert!(probe["requests"].as_u64().unwrap() > 50);
    assert!(probe["p99_ms"].as_f64().unwrap() < 1000.0, "{probe}");
    let flood = report["flood"].as_object().unwrap();
    let refused = |what: &str, status: &str| {
        flood
            .get(&format!("{what} {status}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    assert!(
        refused("guest", "429") > 0,
        "guests were not limited: {flood:?}"
    );
    assert!(refused("guest", "201") <= 30, "{flood:?}");
    assert!(report["flood_streams_held"].as_u64().unwrap() <= 64);
}
