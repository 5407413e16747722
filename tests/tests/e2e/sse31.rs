//! Live updates to many subscribers (issue 31): a game's events are read once per append and
//! framed once per audience, then shared by every stream of that audience. Each subscriber
//! still gets every event it may see exactly once, in order, redacted for its own seat; a
//! subscriber that resumes with `Last-Event-ID` or falls behind catches up from the log.

use homestretch_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One message of a game's event stream: `id`, `event` and the `data` JSON.
#[derive(Debug, Clone, PartialEq)]
struct Message {
    id: u64,
    event: String,
    data: Value,
}

/// The messages complete in `buffer` (comments and the retry hint skipped); the rest stays.
fn messages_in(buffer: &mut String) -> Vec<Message> {
    let mut out = Vec::new();
    while let Some(end) = buffer.find("\n\n") {
        let block: String = buffer.drain(..end + 2).collect();
        let field = |name: &str| {
            block
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .map(str::to_string)
        };
        if let (Some(id), Some(event), Some(data)) =
            (field("id: "), field("event: "), field("data: "))
        {
            out.push(Message {
                id: id.parse().expect("numeric id"),
                event,
                data: serde_json::from_str(&data).expect("data is JSON"),
            });
        }
    }
    out
}

/// What a viewer may see of the log, as stream messages (`GET /events`: the same redaction).
async fn expected(app: &TestApp, game: &str, viewer: &Player) -> Vec<Message> {
    app.all_events(game, viewer)
        .await
        .into_iter()
        .map(|e| Message {
            id: e["seq"].as_u64().expect("seq"),
            event: e["type"].as_str().expect("type").to_string(),
            data: e,
        })
        .collect()
}

/// What each of `viewers` may see of the log.
async fn expected_by(app: &TestApp, game: &str, viewers: &[&Player]) -> Vec<Vec<Message>> {
    let mut all = Vec::new();
    for viewer in viewers {
        all.push(expected(app, game, viewer).await);
    }
    all
}

/// A client for many long streams: no connection limit, no timeout on a stream's body.
fn stream_client() -> awc::Client {
    awc::Client::builder()
        .connector(awc::Connector::new().limit(0))
        .disable_timeout()
        .finish()
}

/// An open event stream, read by a task of its own into `messages`.
struct Subscriber {
    viewer: usize,
    messages: Rc<RefCell<Vec<Message>>>,
    task: actix_web::rt::task::JoinHandle<()>,
}

impl Subscriber {
    async fn open(
        app: &TestApp,
        client: &awc::Client,
        game: &str,
        (viewer, player): (usize, &Player),
        last_event_id: Option<u64>,
    ) -> Subscriber {
        use futures_util::StreamExt;
        let mut request = client
            .get(app.url(&format!("/v1/games/{game}/events/stream")))
            .insert_header(("authorization", format!("Bearer {}", player.token)));
        if let Some(id) = last_event_id {
            request = request.insert_header(("last-event-id", id.to_string()));
        }
        let mut response = request.send().await.expect("stream opens");
        assert_eq!(response.status().as_u16(), 200);
        let messages = Rc::new(RefCell::new(Vec::new()));
        let sink = messages.clone();
        let task = actix_web::rt::spawn(async move {
            let mut buffer = String::new();
            while let Some(Ok(chunk)) = response.next().await {
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                sink.borrow_mut().extend(messages_in(&mut buffer));
            }
        });
        Subscriber {
            viewer,
            messages,
            task,
        }
    }

    fn received(&self) -> usize {
        self.messages.borrow().len()
    }
}

/// `count` subscribers of `game`, subscriber `s` reading as `viewers[viewer_of(s)]`.
async fn subscribe_many(
    app: &TestApp,
    client: &awc::Client,
    game: &str,
    viewers: &[&Player],
    count: usize,
    viewer_of: impl Fn(usize) -> usize,
) -> Vec<Subscriber> {
    let mut subscribers = Vec::new();
    for s in 0..count {
        let viewer = viewer_of(s);
        subscribers
            .push(Subscriber::open(app, client, game, (viewer, viewers[viewer]), None).await);
    }
    subscribers
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Waits (at most 30 s) until `done`; fails naming `what` otherwise.
async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until each subscriber holds as many messages as its viewer may see, then checks they
/// are exactly those (ids, types, data; in order; none twice, none missing).
async fn all_delivered(subscribers: &[Subscriber], expected: &[Vec<Message>]) {
    wait_for("every subscriber's messages", || {
        subscribers
            .iter()
            .all(|s| s.received() >= expected[s.viewer].len())
    })
    .await;
    for (i, s) in subscribers.iter().enumerate() {
        assert_eq!(
            *s.messages.borrow(),
            expected[s.viewer],
            "subscriber {i} (viewer {}) got another sequence than its GET /events",
            s.viewer
        );
    }
}

/// The value of an OpenMetrics sample line `name` (labels included), 0 when absent.
async fn metric(app: &TestApp, name: &str) -> u64 {
    let text = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics")
        .body()
        .await
        .expect("metrics body");
    let text = String::from_utf8_lossy(&text).to_string();
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0, |value| value.trim().parse().expect("a count"))
}

const FANOUT_READS: &str = "homestretch_sse_log_reads_total{by=\"fanout\"}";
const STREAM_READS: &str = "homestretch_sse_log_reads_total{by=\"stream\"}";
const SERIALIZED: &str = "homestretch_sse_events_serialized_total";

/// Three seated players (the host an admin: seeded games are admins') and `spectators`
/// signed-in users with no seat.
async fn people(app: &TestApp, spectators: usize) -> (Vec<Player>, Vec<Player>) {
    let mut seated = vec![app.admin("ailsa").await];
    for name in ["brodie", "callum"] {
        seated.push(app.register(name).await);
    }
    let mut others = Vec::new();
    for _ in 0..spectators {
        others.push(app.guest().await);
    }
    (seated, others)
}

/// `player` commits `amount` malt (private to its seat until every seat has chosen).
async fn malt_choice(app: &TestApp, game: &str, player: &Player, amount: u32) {
    let command = json!({"type": "submit_malt_choice", "amount": amount});
    app.command(game, player, command).await.ok();
}

/// Seat 1 commits 5 malt, seat 2 4: each commitment is private to its seat until the reveal.
async fn secret_malt_choices(app: &TestApp, game: &str, players: &[Player]) {
    malt_choice(app, game, &players[0], 5).await;
    malt_choice(app, game, &players[1], 4).await;
}

/// A server and a seeded Whisky Race it started for three seats, with `spectators` onlookers
/// and a client for the streams.
async fn race(
    spectators: usize,
    seed: &str,
) -> (TestApp, Vec<Player>, Vec<Player>, String, awc::Client) {
    let app = spawn_app().await;
    let (players, spectators) = people(&app, spectators).await;
    let game = app
        .started_game("whisky_race", &players, json!({}), Some(seed))
        .await;
    (app, players, spectators, game, stream_client())
}

/// 200 subscribers of one game — 60 streams of seat 1, 60 of seat 2, 80 of four spectators —
/// each get every event they may see once, in order, with their own redaction: while seat 1's
/// malt choice is secret, its amount and salt are in seat 1's streams only.
#[actix_web::test]
async fn two_hundred_subscribers_get_every_event_once_in_order_with_their_own_redaction() {
    let (app, players, spectators, game, client) = race(4, "sse31-many").await;
    // Viewer 0 is seat 1, 1 seat 2, 2..=5 the spectators.
    let viewers: Vec<&Player> = players[..2].iter().chain(&spectators).collect();
    let subscribers = subscribe_many(&app, &client, &game, &viewers, 200, |s| match s {
        0..60 => 0,
        60..120 => 1,
        _ => 2 + s % 4,
    })
    .await;
    secret_malt_choices(&app, &game, &players).await;
    // Seat 3's choice reveals them all; then the race goes on a while (not to its end: once
    // a game is over, every event is public and GET /events shows them all unredacted).
    malt_choice(&app, &game, &players[2], 3).await;
    app.play_randomly(&game, &players, 31, 12).await;
    assert_eq!(app.game(&game, &players[0]).await["status"], "active");
    let expected_by_viewer = expected_by(&app, &game, &viewers).await;
    all_delivered(&subscribers, &expected_by_viewer).await;

    // Seat 1's commitment: whole in its own streams, without amount or salt in the others'
    // until the reveal.
    let committed = |viewer: usize| {
        expected_by_viewer[viewer]
            .iter()
            .find(|m| m.event == "malt_committed" && m.data["data"]["seat"] == 1)
            .expect("seat 1's commitment")
            .clone()
    };
    let own = committed(0);
    assert_eq!(own.data["data"]["amount"], 5);
    let salt = own.data["data"]["salt"]
        .as_str()
        .expect("own salt")
        .to_string();
    let reveal = expected_by_viewer[1]
        .iter()
        .find(|m| m.id > own.id && m.data.to_string().contains(&salt))
        .expect("the reveal publishes the salt")
        .id;
    for s in subscribers.iter().filter(|s| s.viewer != 0) {
        for m in s.messages.borrow().iter().filter(|m| m.id < reveal) {
            assert!(
                !m.data.to_string().contains(&salt),
                "seat 1's salt leaked to viewer {} before the reveal: {m:?}",
                s.viewer
            );
        }
        let theirs = committed(s.viewer);
        assert!(theirs.data["data"]["amount"].is_null(), "{theirs:?}");
        assert_eq!(
            theirs.data["data"]["commitment"],
            own.data["data"]["commitment"]
        );
    }
}

/// A subscriber that drops its stream mid-game and reconnects with `Last-Event-ID` gets the
/// rest of the game exactly once and in order: what was sent while it was away (read from the
/// log), then the live events (from the fan-out, which other streams kept running).
#[actix_web::test]
async fn a_subscriber_resuming_with_last_event_id_mid_game_gets_the_rest_without_gap() {
    let (app, players, spectators, game, client) = race(1, "sse31-resume").await;
    let viewers = [&players[1], &spectators[0]];
    // One stream of each viewer stays open throughout: the game's fan-out keeps running.
    let staying = subscribe_many(&app, &client, &game, &viewers, 2, |s| s).await;
    let leaving = subscribe_many(&app, &client, &game, &viewers, 2, |s| s).await;
    secret_malt_choices(&app, &game, &players).await;
    let expected_by_viewer = expected_by(&app, &game, &viewers).await;
    all_delivered(&leaving, &expected_by_viewer).await;
    // Gone at the last message it got; the game goes on without it.
    let before: Vec<Vec<Message>> = leaving
        .iter()
        .map(|s| s.messages.borrow().clone())
        .collect();
    drop(leaving);
    malt_choice(&app, &game, &players[2], 3).await;
    app.play_randomly(&game, &players, 7, 4).await;
    let mut resumed = Vec::new();
    for (v, player) in viewers.iter().enumerate() {
        let last = before[v].last().expect("a message before leaving").id;
        resumed.push(Subscriber::open(&app, &client, &game, (v, player), Some(last)).await);
    }
    // And live again after the reconnection.
    app.play_randomly(&game, &players, 8, 6).await;
    assert_eq!(app.game(&game, &players[0]).await["status"], "active");
    let expected_by_viewer = expected_by(&app, &game, &viewers).await;
    let rest: Vec<Vec<Message>> = (0..viewers.len())
        .map(|v| expected_by_viewer[v][before[v].len()..].to_vec())
        .collect();
    assert!(
        rest.iter().all(|r| r.len() > 4),
        "events after the reconnection"
    );
    all_delivered(&resumed, &rest).await;
    all_delivered(&staying, &expected_by_viewer).await;
}

/// An event stream over a raw socket with a small receive window, read only when asked.
struct SlowSubscriber {
    socket: tokio::net::TcpStream,
    raw: Vec<u8>,
}

impl SlowSubscriber {
    async fn open(app: &TestApp, game: &str, player: &Player) -> SlowSubscriber {
        let address: std::net::SocketAddr =
            app.address.trim_start_matches("http://").parse().unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut socket = socket.connect(address).await.expect("connect");
        let request = format!(
            "GET /v1/games/{game}/events/stream HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {}\r\nAccept: text/event-stream\r\n\r\n",
            player.token
        );
        socket.write_all(request.as_bytes()).await.unwrap();
        SlowSubscriber {
            socket,
            raw: Vec::new(),
        }
    }

    /// Reads until the decoded body holds `count` messages (at most 30 s); them.
    async fn read(&mut self, count: usize) -> Vec<Message> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let messages = messages_in(&mut self.body());
            if messages.len() >= count {
                return messages;
            }
            let left = deadline
                .checked_duration_since(Instant::now())
                .expect("the slow subscriber's messages within 30 s");
            match tokio::time::timeout(left, self.socket.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => self.raw.extend_from_slice(&buf[..n]),
                other => panic!("the slow subscriber's stream ended: {other:?}"),
            }
        }
    }

    /// The body received so far, its chunked transfer coding undone.
    fn body(&self) -> String {
        let text = String::from_utf8_lossy(&self.raw);
        let Some((head, mut rest)) = text.split_once("\r\n\r\n") else {
            return String::new();
        };
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("transfer-encoding: chunked")
        );
        let mut body = String::new();
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).expect("chunk size");
            if after.len() < size + 2 {
                break;
            }
            body.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
        body
    }
}

/// A subscriber that does not read for 100 commands neither delays the others (each command's
/// events reach every other stream before the next command is sent) nor loses anything: once
/// it reads, it gets every event once, in order. (On loopback the server's socket buffer grows
/// to megabytes and holds all of it, so this stream never falls behind the broadcast itself;
/// what a stream that does so does — read the log — is the unit test
/// `sse_stream::tests::news_is_taken_and_a_stream_that_lagged_reads_the_log`.)
#[actix_web::test]
async fn a_slow_subscriber_neither_delays_the_others_nor_loses_events() {
    let (app, players, spectators, game, client) = race(1, "sse31-slow").await;
    let mut slow = SlowSubscriber::open(&app, &game, &spectators[0]).await;
    let viewers = [&spectators[0], &players[0]];
    let others = subscribe_many(&app, &client, &game, &viewers, 20, |s| s % 2).await;
    let mut commands = 0;
    while commands < 100 {
        let sent = app.play_randomly(&game, &players, commands as u64, 1).await;
        assert_eq!(sent, 1, "the game ended after {commands} commands");
        commands += 1;
        let expected_by_viewer = expected_by(&app, &game, &viewers).await;
        all_delivered(&others, &expected_by_viewer).await;
    }
    assert_eq!(app.game(&game, &players[0]).await["status"], "active");
    let expected_by_spectator = expected(&app, &game, &spectators[0]).await;
    let got = slow.read(expected_by_spectator.len()).await;
    assert_eq!(got, expected_by_spectator);
}

/// Live updates cost one read of the log per append, not one per subscriber, and each event
/// is serialized once per audience, not once per subscriber: counted by the server (its
/// metrics) and by PostgreSQL (scans of the events table).
#[actix_web::test]
async fn the_log_is_read_once_per_append_not_once_per_subscriber() {
    let (app, players, spectators, game, client) = race(2, "sse31-reads").await;
    let viewers: Vec<&Player> = players[..2].iter().chain(&spectators).collect();
    let subscribers =
        subscribe_many(&app, &client, &game, &viewers, 40, |s| s % viewers.len()).await;
    let expected_by_viewer = expected_by(&app, &game, &viewers).await;
    all_delivered(&subscribers, &expected_by_viewer).await;
    let (fanout, streams, serialized) = (
        metric(&app, FANOUT_READS).await,
        metric(&app, STREAM_READS).await,
        metric(&app, SERIALIZED).await,
    );
    let scans = settled_event_scans(&app).await;
    let head = app.game(&game, &players[0]).await["version"]
        .as_u64()
        .unwrap();

    let appends = 12;
    malt_choice(&app, &game, &players[0], 5).await;
    let played = app.play_randomly(&game, &players, 12, appends - 1).await + 1;
    assert_eq!(played, appends);
    let events = app.game(&game, &players[0]).await["version"]
        .as_u64()
        .unwrap()
        - head;
    let expected_by_viewer = expected_by(&app, &game, &viewers).await;
    all_delivered(&subscribers, &expected_by_viewer).await;
    let fanout = metric(&app, FANOUT_READS).await - fanout;
    let streams = metric(&app, STREAM_READS).await - streams;
    let serialized = metric(&app, SERIALIZED).await - serialized;
    // One read per append at most (appends heard together share one), none by a stream.
    assert!(
        (1..=appends as u64).contains(&fanout),
        "{fanout} fan-out reads for {appends} appends"
    );
    assert_eq!(streams, 0, "streams read the log themselves");
    // Four audiences (three seats, the spectators): at most four serializations per event.
    assert!(
        serialized <= 4 * events,
        "{serialized} serializations for {events} events and {} subscribers",
        subscribers.len()
    );
    // PostgreSQL's own count: the appends' reads and the fan-out's, not 40 per append (the
    // GET /events and /game reads of this test are in it too).
    let scans = settled_event_scans(&app).await - scans;
    assert!(
        scans < 10 * appends as u64,
        "{scans} scans of the events table for {appends} appends and {} subscribers",
        subscribers.len()
    );
}

/// Scans of the events table so far (sequential and by index), once PostgreSQL's statistics
/// have caught up with the server's connections (each reports at most once a second).
async fn settled_event_scans(app: &TestApp) -> u64 {
    let read = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT (coalesce(sum(seq_scan), 0) + coalesce(sum(idx_scan), 0))::bigint \
             FROM pg_stat_user_tables WHERE relname = 'events'",
        )
        .fetch_one(&app.pool)
        .await
        .expect("statistics") as u64
    };
    let mut last = read().await;
    loop {
        actix_web::rt::time::sleep(Duration::from_millis(1200)).await;
        let now = read().await;
        if now == last {
            return now;
        }
        last = now;
    }
}
