//! The automatic continuation: forced decisions (WR-009), reveals, turn order, activation
//! checks, the end of round and the next round.

use super::guards::*;
use super::resolve::*;
use super::steps::*;
use crate::decider::Scratch;
use crate::engine::{RngExt, Seal, Seat};
use crate::whisky_race::board::{Family, Kind, MarkerId, board};
use crate::whisky_race::command::Action;
use crate::whisky_race::event::*;
use crate::whisky_race::state::*;

// ---------------------------------------------------------------------------------------------
// Automatic continuation
// ---------------------------------------------------------------------------------------------

/// Runs every automatic step until a player decision is needed (WR-009).
pub fn settle(ctx: &mut Scratch<'_, State>) {
    for _ in 0..10_000 {
        if !settle_once(ctx) {
            return;
        }
    }
}

/// One automatic step; false when the engine waits for a player. Open interrupts come first,
/// innermost first (§5.1: D10 veto window, D11 duel, D12 customs tax), then the phase's own
/// step.
pub(super) fn settle_once(ctx: &mut Scratch<'_, State>) -> bool {
    if matches!(ctx.state().phase, Phase::Over | Phase::NotStarted) {
        return false;
    }
    if let Some(progress) = veto_window_step(ctx) {
        return progress;
    }
    if let Some(progress) = duel_step(ctx) {
        return progress;
    }
    if let Some(progress) = customs_tax_step(ctx) {
        return progress;
    }
    let s = ctx.state();
    match s.phase {
        Phase::Setup => {
            after_replacement(ctx);
            true
        }
        Phase::SetupReplacement => {
            if s.next >= s.order.len() {
                after_replacement(ctx);
                return true;
            }
            false
        }
        Phase::GroupBidding => group_bidding_step(ctx),
        Phase::GroupChoice => group_choice_step(ctx),
        Phase::Planning => planning_step(ctx),
        Phase::TieNegotiation => tie_negotiation_step(ctx),
        Phase::PlayerTurns => player_turns_step(ctx),
        Phase::EndOfRound => end_of_round(ctx),
        Phase::NotStarted | Phase::Over => false,
    }
}

/// D10 (§3.13): an open veto window is offered to the next eligible vetoer (WR-088, WR-089),
/// or resolved. `None` when no window is open.
fn veto_window_step(ctx: &mut Scratch<'_, State>) -> Option<bool> {
    let s = ctx.state();
    if s.decls.last()?.offered.is_some() {
        return Some(false);
    }
    match next_vetoer(s) {
        Some(seat) => ctx.emit(Event::VetoOffered { seat }),
        None => resolve_stack(ctx),
    }
    Some(true)
}

/// D11 (Glen Mhor duel, WR-104, WR-105): a duellist without malt bids 0; both bids in, they
/// are revealed. `None` when no duel is open.
fn duel_step(ctx: &mut Scratch<'_, State>) -> Option<bool> {
    let s = ctx.state();
    let d = s.duel.as_ref()?;
    let duellists = [d.challenger, d.defender];
    for (slot, seat) in duellists.iter().enumerate() {
        if d.bids[slot].is_none() && s.supply[seat.index()] == 0 {
            let Seal { salt, commitment } = ctx.rng().seal(0);
            ctx.emit(Event::DuelBidCommitted {
                seat: *seat,
                commitment,
                amount: Some(0),
                salt: Some(salt),
                forced: true,
            });
            return Some(true);
        }
    }
    if let [Some(a), Some(b)] = &d.bids {
        let bids = vec![
            Revealed {
                seat: d.challenger,
                amount: a.amount,
                salt: a.salt.clone(),
            },
            Revealed {
                seat: d.defender,
                amount: b.amount,
                salt: b.salt.clone(),
            },
        ];
        let winner = match a.amount.cmp(&b.amount) {
            std::cmp::Ordering::Greater => Some(d.challenger),
            std::cmp::Ordering::Less => Some(d.defender),
            std::cmp::Ordering::Equal => None,
        };
        ctx.emit(Event::DuelResolved { bids, winner });
        return Some(true);
    }
    Some(false)
}

/// D12 (§3.15): a pending customs tax. `None` when no tax is due.
fn customs_tax_step(ctx: &mut Scratch<'_, State>) -> Option<bool> {
    let s = ctx.state();
    // At the amount fixed when he was met (WR-155). WR-009: with a supply below it and a
    // single whisky, discarding that whisky is the only option.
    let tax = s.taxes.first()?;
    let seat = tax.seat;
    let whiskies: Vec<MarkerId> = s.whiskies_of(seat).collect();
    if s.supply[seat.index()] < tax.amount && whiskies.len() == 1 {
        ctx.emit(Event::WhiskyDiscarded {
            seat,
            whisky: whiskies[0],
            forced: true,
        });
        return Some(true);
    }
    Some(false)
}

/// §3.19 variant: forced zero bids (WR-009), then the reveal and the tie groups.
fn group_bidding_step(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    for seat in s.all() {
        if s.sealed[seat.index()].is_none() && s.supply[seat.index()] == 0 {
            let Seal { salt, commitment } = ctx.rng().seal(0);
            ctx.emit(Event::GroupBidCommitted {
                seat,
                commitment,
                amount: Some(0),
                salt: Some(salt),
                forced: true,
            });
            return true;
        }
    }
    if s.sealed.iter().all(|x| x.is_some()) {
        let bids = reveal_list(s);
        let ties = tie_groups(&bids);
        ctx.emit(Event::GroupBidsRevealed { bids });
        if !ties.is_empty() {
            ctx.emit(Event::TieGroupsFormed { groups: ties });
        }
        return true;
    }
    false
}

/// §3.19 variant: the turn order once ties are settled, then the whisky-group choices.
fn group_choice_step(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    if s.ties.iter().any(|t| t.status == TieStatus::Open) {
        return false;
    }
    if s.order.is_empty() {
        let order = fixed_order(s);
        ctx.emit(Event::TurnOrderFixed { order });
        return true;
    }
    if s.next < s.order.len() {
        let free: Vec<usize> = (0..s.groups_taken.len())
            .filter(|g| s.groups_taken[*g].is_none())
            .collect();
        if free.len() == 1 {
            // WR-151: the last group goes to the last chooser.
            let seat = s.order[s.next];
            ctx.emit(Event::WhiskyGroupChosen {
                seat,
                group: free[0] as u8 + 1,
                automatic: true,
            });
            return true;
        }
        return false;
    }
    finish_setup(ctx);
    true
}

/// §3.4 planning: forced malt choices (WR-023), then the reveal and the tie groups.
fn planning_step(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    // WR-023: supply 0 → 0, supply 1 → 1, automatically — unless the seat's own
    // pending offers give malt, which it must withdraw first (WR-156).
    for seat in s.all() {
        let supply = s.supply[seat.index()];
        if s.sealed[seat.index()].is_none() && supply <= 1 && s.offered_malt(seat) == 0 {
            let Seal { salt, commitment } = ctx.rng().seal(i64::from(supply));
            ctx.emit(Event::MaltCommitted {
                seat,
                commitment,
                amount: Some(supply),
                salt: Some(salt),
                forced: true,
            });
            return true;
        }
    }
    if s.sealed.iter().all(|x| x.is_some()) {
        let choices = reveal_list(s);
        let ties = tie_groups(&choices);
        ctx.emit(Event::MaltRevealed { choices });
        if !ties.is_empty() {
            ctx.emit(Event::TieGroupsFormed { groups: ties });
        }
        return true;
    }
    false
}

/// §3.5 tie negotiation: wait for every group, then fix the turn order.
fn tie_negotiation_step(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    // WR-032: the player phase starts when every group agreed or failed.
    if s.ties.iter().any(|t| t.status == TieStatus::Open) {
        return false;
    }
    let order = fixed_order(s);
    ctx.emit(Event::TurnOrderFixed { order });
    true
}

/// §3.7 player phase: start the next turn or the end of round; the activation check.
fn player_turns_step(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    match &s.turn {
        None => {
            if let Some(&seat) = s.order.get(s.next) {
                ctx.emit(Event::TurnStarted { seat });
            } else {
                // WR-124: end of round, step 1.
                move_englishman(
                    ctx,
                    board().c.englishman_round_steps,
                    1,
                    EnglishmanCause::EndOfRound,
                );
            }
            true
        }
        Some(t) if t.step == TurnStep::ActivationCheck => {
            activation_check(ctx, t.seat);
            true
        }
        Some(_) => false,
    }
}

pub(super) fn reveal_list(s: &State) -> Vec<Revealed> {
    s.all()
        .filter_map(|seat| {
            s.sealed[seat.index()].as_ref().map(|x| Revealed {
                seat,
                amount: x.amount,
                salt: x.salt.clone(),
            })
        })
        .collect()
}

/// Groups of two or more equal amounts, highest first (WR-026, WR-150).
pub(super) fn tie_groups(values: &[Revealed]) -> Vec<Vec<Seat>> {
    let mut amounts: Vec<u32> = values.iter().map(|v| v.amount).collect();
    amounts.sort_unstable_by(|a, b| b.cmp(a));
    amounts.dedup();
    amounts
        .into_iter()
        .map(|a| {
            values
                .iter()
                .filter(|v| v.amount == a)
                .map(|v| v.seat)
                .collect::<Vec<_>>()
        })
        .filter(|g| g.len() >= 2)
        .collect()
}

/// WR-033: by descending amount; agreed groups in their order; failed groups left out (turn
/// order) or in lot order (group choice, WR-150).
pub(super) fn fixed_order(s: &State) -> Vec<Seat> {
    let mut amounts: Vec<u32> = s.revealed.iter().flatten().copied().collect();
    amounts.sort_unstable_by(|a, b| b.cmp(a));
    amounts.dedup();
    let mut order = Vec::new();
    for a in amounts {
        let members: Vec<Seat> = s
            .all()
            .filter(|x| s.revealed[x.index()] == Some(a))
            .collect();
        if members.len() == 1 {
            order.extend(members);
            continue;
        }
        if let Some(t) = s.ties.iter().find(|t| t.members == members)
            && let Some(p) = &t.proposal
            && (t.status == TieStatus::Agreed || s.phase == Phase::GroupChoice)
        {
            order.extend(p.iter().copied());
        }
    }
    order
}

pub(super) fn after_replacement(ctx: &mut Scratch<'_, State>) {
    if ctx.state().options.group_bidding {
        // WR-147, WR-148: N groups of 3 from the whiskies not on the board (R6).
        let mut pool: Vec<MarkerId> = ctx
            .state()
            .reserve()
            .into_iter()
            .filter(|m| m.is_whisky())
            .collect();
        let size = board().c.variant_groups_size;
        let mut groups = Vec::new();
        for _ in 0..ctx.state().seats {
            let mut g = Vec::new();
            for _ in 0..size {
                if !pool.is_empty() {
                    g.push(pool.swap_remove(ctx.rng().index(pool.len())));
                }
            }
            groups.push(g);
        }
        ctx.emit(Event::WhiskyGroupsDealt { groups });
    } else {
        finish_setup(ctx);
    }
}

pub(super) fn finish_setup(ctx: &mut Scratch<'_, State>) {
    if ctx.state().options.englishman_offer {
        draw_offer(ctx);
    }
    ctx.emit(Event::RoundStarted { round: 1 });
}

/// WR-058..WR-063, WR-162: the single activation check of the turn. A brown marker alone on
/// the space applies automatically (WR-061); with several markers the player activates exactly
/// one of them, of his choice, brown ones included (D8). Games begun before WR-162 keep
/// WR-161: every brown marker applies first, one declaration (and veto window) each, the check
/// staying open meanwhile; then the player chooses among the other markers.
pub(super) fn activation_check(ctx: &mut Scratch<'_, State>, seat: Seat) {
    let s = ctx.state();
    let space = s.pawn(seat);
    let alone = s.pawns_on(space).all(|o| o == seat) && s.englishman != space;
    let markers: Vec<MarkerId> = s.markers_at(space).collect();
    if !alone || markers.is_empty() {
        ctx.emit(Event::ActivationSkipped { seat, space });
        return;
    }
    let automatic = match markers[..] {
        // WR-061: a lone brown marker is never chosen, never declined.
        [only] if only.family() == Family::Brown => Some(only),
        // WR-161 (games begun before WR-162): brown markers first, beside the choice.
        _ if !s.single_activation => markers
            .iter()
            .copied()
            .find(|m| m.family() == Family::Brown),
        _ => None,
    };
    if let Some(brown) = automatic {
        // A veto window still follows (WR-087).
        ctx.emit(Event::ActivationDeclared {
            seat,
            marker: brown,
            action: Action::Collect {},
            automatic: true,
        });
        return;
    }
    let any_action = markers
        .iter()
        .any(|m| !activation_actions(s, seat, *m).is_empty());
    if !any_action {
        // WR-063: only "decline" remains → declined automatically.
        let marker = (markers.len() == 1).then(|| markers[0]);
        ctx.emit(Event::ActivationDeclined {
            seat,
            marker,
            automatic: true,
        });
        return;
    }
    ctx.emit(Event::ActivationPending {
        seat,
        space,
        markers,
    });
}

/// §3.16 end of round: the Englishman moves, leaves a marker, income is paid, the round
/// closes (or the game ends, WR-131).
pub(super) fn end_of_round(ctx: &mut Scratch<'_, State>) -> bool {
    let s = ctx.state();
    match s.eor {
        Eor::Move => {
            move_englishman(
                ctx,
                board().c.englishman_round_steps,
                1,
                EnglishmanCause::EndOfRound,
            );
            true
        }
        Eor::Draw => {
            let space = s.englishman;
            if s.options.englishman_offer {
                return englishman_offer(ctx, space);
            }
            // WR-125 (R1).
            match draw(ctx) {
                Some(marker) => ctx.emit(Event::MarkerDrawn { marker, space }),
                None => ctx.emit(Event::ReserveEmpty),
            }
            true
        }
        Eor::Income => {
            let amounts = round_income(s);
            ctx.emit(Event::IncomePaid { amounts });
            true
        }
        Eor::Close => {
            let round = s.round;
            let over = s.trigger.is_some();
            ctx.emit(Event::RoundEnded { round });
            if over {
                ctx.emit(Event::GameEnded); // WR-131
            } else {
                ctx.emit(Event::RoundStarted { round: round + 1 });
            }
            true
        }
    }
}

/// WR-153 variant: the marker the Englishman leaves is chosen from the offer; false while a
/// player must choose it (D13).
fn englishman_offer(ctx: &mut Scratch<'_, State>, space: u8) -> bool {
    let s = ctx.state();
    let offer: Vec<MarkerId> = s
        .loc
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == Loc::Offer)
        .map(|(i, _)| MarkerId::from_index(i))
        .collect();
    match (offer.len(), s.took_turn.first()) {
        (0, _) => ctx.emit(Event::ReserveEmpty),
        // WR-009: a single offered marker is placed without asking.
        (1, seat) => ctx.emit(Event::EnglishmanMarkerChosen {
            seat: seat.copied(),
            marker: offer[0],
            space,
            random: false,
        }),
        (_, None) => {
            // WR-153: nobody took a turn → random choice among the offer (R5).
            let marker = offer[ctx.rng().index(offer.len())];
            ctx.emit(Event::EnglishmanMarkerChosen {
                seat: None,
                marker,
                space,
                random: true,
            });
        }
        (_, Some(_)) => return false, // D13
    }
    if ctx.state().eor == Eor::Income {
        draw_offer(ctx);
    }
    true
}

/// WR-126, WR-099: each player's income, 4 + 1 per unsuspended Brora.
fn round_income(s: &State) -> Vec<u32> {
    let c = &board().c;
    s.all()
        .map(|seat| {
            let broras = s
                .held_by(seat)
                .filter(|m| m.kind() == Kind::Brora && !s.suspended.contains(m))
                .count() as u32;
            c.round_income + broras * c.brora_income_bonus
        })
        .collect()
}
