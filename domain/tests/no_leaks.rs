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

fn options_for(kind: &str, i: u64) -> (Value, u8) {
    match kind {
        "whisky_race" => (
            json!({"random_setup": i % 2 == 1, "group_bidding": i % 3 == 1, "englishman_offer": i % 4 == 1}),
            3 + (i % 4) as u8,
        ),
        "bandits" => (
            json!({"pawns_per_player": 1 + (i % 3) as u8, "bounty_hunter": i % 2 == 1}),
            2 + (i % 5) as u8,
        ),
        _ => (
            json!({"layout": if i.is_multiple_of(2) { json!("first_game") } else { json!("base") }}),
            2 + (i % 5) as u8,
        ),
    }
}

fn check_game(game: &dyn AnyGame, seed: u64, max_commands: usize) -> usize {
    let mut checked = 0;
    let (options, seats) = options_for(game.kind(), seed);
    let options = game.normalize_options(&options).expect("options");
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

#[test]
fn no_seat_ever_sees_another_seats_secrets_in_any_game() {
    for game in games() {
        let checked: usize = (0..12).map(|seed| check_game(*game, seed, 150)).sum();
        // The check must have had secrets to look for, or it proves nothing.
        assert!(
            checked > 0,
            "{}: no secret was ever held back from a seat",
            game.kind()
        );
        eprintln!("{}: {checked} (seat, secret) pairs checked", game.kind());
    }
}

/// Bandits: whether a `pass` is recorded as a `passed` fact or by what follows it (§5.1) never
/// depends on a hidden card: with every other seat's hand swapped for other cards of the deck,
/// the same `pass` yields the same kinds of events.
#[test]
fn bandits_passes_do_not_depend_on_hidden_cards() {
    use domain::bandits::{Bandits, Command, Options, state::HandCard};
    use domain::engine::Game;
    let mut compared = 0;
    for seed in 0..20u64 {
        let mut rng = seeded(seed + 900);
        let options = Options {
            pawns_per_player: 1 + (seed % 3) as u8,
            bounty_hunter: seed % 2 == 1,
            ..Options::default()
        };
        let seats = 2 + (seed % 5) as u8;
        let mut st =
            domain::engine::replay::<Bandits>(&Bandits::setup(&options, seats, &mut rng).unwrap());
        for _ in 0..400 {
            if st.winner.is_some() {
                break;
            }
            let seat = Bandits::prompts(&st)[0].seat;
            let legal = Bandits::legal(&st, seat);
            if legal.contains(&Command::Pass {}) {
                let mut other = st.clone();
                for s in Seat::all(seats).filter(|&s| s != seat) {
                    let hand: Vec<HandCard> = other.hands[s.index()].clone();
                    for (i, h) in hand.iter().enumerate() {
                        if let Some(fresh) = other.support_deck.pop_front() {
                            other.support_deck.push_back(h.card);
                            other.hands[s.index()][i].card = fresh;
                        }
                    }
                }
                let kinds = |st: &domain::bandits::State| -> Vec<String> {
                    Bandits::decide(st, seat, &Command::Pass {}, &mut seeded(5))
                        .unwrap()
                        .iter()
                        .map(Bandits::event_type)
                        .collect()
                };
                assert_eq!(kinds(&st), kinds(&other), "seed {seed}");
                compared += 1;
            }
            let cmd = legal[rng.index(legal.len())].clone();
            for e in Bandits::decide(&st, seat, &cmd, &mut rng).unwrap() {
                Bandits::evolve(&mut st, &e);
            }
        }
    }
    assert!(compared > 100, "{compared}");
}
