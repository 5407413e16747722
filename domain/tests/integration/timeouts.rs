//! Issue 17, the timeout policy of every game: over random games of every kind, at every
//! decision the game waits for, the seat's default move (`AnyState::default_move`, what the
//! server sends when the seat's clock runs out) exists, answers the decision (its kind is one
//! the game waits for) and is accepted by `decide`. Prints the policy observed per decision
//! with `--nocapture` (the tables in `docs/rules/*.md`).
//!
//! Mush's override: at the start of a turn, when a declaration (`declare_move`, `declare_rest`)
//! and avalanche actions (5 tokens each) are both legal, the default is a declaration, never an
//! avalanche action; the games must have met that case.

use domain::engine::{ChaChaRng, Prompt, RngExt, seeded};
use domain::{AnyGame, AnyState, games};
use std::collections::BTreeMap;

#[test]
fn every_waited_for_decision_has_an_accepted_default_move() {
    for game in games() {
        let mut policy: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        // Decisions where a declaration and an avalanche action were both legal.
        let mut declaration_or_avalanche = 0;
        for g in 0..3u64 {
            let (mut state, mut rng) = set_up(*game, g, 0x7173);
            for _step in 0..2000 {
                if state.outcome().is_some() {
                    break;
                }
                let prompts = state.prompts();
                for prompt in prompts.iter().filter(|p| p.must) {
                    let default = state.default_move(prompt.seat).unwrap_or_else(|| {
                        panic!("{}: no default move for {prompt:?}", game.kind())
                    });
                    let tag = default["type"].as_str().unwrap_or("").to_string();
                    assert!(
                        prompt.kinds.iter().any(|k| *k == tag),
                        "{}: default {default} does not answer {prompt:?}",
                        game.kind()
                    );
                    let tags: Vec<String> = state
                        .legal(prompt.seat)
                        .iter()
                        .map(|c| c["type"].as_str().unwrap_or("").to_string())
                        .collect();
                    if tags.iter().any(|t| t.starts_with("declare_")) {
                        assert!(
                            !tag.ends_with("_avalanche"),
                            "{}: default {default} spends tokens on an avalanche where a \
                             declaration is legal",
                            game.kind()
                        );
                        if tags.iter().any(|t| t.ends_with("_avalanche")) {
                            declaration_or_avalanche += 1;
                        }
                    }
                    let mut dice = seeded(g);
                    state
                        .decide(prompt.seat, &default, &mut dice)
                        .unwrap_or_else(|e| {
                            panic!("{}: default {default} refused: {e}", game.kind())
                        });
                    let mut kinds: Vec<String> =
                        prompt.kinds.iter().map(|k| k.to_string()).collect();
                    kinds.sort();
                    *policy
                        .entry(kinds.join("|"))
                        .or_default()
                        .entry(tag)
                        .or_default() += 1;
                }
                // Play on: a random prompted seat, a random command of it.
                if let Some(next) = play_on(state.as_ref(), &prompts, &mut rng) {
                    state = next;
                }
            }
        }
        if game.kind() == "mush" {
            assert!(
                declaration_or_avalanche > 0,
                "mush: no decision offered both a declaration and an avalanche action"
            );
        }
        println!("{}:", game.kind());
        for (kinds, defaults) in &policy {
            println!("  waits for {kinds} -> {defaults:?}");
        }
    }
}

/// Issue 26, item 5: over random games of every kind, at every decision the game waits for, the
/// clock-version-2 default (`AnyState::timeout_move`) is legal, answers the decision and is
/// accepted; the same seed draws it again (what the audit re-draws); and where the decision is
/// sealed (a Whisky Race malt choice or bid, a Mush order bid, a Bandits hand-limit discard) the
/// draw follows the seed: over 16 seeds it takes several values, not the cheapest every time.
#[test]
fn sealed_defaults_are_drawn_from_the_seed_and_redrawn_alike() {
    use domain::timeout::timeout_rng;
    let client_seeds = vec!["ann".to_string(), "bob".to_string()];
    for game in games() {
        let mut drawn_positions = 0;
        for g in 0..2u64 {
            let (mut state, mut rng) = set_up(*game, g, 0x2626);
            for step in 0..3000u64 {
                if state.outcome().is_some() {
                    break;
                }
                let prompts = state.prompts();
                for prompt in prompts.iter().filter(|p| p.must) {
                    let draw = |seed: u8| {
                        let mut rng = timeout_rng(&[seed; 32], &client_seeds, step);
                        state
                            .timeout_move(prompt.seat, &mut rng)
                            .unwrap_or_else(|| {
                                panic!("{}: no timeout move for {prompt:?}", game.kind())
                            })
                    };
                    // Three seeds first: a decision whose draws agree with the cheapest is not
                    // sealed (or drew alike by chance); it is checked like any other default.
                    let cheapest = state.default_move(prompt.seat);
                    let mut draws: Vec<_> = (0..3u8).map(draw).collect();
                    let sealed = draws.iter().any(|d| Some(d) != cheapest.as_ref());
                    if sealed {
                        draws.extend((3..16u8).map(draw));
                        drawn_positions += 1;
                    }
                    assert_eq!(
                        draws[1],
                        draw(1),
                        "{}: a seed draws one default",
                        game.kind()
                    );
                    let mut distinct = draws.clone();
                    distinct.sort_by_key(|d| d.to_string());
                    distinct.dedup();
                    assert!(
                        !sealed || distinct.len() > 1,
                        "{}: 16 seeds drew one default",
                        game.kind()
                    );
                    for default in &distinct {
                        let tag = default["type"].as_str().unwrap_or("");
                        assert!(
                            prompt.kinds.iter().any(|k| k == tag),
                            "{}: {default} does not answer {prompt:?}",
                            game.kind()
                        );
                        let mut dice = seeded(step);
                        state
                            .decide(prompt.seat, default, &mut dice)
                            .unwrap_or_else(|e| panic!("{}: {default} refused: {e}", game.kind()));
                    }
                }
                // Play on: a random prompted seat, a random command of it.
                if let Some(next) = play_on(state.as_ref(), &prompts, &mut rng) {
                    state = next;
                }
            }
        }
        println!("{}: {drawn_positions} sealed decisions drawn", game.kind());
        assert!(
            drawn_positions > 0,
            "{}: no sealed decision met in random games",
            game.kind()
        );
    }
}

/// A new random game of `game` (seat count and options from `g`), set up with `seed + g`.
fn set_up(game: &dyn AnyGame, g: u64, seed: u64) -> (Box<dyn AnyState>, ChaChaRng) {
    let seats = *game.seat_range().start() + (g % 2) as u8;
    let mut rng = seeded(seed + g);
    let options = game.option_samples(seats)[0].clone();
    let mut state = game.new_state();
    for event in game.setup(&options, seats, &mut rng).expect("setup") {
        state
            .apply(&event.payload, game.event_schema_version())
            .expect("applies");
    }
    (state, rng)
}

/// The state after a random legal command of a random prompted seat (none when it has none).
fn play_on(
    state: &dyn AnyState,
    prompts: &[Prompt],
    rng: &mut ChaChaRng,
) -> Option<Box<dyn AnyState>> {
    let prompt = &prompts[rng.index(prompts.len())];
    let legal = state.legal(prompt.seat);
    if legal.is_empty() {
        return None;
    }
    let command = legal[rng.index(legal.len())].clone();
    let (_, next) = state
        .decide_next(prompt.seat, &command, rng)
        .expect("a legal command is accepted");
    Some(next)
}
