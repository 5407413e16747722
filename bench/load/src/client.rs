//! One bot's HTTP client, the shared tallies, and the steps every mode takes: a guest token, a
//! started game, one legal move taken from the prompts.

use crate::tables::Table;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// What a run counts, shared by its bots (one thread: `Rc<RefCell<…>>`).
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) latencies: BTreeMap<&'static str, Vec<f64>>,
    /// The largest answer body of each route, in bytes (issue 31: a 45 KB prompts answer went
    /// unseen because no run looked at sizes).
    pub(crate) max_bytes: BTreeMap<&'static str, usize>,
    /// The statuses of each route's answers (a comparison with an older server sees which
    /// requests it refused).
    pub(crate) route_statuses: BTreeMap<&'static str, BTreeMap<u16, u64>>,
    pub(crate) statuses: BTreeMap<u16, u64>,
    pub(crate) accepted: u64,
    pub(crate) conflicts: u64,
    pub(crate) games_finished: u64,
    pub(crate) transport_errors: u64,
    pub(crate) acknowledged: Vec<uuid::Uuid>,
    /// Per game kind: games started, games finished, accepted commands, deepest version seen.
    pub(crate) by_kind: BTreeMap<&'static str, KindStats>,
    /// When the first `games` games were all set up, and the commands accepted by then: the
    /// steady state starts there (`play`'s `steady_commands_per_s`).
    pub(crate) all_playing: Option<(std::time::Instant, u64)>,
}

#[derive(Default)]
pub(crate) struct KindStats {
    pub(crate) started: u64,
    pub(crate) finished: u64,
    pub(crate) accepted: u64,
    pub(crate) max_version: u64,
}

pub(crate) type Shared = Rc<RefCell<Stats>>;

/// One request of a bot: the route it is tallied under, the method, the path, the bearer token
/// and the JSON body.
#[derive(Clone, Copy)]
pub(crate) struct Request<'a> {
    pub(crate) route: &'static str,
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) token: Option<&'a str>,
    pub(crate) body: Option<&'a Value>,
}

/// One player's connection to the server: every request is timed and counted in `stats`.
pub(crate) struct Bot {
    pub(crate) client: awc::Client,
    pub(crate) base: String,
    pub(crate) stats: Shared,
    /// Print transport errors to stderr (`--debug`).
    pub(crate) debug: bool,
}

impl Bot {
    pub(crate) fn new(client: &awc::Client, url: &str, stats: &Shared) -> Self {
        Bot {
            client: client.clone(),
            base: url.trim_end_matches('/').to_string(),
            stats: stats.clone(),
            debug: false,
        }
    }

    pub(crate) async fn call(
        &self,
        route: &'static str,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Option<(u16, Value)> {
        let request = Request {
            route,
            method,
            path,
            token,
            body,
        };
        self.call_as(&request, any_json).await
    }

    /// [`Bot::call`], the body read by `parse`: a bot that needs three fields of an answer
    /// skips the rest (issue 31: parsing whole answers into `Value`s, and dropping them, was
    /// over half of the load tool's CPU, charged to every figure of a run on this machine).
    pub(crate) async fn call_as<T>(
        &self,
        request: &Request<'_>,
        parse: fn(&[u8]) -> T,
    ) -> Option<(u16, T)> {
        let Request {
            route,
            method,
            path,
            token,
            body,
        } = *request;
        let method = awc::http::Method::from_bytes(method.as_bytes()).ok()?;
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
                if self.debug {
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
        let largest = stats.max_bytes.entry(route).or_default();
        *largest = (*largest).max(bytes.len());
        *stats
            .route_statuses
            .entry(route)
            .or_default()
            .entry(status)
            .or_default() += 1;
        *stats.statuses.entry(status).or_default() += 1;
        drop(stats);
        Some((status, parse(&bytes)))
    }

    /// `call`, retried while the server is unreachable or answers 503 (a restart, a database
    /// outage) until `deadline`. Commands are retried with the same id: a command that was
    /// applied before the connection broke gets its first answer, not a second application.
    pub(crate) async fn call_retrying<T>(
        &self,
        request: &Request<'_>,
        parse: fn(&[u8]) -> T,
        deadline: Instant,
    ) -> Option<(u16, T)> {
        loop {
            match self.call_as(request, parse).await {
                Some((503, _)) | None if Instant::now() < deadline => {
                    actix_rt::time::sleep(Duration::from_millis(100)).await;
                }
                answer => return answer,
            }
        }
    }

    pub(crate) async fn token(&self) -> Option<String> {
        let (status, body) = self
            .call("POST /v1/auth/guest", "POST", "/v1/auth/guest", None, None)
            .await?;
        (status == 201)
            .then(|| body["access_token"].as_str().map(String::from))
            .flatten()
    }
}

/// A body as JSON (`null` when it is not).
pub(crate) fn any_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or(Value::Null)
}

/// The 0-based seats a prompts answer (`/prompts` or a command's `next`) says may act now;
/// `None` when the answer has no prompt list.
pub(crate) fn waiting_seats(answer: &Value) -> Option<Vec<usize>> {
    Some(
        answer["prompts"]
            .as_array()?
            .iter()
            .filter_map(|p| p["seat"].as_u64())
            .map(|s| s as usize - 1)
            .collect(),
    )
}

/// A xorshift draw in `0..n`: the bots' choices need speed, not quality.
pub(crate) fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
}

/// Per route: requests, latency percentiles (ms) and the largest answer (bytes).
pub(crate) fn routes_report(stats: &Stats) -> Value {
    let mut routes = serde_json::Map::new();
    for (route, latencies) in &stats.latencies {
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
                "max_bytes": stats.max_bytes.get(route).copied().unwrap_or(0),
                "statuses": stats.route_statuses.get(route).map(|by_status| {
                    by_status
                        .iter()
                        .map(|(status, n)| (status.to_string(), json!(n)))
                        .collect::<serde_json::Map<_, _>>()
                }),
            }),
        );
    }
    Value::Object(routes)
}

/// The `routes_report` as a table (the text output of every mode).
pub(crate) fn print_routes(routes: &Value) {
    println!(
        "{:<34} {:>9} {:>8} {:>8} {:>8} {:>8} {:>10}",
        "route", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms", "largest B"
    );
    for (route, r) in routes.as_object().into_iter().flatten() {
        let ms = |key: &str| r[key].as_f64().unwrap_or(0.0);
        println!(
            "{:<34} {:>9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>10}",
            route,
            r["requests"],
            ms("p50_ms"),
            ms("p95_ms"),
            ms("p99_ms"),
            ms("max_ms"),
            r["max_bytes"]
        );
    }
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

pub(crate) async fn server_rss(client: &awc::Client, base: &str) -> Option<u64> {
    let mut res = client.get(format!("{base}/metrics")).send().await.ok()?;
    let text = String::from_utf8(res.body().limit(16 << 20).await.ok()?.to_vec()).ok()?;
    text.lines()
        .find(|l| l.starts_with("process_resident_memory_bytes "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|v| v as u64)
}

/// Creates and starts a game at `table` with guests (or `host` at seat 1); returns its id and
/// the tokens.
pub(crate) async fn started_game(
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
pub(crate) async fn one_move(bot: &Bot, id: &str, tokens: &[String], rng: &mut u64) -> Option<u64> {
    one_move_with(bot, id, tokens, rng, || ()).await
}

/// [`one_move`], calling `sending` just before the command goes out (after the reads that
/// chose it): the SSE mode times deliveries from there.
pub(crate) async fn one_move_with(
    bot: &Bot,
    id: &str,
    tokens: &[String],
    rng: &mut u64,
    sending: impl FnOnce(),
) -> Option<u64> {
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
    let waiting = waiting_seats(&overview)?;
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
    sending();
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
