//! BD-515: a rampage or distribute move is sent in segments of at most [`SEGMENT`] steps;
//! BD-517 (event schema 5): so is every other pawn move whose path may be longer (a turn
//! roll of 6 to 10, a bonus move of 6, an outing's or draw-or-roll's move).
//!
//! Such a move may run 40 steps and more (a rampage gains 3 steps per pawn captured; a
//! distribute share may use 20 points), and every whole path of every pawn, even as a prefix
//! tree, no longer fits a phone's prompt (issue 15). So the player sends it as they would
//! move the pawn on the table: `move_segment`s of exactly [`SEGMENT`] steps that go on, then a
//! `move_pawn` of 1 to [`SEGMENT`] steps that ends it and names the cards of the whole path.
//! The legal moves are the same (a move is accepted iff its whole path is); a segment is
//! accepted only if some legal move the player can afford goes on from it, so a begun move can
//! always be finished, and it must be (no `pass` once begun). The pawn moves — captures,
//! arrival, cards played — only when the move is whole, in the one `pawn_moved` of the whole
//! path; the segments are recorded as `move_segment_chosen` facts (the player's choice).

use super::super::board::Node;
use super::super::command::Command;
use super::super::event::Event;
use super::super::evolve::control::{Pending, SEGMENT, pending};
use super::super::movement::{self, Candidate, End};
use super::super::state::*;
use crate::decider::{Decided, ensure, says, violation};
use crate::engine::Seat;
use std::borrow::Cow;

/// The steps already chosen of `pawn`'s move (empty when none, or when they are another
/// pawn's).
fn so_far(st: &State, pawn: Pawn) -> &[Node] {
    match &st.ctl.moving {
        Some(m) if m.pawn == pawn => &m.path,
        _ => &[],
    }
}

/// The whole legal paths of `pawn` for the segmented move `pm` that go on from the steps
/// chosen so far, each cut to what is left after them (cards as for the whole path). None
/// when another pawn's move is under way.
pub fn rests(st: &State, pawn: Pawn, pm: &Pending) -> Vec<Candidate> {
    if st.ctl.moving.as_ref().is_some_and(|m| m.pawn != pawn) {
        return Vec::new();
    }
    let done = so_far(st, pawn);
    movement::candidates_up_to(st, pawn, pm.len, true, usize::MAX)
        .into_iter()
        .filter(|c| c.path.len() > done.len() && c.path.starts_with(done))
        .map(|mut c| {
            c.path.drain(..done.len());
            c
        })
        .collect()
}

/// Whether `seat` holds usable cards of the kinds and number the whole path needs (any ids,
/// BD-514): a ticket of its kind, its Jet-packs, a Sur le dos onto an own pawn.
pub fn affordable(st: &State, seat: Seat, c: &Candidate) -> bool {
    let has = |kind| !st.usable_of_kind(seat, kind).is_empty();
    c.ticket.is_none_or(has)
        && st.usable_of_kind(seat, SupportKind::Jetpack).len() >= c.jetpacks
        && (c.end != End::Own || has(SupportKind::Piggyback))
}

/// What `decide` does with a command once BD-515 is applied.
pub enum Prepared<'a> {
    /// A `move_segment`, accepted: its fact.
    Segment(Event),
    /// The command to decide as before (a `move_pawn` after segments carries the whole path).
    Whole(Cow<'a, Command>),
}

/// BD-515 / BD-517 on `cmd` from `actor` (the seat to act).
pub fn prepare<'a>(st: &State, actor: Seat, cmd: &'a Command) -> Decided<Prepared<'a>> {
    let pm = pending(st);
    let moving = st.ctl.moving.as_ref();
    match (cmd, pm) {
        (Command::MoveSegment { pawn, path }, Some(pm)) => {
            if let Some(m) = moving {
                ensure(m.pawn == *pawn, pm.rule, || {
                    says("finish_move_pawn_first").arg("pawn", m.pawn)
                })?;
            }
            ensure(path.len() == SEGMENT, pm.rule, || {
                says("segment_does_not_end_move_has").arg("steps", SEGMENT)
            })?;
            ensure(
                st.owner(*pawn) == Some(actor) && pm.movers.contains(pawn),
                pm.mover_rule,
                || says("pawn_may_not_make_this_move").arg("pawn", pawn),
            )?;
            let goes_on = rests(st, *pawn, &pm).iter().any(|c| {
                c.path.len() > path.len() && c.path.starts_with(path) && affordable(st, actor, c)
            });
            ensure(goes_on, pm.rule, || says("no_legal_move_can_make_goes"))?;
            Ok(Prepared::Segment(Event::MoveSegmentChosen {
                seat: actor,
                pawn: *pawn,
                path: path.clone(),
            }))
        }
        (Command::MoveSegment { .. }, None) if st.all_moves_in_segments => Err(violation(
            "BD-517",
            says("only_move_longer_than_segment_sent").arg("steps", SEGMENT),
        )),
        (Command::MoveSegment { .. }, None) => Err(violation(
            "BD-515",
            says("only_rampage_distribute_move_sent_segments"),
        )),
        (Command::MovePawn { pawn, path, .. }, Some(pm)) => {
            ensure(path.len() <= SEGMENT, pm.rule, || {
                says("move_more_than_segment_steps_sent").arg("steps", SEGMENT)
            })?;
            let Some(m) = moving else {
                return Ok(Prepared::Whole(Cow::Borrowed(cmd)));
            };
            ensure(m.pawn == *pawn, pm.rule, || {
                says("finish_move_pawn_first").arg("pawn", m.pawn)
            })?;
            ensure(!path.is_empty(), pm.rule, || {
                says("move_goes_from_steps_chosen_least")
            })?;
            Ok(Prepared::Whole(Cow::Owned(whole_move(cmd, &m.path))))
        }
        (_, Some(pm)) if moving.is_some() => Err(violation(
            pm.rule,
            says("finish_move_begun_move_segment_move"),
        )),
        _ => Ok(Prepared::Whole(Cow::Borrowed(cmd))),
    }
}

/// The `move_pawn` that ends a move begun, with the steps chosen before it: the whole move.
fn whole_move(cmd: &Command, before: &[Node]) -> Command {
    let mut cmd = cmd.clone();
    if let Command::MovePawn { path, .. } = &mut cmd {
        let mut whole = before.to_vec();
        whole.extend_from_slice(path);
        *path = whole;
    }
    cmd
}
