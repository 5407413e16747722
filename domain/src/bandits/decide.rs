//! `decide`: validates a command against the pending decision (§5), then resolves everything
//! that follows automatically (arrivals, fights, space effects, destiny cards …) on a working
//! copy of the state until the next decision is pending. Every change goes through an event
//! (`emit` = record + `evolve`); the last event of every command is `awaiting`, which carries
//! the control state (pending decision and unfinished resolutions).

use super::board::{Kind, Node, Zone, board};
use super::command::Command;
use super::event::{Event, RollContext};
use super::evolve::evolve;
use super::movement::{self, End, Len, MoveCards, PathInfo};
use super::state::*;
use crate::engine::{Rng, RngExt, RuleViolation, Seat, ensure};

pub use super::destiny::*;
pub use super::hunter::*;

pub type Res<T = ()> = Result<T, RuleViolation>;

pub(super) fn rv(rule: &'static str, msg: impl Into<String>) -> RuleViolation {
    RuleViolation::new(rule, msg)
}

/// The pending decision: who acts, its name (§5.3) and the command kinds it allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Awaiting {
    pub seat: Seat,
    pub decision: &'static str,
    pub kinds: Vec<&'static str>,
}

fn aw(seat: Seat, decision: &'static str, kinds: &[&'static str]) -> Option<Awaiting> {
    Some(Awaiting {
        seat,
        decision,
        kinds: kinds.to_vec(),
    })
}

/// The pending decision of `st` (none before setup and after the end).
pub fn awaiting(st: &State) -> Option<Awaiting> {
    if !st.started() || st.winner.is_some() {
        return None;
    }
    let active = st.active.unwrap_or(Seat::from_index(0));
    match &st.ctl.phase {
        Phase::Setup | Phase::Over => None,
        Phase::FirstRolls { next, .. } => aw(
            *st.order.get(usize::from(*next))?,
            "first_player_roll",
            &["roll_die"],
        ),
        Phase::Interrogated => aw(active, "interrogated", &["return_interrogation"]),
        Phase::TurnRoll => aw(active, "turn_roll", &["roll_die"]),
        Phase::HunterMove { .. } => aw(active, "hunter_move", &["move_hunter"]),
        Phase::Action { value, attempt } => {
            if *value == 10 && can_free(st, active) {
                aw(active, "turn_action", &["free_pawn"])
            } else if *attempt {
                aw(active, "turn_action", &["free_pawn", "move_pawn", "pass"])
            } else {
                aw(
                    active,
                    "turn_action",
                    &["free_pawn", "move_pawn", "play_card", "pass"],
                )
            }
        }
        Phase::RerollAfterTen => aw(active, "reroll_after_ten", &["roll_die", "end_turn"]),
        Phase::Resolving { .. } => match st.ctl.stack.last()? {
            Frame::HandLimit { seat } => aw(*seat, "hand_limit", &["discard_cards"]),
            Frame::Arrive(a) => match &a.stage {
                ArrivalStage::Fight(f) => match f.step {
                    FightStep::Bodyguard => aw(
                        *f.window.get(usize::from(f.next))?,
                        "bodyguard_window",
                        &["play_card", "pass"],
                    ),
                    FightStep::AttackerRoll => aw(f.attacker_seat, "fight_roll", &["roll_die"]),
                    FightStep::DefenderRoll => aw(f.defender, "fight_roll", &["roll_die"]),
                    FightStep::DefenceReroll => {
                        aw(f.defender, "defence_reroll", &["reroll_defence", "pass"])
                    }
                    FightStep::Lawyer => {
                        aw(f.attacker_seat, "lawyer_window", &["play_card", "pass"])
                    }
                },
                ArrivalStage::Bonus { card_only: true } => {
                    aw(active, "bonus_move", &["move_pawn", "pass"])
                }
                ArrivalStage::Bonus { card_only: false } => {
                    aw(active, "bonus_move", &["move_pawn"])
                }
                ArrivalStage::Express => aw(active, "express_choice", &["ride_express", "pass"]),
                _ => None,
            },
            Frame::Destiny(d) => {
                let e = d.exec.as_ref()?;
                match e.step {
                    ExecStep::Choice => {
                        if choice_pass_allowed(st, active, e) {
                            aw(active, "destiny_choice", &["resolve_destiny", "pass"])
                        } else {
                            aw(active, "destiny_choice", &["resolve_destiny"])
                        }
                    }
                    ExecStep::Roll if is_permission(e.card) => {
                        aw(active, "destiny_roll", &["roll_die", "pass"])
                    }
                    ExecStep::Roll => aw(active, "destiny_roll", &["roll_die"]),
                    ExecStep::Move => {
                        if is_permission(e.card) || !destiny_moves(st, active, e).0 {
                            aw(active, "destiny_move", &["move_pawn", "pass"])
                        } else {
                            aw(active, "destiny_move", &["move_pawn"])
                        }
                    }
                    ExecStep::Lawyer => aw(
                        *e.window.get(usize::from(e.next))?,
                        "lawyer_window",
                        &["play_card", "pass"],
                    ),
                    ExecStep::Start | ExecStep::Next => None,
                }
            }
        },
    }
}

/// BD-061 / BD-390: a pawn in prison and no own pawn on the own probation officer.
pub fn can_free(st: &State, seat: Seat) -> bool {
    let Some(c) = st.colour_of(seat) else {
        return false;
    };
    let po = board().probation[c.index()];
    st.pawns_of(seat).any(|p| st.in_prison(p)) && !st.own_occupied(po, seat)
}

/// Own pawns that are free and movable (destiny subjects, card moves).
pub fn free_movable(st: &State, seat: Seat) -> Vec<Pawn> {
    st.pawns_of(seat)
        .filter(|&p| st.is_free(p) && st.is_movable(p))
        .collect()
}

/// Own free movable pawns outside Huntington (BD-305).
pub fn outside_movable(st: &State, seat: Seat) -> Vec<Pawn> {
    free_movable(st, seat)
        .into_iter()
        .filter(|&p| !st.in_huntington(p))
        .collect()
}

/// The working copy `decide` resolves on.
pub struct Cx<'a> {
    pub st: State,
    pub ev: Vec<Event>,
    rng: &'a mut dyn Rng,
}

pub fn decide(st: &State, actor: Seat, cmd: &Command, rng: &mut dyn Rng) -> Res<Vec<Event>> {
    ensure(st.started(), "BD-001", || "the game is not set up".into())?;
    ensure(st.winner.is_none(), "BD-400", || "the game is over".into())?;
    ensure(st.is_seat(actor), "BD-001", || {
        format!("{actor} is not at this table")
    })?;
    // Commands built in Rust (not parsed from JSON) could carry out-of-range node indices.
    let nodes = match cmd {
        Command::MovePawn { path, .. } | Command::MoveHunter { path } => path.as_slice(),
        _ => &[],
    };
    ensure(
        nodes.iter().all(|n| n.idx() < board().nodes.len()),
        "BD-082",
        || "unknown node".into(),
    )?;
    let Some(w) = awaiting(st) else {
        return Err(rv("BD-006", "no decision is pending"));
    };
    ensure(w.seat == actor, "BD-001", || {
        format!("{} ({}) must act now, not {actor}", w.seat, w.decision)
    })?;
    let mut cx = Cx {
        st: st.clone(),
        ev: Vec::new(),
        rng,
    };
    cx.handle(actor, cmd, &w)?;
    cx.finish();
    Ok(cx.ev)
}

impl<'a> Cx<'a> {
    pub fn new(st: State, rng: &'a mut dyn Rng) -> Self {
        Cx {
            st,
            ev: Vec::new(),
            rng,
        }
    }

    pub fn emit(&mut self, e: Event) {
        evolve(&mut self.st, &e);
        self.ev.push(e);
    }

    /// Appends the `awaiting` event (the control state after this command).
    pub fn finish(&mut self) {
        let w = awaiting(&self.st);
        let control = self.st.ctl.clone();
        self.emit(Event::Awaiting {
            seat: w.as_ref().map(|w| w.seat),
            decision: w.map_or("none", |w| w.decision).to_string(),
            control,
        });
    }

    pub(super) fn active(&self) -> Seat {
        self.st.active.unwrap_or(Seat::from_index(0))
    }

    pub(super) fn roll(&mut self, seat: Seat, context: RollContext, sides: u32) -> u8 {
        let value = self.rng.die(sides) as u8;
        self.emit(Event::DieRolled {
            seat,
            context,
            value,
        });
        value
    }

    // ------------------------------------------------------------------ dispatch

    pub(super) fn handle(&mut self, actor: Seat, cmd: &Command, w: &Awaiting) -> Res {
        match self.st.ctl.phase.clone() {
            Phase::FirstRolls {
                next,
                best_seat,
                best_value,
            } => {
                ensure(matches!(cmd, Command::RollDie), "BD-030", || {
                    "everybody rolls once first".into()
                })?;
                let v = self.roll(actor, RollContext::FirstPlayer, 10);
                // BD-031: a higher value wins; ties go to the earlier roller.
                let (bs, bv) = if best_seat.is_none() || v > best_value {
                    (Some(actor), v)
                } else {
                    (best_seat, best_value)
                };
                if usize::from(next) + 1 >= self.st.order.len() {
                    let first = bs.unwrap_or(actor);
                    self.emit(Event::FirstPlayerChosen { seat: first });
                    self.start_turn(first, 1);
                } else {
                    self.st.ctl.phase = Phase::FirstRolls {
                        next: next + 1,
                        best_seat: bs,
                        best_value: bv,
                    };
                }
                Ok(())
            }
            Phase::Interrogated => {
                ensure(
                    matches!(cmd, Command::ReturnInterrogation),
                    "BD-040",
                    || "an interrogated turn only hands the card back".into(),
                )?;
                self.emit(Event::InterrogationServed { seat: actor });
                self.end_turn();
                Ok(())
            }
            Phase::TurnRoll => {
                ensure(matches!(cmd, Command::RollDie), "BD-041", || {
                    "the turn begins with a roll".into()
                })?;
                let v = self.roll(actor, RollContext::Turn, 10);
                let first = !self.st.ctl.rolled;
                self.st.ctl.rolled = true;
                if first && self.st.options.bounty_hunter {
                    // BD-423: the first turn roll also rolls the hunter's D6.
                    let h = self.roll(actor, RollContext::Hunter, 6);
                    self.st.ctl.phase = Phase::HunterMove {
                        hunter: h,
                        value: v,
                    };
                } else {
                    self.use_roll(v);
                }
                Ok(())
            }
            Phase::HunterMove { hunter, value } => {
                let Command::MoveHunter { path } = cmd else {
                    return Err(rv("BD-423", "the hunter moves before the roll is used"));
                };
                let captures = hunter_path(&self.st, hunter, path)?;
                self.emit(Event::HunterMoved { path: path.clone() });
                for p in captures {
                    self.imprison(p);
                }
                self.use_roll(value);
                Ok(())
            }
            Phase::Action { value, attempt } => self.turn_action(actor, cmd, value, attempt),
            Phase::RerollAfterTen => match cmd {
                Command::RollDie => {
                    let v = self.roll(actor, RollContext::Turn, 10);
                    self.use_roll(v);
                    Ok(())
                }
                Command::EndTurn => {
                    self.end_turn();
                    Ok(())
                }
                _ => Err(rv("BD-048", "after a 10: roll again or end the turn")),
            },
            Phase::Resolving { .. } => self.frame_command(actor, cmd, w),
            Phase::Setup | Phase::Over => Err(rv("BD-006", "no decision is pending")),
        }
    }

    // ------------------------------------------------------------------ the turn

    pub fn start_turn(&mut self, seat: Seat, turn: u32) {
        self.emit(Event::TurnStarted { seat, turn });
        self.st.ctl.attempts = 0;
        self.st.ctl.rolled = false;
        self.st.ctl.watch_used = false;
        self.st.ctl.stack.clear();
        // BD-040: an interrogated turn only hands the card back.
        self.st.ctl.phase = if self.st.interrogated == Some(seat) {
            Phase::Interrogated
        } else {
            Phase::TurnRoll
        };
    }

    /// BD-042 / BD-043: attempt mode or normal mode.
    pub(super) fn use_roll(&mut self, v: u8) {
        let seat = self.active();
        let has_free = self.st.pawns_of(seat).any(|p| self.st.is_free(p));
        if has_free {
            self.st.ctl.phase = Phase::Action {
                value: v,
                attempt: false,
            };
            return;
        }
        self.st.ctl.attempts += 1;
        if v == 5 || v == 10 {
            self.st.ctl.phase = Phase::Action {
                value: v,
                attempt: true,
            };
        } else if self.st.ctl.attempts < 3 {
            self.st.ctl.phase = Phase::TurnRoll;
        } else {
            self.end_turn();
        }
    }

    /// BD-050: spent tickets go back, then the next player clockwise.
    pub fn end_turn(&mut self) {
        let seat = self.active();
        self.emit(Event::TurnEnded {
            seat,
            turn: self.st.turn,
        });
        let pos = self.st.order.iter().position(|&s| s == seat).unwrap_or(0);
        let n = self.st.order.len().max(1);
        let mut cards = Vec::new();
        for i in 0..n {
            let s = self.st.order[(pos + i) % n];
            let mut mine: Vec<Card> = self
                .st
                .tickets
                .iter()
                .filter(|t| t.spent && t.owner == s)
                .map(|t| t.card)
                .collect();
            mine.sort();
            cards.extend(mine);
        }
        if !cards.is_empty() {
            self.emit(Event::TicketsReturned { cards });
        }
        let next = self.st.order[(pos + 1) % n];
        self.start_turn(next, self.st.turn + 1);
    }

    pub(super) fn after_action(&mut self, v: u8) {
        if v == 10 {
            // BD-048
            self.st.ctl.phase = Phase::RerollAfterTen;
        } else {
            // BD-049
            self.end_turn();
        }
    }

    pub(super) fn turn_action(&mut self, actor: Seat, cmd: &Command, v: u8, attempt: bool) -> Res {
        let must_free = v == 10 && can_free(&self.st, actor);
        match cmd {
            Command::FreePawn { piggyback_card } => {
                ensure(v == 5 || v == 10, "BD-044", || {
                    "only a 5 or a 10 frees a pawn".into()
                })?;
                ensure(can_free(&self.st, actor), "BD-061", || {
                    "freeing needs a pawn in prison and no own pawn on the probation officer".into()
                })?;
                let colour = self
                    .st
                    .colour_of(actor)
                    .ok_or_else(|| rv("BD-001", "no colour"))?;
                let b = board();
                let po = b.probation[colour.index()];
                if let Some(card) = piggyback_card {
                    self.check_card(actor, *card, SupportKind::Piggyback)?;
                    ensure(!self.st.at(po).is_empty(), "BD-380", || {
                        "Sur le dos needs an occupied node".into()
                    })?;
                }
                // BD-004: the lowest-numbered prisoner.
                let pawn = self
                    .st
                    .pawns_of(actor)
                    .find(|&p| self.st.in_prison(p))
                    .ok_or_else(|| rv("BD-061", "nobody in prison"))?;
                self.st.ctl.phase = Phase::Resolving { value: v };
                if let Some(card) = piggyback_card {
                    self.emit(Event::CardPlayed {
                        seat: actor,
                        card: *card,
                        pawn: Some(pawn),
                    });
                }
                self.emit(Event::PawnFreed { pawn, to: po });
                self.arrive(
                    pawn,
                    vec![b.prison[colour.index()], po],
                    piggyback_card.is_some(),
                );
                self.resume();
                Ok(())
            }
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                ensure(!must_free, "BD-045", || "a 10 must free a pawn".into())?;
                self.check_mover(actor, *pawn)?;
                if attempt {
                    ensure(self.st.in_village(*pawn), "BD-044", || {
                        "with no free pawn only village pawns move".into()
                    })?;
                }
                self.check_po_rule(actor, *pawn, v)?;
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = movement::check_path(&self.st, *pawn, path, v, cards)?;
                self.st.ctl.phase = Phase::Resolving { value: v };
                self.do_move(
                    actor,
                    *pawn,
                    path,
                    &info,
                    *ticket_card,
                    jetpack_cards,
                    *piggyback_card,
                    &[],
                );
                self.resume();
                Ok(())
            }
            Command::PlayCard {
                card,
                pawn,
                piggyback_card,
            } => {
                ensure(!must_free, "BD-045", || "a 10 must free a pawn".into())?;
                ensure(card.kind() == SupportKind::Watch, "BD-235", || {
                    "only a Surveiller can be played as the turn's action".into()
                })?;
                ensure(!attempt, "BD-044", || {
                    "Surveiller needs a normal-mode roll".into()
                })?;
                ensure(!self.st.ctl.watch_used, "BD-234", || {
                    "at most one Surveiller per turn".into()
                })?;
                self.check_card(actor, *card, SupportKind::Watch)?;
                let pawn =
                    pawn.ok_or_else(|| rv("BD-270", "Surveiller names the pawn to place"))?;
                self.check_mover(actor, pawn)?;
                ensure(
                    self.st.is_free(pawn) && self.st.on_ring(pawn),
                    "BD-270",
                    || "Surveiller places a free pawn on the ring".into(),
                )?;
                let dest = behind_opponent(&self.st, pawn)
                    .ok_or_else(|| rv("BD-270", "no opponent ahead to stand behind"))?;
                self.check_placement(actor, pawn, dest, *piggyback_card, "BD-270")?;
                self.st.ctl.phase = Phase::Resolving { value: v };
                self.st.ctl.watch_used = true;
                self.emit(Event::CardPlayed {
                    seat: actor,
                    card: *card,
                    pawn: Some(pawn),
                });
                self.place(actor, pawn, dest, *piggyback_card);
                self.resume();
                Ok(())
            }
            Command::Pass => {
                ensure(!must_free, "BD-045", || "a 10 must free a pawn".into())?;
                self.st.ctl.phase = Phase::Resolving { value: v };
                self.resume();
                Ok(())
            }
            _ => Err(rv(
                "BD-044",
                "answer the roll with free_pawn, move_pawn, play_card or pass",
            )),
        }
    }

    /// BD-047: the pawn on the own probation officer leaves first when it can.
    pub(super) fn check_po_rule(&self, seat: Seat, pawn: Pawn, v: u8) -> Res {
        let Some(c) = self.st.colour_of(seat) else {
            return Ok(());
        };
        let po = board().probation[c.index()];
        let Some(&bottom) = self.st.at(po).first() else {
            return Ok(());
        };
        if bottom == pawn || self.st.owner(bottom) != Some(seat) {
            return Ok(());
        }
        let has_path = movement::candidates(&self.st, bottom, Len::Exact(v), false)
            .iter()
            .any(|c| c.card_free());
        ensure(!has_path, "BD-047", || {
            format!("{bottom} must leave the probation officer first")
        })
    }

    // ------------------------------------------------------------------ checks

    pub(super) fn check_mover(&self, seat: Seat, pawn: Pawn) -> Res {
        ensure(self.st.owner(pawn) == Some(seat), "BD-087", || {
            format!("{pawn} is not your pawn")
        })?;
        ensure(
            self.st.pos(pawn) != NOWHERE && !self.st.in_prison(pawn),
            "BD-087",
            || format!("{pawn} is in prison"),
        )?;
        ensure(!self.st.is_rider(pawn), "BD-384", || {
            format!("{pawn} is a rider and moves with its bottom")
        })
    }

    /// A named card: in the hand, of the kind, usable (BD-233). The message never reveals
    /// anything but the actor's own hand.
    pub(super) fn check_card(&self, seat: Seat, card: Card, kind: SupportKind) -> Res {
        ensure(card.kind() == kind, "BD-235", || {
            format!("{card} is not a {kind:?} card")
        })?;
        let held = self
            .st
            .hands
            .get(seat.index())
            .and_then(|h| h.iter().find(|c| c.card == card));
        let Some(h) = held else {
            return Err(rv("BD-231", format!("{card} is not in your hand")));
        };
        ensure(h.received < self.st.turn, "BD-233", || {
            format!("{card} was received this turn")
        })
    }

    pub(super) fn move_cards(
        &self,
        seat: Seat,
        ticket: Option<Card>,
        jetpacks: &[Card],
        piggy: Option<Card>,
    ) -> Res<MoveCards> {
        if let Some(t) = ticket {
            ensure(t.is_ticket(), "BD-257", || format!("{t} is not a ticket"))?;
            self.check_card(seat, t, t.kind())?;
        }
        for (i, j) in jetpacks.iter().enumerate() {
            ensure(!jetpacks[..i].contains(j), "BD-250", || {
                format!("{j} named twice")
            })?;
            self.check_card(seat, *j, SupportKind::Jetpack)?;
        }
        if let Some(p) = piggy {
            self.check_card(seat, p, SupportKind::Piggyback)?;
        }
        Ok(MoveCards {
            ticket: ticket.map(|t| t.kind()),
            jetpacks: jetpacks.len(),
            piggy: piggy.is_some(),
        })
    }

    pub(super) fn check_placement(
        &self,
        seat: Seat,
        pawn: Pawn,
        dest: Node,
        piggy: Option<Card>,
        rule: &'static str,
    ) -> Res {
        if let Some(card) = piggy {
            self.check_card(seat, card, SupportKind::Piggyback)?;
        }
        let (end, needs) = placement_end(&self.st, pawn, dest)
            .ok_or_else(|| rv("BD-381", "Sur le dos is played on ring nodes only"))?;
        ensure(!needs || piggy.is_some(), rule, || {
            format!("{} holds an own pawn: only with Sur le dos", dest.name())
        })?;
        ensure(end != End::Empty || piggy.is_none(), "BD-380", || {
            "Sur le dos needs an occupied node".into()
        })
    }

    // ------------------------------------------------------------------ relocations

    /// A validated path move: cards, the tower falls, the move, tickets, the arrival.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn do_move(
        &mut self,
        seat: Seat,
        pawn: Pawn,
        path: &[Node],
        info: &PathInfo,
        ticket: Option<Card>,
        jetpacks: &[Card],
        piggy: Option<Card>,
        captured: &[Pawn],
    ) {
        for &j in jetpacks {
            self.emit(Event::CardPlayed {
                seat,
                card: j,
                pawn: Some(pawn),
            });
        }
        if let Some(p) = piggy {
            self.emit(Event::CardPlayed {
                seat,
                card: p,
                pawn: Some(pawn),
            });
        }
        if let (Some(t), true) = (ticket, info.entered) {
            self.emit(Event::CardPlayed {
                seat,
                card: t,
                pawn: Some(pawn),
            });
            self.emit(Event::TicketActivated {
                seat,
                card: t,
                pawn,
            });
        }
        // BD-340: rampage captures happen as the pawn passes.
        for &c in captured {
            self.imprison(c);
        }
        let start = self.st.pos(pawn);
        let mut record = Vec::with_capacity(path.len() + 1);
        record.push(start);
        record.extend_from_slice(path);
        self.tower_falls(pawn, &record);
        self.emit(Event::PawnMoved {
            pawn,
            path: path.to_vec(),
        });
        self.fix_tickets(&[pawn]);
        self.arrive(pawn, record, piggy.is_some());
    }

    /// A placement (Surveiller, Détective): record `[start, dest]`.
    pub(super) fn place(&mut self, seat: Seat, pawn: Pawn, dest: Node, piggy: Option<Card>) {
        if let Some(p) = piggy {
            self.emit(Event::CardPlayed {
                seat,
                card: p,
                pawn: Some(pawn),
            });
        }
        let start = self.st.pos(pawn);
        let record = vec![start, dest];
        self.tower_falls(pawn, &record);
        self.emit(Event::PawnPlaced { pawn, to: dest });
        self.fix_tickets(&[pawn]);
        self.arrive(pawn, record, piggy.is_some());
    }

    /// BD-386: riders are set down along the record before the bottom arrives.
    pub(super) fn tower_falls(&mut self, pawn: Pawn, record: &[Node]) {
        let riders: Vec<Pawn> = self.st.riders(pawn).to_vec();
        if riders.is_empty() {
            return;
        }
        let l = record.len() - 1;
        for (i, r) in riders.iter().enumerate() {
            let h = i + 1;
            if l <= h {
                continue; // stays on p0 (in order)
            }
            let mut k = l - h;
            while k > 0 && !self.st.at(record[k]).is_empty() {
                k -= 1;
            }
            if k > 0 {
                self.emit(Event::RiderSetDown {
                    pawn: *r,
                    to: record[k],
                });
            }
        }
    }

    /// Spends the tickets of pawns that are no longer in Huntington (BD-194).
    pub(super) fn fix_tickets(&mut self, pawns: &[Pawn]) {
        for &p in pawns {
            if let Some(t) = self.st.active_ticket(p).copied()
                && !self.st.in_huntington(p)
            {
                self.emit(Event::TicketSpent { card: t.card });
            }
        }
    }

    pub(super) fn imprison(&mut self, pawn: Pawn) {
        self.emit(Event::PawnImprisoned { pawn });
        self.fix_tickets(&[pawn]);
    }

    /// BD-100: start an arrival (Sur le dos ends it at once).
    pub(super) fn arrive(&mut self, pawn: Pawn, record: Vec<Node>, piggy: bool) {
        let node = record.last().copied().unwrap_or_default();
        if piggy {
            self.emit(Event::PawnStacked { pawn, on: node });
            return;
        }
        self.st.ctl.stack.push(Frame::Arrive(Arrival {
            pawn,
            record,
            stage: ArrivalStage::Occupancy,
        }));
    }

    /// BD-127: the attacker's path-back.
    pub(super) fn path_back(&self, record: &[Node]) -> Node {
        let b = board();
        for &n in record[..record.len().saturating_sub(1)].iter().rev() {
            if b.info(n).zone == Zone::Prison || self.st.at(n).is_empty() {
                return n;
            }
        }
        let mut n = record.first().copied().unwrap_or_default();
        for _ in 0..200 {
            match b.info(n).back {
                Some(x) if self.st.at(x).is_empty() => return x,
                Some(x) => n = x,
                None => break,
            }
        }
        record.first().copied().unwrap_or_default()
    }

    pub(super) fn retreat(&mut self, pawn: Pawn, record: &[Node]) {
        let to = self.path_back(record);
        self.emit(Event::UnitDisplaced {
            pawns: vec![pawn],
            to,
        });
        self.fix_tickets(&[pawn]);
    }

    // ------------------------------------------------------------------ resolution loop

    /// Resolves ready frames until a decision is pending (BD-006, BD-103).
    pub fn resume(&mut self) {
        for _ in 0..10_000 {
            if self.st.winner.is_some() {
                self.st.ctl.phase = Phase::Over;
                self.st.ctl.stack.clear();
                return;
            }
            match self.st.ctl.stack.last() {
                None => {
                    if let Phase::Resolving { value } = self.st.ctl.phase {
                        self.after_action(value);
                    }
                    return;
                }
                Some(Frame::Arrive(a)) => match a.stage {
                    ArrivalStage::Occupancy => self.occupancy(),
                    ArrivalStage::Effects => self.effects(),
                    _ => return,
                },
                Some(Frame::Destiny(d)) => match &d.exec {
                    None => self.next_card(),
                    Some(e) if matches!(e.step, ExecStep::Start | ExecStep::Next) => {
                        self.exec_ready()
                    }
                    Some(_) => return,
                },
                Some(Frame::HandLimit { .. }) => return,
            }
        }
    }

    pub(super) fn top_arrival(&mut self) -> Option<&mut Arrival> {
        match self.st.ctl.stack.last_mut() {
            Some(Frame::Arrive(a)) => Some(a),
            _ => None,
        }
    }

    pub(super) fn top_exec(&mut self) -> Option<&mut Exec> {
        match self.st.ctl.stack.last_mut() {
            Some(Frame::Destiny(d)) => d.exec.as_mut(),
            _ => None,
        }
    }

    pub(super) fn pop(&mut self) {
        self.st.ctl.stack.pop();
    }

    /// BD-100 step 2 / BD-120: a fight on an opponent-occupied node.
    pub(super) fn occupancy(&mut self) {
        let Some(a) = self.top_arrival().cloned() else {
            return;
        };
        let node = a.node();
        let seat = self.st.owner(a.pawn).unwrap_or(Seat::from_index(0));
        let unit: Vec<Pawn> = self
            .st
            .at(node)
            .iter()
            .copied()
            .filter(|&p| p != a.pawn)
            .collect();
        if unit.is_empty() || unit.iter().any(|&p| self.st.owner(p) == Some(seat)) {
            if let Some(a) = self.top_arrival() {
                a.stage = ArrivalStage::Effects;
            }
            return;
        }
        let defender = self.st.owner(unit[0]).unwrap_or(seat);
        // BD-121: the defending player, then the riders' owners bottom to top, once each.
        let mut window = Vec::new();
        for &p in &unit {
            if let Some(o) = self.st.owner(p)
                && !window.contains(&o)
                && o != seat
            {
                window.push(o);
            }
        }
        self.emit(Event::FightStarted {
            attacker: a.pawn,
            node,
            defender,
        });
        if let Some(a) = self.top_arrival() {
            a.stage = ArrivalStage::Fight(Fight {
                attacker_seat: seat,
                defender,
                window,
                next: 0,
                round: 1,
                attack: 0,
                defence: 0,
                rerolled: false,
                step: FightStep::Bodyguard,
            });
        }
    }

    /// BD-100 steps 3–4: win check, then the space effect.
    pub(super) fn effects(&mut self) {
        let Some(a) = self.top_arrival().cloned() else {
            return;
        };
        let b = board();
        let node = a.node();
        let seat = self.st.owner(a.pawn).unwrap_or(Seat::from_index(0));
        if b.is_property_of(node, a.pawn.colour()) && self.st.all_home(seat) {
            // BD-400
            self.emit(Event::GameWon { seat });
            self.st.ctl.phase = Phase::Over;
            self.st.ctl.stack.clear();
            return;
        }
        let info = b.info(node);
        match info.kind {
            Kind::Colour if info.colour == Some(a.pawn.colour()) => {
                // BD-154: the +6 bonus.
                let cands = movement::candidates(&self.st, a.pawn, Len::Exact(6), true);
                let free = cands.iter().any(|c| c.card_free());
                if cands.is_empty() {
                    self.pop();
                    self.emit(Event::BonusForfeited { pawn: a.pawn });
                } else if let Some(a) = self.top_arrival() {
                    a.stage = ArrivalStage::Bonus { card_only: !free };
                }
            }
            Kind::Express => {
                // BD-170
                if let Some(a) = self.top_arrival() {
                    a.stage = ArrivalStage::Express;
                }
            }
            Kind::Destiny => {
                // BD-152 / BD-301
                self.pop();
                let mut drawn = Vec::new();
                for _ in 0..info.draw {
                    if let Some(&card) = self.st.destiny_deck.front() {
                        self.emit(Event::DestinyCardDrawn { seat, card });
                        drawn.push(card);
                    }
                }
                self.queue_destiny(drawn, Some(a.pawn));
            }
            Kind::Support => {
                // BD-153
                self.pop();
                self.draw_support(seat);
            }
            _ => self.pop(),
        }
    }

    /// BD-302: cards join the queue being executed, or start a new one.
    pub(super) fn queue_destiny(&mut self, cards: Vec<Destiny>, subject: Option<Pawn>) {
        if cards.is_empty() {
            return;
        }
        for f in self.st.ctl.stack.iter_mut().rev() {
            if let Frame::Destiny(d) = f {
                d.queue.extend(cards);
                return;
            }
        }
        self.st.ctl.stack.push(Frame::Destiny(DestinyQueue {
            queue: cards,
            subject,
            exec: None,
        }));
    }

    /// BD-153 / BD-237 / BD-232
    pub(super) fn draw_support(&mut self, seat: Seat) {
        if let Some(&card) = self.st.support_deck.front() {
            self.emit(Event::SupportCardDrawn {
                seat,
                turn: self.st.turn,
                card: Some(card),
            });
            if self.st.card_count(seat) > 5 {
                self.st.ctl.stack.push(Frame::HandLimit { seat });
            }
        }
    }

    // ------------------------------------------------------------------ frame commands

    pub(super) fn frame_command(&mut self, actor: Seat, cmd: &Command, w: &Awaiting) -> Res {
        match self.st.ctl.stack.last().cloned() {
            Some(Frame::HandLimit { seat }) => self.hand_limit(seat, cmd),
            Some(Frame::Arrive(a)) => match a.stage.clone() {
                ArrivalStage::Fight(f) => self.fight_command(actor, cmd, a, f),
                ArrivalStage::Bonus { card_only } => self.bonus(actor, cmd, a, card_only),
                ArrivalStage::Express => self.express(actor, cmd, a),
                _ => Err(rv("BD-006", "no decision is pending")),
            },
            Some(Frame::Destiny(d)) => match d.exec {
                Some(e) => self.destiny_command(actor, cmd, e, w),
                None => Err(rv("BD-006", "no decision is pending")),
            },
            None => Err(rv("BD-006", "no decision is pending")),
        }
    }

    /// BD-232
    pub(super) fn hand_limit(&mut self, seat: Seat, cmd: &Command) -> Res {
        let Command::DiscardCards { cards } = cmd else {
            return Err(rv("BD-232", "return cards down to five first"));
        };
        let excess = self.st.card_count(seat).saturating_sub(5);
        ensure(cards.len() == excess, "BD-232", || {
            format!("return exactly {excess} card(s)")
        })?;
        let mut tickets = Vec::new();
        for (i, c) in cards.iter().enumerate() {
            ensure(!cards[..i].contains(c), "BD-232", || {
                format!("{c} named twice")
            })?;
            let in_hand = self.st.hands[seat.index()].iter().any(|h| h.card == *c);
            if !in_hand {
                let t = self
                    .st
                    .tickets
                    .iter()
                    .find(|t| t.card == *c && t.owner == seat);
                match t {
                    Some(t) if t.spent => tickets.push(*c),
                    Some(_) => return Err(rv("BD-232", format!("{c} is an active ticket"))),
                    None => return Err(rv("BD-231", format!("{c} is not yours to return"))),
                }
            }
        }
        self.emit(Event::CardsReturned {
            seat,
            count: cards.len() as u8,
            cards: Some(cards.clone()),
            tickets,
        });
        self.pop();
        self.resume();
        Ok(())
    }

    /// BD-154
    pub(super) fn bonus(&mut self, actor: Seat, cmd: &Command, a: Arrival, card_only: bool) -> Res {
        match cmd {
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                ensure(*pawn == a.pawn, "BD-154", || {
                    format!("the bonus moves {}", a.pawn)
                })?;
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = movement::check_path(&self.st, *pawn, path, 6, cards)?;
                self.pop();
                self.do_move(
                    actor,
                    *pawn,
                    path,
                    &info,
                    *ticket_card,
                    jetpack_cards,
                    *piggyback_card,
                    &[],
                );
                self.resume();
                Ok(())
            }
            Command::Pass => {
                ensure(card_only, "BD-154", || {
                    "the bonus move is compulsory".into()
                })?;
                self.pop();
                self.emit(Event::BonusForfeited { pawn: a.pawn });
                self.resume();
                Ok(())
            }
            _ => Err(rv("BD-154", "make the bonus move")),
        }
    }

    /// BD-170–BD-174
    pub(super) fn express(&mut self, actor: Seat, cmd: &Command, a: Arrival) -> Res {
        match cmd {
            Command::RideExpress { piggyback_card } => {
                let dep = a.node();
                let station = board()
                    .info(dep)
                    .station
                    .ok_or_else(|| rv("BD-170", "no rail here"))?;
                self.check_placement(actor, a.pawn, station, *piggyback_card, "BD-174")?;
                self.pop();
                self.ride(actor, a.pawn, dep, station, *piggyback_card);
                self.resume();
                Ok(())
            }
            Command::Pass => {
                self.pop();
                self.resume();
                Ok(())
            }
            _ => Err(rv("BD-170", "ride the express or pass")),
        }
    }

    pub(super) fn ride(
        &mut self,
        seat: Seat,
        pawn: Pawn,
        dep: Node,
        station: Node,
        piggy: Option<Card>,
    ) {
        if let Some(p) = piggy {
            self.emit(Event::CardPlayed {
                seat,
                card: p,
                pawn: Some(pawn),
            });
        }
        self.emit(Event::ExpressRidden {
            pawn,
            from: dep,
            to: station,
        });
        self.arrive(pawn, vec![dep, station], piggy.is_some());
    }
}
