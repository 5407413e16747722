//! BD-515: a rampage or distribute move is sent in segments of at most [`SEGMENT`] steps.
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
use super::super::movement::{self, Candidate, End};
use super::super::state::*;
use super::destiny::{destiny_len, destiny_movers};
use crate::decider::{Decided, ensure, says, violation};
use crate::engine::Seat;
use std::borrow::Cow;

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

/// The card being executed when the pending decision is a segmented destiny move.
pub fn segmented_exec(st: &State) -> Option<&Exec> {
    match st.ctl.stack.last() {
        Some(Frame::Destiny(DestinyQueue { exec: Some(e), .. }))
            if e.step == ExecStep::Move && segmented(st, e.card) =>
        {
            Some(e)
        }
        _ => None,
    }
}

/// The steps already chosen of `pawn`'s move (empty when none, or when they are another
/// pawn's).
fn so_far(st: &State, pawn: Pawn) -> &[Node] {
    match &st.ctl.moving {
        Some(m) if m.pawn == pawn => &m.path,
        _ => &[],
    }
}

/// The whole legal paths of `pawn` for the segmented move `e` that go on from the steps
/// chosen so far, each cut to what is left after them (cards as for the whole path). None
/// when another pawn's move is under way.
pub fn rests(st: &State, pawn: Pawn, e: &Exec) -> Vec<Candidate> {
    if st.ctl.moving.as_ref().is_some_and(|m| m.pawn != pawn) {
        return Vec::new();
    }
    let done = so_far(st, pawn);
    movement::candidates_up_to(st, pawn, destiny_len(e), true, usize::MAX)
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

/// BD-515 on `cmd` from `actor` (the seat to act).
pub fn prepare<'a>(st: &State, actor: Seat, cmd: &'a Command) -> Decided<Prepared<'a>> {
    let exec = segmented_exec(st);
    let moving = st.ctl.moving.as_ref();
    match (cmd, exec) {
        (Command::MoveSegment { pawn, path }, Some(e)) => {
            if let Some(m) = moving {
                ensure(m.pawn == *pawn, "BD-515", || {
                    says("finish_move_pawn_first").arg("pawn", m.pawn)
                })?;
            }
            ensure(path.len() == SEGMENT, "BD-515", || {
                says("segment_does_not_end_move_has").arg("steps", SEGMENT)
            })?;
            let rule = match e.card.kind() {
                DestinyKind::Distribute => "BD-505",
                _ => "BD-305",
            };
            ensure(
                st.owner(*pawn) == Some(actor) && destiny_movers(st, actor, e).contains(pawn),
                rule,
                || says("pawn_may_not_move_card").arg("pawn", pawn),
            )?;
            let goes_on = rests(st, *pawn, e).iter().any(|c| {
                c.path.len() > path.len() && c.path.starts_with(path) && affordable(st, actor, c)
            });
            ensure(goes_on, "BD-515", || says("no_legal_move_can_make_goes"))?;
            Ok(Prepared::Segment(Event::MoveSegmentChosen {
                seat: actor,
                pawn: *pawn,
                path: path.clone(),
            }))
        }
        (Command::MoveSegment { .. }, None) => Err(violation(
            "BD-515",
            says("only_rampage_distribute_move_sent_segments"),
        )),
        (
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            },
            Some(_),
        ) => {
            ensure(path.len() <= SEGMENT, "BD-515", || {
                says("move_more_than_segment_steps_sent").arg("steps", SEGMENT)
            })?;
            let Some(m) = moving else {
                return Ok(Prepared::Whole(Cow::Borrowed(cmd)));
            };
            ensure(m.pawn == *pawn, "BD-515", || {
                says("finish_move_pawn_first").arg("pawn", m.pawn)
            })?;
            ensure(!path.is_empty(), "BD-515", || {
                says("move_goes_from_steps_chosen_least")
            })?;
            let mut whole = m.path.clone();
            whole.extend_from_slice(path);
            Ok(Prepared::Whole(Cow::Owned(Command::MovePawn {
                pawn: *pawn,
                path: whole,
                ticket_card: *ticket_card,
                jetpack_cards: jetpack_cards.clone(),
                piggyback_card: *piggyback_card,
            })))
        }
        (_, Some(_)) if moving.is_some() => Err(violation(
            "BD-515",
            says("finish_move_begun_move_segment_move"),
        )),
        _ => Ok(Prepared::Whole(Cow::Borrowed(cmd))),
    }
}
