//! Mush (Alan R. Moon, White Wind 1994): a dog-sled race from Anchorage to Nome for 2–6
//! players. Rules: `docs/rules/mush.md` (rule IDs as in the spec).
//!
//! Layout of the module: `board` (the board data and movement graphs), `state`, `command`,
//! `event`, `decide` (guards; `decide::flow`: the automatic steps), `evolve` (replay), `legal` (prompts and legal
//! commands), `view` (views and redaction), `render` (the board picture), `sim` (statistics).

pub mod board;
pub mod choices;
pub mod command;
pub mod decide;
pub mod event;
pub mod evolve;
pub mod fair;
pub mod invariants;
pub mod legal;
pub mod render;
pub mod sim;
pub mod state;
pub mod view;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::{Game, Outcome, Redacted, Rng, RuleViolation, Seat, SeatScore, Viewer};
pub use board::{LinkId, SegmentId, SpaceId};
pub use command::Command;
pub use event::Event;
pub use state::State;
pub use view::View;

/// The game.
pub struct Mush;

/// A named layout (spec §2.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NamedLayout {
    /// anchorage, pinger_lake, ophir_anvik, koyuk, nome.
    #[default]
    Base,
    /// anchorage, ophir_anvik, nome (the recommended first game).
    FirstGame,
}

/// The board layout: a named one or an explicit list of segment ids (spec §2.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LayoutChoice {
    Named(NamedLayout),
    Segments(Vec<SegmentId>),
}

impl Default for LayoutChoice {
    fn default() -> Self {
        LayoutChoice::Named(NamedLayout::Base)
    }
}

impl LayoutChoice {
    pub fn segments(&self) -> Vec<SegmentId> {
        match self {
            LayoutChoice::Named(NamedLayout::Base) => board::data().base_layout.clone(),
            LayoutChoice::Named(NamedLayout::FirstGame) => board::data().first_game_layout.clone(),
            LayoutChoice::Segments(list) => list.clone(),
        }
    }
}

/// Options chosen at game creation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// `"base"` (default), `"first_game"`, or a list such as
    /// `["anchorage", "koyuk", "nome"]`: anchorage first, nome last, 0–3 distinct middle
    /// segments between them (MU-168: `["anchorage", "nome"]` is a legal two-segment race).
    #[serde(default)]
    pub layout: LayoutChoice,
}

impl Game for Mush {
    const KIND: &'static str = "mush";
    // 2.0.0: the errata MU-162 … MU-168 change the rules; schema 2: the events of MU-166
    // (`tokens_pooled`, `pool_refunded` instead of `dice_reduced`) and MU-167 (`attempt` on
    // `first_trainer_rolled`). Logs of schema 1 were played under other rules: no upcaster.
    const RULES_VERSION: &'static str = "mush/2.0.0";
    const EVENT_SCHEMA_VERSION: u32 = 2;
    /// Issue 26: avalanche actions (MU-105) and the overtaking right (MU-082) answer no
    /// decision: they never move a deadline.
    const OPTIONAL_KINDS: &'static [&'static str] = &[
        "place_avalanche",
        "move_avalanche",
        "remove_avalanche",
        "buy_overtake",
    ];
    /// Issue 26: the sealed order bid (section 4) a timed-out seat's default is drawn among.
    const SEALED_KINDS: &'static [&'static str] = &["submit_bid"];

    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn seat_range() -> std::ops::RangeInclusive<u8> {
        2..=6
    }

    fn setup(options: &Options, seats: u8, rng: &mut dyn Rng) -> Result<Vec<Event>, RuleViolation> {
        decide::setup(&options.layout.segments(), seats, rng)
    }

    crate::engine::forward_to_rooms!();

    fn dice(event: &Event) -> Vec<u8> {
        render::dice(event)
    }

    fn choices(state: &State, seat: Seat) -> Vec<crate::choices::Family> {
        choices::families(state, seat)
    }

    fn choices_and_legal(state: &State, seat: Seat) -> (Vec<crate::choices::Family>, Vec<Command>) {
        let plan = legal::choices(state, seat);
        (
            choices::families_of(state, seat, &plan),
            legal::legal_of(&plan),
        )
    }

    fn outcome(state: &State) -> Option<Outcome> {
        let winner = state.winner?;
        // MU-152: only the winner is ranked; the others did not win and have no place.
        Some(Outcome::winners_only(
            vec![winner],
            (0..usize::from(state.seats))
                .map(Seat::from_index)
                .map(|seat| SeatScore {
                    seat,
                    score: i64::from(seat == winner),
                })
                .collect(),
        ))
    }

    fn redact(event: &Event, viewer: Viewer) -> Redacted<'_, Event> {
        view::redact(event, viewer)
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        invariants::check_invariants(state)
    }

    fn heuristic(state: &State, seat: Seat) -> i64 {
        view::heuristic(state, seat)
    }

    fn determinize(state: &State, seat: Seat, rng: &mut dyn Rng) -> State {
        fair::determinize(state, seat, rng)
    }

    /// [`crate::Game::default_move`] (docs/rules/mush.md, "Timeout policy"): at the start of a
    /// turn, the first legal declaration (`declare_move` while a dog is fresh, else the first
    /// rest option) rather than the avalanche actions listed before it, which cost 5 tokens and
    /// answer nothing; every other decision as the generic policy.
    fn default_move(state: &State, seat: Seat) -> Option<Command> {
        if state.phase == state::Phase::TurnStart && state.active == Some(seat) {
            let declaration = legal::legal(state, seat)
                .into_iter()
                .find(|c| matches!(c, Command::DeclareMove { .. } | Command::DeclareRest { .. }));
            if declaration.is_some() {
                return declaration;
            }
        }
        crate::engine::cheapest_waited_for::<Self>(state, seat)
    }

    fn option_samples(_seats: u8) -> Vec<Options> {
        // The two named layouts and an explicit segment list (§2.2).
        vec![
            Options::default(),
            Options {
                layout: LayoutChoice::Named(NamedLayout::FirstGame),
            },
            Options {
                layout: LayoutChoice::Segments(vec![
                    SegmentId::Anchorage,
                    SegmentId::Koyuk,
                    SegmentId::PingerLake,
                    SegmentId::Nome,
                ]),
            },
            // MU-168: the shortest race, two segments.
            Options {
                layout: LayoutChoice::Segments(vec![SegmentId::Anchorage, SegmentId::Nome]),
            },
        ]
    }
}
