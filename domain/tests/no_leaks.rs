//! No leaks, in every game: random games of every kind; at every version and for every seat,
//! nothing hidden from that seat appears in what it can fetch — its view, the prompts, its legal
//! list, the events as redacted for it, or the error it gets for a refused command.
//!
//! A secret is a string that an event carries but that the event's redacted form for the seat
//! does not (a salt, a card id in another hand, a deck order), and that the seat has not seen in
//! any event shown to it so far. (Sealed amounts are numbers; they are covered because their
//! salts are secret until the reveal, and by each game's own hidden-information tests.)

use domain::engine::{RngExt, Seat, Viewer, seeded};
use domain::{AnyGame, AnyState, games};
use serde_json::{Value, json};
use std::collections::HashSet;

fn strings(value: &Value, out: &mut HashSet<String>) {
    match value {
        Value::String(s) if s.len() >= 3 => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn check_game(
    game: &dyn AnyGame,
    options: &Value,
    seats: u8,
    seed: u64,
    max_commands: usize,
) -> usize {
    let mut checked = 0;
    let options = game.normalize_options(options).expect("options");
    let mut rng = seeded(seed);
    let mut state: Box<dyn AnyState> = game.new_state();
    let mut log: Vec<Value> = Vec::new();
    for e in game.setup(&options, seats, &mut rng).expect("setup") {
        state
            .apply(&e.payload, game.event_schema_version())
            .unwrap();
        log.push(e.payload);
    }
    for step in 0..max_commands {
        if state.outcome().is_some() {
            return checked;
        }
        for seat in Seat::all(seats) {
            let viewer = Viewer::Seat(seat);
            let mut secrets = HashSet::new();
            let mut seen = HashSet::new();
            for event in &log {
                let mut all = HashSet::new();
                strings(event, &mut all);
                match state.redact(event, viewer) {
                    Some(shown) => {
                        let mut visible = HashSet::new();
                        strings(&shown, &mut visible);
                        secrets.extend(all.difference(&visible).cloned());
                        seen.extend(visible);
                    }
                    None => secrets.extend(all),
                }
            }
            let secrets: Vec<String> = secrets.difference(&seen).cloned().collect();
            if secrets.is_empty() {
                continue;
            }
            checked += secrets.len();
            let mut fetched = vec![
                ("view", state.view(viewer).to_string()),
                ("prompts", serde_json::to_string(&state.prompts()).unwrap()),
                ("legal", Value::Array(state.legal(seat)).to_string()),
            ];
            // A refused command's error message must not name secrets either.
            for probe in [
                json!({"type": "no_such_command"}),
                json!({"type": "pass"}),
                json!({"type": "submit_bid", "amount": 1}),
            ] {
                if let Err(e) = state.decide(seat, &probe, &mut seeded(1)) {
                    fetched.push(("error", e.to_string()));
                }
            }
            for (what, text) in &fetched {
                for secret in &secrets {
                    assert!(
                        !(text.contains(&format!("\"{secret}\""))
                            || (what == &"error" && text.contains(secret.as_str()))),
                        "{} seed {seed} step {step}: {seat}'s {what} shows the secret {secret:?}",
                        game.kind()
                    );
                }
            }
        }
        let prompts = state.prompts();
        let seat = prompts[rng.index(prompts.len())].seat;
        let legal = state.legal(seat);
        let command = &legal[rng.index(legal.len())];
        for e in state
            .decide(seat, command, &mut rng)
            .expect("legal is accepted")
        {
            state
                .apply(&e.payload, game.event_schema_version())
                .unwrap();
            log.push(e.payload);
        }
    }
    checked
}

/// Every game at every seat count with every option sample (`Game::option_samples`), two
/// seeds each.
#[test]
fn no_seat_ever_sees_another_seats_secrets_in_any_game() {
    for game in games() {
        let mut checked = 0;
        for seats in game.seat_range() {
            for options in game.option_samples(seats) {
                for seed in 0..2 {
                    checked += check_game(*game, &options, seats, seed + u64::from(seats), 150);
                }
            }
        }
        // The check must have had secrets to look for, or it proves nothing.
        assert!(
            checked > 0,
            "{}: no secret was ever held back from a seat",
            game.kind()
        );
        eprintln!("{}: {checked} (seat, secret) pairs checked", game.kind());
    }
}
