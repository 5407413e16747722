//! Views per viewer, event redaction and scoring.

use super::board::{Kind, MarkerId, board};
use super::event::{Event, Trigger};
use super::legal::prompts;
use super::state::*;
use crate::engine::{Outcome, Prompt, Redacted, Seat, SeatScore, Viewer};
use serde::Serialize;

/// A whisky as everybody sees it (WR-008).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct WhiskyView {
    pub id: MarkerId,
    pub used: bool,
}

/// One seat as `viewer` sees it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub space: u8,
    pub supply: u32,
    /// Remaining chosen malt (public after the planning reveal).
    pub chosen: u32,
    /// Revealed malt choice of this round (or group bid in the variant).
    pub revealed: Option<u32>,
    /// Whether a sealed choice/bid is submitted (planning, group bidding).
    pub submitted: bool,
    /// The sealed amount itself: only for its owner (and omniscient viewers).
    pub sealed_amount: Option<u32>,
    pub whiskies: Vec<WhiskyView>,
    pub checkpoints: Vec<MarkerId>,
    pub vp_markers: u32,
    pub lost_turn: bool,
    pub arrival: Option<u8>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SpaceView {
    pub space: u8,
    pub markers: Vec<MarkerId>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DeclarationView {
    pub seat: Seat,
    /// `activation`, `use` or `veto`.
    pub kind: String,
    pub marker: MarkerId,
    pub offered_to: Option<Seat>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DuelView {
    pub challenger: Seat,
    pub defender: Seat,
    pub whisky: MarkerId,
    pub challenger_submitted: bool,
    pub defender_submitted: bool,
    /// The viewer's own bid, if he is a duellist and has bid.
    pub my_bid: Option<u32>,
}

/// A met player's customs tax still to settle, fixed when he was met (WR-155).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TaxView {
    pub seat: Seat,
    pub amount: u32,
    /// The whiskies he held when met: they cannot change hands until he pays or discards.
    pub whiskies: Vec<MarkerId>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TieView {
    pub group: u8,
    pub members: Vec<Seat>,
    pub proposal: Option<Vec<Seat>>,
    pub proposal_id: u32,
    pub accepted: Vec<Seat>,
    /// `open`, `agreed` or `failed`.
    pub status: String,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct OfferView {
    pub id: u32,
    pub from: Seat,
    pub to: Seat,
    pub give: super::command::Bundle,
    pub receive: super::command::Bundle,
}

/// Every score component of one seat (WR-133..WR-141).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ScoreLine {
    pub seat: Seat,
    /// Race place (WR-134).
    pub place: u8,
    pub race: i64,
    pub vp_markers: i64,
    pub whiskies_held: i64,
    pub malt_majority: i64,
    pub checkpoints: i64,
    pub total: i64,
    /// Whiskies held, the tie-breaker (WR-142).
    pub whisky_count: u32,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ScoreSheet {
    pub lines: Vec<ScoreLine>,
    pub winners: Vec<Seat>,
    /// How the winner was found: `highest_total`, `whisky_tie_break` or `shared`.
    pub decided_by: String,
    /// `player` or `englishman`: who reached the finish first.
    pub first_at_finish: Option<Trigger>,
}

/// The game as one viewer sees it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct View {
    pub seats: u8,
    pub round: u32,
    pub phase: String,
    pub englishman: u8,
    pub players: Vec<PlayerView>,
    pub board: Vec<SpaceView>,
    /// The reserve as a multiset of ids (its order is never shown, §4.5).
    pub reserve: Vec<MarkerId>,
    pub englishman_offer: Vec<MarkerId>,
    pub whisky_groups: Vec<Vec<MarkerId>>,
    pub turn_order: Vec<Seat>,
    pub active: Option<Seat>,
    pub turn_step: Option<String>,
    pub suspended_broras: Vec<MarkerId>,
    pub declarations: Vec<DeclarationView>,
    pub duel: Option<DuelView>,
    /// Met players still to settle their tax, in meeting order (WR-122, WR-155).
    pub taxes_pending: Vec<TaxView>,
    pub ties: Vec<TieView>,
    pub offers: Vec<OfferView>,
    pub trigger: Option<Trigger>,
    pub prompts: Vec<Prompt>,
    /// Filled once the game is over: every score component and the winners.
    pub scores: Option<ScoreSheet>,
}

fn snake<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The game as `viewer` may see it (§4: sealed amounts and duel bids only to their owner).
pub fn view(s: &State, viewer: Viewer) -> View {
    let b = board();
    let players = s.all().map(|seat| player_view(s, viewer, seat)).collect();
    let board_view = (0..b.spaces)
        .filter_map(|space| {
            let markers: Vec<MarkerId> = s.markers_at(space).collect();
            (!markers.is_empty()).then_some(SpaceView { space, markers })
        })
        .collect();
    let at = |want: &dyn Fn(&Loc) -> bool| -> Vec<MarkerId> {
        b.all_markers().filter(|m| want(&s.loc_of(*m))).collect()
    };
    let groups = (1..=s.groups_taken.len() as u8)
        .map(|g| at(&|l: &Loc| *l == Loc::Group { group: g }))
        .collect();
    let duel = s.duel.as_ref().map(|d| duel_view(d, viewer));
    View {
        seats: s.seats,
        round: s.round,
        phase: snake(&s.phase),
        englishman: s.englishman,
        players,
        board: board_view,
        reserve: s.reserve(),
        englishman_offer: at(&|l: &Loc| *l == Loc::Offer),
        whisky_groups: groups,
        turn_order: s.order.clone(),
        active: s.active(),
        turn_step: s.turn.as_ref().map(|t| snake(&t.step)),
        suspended_broras: s.suspended.clone(),
        declarations: s.decls.iter().map(declaration_view).collect(),
        duel,
        taxes_pending: s
            .taxes
            .iter()
            .map(|t| TaxView {
                seat: t.seat,
                amount: t.amount,
                whiskies: t.whiskies.clone(),
            })
            .collect(),
        ties: s
            .ties
            .iter()
            .map(|t| TieView {
                group: t.group,
                members: t.members.clone(),
                proposal: t.proposal.clone(),
                proposal_id: t.proposal_id,
                accepted: t.accepted.clone(),
                status: snake(&t.status),
            })
            .collect(),
        offers: s
            .offers
            .iter()
            .map(|o| OfferView {
                id: o.id,
                from: o.from,
                to: o.to,
                give: o.give.clone(),
                receive: o.receive.clone(),
            })
            .collect(),
        trigger: s.trigger,
        prompts: prompts(s),
        scores: s.is_over().then(|| score_sheet(s)),
    }
}

/// One player; the sealed amount only to its owner (§4.2).
fn player_view(s: &State, viewer: Viewer, seat: Seat) -> PlayerView {
    let i = seat.index();
    let sealed = s.sealed[i].as_ref();
    PlayerView {
        seat,
        space: s.pawns[i],
        supply: s.supply[i],
        chosen: s.chosen[i],
        revealed: s.revealed[i],
        submitted: sealed.is_some(),
        sealed_amount: sealed
            .filter(|_| viewer.sees_private_of(seat))
            .map(|x| x.amount),
        whiskies: s
            .whiskies_of(seat)
            .map(|id| WhiskyView {
                id,
                used: s.is_used(id),
            })
            .collect(),
        checkpoints: s
            .held_by(seat)
            .filter(|m| m.kind().is_checkpoint())
            .collect(),
        vp_markers: s.vp_markers[i],
        lost_turn: s.lost_turn[i],
        arrival: s.arrival[i],
    }
}

/// The duel; a bid only to the duellist who made it (§4.3).
fn duel_view(d: &Duel, viewer: Viewer) -> DuelView {
    let mine = match viewer {
        Viewer::Seat(me) if me == d.challenger => d.bids[0].as_ref().map(|x| x.amount),
        Viewer::Seat(me) if me == d.defender => d.bids[1].as_ref().map(|x| x.amount),
        _ => None,
    };
    DuelView {
        challenger: d.challenger,
        defender: d.defender,
        whisky: d.whisky,
        challenger_submitted: d.bids[0].is_some(),
        defender_submitted: d.bids[1].is_some(),
        my_bid: mine,
    }
}

fn declaration_view(d: &Decl) -> DeclarationView {
    DeclarationView {
        seat: d.seat,
        kind: match d.what {
            Declared::Activation { .. } => "activation".into(),
            Declared::Use { .. } => "use".into(),
            Declared::Veto { .. } => "veto".into(),
        },
        marker: d.what.subject(),
        offered_to: d.offered,
    }
}

/// Race places (WR-133, WR-134): finished by arrival, then unfinished by space; competition ranking.
pub fn race_places(s: &State) -> Vec<u8> {
    // Sort key: finished first (by arrival), then by space descending. Equal keys tie.
    let key = |seat: Seat| -> (u8, i32) {
        match s.arrival[seat.index()] {
            Some(a) => (0, i32::from(a)),
            None => (1, -i32::from(s.pawns[seat.index()])),
        }
    };
    s.all()
        .map(|me| 1 + s.all().filter(|o| key(*o) < key(me)).count() as u8)
        .collect()
}

pub fn score_lines(s: &State) -> Vec<ScoreLine> {
    let c = &board().c;
    let places = race_places(s);
    let table = match s.trigger {
        Some(Trigger::Englishman) => c.race_vp_englishman_first,
        _ => c.race_vp_scot_first,
    };
    let best = s.supply.iter().copied().max().unwrap_or(0);
    let sharing = s.supply.iter().filter(|x| **x == best).count();
    s.all()
        .map(|seat| {
            let i = seat.index();
            let place = places[i];
            // WR-135, WR-136.
            let race = if (1..=3).contains(&place) {
                table[usize::from(place) - 1]
            } else {
                0
            };
            let vp_markers = i64::from(s.vp_markers[i]) * c.pub_vp; // WR-137
            let whisky_count = s.whisky_count(seat);
            let whiskies_held = i64::from(whisky_count) * c.unsold_whisky_vp; // WR-138
            // WR-139: strictly most supply 3 VP; shared highest 1 VP each.
            let malt_majority = match (s.supply[i] == best, sharing) {
                (false, _) => 0,
                (true, 1) => c.malt_majority_vp,
                (true, _) => c.malt_majority_shared_vp,
            };
            let checkpoints: i64 = s
                .held_by(seat)
                .map(|m| i64::from(m.kind().value()) * i64::from(m.kind().is_checkpoint()))
                .sum(); // WR-140
            ScoreLine {
                seat,
                place,
                race,
                vp_markers,
                whiskies_held,
                malt_majority,
                checkpoints,
                total: race + vp_markers + whiskies_held + malt_majority + checkpoints, // WR-141
                whisky_count,
            }
        })
        .collect()
}

pub fn score_sheet(s: &State) -> ScoreSheet {
    let lines = score_lines(s);
    let top = lines.iter().map(|l| l.total).max().unwrap_or(0);
    let leaders: Vec<&ScoreLine> = lines.iter().filter(|l| l.total == top).collect();
    // WR-142: most whiskies breaks the tie; otherwise shared victory.
    let most = leaders.iter().map(|l| l.whisky_count).max().unwrap_or(0);
    let winners: Vec<Seat> = leaders
        .iter()
        .filter(|l| l.whisky_count == most)
        .map(|l| l.seat)
        .collect();
    let decided_by = if leaders.len() == 1 {
        "highest_total"
    } else if winners.len() == 1 {
        "whisky_tie_break"
    } else {
        "shared"
    };
    ScoreSheet {
        lines,
        winners,
        decided_by: decided_by.into(),
        first_at_finish: s.trigger,
    }
}

pub fn outcome(s: &State) -> Option<Outcome> {
    if !s.is_over() {
        return None;
    }
    let sheet = score_sheet(s);
    // WR-141, WR-142: every seat is ranked by its total, the winners (tie-break included) first.
    Some(Outcome::ranked_by_score(
        sheet.winners,
        sheet
            .lines
            .iter()
            .map(|l| SeatScore {
                seat: l.seat,
                score: l.total,
            })
            .collect(),
    ))
}

/// §4.6: sealed values are masked for everybody but their owner until the reveal event.
pub fn redact(e: &Event, viewer: Viewer) -> Redacted<'_, Event> {
    match e {
        Event::MaltCommitted {
            seat,
            commitment,
            forced,
            ..
        } if !forced && !viewer.sees_private_of(*seat) => Redacted::Masked(Event::MaltCommitted {
            seat: *seat,
            commitment: commitment.clone(),
            amount: None,
            salt: None,
            forced: false,
        }),
        Event::GroupBidCommitted {
            seat,
            commitment,
            forced,
            ..
        } if !forced && !viewer.sees_private_of(*seat) => {
            Redacted::Masked(Event::GroupBidCommitted {
                seat: *seat,
                commitment: commitment.clone(),
                amount: None,
                salt: None,
                forced: false,
            })
        }
        Event::DuelBidCommitted {
            seat,
            commitment,
            forced,
            ..
        } if !forced && !viewer.sees_private_of(*seat) => {
            Redacted::Masked(Event::DuelBidCommitted {
                seat: *seat,
                commitment: commitment.clone(),
                amount: None,
                salt: None,
                forced: false,
            })
        }
        _ => Redacted::Shown(e),
    }
}

/// Cheap score estimate for the greedy bot: the score so far plus race progress.
pub fn heuristic(s: &State, seat: Seat) -> i64 {
    if !s.has_seat(seat) {
        return 0;
    }
    let i = seat.index();
    let c = &board().c;
    let checkpoints: i64 = s
        .held_by(seat)
        .filter(|m| m.kind().is_checkpoint())
        .map(|m| i64::from(m.kind().value()))
        .sum();
    let brora = s.held_by(seat).filter(|m| m.kind() == Kind::Brora).count() as i64;
    let finished = if s.arrival[i].is_some() { 8 } else { 0 };
    // Trading is a no-op for this bot: each trade event costs, so it never stalls a decision
    // it owes by answering offers instead. When it is prompted for trades only (e.g. during
    // planning once its choice is sealed, WR-156) it still trades: it takes the least costly
    // command, a gift before anything else.
    let trades = 40 * i64::from(s.trade_events);
    4 * i64::from(s.pawns[i])
        + 2 * i64::from(s.supply[i])
        + 10 * i64::from(s.vp_markers[i]) * c.pub_vp / 5
        + 4 * i64::from(s.whisky_count(seat)) * c.unsold_whisky_vp / 2
        + 3 * checkpoints
        + 4 * brora
        + 4 * finished
        - trades
}
