//! Game state: the board occupancy, the decks and hands, and the control state (the turn
//! phase plus the stack of unfinished resolutions, spec §5.1).

use super::board::{Colour, Kind, Node, Zone, board};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A pawn: `<colour>-<n>` (n = 1..6). Stored as `colour * 6 + n - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pawn(pub u8);

impl Pawn {
    pub fn new(colour: Colour, n: u8) -> Pawn {
        Pawn(colour as u8 * 6 + n.clamp(1, 6) - 1)
    }
    pub fn colour(self) -> Colour {
        Colour::from_index(usize::from(self.0 / 6))
    }
    /// 1-based number within its colour.
    pub fn number(self) -> u8 {
        self.0 % 6 + 1
    }
    pub fn idx(self) -> usize {
        usize::from(self.0)
    }
    pub fn parse(s: &str) -> Option<Pawn> {
        let (c, n) = s.rsplit_once('-')?;
        let colour = Colour::ALL.into_iter().find(|x| x.name() == c)?;
        let n: u8 = n.parse().ok()?;
        (1..=6).contains(&n).then(|| Pawn::new(colour, n))
    }
}

impl std::fmt::Display for Pawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.colour().name(), self.number())
    }
}

// Only the canonical id (`black-1`, not `black-01`): one spelling per pawn.
crate::engine::string_id!(
    Pawn,
    "pawn",
    |s: &str| Pawn::parse(s).filter(|p| p.to_string() == s),
    "A pawn id, `<colour>-<n>`, e.g. `black-1`"
);

/// The number of a card id `<prefix><n>` (`S07`, `D1`), when it is 1 to `count`.
fn numbered(id: &str, prefix: char, count: u8) -> Option<u8> {
    id.strip_prefix(prefix)?
        .parse::<u8>()
        .ok()
        .filter(|n| (1..=count).contains(n))
}

/// The seven support card kinds (spec §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SupportKind {
    Jetpack,
    TicketSingle,
    TicketDay,
    Piggyback,
    Lawyer,
    Watch,
    Bodyguard,
}

/// A support card `S01`…`S42` (six of each kind, in the order of §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub u8);

impl Card {
    pub const COUNT: u8 = 42;
    pub fn kind(self) -> SupportKind {
        use SupportKind::*;
        [
            Jetpack,
            TicketSingle,
            TicketDay,
            Piggyback,
            Lawyer,
            Watch,
            Bodyguard,
        ][usize::from(self.0.clamp(1, 42) - 1) / 6]
    }
    pub fn is_ticket(self) -> bool {
        matches!(
            self.kind(),
            SupportKind::TicketSingle | SupportKind::TicketDay
        )
    }
    pub fn all() -> impl Iterator<Item = Card> {
        (1..=Self::COUNT).map(Card)
    }
}
impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "S{:02}", self.0)
    }
}
// Only the canonical id (`S07`, not `S7`): one spelling per card.
crate::engine::string_id!(
    Card,
    "support card",
    |s: &str| numbered(s, 'S', Card::COUNT)
        .map(Card)
        .filter(|c| c.to_string() == s),
    "A support card id, `S01`…`S42`"
);

/// The destiny card kinds (spec §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DestinyKind {
    Detective,
    Accusation,
    SmallOuting,
    BigOuting,
    GrandTour,
    Rampage,
    Distribute,
    DrawOrRoll,
    ExpressEscape,
    Interrogation,
}

/// A destiny card `D01`…`D11`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Destiny(pub u8);

impl Destiny {
    pub const COUNT: u8 = 11;
    pub fn kind(self) -> DestinyKind {
        use DestinyKind::*;
        match self.0 {
            1 => Detective,
            2 | 3 => Accusation,
            4 => SmallOuting,
            5 => BigOuting,
            6 => GrandTour,
            7 => Rampage,
            8 => Distribute,
            9 => DrawOrRoll,
            10 => ExpressEscape,
            _ => Interrogation,
        }
    }
    pub fn all() -> impl Iterator<Item = Destiny> {
        (1..=Self::COUNT).map(Destiny)
    }
}
impl std::fmt::Display for Destiny {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "D{:02}", self.0)
    }
}
crate::engine::string_id!(
    Destiny,
    "destiny card",
    |s: &str| numbered(s, 'D', Destiny::COUNT).map(Destiny),
    "A destiny card id, `D01`…`D11`"
);

/// Game options, fixed at creation (spec §1.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Pawns per player, 1..=6 (BD-401). Default 6.
    pub pawns_per_player: u8,
    /// The bounty-hunter extension (BD-420).
    pub bounty_hunter: bool,
    /// `null` (default): first-player rolls (BD-030); a seat number: that seat starts (BD-034).
    pub first_player: Option<Seat>,
    /// Colours per seat (seat 1 first). Empty: a default spread over the board for the player
    /// count (2: black, green; 3: black, blue, orange; 4: black, red, green, orange; 5: all but
    /// white; 6: all).
    pub colours: Vec<Colour>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            pawns_per_player: 6,
            bounty_hunter: false,
            first_player: None,
            colours: Vec::new(),
        }
    }
}

/// A support card in a hand, with the turn it was received in (BD-233; public, BD-500).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandCard {
    pub card: Card,
    pub received: u32,
}

/// A ticket played onto a pawn (BD-190): active while the pawn is in Huntington, then spent
/// until it goes back under the deck (BD-194).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Ticket {
    pub card: Card,
    pub owner: Seat,
    pub pawn: Pawn,
    pub spent: bool,
}

/// Where the turn stands when no resolution is under way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Before setup.
    #[default]
    Setup,
    /// First-player rolls (BD-030): `next` indexes the roll order.
    FirstRolls {
        next: u8,
        best_seat: Option<Seat>,
        best_value: u8,
    },
    /// The active player holds the Interrogation card (BD-040).
    Interrogated,
    /// Waiting for a turn roll.
    TurnRoll,
    /// Waiting for the hunter's path (BD-423); `value` is the player's roll, used afterwards.
    HunterMove { hunter: u8, value: u8 },
    /// Waiting for the action for a usable turn roll.
    Action { value: u8, attempt: bool },
    /// An action is being resolved (frames on the stack); then the turn goes on.
    Resolving { value: u8 },
    /// After a 10's action: roll again or end the turn (BD-048).
    RerollAfterTen,
    /// The turn is over; the end-of-turn events are due (transient: never pending after a
    /// command).
    TurnOver,
    /// The game is over.
    Over,
}

/// Steps of a fight (§3.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FightStep {
    Bodyguard,
    AttackerRoll,
    DefenderRoll,
    DefenceReroll,
    Lawyer,
    /// Both values are in: the result is due (transient).
    Settle,
    /// The attacker retreats (lawyer space, Lawyer card, Bodyguard); the arrival ends once it
    /// has left the node (transient).
    Retreat,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Fight {
    pub attacker_seat: Seat,
    pub defender: Seat,
    /// Bodyguard window order (BD-121).
    pub window: Vec<Seat>,
    pub next: u8,
    pub round: u8,
    pub attack: u8,
    pub defence: u8,
    pub rerolled: bool,
    pub step: FightStep,
}

/// Where an arrival stands (BD-100).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum ArrivalStage {
    Occupancy,
    Fight(Fight),
    Effects,
    /// Waiting for the +6 bonus move (BD-154); `card_only`: every path needs a Sur le dos.
    Bonus {
        card_only: bool,
    },
    /// Waiting for the ride choice (BD-170).
    Express,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Arrival {
    pub pawn: Pawn,
    /// Movement record (BD-127), start first.
    pub record: Vec<Node>,
    pub stage: ArrivalStage,
    /// The arrival has no space effect (BD-507: a pawn that could not ride stops on the
    /// departure).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop: bool,
}

impl Arrival {
    pub fn node(&self) -> Node {
        self.record.last().copied().unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExecStep {
    Start,
    Next,
    Choice,
    Roll,
    Move,
    Lawyer,
    /// A roll came out with no legal move: the move decision is skipped (transient).
    Rolled,
    /// Draw-or-roll's `draw`: the card is done and the next destiny card is drawn (transient).
    Draw,
    /// Distribute with no pawn to move: the card is done and a support card is drawn
    /// (transient).
    Fallback,
}

/// A destiny card being executed (§3.14).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Exec {
    pub card: Destiny,
    /// The pawn that drew it (first card after an arrival, BD-303).
    pub subject: Option<Pawn>,
    pub step: ExecStep,
    pub rolls_left: u8,
    /// The current roll (outings, draw-or-roll) or total (rampage T, distribute R).
    pub value: u8,
    /// Pawns that have taken a distribute share so far (BD-350; BD-505 lets a pawn take
    /// several, so this is informative only).
    pub moved: Vec<Pawn>,
    /// Accusation: the accused pawn and the Lawyer window (BD-320).
    pub target: Option<Pawn>,
    pub window: Vec<Seat>,
    pub next: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DestinyQueue {
    pub queue: Vec<Destiny>,
    pub subject: Option<Pawn>,
    pub exec: Option<Exec>,
}

/// An unfinished resolution (BD-103: depth-first, top of the stack first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "frame", rename_all = "snake_case")]
pub enum Frame {
    Arrive(Arrival),
    Destiny(DestinyQueue),
    HandLimit { seat: Seat },
}

/// The control state: everything needed to know the pending decision (spec §5.1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Control {
    pub phase: Phase,
    /// Attempt rolls made this turn (BD-042).
    pub attempts: u8,
    /// The first turn roll of this turn was made (BD-423).
    pub rolled: bool,
    /// A Surveiller was played this turn (BD-234).
    pub watch_used: bool,
    pub stack: Vec<Frame>,
    /// The pawn a Sur le dos was just played for: its coming relocation climbs on top and is
    /// no arrival (BD-380; transient).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub climbing: Option<Pawn>,
    /// The steps already chosen of a move sent in segments (BD-515, BD-517: a turn, bonus or
    /// destiny move): the pawn has not moved yet; the move's next command goes on from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moving: Option<MoveSoFar>,
    /// The bounty hunter's move under way, sent in pieces (BD-516): set after a piece that
    /// does not end it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunt: Option<HuntSoFar>,
}

/// A move sent in segments (BD-515): its pawn and the steps chosen so far (start excluded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MoveSoFar {
    pub pawn: Pawn,
    pub path: Vec<Node>,
}

/// The bounty hunter's move under way (BD-516). The hunter stands on the last node visited.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HuntSoFar {
    /// Every node of the move so far, its start first: none may be entered again (BD-424).
    pub visited: Vec<Node>,
    /// Steps left in the current rulebook segment (h, then 3 per pawn captured, BD-426).
    pub left: u8,
    /// Pawns captured so far in this move (BD-425).
    pub captured: u8,
}

/// Where a pawn is not on any node (colours not in play).
pub const NOWHERE: Node = Node(u8::MAX);

/// Pawn positions in snapshots: [`NOWHERE`] has no node id, so it is written as `null`.
mod positions {
    use super::{NOWHERE, Node};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(pos: &[Node], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(pos.iter().map(|&n| (n != NOWHERE).then_some(n)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Node>, D::Error> {
        let pos = Vec::<Option<Node>>::deserialize(d)?;
        Ok(pos.into_iter().map(|n| n.unwrap_or(NOWHERE)).collect())
    }
}

/// The whole game state. `Default` is "before setup".
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub options: Options,
    pub seats: u8,
    /// Colour of each seat (index = seat index).
    pub colours: Vec<Colour>,
    /// Clockwise turn order (BD-032).
    pub order: Vec<Seat>,
    /// Pawns on each node, bottom → top.
    pub occ: Vec<Vec<Pawn>>,
    /// Node of each of the 36 pawns ([`NOWHERE`] when its colour is not in play).
    #[serde(with = "positions")]
    pub pos: Vec<Node>,
    pub hunter: Option<Node>,
    /// Support deck, top first (hidden, BD-502).
    pub support_deck: VecDeque<Card>,
    /// Destiny deck, top first (hidden, BD-502).
    pub destiny_deck: VecDeque<Destiny>,
    pub hands: Vec<Vec<HandCard>>,
    pub tickets: Vec<Ticket>,
    /// Cards each seat returned under the hand limit (a public count, BD-500).
    pub returned: Vec<u32>,
    /// Who has the Interrogation card in front of them (BD-370).
    pub interrogated: Option<Seat>,
    pub turn: u32,
    pub active: Option<Seat>,
    pub winner: Option<Seat>,
    pub ctl: Control,
    /// Rampage and distribute moves are sent in segments (BD-515): every game created with
    /// event schema 3; a game begun before (schema 1–2 `game_created`) keeps whole moves, so
    /// its recorded commands still re-run (audit, verify).
    #[serde(default)]
    pub segmented_moves: bool,
    /// The hunter's move is sent in pieces of at most 6 steps (BD-516): every game created
    /// with event schema 4; a game begun before keeps whole-path `move_hunter`s.
    #[serde(default)]
    pub hunter_in_pieces: bool,
    /// Every pawn move that may be longer than 5 steps is sent in segments (BD-517): every
    /// game created with event schema 5; a game begun before keeps whole turn, bonus and
    /// destiny moves (rampage and distribute aside, BD-515).
    #[serde(default)]
    pub all_moves_in_segments: bool,
    /// Sur le dos may be used wherever a pawn arrives on an occupied node (BD-518): every
    /// game created with event schema 6; a game begun before keeps it on ring nodes only
    /// (BD-381), so its recorded commands and automatic steps re-run as recorded.
    #[serde(default)]
    pub piggyback_anywhere: bool,
    /// A placed bottom's tower falls along the way it takes, riders one space behind each
    /// other (BD-386 as the French has it): every game created with event schema 6; a game
    /// begun before leaves the riders on the start node.
    #[serde(default)]
    pub towers_follow_placements: bool,
    /// Sur le dos climbs onto a node off the ring so far (BD-518; simulation statistics).
    #[serde(default)]
    pub stacks_off_ring: u32,
}

impl State {
    pub fn started(&self) -> bool {
        self.seats > 0
    }
    pub fn seat_of(&self, c: Colour) -> Option<Seat> {
        self.colours
            .iter()
            .position(|&x| x == c)
            .map(Seat::from_index)
    }
    pub fn colour_of(&self, seat: Seat) -> Option<Colour> {
        self.colours.get(seat.index()).copied()
    }
    pub fn owner(&self, p: Pawn) -> Option<Seat> {
        self.seat_of(p.colour())
    }
    pub fn is_seat(&self, seat: Seat) -> bool {
        seat.number() <= self.seats
    }
    pub fn pawns_of(&self, seat: Seat) -> impl Iterator<Item = Pawn> + '_ {
        let colour = self.colour_of(seat);
        let n = self.options.pawns_per_player;
        colour
            .into_iter()
            .flat_map(move |c| (1..=n).map(move |i| Pawn::new(c, i)))
    }
    pub fn at(&self, n: Node) -> &[Pawn] {
        self.occ.get(n.idx()).map(|v| v.as_slice()).unwrap_or(&[])
    }
    pub fn pos(&self, p: Pawn) -> Node {
        self.pos.get(p.idx()).copied().unwrap_or(NOWHERE)
    }
    pub fn in_prison(&self, p: Pawn) -> bool {
        let n = self.pos(p);
        n != NOWHERE && board().info(n).zone == Zone::Prison
    }
    pub fn in_village(&self, p: Pawn) -> bool {
        let n = self.pos(p);
        n != NOWHERE && board().info(n).zone == Zone::Village
    }
    /// Free: neither in prison nor in the village (riders included).
    pub fn is_free(&self, p: Pawn) -> bool {
        self.pos(p) != NOWHERE && !self.in_prison(p) && !self.in_village(p)
    }
    pub fn is_rider(&self, p: Pawn) -> bool {
        let n = self.pos(p);
        let b = board();
        n != NOWHERE
            && b.info(n).zone != Zone::Prison
            && self.at(n).first().is_some_and(|&bottom| bottom != p)
    }
    /// Movable: own pawn not in prison and not a rider.
    pub fn is_movable(&self, p: Pawn) -> bool {
        self.pos(p) != NOWHERE && !self.in_prison(p) && !self.is_rider(p)
    }
    pub fn riders(&self, p: Pawn) -> &[Pawn] {
        let n = self.pos(p);
        if n == NOWHERE {
            return &[];
        }
        let here = self.at(n);
        if board().info(n).zone != Zone::Prison && here.first() == Some(&p) {
            &here[1..]
        } else {
            &[]
        }
    }
    pub fn in_huntington(&self, p: Pawn) -> bool {
        let n = self.pos(p);
        n != NOWHERE && board().info(n).zone == Zone::Huntington
    }
    pub fn on_ring(&self, p: Pawn) -> bool {
        let n = self.pos(p);
        n != NOWHERE && board().info(n).zone == Zone::Ring
    }
    /// A node holding a pawn of `seat` (BD-390).
    pub fn own_occupied(&self, n: Node, seat: Seat) -> bool {
        self.at(n).iter().any(|&p| self.owner(p) == Some(seat))
    }
    pub fn opponent_occupied(&self, n: Node, seat: Seat) -> bool {
        !self.at(n).is_empty() && !self.own_occupied(n, seat)
    }
    pub fn active_ticket(&self, p: Pawn) -> Option<&Ticket> {
        self.tickets.iter().find(|t| t.pawn == p && !t.spent)
    }
    /// Card count for the hand limit (BD-231).
    pub fn card_count(&self, seat: Seat) -> usize {
        self.hands.get(seat.index()).map_or(0, |h| h.len())
            + self.tickets.iter().filter(|t| t.owner == seat).count()
    }
    /// A card of `seat`'s hand playable now (BD-233).
    pub fn usable(&self, seat: Seat, card: Card) -> bool {
        self.hands
            .get(seat.index())
            .is_some_and(|h| h.iter().any(|c| c.card == card && c.received < self.turn))
    }
    pub fn usable_of_kind(&self, seat: Seat, kind: SupportKind) -> Vec<Card> {
        let mut v: Vec<Card> = self
            .hands
            .get(seat.index())
            .map(|h| {
                h.iter()
                    .filter(|c| c.received < self.turn && c.card.kind() == kind)
                    .map(|c| c.card)
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
    /// All pawns of `seat` are on its village properties (BD-400).
    pub fn all_home(&self, seat: Seat) -> bool {
        self.pawns_of(seat).all(|p| self.in_village(p))
    }
    pub fn is_lawyer_space(&self, n: Node) -> bool {
        n != NOWHERE && board().info(n).lawyer_space
    }
    pub fn kind(&self, n: Node) -> Kind {
        board().info(n).kind
    }
}
