//! The state folded from events. `State::default()` is "before setup".

use super::board::{Kind, MarkerId, board};
use super::command::{Action, Bundle, UseParams};
use super::event::{Options, Trigger};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// Where a marker instance is. Every instance is in exactly one place (conservation by construction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Loc {
    /// Glenlochy (WR-011).
    OutOfPlay,
    /// The face-down marker reserve (WR-015).
    #[default]
    Reserve,
    /// Face up on a space.
    Space { space: u8 },
    /// Held by a player (whiskies, checkpoints).
    Held { seat: Seat },
    /// In a whisky group of the group-bidding variant (WR-148).
    Group { group: u8 },
    /// In the Englishman offer (WR-153).
    Offer,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    NotStarted,
    /// Right after `game_started`, before the first decision.
    Setup,
    /// D1.
    SetupReplacement,
    /// D2.
    GroupBidding,
    /// D3 (ties) then D4 (`order` is the choosing order once fixed).
    GroupChoice,
    /// D5.
    Planning,
    /// D6.
    TieNegotiation,
    /// D7..D11 inside player-turns.
    PlayerTurns,
    /// End of round (D12, D13).
    EndOfRound,
    Over,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStep {
    /// D7.
    #[default]
    Movement,
    /// The engine performs the activation check next.
    ActivationCheck,
    /// D8.
    Activation,
    /// D9.
    PostActivation,
}

/// The current player-turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub seat: Seat,
    /// Space at the beginning of the turn (WR-157).
    pub start_space: u8,
    pub step: TurnStep,
    /// The active player declared his one whisky use of the turn, a counter-veto included
    /// (WR-083). It binds him during his own turn only (WR-159), and a whisky reactivated at the
    /// holy place is no exception (WR-160).
    #[serde(default)]
    pub whisky_used: bool,
    /// A Convalmore whose swap was vetoed this turn (WR-092).
    pub convalmore_blocked: Option<MarkerId>,
}

/// What a pending declaration is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Declared {
    Activation { marker: MarkerId, action: Action },
    Use { whisky: MarkerId, params: UseParams },
    Veto { banff: MarkerId },
}

impl Declared {
    /// The marker the declaration is about (the activated marker, the used whisky, the Banff).
    pub fn subject(&self) -> MarkerId {
        match self {
            Declared::Activation { marker, .. } => *marker,
            Declared::Use { whisky, .. } => *whisky,
            Declared::Veto { banff } => *banff,
        }
    }
}

/// A declaration waiting for its veto window (§3.13).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decl {
    pub seat: Seat,
    pub what: Declared,
    /// The seat currently offered the window.
    pub offered: Option<Seat>,
    /// The last seat considered; offers continue in seat order after it (WR-089).
    pub cursor: Seat,
}

/// A sealed value kept server-side until its reveal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub amount: u32,
    pub salt: String,
    pub commitment: String,
}

/// A pending Glen Mhor duel (D11).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duel {
    pub challenger: Seat,
    pub defender: Seat,
    pub whisky: MarkerId,
    /// Bids of challenger and defender.
    pub bids: [Option<Sealed>; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieStatus {
    Open,
    Agreed,
    Failed,
}

/// A tie group negotiating its order (D3, D6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tie {
    pub group: u8,
    pub members: Vec<Seat>,
    pub proposal: Option<Vec<Seat>>,
    pub proposal_id: u32,
    pub accepted: Vec<Seat>,
    pub status: TieStatus,
}

/// A met player's customs tax, fixed when the Englishman met him (WR-155): `amount` for the
/// `whiskies` he held then, which cannot leave his hands until it is settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxDue {
    pub seat: Seat,
    pub amount: u32,
    pub whiskies: Vec<MarkerId>,
}

/// A pending trade offer (WR-037).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    pub id: u32,
    pub from: Seat,
    pub to: Seat,
    pub give: Bundle,
    pub receive: Bundle,
}

/// End-of-round sub-step (WR-124..WR-127).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Eor {
    #[default]
    Move,
    Draw,
    Income,
    Close,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub seats: u8,
    pub options: Options,
    /// WR-162: one marker of a space is activated, brown ones included (`game_started`;
    /// false in games begun before it, which keep WR-161).
    #[serde(default)]
    pub single_activation: bool,
    pub phase: Phase,
    pub round: u32,
    pub pawns: Vec<u8>,
    pub englishman: u8,
    pub supply: Vec<u32>,
    pub chosen: Vec<u32>,
    pub vp_markers: Vec<u32>,
    /// Location of every marker instance, indexed by [`MarkerId::index`].
    pub loc: Vec<Loc>,
    /// Face-down flag of every marker instance.
    pub used: Vec<bool>,
    /// Broras suspended for this round's income (WR-095).
    pub suspended: Vec<MarkerId>,
    /// Sealed planning choices or group bids (hidden until the reveal).
    pub sealed: Vec<Option<Sealed>>,
    /// Chosen amounts (planning) or group bids after the reveal.
    pub revealed: Vec<Option<u32>>,
    pub ties: Vec<Tie>,
    /// Turn order, lot order (D1) or choosing order (D4).
    pub order: Vec<Seat>,
    /// Position in `order` of the next seat to act.
    pub next: usize,
    pub lost_turn: Vec<bool>,
    pub turn: Option<Turn>,
    /// Seats that actually took a turn this round, in order (WR-153).
    pub took_turn: Vec<Seat>,
    /// Declaration stack, innermost last (§3.13).
    pub decls: Vec<Decl>,
    pub duel: Option<Duel>,
    /// Met players still to settle their tax, in meeting order (WR-122), each with the tax
    /// fixed when he was met (WR-155).
    pub taxes: Vec<TaxDue>,
    pub eor: Eor,
    /// Arrival index at the finish of each seat (WR-130).
    pub arrival: Vec<Option<u8>>,
    pub arrivals: u8,
    pub trigger: Option<Trigger>,
    pub offers: Vec<Offer>,
    pub next_offer: u32,
    /// Group bidding: who took each group.
    pub groups_taken: Vec<Option<Seat>>,
    // ---- accounting for the invariants ----
    pub initial_malt: u64,
    pub bank_in: u64,
    pub bank_out: u64,
    pub forward_steps: Vec<u32>,
    pub kinclaith_shift: Vec<i32>,
    /// Player-turns played in the whole game (statistics).
    pub turns_played: u32,
    /// Trade events so far (statistics and the greedy bot's heuristic).
    pub trade_events: u32,
    /// Trade commands each seat made during planning phases (offers, acceptances, declines,
    /// withdrawals; WR-156; statistics).
    #[serde(default)]
    pub planning_trades: Vec<u32>,
    /// Banff vetoes declared (statistics).
    #[serde(default)]
    pub vetoes: u32,
    /// Banff vetoes declared by a seat holding two unused Banffs (WR-159; statistics).
    #[serde(default)]
    pub multi_banff_vetoes: u32,
    /// Brown markers a player chose among several markers of his space (WR-162; statistics).
    #[serde(default)]
    pub browns_chosen: u32,
}

impl State {
    pub fn all(&self) -> impl Iterator<Item = Seat> + Clone + use<> {
        Seat::all(self.seats)
    }
    pub fn has_seat(&self, seat: Seat) -> bool {
        seat.number() <= self.seats
    }
    pub fn markers_at(&self, space: u8) -> impl Iterator<Item = MarkerId> + '_ {
        self.loc
            .iter()
            .enumerate()
            .filter(move |(_, l)| **l == Loc::Space { space })
            .map(|(i, _)| MarkerId::from_index(i))
    }
    pub fn held_by(&self, seat: Seat) -> impl Iterator<Item = MarkerId> + '_ {
        self.loc
            .iter()
            .enumerate()
            .filter(move |(_, l)| **l == Loc::Held { seat })
            .map(|(i, _)| MarkerId::from_index(i))
    }
    pub fn whiskies_of(&self, seat: Seat) -> impl Iterator<Item = MarkerId> + '_ {
        self.held_by(seat).filter(|m| m.is_whisky())
    }
    pub fn whisky_count(&self, seat: Seat) -> u32 {
        self.whiskies_of(seat).count() as u32
    }
    pub fn holds(&self, seat: Seat, marker: MarkerId) -> bool {
        self.loc.get(marker.index()) == Some(&Loc::Held { seat })
    }
    pub fn is_used(&self, marker: MarkerId) -> bool {
        self.used.get(marker.index()).copied().unwrap_or(false)
    }
    pub fn loc_of(&self, marker: MarkerId) -> Loc {
        self.loc
            .get(marker.index())
            .copied()
            .unwrap_or(Loc::OutOfPlay)
    }
    pub fn reserve(&self) -> Vec<MarkerId> {
        self.loc
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == Loc::Reserve)
            .map(|(i, _)| MarkerId::from_index(i))
            .collect()
    }
    /// Other player pawns on `space` (WR-048).
    pub fn pawns_on(&self, space: u8) -> impl Iterator<Item = Seat> + '_ {
        self.all().filter(move |s| self.pawns[s.index()] == space)
    }
    pub fn pawn(&self, seat: Seat) -> u8 {
        self.pawns[seat.index()]
    }
    pub fn active(&self) -> Option<Seat> {
        self.turn.as_ref().map(|t| t.seat)
    }
    /// Unused Banffs of `seat` that are not already declared in the pending veto chain.
    pub fn vetoing_banffs(&self, seat: Seat) -> impl Iterator<Item = MarkerId> + '_ {
        self.held_by(seat)
            .filter(|m| m.kind() == Kind::Banff && !self.is_used(*m) && !self.locked(*m))
    }
    /// Trading is open « à tout moment » (WR-039), planning included (WR-156); it is closed
    /// only during the sealed bids of a duel or of the group-bidding variant, and after the
    /// game (WR-038).
    pub fn trading_open(&self) -> bool {
        !matches!(
            self.phase,
            Phase::NotStarted | Phase::GroupBidding | Phase::Over
        ) && self.duel.is_none()
    }
    /// The seat's sealed planning choice, while it is still secret (WR-156).
    pub fn sealed_choice(&self, seat: Seat) -> Option<u32> {
        if self.phase != Phase::Planning {
            return None;
        }
        self.sealed.get(seat.index())?.as_ref().map(|x| x.amount)
    }
    /// Malt the seat's own pending offers give.
    pub fn offered_malt(&self, seat: Seat) -> u32 {
        self.offers
            .iter()
            .filter(|o| o.from == seat)
            .map(|o| o.give.malt)
            .sum()
    }
    /// Malt the seat owes to a holy-place purchase it declared and that has not resolved yet
    /// (WR-158): it cannot be traded away meanwhile.
    pub fn committed_malt(&self, seat: Seat) -> u32 {
        let holy = board().c.holy_place_whisky_price;
        self.decls
            .iter()
            .filter(|d| {
                d.seat == seat
                    && matches!(
                        d.what,
                        Declared::Activation {
                            action: Action::Buy { marker: Some(_) },
                            ..
                        }
                    )
            })
            .count() as u32
            * holy
    }
    /// WR-156: the malt `seat` may still give in a trade it offers or accepts. Once it has
    /// sealed its planning choice: its supply minus that choice (chosen malt is never traded,
    /// WR-036) minus what its own pending offers already give. Counting the offers keeps every
    /// pending offer of a sealed seat affordable, so that another seat accepting it can never be
    /// refused because of the sealed amount (which would reveal it).
    pub fn tradeable_malt(&self, seat: Seat) -> u32 {
        let supply = self.supply[seat.index()].saturating_sub(self.committed_malt(seat));
        match self.sealed_choice(seat) {
            Some(chosen) => supply.saturating_sub(chosen + self.offered_malt(seat)),
            None => supply,
        }
    }
    /// The seat whose unsettled tax is owed on `marker`, if any (WR-155).
    pub fn owed_on(&self, marker: MarkerId) -> Option<Seat> {
        self.taxes
            .iter()
            .find(|t| t.whiskies.contains(&marker))
            .map(|t| t.seat)
    }
    /// Markers named by unresolved declarations (WR-040).
    pub fn locked(&self, marker: MarkerId) -> bool {
        self.decls.iter().any(|d| match &d.what {
            Declared::Activation { marker: m, action } => {
                *m == marker
                    || match action {
                        Action::Sell { whisky, .. } | Action::Reactivate { whisky } => {
                            *whisky == marker
                        }
                        Action::Buy { marker: Some(m) } => *m == marker, // WR-158
                        _ => false,
                    }
            }
            Declared::Use { whisky, params } => {
                *whisky == marker || params.take == Some(marker) || params.brora == Some(marker)
            }
            Declared::Veto { banff } => *banff == marker,
        }) || self.duel.as_ref().is_some_and(|d| d.whisky == marker)
    }
    pub fn finish(&self) -> u8 {
        board().finish
    }
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }
}
