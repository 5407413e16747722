//! The server answers a seat's prompts with its `choices` and a `legal` list drawn from them in
//! one computation (`AnyState::choices_and_legal`, issue 16): in every game, at every state of
//! random games of every seat count and option sample, that pair is exactly what `choices` and
//! the short sample of `legal` (issue 31) give one at a time.

use domain::engine::{RngExt, Seat, seeded};
use domain::{AnyState, games};

/// Commands played per game (CI): past the setup and through several kinds of decision.
const MAX_COMMANDS: u64 = 80;

fn check_every_seat(state: &dyn AnyState, seats: u8, context: &str) {
    for seat in Seat::all(seats) {
        let (choices, legal) = state.choices_and_legal(seat);
        assert_eq!(choices, state.choices(seat), "{context}: {seat}'s choices");
        assert_eq!(
            legal,
            domain::choices::legal_sample(state.legal(seat)),
            "{context}: {seat}'s legal list"
        );
    }
}

#[test]
fn choices_and_legal_at_once_equal_each_on_its_own_in_every_game() {
    for game in games() {
        for seats in game.seat_range() {
            for (sample, options) in game.option_samples(seats).iter().enumerate() {
                let mut rng = seeded(0xC401CE ^ u64::from(seats) ^ ((sample as u64) << 8));
                let schema = game.event_schema_version();
                let mut state = game.new_state();
                for event in game.setup(options, seats, &mut rng).expect("setup") {
                    state.apply(&event.payload, schema).expect("setup replays");
                }
                for step in 0..MAX_COMMANDS {
                    let context = format!("{} {seats} seats, {options}, step {step}", game.kind());
                    check_every_seat(state.as_ref(), seats, &context);
                    let prompts = state.prompts();
                    if state.outcome().is_some() || prompts.is_empty() {
                        break;
                    }
                    let seat = prompts[rng.index(prompts.len())].seat;
                    let legal = state.legal(seat);
                    let Some(command) = legal.get(rng.index(legal.len().max(1))) else {
                        break;
                    };
                    let (_, next) = state
                        .decide_next(seat, command, &mut rng)
                        .unwrap_or_else(|e| panic!("{context}: legal {command} refused: {e}"));
                    state = next;
                }
            }
        }
    }
}
