//! Random-bot simulation, shared by every game: bots pick among `legal` commands of prompted
//! seats; every step checks that `decide` accepts what `legal` listed and that the game's
//! invariants hold; every game must end within a bound.

use crate::engine::{ChaChaRng, Game, Outcome, RngExt, Seat, seeded};

/// How a bot chooses among legal commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bot {
    Random,
    /// Picks the legal command whose result maximizes [`Game::heuristic`] for its seat.
    Greedy,
}

/// One finished simulated game.
pub struct SimGame<G: Game> {
    pub state: G::State,
    pub outcome: Outcome,
    pub commands: usize,
    pub events: usize,
}

/// Why a simulated game failed: the seed reproduces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimFailure {
    pub seed: u64,
    pub step: usize,
    pub what: String,
}

impl std::fmt::Display for SimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seed {} step {}: {}", self.seed, self.step, self.what)
    }
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
