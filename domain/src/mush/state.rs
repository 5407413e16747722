//! The game state (mutated in place by `evolve`) and the small value types of the rules.

use serde::{Deserialize, Serialize};

use super::board::{LinkId, SegmentId, SpaceId};
// Training, weather and their relation are board data (the bands of MU-056): they live in
// `board.rs`, below the state, and are re-exported here where they were always named.
pub use super::board::{Relation, Training, Weather};
use crate::engine::Seat;

/// Action tokens each player starts with (MU-002).
pub const START_TOKENS: u32 = 20;
/// Dogs per team (MU-004).
pub const DOGS: u8 = 8;
/// Avalanche markers in the game (MU-007).
pub const AVALANCHE_MARKERS: u8 = 4;
/// Prices (section 3.13).
pub const REROLL_COST: u32 = 3;
/// Tokens per removed die, paid by one or several opponents (MU-166).
pub const REDUCE_COST: u32 = 2;
pub const OVERTAKE_COST: u32 = 4;
pub const AVALANCHE_ACTION_COST: u32 = 5;
/// Most dice removed per turn (MU-166: at most 3 dice and 6 tokens).
pub const MAX_REDUCTION: u8 = 3;
/// Largest modifiers (MU-091, MU-101).
pub const MAX_TERRAIN_MODIFIER: u8 = 2;
pub const MAX_AVALANCHE_MODIFIER: u8 = 4;
/// Success thresholds (MU-090, MU-101).
pub const TERRAIN_TARGET: u8 = 4;
pub const AVALANCHE_TARGET: u8 = 6;

/// MU-057: dog dice colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Green,
    Red,
    Blue,
}

impl Colour {
    pub fn of(relation: Relation) -> Colour {
        match relation {
            Relation::Same => Colour::Green,
            Relation::Adjacent => Colour::Red,
            Relation::Opposite => Colour::Blue,
        }
    }
    /// Faces 1..=k are dog faces (spec §6).
    pub fn dog_faces(self) -> u8 {
        match self {
            Colour::Green => 4,
            Colour::Red => 3,
            Colour::Blue => 2,
        }
    }
    pub fn is_dog(self, face: u8) -> bool {
        (1..=self.dog_faces()).contains(&face)
    }
}

/// MU-058: the weather outcome of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WeatherOutcome {
    /// +2 spaces (same weather, hot or cold training).
    PlusTwo,
    /// +1 space (same weather, mixed training).
    PlusOne,
    /// Nothing happens (adjacent weather).
    Nothing,
    /// One extra fatigue token (opposite weather).
    Fatigue,
}

impl WeatherOutcome {
    pub fn of(training: Training, relation: Relation) -> WeatherOutcome {
        match (relation, training) {
            (Relation::Same, Training::Mixed) => WeatherOutcome::PlusOne,
            (Relation::Same, _) => WeatherOutcome::PlusTwo,
            (Relation::Adjacent, _) => WeatherOutcome::Nothing,
            (Relation::Opposite, _) => WeatherOutcome::Fatigue,
        }
    }
    pub fn bonus(self) -> u8 {
        match self {
            WeatherOutcome::PlusTwo => 2,
            WeatherOutcome::PlusOne => 1,
            _ => 0,
        }
    }
}

/// A rest option (MU-122), by its spec id. MU-162: the wire ids are exactly the spec's
/// (`draw_1`, not serde's `draw1`), so every variant is renamed explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub enum RestOption {
    #[serde(rename = "draw_1")]
    Draw1,
    #[serde(rename = "remove_1")]
    Remove1,
    #[serde(rename = "remove_2")]
    Remove2,
    #[serde(rename = "draw_4")]
    Draw4,
    #[serde(rename = "remove_1_draw_2")]
    Remove1Draw2,
    #[serde(rename = "remove_3")]
    Remove3,
    #[serde(rename = "draw_6")]
    Draw6,
    #[serde(rename = "remove_2_draw_2")]
    Remove2Draw2,
    #[serde(rename = "remove_1_draw_4")]
    Remove1Draw4,
    #[serde(rename = "draw_2")]
    Draw2,
    #[serde(rename = "stranded_recover")]
    StrandedRecover,
}

impl RestOption {
    pub const ALL: [RestOption; 11] = [
        RestOption::Draw1,
        RestOption::Remove1,
        RestOption::Remove2,
        RestOption::Draw4,
        RestOption::Remove1Draw2,
        RestOption::Remove3,
        RestOption::Draw6,
        RestOption::Remove2Draw2,
        RestOption::Remove1Draw4,
        RestOption::Draw2,
        RestOption::StrandedRecover,
    ];
    /// (fatigue removed, tokens drawn); only the current fatigue caps the removal (MU-124;
    /// MU-163: no village sign caps anything).
    pub fn amounts(self) -> (u8, u8) {
        match self {
            RestOption::Draw1 => (0, 1),
            RestOption::Remove1 => (1, 0),
            RestOption::Remove2 => (2, 0),
            RestOption::Draw4 => (0, 4),
            RestOption::Remove1Draw2 => (1, 2),
            RestOption::Remove3 => (3, 0),
            RestOption::Draw6 => (0, 6),
            RestOption::Remove2Draw2 => (2, 2),
            RestOption::Remove1Draw4 => (1, 4),
            RestOption::Draw2 => (0, 2),
            RestOption::StrandedRecover => (1, 0),
        }
    }
    pub fn id(self) -> &'static str {
        match self {
            RestOption::Draw1 => "draw_1",
            RestOption::Remove1 => "remove_1",
            RestOption::Remove2 => "remove_2",
            RestOption::Draw4 => "draw_4",
            RestOption::Remove1Draw2 => "remove_1_draw_2",
            RestOption::Remove3 => "remove_3",
            RestOption::Draw6 => "draw_6",
            RestOption::Remove2Draw2 => "remove_2_draw_2",
            RestOption::Remove1Draw4 => "remove_1_draw_4",
            RestOption::Draw2 => "draw_2",
            RestOption::StrandedRecover => "stranded_recover",
        }
    }
}

/// Why movement ended (MU-075).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Every movement point was spent.
    NoPointsLeft,
    /// The player sent `end_movement`.
    Stopped,
    /// A difficult-terrain roll failed (MU-092).
    TerrainFailed,
    /// An avalanche roll failed (MU-102).
    AvalancheFailed,
    /// The roll gave 0 movement points: the phase is skipped (MU-075).
    NoPoints,
}

/// One player's sled board.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Player {
    pub space: SpaceId,
    pub tokens: u32,
    /// Fatigued dogs, 0..=8 (MU-004).
    pub fatigue: u8,
    pub training: Option<Training>,
    /// The weather token: set when the player declares a move (MU-055).
    pub weather: Option<Weather>,
}

impl Player {
    pub fn fresh(&self) -> u8 {
        DOGS.saturating_sub(self.fatigue)
    }
}

/// Which roll a re-roll window is about (section 5.2), with what it needs to resolve it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RollKind {
    /// The setup roll that names the first trainer (MU-020), re-rollable under MU-167.
    FirstTrainer,
    Weather,
    Dogs {
        colour: Colour,
        faces: Vec<u8>,
    },
    Terrain {
        to: SpaceId,
        modifier: u8,
    },
    Avalanche {
        to: SpaceId,
        modifier: u8,
    },
}

/// An open re-roll window (section 5.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RerollWindow {
    pub roll: RollKind,
    /// The current result (d6 value; for dog dice, the number of dog faces).
    pub value: u8,
    pub attempt: u32,
    pub roller: Seat,
    /// The player being asked now.
    pub polled: Seat,
    /// Passes and automatic skips in a row.
    pub passes: u8,
}

/// Tokens one opponent paid into a dice-reduction pool (MU-166).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Contribution {
    pub seat: Seat,
    pub tokens: u8,
}

/// An open dice-reduction window (section 5.3 as amended by MU-166): opponents pool tokens,
/// every 2 tokens remove one die, in the order the tokens were paid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReductionWindow {
    /// Most dice the pool may remove this turn: `min(3, D0)`.
    pub cap: u8,
    /// Contributions in the order they were paid.
    #[serde(default)]
    pub pool: Vec<Contribution>,
    pub polled: Seat,
    pub passes: u8,
}

impl ReductionWindow {
    /// Tokens in the pool so far.
    pub fn pooled(&self) -> u8 {
        self.pool.iter().map(|c| c.tokens).sum()
    }
    /// MU-166: at most 2 tokens per removable die (6 tokens for 3 dice).
    pub fn token_cap(&self) -> u8 {
        self.cap * REDUCE_COST as u8
    }
    /// Dice fully paid so far.
    pub fn dice_removed(&self) -> u8 {
        self.pooled() / REDUCE_COST as u8
    }
    /// Dice paid by tokens of two different players (statistics, MU-166).
    pub fn shared_dice(&self) -> u8 {
        let payers: Vec<Seat> = self
            .pool
            .iter()
            .flat_map(|c| std::iter::repeat_n(c.seat, usize::from(c.tokens)))
            .collect();
        payers
            .chunks_exact(REDUCE_COST as usize)
            .filter(|die| die[0] != die[1])
            .count() as u8
    }
}

/// The active player's move (section 3.6, 3.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveState {
    pub weather: Option<Weather>,
    pub relation: Option<Relation>,
    pub colour: Option<Colour>,
    pub outcome: Option<WeatherOutcome>,
    pub d0: u8,
    /// Dice removed by opponents (MU-060).
    pub reduced: u8,
    /// Dice rolled, `d0 - reduced` (MU-064: fixed for the turn).
    pub dice: u8,
    pub mp: u8,
    /// Where the sled began this turn (or the early-riser step): leaving it never counts as
    /// passing (MU-164).
    #[serde(default)]
    pub origin: Option<SpaceId>,
}

/// A sealed order bid (section 4): stored whole, shown only to its bidder until the reveal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SealedBid {
    pub amount: u32,
    pub salt: String,
    pub commitment: String,
}

/// Where the game is (section 5.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the setup events.
    #[default]
    NotStarted,
    SetupTraining,
    RerollWindow,
    Bidding,
    EarlyRiser,
    TurnStart,
    ReductionWindow,
    Movement,
    GameOver,
}

/// The whole game state. `Default` is "before setup".
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub seats: u8,
    pub layout: Vec<SegmentId>,
    /// Index of the layout's graph in `board::data().layouts`.
    pub layout_index: u8,
    pub players: Vec<Player>,
    pub phase: Phase,
    /// The phase a re-roll window returns to (RerollWindow nests, section 5.1).
    pub resume: Phase,
    pub round: u32,
    /// Holder of the polar bear (MU-145).
    pub initiative: Option<Seat>,
    /// The first trainer (MU-020) and the current chooser (MU-021).
    pub first_trainer: Option<Seat>,
    pub chooser: Option<Seat>,
    /// The round's final weather roll `w` (0 until fixed).
    pub weather_roll: u8,
    pub bids: Vec<Option<SealedBid>>,
    /// Last revealed bids (public).
    pub last_bids: Vec<u32>,
    pub order: Vec<Seat>,
    /// Index into `order` of the active player.
    pub turn_index: usize,
    pub active: Option<Seat>,
    pub early_riser: Option<Seat>,
    /// Who holds the overtaking right now (MU-082), until the end of their turn.
    pub overtake: Option<Seat>,
    pub mv: MoveState,
    pub reroll: Option<RerollWindow>,
    pub reduction: Option<ReductionWindow>,
    pub avalanches: Vec<LinkId>,
    pub avalanche_supply: u8,
    pub winner: Option<Seat>,
    /// Token flows with the supply, for the conservation invariant (MU-005, MU-006).
    pub tokens_paid: u64,
    pub tokens_drawn: u64,
    /// Statistics for the final view and simulations.
    pub turns_played: u32,
    pub moves: Vec<u32>,
    pub rests: Vec<u32>,
    /// Dice-reduction pooling statistics (MU-166), for the simulation report.
    #[serde(default)]
    pub pooling: PoolingStats,
}

/// Counters of the dice-reduction pools of a game (MU-166).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PoolingStats {
    /// Dice removed in all.
    pub dice_removed: u32,
    /// Dice paid by two different players.
    pub shared_dice: u32,
    /// Half-paid dice whose token went back to its payer.
    pub refunds: u32,
}

impl State {
    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.get(seat.index())
    }
    pub fn is_seat(&self, seat: Seat) -> bool {
        seat.index() < self.players.len()
    }
    pub fn graph(&self) -> &'static super::board::Graph {
        super::board::graph(self.layout_index)
    }
    pub fn tokens(&self, seat: Seat) -> u32 {
        self.player(seat).map_or(0, |p| p.tokens)
    }
    /// Seats other than `seat` occupying `space`.
    pub fn occupied_by_other(&self, space: SpaceId, seat: Seat) -> bool {
        self.players
            .iter()
            .enumerate()
            .any(|(i, p)| i != seat.index() && p.space == space)
    }
    /// MU-036: `dist(p) = (seat(p) − seat(initiative)) mod n`.
    pub fn dist(&self, seat: Seat) -> u8 {
        let n = self.seats.max(1);
        let init = self.initiative.map_or(1, Seat::number);
        (seat.number() + n - init) % n
    }
    pub fn next_seat(&self, seat: Seat) -> Seat {
        seat.next(self.seats)
    }
    /// The player who must act in the current movement-like phase (active or early riser).
    pub fn mover(&self) -> Option<Seat> {
        match self.phase {
            Phase::EarlyRiser => self.early_riser,
            _ => self.active,
        }
    }
}
