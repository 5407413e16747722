//! The control state (§5.1) as `evolve` derives it from the facts: who acts next, the turn
//! phase and the stack of unfinished resolutions (BD-103).
//!
//! Three parts, used by both `evolve` (replay) and `decide` (which only ever changes the state
//! through events, so both always agree):
//! * [`on_event`]: what a fact does to the control state (a roll sets the fight values, a move
//!   starts an arrival, a resolved destiny card leaves the queue …);
//! * [`settle`]: the steps that follow from the state alone and record nothing (an arrival on
//!   an empty plain node ends, the next destiny card of the queue starts, a finished action
//!   ends the turn …), run after every event;
//! * [`awaiting`]: the pending decision read from the settled state.
//!
//! Steps that record something (a fight starts, a card is drawn, the turn ends) are emitted by
//! `decide` (`Cx::auto_step`) and come back here as facts.

use crate::bandits::board::{Kind, Node, board};
use crate::bandits::event::{Event, FightResult, RollContext};
use crate::bandits::movement::{self, Len};
use crate::bandits::reach::*;
use crate::bandits::state::*;
use crate::engine::Seat;

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

pub fn active(st: &State) -> Seat {
    st.active.unwrap_or(Seat::from_index(0))
}

/// BD-061 / BD-390: a pawn in prison and no own pawn on the own probation officer.
pub fn can_free(st: &State, seat: Seat) -> bool {
    let Some(c) = st.colour_of(seat) else {
        return false;
    };
    let po = board().probation[c.index()];
    st.pawns_of(seat).any(|p| st.in_prison(p)) && !st.own_occupied(po, seat)
}

/// BD-506 (strengthens BD-047): the own pawn standing on the own probation officer (alone or
/// as a bottom) that can leave it with `v` without playing a card. While there is one, the
/// value must move it off.
pub fn must_leave_officer(st: &State, seat: Seat, v: u8) -> Option<Pawn> {
    let c = st.colour_of(seat)?;
    let bottom = *st.at(board().probation[c.index()]).first()?;
    (st.owner(bottom) == Some(seat)
        && movement::candidates(st, bottom, Len::Exact(v), false)
            .iter()
            .any(|c| c.card_free()))
    .then_some(bottom)
}

/// The pending decision of `st` (none before setup, after the end, and while an automatic
/// step is due in the middle of a command).
pub fn awaiting(st: &State) -> Option<Awaiting> {
    if !st.started() || st.winner.is_some() {
        return None;
    }
    let active = active(st);
    match &st.ctl.phase {
        Phase::Setup | Phase::Over | Phase::TurnOver => None,
        Phase::FirstRolls { next, .. } => aw(
            *st.order.get(usize::from(*next))?,
            "first_player_roll",
            &["roll_die"],
        ),
        Phase::Interrogated => aw(active, "interrogated", &["return_interrogation"]),
        Phase::TurnRoll => aw(active, "turn_roll", &["roll_die"]),
        Phase::HunterMove { .. } => aw(active, "hunter_move", &["move_hunter"]),
        Phase::Action { value, attempt } => awaiting_turn_action(st, active, *value, *attempt),
        Phase::RerollAfterTen => aw(active, "reroll_after_ten", &["roll_die", "end_turn"]),
        Phase::Resolving { .. } => match st.ctl.stack.last()? {
            Frame::HandLimit { seat } => aw(*seat, "hand_limit", &["discard_cards"]),
            Frame::Arrive(a) => awaiting_arrival(st, a, active),
            Frame::Destiny(d) => awaiting_destiny(st, active, d.exec.as_ref()?),
        },
    }
}

/// The answers the turn's roll allows (BD-044).
fn awaiting_turn_action(st: &State, active: Seat, value: u8, attempt: bool) -> Option<Awaiting> {
    if value == 10 && can_free(st, active) {
        // BD-045
        aw(active, "turn_action", &["free_pawn"])
    } else if attempt {
        // BD-513: no free pawn, and village pawns are not free: free or pass.
        aw(active, "turn_action", &["free_pawn", "pass"])
    } else if st.ctl.moving.is_some() {
        // BD-517: a move begun in segments must be finished.
        aw(active, "turn_action", &["move_pawn", "move_segment"])
    } else if must_leave_officer(st, active, value).is_some() {
        // BD-506 (BD-517: in segments when it may be longer than 5 steps)
        if pending(st).is_some() {
            aw(active, "turn_action", &["move_pawn", "move_segment"])
        } else {
            aw(active, "turn_action", &["move_pawn"])
        }
    } else if pending(st).is_some() {
        aw(
            active,
            "turn_action",
            &[
                "free_pawn",
                "move_pawn",
                "move_segment",
                "play_card",
                "pass",
            ],
        )
    } else {
        aw(
            active,
            "turn_action",
            &["free_pawn", "move_pawn", "play_card", "pass"],
        )
    }
}

/// The decision of an arrival's stage: its fight's windows and rolls, a bonus move, the
/// express (§3.7–§3.10).
fn awaiting_arrival(st: &State, a: &Arrival, active: Seat) -> Option<Awaiting> {
    match &a.stage {
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
            FightStep::Lawyer => aw(f.attacker_seat, "lawyer_window", &["play_card", "pass"]),
            FightStep::Settle | FightStep::Retreat => None,
        },
        // BD-517: a bonus move of 6 goes in segments; once begun it must be finished.
        ArrivalStage::Bonus { .. } if st.ctl.moving.is_some() => {
            aw(active, "bonus_move", &["move_pawn", "move_segment"])
        }
        ArrivalStage::Bonus { card_only } => aw(
            active,
            "bonus_move",
            move_kinds(*card_only, pending(st).is_some()),
        ),
        ArrivalStage::Express => aw(active, "express_choice", &["ride_express", "pass"]),
        ArrivalStage::Occupancy | ArrivalStage::Effects => None,
    }
}

/// The kinds of a pawn move not begun: `move_segment` too when it may be longer than 5 steps
/// (BD-515 / BD-517), `pass` when it may be let go.
fn move_kinds(pass: bool, segmented: bool) -> &'static [&'static str] {
    match (pass, segmented) {
        (true, true) => &["move_pawn", "move_segment", "pass"],
        (true, false) => &["move_pawn", "pass"],
        (false, true) => &["move_pawn", "move_segment"],
        (false, false) => &["move_pawn"],
    }
}

/// The decision of the destiny card being executed (§3.14).
fn awaiting_destiny(st: &State, active: Seat, e: &Exec) -> Option<Awaiting> {
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
        // BD-515 / BD-517: a move begun in segments must be finished.
        ExecStep::Move if st.ctl.moving.is_some() => {
            aw(active, "destiny_move", &["move_pawn", "move_segment"])
        }
        ExecStep::Move => {
            let pass = is_permission(e.card) || !destiny_moves(st, active, e).0;
            // BD-515 / BD-517: moves that may be longer than 5 steps go in segments.
            aw(
                active,
                "destiny_move",
                move_kinds(pass, pending(st).is_some()),
            )
        }
        ExecStep::Lawyer => aw(
            *e.window.get(usize::from(e.next))?,
            "lawyer_window",
            &["play_card", "pass"],
        ),
        ExecStep::Start
        | ExecStep::Next
        | ExecStep::Rolled
        | ExecStep::Draw
        | ExecStep::Fallback => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Small accessors
// ---------------------------------------------------------------------------------------------

// The pending move sent in segments (BD-515, BD-517): read from the state like the
// pending decision, which names `move_segment` when there is one.

/// The most steps one command carries in a segmented move; every segment that does not end
/// the move has exactly this many. Five keeps the prompt of the worst position measured under
/// 16 KB with margin (`docs/rules/bandits.md` §12) while a rampage still takes few commands.
pub const SEGMENT: usize = 5;

/// The cards whose moves are sent in segments (BD-515): the ones whose paths may be longer
/// than a turn's 10 steps — in games created with event schema 3 (older games keep whole
/// moves, so their recorded commands re-run).
pub fn segmented(st: &State, card: Destiny) -> bool {
    st.segmented_moves && matches!(card.kind(), DestinyKind::Rampage | DestinyKind::Distribute)
}

/// The pending pawn move when it is sent in segments, whatever asked for it: a rampage or
/// distribute card (BD-515), or — in games created with event schema 5 (BD-517) — a turn
/// roll, a bonus move or another destiny move whose paths may be longer than [`SEGMENT`].
#[derive(Clone, Debug)]
pub struct Pending {
    /// The length rule of the whole move.
    pub len: Len,
    /// The pawns that may make it.
    pub movers: Vec<Pawn>,
    /// The protocol rule (BD-515 or BD-517) that sends it in segments.
    pub rule: &'static str,
    /// The rule that says which pawns may make it.
    pub mover_rule: &'static str,
}

/// Whether paths of `len` may be longer than [`SEGMENT`] steps.
fn may_be_long(len: Len) -> bool {
    match len {
        Len::Exact(v) | Len::UpTo(v) => usize::from(v) > SEGMENT,
        Len::Rampage(_) => true,
    }
}

/// The pending pawn move of the seat to act, if it is sent in segments.
pub fn pending(st: &State) -> Option<Pending> {
    let seat = active(st);
    let all = st.all_moves_in_segments; // BD-517
    let found = match (&st.ctl.phase, st.ctl.stack.last()) {
        (Phase::Action { value, attempt }, _) => {
            // BD-045: a 10 that must free a pawn, BD-513: an attempt roll, move no pawn.
            let frees_only = *value == 10 && can_free(st, seat);
            if !all || *attempt || frees_only {
                return None;
            }
            let (movers, mover_rule) = match must_leave_officer(st, seat, *value) {
                Some(p) => (vec![p], "BD-506"),
                None => (
                    st.pawns_of(seat).filter(|&p| st.is_movable(p)).collect(),
                    "BD-087",
                ),
            };
            Pending {
                len: Len::Exact(*value),
                movers,
                rule: "BD-517",
                mover_rule,
            }
        }
        (Phase::Resolving { .. }, Some(Frame::Arrive(a)))
            if all && matches!(a.stage, ArrivalStage::Bonus { .. }) =>
        {
            Pending {
                len: Len::Exact(6),
                movers: vec![a.pawn],
                rule: "BD-517",
                mover_rule: "BD-154",
            }
        }
        (Phase::Resolving { .. }, Some(Frame::Destiny(DestinyQueue { exec: Some(e), .. })))
            if e.step == ExecStep::Move && (all || segmented(st, e.card)) =>
        {
            Pending {
                len: destiny_len(e),
                movers: destiny_movers(st, seat, e),
                rule: if segmented(st, e.card) {
                    "BD-515"
                } else {
                    "BD-517"
                },
                mover_rule: match e.card.kind() {
                    DestinyKind::Distribute => "BD-505",
                    _ => "BD-305",
                },
            }
        }
        _ => return None,
    };
    // BD-515 applies to every rampage and distribute move, however short its roll.
    (found.rule == "BD-515" || may_be_long(found.len)).then_some(found)
}

pub fn top_arrival(st: &mut State) -> Option<&mut Arrival> {
    match st.ctl.stack.last_mut() {
        Some(Frame::Arrive(a)) => Some(a),
        _ => None,
    }
}

pub fn top_exec(st: &mut State) -> Option<&mut Exec> {
    match st.ctl.stack.last_mut() {
        Some(Frame::Destiny(d)) => d.exec.as_mut(),
        _ => None,
    }
}

fn top_fight(st: &mut State) -> Option<&mut Fight> {
    match top_arrival(st) {
        Some(Arrival {
            stage: ArrivalStage::Fight(f),
            ..
        }) => Some(f),
        _ => None,
    }
}

fn pop(st: &mut State) {
    st.ctl.stack.pop();
}

/// BD-042 / BD-043: what a turn roll `v` leads to (attempt or normal mode).
pub fn use_roll(st: &mut State, v: u8, has_free: bool) {
    if has_free {
        st.ctl.phase = Phase::Action {
            value: v,
            attempt: false,
        };
        return;
    }
    st.ctl.attempts += 1;
    st.ctl.phase = if v == 5 || v == 10 {
        Phase::Action {
            value: v,
            attempt: true,
        }
    } else if st.ctl.attempts < 3 {
        Phase::TurnRoll
    } else {
        Phase::TurnOver
    };
}

/// A pawn's relocation starts its arrival (BD-100), unless a Sur le dos was played for it
/// (BD-380: it climbs on top; no fight, no effect).
fn start_arrival(st: &mut State, pawn: Pawn, record: Vec<Node>, stop: bool) {
    if st.ctl.climbing == Some(pawn) {
        st.ctl.climbing = None;
        return;
    }
    st.ctl.stack.push(Frame::Arrive(Arrival {
        pawn,
        record,
        stage: ArrivalStage::Occupancy,
        stop,
    }));
}

/// The first event of a turn action ends the `turn_action` decision.
fn action_started(st: &mut State) {
    if let Phase::Action { value, .. } = st.ctl.phase {
        st.ctl.phase = Phase::Resolving { value };
    }
}

/// BD-302: drawn cards join the queue being executed, or start a new one.
fn queue_destiny(st: &mut State, card: Destiny, subject: Option<Pawn>) {
    for f in st.ctl.stack.iter_mut().rev() {
        if let Frame::Destiny(d) = f {
            d.queue.push(card);
            return;
        }
    }
    st.ctl.stack.push(Frame::Destiny(DestinyQueue {
        queue: vec![card],
        subject,
        exec: None,
    }));
}

/// BD-305: the rampage and distribute roll the die twice with one command.
pub fn two_dice(card: Destiny) -> bool {
    matches!(card.kind(), DestinyKind::Rampage | DestinyKind::Distribute)
}

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

/// Resolves a transient "a card is drawn next" step when the next fact is not that draw.
/// New logs always follow `draw` with the draw; logs of event schema 1 may not (draw-or-roll's
/// `roll` with no pawn to move ended the card with the same event as `draw`).
pub fn before_event(st: &mut State, event: &Event) {
    let Some(step) = top_exec(st).map(|e| e.step) else {
        return;
    };
    let expected = match step {
        ExecStep::Draw => matches!(event, Event::DestinyCardDrawn { .. }),
        ExecStep::Fallback => matches!(event, Event::SupportCardDrawn { .. }),
        _ => true,
    };
    if !expected {
        resolve_pending_draw(st);
    }
}

/// A pending draw-or-roll `draw` step whose card did not come (schema-1 logs only): the card
/// is simply done. True when there was one.
pub fn resolve_pending_draw(st: &mut State) -> bool {
    let pending =
        top_exec(st).is_some_and(|e| matches!(e.step, ExecStep::Draw | ExecStep::Fallback));
    if pending {
        clear_exec(st);
        settle(st);
    }
    pending
}

fn clear_exec(st: &mut State) {
    if let Some(Frame::Destiny(d)) = st.ctl.stack.last_mut() {
        d.exec = None;
    }
}

/// The control side of `event`. Called by `evolve` with the state *before* the event's
/// relocation where the record needs it (`start`: the pawn's node before the event).
pub fn on_event(st: &mut State, event: &Event, start: Node) {
    // One function per family of events; each ignores the events of the others.
    const FAMILIES: [fn(&mut State, &Event, Node) -> bool; 6] = [
        on_setup_and_moves,
        on_placements_and_express,
        on_fights,
        on_cards,
        on_destiny_and_end,
        on_passes_and_accusations,
    ];
    for family in FAMILIES {
        if family(st, event, start) {
            return;
        }
    }
}

/// The game start, rolls, turn starts, freed and moved pawns.
fn on_setup_and_moves(st: &mut State, event: &Event, start: Node) -> bool {
    match event {
        Event::GameCreated { options, .. } => {
            if options.first_player.is_none() {
                st.ctl.phase = Phase::FirstRolls {
                    next: 0,
                    best_seat: None,
                    best_value: 0,
                };
            }
        }
        Event::DieRolled {
            seat,
            context,
            value,
        } => on_roll(st, *seat, *context, *value),
        Event::TurnStarted { seat, .. } => {
            st.ctl = Control {
                // BD-040: an interrogated turn only hands the card back.
                phase: if st.interrogated == Some(*seat) {
                    Phase::Interrogated
                } else {
                    Phase::TurnRoll
                },
                ..Control::default()
            };
        }
        Event::HunterMoved { .. } => {} // handled in `evolve` (needs the hunter's start)
        Event::PawnFreed { pawn, to } => {
            action_started(st);
            start_arrival(st, *pawn, vec![start, *to], false);
        }
        Event::MoveSegmentChosen { pawn, path, .. } => {
            // BD-515: the steps wait for the rest of the move.
            let so_far = st.ctl.moving.get_or_insert_with(|| MoveSoFar {
                pawn: *pawn,
                path: Vec::new(),
            });
            so_far.path.extend_from_slice(path);
        }
        Event::PawnMoved { pawn, path } => {
            st.ctl.moving = None; // BD-515: the move is whole
            action_started(st);
            let bonus = matches!(
                st.ctl.stack.last(),
                Some(Frame::Arrive(a)) if a.pawn == *pawn && matches!(a.stage, ArrivalStage::Bonus { .. })
            );
            if bonus {
                pop(st);
            }
            if let Some(e) = top_exec(st) {
                match e.step {
                    ExecStep::Move => {
                        match e.card.kind() {
                            // BD-505: the share is used up.
                            DestinyKind::Distribute => {
                                e.value = e.value.saturating_sub(path.len() as u8);
                                e.moved.push(*pawn);
                            }
                            DestinyKind::Rampage => e.value = 0,
                            _ => {}
                        }
                        e.step = ExecStep::Next;
                    }
                    ExecStep::Choice => e.step = ExecStep::Next, // Évasion express `back`
                    _ => {}
                }
            }
            let mut record = Vec::with_capacity(path.len() + 1);
            record.push(start);
            record.extend_from_slice(path);
            start_arrival(st, *pawn, record, false);
        }
        _ => return false,
    }
    true
}

/// Placed pawns and express rides.
fn on_placements_and_express(st: &mut State, event: &Event, start: Node) -> bool {
    match event {
        Event::PawnPlaced { pawn, to } => {
            action_started(st); // Surveiller
            let mut arrives = true;
            if let Some(e) = top_exec(st)
                && e.step == ExecStep::Choice
            {
                e.step = ExecStep::Next;
                // Évasion express: the departure is only passed through on the way to the
                // train (the ride, or BD-507's stop, follows).
                arrives = e.card.kind() != DestinyKind::ExpressEscape;
            }
            if arrives {
                start_arrival(st, *pawn, vec![start, *to], false);
            }
        }
        Event::ExpressRidden { pawn, from, to } => {
            let riding = matches!(
                st.ctl.stack.last(),
                Some(Frame::Arrive(a)) if a.pawn == *pawn && a.stage == ArrivalStage::Express
            );
            if riding {
                pop(st);
            }
            if let Some(e) = top_exec(st)
                && e.step == ExecStep::Choice
            {
                e.step = ExecStep::Next;
            }
            start_arrival(st, *pawn, vec![*from, *to], false);
        }
        Event::ExpressMissed { pawn, .. } => {
            // BD-507: it stops on the departure: an arrival without space effect.
            if let Some(e) = top_exec(st)
                && e.step == ExecStep::Choice
            {
                e.step = ExecStep::Next;
            }
            let at = st.pos(*pawn);
            start_arrival(st, *pawn, vec![at], true);
        }
        _ => return false,
    }
    true
}

/// Fights starting and ending, forfeited bonuses.
fn on_fights(st: &mut State, event: &Event, _start: Node) -> bool {
    match event {
        Event::FightStarted { attacker, node, .. } => {
            let seat = st.owner(*attacker).unwrap_or(Seat::from_index(0));
            let unit: Vec<Pawn> = st
                .at(*node)
                .iter()
                .copied()
                .filter(|p| p != attacker)
                .collect();
            let defender = unit.first().and_then(|&p| st.owner(p)).unwrap_or(seat);
            // BD-121: the defending player, then the riders' owners bottom to top, once each;
            // never the attacking player (BD-508: an own pawn on a station defends without a
            // Bodyguard window for its owner).
            let mut window = Vec::new();
            for &p in &unit {
                if let Some(o) = st.owner(p)
                    && !window.contains(&o)
                    && o != seat
                {
                    window.push(o);
                }
            }
            let step = if window.is_empty() {
                FightStep::AttackerRoll
            } else {
                FightStep::Bodyguard
            };
            if let Some(a) = top_arrival(st) {
                a.stage = ArrivalStage::Fight(Fight {
                    attacker_seat: seat,
                    defender,
                    window,
                    next: 0,
                    round: 1,
                    attack: 0,
                    defence: 0,
                    rerolled: false,
                    step,
                });
            }
        }
        Event::FightEnded { node, result } => {
            let lawyer_space = st.is_lawyer_space(*node);
            if let Some(a) = top_arrival(st) {
                match result {
                    // BD-125: the attacker stays; its arrival goes on once the defending unit
                    // has been pushed back.
                    FightResult::Attacker => a.stage = ArrivalStage::Effects,
                    FightResult::Defender if !lawyer_space => {
                        if let ArrivalStage::Fight(f) = &mut a.stage {
                            f.step = FightStep::Lawyer; // BD-126b
                        }
                    }
                    FightResult::Defender | FightResult::Bodyguard => {
                        if let ArrivalStage::Fight(f) = &mut a.stage {
                            f.step = FightStep::Retreat; // BD-126a, BD-121
                        }
                    }
                }
            }
        }
        Event::BonusForfeited { pawn } => {
            if matches!(st.ctl.stack.last(), Some(Frame::Arrive(a)) if a.pawn == *pawn) {
                pop(st);
            }
        }
        _ => return false,
    }
    true
}

/// Support cards drawn, played and returned; destiny cards drawn.
fn on_cards(st: &mut State, event: &Event, _start: Node) -> bool {
    match event {
        Event::SupportCardDrawn { seat, .. } => {
            // BD-153: the arrival on a support space ends with the draw …
            let b = board();
            let arriving = matches!(
                st.ctl.stack.last(),
                Some(Frame::Arrive(a)) if a.stage == ArrivalStage::Effects
                    && b.info(a.node()).kind == Kind::Support
            );
            if arriving {
                pop(st);
            } else if let Some(e) = top_exec(st)
                && e.step == ExecStep::Fallback
            {
                clear_exec(st); // BD-350's support card
            }
            // … and BD-232: over five cards, the holder discards first.
            if st.card_count(*seat) > 5 {
                st.ctl.stack.push(Frame::HandLimit { seat: *seat });
            }
        }
        Event::CardPlayed { card, pawn, .. } => match card.kind() {
            SupportKind::Piggyback => st.ctl.climbing = *pawn,
            SupportKind::Watch => st.ctl.watch_used = true, // BD-234
            SupportKind::Lawyer => {
                if let Some(f) = top_fight(st)
                    && f.step == FightStep::Lawyer
                {
                    f.step = FightStep::Retreat; // BD-126b
                }
            }
            _ => {}
        },
        Event::CardsReturned { .. } => {
            if matches!(st.ctl.stack.last(), Some(Frame::HandLimit { .. })) {
                pop(st);
            }
        }
        Event::DestinyCardDrawn { card, .. } => {
            let b = board();
            let arrival = match st.ctl.stack.last() {
                Some(Frame::Arrive(a))
                    if a.stage == ArrivalStage::Effects
                        && b.info(a.node()).kind == Kind::Destiny =>
                {
                    Some(a.pawn)
                }
                _ => None,
            };
            if arrival.is_some() {
                pop(st); // BD-152: the arrival ends with the draw
            }
            if let Some(e) = top_exec(st)
                && e.step == ExecStep::Draw
            {
                clear_exec(st); // BD-351 `draw`
            }
            queue_destiny(st, *card, arrival);
        }
        _ => return false,
    }
    true
}

/// Destiny cards resolved, interrogations, skipped decisions, the win.
fn on_destiny_and_end(st: &mut State, event: &Event, _start: Node) -> bool {
    match event {
        Event::DestinyCardResolved { card, .. } => {
            // BD-302: the card is done, and so is everything it started.
            let deck_before = st.destiny_deck.len().saturating_sub(1);
            let support_left = !st.support_deck.is_empty();
            if let Some(i) = st
                .ctl
                .stack
                .iter()
                .rposition(|f| matches!(f, Frame::Destiny(_)))
            {
                st.ctl.stack.truncate(i + 1);
            }
            let step = top_exec(st).map(|e| e.step);
            let next = match (card.kind(), step) {
                // BD-350: no pawn to move: a support card follows (if the deck has one).
                (DestinyKind::Distribute, Some(ExecStep::Start)) if support_left => {
                    Some(ExecStep::Fallback)
                }
                // BD-351 `draw`: the next destiny card follows (if the deck had one).
                (DestinyKind::DrawOrRoll, Some(ExecStep::Choice)) if deck_before > 0 => {
                    Some(ExecStep::Draw)
                }
                _ => None,
            };
            match next {
                Some(s) => {
                    if let Some(e) = top_exec(st) {
                        e.step = s;
                    }
                }
                None => clear_exec(st),
            }
        }
        Event::InterrogationPlaced { .. } => clear_exec(st), // BD-370: the card stays out
        Event::InterrogationServed { .. } => st.ctl.phase = Phase::TurnOver,
        Event::DecisionSkipped { decision, .. } => {
            if decision == "destiny_move"
                && let Some(e) = top_exec(st)
            {
                e.step = ExecStep::Next;
                if two_dice(e.card) {
                    e.value = 0;
                }
            }
        }
        Event::GameWon { .. } => {
            st.ctl.phase = Phase::Over;
            st.ctl.stack.clear();
        }
        _ => return false,
    }
    true
}

/// Passes, accusations, granted rolls and the facts with no control side.
fn on_passes_and_accusations(st: &mut State, event: &Event, _start: Node) -> bool {
    match event {
        Event::Passed { .. } => pass_effect(st),
        Event::PawnAccused { seat, pawn } => {
            let node = st.pos(*pawn);
            // BD-320: the Lawyer window: every other owner in the unit, bottom to top, once.
            let mut window = Vec::new();
            for &p in st.at(node) {
                if let Some(o) = st.owner(p)
                    && o != *seat
                    && !window.contains(&o)
                {
                    window.push(o);
                }
            }
            if let Some(e) = top_exec(st) {
                e.target = Some(*pawn);
                e.window = window;
                e.next = 0;
                e.step = ExecStep::Lawyer;
            }
        }
        Event::RollsGranted { rolls, .. } => {
            if let Some(e) = top_exec(st) {
                e.rolls_left = *rolls;
                e.step = ExecStep::Next;
            }
        }
        Event::SupportDeckShuffled { .. }
        | Event::DestinyDeckShuffled { .. }
        | Event::SupportCardsDealt { .. }
        | Event::FirstPlayerChosen { .. }
        | Event::UnitDisplaced { .. }
        | Event::RiderSetDown { .. }
        | Event::PawnStacked { .. }
        | Event::PawnImprisoned { .. }
        | Event::TicketActivated { .. }
        | Event::TicketSpent { .. }
        | Event::TicketsReturned { .. }
        | Event::AccusationCancelled { .. }
        | Event::TurnEnded { .. } => {}
        _ => return false,
    }
    true
}

/// What a die roll does, by what it was rolled for.
fn on_roll(st: &mut State, seat: Seat, context: RollContext, v: u8) {
    match context {
        RollContext::FirstPlayer => on_first_player_roll(st, seat, v),
        RollContext::Turn => {
            let first = !st.ctl.rolled;
            st.ctl.rolled = true;
            if first && st.ctl.phase == Phase::TurnRoll && st.options.bounty_hunter {
                // BD-423: the hunter's D6 comes with the first turn roll.
                st.ctl.phase = Phase::HunterMove {
                    hunter: 0,
                    value: v,
                };
            } else {
                let seat = active(st);
                let has_free = st.pawns_of(seat).any(|p| st.is_free(p));
                use_roll(st, v, has_free);
            }
        }
        RollContext::Hunter => {
            if let Phase::HunterMove { value, .. } = st.ctl.phase {
                st.ctl.phase = Phase::HunterMove { hunter: v, value };
            }
        }
        RollContext::Attacker | RollContext::Defender | RollContext::DefenderReroll => {
            on_fight_roll(st, context, v)
        }
        RollContext::Destiny => on_destiny_roll(st, v),
    }
}

/// §3.3 first player (BD-031): the best roll so far.
fn on_first_player_roll(st: &mut State, seat: Seat, v: u8) {
    if let Phase::FirstRolls {
        next,
        best_seat,
        best_value,
    } = st.ctl.phase
    {
        // BD-031: a higher value wins; ties go to the earlier roller.
        let (bs, bv) = if best_seat.is_none() || v > best_value {
            (Some(seat), v)
        } else {
            (best_seat, best_value)
        };
        st.ctl.phase = Phase::FirstRolls {
            next: next + 1,
            best_seat: bs,
            best_value: bv,
        };
    }
}

/// §3.8 fights: the attacker's roll, the defender's, the defender's re-roll (BD-123).
fn on_fight_roll(st: &mut State, context: RollContext, v: u8) {
    let Some(f) = top_fight(st) else {
        return;
    };
    match context {
        RollContext::Attacker => {
            f.attack = v;
            f.step = FightStep::DefenderRoll;
        }
        RollContext::Defender => {
            f.defence = v;
            // BD-123: a defender who is behind may re-roll once per round.
            f.step = if f.defence < f.attack && !f.rerolled {
                FightStep::DefenceReroll
            } else {
                FightStep::Settle
            };
        }
        RollContext::DefenderReroll => {
            f.defence = v;
            f.rerolled = true;
            f.step = FightStep::Settle;
        }
        _ => {}
    }
}

/// §3.14 a destiny card's roll (two dice for some cards, BD-505).
fn on_destiny_roll(st: &mut State, v: u8) {
    let seat = active(st);
    let Some(mut e) = top_exec(st).cloned() else {
        return;
    };
    if two_dice(e.card) && e.value == 0 {
        e.value = v; // the first of the two dice rolled by one command
    } else {
        e.value = if two_dice(e.card) { e.value + v } else { v };
        e.rolls_left = e.rolls_left.saturating_sub(1);
        e.step = if destiny_moves(st, seat, &e).1 {
            ExecStep::Move
        } else {
            ExecStep::Rolled
        };
    }
    if let Some(x) = top_exec(st) {
        *x = e;
    }
}

/// A `pass` that records nothing else (see [`Event::Passed`]).
pub fn pass_effect(st: &mut State) {
    if let Phase::Action { value, .. } = st.ctl.phase {
        st.ctl.phase = Phase::Resolving { value };
        return;
    }
    match st.ctl.stack.last_mut() {
        Some(Frame::Arrive(a)) => match &mut a.stage {
            ArrivalStage::Fight(f) if f.step == FightStep::Bodyguard => f.next += 1,
            ArrivalStage::Express => {
                st.ctl.stack.pop();
            }
            _ => {}
        },
        Some(Frame::Destiny(d)) => {
            if let Some(e) = d.exec.as_mut() {
                match e.step {
                    ExecStep::Move => {
                        if two_dice(e.card) {
                            e.value = 0; // BD-505: only possible when no move needs no card
                        }
                        e.step = ExecStep::Next;
                    }
                    ExecStep::Lawyer => e.next += 1,
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Steps that record nothing
// ---------------------------------------------------------------------------------------------

/// Runs every step that follows from the state alone, until a decision is pending or a step
/// that records an event is due.
pub fn settle(st: &mut State) {
    if !st.started() || st.winner.is_some() {
        return;
    }
    for _ in 0..10_000 {
        if !settle_once(st) {
            return;
        }
    }
}

/// One step that records nothing; false when a decision or a recording step is due. The
/// top frame says what is being resolved: an arrival (§3.7), a destiny card (§3.14), or
/// nothing left (the end of the turn's action).
fn settle_once(st: &mut State) -> bool {
    match st.ctl.stack.last() {
        None => end_of_action(st),
        Some(Frame::HandLimit { .. }) => false,
        Some(Frame::Arrive(_)) => arrival_step(st),
        Some(Frame::Destiny(_)) => destiny_step(st),
    }
}

/// Nothing left to resolve: the turn ends, or a 10 grants another roll.
fn end_of_action(st: &mut State) -> bool {
    if let Phase::Resolving { value } = st.ctl.phase {
        // BD-048 / BD-049
        st.ctl.phase = if value == 10 {
            Phase::RerollAfterTen
        } else {
            Phase::TurnOver
        };
        return true;
    }
    false
}

/// §3.7 arrival: occupancy (a fight is due when shared), then the space's effects.
fn arrival_step(st: &mut State) -> bool {
    let Some(Frame::Arrive(a)) = st.ctl.stack.last() else {
        return false;
    };
    if !st.at(a.node()).contains(&a.pawn) {
        // Imprisoned or retreated: the arrival is over.
        pop(st);
        return true;
    }
    let here = st.at(a.node());
    match &a.stage {
        ArrivalStage::Occupancy => {
            if here.len() > 1 {
                return false; // a fight is due (BD-120, BD-508)
            }
            if let Some(a) = top_arrival(st) {
                a.stage = ArrivalStage::Effects;
            }
            true
        }
        ArrivalStage::Effects => space_effects(st),
        ArrivalStage::Fight(_) => fight_step(st),
        ArrivalStage::Bonus { .. } | ArrivalStage::Express => false,
    }
}

/// §3.7, §3.9 the effects of the space a pawn arrived on, once it stands there alone.
fn space_effects(st: &mut State) -> bool {
    let b = board();
    let Some(Frame::Arrive(a)) = st.ctl.stack.last() else {
        return false;
    };
    let node = a.node();
    let here = st.at(node);
    if here.len() > 1 {
        return false; // waiting for the pushed-back defenders (BD-125)
    }
    if a.stop {
        pop(st); // BD-507: it stops there, no space effect
        return true;
    }
    let pawn = a.pawn;
    let seat = st.owner(pawn).unwrap_or(Seat::from_index(0));
    if b.is_property_of(node, pawn.colour()) && st.all_home(seat) {
        return false; // BD-400: game_won is due
    }
    let info = b.info(node);
    match info.kind {
        Kind::Colour if info.colour == Some(pawn.colour()) => {
            // BD-154
            let cands = movement::candidates(st, pawn, Len::Exact(6), true);
            if cands.is_empty() {
                return false; // bonus_forfeited is due
            }
            let free = cands.iter().any(|c| c.card_free());
            if let Some(a) = top_arrival(st) {
                a.stage = ArrivalStage::Bonus { card_only: !free };
            }
            false
        }
        Kind::Express => {
            // BD-170
            if let Some(a) = top_arrival(st) {
                a.stage = ArrivalStage::Express;
            }
            false
        }
        Kind::Destiny if !st.destiny_deck.is_empty() => false,
        Kind::Support if !st.support_deck.is_empty() => false,
        _ => {
            pop(st);
            true
        }
    }
}

/// §3.8 fights: the bodyguard window closes, or a drawn round starts again.
fn fight_step(st: &mut State) -> bool {
    let Some(Frame::Arrive(Arrival {
        stage: ArrivalStage::Fight(f),
        ..
    })) = st.ctl.stack.last()
    else {
        return false;
    };
    let mut f = f.clone();
    let changed = match f.step {
        FightStep::Bodyguard if usize::from(f.next) >= f.window.len() => {
            f.step = FightStep::AttackerRoll;
            true
        }
        FightStep::Settle if f.attack == f.defence => {
            // BD-124: a new round with a fresh re-roll right.
            f.round += 1;
            f.rerolled = false;
            f.step = FightStep::AttackerRoll;
            true
        }
        _ => false,
    };
    if changed && let Some(a) = top_arrival(st) {
        a.stage = ArrivalStage::Fight(f);
    }
    changed
}

/// §3.14 destiny cards: the next card of the queue, or the executed card's next step.
fn destiny_step(st: &mut State) -> bool {
    let Some(Frame::Destiny(d)) = st.ctl.stack.last() else {
        return false;
    };
    match &d.exec {
        None => {
            if d.queue.is_empty() {
                pop(st);
            } else if let Some(Frame::Destiny(d)) = st.ctl.stack.last_mut() {
                let card = d.queue.remove(0);
                let subject = d.subject.take();
                d.exec = Some(Exec {
                    card,
                    subject,
                    step: ExecStep::Start,
                    rolls_left: 0,
                    value: 0,
                    moved: Vec::new(),
                    target: None,
                    window: Vec::new(),
                    next: 0,
                });
            }
            true
        }
        Some(e) => match e.step {
            ExecStep::Start | ExecStep::Next => exec_transition(st),
            ExecStep::Draw if st.destiny_deck.is_empty() => {
                clear_exec(st);
                true
            }
            ExecStep::Fallback if st.support_deck.is_empty() => {
                clear_exec(st);
                true
            }
            _ => false,
        },
    }
}

/// The next step of a destiny card being executed (§3.14), when it records nothing. `false`
/// when the card ends (or skips a decision): `Cx::auto_step` emits that.
fn exec_transition(st: &mut State) -> bool {
    let seat = active(st);
    let Some(mut e) = top_exec(st).cloned() else {
        return false;
    };
    let start = e.step == ExecStep::Start;
    let f = st.pawns_of(seat).filter(|&p| st.is_free(p)).count() as u8;
    let next = match e.card.kind() {
        DestinyKind::Detective | DestinyKind::ExpressEscape => {
            let possible = start
                && subjects(st, seat, &e)
                    .iter()
                    .any(|&p| !subject_options(st, e.card, p).is_empty());
            possible.then_some(ExecStep::Choice)
        }
        DestinyKind::Accusation => {
            (start && !accusation_targets(st, seat).is_empty()).then_some(ExecStep::Choice)
        }
        DestinyKind::Interrogation => Some(ExecStep::Choice),
        DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour => {
            if start {
                match e.card.kind() {
                    DestinyKind::SmallOuting => e.rolls_left = f.min(3), // BD-330
                    DestinyKind::BigOuting => e.rolls_left = 2 * f.min(2), // BD-331
                    _ if f >= 4 => e.rolls_left = 0,                     // BD-332: mode first
                    _ => e.rolls_left = 2 * f.min(3),
                }
            }
            if start && e.card.kind() == DestinyKind::GrandTour && f >= 4 {
                Some(ExecStep::Choice)
            } else {
                (e.rolls_left > 0 && !outside_movable(st, seat).is_empty())
                    .then_some(ExecStep::Roll)
            }
        }
        DestinyKind::Rampage => {
            (start && !free_movable(st, seat).is_empty()).then_some(ExecStep::Roll)
        }
        DestinyKind::Distribute => {
            if start {
                (!outside_movable(st, seat).is_empty()).then_some(ExecStep::Roll)
            } else {
                // BD-505: go on while some free pawn outside Huntington can still move.
                (e.value > 0 && destiny_moves(st, seat, &e).1).then_some(ExecStep::Move)
            }
        }
        DestinyKind::DrawOrRoll => {
            if start {
                Some(ExecStep::Choice)
            } else {
                (e.rolls_left > 0 && !free_movable(st, seat).is_empty()).then_some(ExecStep::Roll)
            }
        }
    };
    match next {
        Some(step) => {
            e.step = step;
            if let Some(x) = top_exec(st) {
                *x = e;
            }
            true
        }
        None => false,
    }
}
