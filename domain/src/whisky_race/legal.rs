//! `prompts` and `legal`, both drawn from [`super::choices`] (issue 15): the families of a seat
//! are the contract; the prompts list their kinds, and `legal` lists concrete instances of them
//! for simple bots.
//!
//! `legal` enumerates every family it can (a tie order once, a St Culabans swap once per pair of
//! markers) and samples the rest: `offer_trade` families are far too large to list, so a bot gets
//! two sampled offers per other seat, and only while it has no offer of its own pending (so that
//! random bots do not drown the game in offers). Sampling uses a fixed seed, so `legal` is a
//! function of the families, which depend on what the seat may see only.

use super::choices::{choices, kinds};
use super::command::{Action, Command};
use super::decide::d13_chooser;
use super::state::*;
use crate::engine::{Prompt, Seat, seeded};
use std::borrow::Cow;

/// Families with more instances than this are sampled (as many times) instead of listed.
const ENUMERATION_CAP: usize = 4096;
/// Offers sampled from each `offer_trade` family for bots.
const OFFERS_PER_SEAT: usize = 2;

/// `Game::legal`: concrete instances of [`choices`] (see the module docs).
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    legal_from(s, seat, &choices(s, seat))
}

/// [`legal`] drawn from `families`, `seat`'s [`choices`] already computed.
pub fn legal_from(s: &State, seat: Seat, families: &[crate::choices::Family]) -> Vec<Command> {
    use crate::choices::{enumerate_meanings, sample};
    let own_offer = s.offers.iter().any(|o| o.from == seat);
    let mut rng = seeded(15);
    let mut out: Vec<Command> = Vec::new();
    for family in families {
        let instances = if family.kind == "offer_trade" {
            if own_offer {
                continue;
            }
            (0..OFFERS_PER_SEAT)
                .filter_map(|_| sample(&family.schema, &mut rng))
                .collect()
        } else {
            enumerate_meanings(&family.schema, ENUMERATION_CAP).unwrap_or_else(|| {
                (0..ENUMERATION_CAP)
                    .filter_map(|_| sample(&family.schema, &mut rng))
                    .collect()
            })
        };
        for instance in instances {
            // Every instance parses: the families describe commands (tested both ways).
            let Ok(command) = serde_json::from_value::<Command>(instance) else {
                continue;
            };
            // (b, a) is the same swap as (a, b): a bot needs it once.
            if let Command::Activate {
                action: Action::Swap { marker_a, marker_b },
                ..
            } = &command
                && marker_a > marker_b
            {
                continue;
            }
            if !out.contains(&command) {
                out.push(command);
            }
        }
    }
    out
}

/// The state with every sealed amount replaced by 0: what everybody may know. Prompts are
/// public, so they are computed from it: whether a seat may still accept or make an offer
/// during planning must not tell the others how much it chose (WR-156, §4.2).
pub fn public_projection(s: &State) -> std::borrow::Cow<'_, State> {
    if s.sealed.iter().all(Option::is_none) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut public = s.clone();
    for sealed in public.sealed.iter_mut().flatten() {
        sealed.amount = 0;
    }
    std::borrow::Cow::Owned(public)
}

/// `Game::prompts`: every seat with at least one family of commands, with the kinds of its
/// families in their order (the pending context first, trades last), and whether the game waits
/// for it (`must`, [`waits_for`]) or it only may act (trades, a re-proposal in a tie it already
/// accepted …). Seats the game waits for come first, so that a client taking the first prompt
/// and its first legal command always moves the game forward.
///
/// Prompts are public, so they are computed on the public projection of the state (WR-156,
/// §7): during planning a sealed seat's prompt may show `accept_trade` where its own families
/// (which it alone sees) have none, because its sealed choice leaves too little malt. That is
/// the only kind a prompt may list beyond the seat's own families; it never omits one.
pub fn prompts(s: &State) -> Vec<Prompt> {
    let mut out = Vec::new();
    if matches!(s.phase, Phase::Over | Phase::NotStarted) {
        return out;
    }
    let public = public_projection(s);
    let s: &State = &public;
    for seat in s.all() {
        let mut unique: Vec<Cow<'static, str>> = Vec::new();
        for kind in kinds(s, seat) {
            if !unique.contains(&kind) {
                unique.push(kind);
            }
        }
        if !unique.is_empty() {
            out.push(Prompt {
                seat,
                kinds: unique,
                must: waits_for(s, seat),
            });
        }
    }
    out.sort_by_key(|p| !p.must);
    out
}

/// Whether the game waits for `seat` (a blocking decision, trading aside). Cheap: no enumeration.
pub fn waits_for(s: &State, seat: Seat) -> bool {
    if let Some(top) = s.decls.last() {
        return top.offered == Some(seat);
    }
    if let Some(d) = &s.duel {
        return (seat == d.challenger && d.bids[0].is_none())
            || (seat == d.defender && d.bids[1].is_none());
    }
    if let Some(first) = s.taxes.first() {
        return first.seat == seat;
    }
    match s.phase {
        Phase::SetupReplacement => s.order.get(s.next) == Some(&seat),
        Phase::GroupBidding | Phase::Planning => {
            s.sealed.get(seat.index()).is_some_and(|x| x.is_none())
        }
        Phase::GroupChoice | Phase::TieNegotiation => {
            // A member who accepted the current proposal waits for the others.
            let in_tie = s.ties.iter().any(|t| {
                t.status == TieStatus::Open
                    && t.members.contains(&seat)
                    && !t.accepted.contains(&seat)
            });
            in_tie || (s.phase == Phase::GroupChoice && s.order.get(s.next) == Some(&seat))
        }
        Phase::PlayerTurns => s.active() == Some(seat),
        Phase::EndOfRound => d13_chooser(s) == Some(seat),
        _ => false,
    }
}
