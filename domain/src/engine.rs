//! The shared core every game plugs into: seats, viewers, prompts, rule violations,
//! randomness handed to `decide`, and the [`Game`] trait (a decider).
//!
//! Nothing here does I/O, reads a clock or touches a global RNG.

use crate::i18n::{Lang, Says};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::borrow::Cow;
use std::fmt;

/// Most seats any game of ours supports.
pub const MAX_SEATS: u8 = 6;

/// A seat at the table, 1-based (seat 1 joined first). Always within `1..=MAX_SEATS`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(try_from = "u8", into = "u8")]
#[schema(value_type = u8, minimum = 1, maximum = 6, example = 1)]
pub struct Seat(u8);

impl Seat {
    pub fn new(number: u8) -> Result<Seat, InvalidSeat> {
        if (1..=MAX_SEATS).contains(&number) {
            Ok(Seat(number))
        } else {
            Err(InvalidSeat(number))
        }
    }
    /// 1-based seat number.
    pub fn number(self) -> u8 {
        self.0
    }
    /// 0-based index, for vectors indexed by seat.
    pub fn index(self) -> usize {
        usize::from(self.0 - 1)
    }
    /// Seat from a 0-based index. Panics only on a programming error (index ≥ MAX_SEATS).
    pub fn from_index(index: usize) -> Seat {
        assert!(index < usize::from(MAX_SEATS), "seat index out of range");
        Seat(index as u8 + 1)
    }
    /// Seats `1..=count`.
    pub fn all(count: u8) -> impl Iterator<Item = Seat> + Clone {
        (1..=count.min(MAX_SEATS)).map(Seat)
    }
    /// The next seat in cyclic order among `count` seats.
    pub fn next(self, count: u8) -> Seat {
        if self.0 >= count {
            Seat(1)
        } else {
            Seat(self.0 + 1)
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

impl TryFrom<u8> for Seat {
    type Error = InvalidSeat;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Seat::new(value)
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("seat {0} is not a seat number (1..=6)")]
pub struct InvalidSeat(pub u8);

/// Who is looking. Views, events and prompts are always computed for a viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A seated player: sees public information and their own secrets.
    Seat(Seat),
    /// Any signed-in user who is not seated.
    Spectator,
    /// Sees everything: used once a game is over (everything is public then) and for audits
    /// run by the server itself.
    Omniscient,
}

impl Viewer {
    pub fn seat(self) -> Option<Seat> {
        match self {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        }
    }
    /// True when this viewer may see what is private to `seat`.
    pub fn sees_private_of(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(me) => me == seat,
            Viewer::Spectator => false,
            Viewer::Omniscient => true,
        }
    }
}

/// A command refused by the rules, naming the rule it breaks (e.g. `WR-021`). Built by the guard
/// helpers of [`crate::decider`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{rule}: {message}")]
pub struct RuleViolation {
    pub rule: Cow<'static, str>,
    /// The specifics in English (logs, `Display`, the English answer): `says` told in English.
    pub message: String,
    /// The specifics as data (a catalogue key and its arguments), told in the caller's
    /// language by the server (issue 18). `None` for a refusal written as English text only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub says: Option<Says>,
}

impl RuleViolation {
    /// A refusal whose specifics are English text only (no catalogue entry).
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        RuleViolation {
            rule: Cow::Borrowed(rule),
            message: message.into(),
            says: None,
        }
    }

    /// A refusal whose specifics are the catalogue's `violations.<key>` with arguments.
    pub fn said(rule: &'static str, says: Says) -> Self {
        RuleViolation {
            rule: Cow::Borrowed(rule),
            message: says.tell(Lang::En),
            says: Some(says),
        }
    }

    /// The specifics in `lang`.
    pub fn message_in(&self, lang: Lang) -> String {
        match &self.says {
            Some(says) => says.tell(lang),
            None => self.message.clone(),
        }
    }
}

/// Guard clauses live in the decider toolkit; re-exported here for code written against the engine.
pub use crate::decider::ensure;

/// Who must or may act now, and with which command kinds (`type` tags of commands).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Prompt {
    pub seat: Seat,
    /// Command `type` tags this seat may send now.
    pub kinds: Vec<Cow<'static, str>>,
    /// True when the game waits for this seat (it **must** act); false when the seat only
    /// **may** act (trades, vetoes, re-roll purchases …) and the game goes on without it.
    pub must: bool,
}

impl Prompt {
    /// The game waits for `seat`, which must send one of `kinds`.
    pub fn new(seat: Seat, kinds: &[&'static str]) -> Self {
        Prompt {
            seat,
            kinds: kinds.iter().map(|k| Cow::Borrowed(*k)).collect(),
            must: true,
        }
    }
    /// `seat` may send one of `kinds`; the game does not wait for it.
    pub fn may(seat: Seat, kinds: &[&'static str]) -> Self {
        Prompt {
            must: false,
            ..Prompt::new(seat, kinds)
        }
    }
}

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
// Randomness
// ---------------------------------------------------------------------------------------------

/// The randomness `decide` and `setup` may draw from. Every draw must end up in an event, so
/// that replay (`evolve`) never needs an RNG.
pub trait Rng {
    /// A uniform integer in `0..n` (`n ≥ 1`), without modulo bias.
    fn below(&mut self, n: u32) -> u32;
    /// Fills `out` with random bytes (salts for sealed commitments).
    fn fill_bytes(&mut self, out: &mut [u8]);
}

/// Convenience draws built on [`Rng::below`], so scripted RNGs control them too.
pub trait RngExt: Rng {
    /// A die with `sides` faces: `1..=sides`.
    fn die(&mut self, sides: u32) -> u32 {
        self.below(sides) + 1
    }
    /// Uniform index into a non-empty collection of `len` items.
    fn index(&mut self, len: usize) -> usize {
        self.below(u32::try_from(len).expect("collection too large")) as usize
    }
    /// Fisher–Yates shuffle.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
    /// One die of `sides` faces, `1..=sides`, as the `u8` events record.
    fn roll(&mut self, sides: u8) -> u8 {
        self.die(u32::from(sides)) as u8
    }
    /// A fresh 16-byte salt as lowercase hex, for sealed commitments.
    fn salt(&mut self) -> String {
        let mut bytes = [0u8; 16];
        self.fill_bytes(&mut bytes);
        hex::encode(bytes)
    }
    /// Seals `value` for a secret choice: a fresh salt and the commitment published now.
    fn seal(&mut self, value: i64) -> Seal {
        let salt = self.salt();
        let commitment = sealed_commitment(&salt, value);
        Seal { salt, commitment }
    }
}

/// A sealed value: the commitment is published when the choice is made; the salt is kept and
/// published with the value at the reveal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    pub salt: String,
    pub commitment: String,
}

impl<R: Rng + ?Sized> RngExt for R {}

/// ChaCha20 stream keyed from the game's server seed and the players' client seeds.
pub struct ChaChaRng(rand_chacha::ChaCha20Rng);

impl ChaChaRng {
    /// The RNG for the command that is decided at `version` (the version before it).
    /// Each command gets its own ChaCha20 stream, so a verifier can re-run any single command.
    pub fn for_command(server_seed: &[u8; 32], client_seeds: &[String], version: u64) -> Self {
        use rand_core::SeedableRng;
        let key = rng_key(server_seed, client_seeds);
        let mut inner = rand_chacha::ChaCha20Rng::from_seed(key);
        inner.set_stream(version);
        ChaChaRng(inner)
    }

    fn next_u32(&mut self) -> u32 {
        use rand_core::Rng as _;
        self.0.next_u32()
    }
}

/// `SHA-256("homestretch/rng/v1" ‖ server_seed ‖ for each client seed: len(u32 BE) ‖ bytes)`.
pub fn rng_key(server_seed: &[u8; 32], client_seeds: &[String]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(b"homestretch/rng/v1");
    hasher.update(server_seed);
    for seed in client_seeds {
        hasher.update((seed.len() as u32).to_be_bytes());
        hasher.update(seed.as_bytes());
    }
    hasher.finalize().into()
}

/// `SHA-256(seed)` as hex: the public commitment to a game's server seed.
pub fn seed_commitment(server_seed: &[u8; 32]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(server_seed))
}

/// Commitment to a sealed choice: `SHA-256(salt ‖ ":" ‖ value)` as hex. Published when the
/// choice is made; value and salt are published at the reveal, so anyone can check them.
pub fn sealed_commitment(salt: &str, value: i64) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(format!("{salt}:{value}").as_bytes()))
}

impl Rng for ChaChaRng {
    fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0)");
        // Rejection sampling: discard the top partial range so every residue is equally likely.
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let x = self.next_u32();
            if x < zone {
                return x % n;
            }
        }
    }
    fn fill_bytes(&mut self, out: &mut [u8]) {
        use rand_core::Rng as _;
        self.0.fill_bytes(out);
    }
}

/// A scripted RNG for tests: `below` answers the queued values in order (each must be `< n`),
/// then falls back to a seeded ChaCha stream.
pub struct ScriptedRng {
    queue: std::collections::VecDeque<u32>,
    fallback: ChaChaRng,
}

impl ScriptedRng {
    pub fn new(values: impl IntoIterator<Item = u32>) -> Self {
        ScriptedRng {
            queue: values.into_iter().collect(),
            fallback: ChaChaRng::for_command(&[7; 32], &[], 0),
        }
    }
    /// Script die faces (1-based): `dice(&[3, 6])` makes the next two `die()` calls 3 then 6.
    pub fn dice(faces: &[u32]) -> Self {
        Self::new(faces.iter().map(|f| f - 1))
    }
    pub fn push(&mut self, value: u32) {
        self.queue.push_back(value);
    }
    pub fn remaining(&self) -> usize {
        self.queue.len()
    }
}

impl Rng for ScriptedRng {
    fn below(&mut self, n: u32) -> u32 {
        match self.queue.pop_front() {
            Some(v) => {
                assert!(v < n, "scripted value {v} out of range 0..{n}");
                v
            }
            None => self.fallback.below(n),
        }
    }
    fn fill_bytes(&mut self, out: &mut [u8]) {
        self.fallback.fill_bytes(out)
    }
}

/// A seeded RNG for simulations and property tests.
pub fn seeded(seed: u64) -> ChaChaRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    ChaChaRng::for_command(&key, &[], 0)
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
    /// cheapest legal choice. Default: [`crate::timeout::cheapest`] over [`Game::legal`]
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

/// The generic timeout policy ([`Game::default_move`]'s default, which a game's override may
/// fall back on): among `seat`'s legal commands of the kinds the game waits for (an optional
/// command, a veto or a trade, would not answer the decision that timed out), the cheapest
/// ([`crate::timeout::cheapest`]); all legal commands when none is of such a kind.
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
    crate::timeout::cheapest(&tags).map(|i| legal[i].clone())
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
