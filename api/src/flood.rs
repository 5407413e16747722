//! `homestretch flood`: one hostile IP against a running server while a client from another IP
//! measures its latency (issue 11: a flood from one IP must leave other clients' p99 under
//! 50 ms). The flood does what the issue reproduced: guest accounts and lobbies as fast as it
//! can, a request storm, as many event streams and idle connections as it can hold, and bodies
//! sent one byte every 0.5 s. Every loop is bounded in time; traffic goes only to `url`.
//! A socket the server closes or refuses is reopened after 100 ms: a tighter connect loop is a
//! connection-rate flood, which the host's firewall (SYN cookies, `connlimit`/`hashlimit`)
//! stops before any application.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Pause before reopening a socket the server closed or refused.
const RECONNECT: Duration = Duration::from_millis(100);

#[derive(Clone, Debug)]
pub struct FloodConfig {
    /// The server, e.g. `http://127.0.0.1:8080`.
    pub url: String,
    /// The attacker's source address (e.g. 127.0.0.2).
    pub flood_from: IpAddr,
    /// The measuring client's source address (e.g. 127.0.0.1).
    pub probe_from: IpAddr,
    pub duration: Duration,
    /// Concurrent request loops of the flood.
    pub workers: usize,
    /// Event streams the flood tries to hold open.
    pub streams: usize,
    /// Idle connections the flood tries to hold open.
    pub idle_connections: usize,
    /// Connections sending a body one byte every 0.5 s.
    pub slow_bodies: usize,
    /// Run the flood (from `flood_from`).
    pub flood: bool,
    /// Run the probe (from `probe_from`). On one machine, run the flood and the probe as two
    /// processes (`--no-probe`, `--probe-only`): in one process the probe would time the
    /// flood's own event loop, not the server.
    pub probe: bool,
}

#[derive(Default)]
struct Tally {
    statuses: BTreeMap<String, u64>,
}

impl Tally {
    fn count(&mut self, what: &str, status: u16) {
        *self.statuses.entry(format!("{what} {status}")).or_default() += 1;
    }
}

fn client(from: IpAddr, timeout: Duration) -> awc::Client {
    awc::Client::builder()
        .connector(awc::Connector::new().local_address(from).limit(0))
        .timeout(timeout)
        .finish()
}

async fn guest(client: &awc::Client, url: &str) -> Result<String, u16> {
    let mut res = client
        .post(format!("{url}/v1/auth/guest"))
        .send()
        .await
        .map_err(|_| 0u16)?;
    let status = res.status().as_u16();
    let body: Value = res.json().await.map_err(|_| status)?;
    body["access_token"]
        .as_str()
        .map(String::from)
        .ok_or(status)
}

/// A started three-seat game of the probe's, for the flood to read and stream.
async fn probe_game(client: &awc::Client, url: &str) -> Option<(String, String)> {
    let mut tokens = Vec::new();
    for _ in 0..3 {
        tokens.push(guest(client, url).await.ok()?);
    }
    let mut res = client
        .post(format!("{url}/v1/games"))
        .bearer_auth(&tokens[0])
        .send_json(&lobby())
        .await
        .ok()?;
    let game: Value = res.json().await.ok()?;
    let id = game["id"].as_str()?.to_string();
    for token in &tokens[1..] {
        let _ = client
            .post(format!("{url}/v1/games/{id}/seats"))
            .bearer_auth(token)
            .send_json(&json!({}))
            .await
            .ok()?
            .body()
            .await;
    }
    let _ = client
        .post(format!("{url}/v1/games/{id}/start"))
        .bearer_auth(&tokens[0])
        .send_json(&json!({}))
        .await
        .ok()?
        .body()
        .await;
    Some((id, tokens[0].clone()))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub async fn run(config: FloodConfig) -> Option<Value> {
    let url = config.url.trim_end_matches('/').to_string();
    let target: SocketAddr = {
        let authority = url.split("://").nth(1)?.split('/').next()?;
        tokio::net::lookup_host(authority).await.ok()?.next()?
    };
    let probe = client(config.probe_from, Duration::from_secs(10));
    let flood = client(config.flood_from, Duration::from_secs(10));
    // A started game to read and stream: the probe's, or the flood's own when alone.
    let (game, probe_token) = probe_game(if config.probe { &probe } else { &flood }, &url).await?;
    let deadline = Instant::now() + config.duration;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (workers, idle_connections, slow_bodies) = if config.flood {
        (config.workers, config.idle_connections, config.slow_bodies)
    } else {
        (0, 0, 0)
    };
    let tokens: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();

    // Request loops: new guests, new lobbies, reads, streams.
    for worker in 0..workers {
        let (flood, url, game, tally, tokens) = (
            flood.clone(),
            url.clone(),
            game.clone(),
            tally.clone(),
            tokens.clone(),
        );
        let streams_wanted = config.streams.div_ceil(config.workers.max(1));
        tasks.push(actix_web::rt::spawn(async move {
            let mut held = Vec::new();
            let mut i = 0usize;
            while Instant::now() < deadline {
                i += 1;
                let token = tokens.lock().ok()?.get(i % 64).cloned();
                let (what, request) = match (worker % 4, &token) {
                    (0, _) | (_, None) => ("guest", flood.post(format!("{url}/v1/auth/guest"))),
                    (1, Some(token)) => (
                        "create game",
                        flood.post(format!("{url}/v1/games")).bearer_auth(token),
                    ),
                    (2, Some(token)) if held.len() < streams_wanted => (
                        "stream",
                        flood
                            .get(format!("{url}/v1/games/{game}/events/stream"))
                            .bearer_auth(token),
                    ),
                    (_, Some(token)) => (
                        "read game",
                        flood
                            .get(format!("{url}/v1/games/{game}"))
                            .bearer_auth(token),
                    ),
                };
                let sent = if what == "create game" {
                    request.send_json(&lobby()).await
                } else {
                    request.send().await
                };
                let Ok(mut res) = sent else {
                    tally.lock().ok()?.count(what, 0);
                    tokio::time::sleep(RECONNECT).await;
                    continue;
                };
                let status = res.status().as_u16();
                tally.lock().ok()?.count(what, status);
                if what == "stream" && status == 200 {
                    held.push(res); // held open until the flood ends
                    continue;
                }
                if let Ok(body) = res.body().limit(1 << 20).await
                    && what == "guest"
                    && let Ok(value) = serde_json::from_slice::<Value>(&body)
                    && let Some(token) = value["access_token"].as_str()
                {
                    tokens.lock().ok()?.push(token.to_string());
                }
            }
            Some(held.len())
        }));
    }
    // Idle connections: connect and say nothing (reconnect when the server drops one).
    for _ in 0..idle_connections.min(20_000) {
        let (tally, from) = (tally.clone(), config.flood_from);
        tasks.push(actix_web::rt::spawn(async move {
            while Instant::now() < deadline {
                match connect(from, target).await {
                    Ok(mut socket) => {
                        use tokio::io::AsyncReadExt;
                        let mut buf = [0u8; 512];
                        let left = deadline.saturating_duration_since(Instant::now());
                        let _ = tokio::time::timeout(left, socket.read(&mut buf)).await;
                        tokio::time::sleep(RECONNECT).await;
                    }
                    Err(_) => {
                        tally.lock().ok()?.count("idle connection refused", 0);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }
            Some(0)
        }));
    }
    // Slow bodies: a register request whose body comes one byte every 0.5 s.
    for _ in 0..slow_bodies {
        let (tally, from, host) = (tally.clone(), config.flood_from, target.to_string());
        tasks.push(actix_web::rt::spawn(async move {
            while Instant::now() < deadline {
                let status = slow_body(from, target, &host, deadline).await;
                tally.lock().ok()?.count("slow body", status);
                tokio::time::sleep(RECONNECT).await;
            }
            Some(0)
        }));
    }

    // The probe: one request every 25 ms (under the per-user rate) from the other IP,
    // alternating a cached read and a database read, timed.
    let mut latencies = Vec::new();
    let mut probe_statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0u64;
    tokio::time::sleep(Duration::from_millis(300)).await; // let the flood ramp up
    while config.probe && Instant::now() + Duration::from_millis(300) < deadline {
        n += 1;
        let path = if n.is_multiple_of(2) {
            format!("/v1/games/{game}")
        } else {
            "/v1/me".to_string()
        };
        let started = Instant::now();
        let status = match probe
            .get(format!("{url}{path}"))
            .bearer_auth(&probe_token)
            .send()
            .await
        {
            Ok(mut res) => {
                let _ = res.body().await;
                res.status().as_u16()
            }
            Err(_) => 0,
        };
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        *probe_statuses.entry(status.to_string()).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut streams_held = 0;
    for task in tasks {
        if let Ok(Some(held)) = task.await {
            streams_held += held;
        }
    }
    latencies.sort_by(f64::total_cmp);
    let flood_statuses = tally.lock().ok()?.statuses.clone();
    Some(json!({
        "duration_s": config.duration.as_secs_f64(),
        "flood_from": config.flood_from.to_string(),
        "probe_from": config.probe_from.to_string(),
        "flood": flood_statuses,
        "flood_streams_held": streams_held,
        "probe": {
            "requests": latencies.len(),
            "statuses": probe_statuses,
            "p50_ms": percentile(&latencies, 0.50),
            "p99_ms": percentile(&latencies, 0.99),
            "max_ms": latencies.last().copied().unwrap_or(0.0),
        }
    }))
}

async fn connect(from: IpAddr, to: SocketAddr) -> std::io::Result<tokio::net::TcpStream> {
    let socket = match from {
        IpAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        IpAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.bind(SocketAddr::new(from, 0))?;
    tokio::time::timeout(Duration::from_secs(5), socket.connect(to))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))?
}

/// Sends a body one byte every 0.5 s until the server answers; its status (0: none).
async fn slow_body(from: IpAddr, to: SocketAddr, host: &str, deadline: Instant) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut socket) = connect(from, to).await else {
        tokio::time::sleep(Duration::from_millis(200)).await;
        return 0;
    };
    let body = br#"{"name":"slowloris","password":"correct horse battery"}"#;
    let head = format!(
        "POST /v1/auth/register HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    if socket.write_all(head.as_bytes()).await.is_err() {
        return 0;
    }
    let mut answer = [0u8; 512];
    for byte in body {
        if Instant::now() >= deadline {
            return 0;
        }
        if socket.write_all(&[*byte]).await.is_err() {
            break;
        }
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(500), socket.read(&mut answer)).await
        {
            return status_of(&answer[..n]);
        }
    }
    match tokio::time::timeout(Duration::from_secs(2), socket.read(&mut answer)).await {
        Ok(Ok(n)) => status_of(&answer[..n]),
        _ => 0,
    }
}

fn status_of(head: &[u8]) -> u16 {
    std::str::from_utf8(head)
        .ok()
        .and_then(|t| t.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The lobby the flood opens: the first hosted game, three seats (any hosted game seats three).
fn lobby() -> Value {
    json!({"kind": domain::games()[0].kind(), "seats": 3})
}
