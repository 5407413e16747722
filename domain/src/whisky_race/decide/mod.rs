//! `decide`: guard clauses (each names its rule ID), then the events of the command, then the
//! automatic continuation (forced decisions WR-009, end of round, next round) appended to the
//! same command's events by [`settle`].
//!
//! Files: `guards.rs` (validation, shared with `legal`), this file (the events of each command),
//! `resolve.rs` (veto windows, resolution and effects), `flow.rs` (the automatic continuation).

use super::board::{Family, board};
use super::command::{Action, Command};
use super::event::*;
use super::state::*;
use crate::decider::Scratch;
use crate::engine::{Rng, RngExt, RuleViolation, Seal, Seat};

mod flow;
mod guards;
mod resolve;
mod steps;

pub use flow::settle;
pub use guards::{
    action_legal, activation_actions, affordable_steps, check, d13_chooser, eligible_vetoer,
    is_passed, step_cost,
};

use steps::*;

// ---------------------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------------------

/// `Game::decide`.
pub fn decide(
    state: &State,
    actor: Seat,
    command: &Command,
    rng: &mut dyn Rng,
) -> Result<Vec<Event>, RuleViolation> {
    check(state, actor, command)?;
    let mut ctx = Scratch::new(state.clone(), rng);
    execute(&mut ctx, actor, command);
    settle(&mut ctx);
    Ok(ctx.into_events())
}

/// The events of one accepted command, by the part of the round it belongs to (§3.2–§3.15).
pub(super) fn execute(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    match command {
        Command::ReplaceSetupMarker { .. } | Command::PassReplacement {} => {
            setup_replacement(ctx, actor, command)
        }
        Command::SubmitGroupBid { .. }
        | Command::ProposeOrder { .. }
        | Command::AcceptOrder { .. }
        | Command::RefuseAgreement { .. }
        | Command::ChooseWhiskyGroup { .. } => turn_order(ctx, actor, command),
        Command::SubmitMaltChoice { amount } => {
            // §3.4 planning: the secret malt choice is sealed (WR-019).
            let Seal { salt, commitment } = ctx.rng().seal(i64::from(*amount));
            ctx.emit(Event::MaltCommitted {
                seat: actor,
                commitment,
                amount: Some(*amount),
                salt: Some(salt),
                forced: false,
            });
        }
        Command::Step { .. }
        | Command::FinishMovement {}
        | Command::UseWhisky { .. }
        | Command::Activate { .. }
        | Command::EndTurn {} => player_turn(ctx, actor, command),
        Command::Veto { .. } | Command::PassVeto {} | Command::SubmitDuelBid { .. } => {
            veto_window(ctx, actor, command)
        }
        Command::PayTax {}
        | Command::DiscardWhisky { .. }
        | Command::ChooseEnglishmanMarker { .. } => englishman(ctx, actor, command),
        Command::OfferTrade { .. }
        | Command::AcceptTrade { .. }
        | Command::DeclineTrade { .. }
        | Command::WithdrawTrade { .. } => trading(ctx, actor, command),
    }
}

/// §3.2 setup: a player replaces a marker of the initial layout, or passes.
fn setup_replacement(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    match command {
        Command::ReplaceSetupMarker { marker } => {
            let Loc::Space { space } = ctx.state().loc_of(*marker) else {
                return;
            };
            let Some(replacement) = draw(ctx) else {
                return;
            };
            ctx.emit(Event::SetupMarkerReplaced {
                seat: actor,
                space,
                removed: *marker,
                replacement,
            });
        }
        Command::PassReplacement {} => ctx.emit(Event::SetupReplacementPassed { seat: actor }),
        _ => {}
    }
}

/// §3.5 turn order and ties, and the §3.19 whisky-group bidding variant.
fn turn_order(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    let s = ctx.state();
    match command {
        Command::SubmitGroupBid { amount } => {
            let Seal { salt, commitment } = ctx.rng().seal(i64::from(*amount));
            ctx.emit(Event::GroupBidCommitted {
                seat: actor,
                commitment,
                amount: Some(*amount),
                salt: Some(salt),
                forced: false,
            });
        }
        Command::ProposeOrder { group, order } => {
            let proposal = s
                .ties
                .iter()
                .find(|t| t.group == *group)
                .map(|t| t.proposal_id + 1)
                .unwrap_or(1);
            ctx.emit(Event::OrderProposed {
                seat: actor,
                group: *group,
                proposal,
                order: order.clone(),
            });
            maybe_agreed(ctx, *group);
        }
        Command::AcceptOrder { group, proposal } => {
            ctx.emit(Event::OrderAccepted {
                seat: actor,
                group: *group,
                proposal: *proposal,
            });
            maybe_agreed(ctx, *group);
        }
        Command::RefuseAgreement { group } => {
            let members = s
                .ties
                .iter()
                .find(|t| t.group == *group)
                .map(|t| t.members.clone())
                .unwrap_or_default();
            let in_variant = s.phase == Phase::GroupChoice;
            ctx.emit(Event::AgreementRefused {
                seat: actor,
                group: *group,
            });
            if in_variant {
                // WR-150: the relative order of the refused group is drawn by lot (R7).
                let mut order = members;
                ctx.rng().shuffle(&mut order);
                ctx.emit(Event::LotDrawn {
                    purpose: LotPurpose::GroupBidTie,
                    order,
                });
            } else {
                // WR-029, WR-030: every member loses his turn and pays his chosen malt now.
                let paid = members
                    .iter()
                    .map(|m| ctx.state().chosen[m.index()])
                    .collect();
                ctx.emit(Event::TurnsLost {
                    group: *group,
                    seats: members,
                    paid,
                });
            }
        }
        Command::ChooseWhiskyGroup { group } => ctx.emit(Event::WhiskyGroupChosen {
            seat: actor,
            group: *group,
            automatic: false,
        }),
        _ => {}
    }
}

/// §3.7–§3.12 the active player's turn: movement (phase A), activation (phase B), whiskies.
fn player_turn(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    let s = ctx.state();
    match command {
        Command::Step { n } => {
            for _ in 0..*n {
                one_step(ctx, actor);
            }
        }
        Command::FinishMovement {} => {
            // WR-053, WR-055: every affordable step, then the movement step ends.
            while affordable_steps(ctx.state(), actor) > 0 {
                one_step(ctx, actor);
            }
            ctx.emit(Event::MovementFinished { seat: actor });
        }
        Command::UseWhisky { whisky, params } => ctx.emit(Event::WhiskyUseDeclared {
            seat: actor,
            whisky: *whisky,
            params: params.clone(),
        }),
        Command::Activate { marker, action } => match (marker.family(), action) {
            (_, Action::Decline {}) => ctx.emit(Event::ActivationDeclined {
                seat: actor,
                marker: Some(*marker),
                automatic: false,
            }),
            // WR-067, WR-070: buying a whisky marker from its own space opens no veto window.
            (Family::Whisky, Action::Buy { .. }) => ctx.emit(Event::WhiskyBought {
                seat: actor,
                marker: *marker,
                price: board().c.whisky_marker_price,
            }),
            // Every location-marker activation is declared and opens a veto window, the
            // holy-place purchase included (WR-062, WR-158).
            _ => ctx.emit(Event::ActivationDeclared {
                seat: actor,
                marker: *marker,
                action: action.clone(),
                automatic: false,
            }),
        },
        Command::EndTurn {} => {
            let unused_malt = s.chosen[actor.index()];
            ctx.emit(Event::TurnEnded {
                seat: actor,
                unused_malt,
            });
        }
        _ => {}
    }
}

/// §3.13 veto windows (Banff) and the Glen Mhor duel bids.
fn veto_window(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    match command {
        Command::Veto { banff } => ctx.emit(Event::VetoDeclared {
            seat: actor,
            banff: *banff,
        }),
        Command::PassVeto {} => ctx.emit(Event::VetoPassed { seat: actor }),
        Command::SubmitDuelBid { amount } => {
            let Seal { salt, commitment } = ctx.rng().seal(i64::from(*amount));
            ctx.emit(Event::DuelBidCommitted {
                seat: actor,
                commitment,
                amount: Some(*amount),
                salt: Some(salt),
                forced: false,
            });
        }
        _ => {}
    }
}

/// §3.15 the Englishman: customs tax, discards, and where he goes next.
fn englishman(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    let s = ctx.state();
    match command {
        Command::PayTax {} => {
            // WR-155: the amount fixed when the Englishman met him.
            let amount = s.taxes.first().map_or(0, |t| t.amount);
            ctx.emit(Event::TaxPaid {
                seat: actor,
                amount,
            });
        }
        Command::DiscardWhisky { whisky } => ctx.emit(Event::WhiskyDiscarded {
            seat: actor,
            whisky: *whisky,
            forced: false,
        }),
        Command::ChooseEnglishmanMarker { marker } => {
            let space = s.englishman;
            ctx.emit(Event::EnglishmanMarkerChosen {
                seat: Some(actor),
                marker: *marker,
                space,
                random: false,
            });
            draw_offer(ctx);
        }
        _ => {}
    }
}

/// §3.6 trading and negotiation.
fn trading(ctx: &mut Scratch<'_, State>, actor: Seat, command: &Command) {
    let s = ctx.state();
    match command {
        Command::OfferTrade { to, give, receive } => {
            let offer = s.next_offer;
            ctx.emit(Event::TradeOffered {
                offer,
                from: actor,
                to: *to,
                give: give.clone(),
                receive: receive.clone(),
            });
        }
        Command::AcceptTrade { offer } => ctx.emit(Event::TradeAccepted { offer: *offer }),
        Command::DeclineTrade { offer } => ctx.emit(Event::TradeDeclined { offer: *offer }),
        Command::WithdrawTrade { offer } => ctx.emit(Event::TradeWithdrawn { offer: *offer }),
        _ => {}
    }
}
