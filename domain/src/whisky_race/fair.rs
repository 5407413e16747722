//! Fair bots (issue 17): what a seat cannot see, sampled.
//!
//! Whisky Race's hidden information is the other seats' sealed amounts (§4): planning malt
//! choices and group bids until their reveal, and the other duellist's Glen Mhor bid (§4.3).
//! Markers drawn from the reserve are drawn by `decide` when they are revealed, so there is no
//! hidden order to sample.

use super::board::board;
use super::state::{Phase, Sealed, State};
use crate::engine::{Rng, RngExt, Seal, Seat};

/// [`crate::Game::determinize`]: every sealed amount `seat` may not see replaced by a random
/// amount its owner could have sealed, judged on public figures only (supplies, pending
/// offers), freshly sealed; drawn in seat order, so the result depends on `seat`'s view and
/// `rng` alone.
pub fn determinize(s: &State, seat: Seat, rng: &mut dyn Rng) -> State {
    let mut out = s.clone();
    for owner in s.all().filter(|o| *o != seat) {
        if out.sealed[owner.index()].is_some() {
            let (lowest, highest) = sealed_range(s, owner);
            out.sealed[owner.index()] = Some(resealed(lowest, highest, rng));
        }
    }
    if let Some(duel) = out.duel.as_mut() {
        for (slot, duellist) in [duel.challenger, duel.defender].into_iter().enumerate() {
            if duellist != seat && duel.bids[slot].is_some() {
                // D11 (WR-105, WR-005): a bid from the duellist's supply.
                let supply = s.supply[duellist.index()];
                duel.bids[slot] = Some(resealed(0, supply, rng));
            }
        }
    }
    out
}

/// The amounts `owner` could have sealed, as everybody can tell: a group bid up to the starting
/// malt (WR-149); a planning choice of at least 1 (WR-020) beside its own pending offers
/// (WR-156).
fn sealed_range(s: &State, owner: Seat) -> (u32, u32) {
    let supply = s.supply[owner.index()];
    if s.phase == Phase::GroupBidding {
        return (0, supply.min(board().c.starting_malt));
    }
    let highest = supply.saturating_sub(s.offered_malt(owner));
    (u32::from(supply > 0).min(highest), highest)
}

fn resealed(lowest: u32, highest: u32, rng: &mut dyn Rng) -> Sealed {
    let amount = lowest + rng.below(highest - lowest + 1);
    let Seal { salt, commitment } = rng.seal(i64::from(amount));
    Sealed {
        amount,
        salt,
        commitment,
    }
}
