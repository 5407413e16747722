//! `homestretch-load play`: bot players over real HTTP against a running server. Each of N
//! concurrent games is played by bots that only send legal commands taken from `prompts`;
//! finished games are replaced. Every game the domain registers is played (`crate::tables`), at
//! every seat count with every option sample of the game, in turn (or one kind with `--kind`).
//! Reports accepted commands/s, latency per route, errors by status, conflicts, the games
//! played and finished per kind, and the server's RSS.

use crate::client::{
    Bot, Request, Shared, Stats, pick, print_routes, routes_report, server_rss, started_game,
};
use crate::tables::{Table, tables};
use serde::Deserialize;
use serde_json::{Value, json};
use std::cell::RefCell;
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
    /// Print transport errors to stderr.
    pub debug: bool,
    /// Print progress every second even with `json`.
    pub progress: bool,
}

/// What a bot reads of a prompts answer (a command's `next` has the same shape): the version,
/// who may act, and the caller's concrete legal commands. The rest (`choices`, the JSON Schema
/// families, most of the bytes) is skipped unparsed.
#[derive(Deserialize)]
struct Turn {
    version: Option<u64>,
    /// `None`: the answer has no prompt list.
    prompts: Option<Vec<Waiting>>,
    #[serde(default)]
    legal: Vec<Value>,
}

#[derive(Deserialize)]
struct Waiting {
    seat: usize,
}

/// What a bot reads of a command's answer.
#[derive(Deserialize)]
struct Answer {
    version: Option<u64>,
    next: Option<Turn>,
}

impl Turn {
    /// The 0-based seats the answer says may act now; `None` when it has no prompt list.
    fn waiting(&self) -> Option<Vec<usize>> {
        let prompts = self.prompts.as_ref()?;
        Some(prompts.iter().map(|p| p.seat - 1).collect())
    }
}

fn turn(bytes: &[u8]) -> Option<Turn> {
    serde_json::from_slice(bytes).ok()
}

fn answer(bytes: &[u8]) -> Option<Answer> {
    serde_json::from_slice(bytes).ok()
}

impl Bot {
    /// Sets up one game and plays it to the end (or the deadline).
    async fn play(
        &self,
        config: &LoadConfig,
        table: &Table,
        deadline: Instant,
        seed: u64,
    ) -> Option<()> {
        let (id, tokens) = started_game(self, table, config.host_token.as_deref()).await?;
        {
            let mut stats = self.stats.borrow_mut();
            stats.by_kind.entry(table.kind).or_default().started += 1;
            let set_up: u64 = stats.by_kind.values().map(|k| k.started).sum();
            if set_up == config.games as u64 {
                stats.all_playing = Some((Instant::now(), stats.accepted));
            }
        }
        let mut rng = seed | 1;
        let mut next = |n: usize| pick(&mut rng, n);
        let mut who = 0usize;
        // The `next` of the last command's answer, when it is the acting seat's own.
        let mut known: Option<Turn> = None;
        while Instant::now() < deadline {
            let prompts = match known.take() {
                Some(prompts) => prompts,
                None => self.prompts(&id, &tokens[who], deadline).await?,
            };
            let waiting = prompts.waiting()?;
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
            let mut legal = prompts.legal;
            if legal.is_empty() {
                who = waiting[next(waiting.len())];
                continue;
            }
            let command = legal.swap_remove(next(legal.len()));
            let version = if config.expected_version {
                prompts.version.map(Value::from)
            } else {
                None
            };
            let (status, answer) = self
                .send(table, &id, &tokens[who], command, version, deadline)
                .await?;
            // The answer says who must act now. Pick the next seat among them as before; when
            // it is the same seat, its legal commands are in the answer: no extra request.
            let next_turn = answer.and_then(|a| a.next);
            let now_waiting = next_turn
                .as_ref()
                .and_then(Turn::waiting)
                .unwrap_or_default();
            if status == 200 && !now_waiting.is_empty() {
                let previous = who;
                who = now_waiting[next(now_waiting.len())];
                if who == previous {
                    known = next_turn;
                }
            } else {
                who = waiting[next(waiting.len())];
            }
        }
        Some(())
    }

    /// `route` (a method and a path pattern naming `{id}`) of game `id` as the seat holding
    /// `token`, retried until `deadline`, the answer read by `parse`.
    async fn on_game<T>(
        &self,
        route: &'static str,
        id: &str,
        token: &str,
        body: Option<&Value>,
        parse: fn(&[u8]) -> T,
        deadline: Instant,
    ) -> Option<(u16, T)> {
        let (method, pattern) = route.split_once(' ')?;
        let path = pattern.replace("{id}", id);
        let request = Request {
            route,
            method,
            path: &path,
            token: Some(token),
            body,
        };
        self.call_retrying(&request, parse, deadline).await
    }

    /// The prompts of game `id` as the seat holding `token` reads them (None: not a 200).
    async fn prompts(&self, id: &str, token: &str, deadline: Instant) -> Option<Turn> {
        let route = "GET /v1/games/{id}/prompts";
        let (status, prompts) = self.on_game(route, id, token, None, turn, deadline).await?;
        if status == 200 { prompts } else { None }
    }

    /// Sends `command` (with `expected_version`, if any) to game `id` and counts the answer:
    /// its status and body.
    async fn send(
        &self,
        table: &Table,
        id: &str,
        token: &str,
        command: Value,
        expected_version: Option<Value>,
        deadline: Instant,
    ) -> Option<(u16, Option<Answer>)> {
        let command_id = uuid::Uuid::new_v4();
        let mut body = json!({"command_id": command_id, "command": command});
        if let Some(version) = expected_version {
            body["expected_version"] = version;
        }
        let route = "POST /v1/games/{id}/commands";
        let (status, answer) = self
            .on_game(route, id, token, Some(&body), answer, deadline)
            .await?;
        match status {
            200 => {
                let mut stats = self.stats.borrow_mut();
                stats.accepted += 1;
                stats.acknowledged.push(command_id);
                let kind = stats.by_kind.entry(table.kind).or_default();
                kind.accepted += 1;
                let version = answer.as_ref().and_then(|a| a.version);
                kind.max_version = kind.max_version.max(version.unwrap_or(0));
            }
            409 => self.stats.borrow_mut().conflicts += 1,
            _ => {}
        }
        Some((status, answer))
    }
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
        let mut bot = Bot::new(&client, &config.url, &stats);
        bot.debug = config.debug;
        let config = config.clone();
        let tables = tables.clone();
        tasks.push(actix_rt::spawn(async move {
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
                    actix_rt::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    let progress = actix_rt::spawn(progress(
        stats.clone(),
        started,
        config.json && !config.progress,
    ));
    for task in tasks {
        let _ = task.await;
    }
    progress.abort();
    eprintln!();
    let ended = Instant::now();
    let elapsed = (ended - started).as_secs_f64();
    let rss = server_rss(&client, config.url.trim_end_matches('/')).await;
    let s = stats.borrow();
    if let Some(path) = &config.ack_log {
        let lines: String = s.acknowledged.iter().map(|id| format!("{id}\n")).collect();
        if let Err(error) = std::fs::write(path, lines) {
            eprintln!("cannot write {}: {error}", path.display());
        }
    }
    Ok(report(
        &config,
        tables.len(),
        &s,
        elapsed,
        steady(&s, ended),
        rss,
    ))
}

/// Every second, the figures so far on stderr (unless `quiet`).
async fn progress(stats: Shared, started: Instant, quiet: bool) {
    let mut last = 0;
    loop {
        actix_rt::time::sleep(Duration::from_secs(1)).await;
        let s = stats.borrow();
        let elapsed = started.elapsed().as_secs_f64();
        if !quiet {
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
}

/// Seconds from the moment every lane had its first game set up to `ended`, and the commands
/// accepted in them: the steady state, without the set-up of the first games (pgbench's `tps`
/// likewise leaves out its clients' connection time). `None` if some lane never got a game.
fn steady(s: &Stats, ended: Instant) -> Option<(f64, u64)> {
    let (from, accepted_then) = s.all_playing?;
    let seconds = (ended - from).as_secs_f64();
    (seconds > 0.0).then(|| (seconds, s.accepted - accepted_then))
}

/// The run's report: throughput (over the whole run, and in the steady state), statuses,
/// latency per route, games per kind, RSS.
fn report(
    config: &LoadConfig,
    tables: usize,
    s: &Stats,
    elapsed: f64,
    steady: Option<(f64, u64)>,
    rss: Option<u64>,
) -> Value {
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
    json!({
        "url": config.url,
        "games": config.games,
        "tables": tables,
        "by_kind": by_kind,
        "duration_s": elapsed,
        "accepted_commands": s.accepted,
        "accepted_commands_per_s": s.accepted as f64 / elapsed,
        "steady_s": steady.map(|(seconds, _)| seconds),
        "steady_commands_per_s": steady.map(|(seconds, accepted)| accepted as f64 / seconds),
        "conflicts": s.conflicts,
        "games_finished": s.games_finished,
        "transport_errors": s.transport_errors,
        "statuses": s.statuses.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "routes": routes_report(s),
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
    if let (Some(rate), Some(seconds)) = (
        report["steady_commands_per_s"].as_f64(),
        report["steady_s"].as_f64(),
    ) {
        println!("steady state (the last {seconds:.1}s, every game set up): {rate:.0}/s");
    }
    println!("statuses: {}", report["statuses"]);
    if let Some(kinds) = report["by_kind"].as_object() {
        for (kind, k) in kinds {
            println!(
                "  {kind:<14} games started {}, finished {}; accepted commands {}; deepest version {}",
                k["games_started"], k["games_finished"], k["accepted_commands"], k["max_version"]
            );
        }
    }
    print_routes(&report["routes"]);
    match report["server_rss_bytes"].as_u64() {
        Some(rss) => println!("server RSS: {:.1} MB", rss as f64 / 1e6),
        None => println!("server RSS: unknown"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steady_state_counts_only_what_was_accepted_after_every_game_was_set_up() {
        let ended = Instant::now();
        let mut s = Stats {
            accepted: 900,
            ..Stats::default()
        };
        assert_eq!(steady(&s, ended), None, "a lane never got a game");
        s.all_playing = Some((ended - Duration::from_secs(2), 100));
        let (seconds, accepted) = steady(&s, ended).unwrap();
        assert!((seconds - 2.0).abs() < 1e-9);
        assert_eq!(accepted, 800);
    }
}
