//! Issue 26, item 1: lobby transitions racing each other over real HTTP. Every transition
//! (join, join by code, leave, cancel, start, add a bot, rematch, expiry) takes the game's row
//! lock in PostgreSQL and reads the seats in its own transaction, so whatever order two of them
//! land in, the stored seats, the started state's seats and what every instance shows (its
//! cache, or a fresh instance reading the database) agree, and each seat has one owner.

use api::application::Services;
use homestretch_tests::test_game::registry_with_countdown;
use homestretch_tests::{Answer, Player, TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;
use uuid::Uuid;

/// The stored game: status, seat count, version and the seats (seat → user id).
struct Stored {
    status: String,
    seat_count: u8,
    version: i64,
    seats: BTreeMap<u8, String>,
}

async fn stored(app: &TestApp, id: &str) -> Stored {
    let id = Uuid::parse_str(id).expect("a game id");
    let (status, seat_count, version): (String, i16, i64) =
        sqlx::query_as("SELECT status, seat_count, version FROM games WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("the game row");
    let rows: Vec<(i16, Uuid)> =
        sqlx::query_as("SELECT seat, user_id FROM game_seats WHERE game_id = $1 ORDER BY seat")
            .bind(id)
            .fetch_all(&app.pool)
            .await
            .expect("the seats");
    Stored {
        status,
        seat_count: seat_count as u8,
        version,
        seats: rows
            .into_iter()
            .map(|(seat, user)| (seat as u8, user.to_string()))
            .collect(),
    }
}

/// The seats an answer's game summary shows (seat → user id).
fn shown_seats(summary: &Value) -> BTreeMap<u8, String> {
    summary["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| {
            (
                s["seat"].as_u64().expect("seat") as u8,
                s["user"]["id"].as_str().expect("user id").to_string(),
            )
        })
        .collect()
}

/// How many seats the started state has, as its public view shows them.
fn state_seats(kind: &str, view: &Value) -> usize {
    let list = match kind {
        "bandits" => &view["hands"],
        "countdown" => &view["steps"],
        other => panic!("no seat count for {other}"),
    };
    list.as_array().expect("a seat list").len()
}

/// The database, the serving instance (its cache) and a fresh instance agree on game `id`'s
/// seats: numbered 1..n, one owner each, all of them taken once started, the started state
/// has as many; each of `people` is shown their own seat (or none) and only their own hand,
/// and is offered commands exactly when a prompt names their seat.
async fn check_seats(app: &TestApp, id: &str, kind: &str, people: &[&Player]) -> Stored {
    let game = stored(app, id).await;
    let numbers: Vec<u8> = game.seats.keys().copied().collect();
    let expected: Vec<u8> = (1..=game.seats.len() as u8).collect();
    assert_eq!(numbers, expected, "{id}: seats not numbered 1..n");
    assert!(game.seats.len() <= usize::from(game.seat_count), "{id}");
    let started = game.status == "active" || game.status == "finished";
    if started {
        assert_eq!(
            game.seats.len(),
            usize::from(game.seat_count),
            "{id}: started with a seat row missing"
        );
    } else {
        assert_eq!(game.version, 0, "{id}: a {} game has a log", game.status);
    }
    let restarted = Services::new(
        infra::store::Store::new(app.pool.clone()),
        registry_with_countdown(),
    )
    .reads;
    for person in people {
        let mine = game
            .seats
            .iter()
            .find(|(_, user)| **user == person.id)
            .map(|(seat, _)| *seat);
        let read = app.game(id, person).await;
        assert_eq!(shown_seats(&read), game.seats, "{id}: the cache's seats");
        assert_eq!(read["status"], game.status.as_str(), "{id}");
        assert_eq!(read["your_seat"].as_u64(), mine.map(u64::from), "{id}");
        let user = infra::UserId(Uuid::parse_str(&person.id).expect("a user id"));
        let fresh = restarted
            .detail(id.parse().expect("a game id"), user)
            .await
            .expect("a fresh instance reads the game");
        let fresh_seats: BTreeMap<u8, String> = fresh
            .seats
            .iter()
            .map(|s| (s.seat, s.user_id.0.to_string()))
            .collect();
        assert_eq!(fresh_seats, game.seats, "{id}: a fresh instance's seats");
        if !started {
            continue;
        }
        let view = &read["view"];
        assert_eq!(
            state_seats(kind, view),
            game.seats.len(),
            "{id}: state seats"
        );
        if kind == "bandits" {
            for hand in view["hands"].as_array().expect("hands") {
                let shown = !hand["cards"].is_null();
                assert_eq!(
                    shown,
                    hand["seat"].as_u64() == mine.map(u64::from),
                    "{id}: {} sees seat {}'s hand",
                    person.name,
                    hand["seat"]
                );
            }
        }
        if game.status == "active" {
            let prompts = app
                .get(&format!("/v1/games/{id}/prompts"), &person.token)
                .await
                .ok();
            let named = prompts["prompts"]
                .as_array()
                .expect("prompts")
                .iter()
                .any(|p| p["seat"].as_u64().is_some() && p["seat"].as_u64() == mine.map(u64::from));
            let offered = !prompts["choices"].as_array().expect("choices").is_empty();
            assert_eq!(offered, named, "{id}: {}'s choices", person.name);
        }
    }
    game
}

/// A 4-seat Bandits lobby hosted by `people[0]`, the others seated in order; its id.
async fn bandits_lobby(app: &TestApp, people: &[&Player]) -> String {
    let id = app.lobby("bandits", 4, people[0]).await;
    for p in &people[1..] {
        app.post(&format!("/v1/games/{id}/seats"), &p.token, &json!({}))
            .await
            .ok();
    }
    id
}

async fn delete(app: &TestApp, path: &str, player: &Player) -> Answer {
    app.request("DELETE", path, Some(&player.token), None, &[])
        .await
}

/// Never a 5xx; a refusal is problem+json.
#[track_caller]
fn sane(what: &str, answer: &Answer) {
    assert!(
        answer.status < 500,
        "{what}: {} {}",
        answer.status,
        answer.text
    );
    if answer.status >= 400 {
        assert!(
            answer.content_type.starts_with("application/problem+json"),
            "{what}: {}",
            answer.text
        );
    }
}

/// The first reproduction of issue 26: X leaves while the host starts. Once the game started
/// with four seats in its state, X had lost his seat row, the cache still showed him in seat 2,
/// and the first clock firing (or a restart) moved Y into V's seat, with V's hand.
#[actix_web::test]
async fn a_leave_racing_the_start_never_hands_a_seat_to_another() {
    let app = spawn_app().await;
    let (host, x, v, y) = (
        app.guest().await,
        app.guest().await,
        app.guest().await,
        app.guest().await,
    );
    let people = [&host, &x, &v, &y];
    let (mut started, mut left) = (0, 0);
    for _ in 0..24 {
        let id = bandits_lobby(&app, &people).await;
        let (seats_me, begin, empty) = (
            format!("/v1/games/{id}/seats/me"),
            format!("/v1/games/{id}/start"),
            json!({}),
        );
        let (leave, start) = tokio::join!(
            delete(&app, &seats_me, &x),
            app.post(&begin, &host.token, &empty),
        );
        sane("leave", &leave);
        sane("start", &start);
        let game = check_seats(&app, &id, "bandits", &people).await;
        // One of them lands first; the other is refused.
        assert_ne!(
            leave.status == 204,
            start.status == 200,
            "{id}: leave {} and start {}",
            leave.status,
            start.status
        );
        if start.status == 200 {
            started += 1;
            assert_eq!(game.status, "active");
            assert_eq!(game.seats.get(&2), Some(&x.id), "{id}");
        } else {
            left += 1;
            assert_eq!(game.status, "lobby");
            assert!(!game.seats.values().any(|u| *u == x.id), "{id}");
        }
    }
    println!("started first {started}, left first {left}");
}

/// The second reproduction: a cancel racing the start answered 204 and the game went active
/// anyway. Now one of them wins, and the game says which.
#[actix_web::test]
async fn a_cancel_racing_the_start_wins_or_loses_and_the_game_says_so() {
    let app = spawn_app().await;
    let (host, x, v, y) = (
        app.guest().await,
        app.guest().await,
        app.guest().await,
        app.guest().await,
    );
    let people = [&host, &x, &v, &y];
    let mut cancelled = Vec::new();
    for _ in 0..24 {
        let id = bandits_lobby(&app, &people).await;
        let (game_path, begin, empty) = (
            format!("/v1/games/{id}"),
            format!("/v1/games/{id}/start"),
            json!({}),
        );
        let (cancel, start) = tokio::join!(
            delete(&app, &game_path, &host),
            app.post(&begin, &host.token, &empty),
        );
        sane("cancel", &cancel);
        sane("start", &start);
        let game = check_seats(&app, &id, "bandits", &people).await;
        assert_ne!(
            cancel.status == 204,
            start.status == 200,
            "{id}: cancel {} and start {}",
            cancel.status,
            start.status
        );
        let expected = if start.status == 200 {
            "active"
        } else {
            cancelled.push(id.clone());
            "cancelled"
        };
        assert_eq!(game.status, expected, "{id}");
    }
    // The database itself refuses a log (or a reopening) to a closed lobby, whatever instance,
    // of whatever version, would write it.
    let closed = cancelled.first().expect("a cancel won at least once");
    let refused = sqlx::query("UPDATE games SET version = 1, status = 'active' WHERE id = $1")
        .bind(Uuid::parse_str(closed).unwrap())
        .execute(&app.pool)
        .await
        .expect_err("a cancelled lobby never starts");
    assert!(refused.to_string().contains("closed lobby"), "{refused}");
}

/// Found by the race test below: leaving moved the later seats down with one
/// `UPDATE … SET seat = seat - 1`, which breaks the primary key (a 500) when the update reaches
/// a later seat's row before the one below it, as a scan in table order does once rows have
/// moved (busy tables, bitmap or sequential scans). Here seat 3's row is rewritten (a new row
/// version, after seat 4's), and the leave goes through a second instance whose sessions scan
/// tables in their order (index scans off for this database).
#[actix_web::test]
async fn a_leave_moves_later_seats_down_whatever_order_their_rows_lie_in() {
    let app = spawn_app().await;
    let (host, x, v, y) = (
        app.guest().await,
        app.guest().await,
        app.guest().await,
        app.guest().await,
    );
    let people = [&host, &x, &v, &y];
    let id = bandits_lobby(&app, &people).await;
    sqlx::query("UPDATE game_seats SET client_seed = client_seed WHERE game_id = $1 AND seat = 3")
        .bind(Uuid::parse_str(&id).unwrap())
        .execute(&app.pool)
        .await
        .unwrap();
    for setting in [
        "enable_indexscan",
        "enable_bitmapscan",
        "enable_indexonlyscan",
    ] {
        let sql = format!("ALTER DATABASE {} SET {setting} = off", app.database);
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&app.pool)
            .await
            .unwrap();
    }
    let url = homestretch_tests::database_url(&app.database);
    let pool = infra::db::connect(&url, 2).await.expect("connect");
    let config = homestretch_tests::test_config();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let state = api::app::app_state(pool, &config);
    actix_web::rt::spawn(api::app::serve(listener, state, &config).unwrap());
    let left = awc::Client::default()
        .delete(format!("{address}/v1/games/{id}/seats/me"))
        .bearer_auth(&x.token)
        .send()
        .await
        .unwrap();
    assert_eq!(left.status().as_u16(), 204);
    let game = check_seats(&app, &id, "bandits", &people).await;
    let order: Vec<&String> = game.seats.values().collect();
    assert_eq!(order, [&host.id, &v.id, &y.id]);
}

/// The lobby transitions of issue 26.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Move {
    Join,
    JoinCode,
    Leave,
    Cancel,
    Start,
    AddBot,
    Expire,
    Rematch,
}

const MOVES: [Move; 8] = [
    Move::Join,
    Move::JoinCode,
    Move::Leave,
    Move::Cancel,
    Move::Start,
    Move::AddBot,
    Move::Expire,
    Move::Rematch,
];

/// Who plays the race: the host, three members, two joiners by id and two by code; for a
/// rematch, the finished game's two players and a third person.
struct Cast {
    host: Player,
    members: [Player; 3],
    joiners: [Player; 2],
    coders: [Player; 2],
    rematch: [Player; 3],
}

/// The lobby a race runs on.
struct Lobby {
    id: String,
    kind: &'static str,
    code: String,
    host: Player,
    /// Who leaves (the first and the second leave of a pair).
    leavers: [Player; 2],
    /// Everyone whose view is checked.
    people: Vec<Player>,
    /// Seats taken before the race.
    seated: usize,
}

/// What a transition answered: its status (the expiry: 200 when it expired the lobby, 204 when
/// it found nothing to expire), and who it was for.
struct Fired {
    what: Move,
    status: u16,
    by: Player,
    /// The game a rematch answered.
    game: Option<String>,
}

fn needs_free_seat(a: Move, b: Move) -> bool {
    [a, b]
        .iter()
        .any(|m| matches!(m, Move::Join | Move::JoinCode | Move::AddBot))
}

impl Cast {
    async fn new(app: &TestApp) -> Cast {
        let mut guests = Vec::new();
        for _ in 0..11 {
            guests.push(app.guest().await);
        }
        let mut g = guests.into_iter();
        let mut next = || g.next().expect("a guest");
        Cast {
            host: next(),
            members: [next(), next(), next()],
            joiners: [next(), next()],
            coders: [next(), next()],
            rematch: [next(), next(), next()],
        }
    }

    /// A 4-seat Bandits lobby: the host and two members, and a third member unless a seat
    /// must stay free for a join or a bot.
    async fn bandits(&self, app: &TestApp, free_seat: bool) -> Lobby {
        let [x, v, y] = &self.members;
        let seated: Vec<&Player> = if free_seat {
            vec![&self.host, x, v]
        } else {
            vec![&self.host, x, v, y]
        };
        let id = bandits_lobby(app, &seated).await;
        let mut people = vec![self.host.clone(), x.clone(), v.clone(), y.clone()];
        people.extend(self.joiners.iter().cloned());
        people.extend(self.coders.iter().cloned());
        Lobby {
            code: code_of(app, &id, &self.host).await,
            id,
            kind: "bandits",
            host: self.host.clone(),
            leavers: [x.clone(), v.clone()],
            people,
            seated: seated.len(),
        }
    }

    /// A finished 2-seat `countdown` game of the rematch players `a` and `b` (`a` wins in one
    /// step); its id.
    async fn finished(&self, app: &TestApp) -> String {
        let [a, b, _] = &self.rematch;
        let id = app
            .started_game(
                "countdown",
                &[a.clone(), b.clone()],
                json!({"target": 1}),
                None,
            )
            .await;
        app.command(&id, a, json!({"type": "step"})).await.ok();
        id
    }

    /// The rematch lobby of a finished game, opened by `a`: `a` alone, or with `c` too unless a
    /// seat must stay free. Returns the finished game and the lobby.
    async fn rematch(&self, app: &TestApp, free_seat: bool) -> (String, Lobby) {
        let [a, b, c] = &self.rematch;
        let finished = self.finished(app).await;
        let opened = app
            .post(
                &format!("/v1/games/{finished}/rematch"),
                &a.token,
                &json!({}),
            )
            .await
            .ok();
        let id = opened["id"].as_str().expect("the rematch").to_string();
        if !free_seat {
            app.post(&format!("/v1/games/{id}/seats"), &c.token, &json!({}))
                .await
                .ok();
        }
        let mut people = vec![a.clone(), b.clone(), c.clone()];
        people.extend(self.joiners.iter().cloned());
        people.extend(self.coders.iter().cloned());
        let lobby = Lobby {
            code: code_of(app, &id, a).await,
            id,
            kind: "countdown",
            host: a.clone(),
            leavers: [c.clone(), c.clone()],
            people,
            seated: if free_seat { 1 } else { 2 },
        };
        (finished, lobby)
    }
}

async fn code_of(app: &TestApp, id: &str, seated: &Player) -> String {
    app.game(id, seated).await["join_code"]
        .as_str()
        .expect("a seated player sees the code")
        .to_string()
}

/// Ages a lobby past the TTL the race's expiry uses.
async fn age(app: &TestApp, id: &str) {
    sqlx::query("UPDATE games SET created_at = now() - interval '2 hours' WHERE id = $1")
        .bind(Uuid::parse_str(id).expect("a game id"))
        .execute(&app.pool)
        .await
        .expect("aged");
}

/// Fires one transition (`nth`: the first or the second of its kind in the pair).
async fn fire(
    app: &TestApp,
    cast: &Cast,
    lobby: &Lobby,
    finished: Option<&str>,
    what: Move,
    nth: usize,
) -> Fired {
    let id = &lobby.id;
    let host = &lobby.host;
    let (by, answer) = match what {
        Move::Join => {
            let by = &cast.joiners[nth];
            let path = format!("/v1/games/{id}/seats");
            (by, app.post(&path, &by.token, &json!({})).await)
        }
        Move::JoinCode => {
            let by = &cast.coders[nth];
            let body = json!({"code": lobby.code});
            (by, app.post("/v1/games/join", &by.token, &body).await)
        }
        Move::Leave => {
            let by = &lobby.leavers[nth];
            let path = format!("/v1/games/{id}/seats/me");
            (by, delete(app, &path, by).await)
        }
        Move::Cancel => (host, delete(app, &format!("/v1/games/{id}"), host).await),
        Move::Start => {
            let path = format!("/v1/games/{id}/start");
            (host, app.post(&path, &host.token, &json!({})).await)
        }
        Move::AddBot => {
            let path = format!("/v1/games/{id}/seats/bots");
            let body = json!({"policy": "random"});
            (host, app.post(&path, &host.token, &body).await)
        }
        Move::Expire => {
            // What the clock worker runs (`HOMESTRETCH_LOBBY_TTL`); only the aged lobby is due.
            let store = infra::store::Store::new(app.pool.clone());
            let expired = store
                .expire_lobbies(Duration::from_secs(3600))
                .await
                .expect("expiry");
            let status = if expired > 0 { 200 } else { 204 };
            return Fired {
                what,
                status,
                by: host.clone(),
                game: None,
            };
        }
        Move::Rematch => {
            // The finished game's other player presses rematch (the first press opened it).
            let by = &cast.rematch[1 - nth.min(1)];
            let finished = finished.expect("a finished game");
            let path = format!("/v1/games/{finished}/rematch");
            (by, app.post(&path, &by.token, &json!({})).await)
        }
    };
    sane(&format!("{what:?}"), &answer);
    Fired {
        what,
        status: answer.status,
        by: by.clone(),
        game: answer.body["id"].as_str().map(String::from),
    }
}

fn won(fired: &Fired) -> bool {
    match fired.what {
        Move::Expire => fired.status == 200,
        Move::Rematch => false,
        _ => (200..300).contains(&fired.status),
    }
}

/// One race: `a` and `b` at once on a fresh lobby; then every check.
async fn race(app: &TestApp, cast: &Cast, a: Move, b: Move) {
    let free_seat = needs_free_seat(a, b);
    let (finished, lobby) = if a == Move::Rematch && b == Move::Rematch {
        // Both players press rematch on a game that has none yet.
        let finished = cast.finished(app).await;
        let [p, q, _] = &cast.rematch;
        let path = format!("/v1/games/{finished}/rematch");
        let empty = json!({});
        let (one, two) = tokio::join!(
            app.post(&path, &p.token, &empty),
            app.post(&path, &q.token, &empty),
        );
        sane("rematch", &one);
        sane("rematch", &two);
        let mut statuses = [one.status, two.status];
        statuses.sort();
        assert_eq!(statuses, [200, 201], "one rematch opens the lobby");
        assert_eq!(one.body["id"], two.body["id"], "one lobby for both");
        let rematches: i64 =
            sqlx::query_scalar("SELECT count(*) FROM rematches WHERE game_id = $1")
                .bind(Uuid::parse_str(&finished).unwrap())
                .fetch_one(&app.pool)
                .await
                .unwrap();
        assert_eq!(rematches, 1);
        let id = one.body["id"].as_str().expect("the lobby");
        let people: Vec<&Player> = cast.rematch.iter().collect();
        let game = check_seats(app, id, "countdown", &people).await;
        assert_eq!(game.seats.len(), 1, "{id}: the opener alone");
        return;
    } else if a == Move::Rematch || b == Move::Rematch {
        let (finished, lobby) = cast.rematch(app, free_seat).await;
        (Some(finished), lobby)
    } else {
        (None, cast.bandits(app, free_seat).await)
    };
    if a == Move::Expire || b == Move::Expire {
        age(app, &lobby.id).await;
    }
    let nth_b = usize::from(a == b);
    let finished = finished.as_deref();
    let (one, two) = tokio::join!(
        fire(app, cast, &lobby, finished, a, 0),
        fire(app, cast, &lobby, finished, b, nth_b),
    );
    let people: Vec<&Player> = lobby.people.iter().collect();
    let game = check_seats(app, &lobby.id, lobby.kind, &people).await;
    let id = &lobby.id;
    let fired = [&one, &two];
    let context = format!(
        "{id}: {a:?} {} / {b:?} {}, now {} with {:?}",
        one.status, two.status, game.status, game.seats
    );
    // What each answer said happened did happen.
    let mut seats = lobby.seated as i64;
    for f in fired {
        let seated = game.seats.values().any(|u| *u == f.by.id);
        match f.what {
            Move::Start if won(f) => {
                assert!(
                    ["active", "finished"].contains(&game.status.as_str()),
                    "{context}"
                )
            }
            Move::Cancel if won(f) => assert_eq!(game.status, "cancelled", "{context}"),
            Move::Expire if won(f) => assert_eq!(game.status, "expired", "{context}"),
            Move::Join | Move::JoinCode if won(f) => {
                assert!(seated, "{context}");
                seats += 1;
            }
            Move::AddBot if won(f) => seats += 1,
            Move::Leave if won(f) => {
                assert!(!seated, "{context}");
                seats -= 1;
            }
            Move::Rematch => {
                assert_eq!(f.status, 200, "{context}");
                assert_eq!(f.game.as_deref(), Some(id.as_str()), "{context}");
            }
            _ => {}
        }
    }
    // Refused transitions changed nothing: the seats are the lobby's plus what succeeded.
    assert_eq!(game.seats.len() as i64, seats, "{context}");
    let bots = game
        .seats
        .values()
        .filter(|u| infra::deadlines::is_server_actor(infra::UserId(Uuid::parse_str(u).unwrap())))
        .count();
    let bots_added = fired
        .iter()
        .filter(|f| f.what == Move::AddBot && won(f))
        .count();
    assert_eq!(bots, bots_added, "{context}");
    let started = fired.iter().any(|f| f.what == Move::Start && won(f));
    assert_eq!(
        ["active", "finished"].contains(&game.status.as_str()),
        started,
        "{context}"
    );
    if exclusive(a, b) {
        assert!(!(won(&one) && won(&two)), "{context}");
    }
}

/// Pairs that cannot both succeed on one lobby: two takers of its one free seat; two of start,
/// cancel and expiry (but a start and its repeat); a start and a leave of the full lobby.
fn exclusive(a: Move, b: Move) -> bool {
    let takes = |m: Move| matches!(m, Move::Join | Move::JoinCode | Move::AddBot);
    let ends = |m: Move| matches!(m, Move::Start | Move::Cancel | Move::Expire);
    let pair = [a, b];
    (takes(a) && takes(b))
        || (ends(a) && ends(b) && pair != [Move::Start, Move::Start])
        || (pair.contains(&Move::Start) && pair.contains(&Move::Leave))
}

/// Issue 26: every pair of lobby transitions fired at once, over and over, on fresh lobbies
/// (a 4-seat Bandits lobby; a rematch lobby of a finished game when a rematch is in the pair):
/// no 5xx, each answer true to the final state, and the stored seats, the state's seats, the
/// serving instance's cache and a fresh instance agree, one owner per seat. Races with the
/// expiry run one after another (an expiry expires every aged lobby); the others run six at a
/// time.
#[actix_web::test]
async fn every_pair_of_lobby_transitions_at_once_keeps_one_owner_per_seat() {
    use futures_util::StreamExt;
    const ROUNDS: usize = 8;
    let app = spawn_app_with(|config| config.registry = registry_with_countdown()).await;
    let cast = Cast::new(&app).await;
    let mut pairs = Vec::new();
    for (i, a) in MOVES.iter().enumerate() {
        for b in &MOVES[i..] {
            pairs.push((*a, *b));
        }
    }
    assert_eq!(pairs.len(), 36);
    let (with_expiry, others): (Vec<_>, Vec<_>) = pairs
        .into_iter()
        .partition(|(a, b)| *a == Move::Expire || *b == Move::Expire);
    let runs: Vec<(Move, Move)> = (0..ROUNDS).flat_map(|_| others.clone()).collect();
    let total = runs.len() + ROUNDS * with_expiry.len();
    futures_util::stream::iter(runs)
        .map(|(a, b)| race(&app, &cast, a, b))
        .buffer_unordered(6)
        .collect::<Vec<()>>()
        .await;
    for _ in 0..ROUNDS {
        for (a, b) in &with_expiry {
            race(&app, &cast, *a, *b).await;
        }
    }
    assert_eq!(total, 288);
}
