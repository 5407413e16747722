//! Issue 17, proved over real processes: deadlines are kept in PostgreSQL and fired exactly once
//! by whichever instance gets there first, when an instance is SIGKILLed while it fires them
//! and when the database goes away while they fall due. The servers are the real binary
//! (`homestretch serve`, run by `tests/src/process.rs`); the games, of all three kinds, have a
//! clock of one second per decision and nobody plays them, so each times out every second.

use homestretch_tests::Database;
use homestretch_tests::process::{Http, Server, ok};
use infra::deadlines::CLOCK_USER;
use serde_json::{Value, json};
use sqlx::PgPool;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use time::OffsetDateTime;
use uuid::Uuid;

/// The server binary: `api/src/main.rs`, built by cargo for these tests (tests/Cargo.toml).
const BINARY: &str = env!("CARGO_BIN_EXE_homestretch-e2e");
const KINDS: [&str; 3] = ["whisky_race", "bandits", "mush"];
/// Every decision times out this long after the event that asked for it.
const PER_DECISION_S: i64 = 1;
/// A game is settled when its deadline is no later than this (a healthy worker fires a due
/// deadline within one tick, 100 ms; a dead instance's claim waits out its 10 s lease).
const SETTLED_SLACK_S: f64 = 2.0;
/// How long the survivors may take to fire everything that is due (a lease and a margin).
const SETTLE_WITHIN: Duration = Duration::from_secs(60);

/// A folder of the test's own, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(what: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("homestretch-{what}-{}", Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A clocked game nobody plays, and its host's token.
struct Table {
    id: Uuid,
    kind: &'static str,
    host: String,
}

async fn guest(server: &Server) -> String {
    let body = ok(server.call("POST", "/v1/auth/guest", None, None).await);
    body["access_token"].as_str().expect("a token").to_string()
}

/// `per_kind` games of each kind at its smallest table, created, joined and started over HTTP
/// on `server`, with a one-second clock and no abandonment during the test.
async fn clocked_games(server: &Server, per_kind: usize) -> Vec<Table> {
    let mut tokens = Vec::new();
    let mut tables = Vec::new();
    for kind in KINDS {
        let seats = *domain::game(kind)
            .expect("a hosted game")
            .seat_range()
            .start();
        while tokens.len() < usize::from(seats) {
            tokens.push(guest(server).await);
        }
        for _ in 0..per_kind {
            let clock = json!({"per_decision_s": PER_DECISION_S, "abandon_after": 100});
            let create = json!({"kind": kind, "seats": seats, "options": {"clock": clock}});
            let created = ok(server
                .call("POST", "/v1/games", Some(&tokens[0]), Some(&create))
                .await);
            let id = created["id"].as_str().expect("game id").to_string();
            for token in &tokens[1..usize::from(seats)] {
                let join = format!("/v1/games/{id}/seats");
                ok(server
                    .call("POST", &join, Some(token), Some(&json!({})))
                    .await);
            }
            let start = format!("/v1/games/{id}/start");
            ok(server
                .call("POST", &start, Some(&tokens[0]), Some(&json!({})))
                .await);
            tables.push(Table {
                id: id.parse().expect("a uuid"),
                kind,
                host: tokens[0].clone(),
            });
        }
    }
    tables
}

/// One log entry, as stored.
struct Entry {
    kind: String,
    actor: Option<i16>,
    payload: Value,
    at: OffsetDateTime,
}

async fn log_of(pool: &PgPool, game: Uuid) -> Vec<Entry> {
    let rows: Vec<(i64, String, Option<i16>, Value, OffsetDateTime)> = sqlx::query_as(
        "SELECT seq, type, actor, payload, recorded_at FROM events WHERE game_id = $1 ORDER BY seq",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .expect("the log");
    rows.into_iter()
        .enumerate()
        .map(|(i, (seq, kind, actor, payload, at))| {
            assert_eq!(seq, i as i64 + 1, "{game}: the log has a gap");
            Entry {
                kind,
                actor,
                payload,
                at,
            }
        })
        .collect()
}

/// The commands of a game in log order: (sender, first_seq, last_seq).
async fn commands_of(pool: &PgPool, game: Uuid) -> Vec<(Uuid, i64, i64)> {
    sqlx::query_as(
        "SELECT user_id, first_seq, last_seq FROM commands WHERE game_id = $1 ORDER BY first_seq",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .expect("the commands")
}

fn deadline_of(entry: &Entry) -> OffsetDateTime {
    let text = entry.payload["deadline"].as_str().expect("a deadline");
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .expect("an RFC 3339 deadline")
}

/// Checks that every deadline of `table`'s game fired exactly once, never early; returns its
/// timeouts' log indexes. Nobody plays: after the host's start, every command is the clock's,
/// one timeout each; the commands tile the log (each at its own version, none twice, none
/// lost in between); each `seat_timed_out` names the deadline derived from the entry it counts
/// from (its `since`, issue 26; the entry before it in older games)
/// (so no deadline is fired twice), is recorded at or after it, and counts the seat's
/// timeouts in a row.
async fn fired_exactly_once(pool: &PgPool, table: &Table) -> Vec<usize> {
    let (kind, id) = (table.kind, table.id);
    let log = log_of(pool, id).await;
    let commands = commands_of(pool, id).await;
    let version: i64 = sqlx::query_scalar("SELECT version FROM games WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .expect("the game");
    assert_eq!(log.len() as i64, version, "{kind} {id}: head");
    let mut next = 1;
    for (i, &(user, first, last)) in commands.iter().enumerate() {
        assert_eq!(
            first, next,
            "{kind} {id}: command {i} does not follow the one before"
        );
        assert!(last >= first, "{kind} {id}: command {i} is empty");
        next = last + 1;
        if i == 0 {
            continue; // the host's start
        }
        assert_eq!(user, CLOCK_USER.0, "{kind} {id}: only the clock moves");
        let own = &log[(first - 1) as usize..last as usize];
        assert_eq!(own[0].kind, "seat_timed_out", "{kind} {id}: seq {first}");
        let timeouts = own.iter().filter(|e| e.kind == "seat_timed_out").count();
        assert_eq!(timeouts, 1, "{kind} {id}: one timeout per clock command");
    }
    assert_eq!(
        next - 1,
        version,
        "{kind} {id}: the commands end at the head"
    );
    let per_decision = time::Duration::seconds(PER_DECISION_S);
    let mut in_a_row: HashMap<u64, u64> = HashMap::new();
    let mut fired = Vec::new();
    for (i, entry) in log.iter().enumerate() {
        if entry.kind != "seat_timed_out" {
            continue;
        }
        let deadline = deadline_of(entry);
        // Clock version 2 (issue 26): a seat's deadline counts from the entry its own decision
        // began at, which the timeout names (`since`); before, from the entry before it.
        let since = entry.payload["since"].as_u64().map_or(i, |s| s as usize);
        assert!(
            since >= 1 && since <= i,
            "{kind} {id}: seq {} since {since}",
            i + 1
        );
        assert_eq!(
            deadline,
            log[since - 1].at + per_decision,
            "{kind} {id}: the timeout at seq {} is not the deadline of the entry it counts from",
            i + 1
        );
        assert!(
            entry.at >= deadline,
            "{kind} {id}: seq {} fired early",
            i + 1
        );
        let seat = entry.payload["seat"].as_u64().expect("a seat");
        assert_eq!(entry.actor.map(|a| a as u64), Some(seat), "{kind} {id}");
        let count = in_a_row.entry(seat).or_default();
        *count += 1;
        assert_eq!(
            entry.payload["in_a_row"].as_u64(),
            Some(*count),
            "{kind} {id}"
        );
        fired.push(i);
    }
    fired
}

/// Waits until nothing due is left unfired: every game is finished, or its deadline row is the
/// one of its current head (at most `head_at` + the decision time: a seat's decision may have
/// begun before the head, issue 26; never "no deadline") and not overdue. A deadline lost (never fired, or pushed to infinity) keeps this from happening.
async fn settle(pool: &PgPool, tables: &[Table]) {
    let ids: Vec<Uuid> = tables.iter().map(|t| t.id).collect();
    let started = Instant::now();
    loop {
        let unsettled: Vec<String> = sqlx::query_scalar(
            "SELECT concat_ws(' ', g.kind, g.id, g.status, 'version', g.version, 'deadline', \
                 d.version, d.head_at, d.due_at, 'leased until', d.leased_until) \
             FROM games g LEFT JOIN deadlines d ON d.game_id = g.id \
             WHERE g.id = ANY($1) AND NOT coalesce( \
                 (g.status = 'finished' AND d.game_id IS NULL) \
                 OR (g.status = 'active' AND d.version = g.version \
                     AND d.due_at <= d.head_at + make_interval(secs => $2) \
                     AND d.due_at > now() - make_interval(secs => $3)), false)",
        )
        .bind(&ids)
        .bind(PER_DECISION_S as f64)
        .bind(SETTLED_SLACK_S)
        .fetch_all(pool)
        .await
        .expect("the deadlines");
        if unsettled.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < SETTLE_WITHIN,
            "deadlines left unfired after {SETTLE_WITHIN:?}: {unsettled:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// An in-process server on the database at `url` without a clock worker: it reads and audits
/// the games once every server process is gone (so that no game moves under an audit).
async fn reader(url: &str) -> Http {
    let mut config = homestretch_tests::test_config();
    config.clocks = None;
    let pool = infra::db::connect(url, 4).await.expect("connect");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = format!("http://{}", api::app::local_addr(&listener));
    let state = api::app::app_state(pool, &config);
    actix_web::rt::spawn(api::app::serve(listener, state, &config).expect("serve"));
    Http::new(&address)
}

/// The server's audit of the game (chain, head, the rules and every timeout's deadline re-run
/// with its seed) is sound; so is what anyone can check of its export offline (the chain and
/// the head; the rules too once nothing in it is redacted).
async fn audit_is_sound(server: &Http, table: &Table) {
    let (kind, id) = (table.kind, table.id);
    let audit = ok(server
        .call(
            "GET",
            &format!("/v1/games/{id}/audit"),
            Some(&table.host),
            None,
        )
        .await);
    assert_eq!(audit["sound"], true, "{kind} {id}: {audit}");
    let export = ok(server
        .call(
            "GET",
            &format!("/v1/games/{id}/export"),
            Some(&table.host),
            None,
        )
        .await);
    let bundle: infra::audit::Bundle = serde_json::from_value(export).expect("a bundle");
    let report = infra::audit::verify_bundle(&bundle);
    for name in ["hash_chain", "head"] {
        let check = report.checks.iter().find(|c| c.name == name);
        assert!(
            check.is_some_and(|c| c.passed),
            "{kind} {id}: {name}: {report:?}"
        );
    }
    if bundle.events.iter().all(|e| !e.redacted) {
        assert!(report.sound, "{kind} {id}: {report:?}");
    } else {
        let failed: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.as_str())
            .collect();
        assert!(
            failed.iter().all(|&n| n == "rules"),
            "{kind} {id}: {report:?}"
        );
    }
}

/// A deadline an instance claimed and was killed while firing.
struct Orphan {
    game: Uuid,
    kind: &'static str,
    /// The version it was claimed at (its head then).
    version: i64,
    leased_until: OffsetDateTime,
    /// When its instance was killed: it had decided the timeout before.
    killed_at: OffsetDateTime,
}

/// Kills the instance that fires `table`'s next deadline, in the middle of it: the test holds
/// the game's row lock (which every append takes first), waits until an instance's append
/// waits on it — it has claimed the deadline and decided the timeout — and SIGKILLs that
/// process, then lets go of the lock and starts a new process in its place.
async fn kill_while_firing(pool: &PgPool, servers: &mut [Server], table: &Table) -> Orphan {
    let (kind, id) = (table.kind, table.id);
    let mut lock = pool.begin().await.expect("begin");
    let me: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut *lock)
        .await
        .expect("pid");
    sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
        .bind(id)
        .execute(&mut *lock)
        .await
        .expect("lock the game");
    let started = Instant::now();
    let firing: String = loop {
        let blocked: Option<String> = sqlx::query_scalar(
            "SELECT application_name FROM pg_stat_activity \
             WHERE $1 = ANY(pg_blocking_pids(pid)) AND application_name LIKE 'ghost-%' LIMIT 1",
        )
        .bind(me)
        .fetch_optional(pool)
        .await
        .expect("pg_stat_activity");
        if let Some(name) = blocked {
            break name;
        }
        // (Within a second, or a lease if an instance killed before held this game's claim.)
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{kind} {id}: no instance fired its deadline"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let (version, leased_until): (i64, Option<OffsetDateTime>) =
        sqlx::query_as("SELECT version, leased_until FROM deadlines WHERE game_id = $1")
            .bind(id)
            .fetch_one(pool)
            .await
            .expect("the deadline");
    let leased_until = leased_until.expect("the firing instance holds the deadline's lease");
    // The firing instance decided its timeout before this moment (its append is waiting).
    let killed_at: OffsetDateTime = sqlx::query_scalar("SELECT clock_timestamp()")
        .fetch_one(pool)
        .await
        .expect("now");
    let victim = servers
        .iter_mut()
        .find(|s| s.name == firing)
        .expect("one of ours");
    victim.kill();
    lock.rollback().await.expect("unlock");
    victim.restart().await;
    // While its lease runs, the dead instance's deadline is nobody else's: not the survivor's,
    // not the new process's. Its own append was already sent, as one autocommit statement
    // (issue 31): PostgreSQL finishes it once the lock is free although its client is gone, so
    // the game may move on by that one timeout, recorded before the lease ends — never by a
    // second one (`fired_exactly_once` below counts them).
    let (now_version, leased): (i64, bool) =
        sqlx::query_as("SELECT version, now() < $2 FROM games WHERE id = $1")
            .bind(id)
            .bind(leased_until)
            .fetch_one(pool)
            .await
            .expect("the game");
    if leased && now_version != version {
        let log = log_of(pool, id).await;
        let fired = log
            .get(version as usize)
            .expect("the entry after the claimed head");
        assert_eq!(
            fired.kind, "seat_timed_out",
            "{kind} {id}: moved during the lease"
        );
        assert!(
            fired.at < killed_at,
            "{kind} {id}: fired during the lease, not by its holder"
        );
    }
    Orphan {
        game: id,
        kind,
        version,
        leased_until,
        killed_at,
    }
}

/// Two server processes on one database share the clocked games of every kind. For each kind
/// an instance is SIGKILLed in the middle of firing one of its due deadlines (claimed, decided,
/// its append waiting); then each instance in turn is SIGKILLed at arbitrary moments; each is
/// restarted at once. In the end every deadline fired exactly once: the ones the dead held
/// after their lease ran out, by whichever process got there first, and nothing is left due.
#[actix_web::test]
async fn deadlines_fire_once_when_instances_are_killed_while_firing_them() {
    let db = Database::new().await;
    let scratch = Scratch::new("ghosts-kill");
    let binary = Path::new(BINARY);
    let mut servers = [
        Server::start(binary, "ghost-a", &db.url(), &scratch.0.join("a")).await,
        Server::start(binary, "ghost-b", &db.url(), &scratch.0.join("b")).await,
    ];
    let tables = clocked_games(&servers[0], 2).await;
    let mut orphans = Vec::new();
    for kind in KINDS {
        let table = tables.iter().find(|t| t.kind == kind).expect("a game");
        orphans.push(kill_while_firing(&db.pool, &mut servers, table).await);
    }
    // Kills at moments nobody chose: whatever each was doing (claiming, firing, idle).
    for (victim, pause_ms) in [(0, 370), (1, 820), (0, 90), (1, 550)] {
        tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        servers[victim].kill();
        servers[victim].restart().await;
    }
    // Each orphan fires once its lease has run out: wait for that entry, so that `settle`
    // (which allows a slack) cannot pass before it.
    let started = Instant::now();
    for orphan in &orphans {
        while log_of(&db.pool, orphan.game).await.len() <= orphan.version as usize {
            assert!(
                started.elapsed() < SETTLE_WITHIN,
                "{} {}: the dead instance's deadline never fired",
                orphan.kind,
                orphan.game
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    settle(&db.pool, &tables).await;
    for server in &mut servers {
        assert!(
            server.is_running(),
            "{} died:\n{}",
            server.name,
            server.log()
        );
        server.kill();
        assert!(!server.log().contains("panicked"), "{}", server.log());
    }
    let reader = reader(&db.url()).await;
    for table in &tables {
        audit_is_sound(&reader, table).await;
    }
    for table in &tables {
        let fired = fired_exactly_once(&db.pool, table).await;
        // (A game whose first deadline was a dead instance's claim may have timed out only
        // once by now: its lease held it for 10 s.)
        assert!(!fired.is_empty(), "{} {}: no timeout", table.kind, table.id);
    }
    for orphan in &orphans {
        let log = log_of(&db.pool, orphan.game).await;
        // The entry after the claimed head: the timeout the dead instance was firing, fired
        // once: by its own append, sent before the kill and finished by PostgreSQL (recorded
        // when it decided, within its lease), or else by another process once the lease had
        // run out — never by another process within it (nobody else may claim it then).
        let fired = log.get(orphan.version as usize).expect("fired");
        assert_eq!(
            fired.kind, "seat_timed_out",
            "{} {}",
            orphan.kind, orphan.game
        );
        assert!(
            fired.at < orphan.killed_at || fired.at >= orphan.leased_until,
            "{} {}: fired at {} within the dead instance's lease (until {}), not by it",
            orphan.kind,
            orphan.game,
            fired.at,
            orphan.leased_until
        );
    }
}

/// A private PostgreSQL cluster that the test stops and starts; stopped when dropped.
struct OwnCluster {
    root: PathBuf,
    cluster: infra::pg::Cluster,
}

impl OwnCluster {
    async fn start(root: PathBuf) -> OwnCluster {
        let at = root.clone();
        let cluster = tokio::task::spawn_blocking(move || infra::pg::Cluster::start(&at))
            .await
            .expect("join")
            .expect("start the cluster");
        OwnCluster { root, cluster }
    }

    async fn stop(&self) {
        let cluster = self.cluster.clone();
        tokio::task::spawn_blocking(move || cluster.stop())
            .await
            .expect("join")
            .expect("stop the cluster");
    }

    async fn restart(&mut self) {
        let at = self.root.clone();
        self.cluster = tokio::task::spawn_blocking(move || infra::pg::Cluster::start(&at))
            .await
            .expect("join")
            .expect("restart the cluster");
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = self.cluster.stop();
    }
}

/// One server process; its database (a cluster of the test's own) is stopped while every
/// game's deadline falls due, and started again. The server's clock worker recovers by itself
/// (the same process, never restarted): each deadline that fell due during the outage fires
/// once, after it, and nothing is written while the database is away.
#[actix_web::test]
async fn deadlines_due_during_a_database_outage_fire_once_when_it_is_back() {
    let scratch = Scratch::new("ghosts-outage");
    let mut cluster = OwnCluster::start(scratch.0.join("pg")).await;
    {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&cluster.cluster.url("postgres"))
            .await
            .expect("connect");
        sqlx::query("CREATE DATABASE ghosts")
            .execute(&mut conn)
            .await
            .expect("create the database");
    }
    let url = cluster.cluster.url("ghosts");
    let binary = Path::new(BINARY);
    let mut server = Server::start(binary, "ghost-solo", &url, &scratch.0.join("server")).await;
    let pid = server.pid();
    let tables = clocked_games(&server, 2).await;
    // The clock runs: wait until every game has timed out once.
    let pool = infra::db::connect(&url, 2).await.expect("connect");
    let started = Instant::now();
    for table in &tables {
        while !log_of(&pool, table.id)
            .await
            .iter()
            .any(|e| e.kind == "seat_timed_out")
        {
            assert!(started.elapsed() < Duration::from_secs(30), "no timeout");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    pool.close().await;

    cluster.stop().await;
    let down_at = OffsetDateTime::now_utc();
    // Longer than a decision: every game's pending deadline falls due while nothing can be
    // written.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let back_at = OffsetDateTime::now_utc();
    cluster.restart().await;

    let pool = infra::db::connect(&url, 2).await.expect("connect");
    // `settle` alone is not enough here: a deadline that fell due less than its slack before
    // the restart looks settled before it fires. Wait for each game's first entry after the
    // outage (its timeout, checked below) first.
    let started = Instant::now();
    for table in &tables {
        while !log_of(&pool, table.id)
            .await
            .iter()
            .any(|e| e.at >= back_at)
        {
            assert!(
                started.elapsed() < SETTLE_WITHIN,
                "{} {}: nothing fired after the outage",
                table.kind,
                table.id
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    settle(&pool, &tables).await;
    assert!(server.is_running(), "the server died:\n{}", server.log());
    assert_eq!(server.pid(), pid, "the same process all along");
    server.kill();
    assert!(!server.log().contains("panicked"), "{}", server.log());
    let reader = reader(&url).await;
    for table in &tables {
        audit_is_sound(&reader, table).await;
    }
    for table in &tables {
        let (kind, id) = (table.kind, table.id);
        let fired = fired_exactly_once(&pool, table).await;
        let log = log_of(&pool, id).await;
        assert!(
            log.iter().all(|e| e.at <= down_at || e.at >= back_at),
            "{kind} {id}: an entry recorded while the database was down"
        );
        let after = fired
            .iter()
            .find(|&&i| log[i].at >= back_at)
            .unwrap_or_else(|| panic!("{kind} {id}: no timeout after the outage"));
        let first_after = log.iter().position(|e| e.at >= back_at).expect("an entry");
        assert_eq!(
            *after, first_after,
            "{kind} {id}: the first entry after the outage is a timeout"
        );
        assert!(
            deadline_of(&log[*after]) < back_at,
            "{kind} {id}: its deadline fell due during the outage"
        );
    }
    pool.close().await;
}

/// The audit of a game the server keeps moving (the clock worker's bots, here) is sound every
/// time, and so are the chain and head of its export: an append landing while the server reads
/// the log is not "the head moved". (About half of these audits said unsound before the bundle
/// was cut at the head it was read with.)
#[actix_web::test]
async fn audits_of_a_game_moving_under_them_are_sound() {
    let app = homestretch_tests::spawn_app().await;
    let http = Http::new(&app.address);
    let ann = app.guest().await;
    let create = json!({"kind": "mush", "seats": 2});
    let created = ok(http
        .call("POST", "/v1/games", Some(&ann.token), Some(&create))
        .await);
    let id = created["id"].as_str().expect("game id").to_string();
    for (path, body) in [
        ("seats/bots", json!({"policy": "random"})),
        ("start", json!({})),
        // The host's seat passes to a bot too: bots alone, moving every few milliseconds.
        ("seats/me/resign", json!({})),
    ] {
        let path = format!("/v1/games/{id}/{path}");
        ok(http
            .call("POST", &path, Some(&ann.token), Some(&body))
            .await);
    }
    let table = Table {
        id: id.parse().expect("a uuid"),
        kind: "mush",
        host: ann.token.clone(),
    };
    let version = |game: Value| game["version"].as_u64().expect("a version");
    let before = version(app.game(&id, &ann).await);
    for _ in 0..40 {
        audit_is_sound(&http, &table).await;
    }
    let after = version(app.game(&id, &ann).await);
    assert!(
        after > before + 10,
        "the game moved under the audits: {before} → {after}"
    );
}
