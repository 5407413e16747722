//! The server talks to the game only through `AnyGame` / JSON: registration, options,
//! commands and redaction as the server sees them.

use crate::any::{AnyState, EventData};
use crate::engine::{ScriptedRng, Seat, Viewer};
use serde_json::{Value, json};

#[test]
fn mush_is_registered_and_plays_through_json() {
    let game = crate::game("mush").expect("registered");
    assert_eq!(game.rules_version(), "mush/2.0.0");
    assert_eq!(game.seat_range(), 2..=6);
    assert_eq!(
        game.normalize_options(&json!(null)).expect("defaults"),
        json!({"layout": "base"})
    );
    assert_eq!(
        game.normalize_options(&json!({"layout": "first_game"}))
            .expect("named"),
        json!({"layout": "first_game"})
    );
    assert!(
        game.normalize_options(&json!({"layout": ["anchorage", "mars", "nome"]}))
            .is_err()
    );
    let mut state = game.new_state();
    for e in game
        .setup(&json!({}), 2, &mut ScriptedRng::dice(&[2]))
        .expect("setup")
    {
        state.apply(&e.payload, 2).expect("apply");
    }
    let (p1, p2) = (seat(1), seat(2));
    training_is_chosen_through_json(&mut *state, p1, p2);
    while state.view(Viewer::Spectator)["phase"] == "reroll_window" {
        let who = state.prompts()[0].seat;
        play(&mut *state, who, json!({"type": "pass_reroll"}), &[]);
    }
    assert_eq!(state.view(Viewer::Spectator)["phase"], "bidding");
    a_sealed_bid_is_redacted_for_the_others(&*state, p1, p2);
    // Unknown spaces are malformed commands, not panics.
    assert!(
        state
            .decide(
                p1,
                &json!({"type": "step", "to": "mars"}),
                &mut ScriptedRng::dice(&[])
            )
            .is_err()
    );
    state.check_invariants().expect("invariants");
}

fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}

/// When `who` sends `command` (with these dice), then it is accepted: its events, applied.
fn play(state: &mut dyn AnyState, who: Seat, command: Value, dice: &[u32]) -> Vec<EventData> {
    let events = state
        .decide(who, &command, &mut ScriptedRng::dice(dice))
        .expect("accepted");
    for e in &events {
        state.apply(&e.payload, 2).expect("apply");
    }
    events
}

/// MU-167: the first-trainer roll has its re-roll window, seat 1 polled first; then seat 2
/// (the first trainer) and seat 1 choose, and the last choice starts round 1.
fn training_is_chosen_through_json(state: &mut dyn AnyState, p1: Seat, p2: Seat) {
    assert_eq!(
        state.view(Viewer::Spectator)["reroll"]["roll"],
        "first_trainer"
    );
    for who in [p1, p2] {
        assert_eq!(state.prompts()[0].seat, who);
        play(state, who, json!({"type": "pass_reroll"}), &[]);
    }
    assert_eq!(state.prompts()[0].seat, p2);
    let cold = json!({"type": "choose_training", "training": "cold"});
    play(state, p2, cold, &[]);
    // The last choice starts round 1 and rolls the weather in the same command.
    let hot = json!({"type": "choose_training", "training": "hot"});
    let events = play(state, p1, hot, &[3]);
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["training_chosen", "round_started", "weather_rolled"]
    );
}

/// MU-033: a bid is sealed: another seat sees its commitment only, its bidder the amount.
fn a_sealed_bid_is_redacted_for_the_others(state: &dyn AnyState, p1: Seat, p2: Seat) {
    let bid = state
        .decide(
            p1,
            &json!({"type": "submit_bid", "amount": 4}),
            &mut ScriptedRng::dice(&[]),
        )
        .expect("bid");
    let masked = state
        .redact(&bid[0].payload, Viewer::Seat(p2))
        .expect("shown masked");
    assert_eq!(masked["amount"], json!(null));
    assert_eq!(masked["salt"], json!(null));
    assert_eq!(masked["commitment"], bid[0].payload["commitment"]);
    assert_eq!(
        state
            .redact(&bid[0].payload, Viewer::Seat(p1))
            .expect("own")["amount"],
        4
    );
}
