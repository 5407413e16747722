//! Test helpers: a fixture builder that sets a position up directly, and command runners that
//! apply accepted events to the state (scripted dice via `ScriptedRng::dice`).

pub use crate::decider::spec::Spec;
use crate::engine::{Game, RuleViolation, ScriptedRng, Seat};
use crate::mush::board::{LinkId, SegmentId, SpaceId};
use crate::mush::command::Command;
use crate::mush::event::Event;
use crate::mush::state::*;
use crate::mush::{LayoutChoice, Mush, NamedLayout, Options};

pub fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}
pub fn sp(id: &str) -> SpaceId {
    SpaceId::of(id)
}
pub fn link(id: &str) -> LinkId {
    LinkId::of(id)
}

/// A position under construction.
pub struct Fx {
    pub s: State,
}

impl Fx {
    /// The spec's default fixture (§7): P1 hot, P2 mixed, P3 cold; base layout; 20 tokens;
    /// fatigue 0; every sled on ANCHORAGE; round 1, P1 holds the polar bear; w = 1.
    pub fn new() -> Fx {
        Fx::with(3, LayoutChoice::Named(NamedLayout::Base))
    }
    pub fn players(n: u8) -> Fx {
        Fx::with(n, LayoutChoice::Named(NamedLayout::Base))
    }
    pub fn with(n: u8, layout: LayoutChoice) -> Fx {
        let mut s = State::default();
        let opts = Options { layout };
        let events = Mush::setup(&opts, n, &mut ScriptedRng::dice(&[1])).expect("setup");
        for e in &events {
            Mush::evolve(&mut s, e);
        }
        let trainings = [Training::Hot, Training::Mixed, Training::Cold];
        for i in 0..usize::from(n) {
            s.players[i].training = Some(trainings[i % 3]);
        }
        // Skip the first-trainer re-roll window (MU-167) and training: straight to round 1.
        s.reroll = None;
        s.chooser = None;
        s.round = 1;
        s.initiative = Some(seat(1));
        s.weather_roll = 1;
        s.order = (1..=n).map(seat).collect();
        s.phase = Phase::TurnStart;
        s.active = Some(seat(1));
        Fx { s }
    }
    pub fn first_game(n: u8) -> Fx {
        Fx::with(n, LayoutChoice::Named(NamedLayout::FirstGame))
    }
    pub fn layout(n: u8, segs: &[SegmentId]) -> Fx {
        Fx::with(n, LayoutChoice::Segments(segs.to_vec()))
    }
    pub fn weather(mut self, w: u8) -> Fx {
        self.s.weather_roll = w;
        self
    }
    pub fn at(mut self, who: u8, space: &str) -> Fx {
        self.s.players[usize::from(who - 1)].space = sp(space);
        self
    }
    pub fn fatigue(mut self, who: u8, f: u8) -> Fx {
        self.s.players[usize::from(who - 1)].fatigue = f;
        self
    }
    /// Sets a player's tokens, keeping the conservation books balanced.
    pub fn tokens(mut self, who: u8, t: u32) -> Fx {
        let p = &mut self.s.players[usize::from(who - 1)];
        if t > p.tokens {
            self.s.tokens_drawn += u64::from(t - p.tokens);
        } else {
            self.s.tokens_paid += u64::from(p.tokens - t);
        }
        p.tokens = t;
        self
    }
    pub fn avalanche(mut self, l: &str) -> Fx {
        self.s.avalanches.push(link(l));
        self.s.avalanche_supply -= 1;
        self
    }
    /// `who` is active at turn start; the turn order is `who` then clockwise.
    pub fn turn_start(mut self, who: u8) -> Fx {
        let n = self.s.seats;
        let mut order = vec![seat(who)];
        while order.len() < usize::from(n) {
            let next = order[order.len() - 1].next(n);
            order.push(next);
        }
        self.s.order = order;
        self.s.turn_index = 0;
        self.s.active = Some(seat(who));
        self.s.phase = Phase::TurnStart;
        self
    }
    /// `who` is in the movement phase with `mp` points after a move with "nothing" outcome.
    pub fn movement(mut self, who: u8, mp: u8) -> Fx {
        self = self.turn_start(who);
        self.s.phase = Phase::Movement;
        self.s.mv = MoveState {
            outcome: Some(WeatherOutcome::Nothing),
            mp,
            ..MoveState::default()
        };
        self
    }
    /// Opens bidding for round `round` (nobody has bid).
    pub fn bidding(mut self) -> Fx {
        self.s.phase = Phase::Bidding;
        self.s.active = None;
        self.s.order.clear();
        self
    }
    /// Reorders the turn order so that the active player is the last of the round.
    pub fn last_in_order(mut self) -> Fx {
        let who = self.s.active.expect("active");
        let n = self.s.seats;
        let mut order = vec![who.next(n)];
        while order.len() < usize::from(n) {
            let next = order[order.len() - 1].next(n);
            order.push(next);
        }
        self.s.order = order;
        self.s.turn_index = usize::from(n) - 1;
        self
    }
    pub fn initiative(mut self, who: u8) -> Fx {
        self.s.initiative = Some(seat(who));
        self
    }
    /// The early-riser step of `who`, first in the order (then clockwise).
    pub fn early_riser(mut self, who: u8) -> Fx {
        self = self.turn_start(who);
        self.s.active = None;
        self.s.early_riser = Some(seat(who));
        self.s.phase = Phase::EarlyRiser;
        self
    }
    pub fn done(mut self) -> State {
        // The mover's turn (or early-riser step) began where its sled stands (MU-164).
        if self.s.mv.origin.is_none()
            && let Some(mover) = self.s.mover()
        {
            self.s.mv.origin = Some(self.s.players[mover.index()].space);
        }
        Mush::check_invariants(&self.s).expect("fixture invariants");
        self.s
    }
}

/// Runs a command with scripted d6 faces; on success applies the events to `s`.
pub fn run(
    s: &mut State,
    who: u8,
    cmd: Command,
    dice: &[u32],
) -> Result<Vec<Event>, RuleViolation> {
    let mut rng = ScriptedRng::dice(dice);
    let events = Mush::decide(s, seat(who), &cmd, &mut rng)?;
    for e in &events {
        Mush::evolve(s, e);
    }
    assert_eq!(rng.remaining(), 0, "unused scripted dice after {cmd:?}");
    Mush::check_invariants(s).expect("invariants after command");
    Ok(events)
}

/// Runs a command that must be accepted.
pub fn ok(s: &mut State, who: u8, cmd: Command, dice: &[u32]) -> Vec<Event> {
    run(s, who, cmd.clone(), dice).unwrap_or_else(|e| panic!("{cmd:?} from P{who} refused: {e}"))
}

/// The rule ID a command is refused with, through the one harness ([`Spec`]).
#[track_caller]
pub fn rule_of(s: &State, who: u8, cmd: Command) -> String {
    Spec::<Mush>::at(s.clone())
        .when(seat(who), cmd)
        .refused()
        .rule
        .to_string()
}

/// "All pass": answers every open window (re-roll or reduction) with passes until none is
/// open; `dice` feed every roll made on the way (e.g. the dog roll after the reduction window).
pub fn pass_all(s: &mut State, dice: &[u32]) -> Vec<Event> {
    let mut rng = ScriptedRng::dice(dice);
    let mut all = Vec::new();
    let mut guard = 0;
    while matches!(s.phase, Phase::RerollWindow | Phase::ReductionWindow) {
        guard += 1;
        assert!(guard < 100, "window never closes");
        let who = Mush::prompts(s)[0].seat;
        let cmd = if s.phase == Phase::RerollWindow {
            Command::PassReroll {}
        } else {
            Command::PassReduction {}
        };
        let events = Mush::decide(s, who, &cmd, &mut rng).expect("pass accepted");
        for e in &events {
            Mush::evolve(s, e);
        }
        Mush::check_invariants(s).expect("invariants");
        all.extend(events);
    }
    assert_eq!(rng.remaining(), 0, "unused scripted dice");
    all
}

/// Finds the first event matching a pattern.
#[macro_export]
macro_rules! find_event {
    ($events:expr, $pat:pat => $out:expr) => {
        $events.iter().find_map(|e| match e {
            $pat => Some($out),
            _ => None,
        })
    };
}
