//! Issue 26, items 4 and 5, over real HTTP and a real PostgreSQL: a deadline belongs to the
//! decision it times (a trade offered and withdrawn over and over moves nobody's clock, not even
//! the trader's own), and a timed-out seat's sealed choice is drawn from the game's committed
//! randomness — not the "first legal" anybody could predict — and audits sound.

use crate::clocks::events;
use homestretch_tests::{Player, TestApp, commands_of, spawn_app};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn table(app: &TestApp, game: usize) -> Vec<Player> {
    let mut players = Vec::new();
    for name in ["ann", "bob", "cat"] {
        players.push(app.register(&format!("{name}{game}")).await);
    }
    players
}

fn at(event: &Value) -> time::OffsetDateTime {
    let text = event["recorded_at"].as_str().expect("recorded_at");
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .expect("an RFC 3339 time")
}

fn timed_out_seats(log: &[Value]) -> Vec<u64> {
    let mut seats: Vec<u64> = log
        .iter()
        .filter(|e| e["type"] == "seat_timed_out")
        .filter_map(|e| e["data"]["seat"].as_u64())
        .collect();
    seats.sort();
    seats.dedup();
    seats
}

/// Item 4. A Whisky Race with a 2 s clock: all three seats owe their sealed malt choice; seat 2
/// offers a trade and withdraws it every 0.7 s. On the old server every command moved every
/// deadline and nobody ever timed out; now each seat's decision times out 2 s after it began,
/// seat 2's own included, and each timeout names the entry its decision began at.
#[actix_web::test]
async fn a_trade_offered_and_withdrawn_over_and_over_holds_no_clock_off() {
    let app = spawn_app().await;
    let p = table(&app, 0).await;
    let clock = json!({"clock": {"per_decision_s": 2, "abandon_after": 100}});
    let id = app.started_game("whisky_race", &p, clock, None).await;
    let started = Instant::now();
    let mut trades = 0;
    let log = loop {
        let log = events(&app, &id, &p[0]).await;
        if timed_out_seats(&log) == [1, 2, 3] {
            break log;
        }
        assert!(
            started.elapsed() < Duration::from_secs(12),
            "after {trades} trades, timed out: {:?}",
            timed_out_seats(&log)
        );
        let offer = json!({"type": "offer_trade", "to": 3,
            "give": {"malt": 1, "markers": []}, "receive": {"malt": 0, "markers": []}});
        let answer = app.command(&id, &p[1], offer).await;
        if answer.status == 200 {
            trades += 1;
            let offered = answer.body["events"]
                .as_array()
                .expect("events")
                .iter()
                .find(|e| e["type"] == "trade_offered")
                .and_then(|e| e["data"]["offer"].as_u64());
            tokio::time::sleep(Duration::from_millis(350)).await;
            if let Some(offer) = offered {
                let withdraw = json!({"type": "withdraw_trade", "offer": offer});
                let answer = app.command(&id, &p[1], withdraw).await;
                assert!([200, 409, 422].contains(&answer.status), "{}", answer.text);
            }
            tokio::time::sleep(Duration::from_millis(350)).await;
        } else {
            // Seat 2's own choice was made for it: trading may be over for it.
            assert!([409, 422].contains(&answer.status), "{}", answer.text);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    assert!(trades >= 2, "seat 2 traded {trades} times");
    for timeout in log.iter().filter(|e| e["type"] == "seat_timed_out") {
        let since = timeout["data"]["since"]
            .as_u64()
            .expect("the decision's start");
        let began = log
            .iter()
            .find(|e| e["seq"].as_u64() == Some(since))
            .expect("the entry the decision began at");
        let waited = at(timeout) - at(began);
        // Never early, and not held off by the trades (the worker ticks every 100 ms).
        assert!(waited >= time::Duration::seconds(2), "{timeout} early");
        assert!(
            waited < time::Duration::milliseconds(3500),
            "{timeout} held off: {waited}"
        );
        // Nobody's decision began at a trade entry.
        assert!(
            !began["type"].as_str().unwrap_or("").starts_with("trade_"),
            "{timeout} counted from {began}"
        );
    }
}

/// Item 5. Whisky Races nobody plays: every seat's sealed malt choice times out. The defaults
/// are drawn from each game's committed seed, so they are not the lowest amount (the old "first
/// legal" default anybody could predict); after the reveal the audit re-draws each of them.
#[actix_web::test]
async fn a_timed_out_sealed_choice_is_drawn_from_the_seed_and_audits_sound() {
    let app = spawn_app().await;
    let mut defaults = Vec::new();
    let mut lowest = Vec::new();
    for game in 0..4 {
        let p = table(&app, game).await;
        let clock = json!({"clock": {"per_decision_s": 1, "abandon_after": 100}});
        let id = app.started_game("whisky_race", &p, clock, None).await;
        // The lowest amount each seat could choose: what the old default sent.
        for player in &p {
            let prompts = app
                .get(&format!("/v1/games/{id}/prompts"), &player.token)
                .await
                .ok();
            // All of them, from `choices` (`legal` is a short sample, issue 31).
            let amounts = commands_of(&prompts)
                .into_iter()
                .filter(|c| c["type"] == "submit_malt_choice")
                .filter_map(|c| c["amount"].as_u64());
            lowest.push(amounts.min().expect("a malt choice"));
        }
        let started = Instant::now();
        let revealed = loop {
            let log = events(&app, &id, &p[0]).await;
            if let Some(reveal) = log.iter().find(|e| e["type"] == "malt_revealed") {
                assert_eq!(timed_out_seats(&log), [1, 2, 3], "{log:?}");
                break reveal.clone();
            }
            assert!(started.elapsed() < Duration::from_secs(15), "no reveal");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let mut choices: Vec<(u64, u64)> = revealed["data"]["choices"]
            .as_array()
            .expect("choices")
            .iter()
            .map(|c| (c["seat"].as_u64().unwrap(), c["amount"].as_u64().unwrap()))
            .collect();
        choices.sort();
        defaults.extend(choices.iter().map(|(_, amount)| *amount));
        let audit = app
            .get(&format!("/v1/games/{id}/audit"), &p[0].token)
            .await
            .ok();
        assert_eq!(audit["sound"], true, "{audit}");
        let decisions = audit["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| c["name"] == "decisions")
            .expect("the decisions check")
            .clone();
        assert_eq!(decisions["passed"], true, "{decisions}");
        assert!(
            decisions["detail"]
                .as_str()
                .is_some_and(|d| d.contains("the seed draws")),
            "{decisions}"
        );
    }
    assert_eq!(defaults.len(), 12);
    assert_ne!(defaults, lowest, "every default was the lowest amount");
    let mut distinct = defaults.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 3, "defaults {defaults:?}");
}
