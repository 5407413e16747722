//! `homestretch load`: bot players over real HTTP against a running server. Each of N
//! concurrent games is played by bots that only send legal commands taken from `prompts`;
//! finished games are replaced. Every game the server hosts is played (`domain::games()`), at
//! every seat count with every option sample of the game, in turn (or one kind with `--kind`).
//! Reports accepted commands/s, latency per route, errors by status, conflicts, the games
//! played and finished per kind, and the server's RSS.

use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

pub struct LoadConfig {
    pub url: String,
    pub games: usize,
    pub duration: Duration,
    /// Only this game kind (default: every game).
    pub kind: Option<String>,
    /// Only this seat count (default: every seat count of each game).
    pub seats: Option<u8>,
    pub json: bool,
    /// Send `expected_version` with every command (conflicts become 409s instead of retries).
    pub expected_version: bool,
    /// Write the id of every acknowledged (200) command here, one per line (crash drills).
    pub ack_log: Option<std::path::PathBuf>,
    /// Seat 1 (the host) of every game is this user (spec fuzzing then acts as a player of
    /// every game); the other seats are guests.
    pub host_token: Option<String>,
}

#[derive(Default)]
struct Stats {
    latencies: BTreeMap<&'static str, Vec<f64>>,
    statuses: BTreeMap<u16, u64>,
    accepted: u64,
    conflicts: u64,
    games_finished: u64,
    transport_errors: u64,
    acknowledged: Vec<uuid::Uuid>,
    /// Per game kind: games started, games finished, accepted commands, deepest version seen.
    by_kind: BTreeMap<&'static str, KindStats>,
}

#[derive(Default)]
struct KindStats {
    started: u64,
    finished: u64,
    accepted: u64,
    max_version: u64,
}

/// A table to play: a game kind, a seat count and one of the game's option samples.
#[derive(Clone, Debug)]
pub struct Table {
    pub kind: &'static str,
    pub seats: u8,
    pub options: Value,
}

/// Every (kind, seat count, option sample) of every hosted game, optionally only one kind or
/// one seat count. Errors when the filter leaves nothing.
pub fn tables(kind: Option<&str>, seats: Option<u8>) -> Result<Vec<Table>, String> {
    let mut all = Vec::new();
    for game in domain::games() {
        if kind.is_some_and(|k| k != game.kind()) {
            continue;
        }
        for n in game.seat_range() {
            if seats.is_some_and(|s| s != n) {
                continue;
            }
            for options in game.option_samples(n) {
                all.push(Table {
                    kind: game.kind(),
                    seats: n,
                    options,
                });
            }
        }
    }
    if all.is_empty() {
        return Err(format!(
            "no game matches --kind {} --seats {}",
            kind.unwrap_or("*"),
            seats.map(|s| s.to_string()).unwrap_or("*".into())
        ));
    }
    Ok(all)
}

type Shared = Rc<RefCell<Stats>>;

struct Bot {
    client: awc::Client,
    base: String,
    stats: Shared,
}

impl Bot {
    fn new(client: &awc::Client, url: &str, stats: &Shared) -> Self {
        Bot {
            client: client.clone(),
            base: url.trim_end_matches('/').to_string(),
            stats: stats.clone(),
        }
    }

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
            Err(error) => {
                if std::env::var_os("HOMESTRETCH_LOAD_DEBUG").is_some() {
                    eprintln!("{route}: {error}");
                }
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

    /// `call`, retried while the server is unreachable or answers 503 (a restart, a database
    /// outage) until `deadline`. Commands are retried with the same id: a command that was
    /// applied before the connection broke gets its first answer, not a second application.
    async fn call_retrying(
        &self,
        route: &'static str,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        deadline: Instant,
    ) -> Option<(u16, Value)> {
        loop {
            match self.call(route, method, path, token, body).await {
                Some((503, _)) | None if Instant::now() < deadline => {
                    actix_web::rt::time::sleep(Duration::from_millis(100)).await;
                }
                answer => return answer,
            }
        }
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
    async fn play(
        &self,
        config: &LoadConfig,
        table: &Table,
        deadline: Instant,
        seed: u64,
    ) -> Option<()> {
        let (id, tokens) = started_game(self, table, config.host_token.as_deref()).await?;
        self.stats
            .borrow_mut()
            .by_kind
            .entry(table.kind)
            .or_default()
            .started += 1;
        let mut rng = seed | 1;
        let mut next = |n: usize| pick(&mut rng, n);
        let mut who = 0usize;
        // The `next` of the last command's answer, when it is the acting seat's own.
        let mut known: Option<Value> = None;
        while Instant::now() < deadline {
            let prompts = match known.take() {
                Some(prompts) => prompts,
                None => {
                    let (status, prompts) = self
                        .call_retrying(
                            "GET /v1/games/{id}/prompts",
                            "GET",
                            &format!("/v1/games/{id}/prompts"),
                            Some(&tokens[who]),
                            None,
                            deadline,
                        )
                        .await?;
                    if status != 200 {
                        return None;
                    }
                    prompts
                }
            };
            let waiting: Vec<usize> = prompts["prompts"]
                .as_array()?
                .iter()
                .filter_map(|p| p["seat"].as_u64())
                .map(|s| s as usize - 1)
                .collect();
            if waiting.is_empty() {
                let mut stats = self.stats.borrow_mut();
                stats.games_finished += 1;
                stats.by_kind.entry(table.kind).or_default().finished += 1;
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
            let command_id = uuid::Uuid::new_v4();
            let mut body = json!({"command_id": command_id, "command": command});
            if config.expected_version {
                body["expected_version"] = prompts["version"].clone();
            }
            let (status, answer) = self
                .call_retrying(
                    "POST /v1/games/{id}/commands",
                    "POST",
                    &format!("/v1/games/{id}/commands"),
                    Some(&tokens[who]),
                    Some(&body),
                    deadline,
                )
                .await?;
            match status {
                200 => {
                    let mut stats = self.stats.borrow_mut();
                    stats.accepted += 1;
                    stats.acknowledged.push(command_id);
                    let kind = stats.by_kind.entry(table.kind).or_default();
                    kind.accepted += 1;
                    kind.max_version = kind
                        .max_version
                        .max(answer["version"].as_u64().unwrap_or(0));
                }
                409 => self.stats.borrow_mut().conflicts += 1,
                _ => {}
            }
            // The answer says who must act now. Pick the next seat among them as before; when
            // it is the same seat, its legal commands are in the answer: no extra request.
            let now_waiting: Vec<usize> = answer["next"]["prompts"]
                .as_array()
                .map(|p| {
                    p.iter()
                        .filter_map(|p| p["seat"].as_u64())
                        .map(|s| s as usize - 1)
                        .collect()
                })
                .unwrap_or_default();
            if status == 200 && !now_waiting.is_empty() {
                let previous = who;
                who = now_waiting[next(now_waiting.len())];
                if who == previous {
                    known = Some(answer["next"].clone());
                }
            } else {
                who = waiting[next(waiting.len())];
            }
        }
        Some(())
    }
}

/// A xorshift draw in `0..n`: the bots' choices need speed, not quality.
fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
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

pub async fn run(config: LoadConfig) -> Result<Value, String> {
    let tables = Rc::new(tables(config.kind.as_deref(), config.seats)?);
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let started = Instant::now();
    let deadline = started + config.duration;
    let config = Rc::new(config);
    let mut tasks = Vec::new();
    for g in 0..config.games {
        let bot = Bot::new(&client, &config.url, &stats);
        let config = config.clone();
        let tables = tables.clone();
        tasks.push(actix_web::rt::spawn(async move {
            let mut round = 0u64;
            while Instant::now() < deadline {
                // Lanes take the tables in turn: every table is played as soon as there are
                // as many lanes (or rounds) as tables.
                let table = &tables[(g + round as usize * config.games) % tables.len()];
                round += 1;
                if bot
                    .play(&config, table, deadline, (g as u64 + 1) * 7919 + round)
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
    if let Some(path) = &config.ack_log {
        let lines: String = s.acknowledged.iter().map(|id| format!("{id}\n")).collect();
        if let Err(error) = std::fs::write(path, lines) {
            eprintln!("cannot write {}: {error}", path.display());
        }
    }
    let mut routes = serde_json::Map::new();
    for (route, latencies) in &s.latencies {
        let mut sorted = latencies.clone();
        sorted.sort_by(f64::total_cmp);
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
    let by_kind: serde_json::Map<String, Value> = s
        .by_kind
        .iter()
        .map(|(kind, k)| {
            (
                kind.to_string(),
                json!({
                    "games_started": k.started,
                    "games_finished": k.finished,
                    "accepted_commands": k.accepted,
                    "max_version": k.max_version,
                }),
            )
        })
        .collect();
    Ok(json!({
        "url": config.url,
        "games": config.games,
        "tables": tables.len(),
        "by_kind": by_kind,
        "duration_s": elapsed,
        "accepted_commands": s.accepted,
        "accepted_commands_per_s": s.accepted as f64 / elapsed,
        "conflicts": s.conflicts,
        "games_finished": s.games_finished,
        "transport_errors": s.transport_errors,
        "statuses": s.statuses.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "routes": routes,
        "server_rss_bytes": rss,
    }))
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
    if let Some(kinds) = report["by_kind"].as_object() {
        for (kind, k) in kinds {
            println!(
                "  {kind:<14} games started {}, finished {}; accepted commands {}; deepest version {}",
                k["games_started"], k["games_finished"], k["accepted_commands"], k["max_version"]
            );
        }
    }
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
    let bot = Bot::new(&client, url, &stats);
    let (id, tokens) = started_game(&bot, &first_table(), None).await?;
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for c in 0..clients {
        let bot = Bot::new(&client, &bot.base, &stats);
        let token = tokens[c % tokens.len()].clone();
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

/// The first hosted game at its smallest table with its default options (the read and SSE
/// benchmarks measure the server, whatever the game).
fn first_table() -> Table {
    let game = domain::games()[0];
    let seats = *game.seat_range().start();
    Table {
        kind: game.kind(),
        seats,
        options: json!({}),
    }
}

/// Creates and starts a game at `table` with guests (or `host` at seat 1); returns its id and
/// the tokens.
async fn started_game(
    bot: &Bot,
    table: &Table,
    host: Option<&str>,
) -> Option<(String, Vec<String>)> {
    let mut tokens = Vec::new();
    for seat in 0..table.seats {
        match host {
            Some(host) if seat == 0 => tokens.push(host.to_string()),
            _ => tokens.push(bot.token().await?),
        }
    }
    let (_, game) = bot
        .call(
            "POST /v1/games",
            "POST",
            "/v1/games",
            Some(&tokens[0]),
            Some(&json!({"kind": table.kind, "seats": table.seats, "options": table.options})),
        )
        .await?;
    let id = game["id"].as_str()?.to_string();
    for token in &tokens[1..] {
        bot.call(
            "POST /v1/games/{id}/seats",
            "POST",
            &format!("/v1/games/{id}/seats"),
            Some(token),
            Some(&json!({})),
        )
        .await?;
    }
    bot.call(
        "POST /v1/games/{id}/start",
        "POST",
        &format!("/v1/games/{id}/start"),
        Some(&tokens[0]),
        None,
    )
    .await?;
    Some((id, tokens))
}

/// Sends one random legal command; `None` when the game is over.
async fn one_move(bot: &Bot, id: &str, tokens: &[String], rng: &mut u64) -> Option<u64> {
    let mut next = |n: usize| pick(rng, n);
    let (_, overview) = bot
        .call(
            "prompts",
            "GET",
            &format!("/v1/games/{id}/prompts"),
            Some(&tokens[0]),
            None,
        )
        .await?;
    let waiting: Vec<usize> = overview["prompts"]
        .as_array()?
        .iter()
        .filter_map(|p| p["seat"].as_u64())
        .map(|s| s as usize - 1)
        .collect();
    if waiting.is_empty() {
        return None;
    }
    let seat = waiting[next(waiting.len())];
    let (_, mine) = bot
        .call(
            "prompts",
            "GET",
            &format!("/v1/games/{id}/prompts"),
            Some(&tokens[seat]),
            None,
        )
        .await?;
    let legal = mine["legal"].as_array()?;
    let command = legal.get(next(legal.len().max(1)))?.clone();
    let (status, answer) = bot
        .call(
            "command",
            "POST",
            &format!("/v1/games/{id}/commands"),
            Some(&tokens[seat]),
            Some(&json!({"command": command})),
        )
        .await?;
    (status == 200)
        .then(|| answer["version"].as_u64())
        .flatten()
}

/// SSE fan-out: `subscribers` streams on one game while moves are played; delivery rate and
/// lag (from the command's answer to each subscriber's receipt).
pub async fn run_sse(url: &str, subscribers: usize, moves: usize) -> Option<Value> {
    use futures_util::StreamExt;
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(120))
        // One connection per stream: lift awc's default limit of 100 connections.
        .connector(awc::Connector::new().limit(subscribers + 64))
        .finish();
    let bot = Bot::new(&client, url, &stats);
    let Some((id, tokens)) = started_game(&bot, &first_table(), None).await else {
        eprintln!("bench-sse: could not start a game");
        return None;
    };
    let start_version = bot
        .call(
            "get",
            "GET",
            &format!("/v1/games/{id}"),
            Some(&tokens[0]),
            None,
        )
        .await?
        .1["version"]
        .as_u64()?;
    let sent_at: Rc<RefCell<BTreeMap<u64, Instant>>> = Rc::default();
    let lags: Rc<RefCell<Vec<f64>>> = Rc::default();
    let received: Rc<RefCell<u64>> = Rc::default();
    let mut watchers = Vec::new();
    let mut viewer_tokens = Vec::new();
    for _ in 0..subscribers.div_ceil(16) {
        viewer_tokens.push(bot.token().await?);
    }
    for s in 0..subscribers {
        let mut res = client
            .get(format!("{}/v1/games/{id}/events/stream", bot.base))
            .insert_header(("authorization", format!("Bearer {}", viewer_tokens[s / 16])))
            .insert_header(("last-event-id", start_version.to_string()))
            .send()
            .await
            .map_err(|e| eprintln!("stream {s}: {e}"))
            .ok()?;
        let (sent_at, lags, received) = (sent_at.clone(), lags.clone(), received.clone());
        watchers.push(actix_web::rt::spawn(async move {
            let mut buffer = String::new();
            while let Some(Ok(chunk)) = res.next().await {
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find("\n\n") {
                    let frame: String = buffer.drain(..end + 2).collect();
                    if let Some(seq) = frame
                        .lines()
                        .find_map(|l| l.strip_prefix("id: "))
                        .and_then(|v| v.parse::<u64>().ok())
                    {
                        *received.borrow_mut() += 1;
                        // Lag is measured against the moment the command that produced the
                        // event was answered (its version ≥ seq).
                        if let Some((_, at)) = sent_at.borrow().range(seq..).next() {
                            lags.borrow_mut().push(at.elapsed().as_secs_f64());
                        }
                    }
                }
            }
        }));
    }
    actix_web::rt::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let mut rng = 0x9E3779B97F4A7C15u64;
    let mut events = 0u64;
    for _ in 0..moves {
        let before = Instant::now();
        match one_move(&bot, &id, &tokens, &mut rng).await {
            Some(version) => {
                sent_at.borrow_mut().insert(version, before);
                events = version - start_version;
            }
            None => break,
        }
    }
    // let the streams drain
    let deadline = Instant::now() + Duration::from_secs(30);
    while *received.borrow() < events * subscribers as u64 && Instant::now() < deadline {
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    for w in watchers {
        w.abort();
    }
    let mut lags = lags.borrow().clone();
    lags.sort_by(f64::total_cmp);
    let received = *received.borrow();
    Some(json!({
        "subscribers": subscribers,
        "events_per_subscriber": events,
        "deliveries_expected": events * subscribers as u64,
        "deliveries": received,
        "deliveries_per_s": received as f64 / elapsed,
        "lag_p50_ms": percentile(&lags, 50.0) * 1e3,
        "lag_p99_ms": percentile(&lags, 99.0) * 1e3,
        "lag_max_ms": lags.last().copied().unwrap_or(0.0) * 1e3,
    }))
}

/// Replay over HTTP: plays a game past `events` events (the tables of every game are tried in
/// turn, biggest first, until one gets there), then times `GET /state?at=N` at random N.
pub async fn run_replay(url: &str, events: u64, samples: usize) -> Option<Value> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(120))
        .finish();
    let bot = Bot::new(&client, url, &stats);
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut tables = tables(None, None).ok()?;
    tables.sort_by_key(|t| std::cmp::Reverse(t.seats));
    let mut attempt = 0;
    let (id, tokens, version) = loop {
        let table = &tables[attempt % tables.len()];
        attempt += 1;
        let (id, tokens) = started_game(&bot, table, None).await?;
        let mut version = 0;
        while version < events {
            match one_move(&bot, &id, &tokens, &mut rng).await {
                Some(v) => version = v,
                None => break,
            }
        }
        if version >= events {
            break (id, tokens, version);
        }
    };
    let mut latencies = Vec::new();
    for i in 0..samples {
        let at = (i as u64 * 7919 + 13) % (version + 1);
        let started = Instant::now();
        let (status, _) = bot
            .call(
                "state",
                "GET",
                &format!("/v1/games/{id}/state?at={at}"),
                Some(&tokens[0]),
                None,
            )
            .await?;
        if status == 200 {
            latencies.push(started.elapsed().as_secs_f64());
        }
    }
    latencies.sort_by(f64::total_cmp);
    Some(json!({
        "game_events": version,
        "samples": latencies.len(),
        "p50_ms": percentile(&latencies, 50.0) * 1e3,
        "p99_ms": percentile(&latencies, 99.0) * 1e3,
        "max_ms": latencies.last().copied().unwrap_or(0.0) * 1e3,
    }))
}

/// Memory: starts `games` games, plays `moves` moves in each, then reads the server's RSS.
pub async fn run_memory(url: &str, games: usize, moves: usize) -> Option<Value> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(120))
        .finish();
    let base = url.trim_end_matches('/').to_string();
    let before = server_rss(&client, &base).await;
    let tables = Rc::new(tables(None, None).ok()?);
    let mut tasks = Vec::new();
    for lane in 0..16usize {
        let bot = Bot::new(&client, &base, &stats);
        let tables = tables.clone();
        tasks.push(actix_web::rt::spawn(async move {
            let mut rng = 0x9E3779B97F4A7C15u64 ^ lane as u64;
            for g in (lane..games).step_by(16) {
                let table = &tables[g % tables.len()];
                if let Some((id, tokens)) = started_game(&bot, table, None).await {
                    for _ in 0..moves {
                        if one_move(&bot, &id, &tokens, &mut rng).await.is_none() {
                            break;
                        }
                    }
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let after = server_rss(&client, &base).await;
    Some(
        json!({"games": games, "moves_per_game": moves, "rss_before_bytes": before, "rss_after_bytes": after}),
    )
}
