//! Snapshots load back: every game's state, at every version of random games of every kind,
//! option sample and seat count, goes through the store's snapshot encoding (`to_json`, then
//! JSON text into a `jsonb` column and back, then `state_from_json`) and comes back equal to the
//! folded state — and behaves the same: views for every viewer, prompts, legal commands, the
//! outcome and the next decision (same command, same dice → same events).
//!
//! CI plays `SNAPSHOT_GAMES` games (default 165: three of every kind × seat count × option
//! sample) of at most `SNAPSHOT_MAX_COMMANDS` commands (default 600) — but the smallest table
//! of every kind and option sample is played to its end once; a long run:
//! `SNAPSHOT_GAMES=3000 SNAPSHOT_MAX_COMMANDS=100000 cargo test -p domain --test integration snapshots::`.

use domain::engine::{Rng, RngExt, Seat, Viewer, seeded};
use domain::{AnyGame, AnyState, games};
use serde_json::Value;

/// What the store does to a snapshot: `to_json`, serialized to JSON text (sqlx binds `jsonb`
/// as text), parsed back on read. `jsonb` refuses NUL characters in strings: none may appear.
fn through_jsonb(value: &Value) -> (String, Value) {
    let text = serde_json::to_string(value).expect("a snapshot serializes");
    assert!(
        !text.contains("\\u0000"),
        "jsonb refuses NUL characters: {text}"
    );
    let parsed = serde_json::from_str(&text).expect("a snapshot parses back");
    (text, parsed)
}

fn viewers(seats: u8) -> Vec<Viewer> {
    let mut all: Vec<Viewer> = Seat::all(seats).map(Viewer::Seat).collect();
    all.extend([Viewer::Spectator, Viewer::Omniscient]);
    all
}

/// Everything a caller can observe of a state, for comparison.
fn observed(state: &dyn AnyState, seats: u8) -> Value {
    serde_json::json!({
        "views": viewers(seats).into_iter().map(|v| state.view(v)).collect::<Vec<_>>(),
        "prompts": state.prompts(),
        "legal": Seat::all(seats).map(|s| Value::Array(state.legal(s))).collect::<Vec<_>>(),
        "outcome": state.outcome(),
    })
}

/// Behaviour is compared at every this many commands (and at the end); the state itself at
/// every version.
const BEHAVIOUR_EVERY: u64 = 8;

struct Played {
    versions: u64,
    ended: bool,
}

/// One game under test: the state folded from the events, and the one loaded back from the
/// snapshot taken after the last event.
struct Run<'a> {
    game: &'a dyn AnyGame,
    options: &'a Value,
    seats: u8,
    seed: u64,
    folded: Box<dyn AnyState>,
    restored: Box<dyn AnyState>,
    version: u64,
}

impl Run<'_> {
    fn context(&self) -> String {
        format!(
            "{} {} seats, options {}, seed {}, version {}",
            self.game.kind(),
            self.seats,
            self.options,
            self.seed,
            self.version
        )
    }

    /// Given one more event (through `jsonb`, as the log stores it), then the snapshot after
    /// it loads back and serializes exactly as the folded state.
    fn apply(&mut self, payload: &Value) {
        let schema = self.game.event_schema_version();
        if let Err(e) = self.folded.apply(&through_jsonb(payload).1, schema) {
            panic!("{}: event does not replay: {e}", self.context());
        }
        self.version += 1;
        let (text, snapshot) = through_jsonb(&self.folded.to_json());
        let restored = self
            .game
            .state_from_json(&snapshot)
            .unwrap_or_else(|e| panic!("{}: the snapshot does not load: {e}", self.context()));
        let again = serde_json::to_string(&restored.to_json()).expect("serializes");
        assert!(
            again == text,
            "{}: the snapshot loads as another state:\n{text}\n{again}",
            self.context()
        );
        self.restored = restored;
    }

    /// The restored state shows everything as the folded one does.
    fn compare_observed(&self) {
        assert_eq!(
            observed(&*self.restored, self.seats),
            observed(&*self.folded, self.seats),
            "{}: the restored state shows something else",
            self.context()
        );
    }

    /// When a prompted seat sends a random legal command, then (if `compare`) the restored
    /// state decides the same events with the same dice; the events are applied.
    fn play_one(&mut self, rng: &mut dyn Rng, compare: bool) {
        let prompts = self.folded.prompts();
        assert!(
            !prompts.is_empty(),
            "{}: nobody is prompted",
            self.context()
        );
        let seat = prompts[rng.index(prompts.len())].seat;
        let legal = self.folded.legal(seat);
        assert!(
            !legal.is_empty(),
            "{}: {seat} has no legal command",
            self.context()
        );
        let command = &legal[rng.index(legal.len())];
        let dice = u64::from(rng.below(u32::MAX));
        let events = self
            .folded
            .decide(seat, command, &mut seeded(dice))
            .unwrap_or_else(|e| panic!("{}: legal {command} refused: {e}", self.context()));
        if compare {
            // Same command, same dice: the restored state decides the same events.
            let from_snapshot = self
                .restored
                .decide(seat, command, &mut seeded(dice))
                .unwrap_or_else(|e| {
                    panic!(
                        "{}: the restored state refuses {command}: {e}",
                        self.context()
                    )
                });
            assert_eq!(
                from_snapshot,
                events,
                "{}: the restored state decides {command} otherwise",
                self.context()
            );
        }
        for event in &events {
            self.apply(&event.payload);
        }
    }
}

/// Plays one random game of at most `max_commands` commands and checks the snapshot round trip
/// at every version: the state that loads back serializes exactly as the folded one (every
/// field of a state is serialized, so this is equality). At every `BEHAVIOUR_EVERY`th command
/// boundary, and at the end, the loaded state must also behave like the folded one.
fn check_game(
    game: &dyn AnyGame,
    options: &Value,
    seats: u8,
    seed: u64,
    max_commands: u64,
) -> Played {
    let mut rng = seeded(seed);
    let mut run = Run {
        game,
        options,
        seats,
        seed,
        folded: game.new_state(),
        restored: game.new_state(),
        version: 0,
    };
    let setup = game
        .setup(options, seats, &mut rng)
        .unwrap_or_else(|e| panic!("{}: setup refused: {e}", run.context()));
    for event in setup {
        run.apply(&event.payload);
    }
    for step in 0..max_commands {
        let ended = run.folded.outcome().is_some();
        let compare = ended || step % BEHAVIOUR_EVERY == 0;
        if compare {
            run.compare_observed();
        }
        if ended {
            return Played {
                versions: run.version,
                ended: true,
            };
        }
        run.play_one(&mut rng, compare);
    }
    Played {
        versions: run.version,
        ended: false,
    }
}

/// Every (kind, seat count, option sample) of every game.
fn combinations() -> Vec<(&'static dyn AnyGame, u8, Value)> {
    let mut all = Vec::new();
    for game in games() {
        for seats in game.seat_range() {
            for options in game.option_samples(seats) {
                let options = game.normalize_options(&options).expect("a sample is valid");
                all.push((*game, seats, options));
            }
        }
    }
    all
}

/// One game of every (kind, seats, options) combination (issue 28: the test loop); the `long_`
/// twin plays 165 games (`SNAPSHOT_GAMES` sets either's count).
#[test]
fn every_state_of_every_game_survives_the_snapshot_encoding() {
    every_state_survives_the_snapshot_encoding(0);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_every_state_of_every_game_survives_the_snapshot_encoding() {
    every_state_survives_the_snapshot_encoding(165);
}

fn every_state_survives_the_snapshot_encoding(default_games: u64) {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let total = env("SNAPSHOT_GAMES", default_games) as usize;
    let max_commands = env("SNAPSHOT_MAX_COMMANDS", 600);
    let combinations = combinations();
    // kind → (games, games that ended, versions, seconds)
    let mut tally = std::collections::BTreeMap::<&str, (u64, u64, u64, f64)>::new();
    for i in 0..total.max(combinations.len()) {
        let (game, seats, options) = &combinations[i % combinations.len()];
        let started = std::time::Instant::now();
        // The first round plays the smallest tables to the end, whatever their length.
        let first_round = i < combinations.len();
        let limit = if first_round && *seats == *game.seat_range().start() {
            u64::MAX
        } else {
            max_commands
        };
        let played = check_game(*game, options, *seats, 0x5EED ^ i as u64, limit);
        let entry = tally.entry(game.kind()).or_default();
        entry.0 += 1;
        entry.1 += u64::from(played.ended);
        entry.2 += played.versions;
        entry.3 += started.elapsed().as_secs_f64();
    }
    for game in games() {
        let (played, ended, versions, seconds) =
            tally.get(game.kind()).copied().unwrap_or_default();
        eprintln!(
            "{}: {played} games ({ended} played to the end), {versions} versions round-tripped ({seconds:.1} s)",
            game.kind()
        );
        // Every kind must have been played past several snapshots, and to the end.
        assert!(
            played > 0 && versions > 3 * 128,
            "{} was not exercised",
            game.kind()
        );
        assert!(ended > 0, "no game of {} ended", game.kind());
    }
}

/// The samples the drills and the load tool play are valid for every seat count.
#[test]
fn every_option_sample_sets_up_a_game() {
    for (game, seats, options) in combinations() {
        game.setup(&options, seats, &mut seeded(1))
            .unwrap_or_else(|e| {
                panic!(
                    "{} {seats} seats: sample {options} refused: {e}",
                    game.kind()
                )
            });
    }
}
