//! Commands (spec §5.2). JSON: `{"type": "move_pawn", "pawn": "black-1", "path": ["R01", …]}`.

use super::board::Node;
use super::state::{Card, Pawn};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// A destiny-card option (`resolve_destiny.option`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DestinyOption {
    /// Détective: just behind the next opponent ahead (BD-310a).
    BehindOpponent,
    /// Détective: back to the first lawyer space behind (BD-310b).
    LastLawyer,
    /// Draw-or-roll: draw another destiny card (BD-351).
    Draw,
    /// Draw-or-roll: two rolls (BD-351).
    Roll,
    /// Évasion express: ride the nearest express train (BD-361).
    Train,
    /// Évasion express: go back `steps` (1..6) spaces (BD-362).
    Back,
}

/// Grand-tour mode (BD-332).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TourMode {
    /// Two rolls for up to three pawns.
    Pairs,
    /// One roll per free pawn (only with four or more free pawns).
    Each,
}

/// A player's command. Unknown fields are refused (a misspelt card field must not be
/// silently ignored).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Roll the own die: first-player roll, turn roll, fight roll, or a destiny-card roll
    /// (the rampage and distribute cards roll twice with one command).
    RollDie {},
    /// Move the bounty hunter along `path` (extension, BD-423–BD-426).
    MoveHunter { path: Vec<Node> },
    /// Free the lowest-numbered pawn of the own prison onto the probation officer (BD-060);
    /// `piggyback_card` climbs onto an opponent there instead of fighting (BD-062).
    FreePawn {
        #[serde(default)]
        piggyback_card: Option<Card>,
    },
    /// Move `pawn` along `path` (start excluded), naming any cards the move uses. After
    /// `move_segment`s, `path` is the rest of the move from the steps chosen so far (BD-515).
    MovePawn {
        pawn: Pawn,
        path: Vec<Node>,
        /// A ticket to enter Huntington (BD-190).
        #[serde(default)]
        ticket_card: Option<Card>,
        /// One Jet-pack per occupied property flown over (BD-250).
        #[serde(default)]
        jetpack_cards: Vec<Card>,
        /// Sur le dos: climb onto the unit at the end (BD-380).
        #[serde(default)]
        piggyback_card: Option<Card>,
    },
    /// The next 5 steps `path` of `pawn`'s move, which goes on with the next command: a
    /// rampage or distribute move (BD-515) and, from event schema 5, every move that may be
    /// longer than 5 steps (BD-517: a turn roll of 6 or more, a bonus, an outing) is sent in
    /// segments of 5 steps (`decide::segment::SEGMENT`), then a `move_pawn` of the last 1 to
    /// 5 that ends it. No card is named here: the `move_pawn` that ends the move names the
    /// cards of the whole path.
    MoveSegment { pawn: Pawn, path: Vec<Node> },
    /// Play a support card: Surveiller (with `pawn`), Bodyguard or Lawyer in their windows.
    PlayCard {
        card: Card,
        #[serde(default)]
        pawn: Option<Pawn>,
        #[serde(default)]
        piggyback_card: Option<Card>,
    },
    /// Decline (the roll, a window, a ride, an optional roll …).
    Pass {},
    /// End the turn instead of rolling again after a 10 (BD-048).
    EndTurn {},
    /// The defender's second chance (BD-123).
    RerollDefence {},
    /// Ride the express train (BD-170); `piggyback_card` for an occupied station (BD-173/174).
    RideExpress {
        #[serde(default)]
        piggyback_card: Option<Card>,
    },
    /// Answer a destiny card's choice (§3.14).
    ResolveDestiny {
        #[serde(default)]
        option: Option<DestinyOption>,
        #[serde(default)]
        pawn: Option<Pawn>,
        #[serde(default)]
        target_pawn: Option<Pawn>,
        #[serde(default)]
        target_player: Option<Seat>,
        #[serde(default)]
        steps: Option<u8>,
        #[serde(default)]
        mode: Option<TourMode>,
        #[serde(default)]
        piggyback_card: Option<Card>,
    },
    /// Return cards (hand cards or own spent tickets) under the hand limit (BD-232).
    DiscardCards { cards: Vec<Card> },
    /// Serve the Interrogation: hand the card back; the turn ends (BD-040).
    ReturnInterrogation {},
}

impl Command {
    pub fn tag(&self) -> &'static str {
        match self {
            Command::RollDie {} => "roll_die",
            Command::MoveHunter { .. } => "move_hunter",
            Command::FreePawn { .. } => "free_pawn",
            Command::MovePawn { .. } => "move_pawn",
            Command::MoveSegment { .. } => "move_segment",
            Command::PlayCard { .. } => "play_card",
            Command::Pass {} => "pass",
            Command::EndTurn {} => "end_turn",
            Command::RerollDefence {} => "reroll_defence",
            Command::RideExpress { .. } => "ride_express",
            Command::ResolveDestiny { .. } => "resolve_destiny",
            Command::DiscardCards { .. } => "discard_cards",
            Command::ReturnInterrogation {} => "return_interrogation",
        }
    }
    /// A plain move without cards.
    pub fn mv(pawn: Pawn, path: Vec<Node>) -> Command {
        Command::MovePawn {
            pawn,
            path,
            ticket_card: None,
            jetpack_cards: vec![],
            piggyback_card: None,
        }
    }
    /// A `resolve_destiny` with every field empty (fill in with struct update).
    pub fn resolve() -> Command {
        Command::ResolveDestiny {
            option: None,
            pawn: None,
            target_pawn: None,
            target_player: None,
            steps: None,
            mode: None,
            piggyback_card: None,
        }
    }
}
