//! Views (hidden information, §4): a seat sees its own hand; others see counts and receipt
//! turns; deck orders are shown to nobody but the omniscient viewer.

use super::board::{Colour, Node, Zone, board};
use super::decide::awaiting;
use super::state::*;
use crate::engine::{Seat, Viewer};
use serde::Serialize;

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct UnitView {
    pub node: Node,
    /// Bottom first.
    pub pawns: Vec<Pawn>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HandView {
    pub seat: Seat,
    pub colour: Colour,
    /// Cards held in hand (tickets in play are listed under `tickets`).
    pub count: usize,
    /// Turn each hand card was received in (public, BD-500).
    pub received: Vec<u32>,
    /// The card ids: only for the holder (BD-501).
    pub cards: Option<Vec<Card>>,
    /// Card count for the hand limit (hand + own tickets, BD-231).
    pub card_count: usize,
    /// Cards returned under the hand limit so far.
    pub returned: u32,
}

/// Score explanation per seat: the game ranks nobody but the winner (BD-402); the score is
/// the number of pawns home.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ScoreView {
    pub seat: Seat,
    pub colour: Colour,
    pub in_village: usize,
    pub free: usize,
    pub in_prison: usize,
    pub winner: bool,
    pub score: i64,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct AwaitingView {
    pub seat: Seat,
    pub decision: String,
    pub kinds: Vec<String>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct View {
    pub options: Options,
    pub colours: Vec<Colour>,
    pub order: Vec<Seat>,
    pub turn: u32,
    pub active: Option<Seat>,
    /// Every occupied node with its unit (public).
    pub units: Vec<UnitView>,
    pub hunter: Option<Node>,
    pub support_deck_count: usize,
    pub destiny_deck_count: usize,
    pub hands: Vec<HandView>,
    pub tickets: Vec<Ticket>,
    pub interrogated: Option<Seat>,
    pub awaiting: Option<AwaitingView>,
    /// The pending decision's context (fight values, destiny queue …), public.
    pub control: Control,
    pub winner: Option<Seat>,
    pub scores: Vec<ScoreView>,
    /// Omniscient viewer only.
    pub support_deck: Option<Vec<Card>>,
    pub destiny_deck: Option<Vec<Destiny>>,
}

pub fn scores(st: &State) -> Vec<ScoreView> {
    (0..st.seats)
        .map(|i| {
            let seat = Seat::from_index(usize::from(i));
            let home = st.pawns_of(seat).filter(|&p| st.in_village(p)).count();
            ScoreView {
                seat,
                colour: st.colours[usize::from(i)],
                in_village: home,
                free: st.pawns_of(seat).filter(|&p| st.is_free(p)).count(),
                in_prison: st.pawns_of(seat).filter(|&p| st.in_prison(p)).count(),
                winner: st.winner == Some(seat),
                score: home as i64,
            }
        })
        .collect()
}

pub fn view(st: &State, viewer: Viewer) -> View {
    let b = board();
    let units = st
        .occ
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_empty())
        .map(|(i, v)| UnitView {
            node: Node(i as u8),
            pawns: v.clone(),
        })
        .filter(|u| b.info(u.node).zone != Zone::Pile)
        .collect();
    let hands = (0..st.seats)
        .map(|i| {
            let seat = Seat::from_index(usize::from(i));
            let h = &st.hands[usize::from(i)];
            HandView {
                seat,
                colour: st.colours[usize::from(i)],
                count: h.len(),
                received: h.iter().map(|c| c.received).collect(),
                cards: viewer
                    .sees_private_of(seat)
                    .then(|| h.iter().map(|c| c.card).collect()),
                card_count: st.card_count(seat),
                returned: st.returned.get(usize::from(i)).copied().unwrap_or(0),
            }
        })
        .collect();
    let omni = viewer == Viewer::Omniscient;
    View {
        options: st.options.clone(),
        colours: st.colours.clone(),
        order: st.order.clone(),
        turn: st.turn,
        active: st.active,
        units,
        hunter: st.hunter,
        support_deck_count: st.support_deck.len(),
        destiny_deck_count: st.destiny_deck.len(),
        hands,
        tickets: st.tickets.clone(),
        interrogated: st.interrogated,
        awaiting: awaiting(st).map(|w| AwaitingView {
            seat: w.seat,
            decision: w.decision.to_string(),
            kinds: w.kinds.iter().map(|k| k.to_string()).collect(),
        }),
        control: st.ctl.clone(),
        winner: st.winner,
        scores: scores(st),
        support_deck: omni.then(|| st.support_deck.iter().copied().collect()),
        destiny_deck: omni.then(|| st.destiny_deck.iter().copied().collect()),
    }
}
