//! Events: every state change and every random outcome (spec §6). No floats: events are
//! hash-chained as JSON. `evolve` (evolve.rs) applies them without drawing randomness.

use serde::{Deserialize, Serialize};

use super::board::{LinkId, SegmentId, SpaceId};
use super::state::{Colour, EndReason, Relation, RestOption, Training, Weather, WeatherOutcome};
use crate::engine::Seat;

/// One revealed sealed bid: the amount and the salt that open its commitment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RevealedBid {
    pub seat: Seat,
    pub amount: u32,
    pub salt: String,
    /// `sealed_commitment(salt, amount)`, as published at submission.
    pub commitment: String,
}

/// Something that happened in a game of Mush.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game was created: players, layout, 20 tokens and 8 fresh dogs each on ANCHORAGE (MU-002).
    GameCreated { seats: u8, layout: Vec<SegmentId> },
    /// The first-trainer d6 rolls (rolled again while > n) and the seat chosen (MU-020);
    /// opens a re-roll window (MU-167). `attempt` counts bought re-rolls from 1.
    FirstTrainerRolled {
        values: Vec<u8>,
        seat: Seat,
        attempt: u32,
    },
    /// A player chose their training, publicly (MU-021).
    TrainingChosen { seat: Seat, training: Training },
    /// A round began with this initiative player (polar bear holder, MU-145).
    RoundStarted { round: u32, initiative: Seat },
    /// The round's weather d6 (MU-031); opens a re-roll window.
    WeatherRolled { round: u32, value: u8, attempt: u32 },
    /// A player paid 3 to have the current roll rolled again (MU-130); the new roll follows.
    RerollBought { seat: Seat },
    /// The polled player declined to buy a re-roll (section 5.2).
    RerollPassed { seat: Seat },
    /// The re-roll window closed: `value` is final (for dog dice: the number of dogs).
    RerollWindowClosed { value: u8 },
    /// Sealed bidding opened for the round, after the final weather roll (MU-032).
    BiddingOpened { round: u32, weather_roll: u8 },
    /// A sealed bid was committed (MU-033). `amount` and `salt` are masked for other viewers;
    /// the commitment `sha256(salt:amount)` is public.
    BidSubmitted {
        seat: Seat,
        commitment: String,
        amount: Option<u32>,
        salt: Option<String>,
        /// True for the automatic 0 of a player holding no token (MU-034).
        automatic: bool,
    },
    /// Every bid revealed together and paid to the supply (MU-035).
    BidsRevealed { bids: Vec<RevealedBid> },
    /// The round's turn order (MU-036) and early riser, if any (MU-038).
    TurnOrderSet {
        order: Vec<Seat>,
        early_riser: Option<Seat>,
    },
    /// The early riser declined the free step (MU-039).
    EarlyRiserSkipped { seat: Seat },
    /// The overtaking right was bought for 4 tokens (MU-082).
    OvertakeBought { seat: Seat },
    /// A player's turn began (MU-040).
    TurnStarted { seat: Seat },
    /// An avalanche marker was placed from the supply (MU-105 a), for 5 tokens.
    AvalanchePlaced { seat: Seat, link: LinkId },
    /// An avalanche marker was moved (MU-105 b), for 5 tokens.
    AvalancheMoved {
        seat: Seat,
        from_link: LinkId,
        to_link: LinkId,
    },
    /// An avalanche marker went back to the supply (MU-105 c), for 5 tokens.
    AvalancheRemoved { seat: Seat, link: LinkId },
    /// A move was declared (MU-055–MU-059): the weather at the sled, its relation to the
    /// training, the dice colour, the weather outcome and the base dice count `D0`.
    MoveDeclared {
        seat: Seat,
        weather: Weather,
        relation: Relation,
        colour: Colour,
        outcome: WeatherOutcome,
        dice: u8,
    },
    /// An opponent paid `tokens` into the dice-reduction pool (MU-134, MU-166).
    TokensPooled { seat: Seat, tokens: u8 },
    /// The polled opponent declined to pay into the pool (section 5.3).
    ReductionPassed { seat: Seat },
    /// The window closed on a half-paid die: its token went back to the player who paid it
    /// (MU-166: a die costs 2 tokens; one token removes nothing).
    PoolRefunded { seat: Seat, tokens: u8 },
    /// The reduction window closed: `reduced` dice removed, `dice` will be rolled (MU-060).
    ReductionClosed { reduced: u8, dice: u8 },
    /// The dog dice (MU-061): faces 1..6, `dogs` = faces showing a dog for this colour.
    DogDiceRolled {
        seat: Seat,
        colour: Colour,
        faces: Vec<u8>,
        dogs: u8,
        attempt: u32,
    },
    /// Movement points for the turn (MU-063): dogs + bonus (bonus only when dice were rolled).
    MovementPointsSet {
        seat: Seat,
        dogs: u8,
        bonus: u8,
        mp: u8,
    },
    /// A step was attempted and its modifier paid (MU-073); a roll follows.
    StepAttempted {
        seat: Seat,
        from: SpaceId,
        to: SpaceId,
        modifier: u8,
    },
    /// A difficult-terrain roll (MU-090): `success` is provisional until the window closes.
    TerrainRolled {
        seat: Seat,
        from: SpaceId,
        to: SpaceId,
        modifier: u8,
        value: u8,
        success: bool,
        attempt: u32,
    },
    /// An avalanche roll (MU-101): `success` is provisional until the window closes.
    AvalancheRolled {
        seat: Seat,
        link: LinkId,
        modifier: u8,
        value: u8,
        success: bool,
        attempt: u32,
    },
    /// A sled moved one step (1 MP in the movement phase).
    SledMoved {
        seat: Seat,
        from: SpaceId,
        to: SpaceId,
    },
    /// A terrain or avalanche roll failed: the sled stays (MU-092, MU-102).
    StepFailed {
        seat: Seat,
        from: SpaceId,
        to: SpaceId,
    },
    /// Movement ended (MU-075).
    MovementEnded { seat: Seat, reason: EndReason },
    /// Fatigue tokens at the end of a moving turn (MU-110–MU-113); `total` is the new fatigue.
    FatigueAdded { seat: Seat, amount: u8, total: u8 },
    /// A rest (MU-120–MU-124): what was actually removed and drawn after caps.
    Rested {
        seat: Seat,
        option: RestOption,
        removed: u8,
        drawn: u8,
    },
    /// A player's turn ended.
    TurnEnded { seat: Seat },
    /// The round ended (MU-030 step 6).
    RoundEnded { round: u32 },
    /// The polar bear passed to the left neighbour (MU-145).
    InitiativePassed { to: Seat },
    /// A sled entered NOME and won (MU-150).
    GameWon { seat: Seat },
}
