//! Homestretch rules engines. Every game is a decider (see [`engine::Game`]): pure, total,
//! no I/O, no clock, randomness passed in and recorded in events.

pub mod any;
pub mod bandits;
pub mod choices;
pub mod decider;
pub mod engine;
pub mod sim;

pub mod mush;
pub mod whisky_race;

pub use any::{AnyGame, AnyState, EventData, Rejection};
pub use engine::{Game, Outcome, Prompt, RuleViolation, Seat, Viewer};

/// Every game kind the server hosts, erased.
pub fn games() -> &'static [&'static dyn AnyGame] {
    static GAMES: &[&dyn AnyGame] = &[
        &any::Erased::<whisky_race::WhiskyRace>::new(),
        &any::Erased::<mush::Mush>::new(),
        &any::Erased::<bandits::Bandits>::new(),
    ];
    GAMES
}

/// The game of a `kind` tag, if we host it.
pub fn game(kind: &str) -> Option<&'static dyn AnyGame> {
    games().iter().copied().find(|g| g.kind() == kind)
}

/// Plays `games` random-bot games of `kind` and returns their statistics.
pub fn simulate(kind: &str, games: u64, seed: u64) -> Result<serde_json::Value, String> {
    match kind {
        "mush" => mush::simulate(games, seed).map_err(|f| f.to_string()),
        "bandits" => bandits::simulate(games, seed).map_err(|f| f.to_string()),
        "whisky_race" => whisky_race::sim::simulate(games, seed).map_err(|f| f.to_string()),
        _ => Err(format!("no simulation for game kind `{kind}`")),
    }
}
