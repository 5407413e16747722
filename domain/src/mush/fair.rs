//! Fair bots and the timeout policy (issue 17): what a seat cannot see, sampled; the default
//! move of a seat whose clock ran out.
//!
//! Mush's only hidden information is the other seats' sealed order bids (section 4): their
//! amounts (and salts) until the reveal. Everything else is in every seat's view.

use super::command::Command;
use super::legal::legal;
use super::state::{Phase, SealedBid, State};
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

/// [`crate::Game::default_move`] (docs/rules/mush.md, "Timeout policy"): at the start of a
/// turn, the first legal declaration (`declare_move` while a dog is fresh, else the first rest
/// option) rather than the avalanche actions listed before it, which cost 5 tokens and
/// answer nothing; every other decision as the generic policy.
pub fn default_move(s: &State, seat: Seat) -> Option<Command> {
    if s.phase == Phase::TurnStart && s.active == Some(seat) {
        let declaration = legal(s, seat)
            .into_iter()
            .find(|c| matches!(c, Command::DeclareMove { .. } | Command::DeclareRest { .. }));
        if declaration.is_some() {
            return declaration;
        }
    }
    crate::engine::cheapest_waited_for::<super::Mush>(s, seat)
}
