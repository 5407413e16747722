//! Scottish Highland Whisky Race (Andreas Steding, 2004), 3–6 players: the rules engine.
//!
//! Rules as implemented: `docs/rules/whisky-race.md`; the contract: spec `whisky-race.md`
//! (rule IDs `WR-nnn`, grep them to find their code). Layout, the same in every game:
//! [`board`] (board data), [`state`], [`command`], [`event`], [`decide`] (guards, the events
//! of each command, veto resolution, the automatic continuation), [`evolve`], [`choices`]
//! (legal moves as JSON Schema families), [`legal`] (prompts/legal drawn from them), [`view`]
//! (views, redaction, scoring), [`sim`] (invariants, simulation), [`render`] (board picture).

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

use crate::decider::{Scratch, ensure, says};
use crate::engine::*;

pub use board::{Kind, MarkerId, board};
pub use command::{Action, Bundle, Command, Direction, Piece, Reward, UseParams};
pub use event::{Event, Options};
pub use state::State;
pub use view::View;

/// The game (a decider).
pub struct WhiskyRace;

impl Game for WhiskyRace {
    const KIND: &'static str = "whisky_race";
    /// 1.2.0: WR-162 (one marker activated per space, brown ones included).
    const RULES_VERSION: &'static str = "whisky_race/1.2.0";
    /// Schema 2: `game_started.single_activation` (WR-162); older logs are upcast to `false`
    /// and those games keep WR-161.
    const EVENT_SCHEMA_VERSION: u32 = 2;
    /// Games of 1.1.0 (the errata WR-155..WR-161) re-run under these rules, WR-161 kept.
    const READS_RULES: &'static [&'static str] = &["whisky_race/1.1.0"];
    /// Issue 26: trading answers no decision (WR-035..WR-041): it never moves a deadline.
    const OPTIONAL_KINDS: &'static [&'static str] = &[
        "offer_trade",
        "accept_trade",
        "decline_trade",
        "withdraw_trade",
    ];
    /// Issue 26: the secret amounts (§4.6) a timed-out seat's default is drawn among.
    const SEALED_KINDS: &'static [&'static str] =
        &["submit_group_bid", "submit_malt_choice", "submit_duel_bid"];
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn seat_range() -> std::ops::RangeInclusive<u8> {
        let c = &board().c;
        c.min_players..=c.max_players
    }

    fn setup(options: &Options, seats: u8, rng: &mut dyn Rng) -> Result<Vec<Event>, RuleViolation> {
        ensure(Self::seat_range().contains(&seats), "WR-001", || {
            says("3_to_6_players")
        })?;
        let mut ctx = Scratch::<State>::new(State::default(), rng);
        ctx.emit(Event::GameStarted {
            seats,
            options: options.clone(),
            board_id: board().board_id.clone(),
            single_activation: true, // WR-162
        });
        if options.random_setup {
            // WR-143, WR-144 (R2): one draw per circled space, ascending, revealed together.
            let mut reserve = ctx.state().reserve();
            let mut placements = Vec::new();
            for &space in &board().circled {
                if reserve.is_empty() {
                    break;
                }
                let marker = reserve.swap_remove(ctx.rng().index(reserve.len()));
                placements.push(event::Placement { space, marker });
            }
            ctx.emit(Event::SetupMarkersPlaced { placements });
            // WR-145 (R3): the replacement order is drawn by lot.
            let mut order: Vec<Seat> = Seat::all(seats).collect();
            ctx.rng().shuffle(&mut order);
            ctx.emit(Event::LotDrawn {
                purpose: event::LotPurpose::SetupReplacement,
                order,
            });
        }
        decide::settle(&mut ctx);
        Ok(ctx.into_events())
    }

    /// WR-162: a game begun before event schema 2 keeps WR-161 (its log is upcast so); the
    /// audit re-runs its setup so too.
    fn as_of_schema(event: &mut Event, schema_version: u32) {
        if let Event::GameStarted {
            single_activation, ..
        } = event
        {
            *single_activation = schema_version >= 2;
        }
    }

    /// Schema 1 → 2: `game_started` gains `single_activation: false` (WR-161 kept); every
    /// other event has the same shape.
    fn upcast(
        _state: &State,
        schema_version: u32,
        mut payload: serde_json::Value,
    ) -> Result<Vec<serde_json::Value>, String> {
        match schema_version {
            2 => Ok(vec![payload]),
            1 => {
                if payload.get("type").and_then(serde_json::Value::as_str) == Some("game_started") {
                    payload["single_activation"] = serde_json::Value::Bool(false);
                }
                Ok(vec![payload])
            }
            other => Err(format!("no upcaster from whisky race event schema {other}")),
        }
    }

    crate::engine::forward_to_rooms!();

    fn choices(state: &State, seat: Seat) -> Vec<crate::choices::Family> {
        choices::choices(state, seat)
    }

    fn choices_and_legal(state: &State, seat: Seat) -> (Vec<crate::choices::Family>, Vec<Command>) {
        let families = choices::choices(state, seat);
        let legal = legal::legal_from(state, seat, &families);
        (families, legal)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        view::outcome(state)
    }

    fn redact(event: &Event, viewer: Viewer) -> Redacted<'_, Event> {
        view::redact(event, viewer)
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        invariants::check_invariants(state)
    }

    fn check_event(before: &State, event: &Event) -> Result<(), String> {
        invariants::check_event(before, event)
    }

    fn heuristic(state: &State, seat: Seat) -> i64 {
        view::heuristic(state, seat)
    }

    fn determinize(state: &State, seat: Seat, rng: &mut dyn Rng) -> State {
        fair::determinize(state, seat, rng)
    }

    fn option_samples(_seats: u8) -> Vec<Options> {
        // Each expert variant alone, then all three together (§3.19).
        let all = Options {
            random_setup: true,
            group_bidding: true,
            englishman_offer: true,
        };
        vec![
            Options::default(),
            Options {
                random_setup: true,
                ..Options::default()
            },
            Options {
                group_bidding: true,
                ..Options::default()
            },
            Options {
                englishman_offer: true,
                ..Options::default()
            },
            all,
        ]
    }
}
