//! `homestretch-load flood`: one hostile IP against a running server while a client from another IP
//! measures its latency (issue 11: a flood from one IP must leave other clients' p99 under
//! 50 ms). The flood does what the issue reproduced: guest accounts and lobbies as fast as it
//! can, a request storm, as many event streams and idle connections as it can hold, and bodies
//! sent one byte every 0.5 s. Every loop is bounded in time; traffic goes only to `url`.
//! A socket the server closes or refuses is reopened after 100 ms: a tighter connect loop is a
//! connection-rate flood, which the host's firewall (SYN cookies, `connlimit`/`hashlimit`)
//! stops before any application.
//!
//! `--heavy` (issue 26, item 2) floods the heaviest routes instead: the request loops audit,
//! export and replay one long game (thousands of events; made by bots first, or `--game`) as
//! fast as answers come, each loop a guest of the flooding address, while the probe times
//! `GET /v1/me`.

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
    /// Flood the heavy routes (audit, export, replay) of one long game instead.
    pub heavy: Option<HeavyFlood>,
    /// Run the flood (from `flood_from`).
    pub flood: bool,
    /// Run the probe (from `probe_from`). On one machine, run the flood and the probe as two
    /// processes (`--no-probe`, `--probe-only`): in one process the probe would time the
    /// flood's own event loop, not the server.
    pub probe: bool,
}

/// `--heavy`: the long game whose audit, export and replays are flooded.
#[derive(Clone, Debug)]
pub struct HeavyFlood {
    /// The game (else bots play one past `events` first, from the probe's address).
    pub game: Option<String>,
    pub events: u64,
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

/// The lobby the flood creates over and over, and the probe's game: the first registered game
/// at its smallest table (the flood measures the server, whatever the game).
fn new_game() -> Value {
    let table = crate::tables::first();
    json!({"kind": table.kind, "seats": table.seats, "options": table.options})
}

/// A started game of the probe's, for the flood to read and stream.
async fn probe_game(client: &awc::Client, url: &str) -> Option<(String, String)> {
    let mut tokens = Vec::new();
    for _ in 0..crate::tables::first().seats {
        tokens.push(guest(client, url).await.ok()?);
    }
    let mut res = client
        .post(format!("{url}/v1/games"))
        .bearer_auth(&tokens[0])
        .send_json(&new_game())
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

/// What every request loop of the flood shares.
#[derive(Clone)]
struct Flood {
    client: awc::Client,
    url: String,
    /// The started game the flood reads and streams.
    game: String,
    tally: Arc<Mutex<Tally>>,
    /// Guest tokens gathered so far (the loops take turns using them).
    tokens: Arc<Mutex<Vec<String>>>,
    /// The lobby the flood creates over and over.
    lobby: Value,
    /// Event streams each loop tries to hold open.
    streams_wanted: usize,
    deadline: Instant,
}

pub async fn run(config: FloodConfig) -> Option<Value> {
    let url = config.url.trim_end_matches('/').to_string();
    let target: SocketAddr = {
        let authority = url.split("://").nth(1)?.split('/').next()?;
        tokio::net::lookup_host(authority).await.ok()?.next()?
    };
    let probe = client(config.probe_from, Duration::from_secs(10));
    let flood = client(config.flood_from, Duration::from_secs(60));
    // A started game to read and stream: the probe's, or the flood's own when alone.
    let (game, probe_token) = probe_game(if config.probe { &probe } else { &flood }, &url).await?;
    let heavy = match &config.heavy {
        None => None,
        Some(HeavyFlood { game: Some(id), .. }) => Some(id.clone()),
        Some(HeavyFlood { game: None, events }) => {
            let stats = std::rc::Rc::new(std::cell::RefCell::new(Default::default()));
            let bot = crate::client::Bot::new(&probe, &url, &stats);
            let (id, _, version) = crate::bench::long_game(&bot, *events).await?;
            eprintln!("flood: game {id} played to version {version}");
            Some(id)
        }
    };
    let deadline = Instant::now() + config.duration;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let (workers, idle_connections, slow_bodies) = if config.flood {
        (config.workers, config.idle_connections, config.slow_bodies)
    } else {
        (0, 0, 0)
    };
    let shared = Flood {
        client: flood,
        url: url.clone(),
        game: game.clone(),
        tally: tally.clone(),
        tokens: Arc::new(Mutex::new(Vec::new())),
        lobby: new_game(),
        streams_wanted: config.streams.div_ceil(config.workers.max(1)),
        deadline,
    };
    let mut tasks = Vec::new();
    for worker in 0..workers {
        tasks.push(match &heavy {
            Some(long) => actix_rt::spawn(heavy_loop(worker, long.clone(), shared.clone())),
            None => actix_rt::spawn(request_loop(worker, shared.clone())),
        });
    }
    for _ in 0..idle_connections.min(20_000) {
        let task = idle_connection(tally.clone(), config.flood_from, target, deadline);
        tasks.push(actix_rt::spawn(task));
    }
    for _ in 0..slow_bodies {
        let task = slow_body_loop(tally.clone(), config.flood_from, target, deadline);
        tasks.push(actix_rt::spawn(task));
    }
    // Under a heavy flood the probe times what the issue timed: `GET /v1/me` alone.
    let paths = match heavy {
        Some(_) => vec!["/v1/me".to_string()],
        None => vec!["/v1/me".to_string(), format!("/v1/games/{game}")],
    };
    let (latencies, probe_statuses) =
        probe_loop(&config, &probe, &url, &paths, &probe_token, deadline).await;
    let mut streams_held = 0;
    for task in tasks {
        if let Ok(Some(held)) = task.await {
            streams_held += held;
        }
    }
    let flood_statuses = tally.lock().ok()?.statuses.clone();
    Some(json!({
        "duration_s": config.duration.as_secs_f64(),
        "flood_from": config.flood_from.to_string(),
        "heavy_game": heavy,
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

/// Request loop `worker`: new guests, new lobbies, reads, streams (by `worker % 4`) until the
/// deadline; the streams it holds open.
async fn request_loop(worker: usize, f: Flood) -> Option<usize> {
    let mut held = Vec::new();
    let mut i = 0usize;
    while Instant::now() < f.deadline {
        i += 1;
        let token = f.tokens.lock().ok()?.get(i % 64).cloned();
        let (what, request) = match (worker % 4, &token) {
            (0, _) | (_, None) => ("guest", f.client.post(format!("{}/v1/auth/guest", f.url))),
            (1, Some(token)) => (
                "create game",
                f.client
                    .post(format!("{}/v1/games", f.url))
                    .bearer_auth(token),
            ),
            (2, Some(token)) if held.len() < f.streams_wanted => (
                "stream",
                f.client
                    .get(format!("{}/v1/games/{}/events/stream", f.url, f.game))
                    .bearer_auth(token),
            ),
            (_, Some(token)) => (
                "read game",
                f.client
                    .get(format!("{}/v1/games/{}", f.url, f.game))
                    .bearer_auth(token),
            ),
        };
        let sent = if what == "create game" {
            request.send_json(&f.lobby).await
        } else {
            request.send().await
        };
        let Ok(mut res) = sent else {
            f.tally.lock().ok()?.count(what, 0);
            tokio::time::sleep(RECONNECT).await;
            continue;
        };
        let status = res.status().as_u16();
        f.tally.lock().ok()?.count(what, status);
        if what == "stream" && status == 200 {
            held.push(res); // held open until the flood ends
            continue;
        }
        if let Ok(body) = res.body().limit(1 << 20).await
            && what == "guest"
            && let Ok(value) = serde_json::from_slice::<Value>(&body)
            && let Some(token) = value["access_token"].as_str()
        {
            f.tokens.lock().ok()?.push(token.to_string());
        }
    }
    Some(held.len())
}

/// Heavy request loop `worker`: as one guest of the flooding address, audits, exports and
/// replays (at a version of its own) the long game `id`, reading every answer whole, until the
/// deadline. Statuses are tallied with the answer's `Cache-Status` (hit or made).
async fn heavy_loop(worker: usize, id: String, f: Flood) -> Option<usize> {
    let token = match guest(&f.client, &f.url).await {
        Ok(token) => token,
        Err(status) => {
            f.tally.lock().ok()?.count("guest", status);
            return Some(0);
        }
    };
    let mut summary = f
        .client
        .get(format!("{}/v1/games/{id}", f.url))
        .bearer_auth(&token)
        .send()
        .await
        .ok()?;
    let version = summary.json::<Value>().await.ok()?["version"].as_u64()?;
    let mut i = worker;
    while Instant::now() < f.deadline {
        i += 1;
        let (what, path) = match i % 3 {
            0 => ("audit", format!("/v1/games/{id}/audit")),
            1 => ("export", format!("/v1/games/{id}/export")),
            _ => {
                let at = 1 + (i as u64 * 7919) % version.max(1);
                ("state", format!("/v1/games/{id}/state?at={at}"))
            }
        };
        let sent = f
            .client
            .get(format!("{}{path}", f.url))
            .bearer_auth(&token)
            .send()
            .await;
        let Ok(mut res) = sent else {
            f.tally.lock().ok()?.count(what, 0);
            tokio::time::sleep(RECONNECT).await;
            continue;
        };
        let status = res.status().as_u16();
        let cache = res
            .headers()
            .get("cache-status")
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                if v.contains("hit") {
                    " (kept)"
                } else {
                    " (made)"
                }
            })
            .unwrap_or("");
        let read = res.body().limit(256 << 20).await.is_ok();
        let what = format!("{what}{cache}{}", if read { "" } else { " unread" });
        f.tally.lock().ok()?.count(&what, status);
    }
    Some(0)
}

/// An idle connection: connect and say nothing (reconnect when the server drops it).
async fn idle_connection(
    tally: Arc<Mutex<Tally>>,
    from: IpAddr,
    target: SocketAddr,
    deadline: Instant,
) -> Option<usize> {
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
}

/// Slow bodies, one after the other: a register request whose body comes one byte every
/// 0.5 s.
async fn slow_body_loop(
    tally: Arc<Mutex<Tally>>,
    from: IpAddr,
    target: SocketAddr,
    deadline: Instant,
) -> Option<usize> {
    let host = target.to_string();
    while Instant::now() < deadline {
        let status = slow_body(from, target, &host, deadline).await;
        tally.lock().ok()?.count("slow body", status);
        tokio::time::sleep(RECONNECT).await;
    }
    Some(0)
}

/// The probe: one request every 25 ms (under the per-user rate) from the other IP, taking
/// `paths` in turn (a database read, `/v1/me`, and a cached read of its game), timed: the sorted
/// latencies (ms) and the statuses.
async fn probe_loop(
    config: &FloodConfig,
    probe: &awc::Client,
    url: &str,
    paths: &[String],
    token: &str,
    deadline: Instant,
) -> (Vec<f64>, BTreeMap<String, u64>) {
    let mut latencies = Vec::new();
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0usize;
    tokio::time::sleep(Duration::from_millis(300)).await; // let the flood ramp up
    while config.probe && Instant::now() + Duration::from_millis(300) < deadline {
        let path = &paths[n % paths.len()];
        n += 1;
        let started = Instant::now();
        let status = match probe
            .get(format!("{url}{path}"))
            .bearer_auth(token)
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
        *statuses.entry(status.to_string()).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    latencies.sort_by(f64::total_cmp);
    (latencies, statuses)
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
