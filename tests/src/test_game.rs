//! `countdown`: a fourth game that exists only in the tests. It is registered in a test's own
//! registry (never in `domain::registry()`), so playing it over HTTP proves that the server
//! hosts any game of its registry without naming it: adding a game touches `domain/` only.
//!
//! Rules: seats take turns from seat 1 (CD-1); a `step` moves the seat one step (CD-2); the
//! first seat to reach the target wins and the game is over (CD-3).

use domain::decider::says;
use domain::engine::{
    Outcome, Prompt, Redacted, Rng, RuleViolation, Seat, SeatScore, Viewer, ensure,
};
use domain::{Erased, Game, Registry};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub struct Countdown;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CountdownOptions {
    /// Steps to win (default 2).
    #[serde(default)]
    pub target: Option<u8>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct CountdownState {
    pub target: u8,
    pub steps: Vec<u8>,
    pub turn: usize,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CountdownCommand {
    Step,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CountdownEvent {
    Started { seats: u8, target: u8 },
    Stepped { seat: Seat },
}

#[derive(Serialize, Clone, Debug, PartialEq, ToSchema)]
pub struct CountdownView {
    pub steps: Vec<u8>,
    pub target: u8,
}

fn winner(state: &CountdownState) -> Option<usize> {
    state.steps.iter().position(|s| *s >= state.target)
}

impl Game for Countdown {
    const KIND: &'static str = "countdown";
    const RULES_VERSION: &'static str = "countdown-1";
    type Options = CountdownOptions;
    type State = CountdownState;
    type Command = CountdownCommand;
    type Event = CountdownEvent;
    type View = CountdownView;

    fn seat_range() -> std::ops::RangeInclusive<u8> {
        2..=2
    }

    fn setup(
        options: &CountdownOptions,
        seats: u8,
        _rng: &mut dyn Rng,
    ) -> Result<Vec<CountdownEvent>, RuleViolation> {
        let target = options.target.unwrap_or(2);
        // A game outside `domain/` has no catalogue entries of its own: its refusals reuse the
        // engine's messages (told in every language), or are English text only.
        if !(1..=9).contains(&target) {
            return Err(RuleViolation::new(
                "CD-2",
                format!("target must be 1 to 9, not {target}"),
            ));
        }
        Ok(vec![CountdownEvent::Started { seats, target }])
    }

    fn decide(
        state: &CountdownState,
        actor: Seat,
        command: &CountdownCommand,
        _rng: &mut dyn Rng,
    ) -> Result<Vec<CountdownEvent>, RuleViolation> {
        ensure(winner(state).is_none(), "CD-3", || says("game_over"))?;
        ensure(actor.index() == state.turn, "CD-1", || says("not_turn"))?;
        match command {
            CountdownCommand::Step => Ok(vec![CountdownEvent::Stepped { seat: actor }]),
        }
    }

    fn evolve(state: &mut CountdownState, event: &CountdownEvent) {
        match event {
            CountdownEvent::Started { seats, target } => {
                *state = CountdownState {
                    target: *target,
                    steps: vec![0; usize::from(*seats)],
                    turn: 0,
                }
            }
            CountdownEvent::Stepped { seat } => {
                if let Some(steps) = state.steps.get_mut(seat.index()) {
                    *steps += 1;
                }
                state.turn = (state.turn + 1) % state.steps.len().max(1);
            }
        }
    }

    fn view(state: &CountdownState, _viewer: Viewer) -> CountdownView {
        CountdownView {
            steps: state.steps.clone(),
            target: state.target,
        }
    }

    fn prompts(state: &CountdownState) -> Vec<Prompt> {
        if winner(state).is_some() || state.steps.is_empty() {
            return Vec::new();
        }
        vec![Prompt {
            seat: Seat::from_index(state.turn),
            kinds: vec!["step".into()],
            must: true,
        }]
    }

    fn legal(state: &CountdownState, seat: Seat) -> Vec<CountdownCommand> {
        if winner(state).is_none() && seat.index() == state.turn && !state.steps.is_empty() {
            vec![CountdownCommand::Step]
        } else {
            Vec::new()
        }
    }

    fn outcome(state: &CountdownState) -> Option<Outcome> {
        let won = winner(state)?;
        // CD-3: the first seat to reach the target wins; the others are not ranked (their
        // steps are a score, not a place).
        Some(Outcome::winners_only(
            vec![Seat::from_index(won)],
            state
                .steps
                .iter()
                .enumerate()
                .map(|(i, steps)| SeatScore {
                    seat: Seat::from_index(i),
                    score: i64::from(*steps),
                })
                .collect(),
        ))
    }

    fn redact(event: &CountdownEvent, _viewer: Viewer) -> Redacted<'_, CountdownEvent> {
        Redacted::Shown(event)
    }
}

/// The default games and `countdown`.
pub fn registry_with_countdown() -> Registry {
    static COUNTDOWN: Erased<Countdown> = Erased::new();
    domain::registry().with(&COUNTDOWN)
}
