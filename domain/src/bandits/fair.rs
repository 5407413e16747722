//! Fair bots (issue 17): what a seat cannot see, sampled (BD-502: the decks and the other
//! hands are hidden).

use super::state::{Card, Destiny, State};
use crate::engine::{Rng, RngExt, Seat};

/// [`crate::Game::determinize`]: the other seats' hand cards and the support deck redealt from
/// the cards `seat` does not see (each hand keeps its size and its public `received` marks),
/// and the destiny deck reshuffled. The unseen cards are sorted before they are shuffled, so
/// the result depends on `seat`'s view and `rng` alone, never on the real hands or order.
/// (What the seat could remember of the deck, a ticket put under it, is forgotten: fair,
/// only less clever.)
pub fn determinize(s: &State, seat: Seat, rng: &mut dyn Rng) -> State {
    let mut out = s.clone();
    let others = |i: &usize| *i != seat.index();
    let mut unseen: Vec<Card> = s.support_deck.iter().copied().collect();
    for (_, hand) in s.hands.iter().enumerate().filter(|(i, _)| others(i)) {
        unseen.extend(hand.iter().map(|h| h.card));
    }
    unseen.sort_unstable();
    rng.shuffle(&mut unseen);
    let mut dealt = unseen.into_iter();
    for (_, hand) in out.hands.iter_mut().enumerate().filter(|(i, _)| others(i)) {
        for held in hand.iter_mut() {
            held.card = dealt.next().expect("as many cards as were unseen");
        }
    }
    out.support_deck = dealt.collect();
    let mut destiny: Vec<Destiny> = s.destiny_deck.iter().copied().collect();
    destiny.sort_unstable();
    rng.shuffle(&mut destiny);
    out.destiny_deck = destiny.into();
    out
}
