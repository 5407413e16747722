//! The server talks to the game only through `AnyGame` / JSON: registration, options,
//! commands and redaction as the server sees them.

use crate::engine::{ScriptedRng, Seat, Viewer};
use serde_json::json;

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
    let p2 = Seat::new(2).expect("seat");
    let p1 = Seat::new(1).expect("seat");
    // MU-167: the first-trainer roll has its re-roll window, seat 1 polled first.
    assert_eq!(
        state.view(Viewer::Spectator)["reroll"]["roll"],
        "first_trainer"
    );
    for who in [p1, p2] {
        assert_eq!(state.prompts()[0].seat, who);
        for e in state
            .decide(
                who,
                &json!({"type": "pass_reroll"}),
                &mut ScriptedRng::dice(&[]),
            )
            .expect("pass")
        {
            state.apply(&e.payload, 2).expect("apply");
        }
    }
    assert_eq!(state.prompts()[0].seat, p2);
    let cmd = json!({"type": "choose_training", "training": "cold"});
    for e in state
        .decide(p2, &cmd, &mut ScriptedRng::dice(&[]))
        .expect("accepted")
    {
        state.apply(&e.payload, 2).expect("apply");
    }
    // The last choice starts round 1 and rolls the weather in the same command.
    let events = state
        .decide(
            p1,
            &json!({"type": "choose_training", "training": "hot"}),
            &mut ScriptedRng::dice(&[3]),
        )
        .expect("accepted");
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["training_chosen", "round_started", "weather_rolled"]
    );
    for e in &events {
        state.apply(&e.payload, 2).expect("apply");
    }
    while state.view(Viewer::Spectator)["phase"] == "reroll_window" {
        let who = state.prompts()[0].seat;
        for e in state
            .decide(
                who,
                &json!({"type": "pass_reroll"}),
                &mut ScriptedRng::dice(&[]),
            )
            .expect("pass")
        {
            state.apply(&e.payload, 2).expect("apply");
        }
    }
    assert_eq!(state.view(Viewer::Spectator)["phase"], "bidding");
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
