//! `prompts` and `legal`. Candidates are generated per context and filtered through the same
//! `check` that `decide` runs, so a listed command is always accepted.
//!
//! Bounded families: trade offers (`offer_trade`) have unbounded parameters; `legal` lists a
//! representative subset only — for each other seat "ask for 1 malt" and "give 1 malt" — and only
//! while the seat has no offer of its own pending. Every other family is listed exhaustively.

use super::board::{Family, Kind, MarkerId, board};
use super::command::{Action, Bundle, Command, Direction, Piece, Reward, UseParams};
use super::decide::{action_legal, affordable_steps, check, d13_chooser};
use super::state::*;
use crate::engine::{Prompt, Seat};

/// Non-decline actions of `marker` for the active `seat` (spec §5.3).
pub fn activation_actions(s: &State, seat: Seat, marker: MarkerId) -> Vec<Action> {
    let mut out = Vec::new();
    let mut push = |a: Action| {
        if action_legal(s, seat, marker, &a).is_ok() {
            out.push(a);
        }
    };
    match (marker.family(), marker.kind()) {
        (Family::Whisky, _) => push(Action::Buy { marker: None }),
        // WR-161: brown markers are applied by the engine, never chosen.
        (Family::Brown, _) => {}
        (Family::Blue, Kind::Pub) => {
            for w in s.whiskies_of(seat) {
                push(Action::Sell {
                    whisky: w,
                    reward: Reward::Vp,
                });
                push(Action::Sell {
                    whisky: w,
                    reward: Reward::Malt,
                });
            }
        }
        (Family::Blue, Kind::StCulabansFeast) => {
            let on_board: Vec<MarkerId> = board()
                .all_markers()
                .filter(|m| matches!(s.loc_of(*m), Loc::Space { .. }))
                .collect();
            for a in &on_board {
                for b in &on_board {
                    push(Action::Swap {
                        marker_a: *a,
                        marker_b: *b,
                    });
                }
            }
        }
        (Family::Blue, Kind::EnglishmanMarker) => {
            for direction in [Direction::Forward, Direction::Backward] {
                for distance in 1..=board().c.englishman_marker_max_steps {
                    push(Action::MoveEnglishman {
                        direction,
                        distance,
                    });
                }
            }
        }
        (Family::Blue, Kind::HolyPlace) => {
            for w in s.whiskies_of(seat) {
                push(Action::Reactivate { whisky: w });
            }
            for m in board()
                .all_markers()
                .filter(|m| m.is_whisky() && matches!(s.loc_of(*m), Loc::Space { .. }))
            {
                push(Action::Buy { marker: Some(m) });
            }
        }
        (Family::Blue, _) => {}
    }
    out
}

/// Every `UseWhisky` candidate for `seat` (filtered by `check` afterwards).
fn use_candidates(s: &State, seat: Seat, out: &mut Vec<Command>) {
    for w in s.whiskies_of(seat).collect::<Vec<_>>() {
        let mut add = |params: UseParams| out.push(Command::UseWhisky { whisky: w, params });
        match w.kind() {
            Kind::Banff => {
                for b in board().all_markers().filter(|m| m.kind() == Kind::Brora) {
                    add(UseParams {
                        brora: Some(b),
                        ..UseParams::default()
                    });
                }
            }
            Kind::Benromach => add(UseParams::default()),
            Kind::Coleraine => {
                for t in s.all() {
                    add(UseParams {
                        target: Some(t),
                        ..UseParams::default()
                    });
                }
            }
            Kind::Convalmore | Kind::GlenMhor => {
                for t in s.all().filter(|t| *t != seat) {
                    for take in s.whiskies_of(t) {
                        add(UseParams {
                            target: Some(t),
                            take: Some(take),
                            ..UseParams::default()
                        });
                    }
                }
            }
            Kind::Kinclaith => {
                let pieces = s
                    .all()
                    .map(|seat| Piece::Pawn { seat })
                    .chain([Piece::Englishman {}]);
                for piece in pieces {
                    for direction in [Direction::Forward, Direction::Backward] {
                        add(UseParams {
                            piece: Some(piece),
                            direction: Some(direction),
                            ..UseParams::default()
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

fn permutations(items: &[Seat]) -> Vec<Vec<Seat>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Candidates of the blocking (non-trade) context for `seat`.
fn context_candidates(s: &State, seat: Seat) -> Vec<Command> {
    let mut out = Vec::new();
    if let Some(top) = s.decls.last() {
        if top.offered == Some(seat) {
            for b in s.held_by(seat).filter(|m| m.kind() == Kind::Banff) {
                out.push(Command::Veto { banff: b });
            }
            out.push(Command::PassVeto {});
        }
        return out;
    }
    if let Some(d) = &s.duel {
        if seat == d.challenger || seat == d.defender {
            for amount in 0..=s.supply[seat.index()] {
                out.push(Command::SubmitDuelBid { amount });
            }
        }
        return out;
    }
    if !s.taxes.is_empty() {
        if s.taxes.first().map(|t| t.seat) == Some(seat) {
            out.push(Command::PayTax {});
            for w in s.whiskies_of(seat) {
                out.push(Command::DiscardWhisky { whisky: w });
            }
        }
        return out;
    }
    match s.phase {
        Phase::SetupReplacement => {
            for m in board()
                .all_markers()
                .filter(|m| matches!(s.loc_of(*m), Loc::Space { .. }))
            {
                out.push(Command::ReplaceSetupMarker { marker: m });
            }
            out.push(Command::PassReplacement {});
        }
        Phase::GroupBidding => {
            for amount in 0..=s.supply[seat.index()].min(board().c.starting_malt) {
                out.push(Command::SubmitGroupBid { amount });
            }
        }
        Phase::GroupChoice | Phase::TieNegotiation => {
            for t in s
                .ties
                .iter()
                .filter(|t| t.status == TieStatus::Open && t.members.contains(&seat))
            {
                out.push(Command::AcceptOrder {
                    group: t.group,
                    proposal: t.proposal_id,
                });
                for order in permutations(&t.members) {
                    out.push(Command::ProposeOrder {
                        group: t.group,
                        order,
                    });
                }
                out.push(Command::RefuseAgreement { group: t.group });
            }
            for g in 1..=s.groups_taken.len() {
                out.push(Command::ChooseWhiskyGroup { group: g as u8 });
            }
        }
        Phase::Planning => {
            for amount in 0..=s.supply[seat.index()] {
                out.push(Command::SubmitMaltChoice { amount });
            }
        }
        Phase::PlayerTurns => {
            if s.active() == Some(seat) {
                for n in 1..=affordable_steps(s, seat) {
                    out.push(Command::Step { n });
                }
                out.push(Command::FinishMovement {});
                use_candidates(s, seat, &mut out);
                for m in s.markers_at(s.pawn(seat)) {
                    for action in activation_actions(s, seat, m) {
                        out.push(Command::Activate { marker: m, action });
                    }
                    out.push(Command::Activate {
                        marker: m,
                        action: Action::Decline {},
                    });
                }
                out.push(Command::EndTurn {});
            }
        }
        Phase::EndOfRound => {
            if d13_chooser(s) == Some(seat) {
                for m in board().all_markers().filter(|m| s.loc_of(*m) == Loc::Offer) {
                    out.push(Command::ChooseEnglishmanMarker { marker: m });
                }
            }
        }
        Phase::NotStarted | Phase::Setup | Phase::Over => {}
    }
    out
}

fn trade_candidates(s: &State, seat: Seat) -> Vec<Command> {
    let mut out = Vec::new();
    if !s.trading_open() {
        return out;
    }
    for o in &s.offers {
        if o.to == seat {
            out.push(Command::AcceptTrade { offer: o.id });
            out.push(Command::DeclineTrade { offer: o.id });
        }
        if o.from == seat {
            out.push(Command::WithdrawTrade { offer: o.id });
        }
    }
    if !s.offers.iter().any(|o| o.from == seat) {
        let mut offers = Vec::new();
        for to in s.all().filter(|t| *t != seat) {
            let one = Bundle {
                malt: 1,
                markers: Vec::new(),
            };
            offers.push(Command::OfferTrade {
                to,
                give: Bundle::default(),
                receive: one.clone(),
            });
            offers.push(Command::OfferTrade {
                to,
                give: one,
                receive: Bundle::default(),
            });
        }
        offers.retain(|c| check(s, seat, c).is_ok());
        // Whenever trading is open a seat with no offer of its own may offer: if neither
        // representative fits (e.g. its sealed choice leaves it no malt, WR-156, and nobody else
        // has any), the empty offer stands for the family, so that the kinds in the public
        // prompts never depend on a sealed amount.
        if offers.is_empty()
            && let Some(to) = s.all().find(|t| *t != seat)
        {
            offers.push(Command::OfferTrade {
                to,
                give: Bundle::default(),
                receive: Bundle::default(),
            });
        }
        out.extend(offers);
    }
    out
}

/// `Game::legal`.
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    if !s.has_seat(seat) || matches!(s.phase, Phase::Over | Phase::NotStarted) {
        return Vec::new();
    }
    let mut out: Vec<Command> = context_candidates(s, seat);
    out.extend(trade_candidates(s, seat));
    out.retain(|c| check(s, seat, c).is_ok());
    out
}

fn kind_of(c: &Command) -> &'static str {
    match c {
        Command::ReplaceSetupMarker { .. } => "replace_setup_marker",
        Command::PassReplacement {} => "pass_replacement",
        Command::SubmitGroupBid { .. } => "submit_group_bid",
        Command::ProposeOrder { .. } => "propose_order",
        Command::AcceptOrder { .. } => "accept_order",
        Command::RefuseAgreement { .. } => "refuse_agreement",
        Command::ChooseWhiskyGroup { .. } => "choose_whisky_group",
        Command::SubmitMaltChoice { .. } => "submit_malt_choice",
        Command::Step { .. } => "step",
        Command::FinishMovement {} => "finish_movement",
        Command::UseWhisky { .. } => "use_whisky",
        Command::Activate { .. } => "activate",
        Command::EndTurn {} => "end_turn",
        Command::Veto { .. } => "veto",
        Command::PassVeto {} => "pass_veto",
        Command::SubmitDuelBid { .. } => "submit_duel_bid",
        Command::PayTax {} => "pay_tax",
        Command::DiscardWhisky { .. } => "discard_whisky",
        Command::ChooseEnglishmanMarker { .. } => "choose_englishman_marker",
        Command::OfferTrade { .. } => "offer_trade",
        Command::AcceptTrade { .. } => "accept_trade",
        Command::DeclineTrade { .. } => "decline_trade",
        Command::WithdrawTrade { .. } => "withdraw_trade",
    }
}

/// The state with every sealed amount replaced by 0: what everybody may know. Prompts are
/// public, so they are computed from it: whether a seat may still accept or make an offer
/// during planning must not tell the others how much it chose (WR-156, §4.2).
fn public_projection(s: &State) -> std::borrow::Cow<'_, State> {
    if s.sealed.iter().all(Option::is_none) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut public = s.clone();
    for sealed in public.sealed.iter_mut().flatten() {
        sealed.amount = 0;
    }
    std::borrow::Cow::Owned(public)
}

/// `Game::prompts`: every seat with at least one legal command, with the kinds it may send.
/// Blocking contexts come first in each kind list; trade kinds (never blocking) follow.
/// Computed on the public projection: a seat's own `legal` (which it alone sees) may lack an
/// `accept_trade` its prompt shows, when its sealed choice makes that acceptance unaffordable.
pub fn prompts(s: &State) -> Vec<Prompt> {
    let mut out = Vec::new();
    if matches!(s.phase, Phase::Over | Phase::NotStarted) {
        return out;
    }
    let public = public_projection(s);
    let s: &State = &public;
    for seat in s.all() {
        let mut kinds: Vec<&'static str> = Vec::new();
        for c in legal(s, seat) {
            let k = kind_of(&c);
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        if !kinds.is_empty() {
            out.push(Prompt::new(seat, &kinds));
        }
    }
    // Seats the game waits for come first (then trade-only seats), so that a client taking the
    // first prompt and its first legal command always moves the game forward.
    out.sort_by_key(|p| !waits_for(s, p.seat));
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
