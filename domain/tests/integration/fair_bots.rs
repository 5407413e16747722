//! Issue 17, fair bots: a server bot decides only from what its seat may see.
//!
//! Over thousands of positions of random games of every kind, for every seat the game waits
//! for: a **twin** of the position, with the same view for that seat but other hidden
//! information (the seat's sample of it, `AnyState::determinize`, from another rng), gets the
//! same prompts and legal commands, the same samples, and the same command from both bot
//! policies given the same rng. The command is accepted by `decide`. And the test can fail: the
//! omniscient greedy bot (the candidates judged on the real state, as bots did before) chooses
//! differently between a position and its twin somewhere.

use domain::engine::{ChaChaRng, RngExt, Seat, Viewer, seeded};
use domain::sim::{Policy, bot_candidates, bot_move, greedy_pick};
use domain::{AnyGame, AnyState, Prompt, games};

/// What one game kind's positions showed.
#[derive(Default, Debug)]
struct Tally {
    /// (position, seat) pairs checked.
    positions: usize,
    /// … whose twin had other hidden information than the position itself.
    hidden_differs: usize,
    /// … where the omniscient greedy bot chose differently in the position and its twin.
    omniscient_differs: usize,
}

fn bot_rng(step: usize) -> ChaChaRng {
    seeded(0xB07 + step as u64)
}

fn evaluation(step: usize) -> impl FnMut() -> ChaChaRng {
    move || seeded(0xE7A1 + step as u64)
}

/// The fair bot's command for `prompt` in `state`, with the rngs of `step`.
fn fair_choice(state: &dyn AnyState, prompt: &Prompt, policy: Policy, step: usize) -> String {
    let chosen = bot_move(
        state,
        prompt,
        policy,
        &mut bot_rng(step),
        &mut evaluation(step),
    );
    serde_json::to_string(&chosen).unwrap()
}

/// The greedy bot as it was before issue 17's fairness: every candidate judged on `state`
/// itself, hidden information included.
fn omniscient_choice(state: &dyn AnyState, prompt: &Prompt, step: usize) -> String {
    let pool = bot_candidates(state, prompt);
    let chosen = greedy_pick(
        &[state.clone_box()],
        prompt.seat,
        &pool[..pool.len().min(domain::sim::GREEDY_CANDIDATES)],
        &mut evaluation(step),
    );
    serde_json::to_string(&chosen).unwrap()
}

/// One position, one seat the game waits for: the checks of the module's doc.
fn check_position(
    kind: &str,
    state: &dyn AnyState,
    prompt: &Prompt,
    (seed, step): (u64, usize),
    tally: &mut Tally,
) {
    let seat = prompt.seat;
    let at = format!("{kind} seed {seed} step {step} {seat}");
    let twin = state.determinize(seat, &mut seeded(seed ^ ((step as u64) << 8)));
    let me = Viewer::Seat(seat);
    assert_eq!(
        state.view(me),
        twin.view(me),
        "{at}: the twin looks different"
    );
    assert_eq!(state.prompts(), twin.prompts(), "{at}: prompts differ");
    assert_eq!(state.legal(seat), twin.legal(seat), "{at}: legal differs");
    // The seat's sample of what it cannot see is a function of its view and the rng only.
    let sample = |s: &dyn AnyState| s.determinize(seat, &mut seeded(step as u64)).to_json();
    assert_eq!(sample(state), sample(&*twin), "{at}: the samples differ");
    tally.positions += 1;
    tally.hidden_differs += usize::from(state.to_json() != twin.to_json());
    for policy in [Policy::Random, Policy::Greedy] {
        let chosen = fair_choice(state, prompt, policy, step);
        assert_eq!(
            chosen,
            fair_choice(&*twin, prompt, policy, step),
            "{at}: the {policy:?} bot's choice depends on hidden information"
        );
        let command: serde_json::Value = serde_json::from_str(&chosen).unwrap();
        assert!(!command.is_null(), "{at}: the {policy:?} bot chose nothing");
        if let Err(e) = state.decide(seat, &command, &mut seeded(step as u64)) {
            panic!("{at}: the {policy:?} bot's {command} was refused: {e}");
        }
    }
    if omniscient_choice(state, prompt, step) != omniscient_choice(&*twin, prompt, step) {
        tally.omniscient_differs += 1;
    }
}

/// Plays one random game of `game` (random bots: `bot_move`'s random policy, at a random seat
/// the game waits for) and checks every position on the way.
fn play(game: &dyn AnyGame, seats: u8, options: &serde_json::Value, seed: u64, tally: &mut Tally) {
    let mut rng = seeded(seed);
    let mut state = game.new_state();
    for event in game.setup(options, seats, &mut rng).expect("setup") {
        state
            .apply(&event.payload, game.event_schema_version())
            .expect("applies");
    }
    for step in 0..MAX_STEPS {
        if state.outcome().is_some() {
            return;
        }
        let waited: Vec<Prompt> = state.prompts().into_iter().filter(|p| p.must).collect();
        if waited.is_empty() {
            return;
        }
        for prompt in &waited {
            check_position(game.kind(), &*state, prompt, (seed, step), tally);
        }
        let prompt = &waited[rng.index(waited.len())];
        let command = bot_move(
            &*state,
            prompt,
            Policy::Random,
            &mut rng,
            &mut evaluation(step),
        )
        .expect("a waited-for seat has a command");
        let (_, next) = state
            .decide_next(prompt.seat, &command, &mut rng)
            .expect("a bot's command is accepted");
        state = next;
    }
}

/// Commands per game: games are cut there (their positions are checked all the same).
const MAX_STEPS: usize = 400;

#[test]
fn bots_choose_the_same_in_every_state_their_seat_cannot_tell_apart() {
    bots_choose_the_same_over(POSITIONS_PER_GAME / 4);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_bots_choose_the_same_in_every_state_their_seat_cannot_tell_apart() {
    bots_choose_the_same_over(POSITIONS_PER_GAME);
}

/// At least `positions` positions of each game (a quarter of them in the default run, issue 28).
fn bots_choose_the_same_over(positions: usize) {
    let mut omniscient_differs = 0;
    for game in games() {
        let mut tally = Tally::default();
        let mut seed = 0u64;
        while tally.positions < positions {
            let seats = game.seat_range().start() + (seed % 3) as u8;
            let seats = seats.min(*game.seat_range().end());
            let samples = game.option_samples(seats);
            let options = &samples[seed as usize % samples.len()];
            play(*game, seats, options, 0xFA1 + seed, &mut tally);
            seed += 1;
        }
        eprintln!("{}: {tally:?} over {seed} games", game.kind());
        // Every game has hidden information, and its twins must have had other hidden
        // information than the position, or the comparison proves nothing.
        assert!(
            tally.hidden_differs * 10 >= tally.positions,
            "{}: too few twins differ from their position: {tally:?}",
            game.kind()
        );
        omniscient_differs += tally.omniscient_differs;
    }
    // The negative check: the old, omniscient greedy bot does tell twins apart, so the
    // comparisons above would have caught it.
    assert!(omniscient_differs > 0, "the omniscient bot never differed");
}

/// Positions checked per game kind (each with every seat the game waits for).
const POSITIONS_PER_GAME: usize = 2000;

/// The samples themselves are consistent: every sample keeps the game's invariants, and a
/// seat's bot never decides on information its own view lacks (its view of the sample is
/// its view of the position), for every seat, not only the one prompted.
#[test]
fn every_seats_sample_keeps_the_invariants_and_its_view() {
    for game in games() {
        let mut samples = 0;
        for seed in 0..6u64 {
            let seats = *game.seat_range().start() + (seed % 2) as u8;
            let options = &game.option_samples(seats)[0];
            let mut rng = seeded(0x5A + seed);
            let mut state = game.new_state();
            for event in game.setup(options, seats, &mut rng).expect("setup") {
                state
                    .apply(&event.payload, game.event_schema_version())
                    .expect("applies");
            }
            for step in 0..300 {
                if state.outcome().is_some() {
                    break;
                }
                for seat in Seat::all(seats) {
                    let sample = state.determinize(seat, &mut rng);
                    let at = format!("{} seed {seed} step {step} {seat}", game.kind());
                    sample
                        .check_invariants()
                        .unwrap_or_else(|e| panic!("{at}: sample breaks an invariant: {e}"));
                    assert_eq!(
                        state.view(Viewer::Seat(seat)),
                        sample.view(Viewer::Seat(seat)),
                        "{at}"
                    );
                    samples += 1;
                }
                let prompts = state.prompts();
                let seat = prompts[rng.index(prompts.len())].seat;
                let legal = state.legal(seat);
                let command = &legal[rng.index(legal.len())];
                state = state.decide_next(seat, command, &mut rng).expect("legal").1;
            }
        }
        assert!(samples > 1000, "{}: {samples}", game.kind());
    }
}

/// A fair bot's randomness is its own: the same position and rngs give the same command (the
/// server keys them by the game's seed and version, so the same log gives the same move).
#[test]
fn a_bots_move_is_a_function_of_the_position_and_its_rngs() {
    for game in games() {
        let seats = *game.seat_range().start();
        let mut rng = seeded(77);
        let mut state = game.new_state();
        let options = &game.option_samples(seats)[0];
        for event in game.setup(options, seats, &mut rng).expect("setup") {
            state
                .apply(&event.payload, game.event_schema_version())
                .expect("applies");
        }
        let prompt = state.prompts().into_iter().find(|p| p.must).expect("waits");
        for policy in [Policy::Random, Policy::Greedy] {
            let once = fair_choice(&*state, &prompt, policy, 3);
            assert_eq!(once, fair_choice(&*state, &prompt, policy, 3), "{policy:?}");
        }
    }
}
