//! Events: every state change and every random outcome, in the order they happen. No floats.

use super::board::MarkerId;
use super::command::{Action, Bundle, Piece, Reward, UseParams};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// Options chosen at game creation; the expert variants may be combined (§3.19).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Expert random setup (WR-143..WR-146).
    #[serde(default)]
    pub random_setup: bool,
    /// Whisky-group bidding instead of starting whiskies (WR-147..WR-152).
    #[serde(default)]
    pub group_bidding: bool,
    /// Choose the Englishman's marker among 3 (WR-153, WR-154).
    #[serde(default)]
    pub englishman_offer: bool,
}

/// A marker placed on a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Placement {
    pub space: u8,
    pub marker: MarkerId,
}

/// A sealed value made public at a reveal, with the salt of its commitment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Revealed {
    pub seat: Seat,
    pub amount: u32,
    pub salt: String,
}

/// Why a lot was drawn (R3, R7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LotPurpose {
    /// Order of setup replacements (WR-145).
    SetupReplacement,
    /// Relative order of a refused group-bid tie (WR-150).
    GroupBidTie,
}

/// What moved the Englishman.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EnglishmanCause {
    EndOfRound,
    EnglishmanMarker,
}

/// Who reached the finish first (WR-129).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    Player,
    Englishman,
}

/// An event of Scottish Highland Whisky Race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game is created: seats, options, pawns on the start, 12 malt each, starting whiskies,
    /// standard setup unless random, the rest in the marker reserve (WR-010..WR-016).
    GameStarted {
        seats: u8,
        options: Options,
        board_id: String,
        /// WR-162 (event schema 2): on a space with several markers the player activates
        /// exactly one of them, brown ones included. Logs of schema 1 are upcast with `false`:
        /// those games keep WR-161 (brown markers apply beside the chosen one).
        #[serde(default)]
        single_activation: bool,
    },
    /// Random setup: one drawn marker per circled space, revealed together (WR-144, R2).
    SetupMarkersPlaced { placements: Vec<Placement> },
    /// A lot (uniform permutation) was drawn (R3, R7).
    LotDrawn {
        purpose: LotPurpose,
        order: Vec<Seat>,
    },
    /// Random setup: `removed` went back to the reserve, `replacement` was drawn onto `space` (WR-146, R4).
    SetupMarkerReplaced {
        seat: Seat,
        space: u8,
        removed: MarkerId,
        replacement: MarkerId,
    },
    /// Random setup: the seat keeps the board (WR-146).
    SetupReplacementPassed { seat: Seat },
    /// Group bidding: N groups of 3 whiskies dealt face up (WR-148, R6); sealed bidding opens.
    WhiskyGroupsDealt { groups: Vec<Vec<MarkerId>> },
    /// A sealed group bid (WR-149). Others see only the commitment.
    GroupBidCommitted {
        seat: Seat,
        commitment: String,
        #[serde(default)]
        amount: Option<u32>,
        #[serde(default)]
        salt: Option<String>,
        forced: bool,
    },
    /// Every group bid revealed; every bidder pays his bid to the bank (WR-149).
    GroupBidsRevealed { bids: Vec<Revealed> },
    /// A seat took a whisky group (WR-151).
    WhiskyGroupChosen {
        seat: Seat,
        group: u8,
        automatic: bool,
    },
    /// Englishman offer: markers drawn face up (WR-153, WR-154, R5).
    EnglishmanOfferDrawn { markers: Vec<MarkerId> },
    /// A round begins with its planning phase (WR-017, WR-018). Pending trade offers stay
    /// pending: trading is open during planning (WR-156).
    RoundStarted { round: u32 },
    /// A sealed malt choice (WR-019..WR-021). Others see only the commitment, unless forced (WR-023).
    MaltCommitted {
        seat: Seat,
        commitment: String,
        #[serde(default)]
        amount: Option<u32>,
        #[serde(default)]
        salt: Option<String>,
        forced: bool,
    },
    /// Every malt choice revealed; each moves from supply to chosen malt (WR-022).
    MaltRevealed { choices: Vec<Revealed> },
    /// Tie groups that must agree on an order (WR-026, WR-150).
    TieGroupsFormed { groups: Vec<Vec<Seat>> },
    /// A member proposed an order for his tie group; it counts as his acceptance (WR-027).
    OrderProposed {
        seat: Seat,
        group: u8,
        proposal: u32,
        order: Vec<Seat>,
    },
    /// A member accepted the current proposal (WR-027).
    OrderAccepted {
        seat: Seat,
        group: u8,
        proposal: u32,
    },
    /// Every member accepted: the group's order is fixed (WR-027).
    OrderAgreed { group: u8, order: Vec<Seat> },
    /// A member refused; the negotiation fails (WR-028).
    AgreementRefused { seat: Seat, group: u8 },
    /// A failed turn-order tie: members lose their turn and pay their chosen malt now (WR-029).
    TurnsLost {
        group: u8,
        seats: Vec<Seat>,
        paid: Vec<u32>,
    },
    /// The order of the round (or of the group choice) is known (WR-033, WR-150).
    TurnOrderFixed { order: Vec<Seat> },
    /// A player-turn begins (WR-042).
    TurnStarted { seat: Seat },
    /// One step forward, paid from chosen malt (WR-047..WR-051).
    PawnStepped {
        seat: Seat,
        from: u8,
        to: u8,
        cost: u32,
    },
    /// The movement step is over (WR-053, WR-055).
    MovementFinished { seat: Seat },
    /// A piece reached the finish (WR-128..WR-130).
    FinishReached {
        piece: Piece,
        #[serde(default)]
        arrival: Option<u8>,
        triggers_end: bool,
    },
    /// The activation check has nothing (more) to activate: the player is not alone or his
    /// space has no marker (WR-058); in a game begun before WR-162, no marker is left once its
    /// brown markers have applied (WR-161).
    ActivationSkipped { seat: Seat, space: u8 },
    /// D8 opens: the player must choose one marker of his space and its action, brown ones
    /// included (WR-060, WR-162); in a game begun before WR-162, one whisky or blue marker,
    /// its brown markers having already applied (WR-161).
    ActivationPending {
        seat: Seat,
        space: u8,
        markers: Vec<MarkerId>,
    },
    /// The activation was declined, by choice or automatically (WR-063).
    ActivationDeclined {
        seat: Seat,
        #[serde(default)]
        marker: Option<MarkerId>,
        automatic: bool,
    },
    /// A whisky marker was bought: from its own space, with no veto window (WR-067, WR-070), or
    /// at the holy place once the activation's veto window closed without veto (WR-080, WR-158).
    WhiskyBought {
        seat: Seat,
        marker: MarkerId,
        price: u32,
    },
    /// A location-marker activation declared, a holy-place purchase included (WR-158); a veto
    /// window follows (WR-062, WR-087). A brown marker alone on the space is declared
    /// automatically (WR-061); one chosen among several is declared by the player (WR-162).
    ActivationDeclared {
        seat: Seat,
        marker: MarkerId,
        action: Action,
        automatic: bool,
    },
    /// A whisky use declared; a veto window follows (WR-084, WR-087).
    WhiskyUseDeclared {
        seat: Seat,
        whisky: MarkerId,
        params: UseParams,
    },
    /// The veto window is offered to this seat (WR-089).
    VetoOffered { seat: Seat },
    /// The offered seat lets the declaration pass (WR-089).
    VetoPassed { seat: Seat },
    /// The offered seat vetoes with a Banff; this is itself a declaration (WR-090).
    VetoDeclared { seat: Seat, banff: MarkerId },
    /// The innermost declaration resolves (WR-091); its effect events follow.
    DeclarationResolved { seat: Seat, marker: MarkerId },
    /// The innermost declaration is cancelled by a veto (WR-091, WR-092).
    DeclarationCancelled { seat: Seat, marker: MarkerId },
    /// A single-use whisky is turned face down (WR-085, WR-108).
    WhiskyTurnedUsed { whisky: MarkerId },
    /// A malt source paid its value; the marker went back to the reserve (WR-071).
    MaltSourceCollected {
        seat: Seat,
        marker: MarkerId,
        amount: u32,
    },
    /// A checkpoint was taken (WR-072).
    CheckpointTaken { seat: Seat, marker: MarkerId },
    /// A vetoed brown marker went back to the reserve (WR-092).
    MarkerReturned { marker: MarkerId },
    /// A whisky was sold at a pub; it went back to the reserve (WR-074).
    WhiskySold {
        seat: Seat,
        whisky: MarkerId,
        reward: Reward,
    },
    /// St Culabans feast: two markers exchanged spaces (WR-075).
    MarkersSwapped {
        marker_a: MarkerId,
        space_a: u8,
        marker_b: MarkerId,
        space_b: u8,
    },
    /// Holy place: a used whisky is face up again (WR-079).
    WhiskyReactivated { seat: Seat, whisky: MarkerId },
    /// Banff suspended a Brora for this round's income (WR-095).
    BroraSuspended { brora: MarkerId },
    /// Benromach or Coleraine took malt (WR-097, WR-098, WR-100); `from_chosen` tells the pool.
    MaltStolen {
        thief: Seat,
        victim: Seat,
        amount: u32,
        from_chosen: bool,
    },
    /// Convalmore: `given` (the Convalmore) and `taken` changed hands (WR-101).
    WhiskiesSwapped {
        seat: Seat,
        target: Seat,
        given: MarkerId,
        taken: MarkerId,
    },
    /// Glen Mhor: sealed duel bids are requested (WR-105); trading closes (WR-038).
    DuelStarted {
        challenger: Seat,
        defender: Seat,
        whisky: MarkerId,
    },
    /// A sealed duel bid (WR-105). Others see only the commitment.
    DuelBidCommitted {
        seat: Seat,
        commitment: String,
        #[serde(default)]
        amount: Option<u32>,
        #[serde(default)]
        salt: Option<String>,
        forced: bool,
    },
    /// Both duel bids revealed and settled (WR-106, WR-107).
    DuelResolved {
        bids: Vec<Revealed>,
        winner: Option<Seat>,
    },
    /// Kinclaith moved a piece exactly 2 spaces, ignoring pawns (WR-109, WR-110).
    PieceMovedByKinclaith { piece: Piece, from: u8, to: u8 },
    /// The Englishman skip-moved; `met` are taxed in this order (WR-118, WR-122).
    EnglishmanMoved {
        from: u8,
        to: u8,
        met: Vec<Seat>,
        cause: EnglishmanCause,
    },
    /// A met player held no whisky when the Englishman met him: he owes nothing (WR-119, WR-155).
    TaxNotOwed { seat: Seat },
    /// The tax of a met player, fixed when the Englishman met him: `amount` for the `whiskies`
    /// he held then, which cannot leave his hands until he pays or discards (WR-155).
    TaxAssessed {
        seat: Seat,
        amount: u32,
        whiskies: Vec<MarkerId>,
    },
    /// Customs tax paid from supply: the amount fixed when he was met (WR-120, WR-155).
    TaxPaid { seat: Seat, amount: u32 },
    /// A whisky was discarded to the reserve instead of paying the tax (WR-120).
    WhiskyDiscarded {
        seat: Seat,
        whisky: MarkerId,
        forced: bool,
    },
    /// The turn is over; leftover chosen malt paid to the bank (WR-045).
    TurnEnded { seat: Seat, unused_malt: u32 },
    /// End of round: a random marker was placed under the Englishman (WR-125, R1).
    MarkerDrawn { marker: MarkerId, space: u8 },
    /// End of round: the reserve is empty, nothing is placed (WR-125).
    ReserveEmpty,
    /// Englishman offer: the chosen marker is placed under the Englishman, the rest return to the reserve (WR-153, WR-154).
    EnglishmanMarkerChosen {
        #[serde(default)]
        seat: Option<Seat>,
        marker: MarkerId,
        space: u8,
        random: bool,
    },
    /// Income: 4 malt plus 1 per unsuspended Brora, per seat (WR-126, WR-099).
    IncomePaid { amounts: Vec<u32> },
    /// Brora suspensions end (WR-127).
    RoundEnded { round: u32 },
    /// The game is over and scored (WR-127, WR-131).
    GameEnded,
    /// A trade offer (WR-037).
    TradeOffered {
        offer: u32,
        from: Seat,
        to: Seat,
        give: Bundle,
        receive: Bundle,
    },
    /// The offer was accepted and executed atomically (WR-037).
    TradeAccepted { offer: u32 },
    /// The recipient declined (WR-037).
    TradeDeclined { offer: u32 },
    /// The offerer withdrew (WR-037).
    TradeWithdrawn { offer: u32 },
}
