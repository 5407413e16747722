//! The outbox drill (issue 26, item 3): the claim at 1,000,000 queued deliveries, and another
//! user's delivery while one user has a backlog of 1,000,000. Not a test: it prints figures
//! (`tests/drills/outbox.sh`; `docs/reliability.md` keeps the last ones).
//!
//! On a server that delivers nothing (the claim alone):
//! 2. the claim at 1,000,000 rows spread over 10,000 destinations (1,000 users, 10 webhooks of
//!    100 each): `EXPLAIN (ANALYZE, BUFFERS)` of the claim, then 200 claims of 32 timed one by
//!    one; 3a. the same at 1,000,000 rows of one user (10 webhooks of 100,000).
//!
//! On a server that delivers, to a loopback receiver:
//! 1. baseline: user B's `player_joined` webhook timed from the join's answer to its arrival,
//!    20 times, with an empty outbox; 3b. the same while user A's backlog of 1,000,000 (10
//!    webhooks of 100,000, each answered in 500 ms) is being delivered: the ratio of the two
//!    medians is the delay A's backlog causes B.

use actix_web::{HttpRequest, HttpResponse, web};
use homestretch_tests::{Player, TestApp, spawn_app_with};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Default)]
struct Receiver {
    /// Arrivals at `/b` (B's webhook).
    b: Arc<Mutex<Vec<Instant>>>,
    /// Requests at `/slow/…` (A's webhooks), answered after 500 ms.
    slow: Arc<Mutex<u64>>,
}

impl Receiver {
    fn start(&self) -> String {
        let this = self.clone();
        homestretch_tests::loopback::serve(2, move |req: HttpRequest, _body: web::Bytes| {
            let this = this.clone();
            async move {
                if req.path() == "/b" {
                    this.b.lock().unwrap().push(Instant::now());
                } else {
                    *this.slow.lock().unwrap() += 1;
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                HttpResponse::NoContent().finish()
            }
        })
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(mut ms: Vec<f64>) -> String {
    ms.sort_by(f64::total_cmp);
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (n = {})",
        percentile(&ms, 0.5),
        percentile(&ms, 0.99),
        ms[ms.len() - 1],
        ms.len()
    )
}

/// B's delivery latency, `n` times: from a join of B's lobby being sent until B's webhook
/// arrives (the join's own round trip included).
async fn b_latencies(
    app: &TestApp,
    receiver: &Receiver,
    b: &Player,
    joiner: &Player,
    n: usize,
) -> Vec<f64> {
    let lobby = app.lobby("whisky_race", 3, b).await;
    let mut out = Vec::new();
    for _ in 0..n {
        let before = receiver.b.lock().unwrap().len();
        // Timed from the join's sending: the delivery may arrive before the join's answer
        // does (B's deliveries are answered 204 at once, so each join brings one arrival).
        let sent = Instant::now();
        app.post(
            &format!("/v1/games/{lobby}/seats"),
            &joiner.token,
            &json!({}),
        )
        .await
        .ok();
        let arrived = loop {
            if let Some(at) = receiver.b.lock().unwrap().get(before).copied() {
                break at;
            }
            assert!(
                sent.elapsed() < Duration::from_secs(120),
                "B's delivery never came"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        out.push(arrived.duration_since(sent).as_secs_f64() * 1000.0);
        app.leave(&lobby, joiner).await;
    }
    out
}

/// Fills the outbox: `users` users with `per_user` webhooks each to `url_prefix`, each webhook
/// with `rows` deliveries waiting (due in the last hour, in random order).
async fn fill(
    app: &TestApp,
    users: i64,
    per_user: i64,
    rows: i64,
    url_prefix: &str,
) -> Vec<uuid::Uuid> {
    let started = Instant::now();
    // One transaction, as an enqueue is: a worker never sees a queue before its deliveries.
    let mut tx = app.pool.begin().await.unwrap();
    let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
        "INSERT INTO users (id, name, is_guest, name_key, name_shape) \
         SELECT id, 'drill-' || id, true, 'drill-' || id, 'drill-' || id \
           FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, $1)) u RETURNING id",
    )
    .bind(users)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "WITH w AS (INSERT INTO webhooks (id, user_id, url, secret) \
                    SELECT gen_random_uuid(), u, $3 || '/' || u || '/' || i, '0123456789abcdef' \
                      FROM unnest($1::uuid[]) u, generate_series(1, $2) i RETURNING id, user_id), \
              n AS (INSERT INTO notifications (id, user_id, seq, type, payload) \
                    SELECT gen_random_uuid(), u, 1, 'player_joined', '{\"type\":\"player_joined\"}' \
                      FROM unnest($1::uuid[]) u RETURNING id, user_id) \
         INSERT INTO outbox_queues (destination, user_id, queued, capacity, due_at) \
         SELECT w.id, w.user_id, $4, $4, now() - random() * interval '1 hour' FROM w",
    )
    .bind(&ids)
    .bind(per_user)
    .bind(url_prefix)
    .bind(rows as i32)
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO outbox (notification_id, destination) \
         SELECT n.id, q.destination FROM outbox_queues q \
           JOIN notifications n ON n.user_id = q.user_id, generate_series(1, q.queued) \
          WHERE q.user_id = ANY($1)",
    )
    .bind(&ids)
    .execute(&mut *tx)
    .await
    .unwrap();
    // Statistics with the rows, before any claim can plan against an empty table's.
    sqlx::query("ANALYZE outbox, outbox_queues, notifications, webhooks")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let total: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    println!(
        "filled: {users} users × {per_user} webhooks × {rows} deliveries; outbox {total} rows ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    ids
}

/// `EXPLAIN (ANALYZE, BUFFERS)` of the claim (it claims: run inside a rolled-back transaction),
/// then `n` claims timed one by one (each leases 32 destinations for an hour).
async fn measure_claim(app: &TestApp, n: usize) {
    let mut tx = app.pool.begin().await.unwrap();
    let explain = format!("EXPLAIN (ANALYZE, BUFFERS) {}", infra::outbox::CLAIM_SQL);
    let lines: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(explain))
        .bind(32i64)
        .bind(3_600_000i64)
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    for line in lines.iter().filter(|l| {
        l.contains("Execution Time")
            || l.contains("Planning Time")
            || l.contains("Index")
            || l.contains("Seq Scan")
    }) {
        println!("  plan: {}", line.trim());
    }
    let outbox = infra::outbox::Outbox::new(app.pool.clone());
    let mut ms = Vec::new();
    let mut claimed = 0;
    for _ in 0..n {
        let started = Instant::now();
        claimed += outbox
            .claim(32, Duration::from_secs(3600))
            .await
            .unwrap()
            .len();
        ms.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "  {n} claims of 32 ({claimed} deliveries claimed), client-timed: {}",
        summary(ms)
    );
    // Give the leases back.
    sqlx::query(
        "UPDATE outbox_queues SET due_at = now() - random() * interval '1 hour' WHERE queued > 0",
    )
    .execute(&app.pool)
    .await
    .unwrap();
}

#[actix_web::main]
async fn main() {
    let receiver = Receiver::default();
    let base = receiver.start();
    if std::env::var_os("OUTBOX_DRILL_DELIVERY_ONLY").is_none() {
        claims().await;
    }
    deliveries(&receiver, &base).await;
}

/// Phases 2 and 3a: the claim alone, on a server that delivers nothing (its own database).
async fn claims() {
    let quiet = spawn_app_with(|config| config.notify.deliver = false).await;
    println!("2. the claim, 1,000,000 deliveries for 10,000 destinations of 1,000 users");
    fill(&quiet, 1000, 10, 100, "http://127.0.0.1:9").await;
    measure_claim(&quiet, 200).await;
    sqlx::query("TRUNCATE outbox, outbox_queues")
        .execute(&quiet.pool)
        .await
        .unwrap();
    println!("3a. the claim, 1,000,000 deliveries for one user's 10 destinations");
    fill(&quiet, 1, 10, 100_000, "http://127.0.0.1:9").await;
    measure_claim(&quiet, 10).await;
}

/// Phases 1 and 3b: B's deliveries, on a server that delivers.
async fn deliveries(receiver: &Receiver, base: &str) {
    let app = spawn_app_with(|_| {}).await;
    let (b, joiner) = (app.register("bea").await, app.register("joiner").await);
    let hook = app
        .post(
            "/v1/me/webhooks",
            &b.token,
            &json!({"url": format!("{base}/b"), "secret": "0123456789abcdef"}),
        )
        .await;
    assert_eq!(hook.status, 201, "{}", hook.text);
    println!("1. baseline: B's delivery, empty outbox");
    let baseline = b_latencies(&app, receiver, &b, &joiner, 20).await;
    let base_p50 = p50(&baseline);
    println!("  {}", summary(baseline));
    println!(
        "3b. B's delivery while one user's 1,000,000 deliveries go out (10 webhooks, 500 ms each)"
    );
    fill(&app, 1, 10, 100_000, &format!("{base}/slow")).await;
    // Measured once A's deliveries are going out (the worker finds them at its next poll).
    let flowing = Instant::now();
    while *receiver.slow.lock().unwrap() < 10 {
        assert!(
            flowing.elapsed() < Duration::from_secs(60),
            "A's deliveries never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let under = b_latencies(&app, receiver, &b, &joiner, 20).await;
    let under_p50 = p50(&under);
    println!("  {}", summary(under));
    // A's backlog keeps going out meanwhile: 10 at a time, 500 ms each.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (left, attempts): (i64, Option<i64>) =
        sqlx::query_as("SELECT count(*), sum(attempts) FROM outbox")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    println!(
        "  A's deliveries answered meanwhile: {}, {left} still queued ({attempts:?} attempts); \
         B's p50 / baseline p50 = {:.2}; B's webhook received {} deliveries for 40 joins",
        receiver.slow.lock().unwrap(),
        under_p50 / base_p50,
        receiver.b.lock().unwrap().len()
    );
}

fn p50(ms: &[f64]) -> f64 {
    let mut s = ms.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 0.5)
}
