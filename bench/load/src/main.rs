//! The `homestretch-load` command line (`homestretch-load help`).

use clap::{Args, Parser, Subcommand};

// The server's allocator: glibc's malloc and free were a fifth of the tool's CPU, and the tool
// shares the machine with the server it measures (issue 31).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use serde_json::Value;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Bot players, benchmarks and a flood against a running Homestretch server, over HTTP only.
/// Start the server with `HOMESTRETCH_LIMITS=off` for load runs (its limits would refuse them).
#[derive(Parser)]
#[command(name = "homestretch-load", version)]
struct Cli {
    /// The server.
    #[arg(
        long,
        global = true,
        env = "HOMESTRETCH_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    url: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bots play N games at once, each seat sending legal commands taken from its prompts;
    /// finished games are replaced. Every registered game, seat count and option sample is
    /// played in turn. Reports throughput, latency per route, statuses, games per kind.
    Play(PlayArgs),
    /// The tables `play` plays: kind, seat count, options (one a line).
    Tables {
        /// Only this game kind.
        #[arg(long)]
        kind: Option<String>,
        /// Only this seat count.
        #[arg(long)]
        seats: Option<u8>,
    },
    /// Reads/s of `GET /v1/games/{id}` (or its prompts) by concurrent clients; prints the
    /// reads/s, or with `--json` the latency, statuses and largest answer too.
    Reads {
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Seconds.
        #[arg(long, default_value_t = 10)]
        duration: u64,
        /// The route read.
        #[arg(long, value_enum, default_value_t = Route::Game)]
        route: Route,
        /// Started games the clients spread over.
        #[arg(long, default_value_t = 1)]
        games: usize,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// SSE fan-out: subscribers stream one game while moves are played; deliveries and lag.
    Sse {
        #[arg(long, default_value_t = 1000)]
        subscribers: usize,
        #[arg(long, default_value_t = 100)]
        moves: usize,
    },
    /// Replay over HTTP: a game past N events, then `GET /state?at=N` timed at random N.
    Replay {
        #[arg(long, default_value_t = 10_000)]
        events: u64,
        #[arg(long, default_value_t = 200)]
        samples: usize,
    },
    /// Memory: N games started, M moves played in each, the server's RSS before and after.
    Memory {
        #[arg(long, default_value_t = 1000)]
        games: usize,
        #[arg(long, default_value_t = 10)]
        moves: usize,
    },
    /// One IP floods the server while another measures its latency (docs/reliability.md).
    Flood(FloodArgs),
}

/// `reads --route`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Route {
    /// `GET /v1/games/{id}`.
    Game,
    /// `GET /v1/games/{id}/prompts`.
    Prompts,
}

#[derive(Args)]
struct PlayArgs {
    /// Games played at once.
    #[arg(long, default_value_t = 16)]
    games: usize,
    /// Seconds.
    #[arg(long, default_value_t = 30)]
    duration: u64,
    /// Only this game kind (default: every registered game).
    #[arg(long)]
    kind: Option<String>,
    /// Only this seat count (default: every seat count of each game).
    #[arg(long)]
    seats: Option<u8>,
    /// Send `expected_version` with every command (a lost race is then a 409).
    #[arg(long)]
    expected_version: bool,
    /// Write the id of every acknowledged command to this file, one a line (crash drills).
    #[arg(long, value_name = "FILE")]
    ack_log: Option<PathBuf>,
    /// Seat 1 of every game is this user (the other seats are guests).
    #[arg(long, value_name = "TOKEN")]
    host_token: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Print transport errors to stderr.
    #[arg(long, env = "HOMESTRETCH_LOAD_DEBUG")]
    debug: bool,
    /// Print progress every second, even with `--json`.
    #[arg(long, env = "HOMESTRETCH_LOAD_PROGRESS")]
    progress: bool,
}

#[derive(Args)]
struct FloodArgs {
    /// The flooding address.
    #[arg(long, default_value = "127.0.0.2")]
    from: IpAddr,
    /// The measuring client's address.
    #[arg(long, default_value = "127.0.0.1")]
    probe_from: IpAddr,
    /// Seconds.
    #[arg(long, default_value_t = 20)]
    duration: u64,
    /// Concurrent request loops.
    #[arg(long, default_value_t = 64)]
    workers: usize,
    /// Event streams to hold open.
    #[arg(long, default_value_t = 2000)]
    streams: usize,
    /// Idle connections to hold open.
    #[arg(long, default_value_t = 2000)]
    idle: usize,
    /// Bodies sent one byte every 0.5 s.
    #[arg(long, default_value_t = 200)]
    slow: usize,
    /// Only the flood (run the probe in another process).
    #[arg(long, conflicts_with = "probe_only")]
    no_probe: bool,
    /// Only the probe.
    #[arg(long)]
    probe_only: bool,
    /// Flood the heavy routes (audit, export, replay) of one long game instead (issue 26).
    #[arg(long)]
    heavy: bool,
    /// With `--heavy`: the game to flood (default: bots play one past `--events` first).
    #[arg(long, requires = "heavy")]
    game: Option<String>,
    /// With `--heavy`: how many events the game played first reaches.
    #[arg(long, default_value_t = 5000)]
    events: u64,
}

fn print_json(report: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(report).unwrap_or_default()
    );
}

#[actix_rt::main]
async fn main() {
    let cli = Cli::parse();
    let url = cli.url;
    match cli.command {
        Command::Play(a) => play(url, a).await,
        Command::Tables { kind, seats } => {
            match homestretch_load::tables::tables(kind.as_deref(), seats) {
                Ok(tables) => {
                    for t in tables {
                        println!("{} {} {}", t.kind, t.seats, t.options);
                    }
                }
                Err(e) => {
                    eprintln!("homestretch-load: {e}");
                    std::process::exit(2)
                }
            }
        }
        Command::Reads {
            clients,
            duration,
            route,
            games,
            json,
        } => {
            let route = match route {
                Route::Game => homestretch_load::bench::ReadRoute::Game,
                Route::Prompts => homestretch_load::bench::ReadRoute::Prompts,
            };
            let report = homestretch_load::bench::run_reads(
                &url,
                route,
                clients,
                games,
                Duration::from_secs(duration),
            )
            .await;
            match report {
                Some(report) if json => print_json(&report),
                Some(report) => homestretch_load::bench::print_reads(&report),
                None => failed("could not set up the read benchmark"),
            }
        }
        Command::Sse { subscribers, moves } => print_or_fail(
            homestretch_load::bench::run_sse(&url, subscribers, moves).await,
            "the SSE benchmark could not run",
        ),
        Command::Replay { events, samples } => print_or_fail(
            homestretch_load::bench::run_replay(&url, events, samples).await,
            "the replay benchmark could not run",
        ),
        Command::Memory { games, moves } => print_or_fail(
            homestretch_load::bench::run_memory(&url, games, moves).await,
            "the memory benchmark could not run",
        ),
        Command::Flood(a) => print_or_fail(
            homestretch_load::flood::run(flood_config(url, a)).await,
            "the flood could not set up its game",
        ),
    }
}

fn failed(what: &str) -> ! {
    eprintln!("homestretch-load: {what}");
    std::process::exit(1)
}

/// A benchmark's JSON report, or its failure (exit status 1).
fn print_or_fail(report: Option<Value>, what: &str) {
    match report {
        Some(report) => print_json(&report),
        None => failed(what),
    }
}

async fn play(url: String, a: PlayArgs) {
    let json = a.json;
    let config = homestretch_load::play::LoadConfig {
        url,
        games: a.games,
        duration: Duration::from_secs(a.duration),
        kind: a.kind,
        seats: a.seats,
        json: a.json,
        expected_version: a.expected_version,
        ack_log: a.ack_log,
        host_token: a.host_token,
        debug: a.debug,
        progress: a.progress,
    };
    match homestretch_load::play::run(config).await {
        Ok(report) if json => print_json(&report),
        Ok(report) => homestretch_load::play::print_human(&report),
        Err(e) => {
            eprintln!("homestretch-load: {e}");
            std::process::exit(2)
        }
    }
}

fn flood_config(url: String, a: FloodArgs) -> homestretch_load::flood::FloodConfig {
    homestretch_load::flood::FloodConfig {
        url,
        flood_from: a.from,
        probe_from: a.probe_from,
        duration: Duration::from_secs(a.duration),
        workers: a.workers,
        streams: a.streams,
        idle_connections: a.idle,
        slow_bodies: a.slow,
        flood: !a.probe_only,
        probe: !a.no_probe,
        heavy: a.heavy.then_some(homestretch_load::flood::HeavyFlood {
            game: a.game,
            events: a.events,
        }),
    }
}
