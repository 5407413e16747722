//! Commands players send (spec §5). Every command names a decision context D1..D13 or trading.

use super::board::MarkerId;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// Direction of a Kinclaith move or an Englishman-marker move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Forward,
    Backward,
}

impl Direction {
    pub fn sign(self) -> i32 {
        match self {
            Direction::Forward => 1,
            Direction::Backward => -1,
        }
    }
}

/// A piece on the track: a player's pawn or the Englishman.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Piece {
    /// The pawn of a seat.
    Pawn { seat: Seat },
    /// The Englishman (neutral red pawn).
    Englishman,
}

/// Pub reward (WR-074).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reward {
    /// One 5-VP marker.
    Vp,
    /// 12 malt from the bank.
    Malt,
}

/// What an activated marker does (spec §5.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Whisky marker: buy it for 4 malt (WR-067). Holy place: buy `marker`, a whisky marker lying
    /// anywhere on the board, for 8 malt (WR-080).
    Buy {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        marker: Option<MarkerId>,
    },
    /// Brown marker: collect the malt source or take the checkpoint (WR-071, WR-072).
    Collect,
    /// Pub: sell one held whisky for a 5-VP marker or 12 malt (WR-074).
    Sell { whisky: MarkerId, reward: Reward },
    /// St Culabans feast: swap two markers lying on different spaces (WR-075).
    Swap {
        marker_a: MarkerId,
        marker_b: MarkerId,
    },
    /// Englishman marker: skip-move the Englishman 1..3 spaces (WR-076).
    MoveEnglishman { direction: Direction, distance: u8 },
    /// Holy place: turn one of your used single-use whiskies face up again (WR-079).
    Reactivate { whisky: MarkerId },
    /// Whisky or blue marker: do nothing (WR-063).
    Decline,
}

/// What one side of a trade gives (WR-035).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// Malt from supply.
    #[serde(default)]
    pub malt: u32,
    /// Whiskies and checkpoints.
    #[serde(default)]
    pub markers: Vec<MarkerId>,
}

impl Bundle {
    pub fn is_empty(&self) -> bool {
        self.malt == 0 && self.markers.is_empty()
    }
}

/// Parameters of a whisky use (spec §5.2); which ones are needed depends on the whisky.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UseParams {
    /// Coleraine, Convalmore, Glen Mhor: the targeted player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Seat>,
    /// Convalmore: the whisky to take; Glen Mhor: the whisky duelled for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub take: Option<MarkerId>,
    /// Banff on your own turn: the Brora to suspend (WR-095).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brora: Option<MarkerId>,
    /// Kinclaith: the piece to move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piece: Option<Piece>,
    /// Kinclaith: the direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
}

/// A command of Scottish Highland Whisky Race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// D1 (random setup): replace one marker on the board by a fresh draw (WR-146).
    ReplaceSetupMarker { marker: MarkerId },
    /// D1 (random setup): keep the board as it is (WR-146).
    PassReplacement,
    /// D2 (group bidding): secret bid of 0..supply malt (WR-149).
    SubmitGroupBid { amount: u32 },
    /// D3/D6: propose an order for your tie group (a permutation of its members) (WR-027).
    ProposeOrder { group: u8, order: Vec<Seat> },
    /// D3/D6: accept the current proposal `proposal` of your tie group (WR-027).
    AcceptOrder { group: u8, proposal: u32 },
    /// D3/D6: refuse to agree; the negotiation fails (WR-028, WR-150).
    RefuseAgreement { group: u8 },
    /// D4 (group bidding): take one of the remaining whisky groups (WR-151).
    ChooseWhiskyGroup { group: u8 },
    /// D5: secret malt choice for this round (WR-019..WR-022).
    SubmitMaltChoice { amount: u32 },
    /// D7: exactly `n` affordable steps forward (WR-054).
    Step { n: u32 },
    /// D7: every remaining affordable step, then the activation check (WR-055, WR-058).
    FinishMovement,
    /// D7/D9: declare the use of one of your whiskies (WR-084).
    UseWhisky {
        whisky: MarkerId,
        #[serde(default)]
        params: UseParams,
    },
    /// D8: activate one marker of your space (WR-060, WR-062).
    Activate { marker: MarkerId, action: Action },
    /// D9: end your turn; leftover chosen malt goes to the bank (WR-045, WR-046).
    EndTurn,
    /// D10: veto the pending declaration with one of your unused Banffs (WR-089, WR-090).
    Veto { banff: MarkerId },
    /// D10: let the pending declaration pass (WR-089).
    PassVeto,
    /// D11: secret duel bid of 0..supply malt (WR-105).
    SubmitDuelBid { amount: u32 },
    /// D12: pay the customs tax (1 malt per whisky held) from supply (WR-120).
    PayTax,
    /// D12: give up one whisky instead of paying (WR-120).
    DiscardWhisky { whisky: MarkerId },
    /// D13 (Englishman offer): choose the marker placed under the Englishman (WR-153).
    ChooseEnglishmanMarker { marker: MarkerId },
    /// T: offer a trade to another player (WR-035..WR-037).
    OfferTrade {
        to: Seat,
        give: Bundle,
        receive: Bundle,
    },
    /// T: accept an offer made to you; it executes atomically (WR-037).
    AcceptTrade { offer: u32 },
    /// T: decline an offer made to you (WR-037).
    DeclineTrade { offer: u32 },
    /// T: withdraw your own pending offer (WR-037).
    WithdrawTrade { offer: u32 },
}
