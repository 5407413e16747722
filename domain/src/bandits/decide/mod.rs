//! `decide`: validates a command against the pending decision (§5), emits the facts it
//! produces, then the automatic steps that follow (fights starting, cards drawn, the turn
//! ending …) until the next decision is pending. Every change goes through an event
//! (`emit` = record + `evolve`): `decide` never touches the control state itself, so replaying
//! the events always rebuilds exactly the state `decide` worked on.

use super::board::{Kind, Node, Zone, board};
use super::command::Command;
use super::event::{Event, RollContext};
use super::evolve::control;
use super::movement::{self, End, Len, MoveCards, PathInfo};
use super::state::*;
use crate::decider::{Decided, MessageArg, Says, Scratch, ensure, says, violation};
use crate::engine::{Rng, RngExt, Seat};

pub mod destiny;
mod fields;
mod fight;
pub mod segment;

pub use super::evolve::control::{Awaiting, awaiting, can_free, must_leave_officer};
pub use super::hunter::*;
pub use super::reach::*;
pub use fields::stray_fields;

/// BD-506 (strengthens BD-047): while `leave` (a pawn on the own probation officer that can
/// leave it with the roll) is there, the roll must move it off: `what` says what the player
/// must do.
fn officer_first(leave: Option<Pawn>, what: impl FnOnce(Pawn) -> Says) -> Decided {
    leave.map_or(Ok(()), |p| Err(violation("BD-506", what(p))))
}

/// Pawns, cards and destiny cards name themselves by their identifiers (`red-2`, `S07`, `D03`)
/// in every language.
impl MessageArg for Pawn {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

impl MessageArg for Card {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

impl MessageArg for Destiny {
    fn arg_text(&self) -> String {
        self.to_string()
    }
}

/// A support card kind names itself by its wire name (`jetpack`, `lawyer` …).
impl MessageArg for SupportKind {
    fn arg_text(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// The working copy `decide` resolves on (the shared toolkit's [`Scratch`]); its methods
/// here and in `destiny.rs` / `fight.rs` are the steps of Bandits.
pub type Cx<'a> = Scratch<'a, State>;

pub fn decide(st: &State, actor: Seat, cmd: &Command, rng: &mut dyn Rng) -> Decided<Vec<Event>> {
    ensure(st.started(), "BD-001", || says("game_not_set_up"))?;
    ensure(st.winner.is_none(), "BD-400", || says("game_over"))?;
    ensure(st.is_seat(actor), "BD-001", || {
        says("seat_actor_not_table").seat("actor", actor)
    })?;
    // Commands built in Rust (not parsed from JSON) could carry out-of-range node indices.
    let nodes = match cmd {
        Command::MovePawn { path, .. }
        | Command::MoveSegment { path, .. }
        | Command::MoveHunter { path } => path.as_slice(),
        _ => &[],
    };
    ensure(
        nodes.iter().all(|n| n.idx() < board().nodes.len()),
        "BD-082",
        || says("unknown_node"),
    )?;
    let Some(w) = awaiting(st) else {
        return Err(violation("BD-006", says("no_decision_pending")));
    };
    ensure(w.seat == actor, "BD-001", || {
        says("seat_decision_must_act_now_not")
            .seat("seat", w.seat)
            .arg("decision", w.decision)
            .seat("actor", actor)
    })?;
    stray_fields(st, cmd)?;
    let mut cx = Cx::new(st.clone(), rng);
    let cmd = match segment::prepare(st, actor, cmd)? {
        // BD-515: the move goes on with the seat's next command; nothing else happens.
        segment::Prepared::Segment(fact) => {
            cx.emit(fact);
            return Ok(cx.into_events());
        }
        segment::Prepared::Whole(cmd) => cmd,
    };
    cx.handle(actor, &cmd, &w)?;
    cx.run();
    Ok(cx.into_events())
}

impl Cx<'_> {
    pub(super) fn active(&self) -> Seat {
        control::active(self.state())
    }

    pub(super) fn roll(&mut self, seat: Seat, context: RollContext, sides: u32) -> u8 {
        let value = self.rng().die(sides) as u8;
        self.emit(Event::DieRolled {
            seat,
            context,
            value,
        });
        value
    }

    /// Emits the automatic steps until a decision is pending (BD-006, BD-103).
    pub fn run(&mut self) {
        for _ in 0..10_000 {
            if !self.auto_step() {
                return;
            }
        }
    }

    /// A command that only changes who acts next (a `pass`, a choice of rolls): its fact is
    /// recorded only when nothing else happens; otherwise what follows records it (§5.1).
    /// This keeps logs of event schema 1, which had no such facts, exactly reproducible.
    pub(super) fn control_only(&mut self, fact: Event) {
        let mut spare = crate::engine::ScriptedRng::new([]);
        // The dry run records the fact first: the events that follow it are what replaces it.
        let mut scratch = Cx::new(self.state().clone(), &mut spare);
        scratch.emit(fact.clone());
        scratch.run();
        let (after, mut events) = scratch.into_parts();
        events.remove(0);
        if events.is_empty() {
            self.emit(fact);
        } else {
            for e in events {
                self.emit(e);
            }
        }
        debug_assert_eq!(
            serde_json::to_value(self.state()).ok(),
            serde_json::to_value(&after).ok(),
            "replaying the recorded events rebuilds the state"
        );
    }

    /// A `pass` with no other trace (see [`Cx::control_only`]).
    pub(super) fn control_only_pass(&mut self, seat: Seat, decision: &str) {
        self.control_only(Event::Passed {
            seat,
            decision: decision.into(),
        });
    }

    // ------------------------------------------------------------------ dispatch

    pub(super) fn handle(&mut self, actor: Seat, cmd: &Command, w: &Awaiting) -> Decided {
        match self.state().ctl.phase.clone() {
            Phase::FirstRolls { .. } => {
                ensure(matches!(cmd, Command::RollDie {}), "BD-030", || {
                    says("everybody_rolls_once_first")
                })?;
                self.roll(actor, RollContext::FirstPlayer, 10);
                Ok(())
            }
            Phase::Interrogated => {
                ensure(
                    matches!(cmd, Command::ReturnInterrogation {}),
                    "BD-040",
                    || says("interrogated_turn_only_hands_card_back"),
                )?;
                self.emit(Event::InterrogationServed { seat: actor });
                Ok(())
            }
            Phase::TurnRoll => {
                ensure(matches!(cmd, Command::RollDie {}), "BD-041", || {
                    says("turn_begins_roll")
                })?;
                self.roll(actor, RollContext::Turn, 10);
                if matches!(self.state().ctl.phase, Phase::HunterMove { .. }) {
                    // BD-423: the first turn roll also rolls the hunter's D6.
                    self.roll(actor, RollContext::Hunter, 6);
                }
                Ok(())
            }
            Phase::HunterMove { hunter, .. } => {
                let Command::MoveHunter { path } = cmd else {
                    return Err(violation("BD-423", says("hunter_moves_before_roll_used")));
                };
                let captures = if self.state().hunter_in_pieces {
                    hunter_piece(self.state(), hunter, path)?.captured // BD-516
                } else {
                    hunter_path(self.state(), hunter, path)?
                };
                self.emit(Event::HunterMoved { path: path.clone() });
                for p in captures {
                    self.imprison(p);
                }
                Ok(())
            }
            Phase::Action { value, attempt } => self.turn_action(actor, cmd, value, attempt),
            Phase::RerollAfterTen => match cmd {
                Command::RollDie {} => {
                    self.roll(actor, RollContext::Turn, 10);
                    Ok(())
                }
                Command::EndTurn {} => {
                    self.end_turn();
                    Ok(())
                }
                _ => Err(violation("BD-048", says("after_10_roll_again_end_turn"))),
            },
            Phase::Resolving { .. } => self.frame_command(actor, cmd, w),
            Phase::Setup | Phase::Over | Phase::TurnOver => {
                Err(violation("BD-006", says("no_decision_pending")))
            }
        }
    }

    // ------------------------------------------------------------------ the turn

    pub fn start_turn(&mut self, seat: Seat, turn: u32) {
        self.emit(Event::TurnStarted { seat, turn });
    }

    /// BD-050: spent tickets go back, then the next player clockwise.
    pub fn end_turn(&mut self) {
        let seat = self.active();
        self.emit(Event::TurnEnded {
            seat,
            turn: self.state().turn,
        });
        let pos = self
            .state()
            .order
            .iter()
            .position(|&s| s == seat)
            .unwrap_or(0);
        let n = self.state().order.len().max(1);
        let mut cards = Vec::new();
        for i in 0..n {
            let s = self.state().order[(pos + i) % n];
            let mut mine: Vec<Card> = self
                .state()
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
        let next = self.state().order[(pos + 1) % n];
        self.start_turn(next, self.state().turn + 1);
    }

    /// The answer to the turn's roll (BD-044): free a pawn, move one, play a Surveiller, or
    /// pass.
    pub(super) fn turn_action(
        &mut self,
        actor: Seat,
        cmd: &Command,
        v: u8,
        attempt: bool,
    ) -> Decided {
        let must_free = v == 10 && can_free(self.state(), actor);
        // BD-506 (strengthens BD-047): a pawn on the own probation officer that can leave it
        // with this value must be moved off with it.
        let leave = must_leave_officer(self.state(), actor, v);
        match cmd {
            Command::FreePawn { piggyback_card } => self.free_pawn(actor, v, *piggyback_card),
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                ensure(!must_free, "BD-045", || says("10_must_free_pawn"))?;
                self.check_mover(actor, *pawn)?;
                // BD-513: with no free pawn a 5 frees a pawn (or is not used); village pawns
                // are not free pawns.
                ensure(!attempt, "BD-513", || says("no_free_pawn_roll_can_only"))?;
                if leave != Some(*pawn) {
                    officer_first(leave, |p| {
                        says("officer_first_move_that_pawn").arg("pawn", p)
                    })?;
                }
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = movement::check_path(self.state(), *pawn, path, v, cards)?;
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
                Ok(())
            }
            Command::PlayCard {
                card,
                pawn,
                piggyback_card,
            } => {
                ensure(!must_free, "BD-045", || says("10_must_free_pawn"))?;
                ensure(card.kind() == SupportKind::Watch, "BD-235", || {
                    says("only_surveiller_can_played_turn_action")
                })?;
                ensure(!attempt, "BD-044", || {
                    says("surveiller_needs_normal_mode_roll")
                })?;
                officer_first(leave, |p| {
                    says("officer_first_not_a_surveiller").arg("pawn", p)
                })?;
                self.watch(actor, *card, *pawn, *piggyback_card)
            }
            Command::Pass {} => {
                ensure(!must_free, "BD-045", || says("10_must_free_pawn"))?;
                officer_first(leave, |p| says("officer_first_move_it_off").arg("pawn", p))?;
                self.control_only_pass(actor, "turn_action");
                Ok(())
            }
            _ => Err(violation("BD-044", says("answer_roll_free_pawn_move_pawn"))),
        }
    }

    /// BD-044 / BD-061: a 5 or a 10 frees the lowest-numbered prisoner onto the own
    /// probation officer (on top of a pawn there with a Sur le dos, BD-380).
    fn free_pawn(&mut self, actor: Seat, v: u8, piggyback_card: Option<Card>) -> Decided {
        ensure(v == 5 || v == 10, "BD-044", || says("only_5_10_frees_pawn"))?;
        ensure(can_free(self.state(), actor), "BD-061", || {
            says("freeing_needs_pawn_prison_no_own")
        })?;
        let colour = self
            .state()
            .colour_of(actor)
            .ok_or_else(|| violation("BD-001", says("no_colour")))?;
        let po = board().probation[colour.index()];
        if let Some(card) = piggyback_card {
            self.check_card(actor, card, SupportKind::Piggyback)?;
            ensure(!self.state().at(po).is_empty(), "BD-380", || {
                says("sur_le_dos_needs_occupied_node")
            })?;
        }
        // BD-004: the lowest-numbered prisoner.
        let pawn = self
            .state()
            .pawns_of(actor)
            .find(|&p| self.state().in_prison(p))
            .ok_or_else(|| violation("BD-061", says("nobody_prison")))?;
        if let Some(card) = piggyback_card {
            self.emit(Event::CardPlayed {
                seat: actor,
                card,
                pawn: Some(pawn),
            });
        }
        self.emit(Event::PawnFreed { pawn, to: po });
        if piggyback_card.is_some() {
            self.emit(Event::PawnStacked { pawn, on: po });
        }
        Ok(())
    }

    /// BD-234 / BD-270: a Surveiller as the turn's action places a free ring pawn just behind
    /// the next opponent, once a turn.
    fn watch(
        &mut self,
        actor: Seat,
        card: Card,
        pawn: Option<Pawn>,
        piggyback_card: Option<Card>,
    ) -> Decided {
        ensure(!self.state().ctl.watch_used, "BD-234", || {
            says("most_one_surveiller_per_turn")
        })?;
        self.check_card(actor, card, SupportKind::Watch)?;
        let pawn =
            pawn.ok_or_else(|| violation("BD-270", says("surveiller_names_pawn_to_place")))?;
        self.check_mover(actor, pawn)?;
        ensure(
            self.state().is_free(pawn) && self.state().on_ring(pawn),
            "BD-270",
            || says("surveiller_places_free_pawn_ring"),
        )?;
        let dest = behind_opponent(self.state(), pawn)
            .ok_or_else(|| violation("BD-270", says("no_opponent_ahead_to_stand_behind")))?;
        self.check_placement(actor, pawn, dest, piggyback_card, "BD-270")?;
        self.emit(Event::CardPlayed {
            seat: actor,
            card,
            pawn: Some(pawn),
        });
        self.place(actor, pawn, dest, piggyback_card, false);
        Ok(())
    }

    // ------------------------------------------------------------------ checks

    pub(super) fn check_mover(&self, seat: Seat, pawn: Pawn) -> Decided {
        ensure(self.state().owner(pawn) == Some(seat), "BD-087", || {
            says("pawn_not_pawn").arg("pawn", pawn)
        })?;
        ensure(
            self.state().pos(pawn) != NOWHERE && !self.state().in_prison(pawn),
            "BD-087",
            || says("pawn_prison").arg("pawn", pawn),
        )?;
        ensure(!self.state().is_rider(pawn), "BD-384", || {
            says("pawn_rider_moves_bottom").arg("pawn", pawn)
        })
    }

    /// A named card: in the hand, of the kind, usable (BD-233). Any card of the kind will do
    /// (BD-514). The message never reveals anything but the actor's own hand.
    pub(super) fn check_card(&self, seat: Seat, card: Card, kind: SupportKind) -> Decided {
        ensure(card.kind() == kind, "BD-235", || {
            says("card_not_kind_card")
                .arg("card", card)
                .arg("kind", kind)
        })?;
        let held = self
            .state()
            .hands
            .get(seat.index())
            .and_then(|h| h.iter().find(|c| c.card == card));
        let Some(h) = held else {
            return Err(violation("BD-231", says("card_not_hand").arg("card", card)));
        };
        ensure(h.received < self.state().turn, "BD-233", || {
            says("card_was_received_turn").arg("card", card)
        })
    }

    pub(super) fn move_cards(
        &self,
        seat: Seat,
        ticket: Option<Card>,
        jetpacks: &[Card],
        piggy: Option<Card>,
    ) -> Decided<MoveCards> {
        if let Some(t) = ticket {
            ensure(t.is_ticket(), "BD-257", || says("not_ticket").arg("t", t))?;
            self.check_card(seat, t, t.kind())?;
        }
        for (i, j) in jetpacks.iter().enumerate() {
            ensure(!jetpacks[..i].contains(j), "BD-250", || {
                says("named_twice").arg("j", j)
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

    /// A placement (Surveiller, Détective, Évasion express `back`'s end): an own pawn there
    /// needs a Sur le dos (BD-085, BD-380).
    pub(super) fn check_placement(
        &self,
        seat: Seat,
        pawn: Pawn,
        dest: Node,
        piggy: Option<Card>,
        rule: &'static str,
    ) -> Decided {
        if let Some(card) = piggy {
            self.check_card(seat, card, SupportKind::Piggyback)?;
        }
        let (end, needs) = placement_end(self.state(), pawn, dest)
            .ok_or_else(|| violation("BD-381", says("sur_le_dos_played_ring_nodes")))?;
        // BD-518: anywhere; BD-381 in a game begun before it.
        ensure(
            piggy.is_none()
                || self.state().piggyback_anywhere
                || board().info(dest).zone == Zone::Ring,
            "BD-381",
            || says("sur_le_dos_played_ring_nodes"),
        )?;
        ensure(!needs || piggy.is_some(), rule, || {
            says("node_holds_own_pawn_only_sur").arg("node", dest.name())
        })?;
        ensure(end != End::Empty || piggy.is_none(), "BD-380", || {
            says("sur_le_dos_needs_occupied_node")
        })
    }

    /// BD-171–BD-173, BD-508: a ride to `station`. Any pawn there, own or opposing, is fought
    /// for unless a Sur le dos is named.
    pub(super) fn check_ride(&self, seat: Seat, station: Node, piggy: Option<Card>) -> Decided {
        if let Some(card) = piggy {
            self.check_card(seat, card, SupportKind::Piggyback)?;
            ensure(!self.state().at(station).is_empty(), "BD-380", || {
                says("sur_le_dos_needs_occupied_node")
            })?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ relocations

    /// A validated path move: cards, the tower falls, the move, tickets (the arrival follows
    /// in `evolve`).
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
        let start = self.state().pos(pawn);
        let mut record = Vec::with_capacity(path.len() + 1);
        record.push(start);
        record.extend_from_slice(path);
        self.tower_falls(pawn, &record);
        self.emit(Event::PawnMoved {
            pawn,
            path: path.to_vec(),
        });
        self.fix_tickets(&[pawn]);
        if piggy.is_some() {
            self.stacked(pawn);
        }
    }

    /// BD-380: the pawn is on top of the unit there; its arrival ends at once. On its own
    /// property (BD-518) it is home all the same: the win check still applies (BD-400).
    fn stacked(&mut self, pawn: Pawn) {
        let on = self.state().pos(pawn);
        self.emit(Event::PawnStacked { pawn, on });
        if let Some(seat) = self.state().owner(pawn)
            && board().is_property_of(on, pawn.colour())
            && self.state().all_home(seat)
        {
            self.emit(Event::GameWon { seat });
        }
    }

    /// A placement (Surveiller, Détective): the arrival's record is `[start, dest]`; the
    /// tower falls along the way the pawn takes there (`backward`: Détective's last lawyer
    /// space), each rider one space behind the one below (BD-386: « LE PION AU-DESSUS
    /// S'ARRÊTE 1 CASE AVANT »), or, in a game begun before event schema 6, on the start node.
    pub(super) fn place(
        &mut self,
        seat: Seat,
        pawn: Pawn,
        dest: Node,
        piggy: Option<Card>,
        backward: bool,
    ) {
        if let Some(p) = piggy {
            self.emit(Event::CardPlayed {
                seat,
                card: p,
                pawn: Some(pawn),
            });
        }
        let start = self.state().pos(pawn);
        let way = if self.state().towers_follow_placements {
            way_to(self.state(), pawn, dest, backward)
        } else {
            vec![start, dest]
        };
        self.tower_falls(pawn, &way);
        self.emit(Event::PawnPlaced { pawn, to: dest });
        self.fix_tickets(&[pawn]);
        if piggy.is_some() {
            self.stacked(pawn);
        }
    }

    /// BD-386: riders are set down along the record before the bottom arrives; BD-509: a
    /// rider is only set down where it may stand (never on another colour's lane or
    /// property; in Huntington only with its own active ticket — a rider that climbed on in
    /// Huntington, BD-518), else further back. A rider set down outside Huntington spends
    /// its ticket (BD-194).
    pub(super) fn tower_falls(&mut self, pawn: Pawn, record: &[Node]) {
        let riders: Vec<Pawn> = self.state().riders(pawn).to_vec();
        if riders.is_empty() {
            return;
        }
        let b = board();
        let l = record.len() - 1;
        for (i, r) in riders.iter().enumerate() {
            let h = i + 1;
            if l <= h {
                continue; // stays on p0 (in order)
            }
            let ticket = self.state().active_ticket(*r).is_some();
            let may_stand = |n: Node| match b.info(n).zone {
                Zone::Ring => true,
                Zone::Lane | Zone::Village => b.info(n).colour == Some(r.colour()),
                Zone::Huntington => ticket,
                _ => false,
            };
            let mut k = l - h;
            while k > 0 && !(may_stand(record[k]) && self.state().at(record[k]).is_empty()) {
                k -= 1;
            }
            if k > 0 {
                self.emit(Event::RiderSetDown {
                    pawn: *r,
                    to: record[k],
                });
                self.fix_tickets(&[*r]);
            }
        }
    }

    /// Spends the tickets of pawns that are no longer in Huntington (BD-194).
    pub(super) fn fix_tickets(&mut self, pawns: &[Pawn]) {
        for &p in pawns {
            if let Some(t) = self.state().active_ticket(p).copied()
                && !self.state().in_huntington(p)
            {
                self.emit(Event::TicketSpent { card: t.card });
            }
        }
    }

    pub(super) fn imprison(&mut self, pawn: Pawn) {
        self.emit(Event::PawnImprisoned { pawn });
        self.fix_tickets(&[pawn]);
    }

    /// BD-511 (and BD-510, BD-121): a losing attacker that is protected — by a Lawyer, a
    /// lawyer space or a Bodyguard — is placed one space behind the defender, whatever way
    /// it arrived; a pawn that came by train was not really on the station yet and stays on
    /// the departure (BD-173). An occupied space sends it further back, to the first space
    /// holding no pawn.
    pub fn retreat_target(st: &State, a: &Arrival) -> Node {
        let b = board();
        let node = a.node();
        let mut from = node;
        if let [dep, station] = a.record[..]
            && b.info(dep).station == Some(station)
        {
            if st.at(dep).is_empty() {
                return dep;
            }
            from = dep;
        }
        let mut n = from;
        for _ in 0..200 {
            match b.info(n).back {
                Some(x) if st.at(x).is_empty() => return x,
                Some(x) => n = x,
                None => break,
            }
        }
        a.record.first().copied().unwrap_or(node)
    }

    pub(super) fn retreat(&mut self, a: &Arrival) {
        let to = Self::retreat_target(self.state(), a);
        self.emit(Event::UnitDisplaced {
            pawns: vec![a.pawn],
            to,
        });
        self.fix_tickets(&[a.pawn]);
    }

    // ------------------------------------------------------------------ automatic steps

    /// Emits the next automatic step that records something, if one is due.
    pub fn auto_step(&mut self) -> bool {
        if self.state().winner.is_some() {
            return false;
        }
        match self.state().ctl.phase {
            Phase::FirstRolls {
                next, best_seat, ..
            } if usize::from(next) >= self.state().order.len() => {
                let first = best_seat.unwrap_or(Seat::from_index(0));
                self.emit(Event::FirstPlayerChosen { seat: first });
                self.start_turn(first, 1);
                return true;
            }
            Phase::TurnOver => {
                self.end_turn();
                return true;
            }
            _ => {}
        }
        match self.state().ctl.stack.last().cloned() {
            Some(Frame::Arrive(a)) => match a.stage.clone() {
                ArrivalStage::Occupancy => {
                    // BD-120 / BD-508: a fight for an occupied node.
                    let node = a.node();
                    let seat = self.state().owner(a.pawn).unwrap_or(Seat::from_index(0));
                    let defender = self
                        .state()
                        .at(node)
                        .first()
                        .and_then(|&p| self.state().owner(p))
                        .unwrap_or(seat);
                    self.emit(Event::FightStarted {
                        attacker: a.pawn,
                        node,
                        defender,
                    });
                    true
                }
                ArrivalStage::Effects => self.effects(&a),
                ArrivalStage::Fight(f) if f.step == FightStep::Settle => {
                    self.fight_result(&a, &f);
                    true
                }
                _ => false,
            },
            Some(Frame::Destiny(d)) => match d.exec {
                Some(e) => self.exec_auto(e),
                None => false,
            },
            _ => false,
        }
    }

    /// BD-100 steps 3–4: the win check and the space effects that record something.
    fn effects(&mut self, a: &Arrival) -> bool {
        let b = board();
        let node = a.node();
        let seat = self.state().owner(a.pawn).unwrap_or(Seat::from_index(0));
        if b.is_property_of(node, a.pawn.colour()) && self.state().all_home(seat) {
            // BD-400
            self.emit(Event::GameWon { seat });
            return true;
        }
        let info = b.info(node);
        match info.kind {
            Kind::Colour if info.colour == Some(a.pawn.colour()) => {
                // BD-154: no 6-step path at all: the bonus is forfeited.
                if movement::candidates(self.state(), a.pawn, Len::Exact(6), true).is_empty() {
                    self.emit(Event::BonusForfeited { pawn: a.pawn });
                    return true;
                }
                false
            }
            Kind::Destiny if !self.state().destiny_deck.is_empty() => {
                // BD-152 / BD-301
                for _ in 0..info.draw {
                    if let Some(&card) = self.state().destiny_deck.front() {
                        self.emit(Event::DestinyCardDrawn { seat, card });
                    }
                }
                true
            }
            Kind::Support if !self.state().support_deck.is_empty() => {
                self.draw_support(seat); // BD-153
                true
            }
            _ => false,
        }
    }

    /// BD-153 / BD-237 / BD-232 (the hand limit follows in `evolve`).
    pub(super) fn draw_support(&mut self, seat: Seat) {
        if let Some(&card) = self.state().support_deck.front() {
            self.emit(Event::SupportCardDrawn {
                seat,
                turn: self.state().turn,
                card: Some(card),
            });
        }
    }

    // ------------------------------------------------------------------ frame commands

    pub(super) fn frame_command(&mut self, actor: Seat, cmd: &Command, w: &Awaiting) -> Decided {
        match self.state().ctl.stack.last().cloned() {
            Some(Frame::HandLimit { seat }) => self.hand_limit(seat, cmd),
            Some(Frame::Arrive(a)) => match a.stage.clone() {
                ArrivalStage::Fight(f) => self.fight_command(actor, cmd, a, f),
                ArrivalStage::Bonus { card_only } => self.bonus(actor, cmd, a, card_only),
                ArrivalStage::Express => self.express(actor, cmd, a),
                _ => Err(violation("BD-006", says("no_decision_pending"))),
            },
            Some(Frame::Destiny(d)) => match d.exec {
                Some(e) => self.destiny_command(actor, cmd, e, w),
                None => Err(violation("BD-006", says("no_decision_pending"))),
            },
            None => Err(violation("BD-006", says("no_decision_pending"))),
        }
    }

    /// BD-232
    pub(super) fn hand_limit(&mut self, seat: Seat, cmd: &Command) -> Decided {
        let Command::DiscardCards { cards } = cmd else {
            return Err(violation("BD-232", says("return_cards_down_to_five_first")));
        };
        let excess = self.state().card_count(seat).saturating_sub(5);
        ensure(cards.len() == excess, "BD-232", || {
            says("return_exactly_excess_card").arg("excess", excess)
        })?;
        let mut tickets = Vec::new();
        for (i, c) in cards.iter().enumerate() {
            ensure(!cards[..i].contains(c), "BD-232", || {
                says("named_twice_2").arg("c", c)
            })?;
            let in_hand = self.state().hands[seat.index()]
                .iter()
                .any(|h| h.card == *c);
            if !in_hand {
                let t = self
                    .state()
                    .tickets
                    .iter()
                    .find(|t| t.card == *c && t.owner == seat);
                match t {
                    Some(t) if t.spent => tickets.push(*c),
                    Some(_) => return Err(violation("BD-232", says("active_ticket").arg("c", c))),
                    None => {
                        return Err(violation("BD-231", says("not_yours_to_return").arg("c", c)));
                    }
                }
            }
        }
        self.emit(Event::CardsReturned {
            seat,
            count: cards.len() as u8,
            cards: Some(cards.clone()),
            tickets,
        });
        Ok(())
    }

    /// BD-154
    pub(super) fn bonus(
        &mut self,
        actor: Seat,
        cmd: &Command,
        a: Arrival,
        card_only: bool,
    ) -> Decided {
        match cmd {
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                ensure(*pawn == a.pawn, "BD-154", || {
                    says("bonus_moves_pawn").arg("pawn", a.pawn)
                })?;
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = movement::check_path(self.state(), *pawn, path, 6, cards)?;
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
                Ok(())
            }
            Command::Pass {} => {
                ensure(card_only, "BD-154", || says("bonus_move_compulsory"))?;
                self.emit(Event::BonusForfeited { pawn: a.pawn });
                Ok(())
            }
            _ => Err(violation("BD-154", says("make_bonus_move"))),
        }
    }

    /// BD-170–BD-173, BD-508
    pub(super) fn express(&mut self, actor: Seat, cmd: &Command, a: Arrival) -> Decided {
        match cmd {
            Command::RideExpress { piggyback_card } => {
                let dep = a.node();
                let station = board()
                    .info(dep)
                    .station
                    .ok_or_else(|| violation("BD-170", says("no_rail_here")))?;
                self.check_ride(actor, station, *piggyback_card)?;
                self.ride(actor, a.pawn, dep, station, *piggyback_card);
                Ok(())
            }
            Command::Pass {} => {
                self.control_only_pass(actor, "express_choice");
                Ok(())
            }
            _ => Err(violation("BD-170", says("ride_express_pass"))),
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
        if piggy.is_some() {
            self.stacked(pawn);
        }
    }
}
