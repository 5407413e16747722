//! Group commit across games (issue 31, `infra::group_commit`): appends sent to one store at
//! once are committed as one batch, one transaction, each with its own checks and answer.
//! The appends here go to the store directly (forged one-event commands, chained correctly):
//! `join_all` hands them all to the store's queue before its worker runs, so they form one
//! batch, which the test checks (the rows of one transaction share their `xmin`).

use futures_util::future::join_all;
use homestretch_tests::{Player, TestApp, spawn_app};
use infra::outbox::NewNotification;
use infra::store::{Append, AppendResult, GameStatus, StoredEvent};
use infra::{GameId, StoreError, UserId};
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

/// A started Whisky Race game's id, version, head hash and a seated user.
struct Game {
    id: GameId,
    version: u64,
    head: String,
    user: UserId,
}

async fn players(app: &TestApp) -> [Player; 3] {
    [
        app.register("gc_a").await,
        app.register("gc_b").await,
        app.register("gc_c").await,
    ]
}

async fn games(app: &TestApp, n: usize) -> Vec<Game> {
    let players = players(app).await;
    let store = infra::store::Store::new(app.pool.clone());
    let mut out = Vec::new();
    for _ in 0..n {
        let id: GameId = app
            .started_game("whisky_race", &players, json!({}), None)
            .await
            .parse()
            .unwrap();
        let row = store.game(id).await.unwrap();
        out.push(Game {
            id,
            version: row.version,
            head: row.head_hash,
            user: row.host_id,
        });
    }
    out
}

/// A time PostgreSQL stores exactly (to the microsecond), so the hash reads back the same.
fn now() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(t.nanosecond() / 1000 * 1000).unwrap()
}

/// One forged event after `version`/`head`, hashed as the store chains it.
fn event(
    game: GameId,
    version: u64,
    head: &str,
    command: Uuid,
    at: OffsetDateTime,
) -> Vec<StoredEvent> {
    let mut e = StoredEvent {
        seq: version + 1,
        kind: "group_commit_probe".into(),
        payload: json!({"type": "group_commit_probe"}),
        schema_version: 1,
        command_id: command,
        actor: Some(1),
        recorded_at: at,
        prev_hash: head.to_string(),
        hash: String::new(),
        redacted: false,
    };
    e.hash = infra::hash::event_hash(game.0, &e);
    vec![e]
}

fn append<'a>(
    game: &Game,
    expected: u64,
    command: Uuid,
    events: &'a [StoredEvent],
    outbox: Vec<NewNotification>,
) -> Append<'a> {
    static COMMAND: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| json!({"type": "group_commit_probe"}));
    Append {
        game: game.id,
        expected,
        command_id: command,
        user: game.user,
        seat: Some(1),
        body_hash: "probe",
        command: &COMMAND,
        events,
        status: GameStatus::Active,
        outcome: None,
        snapshot: None,
        recorded_at: events.first().map_or_else(now, |e| e.recorded_at),
        waiting: json!([]),
        outbox,
    }
}

/// A new command id for each game and its one event after the game's head.
fn next_commands(games: &[Game]) -> (Vec<Uuid>, Vec<Vec<StoredEvent>>) {
    let at = now();
    let commands: Vec<Uuid> = games.iter().map(|_| Uuid::now_v7()).collect();
    let events = games
        .iter()
        .zip(&commands)
        .map(|(g, c)| event(g.id, g.version, &g.head, *c, at))
        .collect();
    (commands, events)
}

/// The answer of a one-event append on a game at `version`.
fn appended(version: u64) -> AppendResult {
    AppendResult::Appended {
        version: version + 1,
        first_seq: version + 1,
        last_seq: version + 1,
    }
}

/// The transaction that wrote event `seq` of `game`.
async fn xmin(app: &TestApp, game: GameId, seq: u64) -> i64 {
    sqlx::query_scalar("SELECT xmin::text::bigint FROM events WHERE game_id = $1 AND seq = $2")
        .bind(game.0)
        .bind(seq as i64)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// The log of `game` is exact: contiguous, every hash recomputed, the head its last hash, and
/// every event belongs to exactly one recorded command.
async fn assert_exact_log(app: &TestApp, game: GameId) {
    let store = infra::store::Store::new(app.pool.clone());
    let row = store.game(game).await.unwrap();
    let events = store.events(game, 0, None, 100_000).await.unwrap();
    assert_eq!(events.len() as u64, row.version, "{game}");
    let mut prev = infra::hash::GENESIS.to_string();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1);
        assert_eq!(e.prev_hash, prev, "{game} seq {}", e.seq);
        assert_eq!(infra::hash::event_hash(game.0, e), e.hash, "seq {}", e.seq);
        prev = e.hash.clone();
    }
    assert_eq!(row.head_hash, prev);
    let mut next = 1;
    for c in store.commands(game).await.unwrap() {
        assert_eq!(
            c.first_seq, next,
            "{game}: commands cover the log without gaps"
        );
        next = c.last_seq + 1;
    }
    assert_eq!(next, row.version + 1);
}

#[actix_web::test]
async fn appends_of_many_games_at_once_commit_together_each_with_its_own_answer() {
    let app = spawn_app().await;
    let games = games(&app, 12).await;
    let (commands, events) = next_commands(&games);
    let store = infra::store::Store::new(app.pool.clone());
    let answers = join_all(
        games
            .iter()
            .zip(&commands)
            .zip(&events)
            .map(|((g, c), e)| store.append(append(g, g.version, *c, e, Vec::new()))),
    )
    .await;
    for (g, answer) in games.iter().zip(answers) {
        assert_eq!(answer.unwrap(), appended(g.version));
        assert_exact_log(&app, g.id).await;
    }
    // One batch: one transaction wrote every game's event.
    let first = xmin(&app, games[0].id, games[0].version + 1).await;
    for g in &games[1..] {
        assert_eq!(
            xmin(&app, g.id, g.version + 1).await,
            first,
            "{} was not in the batch",
            g.id
        );
    }
}

#[actix_web::test]
async fn games_played_at_once_over_http_keep_exact_logs() {
    let app = spawn_app().await;
    let players = players(&app).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(
            app.started_game("whisky_race", &players, json!({}), None)
                .await,
        );
    }
    join_all(
        ids.iter()
            .enumerate()
            .map(|(i, id)| app.play_randomly(id, &players, 31 + i as u64, 40)),
    )
    .await;
    for id in &ids {
        assert_exact_log(&app, id.parse().unwrap()).await;
    }
}

#[actix_web::test]
async fn a_stale_version_in_a_batch_gets_conflict_while_the_others_commit() {
    let app = spawn_app().await;
    let games = games(&app, 3).await;
    let at = now();
    let commands: Vec<Uuid> = games.iter().map(|_| Uuid::now_v7()).collect();
    // The stale one was decided on the version before the head.
    let stale = 1;
    let expected: Vec<u64> = (0..3)
        .map(|i| games[i].version - u64::from(i == stale))
        .collect();
    let events: Vec<Vec<StoredEvent>> = (0..3)
        .map(|i| event(games[i].id, expected[i], &games[i].head, commands[i], at))
        .collect();
    let store = infra::store::Store::new(app.pool.clone());
    let answers = join_all((0..3).map(|i| {
        store.append(append(
            &games[i],
            expected[i],
            commands[i],
            &events[i],
            Vec::new(),
        ))
    }))
    .await;
    for (i, (g, answer)) in games.iter().zip(answers).enumerate() {
        let answer = answer.unwrap();
        if i == stale {
            assert_eq!(answer, AppendResult::Conflict { current: g.version });
            assert_eq!(
                store.head(g.id).await.unwrap().0,
                g.version,
                "nothing written"
            );
        } else {
            assert_eq!(answer, appended(g.version));
        }
        assert_exact_log(&app, g.id).await;
    }
    assert_eq!(
        xmin(&app, games[0].id, games[0].version + 1).await,
        xmin(&app, games[2].id, games[2].version + 1).await,
        "the two that committed were one batch"
    );
}

#[actix_web::test]
async fn appends_of_one_game_in_a_batch_behave_as_if_sent_one_after_the_other() {
    let app = spawn_app().await;
    let games = games(&app, 2).await;
    let (g, other) = (&games[0], &games[1]);
    let at = now();
    let first = Uuid::now_v7();
    let second = Uuid::now_v7();
    let first_events = event(g.id, g.version, &g.head, first, at);
    let second_events = event(g.id, g.version + 1, &first_events[0].hash, second, at);
    let late = Uuid::now_v7();
    let late_events = event(g.id, g.version + 1, &first_events[0].hash, late, at);
    let other_command = Uuid::now_v7();
    let other_events = event(other.id, other.version, &other.head, other_command, at);
    let store = infra::store::Store::new(app.pool.clone());
    let answers = join_all([
        store.append(append(g, g.version, first, &first_events, Vec::new())),
        // The same command id again, before the first committed: the first's answer.
        store.append(append(g, g.version, first, &first_events, Vec::new())),
        // The next command, decided on the first's version: it sees it.
        store.append(append(g, g.version + 1, second, &second_events, Vec::new())),
        // A stale repeat of that version by another command: a conflict at the new head.
        store.append(append(g, g.version + 1, late, &late_events, Vec::new())),
        store.append(append(
            other,
            other.version,
            other_command,
            &other_events,
            Vec::new(),
        )),
    ])
    .await;
    let v = g.version;
    let answers: Vec<AppendResult> = answers.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        answers,
        vec![
            appended(v),
            AppendResult::Duplicate {
                version: v + 1,
                first_seq: v + 1,
                last_seq: v + 1
            },
            appended(v + 1),
            AppendResult::Conflict { current: v + 2 },
            appended(other.version),
        ]
    );
    assert_exact_log(&app, g.id).await;
    assert_exact_log(&app, other.id).await;
    let batch = xmin(&app, g.id, v + 1).await;
    assert_eq!(xmin(&app, g.id, v + 2).await, batch);
    assert_eq!(xmin(&app, other.id, other.version + 1).await, batch);
}

#[actix_web::test]
async fn an_append_that_breaks_the_batch_statement_fails_alone() {
    let app = spawn_app().await;
    let games = games(&app, 3).await;
    let (commands, events) = next_commands(&games);
    // A notification to a user who does not exist breaks a foreign key inside the batch's
    // statement (the application only ever notifies seated users: not sendable over HTTP).
    let forged = 1;
    let ghost = NewNotification {
        id: Uuid::now_v7(),
        user: UserId(Uuid::now_v7()),
        game: Some(games[forged].id),
        kind: "your_turn".into(),
        payload: json!({"type": "your_turn"}),
    };
    let store = infra::store::Store::new(app.pool.clone());
    let answers = join_all((0..3).map(|i| {
        let outbox = if i == forged {
            vec![ghost.clone()]
        } else {
            Vec::new()
        };
        store.append(append(
            &games[i],
            games[i].version,
            commands[i],
            &events[i],
            outbox,
        ))
    }))
    .await;
    for (i, (g, answer)) in games.iter().zip(answers).enumerate() {
        if i == forged {
            assert!(
                matches!(answer, Err(StoreError::Database(_))),
                "the forged append fails: {answer:?}"
            );
            assert_eq!(
                store.head(g.id).await.unwrap().0,
                g.version,
                "nothing written"
            );
        } else {
            assert_eq!(answer.unwrap(), appended(g.version));
        }
        assert_exact_log(&app, g.id).await;
    }
}

#[actix_web::test]
async fn an_append_waiting_on_a_lock_never_holds_the_rest_of_its_batch() {
    let app = spawn_app().await;
    let games = games(&app, 3).await;
    let (commands, events) = next_commands(&games);
    // Another transaction holds one game's row (a lobby start, another instance's batch…).
    let held = 1;
    let mut holder = app.pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
        .bind(games[held].id.0)
        .execute(&mut *holder)
        .await
        .unwrap();
    let store = infra::store::Store::new(app.pool.clone());
    let appends = join_all((0..3).map(|i| {
        store.append(append(
            &games[i],
            games[i].version,
            commands[i],
            &events[i],
            Vec::new(),
        ))
    }));
    let others_commit_meanwhile = async {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut committed = false;
        while !committed && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            committed = true;
            for i in [0, 2] {
                committed &= store.head(games[i].id).await.unwrap().0 == games[i].version + 1;
            }
        }
        let locked_one = store.head(games[held].id).await.unwrap().0;
        holder.commit().await.unwrap();
        (committed, locked_one)
    };
    let (answers, (committed, locked_one)) = tokio::join!(appends, others_commit_meanwhile);
    assert!(committed, "the others committed while one game was locked");
    assert_eq!(locked_one, games[held].version, "the locked game waited");
    for (g, answer) in games.iter().zip(answers) {
        assert_eq!(answer.unwrap(), appended(g.version), "{}", g.id);
        assert_exact_log(&app, g.id).await;
    }
}

/// `n` forged events after `version`/`head`, chained as the store chains them.
fn events_after(
    game: GameId,
    version: u64,
    head: &str,
    command: Uuid,
    at: OffsetDateTime,
    n: u64,
) -> Vec<StoredEvent> {
    let mut out: Vec<StoredEvent> = Vec::new();
    for i in 0..n {
        let prev = out.last().map_or(head.to_string(), |e| e.hash.clone());
        let mut e = event(game, version + i, &prev, command, at).remove(0);
        e.payload = json!({"type": "group_commit_probe", "i": i});
        e.hash = infra::hash::event_hash(game.0, &e);
        out.push(e);
    }
    out
}

/// A notification of `game` to `user`, in the order the ids are made.
fn note(game: &Game, user: UserId) -> NewNotification {
    NewNotification {
        id: Uuid::now_v7(),
        user,
        game: Some(game.id),
        kind: "your_turn".into(),
        payload: json!({"type": "your_turn", "game": game.id}),
    }
}

/// The seated users of a game, seat 1 first.
async fn seated(app: &TestApp, game: GameId) -> Vec<UserId> {
    let seats = infra::store::Store::new(app.pool.clone())
        .seats(game)
        .await
        .unwrap();
    seats.into_iter().map(|s| s.user_id).collect()
}

#[actix_web::test]
async fn a_set_based_batch_writes_each_items_events_inbox_and_feeds_in_order() {
    let app = spawn_app().await;
    let games = games(&app, 4).await;
    let users = seated(&app, games[0].id).await;
    let (a, b) = (users[0], users[1]);
    // A's only destination has room for three deliveries, and is never due during the test (the
    // delivery worker leaves it alone): the fourth notification of A goes to the feed only.
    let destination = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO outbox_queues (destination, user_id, capacity, due_at) VALUES ($1, $2, 3, 'infinity')",
    )
    .bind(destination)
    .bind(a.0)
    .execute(&app.pool)
    .await
    .unwrap();
    // Each user's feed so far (the games' starts notified them).
    let feed = |user: UserId| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_as::<_, (i64, Uuid)>(
                "SELECT seq, id FROM notifications WHERE user_id = $1 ORDER BY seq",
            )
            .bind(user.0)
            .fetch_all(&pool)
            .await
            .unwrap()
        }
    };
    let (before_a, before_b) = (feed(a).await, feed(b).await);
    // B gets one more before the batch: the batch's entries follow it.
    let earlier = note(&games[3], b);
    let (commands, events) = next_commands(&games[3..]);
    let store = infra::store::Store::new(app.pool.clone());
    let g3 = &games[3];
    assert_eq!(
        store
            .append(append(
                g3,
                g3.version,
                commands[0],
                &events[0],
                vec![earlier.clone()]
            ))
            .await
            .unwrap(),
        appended(g3.version)
    );
    let games: Vec<Game> = {
        let mut games = games;
        games[3].version += 1;
        games[3].head = events[0][0].hash.clone();
        games
    };
    // Four games, two or three events each, and notifications to A and B from three of them.
    let at = now();
    let commands: Vec<Uuid> = games.iter().map(|_| Uuid::now_v7()).collect();
    let events: Vec<Vec<StoredEvent>> = games
        .iter()
        .zip(&commands)
        .enumerate()
        .map(|(i, (g, c))| events_after(g.id, g.version, &g.head, *c, at, 2 + (i as u64 % 2)))
        .collect();
    let notes: Vec<Vec<NewNotification>> = vec![
        vec![note(&games[0], a), note(&games[0], b)],
        vec![],
        vec![note(&games[2], a), note(&games[2], a)],
        vec![note(&games[3], a), note(&games[3], b)],
    ];
    let answers = join_all((0..4).map(|i| {
        let mut append = append(&games[i], games[i].version, commands[i], &events[i], notes[i].clone());
        // Seat 1 waits after every append but the second's, whose game waits for nobody.
        append.waiting = if i == 1 {
            json!([])
        } else {
            json!([{"seat": 1, "kinds": ["probe"], "deadline": null, "since": null, "since_seq": null}])
        };
        store.append(append)
    }))
    .await;
    for (i, (g, answer)) in games.iter().zip(answers).enumerate() {
        let n = events[i].len() as u64;
        assert_eq!(
            answer.unwrap(),
            AppendResult::Appended {
                version: g.version + n,
                first_seq: g.version + 1,
                last_seq: g.version + n
            }
        );
        assert_exact_log(&app, g.id).await;
        let inbox: Vec<i16> =
            sqlx::query_scalar("SELECT seat FROM inbox WHERE game_id = $1 ORDER BY seat")
                .bind(g.id.0)
                .fetch_all(&app.pool)
                .await
                .unwrap();
        assert_eq!(inbox, if i == 1 { vec![] } else { vec![1] }, "inbox of {i}");
    }
    let batch = xmin(&app, games[0].id, games[0].version + 1).await;
    for g in &games[1..] {
        assert_eq!(xmin(&app, g.id, g.version + 1).await, batch, "one batch");
    }
    // Each feed numbered on without gaps, in the order the batch's items came.
    let followed = |before: &[(i64, Uuid)], notes: &[&NewNotification]| -> Vec<(i64, Uuid)> {
        let mut all = before.to_vec();
        for (i, n) in notes.iter().enumerate() {
            all.push(((before.len() + i) as i64 + 1, n.id));
        }
        all
    };
    let after_a = feed(a).await;
    assert_eq!(
        after_a,
        followed(
            &before_a,
            &[&notes[0][0], &notes[2][0], &notes[2][1], &notes[3][0]]
        )
    );
    let after_b = feed(b).await;
    assert_eq!(
        after_b,
        followed(&before_b, &[&earlier, &notes[0][1], &notes[3][1]])
    );
    for (user, after) in [(a, &after_a), (b, &after_b)] {
        let head: i64 = sqlx::query_scalar("SELECT seq FROM notification_heads WHERE user_id = $1")
            .bind(user.0)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        assert_eq!(head, after.len() as i64, "the feed head is its last entry");
    }
    // A's queue took the first three, in feed order, and counts them.
    let delivered: Vec<Uuid> = sqlx::query_scalar(
        // Delivered in outbox id order: that must be the feed's order.
        "SELECT notification_id FROM outbox WHERE destination = $1 ORDER BY id",
    )
    .bind(destination)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        delivered,
        vec![notes[0][0].id, notes[2][0].id, notes[2][1].id]
    );
    let queued: i32 = sqlx::query_scalar("SELECT queued FROM outbox_queues WHERE destination = $1")
        .bind(destination)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(queued, 3);
}

#[actix_web::test]
async fn a_repeated_command_id_in_a_later_batch_answers_its_first_answer() {
    let app = spawn_app().await;
    let games = games(&app, 2).await;
    let (g, other) = (&games[0], &games[1]);
    let users = seated(&app, g.id).await;
    let (commands, events) = next_commands(&games);
    let store = infra::store::Store::new(app.pool.clone());
    let first = join_all([
        store.append(append(g, g.version, commands[0], &events[0], Vec::new())),
        store.append(append(
            other,
            other.version,
            commands[1],
            &events[1],
            Vec::new(),
        )),
    ])
    .await;
    assert_eq!(first[0].as_ref().unwrap(), &appended(g.version));
    // A later batch: the same command again (its first answer), the same id with another body
    // (refused), and the same id sent by another seated user (that user's own new command).
    let mut mismatch = append(g, g.version, commands[0], &events[0], Vec::new());
    mismatch.body_hash = "another body";
    let at = now();
    let theirs = event(g.id, g.version + 1, &events[0][0].hash, commands[0], at);
    let mut by_other_user = append(g, g.version + 1, commands[0], &theirs, Vec::new());
    by_other_user.user = users[1];
    let next = Uuid::now_v7();
    let other_events = event(other.id, other.version + 1, &events[1][0].hash, next, at);
    let answers = join_all([
        store.append(append(g, g.version, commands[0], &events[0], Vec::new())),
        store.append(mismatch),
        store.append(by_other_user),
        store.append(append(
            other,
            other.version + 1,
            next,
            &other_events,
            Vec::new(),
        )),
    ])
    .await;
    let answers: Vec<AppendResult> = answers.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        answers,
        vec![
            AppendResult::Duplicate {
                version: g.version + 1,
                first_seq: g.version + 1,
                last_seq: g.version + 1
            },
            AppendResult::Mismatch,
            appended(g.version + 1),
            appended(other.version + 1),
        ]
    );
    assert_exact_log(&app, g.id).await;
    assert_exact_log(&app, other.id).await;
    assert_eq!(
        xmin(&app, g.id, g.version + 2).await,
        xmin(&app, other.id, other.version + 2).await,
        "one batch"
    );
}

#[actix_web::test]
async fn a_lone_append_writes_its_events_head_inbox_and_feed() {
    let app = spawn_app().await;
    let games = games(&app, 1).await;
    let g = &games[0];
    let users = seated(&app, g.id).await;
    let command = Uuid::now_v7();
    let events = events_after(g.id, g.version, &g.head, command, now(), 3);
    let notice = note(g, users[2]);
    let mut lone = append(g, g.version, command, &events, vec![notice.clone()]);
    lone.waiting = json!([{"seat": 2, "kinds": ["probe"], "deadline": null, "since": null, "since_seq": null}]);
    let store = infra::store::Store::new(app.pool.clone());
    assert_eq!(
        store.append(lone).await.unwrap(),
        AppendResult::Appended {
            version: g.version + 3,
            first_seq: g.version + 1,
            last_seq: g.version + 3
        }
    );
    assert_exact_log(&app, g.id).await;
    let inbox: Vec<(i16, Uuid)> =
        sqlx::query_as("SELECT seat, user_id FROM inbox WHERE game_id = $1 ORDER BY seat")
            .bind(g.id.0)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(inbox, vec![(2, users[1].0)]);
    let feed: Vec<(i64, Uuid)> =
        sqlx::query_as("SELECT seq, id FROM notifications WHERE user_id = $1 ORDER BY seq")
            .bind(users[2].0)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(feed.last(), Some(&(feed.len() as i64, notice.id)));
    // A stale repeat of the version alone: a conflict, nothing written.
    let late = Uuid::now_v7();
    let late_events = event(g.id, g.version, &g.head, late, now());
    assert_eq!(
        store
            .append(append(g, g.version, late, &late_events, Vec::new()))
            .await
            .unwrap(),
        AppendResult::Conflict {
            current: g.version + 3
        }
    );
    assert_exact_log(&app, g.id).await;
}

/// The writer keeps its connection from one append to the next (issue 31). Killed between two
/// appends, as a restart of PostgreSQL kills it, the next append is still written: once more on
/// a fresh connection, not failed.
#[actix_web::test]
async fn an_append_after_the_writers_connection_died_is_written_on_another() {
    let app = spawn_app().await;
    let games = games(&app, 1).await;
    let g = &games[0];
    let store = infra::store::Store::new(app.pool.clone());
    let first = Uuid::now_v7();
    let events = event(g.id, g.version, &g.head, first, now());
    let answer = store
        .append(append(g, g.version, first, &events, Vec::new()))
        .await;
    assert_eq!(answer.unwrap(), appended(g.version));
    // The writer's backend: its last statement was that append.
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid() \
           AND query LIKE 'SELECT result, version, first_seq, last_seq FROM append_command2(%'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(killed, 1, "the writer's backend");
    let second = Uuid::now_v7();
    let next = event(g.id, g.version + 1, &events[0].hash, second, now());
    let answer = store
        .append(append(g, g.version + 1, second, &next, Vec::new()))
        .await;
    assert_eq!(answer.unwrap(), appended(g.version + 1));
    assert_exact_log(&app, g.id).await;
}

/// The writer's `commands` reads, from PostgreSQL's statistics once flushed: (sequential
/// scans' tuples read, index scans).
async fn commands_reads(app: &TestApp) -> (i64, i64) {
    sqlx::query_as(
        "SELECT coalesce(seq_tup_read, 0), coalesce(idx_scan, 0) \
         FROM pg_stat_user_tables WHERE relname = 'commands'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// One more forged one-event append of each game, all at once (alone for one game, one batch
/// for more); each game's version and head move on.
async fn once_more(store: &infra::store::Store, games: &mut [Game]) {
    let (commands, events) = next_commands(games);
    let sent = games
        .iter()
        .zip(&commands)
        .zip(&events)
        .map(|((g, c), e)| store.append(append(g, g.version, *c, e, Vec::new())));
    let answers = join_all(sent).await;
    for ((g, answer), e) in games.iter_mut().zip(answers).zip(&events) {
        assert_eq!(answer.unwrap(), appended(g.version));
        g.version += 1;
        g.head = e[0].hash.clone();
    }
}

/// The append's record check stays an index lookup however small the tables were when the
/// writer's connection planned it (migration 0015), for `at_once` games appended together (a
/// lone append for one, a batch for more). PL/pgSQL keeps a generic plan for the life of the
/// connection and the writer keeps its connection: planned on a new database's few analyzed
/// rows, the check was a sequential scan, and stayed one while `commands` grew.
async fn record_checks_stay_index_lookups_as_the_log_grows(at_once: usize) {
    let app = spawn_app().await;
    let mut games = games(&app, at_once).await;
    // A new database as autovacuum first analyzes it: a few rows.
    sqlx::query("ANALYZE").execute(&app.pool).await.unwrap();
    let store = infra::store::Store::new(app.pool.clone());
    // Past PL/pgSQL's five custom plans: the connection now keeps a generic one.
    for _ in 0..7 {
        once_more(&store, &mut games).await;
    }
    // The log grows, with no analyze in between (autovacuum has not come yet).
    let grown = 20_000;
    let other = seated(&app, games[0].id).await[1];
    sqlx::query(
        "INSERT INTO commands (game_id, command_id, user_id, seat, body_hash, command, \
                               first_seq, last_seq, recorded_at) \
         SELECT $1, gen_random_uuid(), $2, 2, 'filler', '{}', 0, 0, now() \
           FROM generate_series(1, $3)",
    )
    .bind(games[0].id.0)
    .bind(other.0)
    .bind(grown)
    .execute(&app.pool)
    .await
    .unwrap();
    // A backend flushes its statistics when it goes idle a second or more after its last flush.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (read_before, index_before) = commands_reads(&app).await;
    let rounds = 6;
    for _ in 0..rounds - 1 {
        once_more(&store, &mut games).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    once_more(&store, &mut games).await;
    // The writer's flush is on its way: wait until these appends' checks show, one way or the
    // other (no test time is measured here).
    let mut reads = commands_reads(&app).await;
    for _ in 0..150 {
        let scanned = reads.0 - read_before >= grown as i64;
        if scanned || reads.1 - index_before >= rounds {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        reads = commands_reads(&app).await;
    }
    assert!(
        reads.0 - read_before < grown as i64,
        "a record check read the whole table: {} tuples by sequential scan",
        reads.0 - read_before
    );
    assert!(reads.1 - index_before >= rounds, "{reads:?}");
}

#[actix_web::test]
async fn a_lone_appends_record_check_stays_an_index_lookup_as_the_log_grows() {
    record_checks_stay_index_lookups_as_the_log_grows(1).await;
}

#[actix_web::test]
async fn a_batchs_record_checks_stay_index_lookups_as_the_log_grows() {
    record_checks_stay_index_lookups_as_the_log_grows(3).await;
}
