//! Commands players send (spec §5). Tags are the snake_case names of the spec's commands.

use serde::{Deserialize, Serialize};

use super::board::{LinkId, SpaceId};
use super::state::{RestOption, Training};

/// A player's command. Space ids are the spec's (`"anc_b3"`), link ids `"from>to"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Choose the team's training at setup (MU-021–MU-024), in turn from the first trainer.
    ChooseTraining { training: Training },
    /// Pay 3 tokens to have the roll of the open re-roll window rolled again (MU-130).
    BuyReroll,
    /// Decline to buy a re-roll in the open window (section 5.2).
    PassReroll,
    /// Commit a sealed turn-order bid, 0..=tokens held (MU-033). Hidden until every bid is in.
    SubmitBid { amount: u32 },
    /// Buy the overtaking right for 4 tokens (MU-082): enter occupied wilderness this turn.
    BuyOvertake,
    /// The early riser's free step (MU-039). `modifier` is the tokens added to a terrain
    /// (0..=2) or avalanche (0..=4) roll, and must be 0 when the step needs no roll.
    EarlyRiserStep {
        to: SpaceId,
        #[serde(default)]
        modifier: u8,
    },
    /// The early riser declines the free step (MU-039).
    SkipEarlyRiser,
    /// Put an avalanche marker from the supply on a link, for 5 tokens (MU-105 a).
    PlaceAvalanche { link: LinkId },
    /// Move an avalanche marker to another link, for 5 tokens (MU-105 b).
    MoveAvalanche { from_link: LinkId, to_link: LinkId },
    /// Put an avalanche marker back in the supply, for 5 tokens (MU-105 c).
    RemoveAvalanche { link: LinkId },
    /// Declare a move this turn (MU-046): dice are rolled after the reduction window.
    DeclareMove,
    /// Declare a rest with one of the space's rest options (MU-046, MU-122).
    DeclareRest { option: RestOption },
    /// Remove 1..=(cap − removed) of the active player's dog dice at 2 tokens each (MU-134).
    ReduceDice { count: u8 },
    /// Decline to remove dice in the open reduction window (section 5.3).
    PassReduction,
    /// Move one step along a live link (MU-072), with an optional roll modifier.
    Step {
        to: SpaceId,
        #[serde(default)]
        modifier: u8,
    },
    /// Give up the remaining movement points (MU-071).
    EndMovement,
}

impl Command {
    /// The `type` tag, without serializing.
    pub fn tag(&self) -> &'static str {
        match self {
            Command::ChooseTraining { .. } => "choose_training",
            Command::BuyReroll => "buy_reroll",
            Command::PassReroll => "pass_reroll",
            Command::SubmitBid { .. } => "submit_bid",
            Command::BuyOvertake => "buy_overtake",
            Command::EarlyRiserStep { .. } => "early_riser_step",
            Command::SkipEarlyRiser => "skip_early_riser",
            Command::PlaceAvalanche { .. } => "place_avalanche",
            Command::MoveAvalanche { .. } => "move_avalanche",
            Command::RemoveAvalanche { .. } => "remove_avalanche",
            Command::DeclareMove => "declare_move",
            Command::DeclareRest { .. } => "declare_rest",
            Command::ReduceDice { .. } => "reduce_dice",
            Command::PassReduction => "pass_reduction",
            Command::Step { .. } => "step",
            Command::EndMovement => "end_movement",
        }
    }
}
