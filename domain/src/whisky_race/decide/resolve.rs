//! Veto windows and the resolution of declarations (§3.13), with their effects.

use super::guards::*;
use super::steps::*;
use crate::decider::Scratch;
use crate::engine::Seat;
use crate::whisky_race::board::{Family, Kind, MarkerId, board};
use crate::whisky_race::command::{Action, UseParams};
use crate::whisky_race::event::*;
use crate::whisky_race::state::*;

// ---------------------------------------------------------------------------------------------
// Resolution of declarations (§3.13)
// ---------------------------------------------------------------------------------------------

pub(super) fn next_vetoer(s: &State) -> Option<Seat> {
    let top = s.decls.last()?;
    let mut seat = top.cursor.next(s.seats);
    while seat != top.seat {
        if eligible_vetoer(s, seat, top.seat) {
            return Some(seat);
        }
        seat = seat.next(s.seats);
    }
    None
}

/// WR-091: last in, first out. A resolving veto cancels the declaration below it; a cancelled
/// veto lets it resolve.
pub(super) fn resolve_stack(ctx: &mut Scratch<'_, State>) {
    let mut resolves = true;
    while let Some(top) = ctx.state().decls.last().cloned() {
        let subject = top.what.subject();
        if resolves {
            ctx.emit(Event::DeclarationResolved {
                seat: top.seat,
                marker: subject,
            });
            effect(ctx, &top);
        } else {
            ctx.emit(Event::DeclarationCancelled {
                seat: top.seat,
                marker: subject,
            });
            cancelled(ctx, &top);
        }
        match top.what {
            Declared::Veto { .. } => resolves = !resolves,
            _ => break,
        }
    }
}

pub(super) fn cancelled(ctx: &mut Scratch<'_, State>, d: &Decl) {
    match &d.what {
        Declared::Veto { banff } => ctx.emit(Event::WhiskyTurnedUsed { whisky: *banff }),
        Declared::Use { whisky, .. } => {
            if !whisky.kind().is_continuous() {
                ctx.emit(Event::WhiskyTurnedUsed { whisky: *whisky });
            }
        }
        Declared::Activation { marker, .. } => {
            // WR-092: a vetoed brown marker goes to the reserve; a blue one stays.
            if marker.family() == Family::Brown {
                ctx.emit(Event::MarkerReturned { marker: *marker });
            }
        }
    }
}

pub(super) fn effect(ctx: &mut Scratch<'_, State>, d: &Decl) {
    let seat = d.seat;
    match &d.what {
        Declared::Veto { banff } => ctx.emit(Event::WhiskyTurnedUsed { whisky: *banff }),
        Declared::Activation { marker, action } => activation_effect(ctx, seat, *marker, action),
        Declared::Use { whisky, params } => {
            use_effect(ctx, seat, *whisky, params);
            if !whisky.kind().is_continuous() {
                ctx.emit(Event::WhiskyTurnedUsed { whisky: *whisky });
            }
        }
    }
}

pub(super) fn activation_effect(
    ctx: &mut Scratch<'_, State>,
    seat: Seat,
    marker: MarkerId,
    action: &Action,
) {
    match action {
        Action::Collect {} if marker.kind().is_malt_source() => {
            ctx.emit(Event::MaltSourceCollected {
                seat,
                marker,
                amount: marker.kind().value(),
            })
        }
        Action::Collect {} => ctx.emit(Event::CheckpointTaken { seat, marker }),
        Action::Sell { whisky, reward } => ctx.emit(Event::WhiskySold {
            seat,
            whisky: *whisky,
            reward: *reward,
        }),
        Action::Swap { marker_a, marker_b } => {
            if let (Loc::Space { space: space_a }, Loc::Space { space: space_b }) =
                (ctx.state().loc_of(*marker_a), ctx.state().loc_of(*marker_b))
            {
                ctx.emit(Event::MarkersSwapped {
                    marker_a: *marker_a,
                    space_a,
                    marker_b: *marker_b,
                    space_b,
                });
            }
        }
        Action::MoveEnglishman {
            direction,
            distance,
        } => {
            // WR-076, WR-077: same skip rule and tax as the end of round, no marker drawn.
            move_englishman(
                ctx,
                *distance,
                direction.sign(),
                EnglishmanCause::EnglishmanMarker,
            )
        }
        Action::Reactivate { whisky } => ctx.emit(Event::WhiskyReactivated {
            seat,
            whisky: *whisky,
        }),
        // WR-080, WR-158: the holy-place purchase happens once its veto window closed.
        Action::Buy { marker: Some(m) } => ctx.emit(Event::WhiskyBought {
            seat,
            marker: *m,
            price: board().c.holy_place_whisky_price,
        }),
        Action::Buy { marker: None } | Action::Decline {} => {}
    }
}

/// The effect of a whisky use that survived its veto window (§3.14).
pub(super) fn use_effect(
    ctx: &mut Scratch<'_, State>,
    seat: Seat,
    whisky: MarkerId,
    p: &UseParams,
) {
    match whisky.kind() {
        Kind::Banff => {
            if let Some(brora) = p.brora {
                ctx.emit(Event::BroraSuspended { brora });
            }
        }
        Kind::Benromach => benromach(ctx, seat),
        Kind::Coleraine => {
            if let Some(victim) = p.target {
                let amount = ctx.state().supply[victim.index()] / 2;
                if amount > 0 {
                    ctx.emit(Event::MaltStolen {
                        thief: seat,
                        victim,
                        amount,
                        from_chosen: false,
                    });
                }
            }
        }
        Kind::Convalmore => {
            if let (Some(target), Some(taken)) = (p.target, p.take)
                && ctx.state().holds(target, taken)
            {
                ctx.emit(Event::WhiskiesSwapped {
                    seat,
                    target,
                    given: whisky,
                    taken,
                });
            }
        }
        Kind::GlenMhor => {
            if let (Some(defender), Some(w)) = (p.target, p.take) {
                ctx.emit(Event::DuelStarted {
                    challenger: seat,
                    defender,
                    whisky: w,
                });
            }
        }
        Kind::Kinclaith => kinclaith(ctx, p),
        _ => {}
    }
}

/// WR-097, WR-098: Benromach takes 1 malt from each other player.
fn benromach(ctx: &mut Scratch<'_, State>, seat: Seat) {
    // WR-097, WR-098: 1 malt from each other player; from chosen malt if he still has a
    // turn to play with chosen malt left, otherwise from supply.
    let pending: Vec<Seat> = ctx
        .state()
        .order
        .iter()
        .skip(ctx.state().next)
        .copied()
        .collect();
    for victim in ctx.state().all().filter(|v| *v != seat) {
        let i = victim.index();
        let from_chosen =
            pending.contains(&victim) && !ctx.state().lost_turn[i] && ctx.state().chosen[i] > 0;
        let pool = if from_chosen {
            ctx.state().chosen[i]
        } else {
            ctx.state().supply[i]
        };
        if pool > 0 {
            ctx.emit(Event::MaltStolen {
                thief: seat,
                victim,
                amount: 1,
                from_chosen,
            });
        }
    }
}

/// WR-109..WR-112: Kinclaith moves a piece, a finish arrival included.
fn kinclaith(ctx: &mut Scratch<'_, State>, p: &UseParams) {
    if let (Some(piece), Some(dir)) = (p.piece, p.direction)
        && let Some(from) = piece_space(ctx.state(), piece)
    {
        let b = board();
        let steps = i32::from(b.c.kinclaith_steps);
        let to = (i32::from(from) + dir.sign() * steps)
            .clamp(i32::from(b.start), i32::from(b.finish)) as u8;
        ctx.emit(Event::PieceMovedByKinclaith { piece, from, to });
        if to == b.finish {
            arrival(ctx, piece);
        }
    }
}
