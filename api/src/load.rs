//! `homestretch load`: bot players over real HTTP against a running server. Each of N
//! concurrent games is played by bots that only send legal commands taken from `prompts`;
//! finished games are replaced. Reports accepted commands/s, latency per route, errors by
//! status, conflicts and the server's RSS.

use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

pub struct LoadConfig {
    pub url: String,
    pub games: usize,
    pub duration: Duration,
    pub kind: String,
    pub seats: usize,
    pub json: bool,
    /// Send `expected_version` with every command (conflicts become 409s instead of retries).
    pub expected_version: bool,
}

#[derive(Default)]
struct Stats {
    latencies: BTreeMap<&'static str, Vec<f64>>,
    statuses: BTreeMap<u16, u64>,
    accepted: u64,
    conflicts: u64,
    games_finished: u64,
    transport_errors: u64,
}

type Shared = Rc<RefCell<Stats>>;

struct Bot {
    client: awc::Client,
    base: String,
    stats: Shared,
}

impl Bot {
    async fn call(
        &self,
        route: &'static str,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Option<(u16, Value)> {
        let method = actix_web::http::Method::from_bytes(method.as_bytes()).ok()?;
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            req = req.insert_header(("authorization", format!("Bearer {token}")));
        }
        let started = Instant::now();
        let sent = match body {
            Some(body) => {
                req.insert_header(("content-type", "application/json"))
                    .send_body(body.to_string())
                    .await
            }
            None => req.send().await,
        };
        let mut res = match sent {
            Ok(res) => res,
            Err(_) => {
                self.stats.borrow_mut().transport_errors += 1;
                return None;
            }
        };
        let status = res.status().as_u16();
        let bytes = res.body().limit(16 << 20).await.ok()?;
        let elapsed = started.elapsed().as_secs_f64();
        let mut stats = self.stats.borrow_mut();
        stats.latencies.entry(route).or_default().push(elapsed);
        *stats.statuses.entry(status).or_default() += 1;
        drop(stats);
        Some((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    async fn token(&self) -> Option<String> {
        let (status, body) = self
            .call("POST /v1/auth/guest", "POST", "/v1/auth/guest", None, None)
            .await?;
        (status == 201)
            .then(|| body["access_token"].as_str().map(String::from))
            .flatten()
    }

    /// Sets up one game and plays it to the end (or the deadline).
    async fn play(&self, config: &LoadConfig, deadline: Instant, seed: u64) -> Option<()> {
        let mut tokens = Vec::new();
        for _ in 0..config.seats {
            tokens.push(self.token().await?);
        }
        let (_, game) = self
            .call(
                "POST /v1/games",
                "POST",
                "/v1/games",
                Some(&tokens[0]),
                Some(&json!({"kind": config.kind, "seats": config.seats})),
            )
            .await?;
        let id = game["id"].as_str()?.to_string();
        for token in &tokens[1..] {
            self.call(
                "POST /v1/games/{id}/seats",
                "POST",
                &format!("/v1/games/{id}/seats"),
                Some(token),
                Some(&json!({})),
            )
            .await?;
        }
        self.call(
            "POST /v1/games/{id}/start",
            "POST",
            &format!("/v1/games/{id}/start"),
            Some(&tokens[0]),
            None,
        )
        .await?;
        let mut rng = seed | 1;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let mut who = 0usize;
        while Instant::now() < deadline {
            let (status, prompts) = self
                .call(
                    "GET /v1/games/{id}/prompts",
                    "GET",
                    &format!("/v1/games/{id}/prompts"),
                    Some(&tokens[who]),
                    None,
                )
                .await?;
            if status != 200 {
                return None;
            }
            let waiting: Vec<usize> = prompts["prompts"]
                .as_array()?
                .iter()
                .filter_map(|p| p["seat"].as_u64())
                .map(|s| s as usize - 1)
                .collect();
            if waiting.is_empty() {
                self.stats.borrow_mut().games_finished += 1;
                return Some(());
            }
            if !waiting.contains(&who) {
                // Ask again as a seat that must act, to get its legal commands.
                who = waiting[next(waiting.len())];
                continue;
            }
            let legal = prompts["legal"].as_array()?;
            if legal.is_empty() {
                who = waiting[next(waiting.len())];
                continue;
            }
            let command = legal[next(legal.len())].clone();
            let mut body = json!({"command_id": uuid::Uuid::new_v4(), "command": command});
            if config.expected_version {
                body["expected_version"] = prompts["version"].clone();
            }
            let (status, _) = self
                .call(
                    "POST /v1/games/{id}/commands",
                    "POST",
                    &format!("/v1/games/{id}/commands"),
                    Some(&tokens[who]),
                    Some(&body),
                )
                .await?;
            match status {
                200 => self.stats.borrow_mut().accepted += 1,
                409 => self.stats.borrow_mut().conflicts += 1,
                _ => {}
            }
            who = waiting[next(waiting.len())];
        }
        Some(())
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

async fn server_rss(client: &awc::Client, base: &str) -> Option<u64> {
    let mut res = client.get(format!("{base}/metrics")).send().await.ok()?;
    let text = String::from_utf8(res.body().limit(16 << 20).await.ok()?.to_vec()).ok()?;
    text.lines()
        .find(|l| l.starts_with("process_resident_memory_bytes "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|v| v as u64)
}

pub async fn run(config: LoadConfig) -> Value {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let started = Instant::now();
    let deadline = started + config.duration;
    let config = Rc::new(config);
    let mut tasks = Vec::new();
    for g in 0..config.games {
        let bot = Bot {
            client: client.clone(),
            base: config.url.trim_end_matches('/').to_string(),
            stats: stats.clone(),
        };
        let config = config.clone();
        tasks.push(actix_web::rt::spawn(async move {
            let mut round = 0u64;
            while Instant::now() < deadline {
                round += 1;
                if bot
                    .play(&config, deadline, (g as u64 + 1) * 7919 + round)
                    .await
                    .is_none()
                {
                    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    let progress = {
        let stats = stats.clone();
        let quiet = config.json;
        actix_web::rt::spawn(async move {
            let mut last = 0;
            loop {
                actix_web::rt::time::sleep(Duration::from_secs(1)).await;
                let s = stats.borrow();
                let elapsed = started.elapsed().as_secs_f64();
                if !quiet || std::env::var_os("HOMESTRETCH_LOAD_PROGRESS").is_some() {
                    eprint!(
                        "\r[{elapsed:5.1}s] accepted {} ({}/s now), conflicts {}, games finished {}, errors {}   ",
                        s.accepted,
                        s.accepted - last,
                        s.conflicts,
                        s.games_finished,
                        s.statuses
                            .iter()
                            .filter(|(k, _)| **k >= 400 && **k != 409)
                            .map(|(_, v)| v)
                            .sum::<u64>()
                            + s.transport_errors
                    );
                }
                last = s.accepted;
            }
        })
    };
    for task in tasks {
        let _ = task.await;
    }
    progress.abort();
    eprintln!();
    let elapsed = started.elapsed().as_secs_f64();
    let rss = server_rss(&client, config.url.trim_end_matches('/')).await;
    let s = stats.borrow();
    let mut routes = serde_json::Map::new();
    for (route, latencies) in &s.latencies {
        let mut sorted = latencies.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        routes.insert(
            route.to_string(),
            json!({
                "requests": sorted.len(),
                "p50_ms": percentile(&sorted, 50.0) * 1e3,
                "p95_ms": percentile(&sorted, 95.0) * 1e3,
                "p99_ms": percentile(&sorted, 99.0) * 1e3,
                "max_ms": sorted.last().copied().unwrap_or(0.0) * 1e3,
            }),
        );
    }
    json!({
        "url": config.url,
        "games": config.games,
        "duration_s": elapsed,
        "accepted_commands": s.accepted,
        "accepted_commands_per_s": s.accepted as f64 / elapsed,
        "conflicts": s.conflicts,
        "games_finished": s.games_finished,
        "transport_errors": s.transport_errors,
        "statuses": s.statuses.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "routes": routes,
        "server_rss_bytes": rss,
    })
}

pub fn print_human(report: &Value) {
    println!(
        "{} games for {:.1}s: {} accepted commands = {:.0}/s; conflicts {}; games finished {}",
        report["games"],
        report["duration_s"].as_f64().unwrap_or(0.0),
        report["accepted_commands"],
        report["accepted_commands_per_s"].as_f64().unwrap_or(0.0),
        report["conflicts"],
        report["games_finished"]
    );
    println!("statuses: {}", report["statuses"]);
    println!(
        "{:<34} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "route", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms"
    );
    if let Some(routes) = report["routes"].as_object() {
        for (route, r) in routes {
            println!(
                "{:<34} {:>9} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                route,
                r["requests"],
                r["p50_ms"].as_f64().unwrap_or(0.0),
                r["p95_ms"].as_f64().unwrap_or(0.0),
                r["p99_ms"].as_f64().unwrap_or(0.0),
                r["max_ms"].as_f64().unwrap_or(0.0)
            );
        }
    }
    match report["server_rss_bytes"].as_u64() {
        Some(rss) => println!("server RSS: {:.1} MB", rss as f64 / 1e6),
        None => println!("server RSS: unknown"),
    }
}

/// Reads/s of `GET /v1/games/{id}` by `clients` concurrent clients on one started game.
pub async fn run_reads(url: &str, clients: usize, duration: Duration) -> Option<f64> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let bot = Bot {
        client: client.clone(),
        base: url.trim_end_matches('/').to_string(),
        stats: stats.clone(),
    };
    let mut tokens = Vec::new();
    for _ in 0..3 {
        tokens.push(bot.token().await?);
    }
    let (_, game) = bot
        .call(
            "POST /v1/games",
            "POST",
            "/v1/games",
            Some(&tokens[0]),
            Some(&json!({"kind": "whisky_race", "seats": 3})),
        )
        .await?;
    let id = game["id"].as_str()?.to_string();
    for token in &tokens[1..] {
        bot.call(
            "join",
            "POST",
            &format!("/v1/games/{id}/seats"),
            Some(token),
            Some(&json!({})),
        )
        .await?;
    }
    bot.call(
        "start",
        "POST",
        &format!("/v1/games/{id}/start"),
        Some(&tokens[0]),
        None,
    )
    .await?;
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for c in 0..clients {
        let bot = Bot {
            client: client.clone(),
            base: bot.base.clone(),
            stats: stats.clone(),
        };
        let token = tokens[c % 3].clone();
        let path = format!("/v1/games/{id}");
        tasks.push(actix_web::rt::spawn(async move {
            while Instant::now() < deadline {
                bot.call("GET /v1/games/{id}", "GET", &path, Some(&token), None)
                    .await;
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let reads = stats
        .borrow()
        .latencies
        .get("GET /v1/games/{id}")
        .map(|l| l.len())
        .unwrap_or(0);
    Some(reads as f64 / started.elapsed().as_secs_f64())
}
