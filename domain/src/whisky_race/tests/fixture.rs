#![allow(dead_code)]
//! Test helpers: build positions directly (spec §7.0 fixtures) or by scripted commands.

use super::super::*;
use crate::decider::Scratch;
pub use crate::decider::spec::Spec;
use crate::engine::{Game, RuleViolation, ScriptedRng, Seat};
use state::{Loc, Phase, Turn, TurnStep};

pub fn seat(n: u8) -> Seat {
    Seat::new(n).expect("seat")
}
pub fn m(id: &str) -> MarkerId {
    MarkerId::of(id)
}

/// A game being played in a test: state + the events produced so far.
pub struct Table {
    pub s: State,
    pub log: Vec<Event>,
    pub rng: ScriptedRng,
}

impl Table {
    /// A new game through `setup` (standard board unless options say otherwise).
    pub fn new(seats: u8, options: Options) -> Table {
        let mut rng = ScriptedRng::new([]);
        let events = WhiskyRace::setup(&options, seats, &mut rng).expect("setup");
        let mut s = State::default();
        for e in &events {
            WhiskyRace::evolve(&mut s, e);
        }
        Table {
            s,
            log: events,
            rng,
        }
    }
    pub fn standard(seats: u8) -> Table {
        Table::new(seats, Options::default())
    }
    /// A standard game begun before WR-162 (event schema 1, `single_activation` false): brown
    /// markers apply beside the chosen one (WR-161).
    pub fn before_wr162(seats: u8) -> Table {
        let mut rng = ScriptedRng::new([]);
        let events =
            WhiskyRace::setup_as_of(&Options::default(), seats, &mut rng, 1).expect("setup");
        let mut s = State::default();
        for e in &events {
            WhiskyRace::evolve(&mut s, e);
        }
        assert!(!s.single_activation);
        Table {
            s,
            log: events,
            rng,
        }
    }
    /// Sends a command; returns its events or the violation.
    pub fn try_send(&mut self, who: u8, c: Command) -> Result<Vec<Event>, RuleViolation> {
        let events = WhiskyRace::decide(&self.s, seat(who), &c, &mut self.rng)?;
        for e in &events {
            WhiskyRace::evolve(&mut self.s, e);
        }
        self.log.extend(events.iter().cloned());
        WhiskyRace::check_invariants(&self.s).expect("invariants");
        Ok(events)
    }
    pub fn send(&mut self, who: u8, c: Command) -> Vec<Event> {
        let dbg = format!("{c:?}");
        self.try_send(who, c)
            .unwrap_or_else(|e| panic!("seat {who} {dbg} refused: {e}"))
    }
    /// Asserts the command is refused with `rule`, through the one harness ([`Spec`]).
    #[track_caller]
    pub fn reject(&mut self, who: u8, c: Command, rule: &str) {
        Spec::<WhiskyRace>::at(self.s.clone())
            .when(seat(who), c)
            .then_violation(rule);
    }
    pub fn plan(&mut self, amounts: &[u32]) {
        for (i, a) in amounts.iter().enumerate() {
            if self.s.sealed[i].is_none() && self.s.phase == Phase::Planning {
                self.send(i as u8 + 1, Command::SubmitMaltChoice { amount: *a });
            }
        }
    }

    // ---- direct fixture editing (spec §7.0: positions that are slow to reach) ----

    /// Clears the board except the given placements.
    pub fn place(&mut self, space: u8, id: &str) -> &mut Self {
        self.s.loc[m(id).index()] = Loc::Space { space };
        self
    }
    pub fn give(&mut self, who: u8, id: &str, used: bool) -> &mut Self {
        self.s.loc[m(id).index()] = Loc::Held { seat: seat(who) };
        self.s.used[m(id).index()] = used;
        self
    }
    /// Takes every whisky away from `who` (back to the reserve).
    pub fn strip(&mut self, who: u8) -> &mut Self {
        for i in 0..self.s.loc.len() {
            if self.s.loc[i] == (Loc::Held { seat: seat(who) }) {
                self.s.loc[i] = Loc::Reserve;
                self.s.used[i] = false;
            }
        }
        self
    }
    /// Sets a pawn (keeps the accounting of the invariants consistent).
    pub fn pawn(&mut self, who: u8, space: u8) -> &mut Self {
        let i = usize::from(who - 1);
        self.s.pawns[i] = space;
        self.s.kinclaith_shift[i] = 0;
        self.s.forward_steps[i] = u32::from(space);
        self
    }
    /// Sets supply, adjusting the initial total so malt stays conserved.
    pub fn supply(&mut self, who: u8, v: u32) -> &mut Self {
        let i = usize::from(who - 1);
        self.s.initial_malt = self.s.initial_malt + u64::from(v) - u64::from(self.s.supply[i]);
        self.s.supply[i] = v;
        self
    }
    pub fn chosen(&mut self, who: u8, v: u32) -> &mut Self {
        let i = usize::from(who - 1);
        self.s.initial_malt = self.s.initial_malt + u64::from(v) - u64::from(self.s.chosen[i]);
        self.s.chosen[i] = v;
        self
    }
    pub fn englishman(&mut self, space: u8) -> &mut Self {
        self.s.englishman = space;
        self
    }
    /// Puts the game in the player phase with `order`; the first seat starts its turn.
    pub fn turns(&mut self, order: &[u8]) -> &mut Self {
        self.s.phase = Phase::PlayerTurns;
        self.s.order = order.iter().map(|n| seat(*n)).collect();
        self.s.next = 0;
        self.s.turn = None;
        self.s.offers.clear();
        self.s.sealed.iter_mut().for_each(|x| *x = None);
        self.s.revealed = (0..self.s.seats)
            .map(|i| Some(self.s.chosen[usize::from(i)]))
            .collect();
        if !order.is_empty() {
            self.start_next();
        }
        self
    }
    /// Runs the engine's automatic continuation from the current fixture.
    pub fn settle(&mut self) -> Vec<Event> {
        let mut ctx = Scratch::<State>::new(self.s.clone(), &mut self.rng);
        decide::settle(&mut ctx);
        let (state, events) = ctx.into_parts();
        self.s = state;
        self.log.extend(events.iter().cloned());
        WhiskyRace::check_invariants(&self.s).expect("invariants");
        events
    }
    /// All turns done: the end of round runs (up to the first decision).
    pub fn end_round(&mut self) -> Vec<Event> {
        self.turns(&[]);
        self.settle()
    }
    /// Starts the next turn of the order through the engine's own event.
    pub fn start_next(&mut self) {
        let seat = self.s.order[self.s.next];
        let e = Event::TurnStarted { seat };
        WhiskyRace::evolve(&mut self.s, &e);
    }
    /// Jumps the active turn to the post-activation step (D9).
    pub fn post_activation(&mut self) -> &mut Self {
        if let Some(t) = self.s.turn.as_mut() {
            t.step = TurnStep::PostActivation;
        }
        self
    }
    pub fn turn(&self) -> &Turn {
        self.s.turn.as_ref().expect("a turn")
    }
    pub fn has(&self, who: u8, id: &str) -> bool {
        self.s.holds(seat(who), m(id))
    }
    pub fn supply_of(&self, who: u8) -> u32 {
        self.s.supply[usize::from(who - 1)]
    }
    pub fn chosen_of(&self, who: u8) -> u32 {
        self.s.chosen[usize::from(who - 1)]
    }
    pub fn pawn_of(&self, who: u8) -> u8 {
        self.s.pawns[usize::from(who - 1)]
    }
    pub fn prompted(&self) -> Vec<(u8, Vec<String>)> {
        WhiskyRace::prompts(&self.s)
            .into_iter()
            .map(|p| {
                (
                    p.seat.number(),
                    p.kinds.iter().map(|k| k.to_string()).collect(),
                )
            })
            .collect()
    }
    /// Seats prompted for something else than trading.
    pub fn blocking(&self) -> Vec<u8> {
        self.prompted()
            .into_iter()
            .filter(|(_, k)| k.iter().any(|k| !k.ends_with("_trade")))
            .map(|(s, _)| s)
            .collect()
    }
}

/// True when `events` contain an event matching `pred`.
pub fn has_event(events: &[Event], pred: impl Fn(&Event) -> bool) -> bool {
    events.iter().any(pred)
}
