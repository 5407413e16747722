//! Steps several commands and the automatic continuation share: a paid step, an arrival,
//! draws from the reserve, the Englishman's move and its taxes, an agreed tie order.

use super::guards::step_cost;
use crate::decider::Scratch;
use crate::engine::{RngExt, Seat};
use crate::whisky_race::board::{MarkerId, board};
use crate::whisky_race::command::Piece;
use crate::whisky_race::event::*;
use crate::whisky_race::state::*;

pub(super) fn maybe_agreed(ctx: &mut Scratch<'_, State>, group: u8) {
    let Some(t) = ctx.state().ties.iter().find(|t| t.group == group) else {
        return;
    };
    if t.members.iter().all(|m| t.accepted.contains(m))
        && let Some(order) = t.proposal.clone()
    {
        ctx.emit(Event::OrderAgreed { group, order });
    }
}

/// One paid step forward (WR-047..WR-051), recording a finish arrival (WR-057, WR-130).
pub(super) fn one_step(ctx: &mut Scratch<'_, State>, seat: Seat) {
    let from = ctx.state().pawn(seat);
    let cost = step_cost(ctx.state(), seat, from);
    ctx.emit(Event::PawnStepped {
        seat,
        from,
        to: from + 1,
        cost,
    });
    if from + 1 == ctx.state().finish() {
        arrival(ctx, Piece::Pawn { seat });
    }
}

pub(super) fn arrival(ctx: &mut Scratch<'_, State>, piece: Piece) {
    let arrival = match piece {
        Piece::Pawn { .. } => Some(ctx.state().arrivals + 1),
        Piece::Englishman {} => None,
    };
    let triggers_end = ctx.state().trigger.is_none();
    ctx.emit(Event::FinishReached {
        piece,
        arrival,
        triggers_end,
    });
}

/// A uniformly random marker of the reserve (R1, R4).
pub(super) fn draw(ctx: &mut Scratch<'_, State>) -> Option<MarkerId> {
    let reserve = ctx.state().reserve();
    if reserve.is_empty() {
        return None;
    }
    Some(reserve[ctx.rng().index(reserve.len())])
}

/// Up to 3 markers from the reserve without replacement (R5).
pub(super) fn draw_offer(ctx: &mut Scratch<'_, State>) {
    let mut reserve = ctx.state().reserve();
    let mut markers = Vec::new();
    while markers.len() < board().c.variant_englishman_offer_size && !reserve.is_empty() {
        markers.push(reserve.swap_remove(ctx.rng().index(reserve.len())));
    }
    if !markers.is_empty() {
        ctx.emit(Event::EnglishmanOfferDrawn { markers });
    }
}

/// Skip-move of the Englishman (WR-118): (landing space, met seats in meeting order).
pub fn skip_move(s: &State, n: u8, dir: i32) -> (u8, Vec<Seat>) {
    let b = board();
    let mut met: Vec<Seat> = s.pawns_on(s.englishman).collect();
    let mut p = i32::from(s.englishman);
    if s.englishman == b.finish {
        return (b.finish, Vec::new()); // WR-116: a finished Englishman never moves.
    }
    let mut counted = 0;
    while counted < n {
        let q = p + dir;
        if q < i32::from(b.start) || q > i32::from(b.finish) {
            break;
        }
        p = q;
        if p == i32::from(b.finish) || p == i32::from(b.start) {
            break;
        }
        let here: Vec<Seat> = s.pawns_on(p as u8).collect();
        if here.is_empty() {
            counted += 1;
        } else {
            met.extend(here);
        }
    }
    (p as u8, met)
}

pub(super) fn move_englishman(
    ctx: &mut Scratch<'_, State>,
    n: u8,
    dir: i32,
    cause: EnglishmanCause,
) {
    let from = ctx.state().englishman;
    let (to, met) = skip_move(ctx.state(), n, dir);
    ctx.emit(Event::EnglishmanMoved {
        from,
        to,
        met: met.clone(),
        cause,
    });
    // WR-119, WR-155: each met player's tax is fixed now, on the whiskies he holds now.
    for seat in met {
        let whiskies: Vec<MarkerId> = ctx.state().whiskies_of(seat).collect();
        if whiskies.is_empty() {
            ctx.emit(Event::TaxNotOwed { seat });
        } else {
            ctx.emit(Event::TaxAssessed {
                seat,
                amount: whiskies.len() as u32 * board().c.tax_per_whisky,
                whiskies,
            });
        }
    }
    if to == ctx.state().finish() && from != to {
        arrival(ctx, Piece::Englishman {});
    }
}
