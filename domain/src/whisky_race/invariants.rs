//! Invariants (conservation laws) and transition checks, run by the simulations and the
//! property tests on every state and event ([`crate::engine::Game::check_invariants`]).

use super::board::{MarkerId, board};
use super::event::Event;
use super::state::*;

/// Upper bound on rounds: far above anything seen in simulation (games last ~10–15 rounds).
pub const MAX_ROUNDS: u32 = 60;

pub fn check_invariants(s: &State) -> Result<(), String> {
    if s.phase == Phase::NotStarted {
        return Ok(());
    }
    let b = board();
    // Malt: 12·N + bank out (income, sources, pub malt) − bank in (payments) = all player malt.
    let held: u64 = s
        .supply
        .iter()
        .chain(s.chosen.iter())
        .map(|x| u64::from(*x))
        .sum();
    if held + s.bank_in != s.initial_malt + s.bank_out {
        return Err(format!(
            "malt not conserved: players {held} + bank in {} != initial {} + bank out {}",
            s.bank_in, s.initial_malt, s.bank_out
        ));
    }
    check_markers(s)?;
    // Pawns: only Kinclaith moves a pawn backwards.
    for seat in s.all() {
        let i = seat.index();
        let expected =
            i64::from(b.start) + i64::from(s.forward_steps[i]) + i64::from(s.kinclaith_shift[i]);
        if i64::from(s.pawns[i]) != expected {
            return Err(format!("{seat} moved other than by steps and Kinclaith"));
        }
        if s.pawns[i] > b.finish {
            return Err(format!("{seat} is off the track"));
        }
    }
    check_pending_trades(s)?;
    if s.englishman > b.finish {
        return Err("the Englishman is off the track".into());
    }
    if s.round > MAX_ROUNDS {
        return Err(format!("round {} exceeds the bound {MAX_ROUNDS}", s.round));
    }
    Ok(())
}

/// Markers: every instance has exactly one place, and the table covers every instance.
fn check_markers(s: &State) -> Result<(), String> {
    let b = board();
    let n = usize::from(s.seats);
    if s.loc.len() != b.markers.len() || s.used.len() != b.markers.len() {
        return Err("marker table size changed".into());
    }
    for (i, l) in s.loc.iter().enumerate() {
        let m = MarkerId::from_index(i);
        let in_play = b.markers[i].in_play;
        match l {
            Loc::OutOfPlay if in_play => return Err(format!("{m} left play")),
            Loc::OutOfPlay => {}
            _ if !in_play => return Err(format!("{m} (not in play) is in play")),
            Loc::Held { seat } if seat.index() >= n => {
                return Err(format!("{m} held by a missing seat"));
            }
            Loc::Held { .. } if !(m.is_whisky() || m.kind().is_checkpoint()) => {
                return Err(format!("{m} cannot be held by a player"));
            }
            Loc::Space { space } if *space > b.finish => return Err(format!("{m} off the track")),
            _ => {}
        }
        if s.used[i] && !matches!(l, Loc::Held { .. }) {
            return Err(format!(
                "{m} is face down outside a player's hands (WR-007)"
            ));
        }
    }
    Ok(())
}

/// What is owed or offered stays payable: sealed choices (WR-156) and taxes (WR-155).
fn check_pending_trades(s: &State) -> Result<(), String> {
    // WR-156: a sealed seat's pending offers always fit beside its choice, so accepting one of
    // them can never fail because of the secret.
    for seat in s.all() {
        if let Some(chosen) = s.sealed_choice(seat)
            && chosen + s.offered_malt(seat) > s.supply[seat.index()]
        {
            return Err(format!(
                "{seat}'s pending offers do not fit beside its sealed choice"
            ));
        }
    }
    // WR-155: whiskies owed on stay in the taxed player's hands until he settles.
    for tax in &s.taxes {
        if let Some(m) = tax.whiskies.iter().find(|m| !s.holds(tax.seat, **m)) {
            return Err(format!("{m} left {} before the tax was settled", tax.seat));
        }
    }
    Ok(())
}

/// WR-064, WR-162: markers are activated only at the turn's activation check; under WR-162
/// the first declaration spends it, so a turn activates one marker at most (before WR-162,
/// brown markers were declared first, the check staying open, WR-161).
pub fn check_event(before: &State, event: &Event) -> Result<(), String> {
    if let Event::ActivationDeclared { seat, marker, .. } = event {
        let step = before.turn.as_ref().map(|t| t.step);
        if !matches!(
            step,
            Some(TurnStep::ActivationCheck) | Some(TurnStep::Activation)
        ) {
            return Err(format!(
                "{seat} activates {marker} outside the activation check ({step:?})"
            ));
        }
    }
    Ok(())
}
