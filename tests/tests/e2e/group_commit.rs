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
