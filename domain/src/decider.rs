//! The decider toolkit every game's `decide` is built from: guard clauses that name the rule a
//! command breaks ([`ensure`], [`violation`]), and the [`Scratch`] a command is resolved on.
//! Dice and sealed values are drawn through [`crate::engine::RngExt`] on the `Rng` handed to
//! `decide`, so that scripted RNGs drive them in tests.

use crate::engine::rng::Rng;
use crate::engine::violation::RuleViolation;

/// What a guard clause or a step of `decide` returns: `Ok`, or the rule the command breaks.
pub type Decided<T = ()> = Result<T, RuleViolation>;

pub use crate::i18n::{MessageArg, Says, says};

/// Guard clause: refuses, naming `rule` and saying what is wrong, unless `condition` holds:
/// `ensure(amount <= supply, "WR-019", || says("cannot_choose_more_than_supply").arg("supply", supply))?`. What it says is data (issue 18): a `violations.<key>` of the catalogue
/// (`domain/i18n/{en,fr}.json`, each message written once per language) and its arguments,
/// told in the caller's language by the server.
pub fn ensure(condition: bool, rule: &'static str, message: impl FnOnce() -> Says) -> Decided {
    if condition {
        Ok(())
    } else {
        Err(violation(rule, message()))
    }
}

/// The refusal naming `rule`, where a guard is not a plain condition (`ok_or_else`, `match`).
pub fn violation(rule: &'static str, message: Says) -> RuleViolation {
    RuleViolation::said(rule, message)
}

/// What [`Scratch`] needs of a game: its state, and how one event evolves it (the game's
/// `evolve`). A game's state implements it in its `evolve` room, so `decide` names its state,
/// not the game whose `impl Game` forwards to `decide` (no circle between the two).
pub trait Evolves {
    type Event;
    /// Applies one event, exactly as the game's `Game::evolve`.
    fn evolve(&mut self, event: &Self::Event);
}

/// The scratchpad `decide` resolves one command on: a working copy of the state, the events
/// emitted so far and the command's randomness. [`Scratch::emit`] records an event and applies
/// it to the copy at once, so later steps of the same command see its effects exactly as replay
/// will; the copy changes in no other way, so it always equals the state before the command
/// evolved by [`Scratch::events`].
pub struct Scratch<'r, S: Evolves> {
    state: S,
    events: Vec<S::Event>,
    rng: &'r mut dyn Rng,
}

impl<'r, S: Evolves> Scratch<'r, S> {
    /// Starts from `state` (a copy the caller owns) with no events yet.
    pub fn new(state: S, rng: &'r mut dyn Rng) -> Self {
        Scratch {
            state,
            events: Vec::new(),
            rng,
        }
    }

    /// The state with every event emitted so far applied.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// Records `event` and applies it to the working copy.
    pub fn emit(&mut self, event: S::Event) {
        self.state.evolve(&event);
        self.events.push(event);
    }

    /// The events emitted so far, in order.
    pub fn events(&self) -> &[S::Event] {
        &self.events
    }

    /// The command's randomness: every draw must end up in an emitted event.
    pub fn rng(&mut self) -> &mut dyn Rng {
        &mut *self.rng
    }

    /// The events of the command.
    pub fn into_events(self) -> Vec<S::Event> {
        self.events
    }

    /// The state after the command and its events.
    pub fn into_parts(self) -> (S, Vec<S::Event>) {
        (self.state, self.events)
    }
}

/// The given-events / when-command / then-events-or-violation harness (the shape of fmodel's
/// `DeciderTestSpecification`): `Spec::<Mush>::given(events).when(seat, command)` then
/// `.then(events)` or `.then_violation("MU-160")`, with the command's randomness scripted by
/// `.rolling(values)` (see [`crate::engine::ScriptedRng`]).
#[cfg(test)]
pub mod spec {
    use crate::engine::{Game, RuleViolation, ScriptedRng, Seat};

    /// The history a command is decided on.
    pub struct Spec<G: Game> {
        state: G::State,
    }

    /// A command about to be decided.
    pub struct When<G: Game> {
        state: G::State,
        seat: Seat,
        command: G::Command,
        rng: ScriptedRng,
    }

    impl<G: Game> Spec<G> {
        /// The state the events rebuild from the empty one, as replay does.
        pub fn given(events: impl IntoIterator<Item = G::Event>) -> Self {
            let mut state = G::State::default();
            for event in events {
                G::evolve(&mut state, &event);
            }
            Spec { state }
        }

        /// A position a game's test fixture built by hand (spec §7.0: positions slow to reach
        /// by events). Prefer [`Spec::given`] where the events are at hand.
        pub fn at(state: G::State) -> Self {
            Spec { state }
        }

        pub fn when(self, seat: Seat, command: G::Command) -> When<G> {
            When {
                state: self.state,
                seat,
                command,
                rng: ScriptedRng::new([]),
            }
        }
    }

    impl<G: Game> When<G> {
        /// Scripts the command's draws (`below` answers, 0-based; a die face `f` is `f - 1`).
        pub fn rolling(mut self, values: impl IntoIterator<Item = u32>) -> Self {
            self.rng = ScriptedRng::new(values);
            self
        }

        fn decide(mut self) -> Result<Vec<G::Event>, RuleViolation> {
            G::decide(&self.state, self.seat, &self.command, &mut self.rng)
        }

        /// The command is accepted with exactly these events.
        #[track_caller]
        pub fn then(self, expected: Vec<G::Event>) {
            let command = format!("{:?}", self.command);
            match self.decide() {
                Ok(events) => assert_eq!(events, expected, "events of {command}"),
                Err(v) => panic!("{command} refused ({v}), expected events {expected:?}"),
            }
        }

        /// The command is refused, naming `rule`; the refusal, for a look at its message.
        #[track_caller]
        pub fn then_violation(self, rule: &str) -> RuleViolation {
            let command = format!("{:?}", self.command);
            let v = self.refused();
            assert_eq!(v.rule, rule, "rule named by the refusal of {command}: {v}");
            v
        }

        /// The command is refused (whatever the rule): the refusal.
        #[track_caller]
        pub fn refused(self) -> RuleViolation {
            let command = format!("{:?}", self.command);
            match self.decide() {
                Ok(events) => panic!("{command} accepted with {events:?}, expected a refusal"),
                Err(v) => v,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::Spec;
        use crate::engine::Seat;
        use crate::{bandits, mush, whisky_race};

        // No event yet: every game refuses any command until it is set up.
        #[test]
        fn wr_017_no_command_before_the_setup() {
            Spec::<whisky_race::WhiskyRace>::given([])
                .when(
                    Seat::from_index(0),
                    whisky_race::Command::PassReplacement {},
                )
                .then_violation("WR-017");
        }

        #[test]
        fn mu_160_no_command_before_the_setup() {
            Spec::<mush::Mush>::given([])
                .when(Seat::from_index(0), mush::Command::DeclareMove {})
                .then_violation("MU-160");
        }

        #[test]
        fn bd_001_no_command_before_the_setup() {
            Spec::<bandits::Bandits>::given([])
                .when(Seat::from_index(0), bandits::Command::RollDie {})
                .then_violation("BD-001");
        }
    }
}
