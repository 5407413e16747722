//! Homestretch rules engines. Every game is a decider (see [`engine::Game`]): pure, total,
//! no I/O, no clock, randomness passed in and recorded in events.
//!
//! The server knows no game by name: it is handed a [`Registry`] (by default [`registry()`])
//! and talks to each game through the erased interface [`AnyGame`]. Adding a game is a module
//! here and one line in [`games()`].

pub mod any;
pub mod bandits;
pub mod choices;
pub mod decider;
pub mod draw;
pub mod engine;
pub mod i18n;
pub mod sim;
pub mod timeout;

pub mod mush;
pub mod whisky_race;

// The unit tests simulate thousands of games: mimalloc instead of glibc's malloc takes a sixth
// off their time (issue 28: the test loop). The library itself sets no allocator.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub use any::{AnyGame, AnyState, Erased, EventData, GameSchemas, Rejection};
pub use engine::{Game, Outcome, Prompt, RuleViolation, Seat, Viewer};

/// Every game kind the server hosts by default, erased, in the order they are listed (the
/// OpenAPI document installs their schemas in this order).
pub fn games() -> &'static [&'static dyn AnyGame] {
    static WHISKY_RACE: Erased<whisky_race::WhiskyRace> =
        Erased::new().simulated_by(whisky_race::sim::simulate);
    static BANDITS: Erased<bandits::Bandits> = Erased::new().simulated_by(bandits::sim::simulate);
    static MUSH: Erased<mush::Mush> = Erased::new().simulated_by(mush::sim::simulate);
    static GAMES: &[&dyn AnyGame] = &[&WHISKY_RACE, &BANDITS, &MUSH];
    GAMES
}

/// The game of a `kind` tag among the default games, if we host it.
pub fn game(kind: &str) -> Option<&'static dyn AnyGame> {
    registry().get(kind)
}

/// The registry of the default games: what a server hosts unless it is handed another.
pub fn registry() -> Registry {
    games()
        .iter()
        .fold(Registry::empty(), |registry, game| registry.with(*game))
}

/// The games a server hosts: a value handed to the server at start, so a test can host a game
/// of its own beside (or instead of) the default ones. Everything outside `domain` iterates
/// over it instead of naming games.
#[derive(Clone, Default)]
pub struct Registry {
    games: Vec<&'static dyn AnyGame>,
}

/// A `kind` no registered game has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game kind `{kind}`; known kinds: {}", known.join(", "))]
pub struct UnknownKind {
    pub kind: String,
    pub known: Vec<&'static str>,
}

impl Registry {
    pub fn empty() -> Self {
        Registry::default()
    }

    /// Adds `game`. Two games with one kind is a programming error, caught at start-up.
    pub fn with(mut self, game: &'static dyn AnyGame) -> Self {
        assert!(
            self.get(game.kind()).is_none(),
            "two games are registered as `{}`",
            game.kind()
        );
        self.games.push(game);
        self
    }

    pub fn games(&self) -> &[&'static dyn AnyGame] {
        &self.games
    }

    pub fn kinds(&self) -> Vec<&'static str> {
        self.games.iter().map(|g| g.kind()).collect()
    }

    pub fn get(&self, kind: &str) -> Option<&'static dyn AnyGame> {
        self.games.iter().copied().find(|g| g.kind() == kind)
    }

    /// The game of `kind`, or an error naming every kind this registry knows.
    pub fn find(&self, kind: &str) -> Result<&'static dyn AnyGame, UnknownKind> {
        self.get(kind).ok_or_else(|| UnknownKind {
            kind: kind.to_string(),
            known: self.kinds(),
        })
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Registry").field(&self.kinds()).finish()
    }
}

/// Plays `games` random-bot games of `kind` (a default game) and returns their statistics.
pub fn simulate(kind: &str, games: u64, seed: u64) -> Result<serde_json::Value, String> {
    registry()
        .find(kind)
        .map_err(|e| e.to_string())?
        .simulate(games, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_kind_names_every_known_kind() {
        let registry = registry();
        let error = registry.find("chess").map(|g| g.kind()).unwrap_err();
        assert_eq!(error.known, registry.kinds());
        for kind in registry.kinds() {
            assert!(error.to_string().contains(kind), "{error}");
            assert_eq!(registry.find(kind).map(|g| g.kind()), Ok(kind));
        }
    }

    #[test]
    #[should_panic(expected = "two games are registered as")]
    fn a_kind_is_registered_once() {
        let _ = registry().with(games()[0]);
    }

    #[test]
    fn every_default_game_documents_its_four_wire_types() {
        for game in registry().games() {
            let roles: Vec<&str> = game.schemas().roles.iter().map(|(r, _)| *r).collect();
            assert_eq!(
                roles,
                ["Command", "Event", "Options", "View"],
                "{}",
                game.kind()
            );
        }
    }
}
