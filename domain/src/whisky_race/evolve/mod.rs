//! `evolve`: applies one event in place. Total: never fails, never draws, never panics on a
//! history produced by `decide` (out-of-range values are ignored or saturated).

use super::board::{Family, Kind, MarkerId, board};
use super::command::Piece;
use super::event::{Event, Trigger};
use super::state::*;
use crate::engine::Seat;

fn seat_ok(s: &State, seat: Seat) -> bool {
    seat.index() < s.pawns.len()
}

fn set_loc(s: &mut State, m: MarkerId, to: Loc) {
    if let Some(l) = s.loc.get_mut(m.index()) {
        *l = to;
    }
    // WR-007: markers back in the reserve (or anywhere off a player) come back face up.
    if !matches!(to, Loc::Held { .. })
        && let Some(u) = s.used.get_mut(m.index())
    {
        *u = false;
    }
}

fn supply_mut(s: &mut State, seat: Seat) -> Option<&mut u32> {
    s.supply.get_mut(seat.index())
}

/// Supply → bank.
fn pay_bank(s: &mut State, seat: Seat, amount: u32) {
    if let Some(v) = supply_mut(s, seat) {
        let paid = amount.min(*v);
        *v -= paid;
        s.bank_in += u64::from(paid);
    }
}

/// Bank → supply.
fn from_bank(s: &mut State, seat: Seat, amount: u32) {
    if let Some(v) = supply_mut(s, seat) {
        *v = v.saturating_add(amount);
        s.bank_out += u64::from(amount);
    }
}

/// Supply → supply.
fn transfer(s: &mut State, from: Seat, to: Seat, amount: u32) {
    if !seat_ok(s, from) || !seat_ok(s, to) {
        return;
    }
    let moved = amount.min(s.supply[from.index()]);
    s.supply[from.index()] -= moved;
    s.supply[to.index()] += moved;
}

fn arrive(s: &mut State, piece: Piece, arrival: Option<u8>, triggers_end: bool) {
    if let Piece::Pawn { seat } = piece
        && seat_ok(s, seat)
        && let Some(a) = arrival
    {
        s.arrival[seat.index()] = Some(a);
        s.arrivals = s.arrivals.max(a);
    }
    if triggers_end && s.trigger.is_none() {
        s.trigger = Some(match piece {
            Piece::Pawn { .. } => Trigger::Player,
            Piece::Englishman {} => Trigger::Englishman,
        });
    }
}

fn start_game(s: &mut State, seats: u8, options: &super::event::Options, single_activation: bool) {
    let b = board();
    let n = usize::from(seats);
    *s = State {
        seats,
        options: options.clone(),
        single_activation,
        phase: Phase::Setup,
        pawns: vec![b.start; n],
        englishman: b.englishman_start,
        supply: vec![b.c.starting_malt; n],
        chosen: vec![0; n],
        vp_markers: vec![0; n],
        loc: b
            .markers
            .iter()
            .map(|m| {
                if m.in_play {
                    Loc::Reserve
                } else {
                    Loc::OutOfPlay
                }
            })
            .collect(),
        used: vec![false; b.markers.len()],
        sealed: vec![None; n],
        revealed: vec![None; n],
        lost_turn: vec![false; n],
        arrival: vec![None; n],
        initial_malt: u64::from(b.c.starting_malt) * n as u64,
        forward_steps: vec![0; n],
        kinclaith_shift: vec![0; n],
        planning_trades: vec![0; n],
        ..State::default()
    };
    // WR-012 (starting whiskies) unless the group-bidding variant replaces them (WR-147).
    if !options.group_bidding {
        for seat in Seat::all(seats) {
            for m in b.starting_whiskies(seat.number()) {
                set_loc(s, m, Loc::Held { seat });
            }
        }
    }
    // WR-014 standard setup unless random (WR-143).
    if !options.random_setup {
        for (space, m) in &b.standard_setup {
            set_loc(s, *m, Loc::Space { space: *space });
        }
    }
}

fn start_turn(s: &mut State, seat: Seat) {
    if !seat_ok(s, seat) {
        return;
    }
    s.turn = Some(Turn {
        seat,
        start_space: s.pawns[seat.index()],
        step: TurnStep::Movement,
        whisky_used: false,
        convalmore_blocked: None,
    });
    s.took_turn.push(seat);
    s.next += 1;
    s.turns_played += 1;
}

fn pop_decl(s: &mut State) -> Option<Decl> {
    s.decls.pop()
}

/// WR-083, WR-159: a whisky use (a veto included) counts against the per-turn limit only for
/// the active player, during his own turn.
fn count_use(s: &mut State, seat: Seat) {
    if let Some(t) = s.turn.as_mut()
        && t.seat == seat
    {
        t.whisky_used = true;
    }
}

/// The seat that sent a trade command, from its event (statistics).
fn trader(s: &State, e: &Event) -> Option<Seat> {
    let offer = |id: &u32| s.offers.iter().find(|o| o.id == *id);
    match e {
        Event::TradeOffered { from, .. } => Some(*from),
        Event::TradeAccepted { offer: id } | Event::TradeDeclined { offer: id } => {
            offer(id).map(|o| o.to)
        }
        Event::TradeWithdrawn { offer: id } => offer(id).map(|o| o.from),
        _ => None,
    }
}

/// Settles the tax of `seat` (WR-120): it leaves the queue.
fn settle_tax(s: &mut State, seat: Seat) {
    s.taxes.retain(|t| t.seat != seat);
}

/// What the decider's scratch pad applies each emitted event with ([`crate::decider::Scratch`]).
impl crate::decider::Evolves for State {
    type Event = Event;
    fn evolve(&mut self, event: &Event) {
        evolve(self, event)
    }
}

/// Applies one event.
pub fn evolve(s: &mut State, e: &Event) {
    if matches!(
        e,
        Event::TradeOffered { .. }
            | Event::TradeAccepted { .. }
            | Event::TradeDeclined { .. }
            | Event::TradeWithdrawn { .. }
    ) {
        s.trade_events += 1;
        if s.phase == Phase::Planning
            && let Some(seat) = trader(s, e)
            && let Some(n) = s.planning_trades.get_mut(seat.index())
        {
            *n += 1;
        }
    }
    // One function per family of events; each ignores the events of the others.
    const FAMILIES: [fn(&mut State, &Event) -> bool; 9] = [
        setup,
        group_choice_and_round_start,
        turn_order,
        movement_and_activation,
        declarations,
        effects,
        duels_and_moves,
        end_of_turn_and_round,
        trades,
    ];
    for family in FAMILIES {
        if family(s, e) {
            return;
        }
    }
}

/// Setup: the game, the setup markers, lots, replacements, group bids (WR-143..WR-148).
fn setup(s: &mut State, e: &Event) -> bool {
    match e {
        Event::GameStarted {
            seats,
            options,
            single_activation,
            ..
        } => start_game(s, *seats, options, *single_activation),
        Event::SetupMarkersPlaced { placements } => {
            for p in placements {
                set_loc(s, p.marker, Loc::Space { space: p.space });
            }
        }
        Event::LotDrawn { purpose, order } => match purpose {
            super::event::LotPurpose::SetupReplacement => {
                s.order = order.clone();
                s.next = 0;
                s.phase = Phase::SetupReplacement;
            }
            super::event::LotPurpose::GroupBidTie => {
                // The lot fixes the relative order of the failed group (WR-150).
                if let Some(t) = s
                    .ties
                    .iter_mut()
                    .find(|t| t.status == TieStatus::Failed && t.proposal.is_none())
                {
                    t.proposal = Some(order.clone());
                }
            }
        },
        Event::SetupMarkerReplaced {
            space,
            removed,
            replacement,
            ..
        } => {
            set_loc(s, *replacement, Loc::Space { space: *space });
            set_loc(s, *removed, Loc::Reserve);
            s.next += 1;
        }
        Event::SetupReplacementPassed { .. } => s.next += 1,
        Event::WhiskyGroupsDealt { groups } => {
            for (g, markers) in groups.iter().enumerate() {
                for m in markers {
                    set_loc(s, *m, Loc::Group { group: g as u8 + 1 });
                }
            }
            s.groups_taken = vec![None; groups.len()];
            s.phase = Phase::GroupBidding;
            s.offers.clear();
            s.sealed.iter_mut().for_each(|x| *x = None);
        }
        Event::GroupBidCommitted {
            seat,
            commitment,
            amount,
            salt,
            ..
        }
        | Event::MaltCommitted {
            seat,
            commitment,
            amount,
            salt,
            ..
        } => {
            if let Some(slot) = s.sealed.get_mut(seat.index()) {
                *slot = Some(Sealed {
                    amount: amount.unwrap_or(0),
                    salt: salt.clone().unwrap_or_default(),
                    commitment: commitment.clone(),
                });
            }
        }
        _ => return false,
    }
    true
}

/// Group choice, the Englishman's offer, the round start and the malt reveal.
fn group_choice_and_round_start(s: &mut State, e: &Event) -> bool {
    match e {
        Event::GroupBidsRevealed { bids } => {
            for b in bids {
                if seat_ok(s, b.seat) {
                    s.revealed[b.seat.index()] = Some(b.amount);
                    pay_bank(s, b.seat, b.amount);
                }
            }
            s.sealed.iter_mut().for_each(|x| *x = None);
            s.phase = Phase::GroupChoice;
            s.order.clear();
            s.next = 0;
        }
        Event::WhiskyGroupChosen { seat, group, .. } => {
            for i in 0..s.loc.len() {
                if s.loc[i] == (Loc::Group { group: *group }) {
                    s.loc[i] = Loc::Held { seat: *seat };
                }
            }
            if let Some(g) = s.groups_taken.get_mut(usize::from(*group).wrapping_sub(1)) {
                *g = Some(*seat);
            }
            s.next += 1;
        }
        Event::EnglishmanOfferDrawn { markers } => {
            for m in markers {
                set_loc(s, *m, Loc::Offer);
            }
        }
        Event::RoundStarted { round } => {
            s.round = *round;
            s.phase = Phase::Planning; // Offers stay pending: trading is open (WR-156).
            s.sealed.iter_mut().for_each(|x| *x = None);
            s.revealed.iter_mut().for_each(|x| *x = None);
            s.lost_turn.iter_mut().for_each(|x| *x = false);
            s.ties.clear();
            s.order.clear();
            s.next = 0;
            s.took_turn.clear();
            s.turn = None;
            s.eor = Eor::Move;
        }
        Event::MaltRevealed { choices } => {
            for c in choices {
                if seat_ok(s, c.seat) {
                    let i = c.seat.index();
                    let amount = c.amount.min(s.supply[i]);
                    s.supply[i] -= amount;
                    s.chosen[i] += amount;
                    s.revealed[i] = Some(amount);
                }
            }
            s.sealed.iter_mut().for_each(|x| *x = None);
            s.phase = Phase::TieNegotiation;
        }
        _ => return false,
    }
    true
}

/// Tie groups, order proposals and agreements, lost turns, the fixed order, turn starts.
fn turn_order(s: &mut State, e: &Event) -> bool {
    match e {
        Event::TieGroupsFormed { groups } => {
            s.ties = groups
                .iter()
                .enumerate()
                .map(|(i, members)| Tie {
                    group: i as u8 + 1,
                    members: members.clone(),
                    proposal: None,
                    proposal_id: 0,
                    accepted: Vec::new(),
                    status: TieStatus::Open,
                })
                .collect();
        }
        Event::OrderProposed {
            seat,
            group,
            proposal,
            order,
        } => {
            if let Some(t) = s.ties.iter_mut().find(|t| t.group == *group) {
                t.proposal = Some(order.clone());
                t.proposal_id = *proposal;
                t.accepted = vec![*seat];
            }
        }
        Event::OrderAccepted { seat, group, .. } => {
            if let Some(t) = s.ties.iter_mut().find(|t| t.group == *group)
                && !t.accepted.contains(seat)
            {
                t.accepted.push(*seat);
            }
        }
        Event::OrderAgreed { group, order } => {
            if let Some(t) = s.ties.iter_mut().find(|t| t.group == *group) {
                t.status = TieStatus::Agreed;
                t.proposal = Some(order.clone());
            }
        }
        Event::AgreementRefused { group, .. } => {
            if let Some(t) = s.ties.iter_mut().find(|t| t.group == *group) {
                t.status = TieStatus::Failed;
                // In the group-bidding variant the lot fills the proposal in (WR-150).
                t.proposal = None;
            }
        }
        Event::TurnsLost { seats, .. } => {
            for seat in seats {
                if seat_ok(s, *seat) {
                    let i = seat.index();
                    s.lost_turn[i] = true;
                    s.bank_in += u64::from(s.chosen[i]);
                    s.chosen[i] = 0;
                }
            }
        }
        Event::TurnOrderFixed { order } => {
            s.order = order.clone();
            s.next = 0;
            if s.phase == Phase::TieNegotiation {
                s.phase = Phase::PlayerTurns;
            }
        }
        Event::TurnStarted { seat } => start_turn(s, *seat),
        _ => return false,
    }
    true
}

/// Movement, the finish, activations declined or declared, whiskies bought.
fn movement_and_activation(s: &mut State, e: &Event) -> bool {
    match e {
        Event::PawnStepped { seat, to, cost, .. } => {
            if seat_ok(s, *seat) {
                let i = seat.index();
                let paid = (*cost).min(s.chosen[i]);
                s.chosen[i] -= paid;
                s.bank_in += u64::from(paid);
                let from = s.pawns[i];
                s.pawns[i] = *to;
                s.forward_steps[i] += u32::from(to.saturating_sub(from));
            }
        }
        Event::MovementFinished { .. } => {
            if let Some(t) = s.turn.as_mut() {
                t.step = TurnStep::ActivationCheck;
            }
        }
        Event::FinishReached {
            piece,
            arrival,
            triggers_end,
        } => arrive(s, *piece, *arrival, *triggers_end),
        Event::ActivationSkipped { .. } | Event::ActivationDeclined { .. } => {
            if let Some(t) = s.turn.as_mut() {
                t.step = TurnStep::PostActivation;
            }
        }
        Event::WhiskyBought {
            seat,
            marker,
            price,
        } => {
            pay_bank(s, *seat, *price);
            set_loc(s, *marker, Loc::Held { seat: *seat });
            if let Some(t) = s.turn.as_mut() {
                t.step = TurnStep::PostActivation;
            }
        }
        Event::ActivationDeclared {
            seat,
            marker,
            action,
            automatic,
        } => {
            if marker.family() == Family::Brown && !automatic {
                s.browns_chosen += 1;
            }
            s.decls.push(Decl {
                seat: *seat,
                what: Declared::Activation {
                    marker: *marker,
                    action: action.clone(),
                },
                offered: None,
                cursor: *seat,
            });
            // WR-064: the activation check is used up whatever happens next — WR-162: by the
            // one marker activated, brown or not. Before WR-162, a brown marker applied on top
            // of the player's choice (WR-161).
            if (s.single_activation || marker.family() != Family::Brown)
                && let Some(t) = s.turn.as_mut()
            {
                t.step = TurnStep::PostActivation;
            }
        }
        _ => return false,
    }
    true
}

/// Whisky uses, veto windows and declarations resolved or cancelled.
fn declarations(s: &mut State, e: &Event) -> bool {
    match e {
        Event::WhiskyUseDeclared {
            seat,
            whisky,
            params,
        } => {
            count_use(s, *seat);
            s.decls.push(Decl {
                seat: *seat,
                what: Declared::Use {
                    whisky: *whisky,
                    params: params.clone(),
                },
                offered: None,
                cursor: *seat,
            });
        }
        Event::VetoOffered { seat } => {
            if let Some(d) = s.decls.last_mut() {
                d.offered = Some(*seat);
            }
        }
        Event::VetoPassed { seat } => {
            if let Some(d) = s.decls.last_mut() {
                d.offered = None;
                d.cursor = *seat;
            }
        }
        Event::VetoDeclared { seat, banff } => {
            if let Some(d) = s.decls.last_mut() {
                d.offered = None;
                d.cursor = *seat;
            }
            count_use(s, *seat);
            s.vetoes += 1;
            let unused_banffs = s
                .held_by(*seat)
                .filter(|m| m.kind() == Kind::Banff && !s.is_used(*m))
                .count();
            if unused_banffs >= 2 {
                s.multi_banff_vetoes += 1;
            }
            s.decls.push(Decl {
                seat: *seat,
                what: Declared::Veto { banff: *banff },
                offered: None,
                cursor: *seat,
            });
        }
        Event::DeclarationResolved { .. } => {
            pop_decl(s);
        }
        Event::DeclarationCancelled { .. } => {
            if let Some(d) = pop_decl(s)
                && let Declared::Use { whisky, .. } = d.what
                && whisky.kind() == Kind::Convalmore
                && let Some(t) = s.turn.as_mut()
            {
                t.convalmore_blocked = Some(whisky);
            }
        }
        Event::WhiskyTurnedUsed { whisky } => {
            if let Some(u) = s.used.get_mut(whisky.index()) {
                *u = true;
            }
        }
        _ => return false,
    }
    true
}

/// Effects: collections, checkpoints, sales, swaps, reactivations, thefts.
fn effects(s: &mut State, e: &Event) -> bool {
    match e {
        Event::MaltSourceCollected {
            seat,
            marker,
            amount,
        } => {
            from_bank(s, *seat, *amount);
            set_loc(s, *marker, Loc::Reserve);
        }
        Event::CheckpointTaken { seat, marker } => set_loc(s, *marker, Loc::Held { seat: *seat }),
        Event::MarkerReturned { marker } => set_loc(s, *marker, Loc::Reserve),
        Event::WhiskySold {
            seat,
            whisky,
            reward,
        } => {
            set_loc(s, *whisky, Loc::Reserve);
            match reward {
                super::command::Reward::Vp => {
                    if let Some(v) = s.vp_markers.get_mut(seat.index()) {
                        *v += 1;
                    }
                }
                super::command::Reward::Malt => from_bank(s, *seat, board().c.pub_malt),
            }
        }
        Event::MarkersSwapped {
            marker_a,
            space_a,
            marker_b,
            space_b,
        } => {
            set_loc(s, *marker_a, Loc::Space { space: *space_b });
            set_loc(s, *marker_b, Loc::Space { space: *space_a });
        }
        Event::WhiskyReactivated { whisky, .. } => {
            // WR-079, WR-160: usable again, within the turn's one whisky use.
            if let Some(u) = s.used.get_mut(whisky.index()) {
                *u = false;
            }
        }
        Event::BroraSuspended { brora } => {
            if !s.suspended.contains(brora) {
                s.suspended.push(*brora);
            }
        }
        Event::MaltStolen {
            thief,
            victim,
            amount,
            from_chosen,
        } => {
            if seat_ok(s, *thief) && seat_ok(s, *victim) {
                let pool = if *from_chosen {
                    &mut s.chosen
                } else {
                    &mut s.supply
                };
                let moved = (*amount).min(pool[victim.index()]);
                pool[victim.index()] -= moved;
                s.supply[thief.index()] += moved;
            }
        }
        Event::WhiskiesSwapped {
            seat,
            target,
            given,
            taken,
        } => {
            set_used_keep(s, *given, Loc::Held { seat: *target });
            set_used_keep(s, *taken, Loc::Held { seat: *seat });
        }
        _ => return false,
    }
    true
}

/// Duels, Kinclaith's moves, the Englishman, pending activations, taxes.
fn duels_and_moves(s: &mut State, e: &Event) -> bool {
    match e {
        Event::DuelStarted {
            challenger,
            defender,
            whisky,
        } => {
            s.duel = Some(Duel {
                challenger: *challenger,
                defender: *defender,
                whisky: *whisky,
                bids: [None, None],
            });
            s.offers.clear(); // WR-038
        }
        Event::DuelBidCommitted {
            seat,
            commitment,
            amount,
            salt,
            ..
        } => {
            if let Some(d) = s.duel.as_mut() {
                let sealed = Sealed {
                    amount: amount.unwrap_or(0),
                    salt: salt.clone().unwrap_or_default(),
                    commitment: commitment.clone(),
                };
                if *seat == d.challenger {
                    d.bids[0] = Some(sealed);
                } else if *seat == d.defender {
                    d.bids[1] = Some(sealed);
                }
            }
        }
        Event::DuelResolved { bids, winner } => {
            if let Some(d) = s.duel.take() {
                let bid = |seat: Seat| {
                    bids.iter()
                        .find(|b| b.seat == seat)
                        .map(|b| b.amount)
                        .unwrap_or(0)
                };
                let (cb, db) = (bid(d.challenger), bid(d.defender));
                match winner {
                    // WR-106: the winner pays his bid to the loser, the loser pays his to the bank.
                    Some(w) if *w == d.challenger => {
                        transfer(s, d.challenger, d.defender, cb);
                        pay_bank(s, d.defender, db);
                        set_used_keep(s, d.whisky, Loc::Held { seat: d.challenger });
                    }
                    Some(_) => {
                        transfer(s, d.defender, d.challenger, db);
                        pay_bank(s, d.challenger, cb);
                    }
                    None => {} // WR-107
                }
            }
        }
        Event::PieceMovedByKinclaith { piece, from, to } => match piece {
            Piece::Englishman {} => s.englishman = *to,
            Piece::Pawn { seat } => {
                if seat_ok(s, *seat) {
                    s.pawns[seat.index()] = *to;
                    s.kinclaith_shift[seat.index()] += i32::from(*to) - i32::from(*from);
                }
            }
        },
        _ => return false,
    }
    true
}

/// Taxes paid, discards, the turn end, the end of round and of the game.
fn end_of_turn_and_round(s: &mut State, e: &Event) -> bool {
    match e {
        Event::EnglishmanMoved { to, cause, .. } => {
            s.englishman = *to;
            if *cause == super::event::EnglishmanCause::EndOfRound {
                s.phase = Phase::EndOfRound;
                s.eor = Eor::Draw;
            }
        }
        Event::ActivationPending { .. } => {
            if let Some(t) = s.turn.as_mut() {
                t.step = TurnStep::Activation;
            }
        }
        Event::TaxNotOwed { .. } => {}
        Event::TaxAssessed {
            seat,
            amount,
            whiskies,
        } => s.taxes.push(TaxDue {
            seat: *seat,
            amount: *amount,
            whiskies: whiskies.clone(),
        }),
        Event::TaxPaid { seat, amount } => {
            pay_bank(s, *seat, *amount);
            settle_tax(s, *seat);
        }
        Event::WhiskyDiscarded { seat, whisky, .. } => {
            set_loc(s, *whisky, Loc::Reserve);
            settle_tax(s, *seat);
        }
        Event::TurnEnded { seat, .. } => {
            if seat_ok(s, *seat) {
                let i = seat.index();
                s.bank_in += u64::from(s.chosen[i]);
                s.chosen[i] = 0;
            }
            s.turn = None;
        }
        Event::MarkerDrawn { marker, space } => {
            set_loc(s, *marker, Loc::Space { space: *space });
            s.eor = Eor::Income;
        }
        Event::ReserveEmpty => s.eor = Eor::Income,
        Event::EnglishmanMarkerChosen { marker, space, .. } => {
            set_loc(s, *marker, Loc::Space { space: *space });
            // WR-154: the other offered markers return to the reserve.
            for l in s.loc.iter_mut() {
                if *l == Loc::Offer {
                    *l = Loc::Reserve;
                }
            }
            s.eor = Eor::Income;
        }
        Event::IncomePaid { amounts } => {
            for (i, a) in amounts.iter().enumerate().take(s.supply.len()) {
                s.supply[i] += a;
                s.bank_out += u64::from(*a);
            }
            s.eor = Eor::Close;
        }
        Event::RoundEnded { .. } => {
            s.suspended.clear();
        }
        Event::GameEnded => {
            s.phase = Phase::Over;
            s.offers.clear();
            s.turn = None;
        }
        _ => return false,
    }
    true
}

/// Trades during planning.
fn trades(s: &mut State, e: &Event) -> bool {
    match e {
        Event::TradeOffered {
            offer,
            from,
            to,
            give,
            receive,
        } => {
            s.offers.push(Offer {
                id: *offer,
                from: *from,
                to: *to,
                give: give.clone(),
                receive: receive.clone(),
            });
            s.next_offer = s.next_offer.max(offer + 1);
        }
        Event::TradeAccepted { offer } => {
            if let Some(pos) = s.offers.iter().position(|o| o.id == *offer) {
                let o = s.offers.remove(pos);
                transfer(s, o.from, o.to, o.give.malt);
                transfer(s, o.to, o.from, o.receive.malt);
                for m in &o.give.markers {
                    set_used_keep(s, *m, Loc::Held { seat: o.to });
                }
                for m in &o.receive.markers {
                    set_used_keep(s, *m, Loc::Held { seat: o.from });
                }
            }
        }
        Event::TradeDeclined { offer } | Event::TradeWithdrawn { offer } => {
            s.offers.retain(|o| o.id != *offer)
        }
        _ => return false,
    }
    true
}

/// Moves a whisky between players keeping its used state (WR-041, WR-101, WR-106).
fn set_used_keep(s: &mut State, m: MarkerId, to: Loc) {
    if let Some(l) = s.loc.get_mut(m.index()) {
        *l = to;
    }
}
