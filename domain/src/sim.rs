//! Random-bot simulation, shared by every game: bots pick among `legal` commands of prompted
//! seats; every step checks that `decide` accepts what `legal` listed and that the game's
//! invariants hold; every game must end within a bound.
//!
//! Also the server's bots in seats (issue 17, [`bot_move`]): fair bots, which decide only from
//! what their seat may see.

use crate::any::AnyState;
/// Defined in `any.rs`, beside the [`crate::any::Simulation`] it is the error of (so `any.rs`
/// names no part of this file); named here too, where [`play_game`] returns it.
pub use crate::any::SimFailure;
use crate::engine::{ChaChaRng, Game, Outcome, Prompt, Rng, RngExt, Seat, seeded};
use serde_json::Value;

/// How a bot chooses among legal commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bot {
    Random,
    /// Picks the legal command whose result maximizes [`Game::heuristic`] for its seat, judged
    /// on the real state (hidden information included): a yardstick for the simulation
    /// statistics only, never a player; the server's bots are [`bot_move`]'s fair ones.
    Greedy,
}

/// One finished simulated game.
pub struct SimGame<G: Game> {
    pub state: G::State,
    pub outcome: Outcome,
    pub commands: usize,
    pub events: usize,
}

/// Plays one game with the given bots (one per seat; missing seats are random).
pub fn play_game<G: Game>(
    options: &G::Options,
    seats: u8,
    bots: &[Bot],
    seed: u64,
    max_commands: usize,
) -> Result<SimGame<G>, SimFailure> {
    let mut rng = seeded(seed);
    let fail = |step: usize, what: String| SimFailure { seed, step, what };
    let setup =
        G::setup(options, seats, &mut rng).map_err(|v| fail(0, format!("setup refused: {v}")))?;
    let mut state = G::State::default();
    let mut events = setup.len();
    for event in &setup {
        G::evolve(&mut state, event);
    }
    G::check_invariants(&state).map_err(|e| fail(0, format!("invariant after setup: {e}")))?;
    for step in 1..=max_commands {
        if let Some(outcome) = G::outcome(&state) {
            return Ok(SimGame {
                state,
                outcome,
                commands: step - 1,
                events,
            });
        }
        let prompts = G::prompts(&state);
        if prompts.is_empty() {
            return Err(fail(step, "game not over but nobody is prompted".into()));
        }
        let prompt = &prompts[rng.index(prompts.len())];
        let legal = G::legal(&state, prompt.seat);
        if legal.is_empty() {
            return Err(fail(
                step,
                format!("{} is prompted but has no legal command", prompt.seat),
            ));
        }
        let bot = bots
            .get(prompt.seat.index())
            .copied()
            .unwrap_or(Bot::Random);
        let command = match bot {
            Bot::Random => legal[rng.index(legal.len())].clone(),
            Bot::Greedy => greedy_choice::<G>(&state, prompt.seat, &legal, seed ^ step as u64),
        };
        let produced = G::decide(&state, prompt.seat, &command, &mut rng)
            .map_err(|v| fail(step, format!("legal command {command:?} refused: {v}")))?;
        events += produced.len();
        for event in &produced {
            G::check_event(&state, event)
                .map_err(|e| fail(step, format!("after {command:?}: {e}")))?;
            G::evolve(&mut state, event);
        }
        G::check_invariants(&state)
            .map_err(|e| fail(step, format!("invariant broken after {command:?}: {e}")))?;
    }
    Err(fail(
        max_commands,
        format!("game did not end within {max_commands} commands"),
    ))
}

fn greedy_choice<G: Game>(
    state: &G::State,
    seat: Seat,
    legal: &[G::Command],
    seed: u64,
) -> G::Command {
    let mut best = (i64::MIN, 0usize);
    for (i, command) in legal.iter().enumerate() {
        let mut rng: ChaChaRng = seeded(seed);
        let Ok(events) = G::decide(state, seat, command, &mut rng) else {
            continue;
        };
        let mut next = state.clone();
        for event in &events {
            G::evolve(&mut next, event);
        }
        let value = G::heuristic(&next, seat);
        if value > best.0 {
            best = (value, i);
        }
    }
    legal[best.1].clone()
}

// ---------------------------------------------------------------------------------------------
// Bots in seats (issue 17)
// ---------------------------------------------------------------------------------------------

/// A server bot's policy (`POST /v1/games/{id}/seats/bots {"policy": …}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A random kind among the commands the game waits for, then a random command of it.
    Random,
    /// The candidate whose result scores best for the seat ([`Game::heuristic`]), judged on
    /// states the seat cannot tell from the real one ([`Game::determinize`]).
    Greedy,
}

impl Policy {
    /// The policy of a seat's `bot` name: `greedy`, else random.
    pub fn named(name: &str) -> Policy {
        if name == "greedy" {
            Policy::Greedy
        } else {
            Policy::Random
        }
    }
}

/// The greedy bot weighs at most this many candidate commands (a bounded cost per move).
pub const GREEDY_CANDIDATES: usize = 48;

/// The greedy bot judges its candidates on this many samples of the hidden information.
pub const GREEDY_SAMPLES: usize = 2;

/// The commands a bot chooses among for `prompt`'s seat: its legal commands of the kinds the
/// game waits for (all its legal commands when none is of such a kind), in `legal`'s order.
/// Legal commands and prompts are what the seat itself fetches, so they show nothing hidden
/// from it (`domain/tests/integration/no_leaks.rs`; `fair_bots.rs` checks they are the same in every
/// state with the same view).
pub fn bot_candidates(state: &dyn AnyState, prompt: &Prompt) -> Vec<Value> {
    let legal = state.legal(prompt.seat);
    let waited: Vec<Value> = legal
        .iter()
        .filter(|c| prompt.kinds.iter().any(|k| k == tag(c)))
        .cloned()
        .collect();
    if waited.is_empty() { legal } else { waited }
}

fn tag(command: &Value) -> &str {
    command.get("type").and_then(Value::as_str).unwrap_or("")
}

/// A fair bot's command for the seat `prompt` waits for (issue 17): a function of the seat's
/// view and the bot's randomness only, never of what the seat may not see. `rng` draws the
/// bot's choices and its samples of the hidden information; `evaluation` gives the throwaway
/// dice each candidate is tried with (the same for every candidate). Deterministic given both.
pub fn bot_move(
    state: &dyn AnyState,
    prompt: &Prompt,
    policy: Policy,
    rng: &mut dyn Rng,
    evaluation: &mut dyn FnMut() -> ChaChaRng,
) -> Option<Value> {
    let candidates = bot_candidates(state, prompt);
    if candidates.is_empty() {
        return None;
    }
    match policy {
        Policy::Random => Some(random_pick(&candidates, rng)),
        Policy::Greedy => {
            let pool = greedy_pool(candidates, rng);
            // The candidates are judged on samples of what the seat cannot see, never on the
            // real hidden hands, sealed choices or deck order.
            let samples: Vec<Box<dyn AnyState>> = (0..GREEDY_SAMPLES)
                .map(|_| state.determinize(prompt.seat, rng))
                .collect();
            greedy_pick(&samples, prompt.seat, &pool, evaluation)
        }
    }
}

/// Uniform over the kinds first, then within the kind: a family with very many instances
/// (trade offers) does not crowd out ending the turn.
fn random_pick(candidates: &[Value], rng: &mut dyn Rng) -> Value {
    let mut kinds: Vec<&str> = candidates.iter().map(tag).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let kind = kinds[rng.index(kinds.len())];
    let of_kind: Vec<&Value> = candidates.iter().filter(|c| tag(c) == kind).collect();
    of_kind[rng.index(of_kind.len())].clone()
}

/// At most [`GREEDY_CANDIDATES`] of the candidates, dropped at random.
fn greedy_pool(mut pool: Vec<Value>, rng: &mut dyn Rng) -> Vec<Value> {
    while pool.len() > GREEDY_CANDIDATES {
        let i = rng.index(pool.len());
        pool.swap_remove(i);
    }
    pool
}

/// The command of `pool` whose results score best for `seat` summed over `states`, each
/// tried with the dice of `evaluation` (never the game's own next draws); the first of the
/// best on a tie. A command some state refuses is not chosen. Fair only when `states` are
/// (the determinized samples of [`bot_move`]): given the real state, it is the omniscient
/// greedy bot `fair_bots.rs` shows unfair.
pub fn greedy_pick(
    states: &[Box<dyn AnyState>],
    seat: Seat,
    pool: &[Value],
    evaluation: &mut dyn FnMut() -> ChaChaRng,
) -> Option<Value> {
    let mut best: Option<(i64, usize)> = None;
    'candidates: for (i, command) in pool.iter().enumerate() {
        let mut value: i64 = 0;
        for state in states {
            let mut dice = evaluation();
            match state.decide_next(seat, command, &mut dice) {
                Ok((_, next)) => value = value.saturating_add(next.heuristic(seat)),
                Err(_) => continue 'candidates,
            }
        }
        if best.is_none_or(|(b, _)| value > b) {
            best = Some((value, i));
        }
    }
    best.map(|(_, i)| pool[i].clone())
}
