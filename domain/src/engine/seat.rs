//! Who sits, who looks and who acts: seats, viewers and prompts.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// Most seats any game of ours supports.
pub const MAX_SEATS: u8 = 6;

/// A seat at the table, 1-based (seat 1 joined first). Always within `1..=MAX_SEATS`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(try_from = "u8", into = "u8")]
#[schema(value_type = u8, minimum = 1, maximum = 6, example = 1)]
pub struct Seat(u8);

impl Seat {
    pub fn new(number: u8) -> Result<Seat, InvalidSeat> {
        if (1..=MAX_SEATS).contains(&number) {
            Ok(Seat(number))
        } else {
            Err(InvalidSeat(number))
        }
    }
    /// 1-based seat number.
    pub fn number(self) -> u8 {
        self.0
    }
    /// 0-based index, for vectors indexed by seat.
    pub fn index(self) -> usize {
        usize::from(self.0 - 1)
    }
    /// Seat from a 0-based index. Panics only on a programming error (index ≥ MAX_SEATS).
    pub fn from_index(index: usize) -> Seat {
        assert!(index < usize::from(MAX_SEATS), "seat index out of range");
        Seat(index as u8 + 1)
    }
    /// Seats `1..=count`.
    pub fn all(count: u8) -> impl Iterator<Item = Seat> + Clone {
        (1..=count.min(MAX_SEATS)).map(Seat)
    }
    /// The next seat in cyclic order among `count` seats.
    pub fn next(self, count: u8) -> Seat {
        if self.0 >= count {
            Seat(1)
        } else {
            Seat(self.0 + 1)
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

impl TryFrom<u8> for Seat {
    type Error = InvalidSeat;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Seat::new(value)
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("seat {0} is not a seat number (1..=6)")]
pub struct InvalidSeat(pub u8);

/// Who is looking. Views, events and prompts are always computed for a viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A seated player: sees public information and their own secrets.
    Seat(Seat),
    /// Any signed-in user who is not seated.
    Spectator,
    /// Sees everything: used once a game is over (everything is public then) and for audits
    /// run by the server itself.
    Omniscient,
}

impl Viewer {
    pub fn seat(self) -> Option<Seat> {
        match self {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        }
    }
    /// True when this viewer may see what is private to `seat`.
    pub fn sees_private_of(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(me) => me == seat,
            Viewer::Spectator => false,
            Viewer::Omniscient => true,
        }
    }
}

/// Who must or may act now, and with which command kinds (`type` tags of commands).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Prompt {
    pub seat: Seat,
    /// Command `type` tags this seat may send now.
    pub kinds: Vec<Cow<'static, str>>,
    /// True when the game waits for this seat (it **must** act); false when the seat only
    /// **may** act (trades, vetoes, re-roll purchases …) and the game goes on without it.
    pub must: bool,
}

impl Prompt {
    /// The game waits for `seat`, which must send one of `kinds`.
    pub fn new(seat: Seat, kinds: &[&'static str]) -> Self {
        Prompt {
            seat,
            kinds: kinds.iter().map(|k| Cow::Borrowed(*k)).collect(),
            must: true,
        }
    }
    /// `seat` may send one of `kinds`; the game does not wait for it.
    pub fn may(seat: Seat, kinds: &[&'static str]) -> Self {
        Prompt {
            must: false,
            ..Prompt::new(seat, kinds)
        }
    }
}
