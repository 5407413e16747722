//! Fair bots and the timeout policy (issue 17): what a seat cannot see, sampled; the default
//! move of a seat whose clock ran out.
//!
//! Mush's only hidden information is the other seats' sealed order bids (section 4): their
//! amounts (and salts) until the reveal. Everything else is in every seat's view.

use super::state::{SealedBid, State};
use crate::engine::{Rng, RngExt, Seal, Seat};

/// [`crate::Game::determinize`]: every other seat's sealed bid replaced by a random amount it
/// could have bid (0..=its tokens, MU-033; tokens are public), freshly sealed. Drawn seat by
/// seat from public figures only, so the result depends on `seat`'s view and `rng` alone.
pub fn determinize(s: &State, seat: Seat, rng: &mut dyn Rng) -> State {
    let mut out = s.clone();
    for (i, bid) in out.bids.iter_mut().enumerate() {
        if i == seat.index() || bid.is_none() {
            continue;
        }
        let tokens = s.players.get(i).map_or(0, |p| p.tokens);
        let amount = rng.below(tokens.saturating_add(1));
        let Seal { salt, commitment } = rng.seal(i64::from(amount));
        *bid = Some(SealedBid {
            amount,
            salt,
            commitment,
        });
    }
    out
}
