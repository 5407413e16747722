//! Destiny cards (§3.14): queries (subjects, options, targets, movers) and the execution of
//! the queue, one card at a time.

use super::{Awaiting, Cx, free_movable, outside_movable};
use crate::bandits::board::{Node, Zone, board};
use crate::bandits::command::{Command, DestinyOption, TourMode};
use crate::bandits::event::{Event, RollContext};
use crate::bandits::movement::{self, End, Len, PathInfo};
use crate::bandits::state::*;
use crate::decider::{Decided, ensure, says, violation};
use crate::engine::Seat;

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

/// BD-361 / BD-507: the nearest express departure the pawn can reach (distance ≥ 0) and its
/// station. From the ring: clockwise. From Huntington: along the tram edges its ticket allows,
/// out by a red exit, then clockwise (ties, impossible on this board, go to the first found in
/// the board's edge order). From a lane or a property none is reachable.
pub fn nearest_express(st: &State, pawn: Pawn) -> Option<(Node, Node)> {
    let b = board();
    let start = st.pos(pawn);
    if !st.on_ring(pawn) && !st.in_huntington(pawn) {
        return None;
    }
    if let Some(station) = b.info(start).station {
        return Some((start, station));
    }
    let way = forward_way(st, pawn, |n| b.info(n).station.is_some())?;
    let dep = *way.last()?;
    Some((dep, b.info(dep).station?))
}

/// Breadth-first from `pawn`'s node along the steps it may take playing no card (its ticket's
/// edges in Huntington, clockwise on the ring): the way `[start, …, n]` to the first node `n`
/// that `found` accepts (ties go to the first found in the board's edge order).
fn forward_way(st: &State, pawn: Pawn, found: impl Fn(Node) -> bool) -> Option<Vec<Node>> {
    let b = board();
    let start = st.pos(pawn);
    let tk = if st.in_huntington(pawn) {
        st.active_ticket(pawn)
            .map(|t| movement::Tk::of(t.card.kind()))
            .unwrap_or(movement::Tk::None)
    } else {
        movement::Tk::None
    };
    let mut came_from: Vec<Option<Node>> = vec![None; b.nodes.len()];
    let mut seen = vec![false; b.nodes.len()];
    seen[start.idx()] = true;
    let mut queue = std::collections::VecDeque::from([(start, tk)]);
    while let Some((cur, tk)) = queue.pop_front() {
        for &(to, _, _) in &b.out[cur.idx()] {
            if seen[to.idx()] {
                continue;
            }
            let Ok(ntk) = movement::step_rule(pawn, cur, to, tk, movement::Tk::None) else {
                continue;
            };
            seen[to.idx()] = true;
            came_from[to.idx()] = Some(cur);
            if found(to) {
                let mut way = vec![to];
                let mut n = cur;
                while n != start {
                    way.push(n);
                    n = came_from[n.idx()]?;
                }
                way.push(start);
                way.reverse();
                return Some(way);
            }
            queue.push_back((to, ntk));
        }
    }
    None
}

/// BD-386 for a placement: the way `pawn` takes to `dest`, `[start, …, dest]` — the cards'
/// « CHEMIN LE PLUS COURT DANS LE SENS DU DÉPLACEMENT » forward (clockwise on the ring, along
/// its ticket's edges in Huntington: Surveiller, Détective's first option, Évasion's train),
/// or back along `back` pointers (Détective's last lawyer space). `[start, dest]` if none.
pub fn way_to(st: &State, pawn: Pawn, dest: Node, backward: bool) -> Vec<Node> {
    let b = board();
    let start = st.pos(pawn);
    if start == dest {
        return vec![start];
    }
    if backward {
        let mut way = vec![start];
        let mut n = start;
        for _ in 0..200 {
            match b.info(n).back {
                Some(x) => {
                    way.push(x);
                    if x == dest {
                        return way;
                    }
                    n = x;
                }
                None => break,
            }
        }
        return vec![start, dest];
    }
    forward_way(st, pawn, |n| n == dest).unwrap_or_else(|| vec![start, dest])
}

/// BD-507: how Évasion express's train goes for `pawn` from `dep` to `station`: `Some(true)`
/// when it can ride without a card (the station is empty or holds opponents: a fight),
/// `Some(false)` when it stops on the departure (an own pawn holds the station), `None` when
/// neither works without a Sur le dos (an own pawn on the departure too).
pub fn train_without_card(st: &State, pawn: Pawn, dep: Node, station: Node) -> Option<bool> {
    let owner = st.owner(pawn);
    let own_on = |n: Node| st.at(n).iter().any(|&p| p != pawn && st.owner(p) == owner);
    if !own_on(station) {
        Some(true)
    } else if !own_on(dep) {
        Some(false)
    } else {
        None
    }
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
/// needs a Sur le dos: an own pawn there needs one (BD-085, BD-380), wherever it stands
/// (BD-518; on ring nodes only in a game begun before it, BD-381).
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
    if st.piggyback_anywhere {
        return Some((end, end == End::Own));
    }
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
            // BD-507: rides (a fight or a Sur le dos for an occupied station), or stops on the
            // departure when an own pawn holds the station.
            if let Some((dep, station)) = nearest_express(st, pawn) {
                let free = train_without_card(st, pawn, dep, station).is_some();
                if free || !st.at(station).is_empty() {
                    out.push((DestinyOption::Train, None, !free));
                }
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
        // BD-505: any free pawn outside Huntington, as often as the points allow.
        DestinyKind::Distribute => outside_movable(st, seat),
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

/// What a `resolve_destiny` names for a Détective or an Évasion express.
struct SubjectChoice {
    pawn: Option<Pawn>,
    option: Option<DestinyOption>,
    steps: Option<u8>,
    piggy: Option<Card>,
}

impl Cx<'_> {
    // ------------------------------------------------------------------ destiny cards

    /// The automatic steps of the card being executed that record something: its end, a
    /// skipped decision, the unit of an unanswered accusation going to prison.
    pub(super) fn exec_auto(&mut self, e: Exec) -> bool {
        let seat = self.active();
        let start = e.step == ExecStep::Start;
        match e.step {
            ExecStep::Start | ExecStep::Next => match e.card.kind() {
                // BD-304 / BD-363: a card with no possible option has no effect.
                DestinyKind::Detective
                | DestinyKind::ExpressEscape
                | DestinyKind::Accusation
                | DestinyKind::Rampage
                | DestinyKind::DrawOrRoll => self.finish_card(e.card, !start),
                DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour => {
                    if start {
                        self.skip("destiny_roll");
                    }
                    self.finish_card(e.card, !start);
                }
                DestinyKind::Distribute => {
                    self.finish_card(e.card, true);
                    if start {
                        // BD-350: no pawn to move: a support card instead.
                        self.draw_support(seat);
                    }
                }
                DestinyKind::Interrogation => return false,
            },
            ExecStep::Rolled => self.skip("destiny_move"),
            ExecStep::Lawyer if usize::from(e.next) >= e.window.len() => {
                // BD-320: nobody played a Lawyer: the whole unit goes to prison.
                let node = e.target.map(|t| self.state().pos(t)).unwrap_or(NOWHERE);
                let unit: Vec<Pawn> = self.state().at(node).to_vec();
                for p in unit {
                    self.imprison(p);
                }
                self.finish_card(e.card, true);
            }
            _ => return false,
        }
        true
    }

    pub(super) fn finish_card(&mut self, card: Destiny, effect: bool) {
        self.emit(Event::DestinyCardResolved { card, effect });
    }

    pub(super) fn skip(&mut self, decision: &str) {
        let seat = self.active();
        self.emit(Event::DecisionSkipped {
            seat,
            decision: decision.into(),
        });
    }

    /// A command while a destiny card is executed: the step of the card decides what it may
    /// be (§3.14).
    pub(super) fn destiny_command(
        &mut self,
        actor: Seat,
        cmd: &Command,
        e: Exec,
        w: &Awaiting,
    ) -> Decided {
        match e.step {
            ExecStep::Choice => self.destiny_choice(actor, cmd, e, w),
            ExecStep::Roll => self.destiny_roll(actor, cmd, &e),
            ExecStep::Move => self.destiny_move(actor, cmd, &e, w),
            ExecStep::Lawyer => self.accusation_lawyer(actor, cmd, &e),
            _ => Err(violation("BD-006", says("no_decision_pending"))),
        }
    }

    /// The card's roll: rolled, or passed for a permission (BD-305, BD-306).
    fn destiny_roll(&mut self, actor: Seat, cmd: &Command, e: &Exec) -> Decided {
        match cmd {
            Command::RollDie {} => {
                // BD-305: the rampage and distribute roll twice with one command.
                self.roll(actor, RollContext::Destiny, 10);
                if crate::bandits::evolve::control::two_dice(e.card) {
                    self.roll(actor, RollContext::Destiny, 10);
                }
                Ok(())
            }
            Command::Pass {} => {
                ensure(is_permission(e.card), "BD-306", || {
                    says("card_rolls_compulsory")
                })?;
                self.finish_card(e.card, true);
                Ok(())
            }
            _ => Err(violation("BD-305", says("roll_die"))),
        }
    }

    /// The move the card's roll pays for (BD-305), or the pass a permission or a roll no
    /// pawn can use allows (BD-306, BD-505).
    fn destiny_move(&mut self, actor: Seat, cmd: &Command, e: &Exec, w: &Awaiting) -> Decided {
        match cmd {
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                self.check_mover(actor, *pawn)?;
                let rule = match e.card.kind() {
                    DestinyKind::Distribute => "BD-505",
                    _ => "BD-305",
                };
                ensure(
                    destiny_movers(self.state(), actor, e).contains(pawn),
                    rule,
                    || says("pawn_may_not_move_card").arg("pawn", pawn),
                )?;
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = self.check_destiny_path(*pawn, path, e, cards)?;
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
                Ok(())
            }
            Command::Pass {} => {
                let rule = if e.card.kind() == DestinyKind::Distribute {
                    "BD-505"
                } else {
                    "BD-306"
                };
                ensure(w.kinds.contains(&"pass"), rule, || {
                    says("roll_must_used_every_point_while")
                })?;
                self.control_only_pass(actor, "destiny_move");
                Ok(())
            }
            _ => Err(violation("BD-305", says("move_pawn_roll"))),
        }
    }

    /// The path of a destiny move, by the card's own length rule: a rampage's total with
    /// its captures (BD-340), a distribute share (BD-505), else the exact roll.
    fn check_destiny_path(
        &self,
        pawn: Pawn,
        path: &[Node],
        e: &Exec,
        cards: movement::MoveCards,
    ) -> Decided<PathInfo> {
        match e.card.kind() {
            DestinyKind::Rampage => {
                movement::check_rampage(self.state(), pawn, path, e.value, cards)
            }
            DestinyKind::Distribute => {
                // BD-505: a share of any length up to the points left.
                ensure(path.len() <= usize::from(e.value), "BD-505", || {
                    says("most_value_points_left").arg("value", e.value)
                })?;
                movement::check_path(self.state(), pawn, path, path.len() as u8, cards)
            }
            _ => movement::check_path(self.state(), pawn, path, e.value, cards),
        }
    }

    /// BD-320: the accusation's Lawyer window: a Lawyer cancels it, or the seat passes.
    fn accusation_lawyer(&mut self, actor: Seat, cmd: &Command, e: &Exec) -> Decided {
        match cmd {
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
                Ok(())
            }
            Command::Pass {} => {
                self.control_only_pass(actor, "lawyer_window");
                Ok(())
            }
            _ => Err(violation("BD-320", says("play_lawyer_pass"))),
        }
    }

    /// The choice a card asks for (`resolve_destiny`), or the pass allowed when every option
    /// needs a card (BD-304).
    pub(super) fn destiny_choice(
        &mut self,
        actor: Seat,
        cmd: &Command,
        e: Exec,
        w: &Awaiting,
    ) -> Decided {
        let Command::ResolveDestiny {
            option,
            pawn,
            target_pawn,
            target_player,
            steps,
            mode,
            piggyback_card,
        } = cmd
        else {
            return match cmd {
                Command::Pass {} => {
                    ensure(w.kinds.contains(&"pass"), "BD-304", || {
                        says("card_needs_choice")
                    })?;
                    self.finish_card(e.card, false);
                    Ok(())
                }
                _ => Err(violation("BD-304", says("resolve_destiny_card"))),
            };
        };
        match e.card.kind() {
            DestinyKind::Detective | DestinyKind::ExpressEscape => {
                let choice = SubjectChoice {
                    pawn: *pawn,
                    option: *option,
                    steps: *steps,
                    piggy: *piggyback_card,
                };
                self.subject_choice(actor, &e, choice)
            }
            DestinyKind::Accusation => self.accuse(actor, *target_pawn),
            DestinyKind::GrandTour => self.grand_tour(actor, e.card, *mode),
            DestinyKind::DrawOrRoll => self.draw_or_roll(actor, e.card, *option),
            DestinyKind::Interrogation => self.interrogate(actor, *target_player),
            _ => Err(violation("BD-304", says("card_needs_no_choice"))),
        }
    }

    /// Détective (BD-310) and Évasion express (BD-360): the subject (BD-303), then the
    /// option.
    fn subject_choice(&mut self, actor: Seat, e: &Exec, choice: SubjectChoice) -> Decided {
        let SubjectChoice {
            pawn,
            option,
            steps,
            piggy,
        } = choice;
        let subs = subjects(self.state(), actor, e);
        let subject = match (pawn, subs.as_slice()) {
            (Some(p), _) if subs.contains(&p) => p,
            (None, [only]) if e.subject == Some(*only) => *only,
            _ => {
                return Err(violation("BD-303", says("name_own_free_movable_pawn_card")));
            }
        };
        let rule = if e.card.kind() == DestinyKind::Detective {
            "BD-310"
        } else {
            "BD-360"
        };
        let option = option.ok_or_else(|| violation(rule, says("choose_option")))?;
        match (e.card.kind(), option) {
            (DestinyKind::Detective, DestinyOption::BehindOpponent) => {
                // BD-310a
                let dest = behind_opponent(self.state(), subject)
                    .ok_or_else(|| violation("BD-310", says("no_opponent_ahead_ring_not_ring")))?;
                self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                self.place(actor, subject, dest, piggy, false);
            }
            (DestinyKind::Detective, DestinyOption::LastLawyer) => {
                // BD-310b
                let dest = last_lawyer(self.state(), subject)
                    .ok_or_else(|| violation("BD-310", says("no_lawyer_space_behind")))?;
                self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                self.place(actor, subject, dest, piggy, true);
            }
            (DestinyKind::ExpressEscape, DestinyOption::Train) => {
                self.evasion_train(actor, subject, piggy)?
            }
            (DestinyKind::ExpressEscape, DestinyOption::Back) => {
                self.evasion_back(actor, subject, steps, piggy)?
            }
            _ => return Err(violation(rule, says("option_not_card"))),
        }
        Ok(())
    }

    /// BD-362: Évasion express `back`: 1 to 6 steps back along `back` pointers.
    fn evasion_back(
        &mut self,
        actor: Seat,
        subject: Pawn,
        steps: Option<u8>,
        piggy: Option<Card>,
    ) -> Decided {
        let k = steps.ok_or_else(|| violation("BD-362", says("name_1_to_6_steps")))?;
        ensure((1..=6).contains(&k), "BD-362", || says("1_to_6_steps_back"))?;
        let path = back_path(self.state(), subject, k).ok_or_else(|| {
            violation("BD-362", says("there_fewer_than_spaces_behind").arg("k", k))
        })?;
        let last = *path
            .last()
            .ok_or_else(|| violation("BD-362", says("empty")))?;
        self.check_placement(actor, subject, last, piggy, "BD-362")?;
        let info = PathInfo {
            end: End::Empty,
            jetpacks: 0,
            entered: false,
            captured: vec![],
        };
        self.do_move(actor, subject, &path, &info, None, &[], piggy, &[]);
        Ok(())
    }

    /// BD-320: the accused pawn: another player's free pawn off the lawyer spaces.
    fn accuse(&mut self, actor: Seat, target: Option<Pawn>) -> Decided {
        let t = target.ok_or_else(|| violation("BD-320", says("name_accused_pawn")))?;
        ensure(
            accusation_targets(self.state(), actor).contains(&t),
            "BD-320",
            || says("cannot_accused_own_not_free_lawyer").arg("t", t),
        )?;
        self.emit(Event::PawnAccused {
            seat: actor,
            pawn: t,
        });
        Ok(())
    }

    /// BD-332: the grand tour's rolls: by pairs, or one per pawn with four free pawns.
    fn grand_tour(&mut self, actor: Seat, card: Destiny, mode: Option<TourMode>) -> Decided {
        let f = self
            .state()
            .pawns_of(actor)
            .filter(|&p| self.state().is_free(p))
            .count() as u8;
        let m = mode.ok_or_else(|| violation("BD-332", says("choose_pairs_each")))?;
        let rolls = match m {
            TourMode::Pairs => 2 * f.min(3),
            TourMode::Each => {
                ensure(f >= 4, "BD-332", || says("one_roll_per_pawn_needs_four"))?;
                f
            }
        };
        self.control_only(Event::RollsGranted {
            seat: actor,
            card,
            rolls,
        });
        Ok(())
    }

    /// BD-351: draw the next destiny card, or roll twice for an own free pawn.
    fn draw_or_roll(
        &mut self,
        actor: Seat,
        card: Destiny,
        option: Option<DestinyOption>,
    ) -> Decided {
        match option {
            Some(DestinyOption::Draw) => {
                let next = self.state().destiny_deck.front().copied();
                self.finish_card(card, true);
                if let Some(next) = next {
                    self.emit(Event::DestinyCardDrawn {
                        seat: actor,
                        card: next,
                    });
                }
            }
            Some(DestinyOption::Roll) => {
                // BD-351: "for at least 1 pawn of your choice": a pawn must be there.
                ensure(
                    !free_movable(self.state(), actor).is_empty(),
                    "BD-351",
                    || says("no_own_free_pawn_can_move"),
                )?;
                self.emit(Event::RollsGranted {
                    seat: actor,
                    card,
                    rolls: 2,
                });
            }
            _ => return Err(violation("BD-351", says("choose_draw_roll"))),
        }
        Ok(())
    }

    /// BD-370: the interrogated player: another seat of the table.
    fn interrogate(&mut self, actor: Seat, target: Option<Seat>) -> Decided {
        let t = target.ok_or_else(|| violation("BD-370", says("name_interrogated_player")))?;
        ensure(self.state().is_seat(t) && t != actor, "BD-370", || {
            says("name_another_player")
        })?;
        self.emit(Event::InterrogationPlaced { target: t });
        Ok(())
    }

    /// BD-361 / BD-507: to the nearest reachable express departure, then the ride if
    /// possible: an occupied station is fought for (or climbed with a named Sur le dos); when
    /// an own pawn holds it and no Sur le dos is named, the pawn stops on the departure.
    fn evasion_train(&mut self, actor: Seat, subject: Pawn, piggy: Option<Card>) -> Decided {
        let (dep, station) = nearest_express(self.state(), subject)
            .ok_or_else(|| violation("BD-507", says("no_express_train_can_reached_from")))?;
        let rides = match piggy {
            Some(card) => {
                self.check_card(actor, card, SupportKind::Piggyback)?;
                ensure(!self.state().at(station).is_empty(), "BD-380", || {
                    says("sur_le_dos_needs_occupied_station")
                })?;
                true
            }
            None => train_without_card(self.state(), subject, dep, station).ok_or_else(|| {
                violation("BD-507", says("own_pawns_hold_both_departure_station"))
            })?,
        };
        let start = self.state().pos(subject);
        // BD-175: a bottom never rides with riders: its tower falls on its way to the
        // departure (BD-386), or, in a game begun before event schema 6, on its start node.
        let way = if self.state().towers_follow_placements {
            way_to(self.state(), subject, dep, false)
        } else {
            vec![start, dep]
        };
        self.tower_falls(subject, &way);
        if start != dep {
            self.emit(Event::PawnPlaced {
                pawn: subject,
                to: dep,
            });
            self.fix_tickets(&[subject]); // left Huntington (BD-194)
        }
        if rides {
            self.ride(actor, subject, dep, station, piggy);
        } else {
            self.emit(Event::ExpressMissed {
                pawn: subject,
                station,
            });
        }
        Ok(())
    }
}
