//! The decider toolkit every game's `decide` is built from: guard clauses that name the rule a
//! command breaks ([`ensure`], [`violation`]), and the [`Scratch`] a command is resolved on.
//! Dice and sealed values are drawn through [`crate::engine::RngExt`] on the `Rng` handed to
//! `decide`, so that scripted RNGs drive them in tests.

use crate::engine::{Game, Rng, RuleViolation};

/// What a guard clause or a step of `decide` returns: `Ok`, or the rule the command breaks.
pub type Decided<T = ()> = Result<T, RuleViolation>;

/// Guard clause: `ensure(cond, "WR-019", || "why".into())?` refuses unless `condition` holds.
pub fn ensure(condition: bool, rule: &'static str, message: impl FnOnce() -> String) -> Decided {
    if condition {
        Ok(())
    } else {
        Err(violation(rule, message()))
    }
}

/// The refusal naming `rule`, where a guard is not a plain condition (`ok_or_else`, `match`).
pub fn violation(rule: &'static str, message: impl Into<String>) -> RuleViolation {
    RuleViolation::new(rule, message)
}

/// The scratchpad `decide` resolves one command on: a working copy of the state, the events
/// emitted so far and the command's randomness. [`Scratch::emit`] records an event and applies
/// it to the copy at once, so later steps of the same command see its effects exactly as replay
/// will; the copy changes in no other way, so it always equals the state before the command
/// evolved by [`Scratch::events`].
pub struct Scratch<'r, G: Game> {
    state: G::State,
    events: Vec<G::Event>,
    rng: &'r mut dyn Rng,
}

impl<'r, G: Game> Scratch<'r, G> {
    /// Starts from `state` (a copy the caller owns) with no events yet.
    pub fn new(state: G::State, rng: &'r mut dyn Rng) -> Self {
        Scratch {
            state,
            events: Vec::new(),
            rng,
        }
    }

    /// The state with every event emitted so far applied.
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// Records `event` and applies it to the working copy.
    pub fn emit(&mut self, event: G::Event) {
        G::evolve(&mut self.state, &event);
        self.events.push(event);
    }

    /// The events emitted so far, in order.
    pub fn events(&self) -> &[G::Event] {
        &self.events
    }

    /// The command's randomness: every draw must end up in an emitted event.
    pub fn rng(&mut self) -> &mut dyn Rng {
        &mut *self.rng
    }

    /// The events of the command.
    pub fn into_events(self) -> Vec<G::Event> {
        self.events
    }

    /// The state after the command and its events.
    pub fn into_parts(self) -> (G::State, Vec<G::Event>) {
        (self.state, self.events)
    }
}
