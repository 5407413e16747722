//! `evolve`: applies one event in place: the fact itself (pawns, cards, decks), then what it
//! does to the control state and the steps that follow from it ([`super::control`]). Total
//! (never panics on a history `decide` produced, and tolerates odd ones), never draws
//! randomness.

pub mod control;

use super::board::{Colour, Node, Zone, board};
use super::event::Event;
use super::hunter::{advance, hunter_path};
use super::state::{HandCard, NOWHERE, Options, Pawn, Phase, State, Ticket};
use crate::engine::Seat;

/// What the decider's scratch pad applies each emitted event with ([`crate::decider::Scratch`]).
impl crate::decider::Evolves for State {
    type Event = Event;
    fn evolve(&mut self, event: &Event) {
        evolve(self, event)
    }
}

pub fn evolve(st: &mut State, event: &Event) {
    control::before_event(st, event);
    let start = match event {
        Event::PawnFreed { pawn, .. }
        | Event::PawnMoved { pawn, .. }
        | Event::PawnPlaced { pawn, .. } => st.pos(*pawn),
        _ => NOWHERE,
    };
    if let (Event::HunterMoved { path }, Phase::HunterMove { hunter, value }) =
        (event, st.ctl.phase.clone())
    {
        // BD-423: the roll is used once the hunter's move is over and its captures are done
        // (the pawns it lands on go to prison by the events that follow).
        let over = if st.hunter_in_pieces {
            // BD-516: one piece; the move goes on from it unless it is over.
            let piece = advance(st, hunter, path);
            st.ctl.hunt = piece.next;
            st.ctl.hunt.is_none().then_some(piece.captured)
        } else {
            Some(hunter_path(st, hunter, path).unwrap_or_default())
        };
        if let Some(captured) = over {
            let seat = control::active(st);
            let has_free = st
                .pawns_of(seat)
                .any(|p| st.is_free(p) && !captured.contains(&p));
            control::use_roll(st, value, has_free);
        }
    }
    apply(st, event);
    control::on_event(st, event, start);
    control::settle(st);
}

/// The fact itself: pawns, cards, decks.
fn apply(st: &mut State, event: &Event) {
    match event {
        Event::GameCreated {
            options,
            colours,
            order,
            segmented_moves,
            hunter_in_pieces,
            all_moves_in_segments,
            piggyback_anywhere,
            towers_follow_placements,
        } => {
            set_up(st, options, colours, order, *segmented_moves);
            st.hunter_in_pieces = *hunter_in_pieces;
            st.all_moves_in_segments = *all_moves_in_segments;
            st.piggyback_anywhere = *piggyback_anywhere;
            st.towers_follow_placements = *towers_follow_placements;
        }
        Event::SupportDeckShuffled { order } => st.support_deck = order.iter().copied().collect(),
        Event::DestinyDeckShuffled { order } => st.destiny_deck = order.iter().copied().collect(),
        Event::SupportCardsDealt { .. }
        | Event::SupportCardDrawn { .. }
        | Event::CardPlayed { .. }
        | Event::TicketActivated { .. }
        | Event::TicketSpent { .. }
        | Event::TicketsReturned { .. }
        | Event::CardsReturned { .. } => support_cards(st, event),
        Event::DestinyCardDrawn { .. }
        | Event::DestinyCardResolved { .. }
        | Event::InterrogationPlaced { .. }
        | Event::InterrogationServed { .. } => destiny_cards(st, event),
        Event::DieRolled { .. }
        | Event::FirstPlayerChosen { .. }
        | Event::Passed { .. }
        | Event::PawnAccused { .. }
        | Event::RollsGranted { .. }
        | Event::ExpressMissed { .. }
        | Event::MoveSegmentChosen { .. }
        | Event::FightStarted { .. }
        | Event::FightEnded { .. }
        | Event::BonusForfeited { .. }
        | Event::AccusationCancelled { .. }
        | Event::DecisionSkipped { .. }
        | Event::TurnEnded { .. } => {}
        Event::TurnStarted { seat, turn } => {
            st.turn = *turn;
            st.active = Some(*seat);
        }
        Event::HunterMoved { path } => {
            if let Some(&last) = path.last() {
                st.hunter = Some(last);
            }
        }
        Event::PawnFreed { pawn, to }
        | Event::PawnPlaced { pawn, to }
        | Event::ExpressRidden { pawn, to, .. }
        | Event::RiderSetDown { pawn, to } => relocate(st, *pawn, *to),
        Event::PawnMoved { pawn, path } => {
            if let Some(&to) = path.last() {
                relocate(st, *pawn, to);
            }
        }
        Event::UnitDisplaced { pawns, to } => {
            for &p in pawns {
                relocate(st, p, *to);
            }
        }
        Event::PawnImprisoned { pawn } => {
            relocate(st, *pawn, board().prison[pawn.colour().index()])
        }
        Event::PawnStacked { on, .. } => {
            if board().info(*on).zone != Zone::Ring {
                st.stacks_off_ring += 1;
            }
        }
        Event::GameWon { seat } => st.winner = Some(*seat),
    }
}

/// §3.2 setup: the table for the chosen colours, every pawn in its colour's prison (BD-021).
fn set_up(
    st: &mut State,
    options: &Options,
    colours: &[Colour],
    order: &[Seat],
    segmented_moves: bool,
) {
    let b = board();
    *st = State {
        options: options.clone(),
        seats: colours.len() as u8,
        colours: colours.to_vec(),
        order: order.to_vec(),
        occ: vec![Vec::new(); b.nodes.len()],
        pos: vec![NOWHERE; 36],
        hunter: options.bounty_hunter.then_some(b.hunter_start),
        hands: vec![Vec::new(); colours.len()],
        returned: vec![0; colours.len()],
        segmented_moves,
        ..State::default()
    };
    // BD-021: every pawn starts in its colour's prison.
    for &c in colours {
        for n in 1..=options.pawns_per_player.clamp(1, 6) {
            let p = Pawn::new(c, n);
            let prison = b.prison[c.index()];
            st.pos[p.idx()] = prison;
            st.occ[prison.idx()].push(p);
        }
    }
}

/// §3.13 support cards: dealt, drawn, played, tickets held and spent, cards returned.
fn support_cards(st: &mut State, event: &Event) {
    match event {
        Event::SupportCardsDealt { seat, count, cards } => {
            // BD-023: dealt round-robin, so the ids say which cards left the deck.
            let Some(hand) = st.hands.get_mut(seat.index()) else {
                return;
            };
            match cards {
                Some(cards) => {
                    for &card in cards {
                        if let Some(i) = st.support_deck.iter().position(|&c| c == card) {
                            st.support_deck.remove(i);
                        }
                        hand.push(HandCard { card, received: 0 });
                    }
                }
                None => {
                    for _ in 0..*count {
                        if let Some(card) = st.support_deck.pop_front() {
                            hand.push(HandCard { card, received: 0 });
                        }
                    }
                }
            }
        }
        Event::SupportCardDrawn { seat, turn, .. } => {
            if let (Some(card), Some(hand)) =
                (st.support_deck.pop_front(), st.hands.get_mut(seat.index()))
            {
                hand.push(HandCard {
                    card,
                    received: *turn,
                });
            }
        }
        Event::CardPlayed { seat, card, .. } => {
            if let Some(hand) = st.hands.get_mut(seat.index()) {
                hand.retain(|c| c.card != *card);
            }
            // BD-235: one-shot cards go under the deck at once; tickets become active instead.
            if !card.is_ticket() {
                st.support_deck.push_back(*card);
            }
        }
        Event::TicketActivated { seat, card, pawn } => st.tickets.push(Ticket {
            card: *card,
            owner: *seat,
            pawn: *pawn,
            spent: false,
        }),
        Event::TicketSpent { card } => {
            for t in st.tickets.iter_mut().filter(|t| t.card == *card) {
                t.spent = true;
            }
        }
        Event::TicketsReturned { cards } => {
            for card in cards {
                st.tickets.retain(|t| t.card != *card);
                st.support_deck.push_back(*card);
            }
        }
        Event::CardsReturned {
            seat, count, cards, ..
        } => {
            if let Some(r) = st.returned.get_mut(seat.index()) {
                *r += u32::from(*count);
            }
            for card in cards.iter().flatten() {
                if let Some(hand) = st.hands.get_mut(seat.index()) {
                    hand.retain(|c| c.card != *card);
                }
                st.tickets.retain(|t| t.card != *card);
                st.support_deck.push_back(*card);
            }
        }
        _ => {}
    }
}

/// §3.14 destiny cards and the interrogation (card 11).
fn destiny_cards(st: &mut State, event: &Event) {
    match event {
        Event::DestinyCardDrawn { card, .. } => {
            if let Some(i) = st.destiny_deck.iter().position(|c| c == card) {
                st.destiny_deck.remove(i);
            }
        }
        Event::DestinyCardResolved { card, .. } => st.destiny_deck.push_back(*card),
        Event::InterrogationPlaced { target } => st.interrogated = Some(*target),
        Event::InterrogationServed { .. } => {
            st.interrogated = None;
            st.destiny_deck.push_back(super::state::Destiny(11));
        }
        _ => {}
    }
}

/// Moves one pawn to the top of `to` (its unit mates stay where they are).
fn relocate(st: &mut State, pawn: Pawn, to: Node) {
    let Some(&from) = st.pos.get(pawn.idx()) else {
        return;
    };
    if let Some(list) = st.occ.get_mut(from.idx())
        && let Some(i) = list.iter().position(|&p| p == pawn)
    {
        list.remove(i);
    }
    if let Some(list) = st.occ.get_mut(to.idx()) {
        list.push(pawn);
        st.pos[pawn.idx()] = to;
    }
}
