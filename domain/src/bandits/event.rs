//! Events (spec §5.4, §6). Every random outcome is in an event; `evolve` never draws.

use super::board::{Colour, Node};
use super::state::{Card, Destiny, Options, Pawn};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// What a die roll was for (spec §6, R-3…R-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RollContext {
    FirstPlayer,
    Turn,
    Hunter,
    Attacker,
    Defender,
    DefenderReroll,
    Destiny,
}

/// Who won a fight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FightResult {
    Attacker,
    Defender,
    /// A Bodyguard stopped the fight (BD-121).
    Bodyguard,
}

/// Something that happened. Hidden/masked projections: see `redact`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game is created: options, the colour of every seat, the clockwise turn order.
    GameCreated {
        options: Options,
        colours: Vec<Colour>,
        order: Vec<Seat>,
        /// Long moves go in segments (BD-515; schema 3). Logs of schema 1–2 are upcast with
        /// `false`: those games keep whole moves.
        #[serde(default)]
        segmented_moves: bool,
        /// The hunter's move goes in pieces (BD-516; schema 4). Logs of schema 1–3 are upcast
        /// with `false`: those games keep whole-path hunter moves.
        #[serde(default)]
        hunter_in_pieces: bool,
        /// Every pawn move that may be longer than 5 steps goes in segments (BD-517; schema
        /// 5). Logs of schema 1–4 are upcast with `false`: those games keep whole turn,
        /// bonus and other destiny moves.
        #[serde(default)]
        all_moves_in_segments: bool,
        /// Sur le dos may be used wherever a pawn arrives on an occupied node: ring,
        /// Huntington, village lane, property (BD-518; schema 6). Logs of schema 1–5 are
        /// upcast with `false`: those games keep Sur le dos on ring nodes only (BD-381).
        #[serde(default)]
        piggyback_anywhere: bool,
        /// A tower falls along the way a placed bottom takes (Surveiller, Détective, Évasion's
        /// train), each rider one space behind the one below (BD-386; schema 6). Logs of
        /// schema 1–5 are upcast with `false`: there a placed bottom leaves its riders on its
        /// start node.
        #[serde(default)]
        towers_follow_placements: bool,
    },
    /// The support deck order, top first (hidden from everyone, BD-502).
    SupportDeckShuffled {
        order: Vec<Card>,
    },
    /// The destiny deck order, top first (hidden from everyone, BD-502).
    DestinyDeckShuffled {
        order: Vec<Destiny>,
    },
    /// Three cards dealt to `seat` (ids masked for the others, BD-504).
    SupportCardsDealt {
        seat: Seat,
        count: u8,
        cards: Option<Vec<Card>>,
    },
    /// A die value (public).
    DieRolled {
        seat: Seat,
        context: RollContext,
        value: u8,
    },
    /// The first player (BD-031, BD-034).
    FirstPlayerChosen {
        seat: Seat,
    },
    /// A turn starts (BD-005).
    TurnStarted {
        seat: Seat,
        turn: u32,
    },
    /// The bounty hunter moved along `path` (BD-423): its whole move (games before event
    /// schema 4), or one piece of it (BD-516). A piece is a fact as it stands, not a choice
    /// waiting for the rest (unlike BD-515's `move_segment_chosen`): the hunter really is on
    /// its last node, the pawns where it ends a segment are captured at once (the
    /// `pawn_imprisoned` events that follow), and any begun move can be finished (BD-428).
    /// So the same event serves, and a reader of `hunter_moved` always knows where it stands.
    HunterMoved {
        path: Vec<Node>,
    },
    /// A pawn left its prison onto its probation officer (BD-060).
    PawnFreed {
        pawn: Pawn,
        to: Node,
    },
    /// A path move (start excluded).
    PawnMoved {
        pawn: Pawn,
        path: Vec<Node>,
    },
    /// A placement straight to a node (Surveiller, Détective, Évasion express).
    PawnPlaced {
        pawn: Pawn,
        to: Node,
    },
    /// An express ride (BD-171).
    ExpressRidden {
        pawn: Pawn,
        from: Node,
        to: Node,
    },
    /// A displacement of a unit (bottom first): lost defence, retreat, a rider set down.
    UnitDisplaced {
        pawns: Vec<Pawn>,
        to: Node,
    },
    /// A rider set down when its tower fell (BD-386).
    RiderSetDown {
        pawn: Pawn,
        to: Node,
    },
    /// A pawn climbed onto a unit with Sur le dos (BD-380).
    PawnStacked {
        pawn: Pawn,
        on: Node,
    },
    /// A fight starts (BD-120).
    FightStarted {
        attacker: Pawn,
        node: Node,
        defender: Seat,
    },
    FightEnded {
        node: Node,
        result: FightResult,
    },
    /// A pawn went to its prison (BD-128).
    PawnImprisoned {
        pawn: Pawn,
    },
    /// A colour-space bonus with no legal path (BD-154).
    BonusForfeited {
        pawn: Pawn,
    },
    /// A support card drawn by `seat` in turn `turn` (id masked for the others, BD-504).
    SupportCardDrawn {
        seat: Seat,
        turn: u32,
        card: Option<Card>,
    },
    /// A support card played (public, BD-235); one-shot cards go under the deck.
    CardPlayed {
        seat: Seat,
        card: Card,
        pawn: Option<Pawn>,
    },
    /// A ticket becomes active on `pawn` (BD-190).
    TicketActivated {
        seat: Seat,
        card: Card,
        pawn: Pawn,
    },
    /// A ticket becomes spent (BD-194).
    TicketSpent {
        card: Card,
    },
    /// Spent tickets go under the deck at the end of a turn (BD-050).
    TicketsReturned {
        cards: Vec<Card>,
    },
    /// Cards returned under the hand limit (BD-232): hand cards masked for the others.
    CardsReturned {
        seat: Seat,
        count: u8,
        cards: Option<Vec<Card>>,
        tickets: Vec<Card>,
    },
    /// A destiny card drawn and revealed (BD-301).
    DestinyCardDrawn {
        seat: Seat,
        card: Destiny,
    },
    /// A destiny card finished; it goes under the destiny deck (BD-302).
    DestinyCardResolved {
        card: Destiny,
        effect: bool,
    },
    /// The Interrogation card is put in front of `target` (BD-370).
    InterrogationPlaced {
        target: Seat,
    },
    /// The Interrogation was served; the card goes under the destiny deck (BD-040).
    InterrogationServed {
        seat: Seat,
    },
    /// An accusation cancelled by a Lawyer (BD-320).
    AccusationCancelled {
        pawn: Pawn,
    },
    /// A decision with no legal command was skipped (§5.1).
    DecisionSkipped {
        seat: Seat,
        decision: String,
    },
    TurnEnded {
        seat: Seat,
        turn: u32,
    },
    /// All pawns of `seat` are home (BD-400).
    GameWon {
        seat: Seat,
    },
    /// `seat` declined the pending decision `decision` (a window, a ride, a roll) and nothing
    /// else happened: recorded so that `evolve` knows who acts next (§5.1).
    Passed {
        seat: Seat,
        decision: String,
    },
    /// `seat` accused `pawn` with an Accusation card; its unit's owners may answer with a
    /// Lawyer (BD-320).
    PawnAccused {
        seat: Seat,
        pawn: Pawn,
    },
    /// `seat` chose the rolls of a grand tour (its mode, BD-332) or of draw-or-roll (`roll`,
    /// BD-351): `rolls` rolls follow.
    RollsGranted {
        seat: Seat,
        card: Destiny,
        rolls: u8,
    },
    /// Évasion express: `pawn` reached the departure but could not ride to `station` (an own
    /// pawn there and no Sur le dos, BD-507); it stops on the departure.
    ExpressMissed {
        pawn: Pawn,
        station: Node,
    },
    /// `seat` chose the next steps `path` of `pawn`'s move sent in segments (BD-515, BD-517),
    /// which goes on with the next command. The pawn moves (captures, arrival …) only when the
    /// move is whole: `pawn_moved` then carries the whole path.
    MoveSegmentChosen {
        seat: Seat,
        pawn: Pawn,
        path: Vec<Node>,
    },
}
