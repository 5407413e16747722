//! Destiny cards (§3.14): queries (subjects, options, targets, movers) and the execution of
//! the queue, one card at a time.

use super::board::{Node, Zone, board};
use super::command::{Command, DestinyOption, TourMode};
use super::decide::{Awaiting, Cx, Res, free_movable, outside_movable, rv};
use super::event::{Event, RollContext};
use super::movement::{self, End, Len, PathInfo};
use super::state::*;
use crate::engine::{Seat, ensure};

/// BD-306: small outing, big outing and grand tour are permissions.
pub fn is_permission(card: Destiny) -> bool {
    matches!(
        card.kind(),
        DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour
    )
}

/// BD-270 / BD-310a: the node just behind the next pawn of another player, clockwise on the
/// ring; `None` if there is none or it is the pawn's own node.
pub fn behind_opponent(st: &State, pawn: Pawn) -> Option<Node> {
    if !st.on_ring(pawn) {
        return None;
    }
    let b = board();
    let start = st.pos(pawn);
    let owner = st.owner(pawn);
    let mut prev = start;
    let mut n = b.ring_next(start)?;
    for _ in 0..71 {
        if st.at(n).iter().any(|&p| st.owner(p) != owner) {
            return (prev != start).then_some(prev);
        }
        prev = n;
        n = b.ring_next(n)?;
    }
    None
}

/// BD-310b: the first lawyer space strictly behind, along `back` pointers.
pub fn last_lawyer(st: &State, pawn: Pawn) -> Option<Node> {
    let b = board();
    let mut n = b.info(st.pos(pawn)).back;
    for _ in 0..200 {
        let x = n?;
        if b.info(x).lawyer_space {
            return Some(x);
        }
        n = b.info(x).back;
    }
    None
}

/// BD-361: the nearest express departure clockwise (distance ≥ 0) and its station.
pub fn nearest_express(st: &State, pawn: Pawn) -> Option<(Node, Node)> {
    if !st.on_ring(pawn) {
        return None;
    }
    let b = board();
    let mut n = st.pos(pawn);
    for _ in 0..72 {
        if let Some(station) = b.info(n).station {
            return Some((n, station));
        }
        n = b.ring_next(n)?;
    }
    None
}

/// BD-362: `k` steps back along `back` pointers.
pub fn back_path(st: &State, pawn: Pawn, k: u8) -> Option<Vec<Node>> {
    let b = board();
    let mut n = st.pos(pawn);
    let mut path = Vec::new();
    for _ in 0..k {
        n = b.info(n).back?;
        if b.info(n).zone == Zone::Prison {
            return None;
        }
        path.push(n);
    }
    Some(path)
}

/// How a placement/ride onto `dest` would end for `pawn` (None: impossible), and whether it
/// needs a Sur le dos.
pub fn placement_end(st: &State, pawn: Pawn, dest: Node) -> Option<(End, bool)> {
    let owner = st.owner(pawn);
    let others: Vec<Pawn> = st.at(dest).iter().copied().filter(|&p| p != pawn).collect();
    let end = if others.iter().any(|&p| st.owner(p) == owner) {
        End::Own
    } else if others.is_empty() {
        End::Empty
    } else {
        End::Opponent
    };
    let zone = board().info(dest).zone;
    if end == End::Own && zone != Zone::Ring {
        return None;
    }
    if end != End::Empty && zone == Zone::Village {
        return None;
    }
    Some((end, end == End::Own))
}

/// The options of a Détective / Évasion express for `pawn`: (option, steps, needs a card).
pub fn subject_options(
    st: &State,
    card: Destiny,
    pawn: Pawn,
) -> Vec<(DestinyOption, Option<u8>, bool)> {
    let mut out = Vec::new();
    match card.kind() {
        DestinyKind::Detective => {
            if let Some(d) = behind_opponent(st, pawn)
                && let Some((_, card)) = placement_end(st, pawn, d)
            {
                out.push((DestinyOption::BehindOpponent, None, card));
            }
            if let Some(d) = last_lawyer(st, pawn)
                && let Some((_, card)) = placement_end(st, pawn, d)
            {
                out.push((DestinyOption::LastLawyer, None, card));
            }
        }
        DestinyKind::ExpressEscape => {
            if let Some((_, station)) = nearest_express(st, pawn)
                && let Some((_, card)) = placement_end(st, pawn, station)
            {
                out.push((DestinyOption::Train, None, card));
            }
            for k in 1..=6u8 {
                if let Some(path) = back_path(st, pawn, k)
                    && let Some(&last) = path.last()
                    && let Some((_, card)) = placement_end(st, pawn, last)
                {
                    out.push((DestinyOption::Back, Some(k), card));
                }
            }
        }
        _ => {}
    }
    out
}

/// Subjects a card may use: the drawing pawn for the first card (BD-303), else any own free
/// movable pawn.
pub fn subjects(st: &State, seat: Seat, e: &Exec) -> Vec<Pawn> {
    match e.subject {
        Some(p) if st.owner(p) == Some(seat) && st.is_free(p) && st.is_movable(p) => vec![p],
        _ => free_movable(st, seat),
    }
}

/// Accusation targets (BD-320).
pub fn accusation_targets(st: &State, seat: Seat) -> Vec<Pawn> {
    let mut v = Vec::new();
    for s in st.order.iter().copied().filter(|&s| s != seat) {
        for p in st.pawns_of(s) {
            if st.is_free(p) && !st.is_lawyer_space(st.pos(p)) {
                v.push(p);
            }
        }
    }
    v
}

/// `pass` in a destiny choice: only when every possible option needs a card (as BD-154).
pub fn choice_pass_allowed(st: &State, seat: Seat, e: &Exec) -> bool {
    match e.card.kind() {
        DestinyKind::Detective | DestinyKind::ExpressEscape => subjects(st, seat, e)
            .iter()
            .all(|&p| subject_options(st, e.card, p).iter().all(|o| o.2)),
        _ => false,
    }
}

/// Pawns that may make the current destiny move.
pub fn destiny_movers(st: &State, seat: Seat, e: &Exec) -> Vec<Pawn> {
    match e.card.kind() {
        DestinyKind::Distribute => outside_movable(st, seat)
            .into_iter()
            .filter(|p| !e.moved.contains(p))
            .collect(),
        DestinyKind::Rampage | DestinyKind::DrawOrRoll => free_movable(st, seat),
        _ => outside_movable(st, seat),
    }
}

pub fn destiny_len(e: &Exec) -> Len {
    match e.card.kind() {
        DestinyKind::Rampage => Len::Rampage(e.value),
        DestinyKind::Distribute => Len::UpTo(e.value),
        _ => Len::Exact(e.value),
    }
}

/// (a card-free move exists, any move exists) for the current destiny move.
pub fn destiny_moves(st: &State, seat: Seat, e: &Exec) -> (bool, bool) {
    let mut any = false;
    for p in destiny_movers(st, seat, e) {
        for c in movement::candidates(st, p, destiny_len(e), true) {
            if c.card_free() {
                return (true, true);
            }
            any = true;
        }
    }
    (false, any)
}

impl Cx<'_> {
    // ------------------------------------------------------------------ destiny cards

    pub(super) fn set_exec(&mut self, e: Exec) {
        if let Some(Frame::Destiny(d)) = self.st.ctl.stack.last_mut() {
            d.exec = Some(e);
        }
    }

    pub(super) fn next_card(&mut self) {
        let Some(Frame::Destiny(d)) = self.st.ctl.stack.last_mut() else {
            return;
        };
        if d.queue.is_empty() {
            self.pop();
            return;
        }
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

    pub(super) fn finish_card(&mut self, card: Destiny, effect: bool) {
        self.emit(Event::DestinyCardResolved { card, effect });
        if let Some(Frame::Destiny(d)) = self.st.ctl.stack.last_mut() {
            d.exec = None;
        }
    }

    pub(super) fn skip(&mut self, decision: &str) {
        let seat = self.active();
        self.emit(Event::DecisionSkipped {
            seat,
            decision: decision.into(),
        });
    }

    /// A ready destiny card: decide its next waiting step (or finish it).
    pub(super) fn exec_ready(&mut self) {
        let Some(mut e) = self.top_exec().cloned() else {
            return;
        };
        let seat = self.active();
        let start = e.step == ExecStep::Start;
        let f = self
            .st
            .pawns_of(seat)
            .filter(|&p| self.st.is_free(p))
            .count() as u8;
        match e.card.kind() {
            DestinyKind::Detective | DestinyKind::ExpressEscape => {
                if start {
                    let possible = subjects(&self.st, seat, &e)
                        .iter()
                        .any(|&p| !subject_options(&self.st, e.card, p).is_empty());
                    if possible {
                        e.step = ExecStep::Choice;
                        self.set_exec(e);
                    } else {
                        // BD-304 / BD-363
                        self.finish_card(e.card, false);
                    }
                } else {
                    self.finish_card(e.card, true);
                }
            }
            DestinyKind::Accusation => {
                if start && !accusation_targets(&self.st, seat).is_empty() {
                    e.step = ExecStep::Choice;
                    self.set_exec(e);
                } else {
                    self.finish_card(e.card, !start);
                }
            }
            DestinyKind::Interrogation => {
                e.step = ExecStep::Choice;
                self.set_exec(e);
            }
            DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour => {
                if start {
                    match e.card.kind() {
                        DestinyKind::SmallOuting => e.rolls_left = f.min(3), // BD-330
                        DestinyKind::BigOuting => e.rolls_left = 2 * f.min(2), // BD-331
                        _ if f >= 4 => {
                            // BD-332: choose the mode first.
                            e.step = ExecStep::Choice;
                            self.set_exec(e);
                            return;
                        }
                        _ => e.rolls_left = 2 * f.min(3),
                    }
                }
                if e.rolls_left > 0 && !outside_movable(&self.st, seat).is_empty() {
                    e.step = ExecStep::Roll;
                    self.set_exec(e);
                } else {
                    if start {
                        self.skip("destiny_roll");
                    }
                    self.finish_card(e.card, !start);
                }
            }
            DestinyKind::Rampage => {
                if start && !free_movable(&self.st, seat).is_empty() {
                    e.step = ExecStep::Roll;
                    self.set_exec(e);
                } else {
                    self.finish_card(e.card, !start);
                }
            }
            DestinyKind::Distribute => {
                if start {
                    if outside_movable(&self.st, seat).is_empty() {
                        // BD-350: no pawn to move: a support card instead.
                        self.finish_card(e.card, true);
                        self.draw_support(seat);
                        return;
                    }
                    e.step = ExecStep::Roll;
                    self.set_exec(e);
                } else if e.value > 0 && destiny_moves(&self.st, seat, &e).1 {
                    e.step = ExecStep::Move;
                    self.set_exec(e);
                } else {
                    self.finish_card(e.card, true);
                }
            }
            DestinyKind::DrawOrRoll => {
                if start {
                    e.step = ExecStep::Choice;
                    self.set_exec(e);
                } else if e.rolls_left > 0 && !free_movable(&self.st, seat).is_empty() {
                    e.step = ExecStep::Roll;
                    self.set_exec(e);
                } else {
                    self.finish_card(e.card, true);
                }
            }
        }
    }

    pub(super) fn destiny_command(
        &mut self,
        actor: Seat,
        cmd: &Command,
        mut e: Exec,
        w: &Awaiting,
    ) -> Res {
        match e.step {
            ExecStep::Choice => self.destiny_choice(actor, cmd, e, w),
            ExecStep::Roll => match cmd {
                Command::RollDie => {
                    let two = matches!(
                        e.card.kind(),
                        DestinyKind::Rampage | DestinyKind::Distribute
                    );
                    let mut v = self.roll(actor, RollContext::Destiny, 10);
                    if two {
                        v += self.roll(actor, RollContext::Destiny, 10);
                    }
                    e.value = v;
                    e.rolls_left = e.rolls_left.saturating_sub(1);
                    if destiny_moves(&self.st, actor, &e).1 {
                        e.step = ExecStep::Move;
                    } else {
                        self.skip("destiny_move");
                        e.step = ExecStep::Next;
                        if two {
                            e.value = 0;
                        }
                    }
                    self.set_exec(e);
                    self.resume();
                    Ok(())
                }
                Command::Pass => {
                    ensure(is_permission(e.card), "BD-306", || {
                        "this card's rolls are compulsory".into()
                    })?;
                    self.finish_card(e.card, true);
                    self.resume();
                    Ok(())
                }
                _ => Err(rv("BD-305", "roll the die")),
            },
            ExecStep::Move => match cmd {
                Command::MovePawn {
                    pawn,
                    path,
                    ticket_card,
                    jetpack_cards,
                    piggyback_card,
                } => {
                    self.check_mover(actor, *pawn)?;
                    ensure(
                        destiny_movers(&self.st, actor, &e).contains(pawn),
                        match e.card.kind() {
                            DestinyKind::Distribute => "BD-350",
                            DestinyKind::Rampage | DestinyKind::DrawOrRoll => "BD-305",
                            _ => "BD-305",
                        },
                        || format!("{pawn} may not move for this card"),
                    )?;
                    let cards =
                        self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                    let info = match e.card.kind() {
                        DestinyKind::Rampage => {
                            movement::check_rampage(&self.st, *pawn, path, e.value, cards)?
                        }
                        DestinyKind::Distribute => {
                            ensure(path.len() <= usize::from(e.value), "BD-350", || {
                                format!("at most {} points are left", e.value)
                            })?;
                            movement::check_path(&self.st, *pawn, path, path.len() as u8, cards)?
                        }
                        _ => movement::check_path(&self.st, *pawn, path, e.value, cards)?,
                    };
                    match e.card.kind() {
                        DestinyKind::Distribute => {
                            e.value -= path.len() as u8;
                            e.moved.push(*pawn);
                        }
                        DestinyKind::Rampage => e.value = 0,
                        _ => {}
                    }
                    e.step = ExecStep::Next;
                    self.set_exec(e);
                    let captured = info.captured.clone();
                    self.do_move(
                        actor,
                        *pawn,
                        path,
                        &info,
                        *ticket_card,
                        jetpack_cards,
                        *piggyback_card,
                        &captured,
                    );
                    self.resume();
                    Ok(())
                }
                Command::Pass => {
                    ensure(w.kinds.contains(&"pass"), "BD-306", || {
                        "this roll must be used".into()
                    })?;
                    if e.card.kind() == DestinyKind::Distribute
                        || e.card.kind() == DestinyKind::Rampage
                    {
                        e.value = 0;
                    }
                    e.step = ExecStep::Next;
                    self.set_exec(e);
                    self.resume();
                    Ok(())
                }
                _ => Err(rv("BD-305", "move a pawn with the roll")),
            },
            ExecStep::Lawyer => match cmd {
                Command::PlayCard { card, .. } => {
                    self.check_card(actor, *card, SupportKind::Lawyer)?;
                    self.emit(Event::CardPlayed {
                        seat: actor,
                        card: *card,
                        pawn: e.target,
                    });
                    if let Some(t) = e.target {
                        self.emit(Event::AccusationCancelled { pawn: t });
                    }
                    self.finish_card(e.card, true);
                    self.resume();
                    Ok(())
                }
                Command::Pass => {
                    e.next += 1;
                    if usize::from(e.next) >= e.window.len() {
                        let node = e.target.map(|t| self.st.pos(t)).unwrap_or(NOWHERE);
                        let unit: Vec<Pawn> = self.st.at(node).to_vec();
                        for p in unit {
                            self.imprison(p);
                        }
                        self.finish_card(e.card, true);
                    } else {
                        self.set_exec(e);
                    }
                    self.resume();
                    Ok(())
                }
                _ => Err(rv("BD-320", "play a Lawyer or pass")),
            },
            ExecStep::Start | ExecStep::Next => Err(rv("BD-006", "no decision is pending")),
        }
    }

    pub(super) fn destiny_choice(
        &mut self,
        actor: Seat,
        cmd: &Command,
        mut e: Exec,
        w: &Awaiting,
    ) -> Res {
        let (option, pawn, target_pawn, target_player, steps, mode, piggy) = match cmd {
            Command::ResolveDestiny {
                option,
                pawn,
                target_pawn,
                target_player,
                steps,
                mode,
                piggyback_card,
            } => (
                *option,
                *pawn,
                *target_pawn,
                *target_player,
                *steps,
                *mode,
                *piggyback_card,
            ),
            Command::Pass => {
                ensure(w.kinds.contains(&"pass"), "BD-304", || {
                    "this card needs a choice".into()
                })?;
                self.finish_card(e.card, false);
                self.resume();
                return Ok(());
            }
            _ => return Err(rv("BD-304", "resolve the destiny card")),
        };
        match e.card.kind() {
            DestinyKind::Detective | DestinyKind::ExpressEscape => {
                let subs = subjects(&self.st, actor, &e);
                let subject = match (pawn, subs.as_slice()) {
                    (Some(p), _) if subs.contains(&p) => p,
                    (None, [only]) if e.subject == Some(*only) => *only,
                    _ => {
                        return Err(rv(
                            "BD-303",
                            "name an own free movable pawn as the card's subject",
                        ));
                    }
                };
                let rule = if e.card.kind() == DestinyKind::Detective {
                    "BD-310"
                } else {
                    "BD-360"
                };
                let option = option.ok_or_else(|| rv(rule, "choose an option"))?;
                match (e.card.kind(), option) {
                    (DestinyKind::Detective, DestinyOption::BehindOpponent) => {
                        // BD-310a / BD-198
                        let dest = behind_opponent(&self.st, subject).ok_or_else(|| {
                            rv(
                                "BD-310",
                                "no opponent ahead on the ring (or not on the ring)",
                            )
                        })?;
                        self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                        e.step = ExecStep::Next;
                        self.set_exec(e);
                        self.place(actor, subject, dest, piggy);
                    }
                    (DestinyKind::Detective, DestinyOption::LastLawyer) => {
                        let dest = last_lawyer(&self.st, subject)
                            .ok_or_else(|| rv("BD-310", "no lawyer space behind"))?;
                        self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                        e.step = ExecStep::Next;
                        self.set_exec(e);
                        self.place(actor, subject, dest, piggy);
                    }
                    (DestinyKind::ExpressEscape, DestinyOption::Train) => {
                        // BD-361
                        let (dep, station) =
                            nearest_express(&self.st, subject).ok_or_else(|| {
                                rv("BD-361", "the train is only reached from the ring")
                            })?;
                        self.check_placement(actor, subject, station, piggy, "BD-361")?;
                        e.step = ExecStep::Next;
                        self.set_exec(e);
                        let start = self.st.pos(subject);
                        self.tower_falls(subject, &[start, dep]);
                        if start != dep {
                            self.emit(Event::PawnPlaced {
                                pawn: subject,
                                to: dep,
                            });
                        }
                        self.ride(actor, subject, dep, station, piggy);
                    }
                    (DestinyKind::ExpressEscape, DestinyOption::Back) => {
                        // BD-362
                        let k = steps.ok_or_else(|| rv("BD-362", "name 1 to 6 steps"))?;
                        ensure((1..=6).contains(&k), "BD-362", || {
                            "1 to 6 steps back".into()
                        })?;
                        let path = back_path(&self.st, subject, k).ok_or_else(|| {
                            rv("BD-362", format!("there are fewer than {k} spaces behind"))
                        })?;
                        let last = *path.last().ok_or_else(|| rv("BD-362", "empty"))?;
                        self.check_placement(actor, subject, last, piggy, "BD-362")?;
                        e.step = ExecStep::Next;
                        self.set_exec(e);
                        let info = PathInfo {
                            end: End::Empty,
                            jetpacks: 0,
                            entered: false,
                            captured: vec![],
                        };
                        self.do_move(actor, subject, &path, &info, None, &[], piggy, &[]);
                    }
                    _ => return Err(rv(rule, "that option is not on this card")),
                }
            }
            DestinyKind::Accusation => {
                let t = target_pawn.ok_or_else(|| rv("BD-320", "name the accused pawn"))?;
                ensure(
                    accusation_targets(&self.st, actor).contains(&t),
                    "BD-320",
                    || format!("{t} cannot be accused (own, not free, or on a lawyer space)"),
                )?;
                let node = self.st.pos(t);
                let mut window = Vec::new();
                for &p in self.st.at(node) {
                    if let Some(o) = self.st.owner(p)
                        && o != actor
                        && !window.contains(&o)
                    {
                        window.push(o);
                    }
                }
                e.target = Some(t);
                e.window = window;
                e.next = 0;
                e.step = ExecStep::Lawyer;
                self.set_exec(e);
            }
            DestinyKind::GrandTour => {
                let f = self
                    .st
                    .pawns_of(actor)
                    .filter(|&p| self.st.is_free(p))
                    .count() as u8;
                let m = mode.ok_or_else(|| rv("BD-332", "choose pairs or each"))?;
                e.rolls_left = match m {
                    TourMode::Pairs => 2 * f.min(3),
                    TourMode::Each => {
                        ensure(f >= 4, "BD-332", || {
                            "one roll per pawn needs four free pawns".into()
                        })?;
                        f
                    }
                };
                e.step = ExecStep::Next;
                self.set_exec(e);
            }
            DestinyKind::DrawOrRoll => match option {
                Some(DestinyOption::Draw) => {
                    let card = self.st.destiny_deck.front().copied();
                    self.finish_card(e.card, true);
                    if let Some(card) = card {
                        self.emit(Event::DestinyCardDrawn { seat: actor, card });
                        self.queue_destiny(vec![card], None);
                    }
                }
                Some(DestinyOption::Roll) => {
                    e.rolls_left = 2;
                    e.step = ExecStep::Next;
                    self.set_exec(e);
                }
                _ => return Err(rv("BD-351", "choose draw or roll")),
            },
            DestinyKind::Interrogation => {
                let t =
                    target_player.ok_or_else(|| rv("BD-370", "name the interrogated player"))?;
                ensure(self.st.is_seat(t) && t != actor, "BD-370", || {
                    "name another player".into()
                })?;
                self.emit(Event::InterrogationPlaced { target: t });
                if let Some(Frame::Destiny(d)) = self.st.ctl.stack.last_mut() {
                    d.exec = None;
                }
            }
            _ => return Err(rv("BD-304", "this card needs no choice")),
        }
        self.resume();
        Ok(())
    }
}
