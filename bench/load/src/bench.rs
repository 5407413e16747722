//! The benchmark modes: reads/s, SSE fan-out, replay over HTTP, memory per active game.

use crate::client::{
    Bot, Request, Shared, Stats, one_move, one_move_with, percentile, print_routes, routes_report,
    server_rss, started_game,
};
use crate::tables::{first, tables};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The read the `reads` mode repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadRoute {
    /// `GET /v1/games/{id}`: the summary and the caller's view.
    Game,
    /// `GET /v1/games/{id}/prompts`: prompts, `choices` and `legal` of the caller's seat.
    Prompts,
}

impl ReadRoute {
    fn name(self) -> &'static str {
        match self {
            ReadRoute::Game => "GET /v1/games/{id}",
            ReadRoute::Prompts => "GET /v1/games/{id}/prompts",
        }
    }
    fn path(self, id: &str) -> String {
        match self {
            ReadRoute::Game => format!("/v1/games/{id}"),
            ReadRoute::Prompts => format!("/v1/games/{id}/prompts"),
        }
    }
}

/// Reads/s of `route` by `clients` concurrent clients over `games` started games (client `c`
/// reads game `c % games` as its seat `c % seats`): throughput, latency, statuses, the largest
/// answer.
pub async fn run_reads(
    url: &str,
    route: ReadRoute,
    clients: usize,
    games: usize,
    duration: Duration,
) -> Option<Value> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .connector(awc::Connector::new().limit(clients + 8))
        .finish();
    let bot = Bot::new(&client, url, &stats);
    let mut started_games = Vec::new();
    for _ in 0..games.max(1) {
        started_games.push(started_game(&bot, &first(), None).await?);
    }
    // The set-up's requests are not the measure.
    *stats.borrow_mut() = Stats::default();
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for c in 0..clients {
        let bot = Bot::new(&client, &bot.base, &stats);
        let (id, tokens) = &started_games[c % started_games.len()];
        let token = tokens[c % tokens.len()].clone();
        let path = route.path(id);
        tasks.push(actix_rt::spawn(async move {
            // The body is read whole and counted, not parsed: pgbench's baseline read
            // (`c_read_state.sql`) does not parse the state it reads either.
            let request = Request {
                route: route.name(),
                method: "GET",
                path: &path,
                token: Some(&token),
                body: None,
            };
            while Instant::now() < deadline {
                bot.call_as(&request, |_| ()).await;
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let stats = stats.borrow();
    let routes = routes_report(&stats);
    let measured = &routes[route.name()];
    Some(json!({
        "route": route.name(),
        "clients": clients,
        "games": started_games.len(),
        "duration_s": elapsed,
        "reads_per_s": measured["requests"].as_f64().unwrap_or(0.0) / elapsed,
        "p50_ms": measured["p50_ms"],
        "p99_ms": measured["p99_ms"],
        "statuses": stats.statuses.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "transport_errors": stats.transport_errors,
        "routes": routes,
    }))
}

/// The `reads` report as text: reads/s on the first line (what `bench/run` reads), then the
/// routes' latency and largest answer.
pub fn print_reads(report: &Value) {
    println!("{:.0}", report["reads_per_s"].as_f64().unwrap_or(0.0));
    println!("statuses: {}", report["statuses"]);
    print_routes(&report["routes"]);
}

/// What the SSE benchmark's subscribers share: when the command of each version was sent, the
/// one in flight, the lags measured, the events delivered.
#[derive(Clone, Default)]
struct Deliveries {
    sent_at: Rc<RefCell<BTreeMap<u64, Instant>>>,
    /// When the command not answered yet was sent: its events may arrive before its answer.
    in_flight: Rc<RefCell<Option<Instant>>>,
    lags: Rc<RefCell<Vec<f64>>>,
    received: Rc<RefCell<u64>>,
}

impl Deliveries {
    /// When the command that appended `seq` was sent: the first answered version ≥ `seq`, else
    /// the command in flight.
    fn sent(&self, seq: u64) -> Option<Instant> {
        let answered = self.sent_at.borrow().range(seq..).next().map(|(_, at)| *at);
        answered.or(*self.in_flight.borrow())
    }
}

/// SSE fan-out: `subscribers` streams on one game while moves are played; delivery rate and
/// lag (from the moment the command that appended an event was sent to each subscriber's
/// receipt of it).
pub async fn run_sse(url: &str, subscribers: usize, moves: usize) -> Option<Value> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        // The streams stay open for the whole run.
        .disable_timeout()
        // One connection per stream: lift awc's default limit of 100 connections.
        .connector(awc::Connector::new().limit(subscribers + 64))
        .finish();
    let bot = Bot::new(&client, url, &stats);
    let Some((id, tokens)) = started_game(&bot, &first(), None).await else {
        eprintln!("sse: could not start a game");
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
    let deliveries = Deliveries::default();
    let watchers = subscribe(&bot, &id, subscribers, start_version, &deliveries).await?;
    actix_rt::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let mut rng = 0x9E3779B97F4A7C15u64;
    let mut events = 0u64;
    for _ in 0..moves {
        let in_flight = deliveries.in_flight.clone();
        let sending = move || *in_flight.borrow_mut() = Some(Instant::now());
        match one_move_with(&bot, &id, &tokens, &mut rng, sending).await {
            Some(version) => {
                let sent = deliveries.in_flight.borrow_mut().take()?;
                deliveries.sent_at.borrow_mut().insert(version, sent);
                events = version - start_version;
            }
            None => break,
        }
    }
    // let the streams drain
    let deadline = Instant::now() + Duration::from_secs(30);
    while *deliveries.received.borrow() < events * subscribers as u64 && Instant::now() < deadline {
        actix_rt::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    for w in watchers {
        w.abort();
    }
    let mut lags = deliveries.lags.borrow().clone();
    lags.sort_by(f64::total_cmp);
    let received = *deliveries.received.borrow();
    Some(json!({
        "subscribers": subscribers,
        "events_per_subscriber": events,
        "deliveries_expected": events * subscribers as u64,
        "deliveries": received,
        "deliveries_per_s": received as f64 / elapsed,
        "lag_p50_ms": percentile(&lags, 50.0) * 1e3,
        "lag_p99_ms": percentile(&lags, 99.0) * 1e3,
        "lag_max_ms": lags.last().copied().unwrap_or(0.0) * 1e3,
        "routes": routes_report(&stats.borrow()),
    }))
}

/// Opens `subscribers` event streams of game `id` from `start_version` (16 per viewer
/// token), each read by a task of its own.
async fn subscribe(
    bot: &Bot,
    id: &str,
    subscribers: usize,
    start_version: u64,
    deliveries: &Deliveries,
) -> Option<Vec<actix_rt::task::JoinHandle<()>>> {
    let mut watchers = Vec::new();
    let mut viewer_tokens = Vec::new();
    for _ in 0..subscribers.div_ceil(16) {
        viewer_tokens.push(bot.token().await?);
    }
    for s in 0..subscribers {
        let res = bot
            .client
            .get(format!("{}/v1/games/{id}/events/stream", bot.base))
            .insert_header(("authorization", format!("Bearer {}", viewer_tokens[s / 16])))
            .insert_header(("last-event-id", start_version.to_string()))
            .send()
            .await
            .map_err(|e| eprintln!("stream {s}: {e}"))
            .ok()?;
        watchers.push(actix_rt::spawn(watch(res, deliveries.clone())));
    }
    Some(watchers)
}

/// Reads one event stream: every message with an `id` is a delivery, its lag measured from
/// the moment the command that appended it was sent. Scans bytes (no text conversion): with
/// a thousand streams in this one thread, the tool's own parsing is part of the lag.
async fn watch<S, B, E>(mut stream: S, deliveries: Deliveries)
where
    S: futures_util::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
{
    use futures_util::StreamExt;
    let mut buffer: Vec<u8> = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buffer.extend_from_slice(chunk.as_ref());
        let mut start = 0;
        while let Some(end) = buffer[start..].windows(2).position(|w| w == b"\n\n") {
            let message = &buffer[start..start + end];
            start += end + 2;
            let Some(seq) = message_id(message) else {
                continue;
            };
            *deliveries.received.borrow_mut() += 1;
            if let Some(at) = deliveries.sent(seq) {
                deliveries
                    .lags
                    .borrow_mut()
                    .push(at.elapsed().as_secs_f64());
            }
        }
        buffer.drain(..start);
    }
}

/// The `id: N` of one message (comments and hints have none).
fn message_id(message: &[u8]) -> Option<u64> {
    message
        .split(|b| *b == b'\n')
        .find_map(|line| line.strip_prefix(b"id: "))
        .and_then(|id| std::str::from_utf8(id).ok()?.parse().ok())
}

/// Replay over HTTP: plays a game past `events` events (the tables of every game are tried in
/// turn, biggest first, until one gets there), then times `GET /state?at=N` at random N.
pub async fn run_replay(url: &str, events: u64, samples: usize) -> Option<Value> {
    let stats: Shared = Rc::new(RefCell::new(Stats::default()));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(120))
        .finish();
    let bot = Bot::new(&client, url, &stats);
    let (id, tokens, version) = long_game(&bot, events).await?;
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
        "routes": routes_report(&stats.borrow()),
    }))
}

/// A started game played by random bots past `events` events (the largest tables first, a new
/// game whenever one ends short): its id, the seats' tokens and its version.
pub(crate) async fn long_game(bot: &Bot, events: u64) -> Option<(String, Vec<String>, u64)> {
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut tables = tables(None, None).ok()?;
    tables.sort_by_key(|t| std::cmp::Reverse(t.seats));
    for attempt in 0.. {
        // No registered game may ever last that long: give up after three rounds of tables.
        if attempt == 3 * tables.len() {
            eprintln!("no game reached {events} events");
            return None;
        }
        let table = &tables[attempt % tables.len()];
        let (id, tokens) = started_game(bot, table, None).await?;
        let mut version = 0;
        while version < events {
            match one_move(bot, &id, &tokens, &mut rng).await {
                Some(v) => version = v,
                None => break,
            }
        }
        if version >= events {
            return Some((id, tokens, version));
        }
    }
    None
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
        tasks.push(actix_rt::spawn(async move {
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
        json!({"games": games, "moves_per_game": moves, "rss_before_bytes": before,
            "rss_after_bytes": after, "routes": routes_report(&stats.borrow())}),
    )
}
