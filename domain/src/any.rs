//! Type-erased games: the server stores and serves every game through JSON, so it talks to
//! them through [`AnyGame`] / [`AnyState`], implemented once for every [`Game`].

use crate::engine::{Game, Outcome, Prompt, Redacted, Rng, RuleViolation, Seat, Viewer};
use serde_json::Value;
use std::marker::PhantomData;
use std::ops::RangeInclusive;
use utoipa::openapi::{RefOr, schema::Schema};
use utoipa::{PartialSchema, ToSchema};

/// One event as stored: its `type` tag and the whole serialized event (tag included).
#[derive(Clone, Debug, PartialEq)]
pub struct EventData {
    pub kind: String,
    pub payload: Value,
}

/// Why a command was not accepted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Rejection {
    /// The JSON is not a command of this game (unknown `type`, missing or mistyped field).
    #[error("invalid command: {0}")]
    Malformed(String),
    /// A well-formed command the rules refuse.
    #[error(transparent)]
    Rule(#[from] RuleViolation),
}

/// A game's types that the server both parses and writes, by their role on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireType {
    Command,
    Event,
    Options,
}

/// A game's wire types as OpenAPI schemas, so the server documents a game it does not know by
/// name: its commands, events, options and views by role, and every schema they refer to.
pub struct GameSchemas {
    /// `("Command", …)`, `("Event", …)`, `("Options", …)`, `("View", …)`.
    pub roles: Vec<(&'static str, RefOr<Schema>)>,
    /// The schemas the four refer to, by their own names (first occurrence kept).
    pub dependencies: Vec<(String, RefOr<Schema>)>,
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

/// A game's statistics over `games` random-bot games from `seed` (`homestretch simulate`).
pub type Simulation = fn(games: u64, seed: u64) -> Result<Value, SimFailure>;

/// A game kind, erased.
pub trait AnyGame: Send + Sync {
    fn kind(&self) -> &'static str;
    fn rules_version(&self) -> &'static str;
    /// Older rules versions whose logs this engine replays and re-runs ([`Game::READS_RULES`]).
    fn reads_rules(&self) -> &'static [&'static str];
    fn event_schema_version(&self) -> u32;
    /// [`Game::OPTIONAL_KINDS`]: commands that never move a deadline.
    fn optional_kinds(&self) -> &'static [&'static str];
    fn seat_range(&self) -> RangeInclusive<u8>;
    /// Parses options (missing fields take their defaults) and returns them normalized.
    fn normalize_options(&self, options: &Value) -> Result<Value, String>;
    /// Normalized option sets for `seats` players that together exercise every option
    /// (see [`Game::option_samples`]).
    fn option_samples(&self, seats: u8) -> Vec<Value>;
    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rng: &mut dyn Rng,
    ) -> Result<Vec<EventData>, Rejection>;
    /// [`Game::setup_as_of`]: the setup of a game begun under an older event schema.
    fn setup_as_of(
        &self,
        options: &Value,
        seats: u8,
        rng: &mut dyn Rng,
        schema_version: u32,
    ) -> Result<Vec<EventData>, Rejection>;
    fn new_state(&self) -> Box<dyn AnyState>;
    fn state_from_json(&self, snapshot: &Value) -> Result<Box<dyn AnyState>, String>;
    /// Parses `value` as this game's `wire` type and serializes it back (the JSON the server
    /// accepts and stores for it): the wire-contract test checks the OpenAPI document's enum
    /// values and tags against the serde types with it.
    fn reserialize(&self, wire: WireType, value: &Value) -> Result<Value, String>;
    /// The game's wire types as OpenAPI schemas.
    fn schemas(&self) -> GameSchemas;
    /// Plays `games` random-bot games and returns their statistics.
    fn simulate(&self, games: u64, seed: u64) -> Result<Value, String>;
    /// The dice faces a stored event records ([`Game::dice`]); none for an event that does not
    /// parse (a redacted or hidden one).
    fn dice(&self, payload: &Value) -> Vec<u8>;
}

/// A game state, erased.
pub trait AnyState: Send + Sync {
    fn clone_box(&self) -> Box<dyn AnyState>;
    fn decide(
        &self,
        actor: Seat,
        command: &Value,
        rng: &mut dyn Rng,
    ) -> Result<Vec<EventData>, Rejection>;
    /// `decide`, plus the state after the events (evolved from the typed events, without
    /// parsing them back from JSON).
    fn decide_next(
        &self,
        actor: Seat,
        command: &Value,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<EventData>, Box<dyn AnyState>), Rejection>;
    /// Parses (upcasting older schema versions) and applies one stored event.
    fn apply(&mut self, payload: &Value, schema_version: u32) -> Result<(), String> {
        self.apply_upcast(payload, schema_version).map(|_| ())
    }
    /// [`AnyState::apply`], returning the events actually applied: the stored one, or what an
    /// older one upcast to (none, one or several), in the current schema.
    fn apply_upcast(&mut self, payload: &Value, schema_version: u32) -> Result<Vec<Value>, String>;
    fn view(&self, viewer: Viewer) -> Value;
    /// The picture of the state as `viewer` sees it ([`Game::draw`]: from the viewer's view).
    fn draw(&self, viewer: Viewer) -> String;
    fn prompts(&self) -> Vec<Prompt>;
    /// Every command `seat` may send now (bots and simulations choose among them); the
    /// prompts answer carries only a sample of it ([`AnyState::choices_and_legal`]).
    fn legal(&self, seat: Seat) -> Vec<Value>;
    /// The seat's legal commands as JSON Schema families (see [`crate::choices`]).
    fn choices(&self, seat: Seat) -> Vec<crate::choices::Family>;
    /// What a prompts answer carries: `choices`, and a short sample of `legal`
    /// ([`crate::choices::legal_sample`]), the families computed once
    /// ([`Game::choices_and_legal`]).
    fn choices_and_legal(&self, seat: Seat) -> (Vec<crate::choices::Family>, Vec<Value>);
    fn outcome(&self) -> Option<Outcome>;
    /// The greedy bot's value of this state for `seat` ([`Game::heuristic`]).
    fn heuristic(&self, seat: Seat) -> i64;
    /// The command sent for `seat` when its clock runs out ([`Game::default_move`]).
    fn default_move(&self, seat: Seat) -> Option<Value>;
    /// The command sent for `seat` when its clock runs out in a game whose sealed defaults
    /// are drawn (issue 26): [`crate::timeout::timeout_move`], from `rng`.
    fn timeout_move(&self, seat: Seat, rng: &mut dyn Rng) -> Option<Value>;
    /// A state `seat` cannot tell from this one, its hidden parts sampled from `rng`
    /// ([`Game::determinize`]): what a fair bot decides on.
    fn determinize(&self, seat: Seat, rng: &mut dyn Rng) -> Box<dyn AnyState>;
    /// What `viewer` may see of a stored event; `None` when it is hidden from them.
    fn redact(&self, payload: &Value, viewer: Viewer) -> Option<Value>;
    fn to_json(&self) -> Value;
    fn check_invariants(&self) -> Result<(), String>;
}

/// The [`AnyGame`] of a [`Game`].
pub struct Erased<G: Game> {
    simulation: Option<Simulation>,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Erased<G> {
    pub const fn new() -> Self {
        Erased {
            simulation: None,
            game: PhantomData,
        }
    }
    /// The game's own statistics for `homestretch simulate` (none by default).
    pub const fn simulated_by(self, simulation: Simulation) -> Self {
        Erased {
            simulation: Some(simulation),
            ..self
        }
    }
}

impl<G: Game> Default for Erased<G> {
    fn default() -> Self {
        Self::new()
    }
}

struct ErasedState<G: Game>(G::State);

fn to_event_data<G: Game>(events: &[G::Event]) -> Vec<EventData> {
    events
        .iter()
        .map(|event| {
            // Serialize once; the `type` tag is read from the result.
            let payload = serde_json::to_value(event).expect("events serialize");
            let kind = payload
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string();
            EventData { kind, payload }
        })
        .collect()
}

impl<G: Game> AnyGame for Erased<G>
where
    G::Command: ToSchema,
    G::Event: ToSchema,
    G::Options: ToSchema,
    G::View: ToSchema,
{
    fn kind(&self) -> &'static str {
        G::KIND
    }
    fn rules_version(&self) -> &'static str {
        G::RULES_VERSION
    }
    fn reads_rules(&self) -> &'static [&'static str] {
        G::READS_RULES
    }
    fn event_schema_version(&self) -> u32 {
        G::EVENT_SCHEMA_VERSION
    }
    fn optional_kinds(&self) -> &'static [&'static str] {
        G::OPTIONAL_KINDS
    }
    fn seat_range(&self) -> RangeInclusive<u8> {
        G::seat_range()
    }
    fn normalize_options(&self, options: &Value) -> Result<Value, String> {
        let options = if options.is_null() {
            Value::Object(Default::default())
        } else {
            options.clone()
        };
        let parsed: G::Options = serde_json::from_value(options).map_err(|e| e.to_string())?;
        Ok(serde_json::to_value(parsed).expect("options serialize"))
    }
    fn option_samples(&self, seats: u8) -> Vec<Value> {
        G::option_samples(seats)
            .iter()
            .map(|o| serde_json::to_value(o).expect("options serialize"))
            .collect()
    }
    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rng: &mut dyn Rng,
    ) -> Result<Vec<EventData>, Rejection> {
        let options: G::Options = serde_json::from_value(options.clone())
            .map_err(|e| Rejection::Malformed(e.to_string()))?;
        Ok(to_event_data::<G>(&G::setup(&options, seats, rng)?))
    }
    fn setup_as_of(
        &self,
        options: &Value,
        seats: u8,
        rng: &mut dyn Rng,
        schema_version: u32,
    ) -> Result<Vec<EventData>, Rejection> {
        let options: G::Options = serde_json::from_value(options.clone())
            .map_err(|e| Rejection::Malformed(e.to_string()))?;
        let events = G::setup_as_of(&options, seats, rng, schema_version)?;
        Ok(to_event_data::<G>(&events))
    }
    fn new_state(&self) -> Box<dyn AnyState> {
        Box::new(ErasedState::<G>(G::State::default()))
    }
    fn state_from_json(&self, snapshot: &Value) -> Result<Box<dyn AnyState>, String> {
        let state: G::State =
            serde_json::from_value(snapshot.clone()).map_err(|e| e.to_string())?;
        Ok(Box::new(ErasedState::<G>(state)))
    }
    fn reserialize(&self, wire: WireType, value: &Value) -> Result<Value, String> {
        fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(
            value: &Value,
        ) -> Result<Value, String> {
            let parsed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            serde_json::to_value(parsed).map_err(|e| e.to_string())
        }
        match wire {
            WireType::Command => round_trip::<G::Command>(value),
            WireType::Event => round_trip::<G::Event>(value),
            WireType::Options => round_trip::<G::Options>(value),
        }
    }
    fn schemas(&self) -> GameSchemas {
        let mut dependencies = Vec::new();
        G::Command::schemas(&mut dependencies);
        G::Event::schemas(&mut dependencies);
        G::Options::schemas(&mut dependencies);
        G::View::schemas(&mut dependencies);
        let mut seen = std::collections::HashSet::new();
        dependencies.retain(|(name, _)| seen.insert(name.clone()));
        GameSchemas {
            roles: vec![
                ("Command", G::Command::schema()),
                ("Event", G::Event::schema()),
                ("Options", G::Options::schema()),
                ("View", G::View::schema()),
            ],
            dependencies,
        }
    }
    fn dice(&self, payload: &Value) -> Vec<u8> {
        G::Event::deserialize(payload)
            .map(|event| G::dice(&event))
            .unwrap_or_default()
    }
    fn simulate(&self, games: u64, seed: u64) -> Result<Value, String> {
        let simulation = self
            .simulation
            .ok_or_else(|| format!("no simulation for game kind `{}`", G::KIND))?;
        simulation(games, seed).map_err(|failure| failure.to_string())
    }
}

/// Parses a command; a field the command does not have is refused, never dropped (it would be
/// recorded in the log with the command).
fn parse_command<G: Game>(command: &Value) -> Result<G::Command, Rejection> {
    let command = &integral(command);
    let parsed: G::Command =
        serde_json::from_value(command.clone()).map_err(|e| Rejection::Malformed(e.to_string()))?;
    // serde ignores the fields of unit variants even under `deny_unknown_fields`: compare what
    // was sent with what was understood.
    let understood = serde_json::to_value(&parsed).expect("commands serialize");
    match unknown_field::<G>(command, command, &understood, "") {
        Some(field) => Err(Rejection::Malformed(format!(
            "unknown field `{}`",
            field.trim_start_matches('/')
        ))),
        None => Ok(parsed),
    }
}

/// `command` with every number that has no fractional part (`2.0`) written as an integer (`2`):
/// JSON Schema's `integer`, which the `choices` families use, counts `2.0` as an integer, so the
/// commands the families describe are exactly the ones accepted (issue 15).
fn integral(command: &Value) -> Value {
    match command {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                if f < 0.0 {
                    Value::from(f as i64)
                } else {
                    Value::from(f as u64)
                }
            }
            _ => command.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(integral).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), integral(v)))
                .collect(),
        ),
        _ => command.clone(),
    }
}

/// The JSON pointer of the first field of `sent` (at `pointer` in `root`) that `understood`,
/// its parsed and re-serialized form, lacks and that is not a known field left out because it
/// is `null` (an absent option is not serialized).
fn unknown_field<G: Game>(
    root: &Value,
    sent: &Value,
    understood: &Value,
    pointer: &str,
) -> Option<String> {
    match (sent, understood) {
        (Value::Object(sent), Value::Object(understood)) => sent.iter().find_map(|(key, value)| {
            let here = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
            match understood.get(key) {
                Some(inner) => unknown_field::<G>(root, value, inner, &here),
                None if value.is_null() && is_read::<G>(root, &here) => None,
                None => Some(here),
            }
        }),
        (Value::Array(sent), Value::Array(understood)) => sent
            .iter()
            .zip(understood)
            .enumerate()
            .find_map(|(i, (a, b))| unknown_field::<G>(root, a, b, &format!("{pointer}/{i}"))),
        _ => None,
    }
}

/// True when the field at `pointer` is read by the parser: with a value no command field
/// takes, parsing fails. (An ignored field takes anything.)
fn is_read<G: Game>(root: &Value, pointer: &str) -> bool {
    let mut probe = root.clone();
    match probe.pointer_mut(pointer) {
        Some(field) => *field = serde_json::json!([[[[true]]]]),
        None => return false,
    }
    serde_json::from_value::<G::Command>(probe).is_err()
}

impl<G: Game> AnyState for ErasedState<G> {
    fn clone_box(&self) -> Box<dyn AnyState> {
        Box::new(ErasedState::<G>(self.0.clone()))
    }
    fn decide(
        &self,
        actor: Seat,
        command: &Value,
        rng: &mut dyn Rng,
    ) -> Result<Vec<EventData>, Rejection> {
        let command = parse_command::<G>(command)?;
        Ok(to_event_data::<G>(&G::decide(
            &self.0, actor, &command, rng,
        )?))
    }
    fn decide_next(
        &self,
        actor: Seat,
        command: &Value,
        rng: &mut dyn Rng,
    ) -> Result<(Vec<EventData>, Box<dyn AnyState>), Rejection> {
        let command = parse_command::<G>(command)?;
        let events = G::decide(&self.0, actor, &command, rng)?;
        let mut next = self.0.clone();
        for event in &events {
            G::evolve(&mut next, event);
        }
        Ok((
            to_event_data::<G>(&events),
            Box::new(ErasedState::<G>(next)),
        ))
    }
    fn apply_upcast(&mut self, payload: &Value, schema_version: u32) -> Result<Vec<Value>, String> {
        if schema_version == G::EVENT_SCHEMA_VERSION {
            let event = G::Event::deserialize(payload).map_err(|e| e.to_string())?;
            G::evolve(&mut self.0, &event);
            return Ok(vec![payload.clone()]);
        }
        let upcast = G::upcast(&self.0, schema_version, payload.clone())?;
        for current in &upcast {
            let event = G::Event::deserialize(current).map_err(|e| e.to_string())?;
            G::evolve(&mut self.0, &event);
        }
        Ok(upcast)
    }
    fn view(&self, viewer: Viewer) -> Value {
        serde_json::to_value(G::view(&self.0, viewer)).expect("views serialize")
    }
    fn draw(&self, viewer: Viewer) -> String {
        G::draw(&G::view(&self.0, viewer), &G::prompts(&self.0), viewer)
    }
    fn prompts(&self) -> Vec<Prompt> {
        G::prompts(&self.0)
    }
    fn legal(&self, seat: Seat) -> Vec<Value> {
        G::legal(&self.0, seat)
            .iter()
            .map(|c| serde_json::to_value(c).expect("commands serialize"))
            .collect()
    }
    fn choices(&self, seat: Seat) -> Vec<crate::choices::Family> {
        G::choices(&self.0, seat)
    }
    fn choices_and_legal(&self, seat: Seat) -> (Vec<crate::choices::Family>, Vec<Value>) {
        let (choices, legal) = G::choices_and_legal(&self.0, seat);
        let legal = legal
            .iter()
            .map(|c| serde_json::to_value(c).expect("commands serialize"))
            .collect();
        // Bounded here, for every game: a whole list reached 45 KB in Mush (issue 31).
        (choices, crate::choices::legal_sample(legal))
    }
    fn heuristic(&self, seat: Seat) -> i64 {
        G::heuristic(&self.0, seat)
    }
    fn default_move(&self, seat: Seat) -> Option<Value> {
        G::default_move(&self.0, seat).map(|c| serde_json::to_value(c).expect("commands serialize"))
    }
    fn timeout_move(&self, seat: Seat, rng: &mut dyn Rng) -> Option<Value> {
        crate::timeout::timeout_move::<G>(&self.0, seat, rng)
            .map(|c| serde_json::to_value(c).expect("commands serialize"))
    }
    fn determinize(&self, seat: Seat, rng: &mut dyn Rng) -> Box<dyn AnyState> {
        Box::new(ErasedState::<G>(G::determinize(&self.0, seat, rng)))
    }
    fn outcome(&self) -> Option<Outcome> {
        G::outcome(&self.0)
    }
    fn redact(&self, payload: &Value, viewer: Viewer) -> Option<Value> {
        if viewer == Viewer::Omniscient {
            return Some(payload.clone());
        }
        let Ok(event) = G::Event::deserialize(payload) else {
            // An event we cannot parse is never shown to a player.
            return None;
        };
        match G::redact(&event, viewer) {
            Redacted::Shown(_) => Some(payload.clone()),
            Redacted::Masked(masked) => {
                Some(serde_json::to_value(masked).expect("events serialize"))
            }
            Redacted::Hidden => None,
        }
    }
    fn to_json(&self) -> Value {
        serde_json::to_value(&self.0).expect("states serialize")
    }
    fn check_invariants(&self) -> Result<(), String> {
        G::check_invariants(&self.0)
    }
}

use serde::Deserialize as _;

#[cfg(test)]
mod tests {
    //! Event versioning: a log written with an older event shape replays through an upcaster.
    use super::*;
    use crate::engine::{Outcome, Prompt, Redacted, Rng, RuleViolation, Seat, Viewer};
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    /// A tiny game whose event `added` was `{"n": …}` in schema 1 and is `{"amount": …}` now.
    struct Counter;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Event {
        Added { amount: u32 },
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    enum Command {
        Add {
            amount: u32,
        },
        Pass,
        Set {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            to: Option<u32>,
        },
    }

    impl Game for Counter {
        const KIND: &'static str = "counter";
        const RULES_VERSION: &'static str = "counter/2";
        const EVENT_SCHEMA_VERSION: u32 = 2;
        type Options = ();
        type State = u32;
        type Command = Command;
        type Event = Event;
        type View = u32;
        fn seat_range() -> RangeInclusive<u8> {
            1..=1
        }
        fn setup(_: &(), _: u8, _: &mut dyn Rng) -> Result<Vec<Event>, RuleViolation> {
            Ok(vec![])
        }
        fn decide(
            _: &u32,
            _: Seat,
            c: &Command,
            _: &mut dyn Rng,
        ) -> Result<Vec<Event>, RuleViolation> {
            match c {
                Command::Add { amount } => Ok(vec![Event::Added { amount: *amount }]),
                Command::Pass => Ok(vec![]),
                Command::Set { to } => Ok(vec![Event::Added {
                    amount: to.unwrap_or(0),
                }]),
            }
        }
        fn evolve(state: &mut u32, event: &Event) {
            let Event::Added { amount } = event;
            *state += amount;
        }
        fn view(state: &u32, _: Viewer) -> u32 {
            *state
        }
        fn prompts(_: &u32) -> Vec<Prompt> {
            vec![]
        }
        fn legal(_: &u32, _: Seat) -> Vec<Command> {
            vec![]
        }
        fn outcome(_: &u32) -> Option<Outcome> {
            None
        }
        fn redact(event: &Event, _: Viewer) -> Redacted<'_, Event> {
            Redacted::Shown(event)
        }
        fn upcast(_: &u32, schema_version: u32, mut payload: Value) -> Result<Vec<Value>, String> {
            match schema_version {
                1 if payload["type"] == "noted" => Ok(vec![]), // v1's `noted` no longer exists
                1 => {
                    // v1 → v2: `n` was renamed `amount`.
                    let n = payload.get("n").cloned().ok_or("v1 `added` without `n`")?;
                    let object = payload.as_object_mut().ok_or("not an object")?;
                    object.remove("n");
                    object.insert("amount".into(), n);
                    Ok(vec![payload])
                }
                2 => Ok(vec![payload]),
                other => Err(format!("unknown schema version {other}")),
            }
        }
    }

    /// Issue 11, item 9: a field a command does not have is refused, even on a command with no
    /// fields (which serde's `deny_unknown_fields` lets through) and even when it is `null`;
    /// a known optional field may be `null`.
    #[test]
    fn commands_refuse_fields_they_do_not_have() {
        let game: &dyn AnyGame = &Erased::<Counter>::new();
        let state = game.new_state();
        let seat = Seat::new(1).unwrap();
        let decide = |command: Value| state.decide(seat, &command, &mut crate::engine::seeded(1));
        for good in [
            json!({"type": "pass"}),
            json!({"type": "add", "amount": 2}),
            json!({"type": "set"}),
            json!({"type": "set", "to": null}),
            json!({"type": "set", "to": 3}),
        ] {
            assert!(decide(good.clone()).is_ok(), "{good}");
        }
        for (bad, field) in [
            (json!({"type": "pass", "junk": {"a": [1, 2]}}), "junk"),
            (json!({"type": "pass", "seat": null}), "seat"),
            (json!({"type": "add", "amount": 2, "seat": 1}), "seat"),
            (json!({"type": "set", "to": 3, "junk": null}), "junk"),
        ] {
            match decide(bad.clone()) {
                Err(Rejection::Malformed(why)) => {
                    assert!(
                        why.contains(&format!("unknown field `{field}`")),
                        "{bad}: {why}"
                    )
                }
                other => panic!("{bad} was not refused: {other:?}"),
            }
        }
    }

    #[test]
    fn an_old_log_replays_through_the_upcaster() {
        let game: &dyn AnyGame = &Erased::<Counter>::new();
        let mut state = game.new_state();
        // a stored log: two events written by the old code, one by the new
        state.apply(&json!({"type": "added", "n": 3}), 1).unwrap();
        state.apply(&json!({"type": "added", "n": 4}), 1).unwrap();
        // an event type that no longer exists upcasts to nothing
        assert_eq!(
            state.apply_upcast(&json!({"type": "noted"}), 1).unwrap(),
            Vec::<Value>::new()
        );
        state
            .apply(&json!({"type": "added", "amount": 5}), 2)
            .unwrap();
        assert_eq!(state.view(Viewer::Spectator), json!(12));
        // without the upcaster the old shape does not parse as the new one
        assert!(state.apply(&json!({"type": "added", "n": 1}), 2).is_err());
        assert!(state.apply(&json!({"type": "added", "n": 1}), 9).is_err());
    }

    /// JSON Schema's `integer` counts `2.0`; so does the command parser (issue 15 exactness),
    /// while `2.5` stays refused.
    #[test]
    fn a_whole_float_is_an_integer_and_a_fraction_is_refused() {
        assert_eq!(
            parse_command::<Counter>(&json!({"type": "add", "amount": 2.0})).unwrap(),
            Command::Add { amount: 2 }
        );
        assert!(parse_command::<Counter>(&json!({"type": "add", "amount": 2.5})).is_err());
        assert!(parse_command::<Counter>(&json!({"type": "add", "amount": -1.0})).is_err());
    }
}
