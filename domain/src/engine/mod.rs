//! The shared core every game plugs into: seats, viewers, prompts, rule violations,
//! randomness handed to `decide`, and the [`Game`] trait (a decider).
//!
//! Nothing here does I/O, reads a clock or touches a global RNG.

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::fmt;

pub(crate) mod rng;
pub(crate) mod seat;
pub(crate) mod violation;

// The basics live in the files below the trait (the choices, the decider toolkit, the
// drawing and the catalogue use them without naming the trait); named from here by the rest.
pub use rng::{
    ChaChaRng, Rng, RngExt, ScriptedRng, Seal, rng_key, sealed_commitment, seed_commitment, seeded,
};
pub use seat::{InvalidSeat, MAX_SEATS, Prompt, Seat, Viewer};
pub use violation::RuleViolation;

/// Guard clauses live in the decider toolkit; re-exported here for code written against the engine.
pub use crate::decider::ensure;

/// The result of a finished game: who won, every seat's score, and — only in a game that
/// ranks every seat — every seat's place. Nothing outside the game may rank the seats itself
/// (issue 27: a place guessed from scores told Mush's losers they came second).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Outcome {
    /// Winning seats; more than one means a shared victory (draw).
    pub winners: Vec<Seat>,
    /// Final score of every seat, in seat order: the game's own points where it has them
    /// (Whisky Race VP); otherwise a figure of the game's view (Bandits: pawns home; Mush: 1
    /// for the winner, 0 for the others), never a ranking.
    pub scores: Vec<SeatScore>,
    /// Every seat's place, in seat order (1 = first; tied seats share a place and the places
    /// after them are skipped), present only when the game ranks every seat (Whisky Race).
    /// Absent when the game determines only its winners (Bandits BD-402, Mush MU-152): the
    /// others did not win and have no place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub places: Option<Vec<SeatPlace>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SeatScore {
    pub seat: Seat,
    pub score: i64,
}

/// A seat's place in a game that ranks every seat (`Outcome.places`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SeatPlace {
    pub seat: Seat,
    #[schema(minimum = 1)]
    pub place: u8,
}

impl Outcome {
    /// A game that determines only its winners: no seat is given a place.
    pub fn winners_only(winners: Vec<Seat>, scores: Vec<SeatScore>) -> Outcome {
        Outcome {
            winners,
            scores,
            places: None,
        }
    }

    /// A game that ranks every seat by its score, its winners first: a winner's place is 1,
    /// another seat's is one more than the seats that won or scored strictly more (standard
    /// competition ranking, "1-2-2-4").
    pub fn ranked_by_score(winners: Vec<Seat>, scores: Vec<SeatScore>) -> Outcome {
        let places = scores
            .iter()
            .map(|me| {
                let place = if winners.contains(&me.seat) {
                    1
                } else {
                    let ahead = scores
                        .iter()
                        .filter(|o| o.seat != me.seat)
                        .filter(|o| winners.contains(&o.seat) || o.score > me.score)
                        .count();
                    1 + ahead
                };
                SeatPlace {
                    seat: me.seat,
                    place: u8::try_from(place).unwrap_or(u8::MAX),
                }
            })
            .collect();
        Outcome {
            winners,
            scores,
            places: Some(places),
        }
    }

    /// True when `seat` is one of the winners.
    pub fn won(&self, seat: Seat) -> bool {
        self.winners.contains(&seat)
    }

    /// `seat`'s place, when the game ranks every seat; `None` otherwise.
    pub fn place_of(&self, seat: Seat) -> Option<u8> {
        self.places
            .as_ref()?
            .iter()
            .find(|p| p.seat == seat)
            .map(|p| p.place)
    }
}

// ---------------------------------------------------------------------------------------------
// The decider
// ---------------------------------------------------------------------------------------------

/// What a viewer may see of an event.
pub enum Redacted<'a, E: Clone> {
    /// Shown as is.
    Shown(&'a E),
    /// Shown in a redacted form (e.g. "seat 2 committed" without the amount).
    Masked(E),
    /// Not shown at all (e.g. a deck order, kept for replay only).
    Hidden,
}

/// Serde and OpenAPI for an id written as a string (`black-1`, `S07`, `R07`): serialized by
/// its `Display`, read back by `$parse` (`&str -> Option<Self>`), an unknown id refused with
/// "unknown $what …"; the schema is a string with `$description`. The ids of the games say it
/// once here instead of hand-writing the three impls each.
macro_rules! string_id {
    ($name:ident, $what:literal, $parse:expr, $description:literal) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                let parse: fn(&str) -> Option<$name> = $parse;
                parse(&s).ok_or_else(|| {
                    serde::de::Error::custom(format!(concat!("unknown ", $what, " {}"), s))
                })
            }
        }
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some($description))
                    .into()
            }
        }
        impl utoipa::ToSchema for $name {}
    };
}
pub(crate) use string_id;

/// The `Game` methods every game forwards to its rooms of the same names (`decide::decide`,
/// `evolve::evolve`, `view::view`, `render::draw`, `legal::prompts`, `legal::legal`): called
/// inside each game's `impl Game`, so the three games say it once.
macro_rules! forward_to_rooms {
    () => {
        fn decide(
            state: &Self::State,
            actor: $crate::engine::Seat,
            command: &Self::Command,
            rng: &mut dyn $crate::engine::Rng,
        ) -> Result<Vec<Self::Event>, $crate::engine::RuleViolation> {
            decide::decide(state, actor, command, rng)
        }

        fn evolve(state: &mut Self::State, event: &Self::Event) {
            evolve::evolve(state, event)
        }

        fn view(state: &Self::State, viewer: $crate::engine::Viewer) -> Self::View {
            view::view(state, viewer)
        }

        fn draw(
            view: &Self::View,
            prompts: &[$crate::engine::Prompt],
            viewer: $crate::engine::Viewer,
        ) -> String {
            render::draw(view, prompts, viewer)
        }

        fn prompts(state: &Self::State) -> Vec<$crate::engine::Prompt> {
            legal::prompts(state)
        }

        fn legal(state: &Self::State, seat: $crate::engine::Seat) -> Vec<Self::Command> {
            legal::legal(state, seat)
        }
    };
}
pub(crate) use forward_to_rooms;

/// A game as a decider. Every game module implements this once; the server only ever talks to
/// games through it (via [`crate::AnyGame`]).
pub trait Game: 'static {
    /// The `kind` in the API (`whisky_race`, `bandits`, `mush`).
    const KIND: &'static str;
    /// Version of the rules engine, written into exports so a verifier knows what it re-runs.
    const RULES_VERSION: &'static str;
    /// Schema version written beside every event of this game.
    const EVENT_SCHEMA_VERSION: u32 = 1;
    /// Command kinds that never answer a decision the game waits for (trades …): a seat's
    /// clock runs on through them, whoever sends them, and a timeout never chooses them
    /// (issue 26, [`crate::timeout::decision_starts`]).
    const OPTIONAL_KINDS: &'static [&'static str] = &[];
    /// Command kinds whose answer the other seats may not see before a reveal (sealed bids,
    /// discards from a hidden hand): a timed-out seat's default among them is drawn from the
    /// game's committed randomness, never predictable from public information (issue 26,
    /// [`crate::timeout::timeout_move`]).
    const SEALED_KINDS: &'static [&'static str] = &[];

    type Options: Serialize + DeserializeOwned + Default + Clone + Send + Sync;
    type State: Serialize + DeserializeOwned + Default + Clone + Send + Sync;
    type Command: Serialize + DeserializeOwned + Clone + fmt::Debug + PartialEq;
    type Event: Serialize + DeserializeOwned + Clone + fmt::Debug + PartialEq;
    type View: Serialize;

    /// Seat counts this game accepts (checked before `setup`).
    fn seat_range() -> std::ops::RangeInclusive<u8>;

    /// The events that set up a new game for `seats` players.
    fn setup(
        options: &Self::Options,
        seats: u8,
        rng: &mut dyn Rng,
    ) -> Result<Vec<Self::Event>, RuleViolation>;

    /// The setup of a game begun under event schema `schema_version`, as the audit re-runs an
    /// older log: [`Game::setup`], each event then set as that schema had it
    /// ([`Game::as_of_schema`]).
    fn setup_as_of(
        options: &Self::Options,
        seats: u8,
        rng: &mut dyn Rng,
        schema_version: u32,
    ) -> Result<Vec<Self::Event>, RuleViolation> {
        let mut events = Self::setup(options, seats, rng)?;
        for event in &mut events {
            Self::as_of_schema(event, schema_version);
        }
        Ok(events)
    }

    /// A setup event as a game begun under event schema `schema_version` recorded it: where
    /// the setup records the rules or protocol chosen by its schema (Bandits BD-515: moves in
    /// segments from schema 3; Whisky Race WR-162 from schema 2), the older choice, as the
    /// older log is upcast. Default: unchanged.
    fn as_of_schema(event: &mut Self::Event, schema_version: u32) {
        let _ = (event, schema_version);
    }

    /// Validate `command` from `actor` against `state`; the events it produces, or the rule
    /// it breaks. Must not panic on any input.
    fn decide(
        state: &Self::State,
        actor: Seat,
        command: &Self::Command,
        rng: &mut dyn Rng,
    ) -> Result<Vec<Self::Event>, RuleViolation>;

    /// Apply one event. Total: never fails, never draws randomness.
    fn evolve(state: &mut Self::State, event: &Self::Event);

    /// The state as `viewer` may see it.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// Who must or may act now.
    fn prompts(state: &Self::State) -> Vec<Prompt>;

    /// Every command `seat` may send now that `decide` accepts (enumerable choices).
    fn legal(state: &Self::State, seat: Seat) -> Vec<Self::Command>;

    /// `seat`'s legal commands as JSON Schema families ([`crate::choices`]): exactly what
    /// `decide` accepts now. Default: exact `enum` families drawn from [`Game::legal`].
    fn choices(state: &Self::State, seat: Seat) -> Vec<crate::choices::Family> {
        let commands: Vec<serde_json::Value> = Self::legal(state, seat)
            .iter()
            .map(|c| serde_json::to_value(c).expect("commands serialize"))
            .collect();
        crate::choices::Family::from_commands(&commands)
    }

    /// [`Game::choices`] and [`Game::legal`] at once, for the server's prompts (which answer
    /// both): a game whose `legal` is drawn from its choices overrides this to compute them
    /// once. Default: each on its own.
    fn choices_and_legal(
        state: &Self::State,
        seat: Seat,
    ) -> (Vec<crate::choices::Family>, Vec<Self::Command>) {
        (Self::choices(state, seat), Self::legal(state, seat))
    }

    /// `Some` once the game is over.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// The picture of the game as `viewer` sees it (issue 30, an SVG document drawn with
    /// [`crate::draw`]): drawn from `view(state, viewer)` and the public prompts only, so no
    /// hidden information can reach it. Default: the kind and what the game waits for.
    fn draw(view: &Self::View, prompts: &[Prompt], viewer: Viewer) -> String {
        let _ = view;
        crate::draw::placeholder(Self::KIND, prompts, viewer.seat())
    }

    /// The dice faces `event` records, in order (the replay page shows each move's dice).
    /// Default: none.
    fn dice(_event: &Self::Event) -> Vec<u8> {
        Vec::new()
    }

    /// What `viewer` may see of `event` while the game is running.
    fn redact(event: &Self::Event, viewer: Viewer) -> Redacted<'_, Self::Event>;

    /// Game invariants checked by simulations and property tests (conservation laws…).
    fn check_invariants(_state: &Self::State) -> Result<(), String> {
        Ok(())
    }

    /// Option sets for `seats` players that, together, exercise every option of the game: the
    /// load tool, the drills and the property tests play each of them. Default: the defaults.
    fn option_samples(_seats: u8) -> Vec<Self::Options> {
        vec![Self::Options::default()]
    }

    /// A check of one event against the state it applies to, run by simulations on every
    /// event (rules about transitions, which a state invariant cannot see).
    fn check_event(_before: &Self::State, _event: &Self::Event) -> Result<(), String> {
        Ok(())
    }

    /// Heuristic value of `state` for `seat`, used by the greedy simulation bot.
    fn heuristic(_state: &Self::State, _seat: Seat) -> i64 {
        0
    }

    /// The command the server sends for `seat` when its clock runs out (issue 17): the
    /// cheapest legal choice. Default: [`cheapest`] over [`Game::legal`]
    /// (a pass, decline, skip or stop when one is legal, else the first legal command); a game
    /// overrides it where "cheapest" needs game knowledge (`docs/rules/*.md` says which).
    fn default_move(state: &Self::State, seat: Seat) -> Option<Self::Command> {
        cheapest_waited_for::<Self>(state, seat)
    }

    /// A state `seat` cannot tell from `state`: everything `seat` may not see (other hands,
    /// sealed choices, deck order …) replaced by a random sample consistent with its view,
    /// drawn from `rng`. A fair bot decides on it, never on `state` itself (issue 17), so it
    /// must be a function of `view(state, seat)` and `rng` alone: sample from canonical
    /// (sorted) data, never from the hidden values or their order. Default: `state` itself,
    /// right for a game without hidden information.
    fn determinize(state: &Self::State, seat: Seat, rng: &mut dyn Rng) -> Self::State {
        let _ = (seat, rng);
        state.clone()
    }

    /// The `type` tag of a command (its snake_case name).
    fn command_type(command: &Self::Command) -> String {
        type_tag(command)
    }
    /// The `type` tag of an event.
    fn event_type(event: &Self::Event) -> String {
        type_tag(event)
    }

    /// Older rules versions whose logs this engine still replays and re-runs (through
    /// [`Game::upcast`]); a verifier re-runs them under the current rules.
    const READS_RULES: &'static [&'static str] = &[];

    /// Upcast a stored event payload written with an older `schema_version` to zero or more
    /// events of the current shape (an event that no longer exists becomes none; one that
    /// stood for several facts becomes several). `state` is the state the event applies to,
    /// rebuilt from the log so far, for upcasters that need context. The default accepts only
    /// the current version.
    fn upcast(
        _state: &Self::State,
        schema_version: u32,
        payload: serde_json::Value,
    ) -> Result<Vec<serde_json::Value>, String> {
        if schema_version == Self::EVENT_SCHEMA_VERSION {
            Ok(vec![payload])
        } else {
            Err(format!("no upcaster from schema version {schema_version}"))
        }
    }
}

fn type_tag<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => match map.get("type") {
            Some(serde_json::Value::String(tag)) => tag.clone(),
            _ => String::from("unknown"),
        },
        _ => String::from("unknown"),
    }
}

/// Command tags that give nothing away, in order of preference: declining to act is always
/// the cheapest choice when the rules offer it.
pub const CHEAP_TAGS: &[&str] = &["pass", "decline", "skip", "stop", "done", "end", "finish"];

/// The index of the cheapest command among legal commands of the given `type` tags: the first
/// whose tag is (or starts/ends with) a [`CHEAP_TAGS`] word, in that word order; else the first
/// legal command (games list their legal commands cheapest first: lowest bid, first path).
pub fn cheapest(tags: &[String]) -> Option<usize> {
    if tags.is_empty() {
        return None;
    }
    let cheap = |tag: &str, word: &str| {
        tag == word || tag.starts_with(&format!("{word}_")) || tag.ends_with(&format!("_{word}"))
    };
    CHEAP_TAGS
        .iter()
        .find_map(|word| tags.iter().position(|tag| cheap(tag, word)))
        .or(Some(0))
}

/// The generic timeout policy ([`Game::default_move`]'s default, which a game's override may
/// fall back on): among `seat`'s legal commands of the kinds the game waits for (an optional
/// command, a veto or a trade, would not answer the decision that timed out), the cheapest
/// ([`cheapest`]); all legal commands when none is of such a kind.
pub fn cheapest_waited_for<G: Game + ?Sized>(state: &G::State, seat: Seat) -> Option<G::Command> {
    let waited = waited_kinds::<G>(state, seat);
    let all = G::legal(state, seat);
    let answering: Vec<G::Command> = all
        .iter()
        .filter(|c| waited.contains(&G::command_type(c)))
        .cloned()
        .collect();
    let legal = if answering.is_empty() { all } else { answering };
    let tags: Vec<String> = legal.iter().map(G::command_type).collect();
    cheapest(&tags).map(|i| legal[i].clone())
}

/// The kinds of `seat`'s must-prompts that answer its decision ([`Game::OPTIONAL_KINDS`] left
/// out: a trade never answers the decision that timed out).
pub fn waited_kinds<G: Game + ?Sized>(state: &G::State, seat: Seat) -> Vec<String> {
    G::prompts(state)
        .into_iter()
        .filter(|p| p.seat == seat && p.must)
        .flat_map(|p| p.kinds.into_iter().map(|k| k.into_owned()))
        .filter(|k| !G::OPTIONAL_KINDS.contains(&k.as_str()))
        .collect()
}

/// Fold events into a state (replay).
pub fn replay<G: Game>(events: &[G::Event]) -> G::State {
    let mut state = G::State::default();
    for event in events {
        G::evolve(&mut state, event);
    }
    state
}
