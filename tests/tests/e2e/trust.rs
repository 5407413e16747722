//! Issue 11 (items 1, 2, 3, 9) over real HTTP, in all three games: idempotency answers never
//! depend on another caller's records; a dispute shows each reader only what they may see;
//! games survive snapshots and restarts; commands with unknown fields and numbers that
//! overflow are refused.

use homestretch_tests::{Answer, Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};

/// A small deterministic generator for the bots' choices.
struct Lcg(u64);

impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

async fn players(app: &TestApp, n: usize) -> Vec<Player> {
    let mut all = Vec::new();
    for i in 0..n {
        let tag = uuid::Uuid::new_v4().simple().to_string();
        all.push(app.register(&format!("player{i}-{}", &tag[..8])).await);
    }
    all
}

/// Makes `player` an admin the way `homestretch admin grant` does (a flag on the account,
/// never a name).
async fn grant_admin(app: &TestApp, player: &Player) {
    let id: uuid::Uuid = player.id.parse().unwrap();
    sqlx::query("UPDATE users SET is_admin = true WHERE id = $1")
        .bind(id)
        .execute(&app.pool)
        .await
        .unwrap();
}

/// A started game with a fixed seed (the host is made an admin to fix it), so runs repeat.
async fn seeded_game(app: &TestApp, kind: &str, players: &[Player], options: Value) -> String {
    grant_admin(app, &players[0]).await;
    app.started_game(kind, players, options, Some(&format!("trust-{kind}")))
        .await
}

async fn prompts(app: &TestApp, id: &str, player: &Player) -> Value {
    app.get(&format!("/v1/games/{id}/prompts"), &player.token)
        .await
        .ok()
}

/// Seats prompted now, with their command kinds.
fn waiting(prompts: &Value) -> Vec<(usize, Vec<String>)> {
    prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["seat"].as_u64().unwrap() as usize,
                p["kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// Plays random legal commands until `stop(prompts)` holds: the prompts that stopped it, or
/// `None` when the game ended or `max` commands were sent first.
async fn advance(
    app: &TestApp,
    id: &str,
    players: &[Player],
    rng: &mut Lcg,
    max: usize,
    stop: &impl Fn(&Value) -> bool,
) -> Option<Value> {
    for _ in 0..max {
        let now = prompts(app, id, &players[0]).await;
        if stop(&now) {
            return Some(now);
        }
        let seats = waiting(&now);
        if seats.is_empty() {
            return None;
        }
        let (seat, _) = &seats[rng.pick(seats.len())];
        let player = &players[seat - 1];
        let legal = prompts(app, id, player).await["legal"]
            .as_array()
            .unwrap()
            .clone();
        let command = legal[rng.pick(legal.len())].clone();
        let answer = app.command(id, player, command.clone()).await;
        assert_eq!(answer.status, 200, "{command} refused: {}", answer.text);
    }
    None
}

/// A seeded game of `kind` played randomly until `stop(prompts)` holds (new games are tried
/// when one ends or runs long first): its id and the prompts.
async fn game_where(
    app: &TestApp,
    kind: &str,
    players: &[Player],
    stop: impl Fn(&Value) -> bool,
) -> (String, Value) {
    for attempt in 0..8 {
        let id = seeded_game(app, kind, players, json!({})).await;
        let mut rng = Lcg(attempt);
        if let Some(now) = advance(app, &id, players, &mut rng, 1500, &stop).await {
            return (id, now);
        }
    }
    panic!("{kind}: no game reached the wanted state");
}

async fn version(app: &TestApp, id: &str, player: &Player) -> u64 {
    app.get(&format!("/v1/games/{id}"), &player.token)
        .await
        .ok()["version"]
        .as_u64()
        .unwrap()
}

/// All the seat's commands of type `kind`, from `choices` (`legal` is a short sample, issue 31).
fn legal_of(prompts: &Value, kind: &str) -> Vec<Value> {
    commands_of(prompts)
        .into_iter()
        .filter(|c| c["type"] == kind)
        .collect()
}

async fn send(
    app: &TestApp,
    id: &str,
    player: &Player,
    command_id: uuid::Uuid,
    command: &Value,
    header: bool,
) -> Answer {
    let path = format!("/v1/games/{id}/commands");
    if header {
        let key = command_id.to_string();
        app.request(
            "POST",
            &path,
            Some(&player.token),
            Some(&json!({"command": command})),
            &[("idempotency-key", key.as_str())],
        )
        .await
    } else {
        app.post(
            &path,
            &player.token,
            &json!({"command_id": command_id, "command": command}),
        )
        .await
    }
}

/// What an answer tells the caller, minus what differs per request (its id).
fn told(answer: &Answer) -> Value {
    json!({
        "status": answer.status,
        "type": answer.body["type"],
        "rule": answer.body["rule"],
        "detail": answer.body["detail"],
        "events": answer.body["events"],
    })
}

/// The attack of issue 11, item 1: `attacker` finds `victim_id` in the export (next to a
/// blanked command) and resends it with every guess, in the body and as `Idempotency-Key`.
/// Each answer must be exactly the answer the same guess gets under a fresh id of the
/// attacker's own: the victim's records never answer. Returns the answers.
async fn probe(
    app: &TestApp,
    id: &str,
    attacker: &Player,
    victim_id: uuid::Uuid,
    guesses: &[Value],
) -> Vec<Value> {
    let export = app
        .get(&format!("/v1/games/{id}/export"), &attacker.token)
        .await
        .ok();
    let listed = export["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["command_id"] == victim_id.to_string())
        .expect("the victim's command id is in the export");
    assert!(
        listed["command"].is_null(),
        "the export hides the victim's command: {listed}"
    );
    let before = version(app, id, attacker).await;
    let mut answers = Vec::new();
    for guess in guesses {
        for header in [false, true] {
            let reused = send(app, id, attacker, victim_id, guess, header).await;
            let fresh = send(app, id, attacker, uuid::Uuid::new_v4(), guess, header).await;
            assert_eq!(
                told(&reused),
                told(&fresh),
                "guess {guess}: another caller's command id changes the answer"
            );
            answers.push(told(&reused));
        }
    }
    assert_eq!(
        version(app, id, attacker).await,
        before,
        "a guess was accepted"
    );
    answers
}

#[actix_web::test]
async fn idempotency_never_answers_from_another_callers_records() {
    let app = spawn_app().await;

    // Whisky Race: seat 1's sealed malt choice (WR-019..WR-022).
    let players = players(&app, 3).await;
    let id = seeded_game(&app, "whisky_race", &players, json!({})).await;
    let (victim, attacker) = (&players[0], &players[1]);
    let mine = legal_of(&prompts(&app, &id, attacker).await, "submit_malt_choice");
    app.command(&id, attacker, mine[0].clone()).await.ok();
    let guesses = legal_of(&prompts(&app, &id, victim).await, "submit_malt_choice");
    assert!(guesses.len() > 2, "several amounts to guess from");
    let secret = uuid::Uuid::new_v4();
    send(&app, &id, victim, secret, &guesses[2], false)
        .await
        .ok();
    let answers = probe(&app, &id, attacker, secret, &guesses).await;
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "every guess gets the same answer: {answers:?}"
    );
    assert_eq!(answers[0]["status"], 422);
    // The third seat, which has not chosen yet, may use the same id for its own choice: it
    // is its own command, decided on its merits; seat 1's repeat still gets seat 1's answer.
    let third = &players[2];
    let own = send(&app, &id, third, secret, &guesses[0], false)
        .await
        .ok();
    assert!(
        own["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["actor"] == 3)
    );
    let repeat = send(&app, &id, victim, secret, &guesses[2], false)
        .await
        .ok();
    assert!(
        repeat["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["actor"] == 1 && e["data"]["amount"] == guesses[2]["amount"]),
        "{repeat}"
    );

    // Mush: seat 1's sealed turn-order bid (MU-033).
    let players = players_for(&app, "mush").await;
    let (id, _) = game_where(&app, "mush", &players, |p| {
        waiting(p)
            .iter()
            .filter(|(_, k)| k.iter().any(|k| k == "submit_bid"))
            .count()
            == 3
    })
    .await;
    let (victim, attacker) = (&players[0], &players[1]);
    let mine = legal_of(&prompts(&app, &id, attacker).await, "submit_bid");
    app.command(&id, attacker, mine[0].clone()).await.ok();
    let guesses = legal_of(&prompts(&app, &id, victim).await, "submit_bid");
    assert!(guesses.len() > 1, "several bids to guess from");
    let secret = uuid::Uuid::new_v4();
    send(&app, &id, victim, secret, guesses.last().unwrap(), false)
        .await
        .ok();
    let answers = probe(&app, &id, attacker, secret, &guesses).await;
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "every guess gets the same answer: {answers:?}"
    );

    // Bandits: a discard under the hand limit (BD-232).
    let players = players_for(&app, "bandits").await;
    let (id, now) = game_where(&app, "bandits", &players, |p| {
        waiting(p)
            .iter()
            .any(|(_, k)| k.iter().any(|k| k == "discard_cards"))
    })
    .await;
    let (seat, _) = waiting(&now)
        .into_iter()
        .find(|(_, k)| k.iter().any(|k| k == "discard_cards"))
        .unwrap();
    let victim = &players[seat - 1];
    let attacker = &players[seat % players.len()];
    let guesses = legal_of(&prompts(&app, &id, victim).await, "discard_cards");
    let secret = uuid::Uuid::new_v4();
    send(&app, &id, victim, secret, guesses.last().unwrap(), false)
        .await
        .ok();
    probe(&app, &id, attacker, secret, &guesses).await;

    // Starting: only the host starts; another user's attempt with the host's key is a 403
    // like any other, never the host's answer.
    let players = players_for(&app, "whisky_race").await;
    let game = app
        .post(
            "/v1/games",
            &players[0].token,
            &json!({"kind": "whisky_race", "seats": 3}),
        )
        .await
        .ok();
    let id = game["id"].as_str().unwrap().to_string();
    for p in &players[1..] {
        app.post(&format!("/v1/games/{id}/seats"), &p.token, &json!({}))
            .await
            .ok();
    }
    let key = uuid::Uuid::new_v4().to_string();
    let start = |p: &Player| {
        let path = format!("/v1/games/{id}/start");
        let token = p.token.clone();
        let key = key.clone();
        let app = &app;
        async move {
            app.request(
                "POST",
                &path,
                Some(&token),
                None,
                &[("idempotency-key", key.as_str())],
            )
            .await
        }
    };
    let started = start(&players[0]).await.ok();
    start(&players[1]).await.problem(403);
    assert_eq!(start(&players[0]).await.ok()["version"], started["version"]);
}

/// Players for a game of `kind`: three seats (sealed choices need a third seat to stay sealed).
async fn players_for(app: &TestApp, kind: &str) -> Vec<Player> {
    let mut all = Vec::new();
    for i in 0..3 {
        all.push(app.register(&format!("{kind}-{i}")).await);
    }
    all
}

/// Strings of at least 3 characters in `value` (salts, card ids, …).
pub(crate) fn strings(value: &Value, out: &mut std::collections::HashSet<String>) {
    match value {
        Value::String(s) if s.len() >= 3 => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Issue 11, item 2: seat 1 opens a dispute on the move that carries its secret; the other
/// seats reading the dispute get exactly the audit they could get themselves, nothing of the
/// filer's; an admin who is not playing sees everything; an admin who plays sees only its seat.
async fn dispute_shows_each_reader_only_its_view(
    app: &TestApp,
    id: &str,
    players: &[Player],
    seq: u64,
    what: &str,
) {
    let filer = &players[0];
    let audit_of = |p: &Player| {
        let path = format!("/v1/games/{id}/audit/{seq}");
        let token = p.token.clone();
        async move { app.get(&path, &token).await.ok() }
    };
    let filers_view = audit_of(filer).await;
    let dispute = app
        .post(
            &format!("/v1/games/{id}/disputes"),
            &filer.token,
            &json!({"seq": seq, "reason": format!("{what} looks wrong")}),
        )
        .await
        .ok();
    assert_eq!(dispute["audit"], filers_view, "the filer gets its own view");
    let dispute_id = dispute["id"].as_str().unwrap().to_string();
    let read = |p: &Player| {
        let path = format!("/v1/disputes/{dispute_id}");
        let token = p.token.clone();
        async move { app.get(&path, &token).await }
    };
    let mut secrets = std::collections::HashSet::new();
    strings(&filers_view, &mut secrets);
    for other in &players[1..] {
        let own = audit_of(other).await;
        let mut visible = std::collections::HashSet::new();
        strings(&own, &mut visible);
        let hidden: Vec<&String> = secrets.difference(&visible).collect();
        assert!(
            !hidden.is_empty() || own["command"].is_null() && !filers_view["command"].is_null(),
            "{what}: the filer's view holds nothing secret, the test proves nothing"
        );
        let answer = read(other).await;
        let theirs = answer.clone().ok();
        assert_eq!(
            theirs["audit"], own,
            "{what}: another seat gets the audit it may see, not the filer's"
        );
        for secret in &hidden {
            assert!(
                !answer.text.contains(secret.as_str()),
                "{what}: the filer's {secret:?} leaks through the dispute"
            );
        }
    }
    // An admin who plays in the game is a player: its seat's view only.
    grant_admin(app, &players[1]).await;
    assert_eq!(
        read(&players[1]).await.ok()["audit"],
        audit_of(&players[1]).await
    );
    // An admin who does not play sees everything (the omniscient audit).
    let arbiter = app
        .register(&format!(
            "arbiter-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        ))
        .await;
    grant_admin(app, &arbiter).await;
    let full = read(&arbiter).await.ok();
    assert_eq!(full["audit"]["command"], filers_view["command"]);
    let mut seen = std::collections::HashSet::new();
    strings(&full["audit"], &mut seen);
    assert!(
        secrets.is_subset(&seen),
        "{what}: the arbiter sees everything the filer saw"
    );
    // A stranger reads nothing.
    let stranger = app
        .register(&format!(
            "stranger-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        ))
        .await;
    read(&stranger).await.problem(403);
    let resolved = app
        .post(
            &format!("/v1/disputes/{dispute_id}/resolution"),
            &arbiter.token,
            &json!({"verdict": "rejected", "note": "the log is sound"}),
        )
        .await
        .ok();
    assert_eq!(resolved["status"], "rejected");
    // The playing admin may not judge its own game.
    app.post(
        &format!("/v1/disputes/{dispute_id}/resolution"),
        &players[1].token,
        &json!({"verdict": "upheld", "note": "mine"}),
    )
    .await
    .problem(403);
}

#[actix_web::test]
async fn a_dispute_shows_each_reader_only_what_it_may_see() {
    let app = spawn_app().await;

    // Whisky Race: seat 1's malt amount and salt (WR-019..WR-022).
    let players = players_for(&app, "whisky_race").await;
    let id = seeded_game(&app, "whisky_race", &players, json!({})).await;
    let answer = app
        .command(
            &id,
            &players[0],
            json!({"type": "submit_malt_choice", "amount": 3}),
        )
        .await
        .ok();
    let seq = answer["version"].as_u64().unwrap();
    dispute_shows_each_reader_only_its_view(&app, &id, &players, seq, "a malt choice").await;

    // Mush: seat 1's sealed bid (MU-033).
    let players = players_for(&app, "mush").await;
    let (id, now) = game_where(&app, "mush", &players, |p| {
        waiting(p)
            .iter()
            .filter(|(_, k)| k.iter().any(|k| k == "submit_bid"))
            .count()
            == 3
    })
    .await;
    let _ = now;
    let bids = legal_of(&prompts(&app, &id, &players[0]).await, "submit_bid");
    let answer = app
        .command(&id, &players[0], bids.last().unwrap().clone())
        .await
        .ok();
    let seq = answer["version"].as_u64().unwrap();
    dispute_shows_each_reader_only_its_view(&app, &id, &players, seq, "a sealed bid").await;

    // Bandits: seat 1's hand (BD-501), in the state before any move of seat 1.
    let players = players_for(&app, "bandits").await;
    let (id, _) = game_where(&app, "bandits", &players, |p| {
        waiting(p).iter().any(|(seat, _)| *seat == 1) && p["version"].as_u64().unwrap() > 20
    })
    .await;
    let mine = prompts(&app, &id, &players[0]).await;
    let command = mine["legal"][0].clone();
    let answer = app.command(&id, &players[0], command).await.ok();
    let seq = answer["version"].as_u64().unwrap();
    let filer = app
        .get(&format!("/v1/games/{id}/audit/{seq}"), &players[0].token)
        .await
        .ok();
    assert!(
        filer["state_before"]["hands"][0]["cards"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "seat 1 holds cards: {}",
        filer["state_before"]["hands"][0]
    );
    dispute_shows_each_reader_only_its_view(&app, &id, &players, seq, "a Bandits hand").await;
}

/// Starts a server of its own on `app`'s database — a fresh process as far as the game is
/// concerned: empty cache, its own pool — and points `app` at it, after stopping `previous`.
async fn restart(
    app: &mut TestApp,
    previous: Option<actix_web::dev::ServerHandle>,
) -> actix_web::dev::ServerHandle {
    if let Some(previous) = previous {
        previous.stop(true).await;
    }
    let url = homestretch_tests::database_url(&app.database);
    let pool = infra::db::connect(&url, 4).await.expect("connect");
    let config = homestretch_tests::test_config();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    app.address = format!("http://{}", api::app::local_addr(&listener));
    app.state = api::app::app_state(pool, &config);
    let server = api::app::serve(listener, app.state.clone(), &config).expect("serve");
    let handle = server.handle();
    actix_web::rt::spawn(server);
    handle
}

/// Every endpoint of a started game answers (no 5xx) for `player`.
async fn every_endpoint_answers(app: &TestApp, id: &str, player: &Player) {
    for path in [
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/prompts"),
        format!("/v1/games/{id}/events?after=0&limit=1000"),
        format!("/v1/games/{id}/export"),
        format!("/v1/games/{id}/audit"),
        format!("/v1/games/{id}/audit/1"),
    ] {
        let answer = app.get(&path, &player.token).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
    }
}

/// `state?at=N` for every N in `range`, against a fold of `events` (payloads, in log order).
async fn replay_matches_a_fold(
    app: &TestApp,
    id: &str,
    kind: &str,
    player: &Player,
    viewer: domain::Viewer,
    events: &[(String, Value)],
) {
    let game = domain::game(kind).expect("a kind we host");
    let mut state = game.new_state();
    for at in 0..=events.len() {
        if at > 0 {
            let (event_type, payload) = &events[at - 1];
            if infra::store::Entry::of(event_type) == infra::store::Entry::Game {
                state
                    .apply(payload, game.event_schema_version())
                    .expect("replays");
            }
        }
        let answer = app
            .get(&format!("/v1/games/{id}/state?at={at}"), &player.token)
            .await;
        assert_eq!(answer.status, 200, "{kind} state?at={at}: {}", answer.text);
        assert_eq!(
            answer.body["view"],
            state.view(viewer),
            "{kind}: the replay at {at} differs from a fold of the log"
        );
    }
}

/// The stored log of a game, as the store holds it (every payload).
async fn log_of(app: &TestApp, id: &str) -> Vec<(String, Value)> {
    let store = infra::store::Store::new(app.pool.clone());
    store
        .events(id.parse().unwrap(), 0, None, 100_000)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.kind, e.payload))
        .collect()
}

async fn snapshots_of(app: &TestApp, id: &str) -> i64 {
    let id: uuid::Uuid = id.parse().unwrap();
    sqlx::query_scalar("SELECT count(*) FROM snapshots WHERE game_id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Issue 11, item 3: in every game, a game played across several snapshots survives a restart
/// in its middle (the new process loads it from a snapshot): every endpoint answers, the
/// replay at every version equals a fold of the log, before and after the end, and the game
/// can be played on to its end.
#[actix_web::test]
async fn every_game_crosses_snapshots_and_a_restart_and_plays_on_to_its_end() {
    let mut app = spawn_app().await;
    let mut server = restart(&mut app, None).await;
    // Short tables of each game (every kind; the drills play all options and seat counts).
    for (kind, seats, options) in [
        ("whisky_race", 3, json!({})),
        ("mush", 2, json!({"layout": "first_game"})),
        (
            "bandits",
            3,
            json!({"pawns_per_player": 1, "bounty_hunter": true}),
        ),
    ] {
        let players = players(&app, seats).await;
        grant_admin(&app, &players[0]).await;
        let mut played = false;
        for attempt in 0..6 {
            let id = app
                .started_game(
                    kind,
                    &players,
                    options.clone(),
                    Some(&format!("snap-{attempt}")),
                )
                .await;
            let mut rng = Lcg(attempt);
            // Past the first snapshot (version 128), then a restart.
            let past = |p: &Value| p["version"].as_u64().unwrap() > 200;
            if advance(&app, &id, &players, &mut rng, 5000, &past)
                .await
                .is_none()
            {
                continue;
            }
            server = restart(&mut app, Some(server)).await;
            every_endpoint_answers(&app, &id, &players[1]).await;
            let log = log_of(&app, &id).await;
            replay_matches_a_fold(
                &app,
                &id,
                kind,
                &players[0],
                domain::Viewer::Seat(domain::Seat::new(1).unwrap()),
                &log,
            )
            .await;
            // On to the end.
            let never = |_: &Value| false;
            assert!(
                advance(&app, &id, &players, &mut rng, 50_000, &never)
                    .await
                    .is_none()
            );
            let log = log_of(&app, &id).await;
            if log.len() <= 3 * 128 {
                continue; // too short to cross several snapshots: another game
            }
            assert!(
                snapshots_of(&app, &id).await >= 3,
                "{kind}: snapshots written"
            );
            let (checked, bad) = app
                .state
                .services
                .replays
                .check_snapshots(id.parse().unwrap())
                .await
                .unwrap();
            assert!(
                bad.is_empty(),
                "{kind}: snapshots {bad:?} differ from the log"
            );
            eprintln!(
                "{kind}: {} events, {checked} snapshots; restarted past version 200 and at the end",
                log.len()
            );
            server = restart(&mut app, Some(server)).await;
            every_endpoint_answers(&app, &id, &players[2 % seats]).await;
            replay_matches_a_fold(
                &app,
                &id,
                kind,
                &players[0],
                domain::Viewer::Omniscient,
                &log,
            )
            .await;
            let finished = app
                .get(&format!("/v1/games/{id}"), &players[0].token)
                .await
                .ok();
            assert_eq!(finished["status"], "finished");
            played = true;
            break;
        }
        assert!(played, "{kind}: no game crossed several snapshots");
    }
    server.stop(true).await;
}

/// A snapshot that does not load never bricks a game: the log is folded instead (and the
/// snapshot rewritten), never a 500.
#[actix_web::test]
async fn a_snapshot_that_does_not_load_never_bricks_a_game() {
    let mut app = spawn_app().await;
    let mut server = restart(&mut app, None).await;
    let players = players(&app, 3).await;
    let id = seeded_game(&app, "whisky_race", &players, json!({})).await;
    let mut rng = Lcg(3);
    let past = |p: &Value| p["version"].as_u64().unwrap() > 140;
    advance(&app, &id, &players, &mut rng, 5000, &past)
        .await
        .expect("past the first snapshot");
    let before = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    let game: uuid::Uuid = id.parse().unwrap();
    sqlx::query("UPDATE snapshots SET state = '{\"not\": \"a state\"}' WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await
        .unwrap();
    // `homestretch snapshots verify` names it.
    let (checked, bad) = app
        .state
        .services
        .replays
        .check_snapshots(id.parse().unwrap())
        .await
        .unwrap();
    assert!(
        checked >= 1 && bad.len() == checked,
        "{checked} checked, {bad:?} bad"
    );
    server = restart(&mut app, Some(server)).await;
    every_endpoint_answers(&app, &id, &players[0]).await;
    let after = app
        .get(&format!("/v1/games/{id}"), &players[0].token)
        .await
        .ok();
    assert_eq!(after["view"], before["view"]);
    let log = log_of(&app, &id).await;
    let seat1 = domain::Viewer::Seat(domain::Seat::new(1).unwrap());
    replay_matches_a_fold(&app, &id, "whisky_race", &players[0], seat1, &log).await;
    // The broken snapshot was rewritten from the fold.
    let broken: i64 =
        sqlx::query_scalar("SELECT count(*) FROM snapshots WHERE game_id = $1 AND state ? 'not'")
            .bind(game)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(broken, 0);
    let (_, bad) = app
        .state
        .services
        .replays
        .check_snapshots(id.parse().unwrap())
        .await
        .unwrap();
    assert!(bad.is_empty(), "rewritten from the fold: {bad:?}");
    // The game plays on (`advance` asserts that every command is accepted).
    advance(&app, &id, &players, &mut rng, 5, &|_: &Value| false).await;
    server.stop(true).await;
}

/// 120 levels of nesting around ~60 KiB of junk: the body stays under the 64 KiB limit and
/// serde's depth limit, so only the unknown-field rule stands in the way.
fn deep_junk() -> Value {
    let mut junk = json!("x".repeat(60 * 1024));
    for _ in 0..120 {
        junk = json!({ "a": junk });
    }
    junk
}

fn with_field(command: &Value, name: &str, value: Value) -> Value {
    let mut command = command.clone();
    command[name] = value;
    command
}

/// Issue 11, item 9: in every game, a command with a field it does not have is refused (422)
/// and nothing is recorded — for struct commands and for commands with no fields at all, which
/// serde's `deny_unknown_fields` alone lets through.
#[actix_web::test]
async fn commands_with_unknown_fields_are_refused_and_nothing_is_recorded() {
    let app = spawn_app().await;
    for game in domain::games() {
        let kind = game.kind();
        let players = players(&app, 3).await;
        let id = seeded_game(&app, kind, &players, json!({})).await;
        let mut rng = Lcg(5);
        let (mut unit, mut fields) = (None, None);
        for _ in 0..3000 {
            let now = prompts(&app, &id, &players[0]).await;
            for (seat, _) in waiting(&now) {
                let mine = prompts(&app, &id, &players[seat - 1]).await;
                for command in mine["legal"].as_array().unwrap() {
                    let slot = if command.as_object().unwrap().len() == 1 {
                        &mut unit
                    } else {
                        &mut fields
                    };
                    slot.get_or_insert((seat, command.clone()));
                }
            }
            if unit.is_some() && fields.is_some() {
                break;
            }
            (unit, fields) = (None, None);
            let seats = waiting(&now);
            let (seat, _) = &seats[rng.pick(seats.len())];
            let player = &players[seat - 1];
            let legal = prompts(&app, &id, player).await["legal"].clone();
            let legal = legal.as_array().unwrap();
            app.command(&id, player, legal[rng.pick(legal.len())].clone())
                .await
                .ok();
        }
        let head = version(&app, &id, &players[0]).await;
        let unit = unit.expect("a command with no fields");
        let fields = fields.expect("a command with fields");
        for (seat, command) in [&unit, &fields] {
            let player = &players[seat - 1];
            let other = seat % 3 + 1;
            for bad in [
                with_field(command, "junk", deep_junk()),
                // another seat's number, as if it could act for it
                with_field(command, "seat", json!(other)),
                with_field(command, "junk", Value::Null),
            ] {
                let answer = app.command(&id, player, bad).await;
                let problem = answer.problem(422);
                assert!(
                    problem["detail"]
                        .as_str()
                        .unwrap()
                        .contains("unknown field"),
                    "{kind}: {}",
                    answer.text
                );
            }
            assert_eq!(
                version(&app, &id, &players[0]).await,
                head,
                "{kind}: nothing appended"
            );
        }
        // The same command without the extra field is accepted: it was legal.
        let (seat, command) = unit;
        app.command(&id, &players[seat - 1], command).await.ok();
        // Nothing of the junk reached the log.
        let game_id: uuid::Uuid = id.parse().unwrap();
        let recorded: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM commands WHERE game_id = $1 AND (command ? 'junk' OR command ? 'seat')",
        )
        .bind(game_id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(recorded, 0, "{kind}: an unknown field was recorded");
    }
}

/// Issue 11, item 9: numbers beyond `int64` (or a parameter's type) are a 422 problem, never
/// clamped or wrapped (`after=2^63` used to wrap to a negative seq and answer from seq 1).
#[actix_web::test]
async fn numbers_that_overflow_are_refused() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let token = &players[0].token;
    let too_big = "9223372036854775808"; // 2^63
    for path in [
        format!("/v1/games/{id}/events?after={too_big}"),
        format!("/v1/games/{id}/events?after=18446744073709551616"),
        format!("/v1/games/{id}/events?after=-1"),
        format!("/v1/games/{id}/events?limit=4294967297"),
        format!("/v1/games/{id}/state?at={too_big}"),
        format!("/v1/games/{id}/state?at=18446744073709551616"),
        "/v1/games?limit=4294967296".to_string(),
    ] {
        let answer = app.get(&path, token).await;
        answer.problem(422);
    }
    let stream = app
        .request(
            "GET",
            &format!("/v1/games/{id}/events/stream"),
            Some(token),
            None,
            &[("last-event-id", too_big)],
        )
        .await;
    stream.problem(422);
    let legal = prompts(&app, &id, &players[0]).await["legal"][0].clone();
    let head = version(&app, &id, &players[0]).await;
    let body = format!(r#"{{"command": {legal}, "expected_version": {too_big}}}"#);
    let raw = app
        .client
        .post(app.url(&format!("/v1/games/{id}/commands")))
        .insert_header(("authorization", format!("Bearer {token}")))
        .insert_header(("content-type", "application/json"))
        .send_body(body)
        .await
        .unwrap()
        .status();
    assert_eq!(raw.as_u16(), 422, "expected_version 2^63");
    let answer = app
        .request(
            "POST",
            &format!("/v1/games/{id}/commands"),
            Some(token),
            Some(&json!({"command": legal})),
            &[("if-match", &format!("\"{too_big}\""))],
        )
        .await;
    answer.problem(422);
    assert_eq!(
        version(&app, &id, &players[0]).await,
        head,
        "nothing appended"
    );
    // In range, the same requests work.
    app.get(&format!("/v1/games/{id}/events?after=0"), token)
        .await
        .ok();
    app.get(&format!("/v1/games/{id}/state?at={head}"), token)
        .await
        .ok();
}

/// Issue 11, item 9: every request body the API reads refuses a field it does not have
/// (422 problem+json), and nothing is created.
#[actix_web::test]
async fn every_request_body_refuses_unknown_fields() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    let lobby = app
        .post(
            "/v1/games",
            &players[0].token,
            &json!({"kind": "mush", "seats": 2}),
        )
        .await
        .ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let token = players[0].token.as_str();
    let legal = prompts(&app, &id, &players[0]).await["legal"][0].clone();
    for (path, token, body) in [
        (
            "/v1/auth/register".to_string(),
            None,
            json!({"name": "newcomer", "password": "long enough pw", "admin": true}),
        ),
        (
            "/v1/auth/login".to_string(),
            None,
            json!({"name": players[0].name, "password": "correct horse battery", "x": 1}),
        ),
        (
            "/v1/auth/guest".to_string(),
            None,
            json!({"name": "g", "is_admin": true}),
        ),
        (
            "/v1/auth/refresh".to_string(),
            None,
            json!({"refresh_token": players[0].refresh, "x": 1}),
        ),
        (
            "/v1/games".to_string(),
            Some(token),
            json!({"kind": "mush", "seats": 2, "x": 1}),
        ),
        (
            "/v1/games".to_string(),
            Some(token),
            json!({"kind": "mush", "seats": 2, "options": {"layout": "base", "x": 1}}),
        ),
        (
            format!("/v1/games/{lobby}/seats"),
            Some(players[1].token.as_str()),
            json!({"client_seed": "s", "seat": 1}),
        ),
        (
            format!("/v1/games/{id}/commands"),
            Some(token),
            json!({"command": legal, "seat": 2}),
        ),
        (
            format!("/v1/games/{id}/disputes"),
            Some(token),
            json!({"seq": 1, "reason": "r", "audit": {}}),
        ),
    ] {
        let answer = app.request("POST", &path, token, Some(&body), &[]).await;
        assert_eq!(answer.status, 422, "{path} {body}: {}", answer.text);
        assert!(
            answer.text.contains("unknown field"),
            "{path}: {}",
            answer.text
        );
        answer.problem(422);
    }
    // Nothing was created: no new user, no new game, no seat taken, no command, no dispute.
    let count = |sql: &'static str| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(
        count("SELECT count(*) FROM users WHERE name = 'newcomer' OR name LIKE 'g-%'").await,
        0
    );
    assert_eq!(count("SELECT count(*) FROM games").await, 2);
    assert_eq!(count("SELECT count(*) FROM game_seats").await, 4);
    assert_eq!(count("SELECT count(*) FROM disputes").await, 0);
}
