//! A loaded, started game ([`Loaded`]): its row, seats, state and head, and what a caller
//! may see of it; the caller's prompts ([`Prompts`]); the decisions a clock counts from.

use super::error::AppError;
use super::error::Result;
use domain::AnyGame;
use domain::AnyState;
use domain::Prompt;
use domain::Seat;
use domain::Viewer;
use domain::i18n::says;
use infra::ids::UserId;
use infra::store::Entry;
use infra::store::GameRow;
use infra::store::SeatRow;
use infra::store::StoredEvent;
use serde_json::Value;
use time::OffsetDateTime;
/// When a seat's decision times out (issue 26: each seat's own), if the game has a clock.
pub type DeadlineOf<'a> = dyn Fn(u8) -> Option<OffsetDateTime> + 'a;

/// A seat the game waits for, and the log entry its decision counts from (issue 26).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub seat: u8,
    /// The seq of the entry the decision began at (the last of the command that asked for it).
    pub since: u64,
    pub at: OffsetDateTime,
}

/// A loaded, started game.
pub struct Loaded {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    pub game: &'static dyn AnyGame,
    pub version: u64,
    pub head_hash: String,
    pub state: Box<dyn AnyState>,
    pub finished: bool,
    /// `recorded_at` of the head event: a clocked game's deadlines count from it (issue 17).
    pub head_at: Option<OffsetDateTime>,
    /// The seats the game waits for and where each one's decision began (clock version 2,
    /// issue 26; empty otherwise): their deadlines count from there.
    pub decisions: Vec<Decision>,
}

impl Loaded {
    pub fn seat_of(&self, user: UserId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.user_id == user)
            .and_then(|s| Seat::new(s.seat).ok())
    }
    /// `user`'s seat: sending or checking a command needs one (403 otherwise).
    pub fn seat_for(&self, user: UserId) -> Result<Seat> {
        self.seat_of(user)
            .ok_or_else(|| AppError::Forbidden(says("errors.no_seat")))
    }
    /// The version conflict of a command decided against `expected` (409 naming the current).
    pub(super) fn conflict(&self) -> AppError {
        AppError::Conflict {
            current: self.version,
        }
    }
    /// What `user` may see: everything once the game is over.
    pub fn viewer(&self, user: UserId) -> Viewer {
        if self.finished {
            Viewer::Omniscient
        } else {
            self.seat_of(user)
                .map(Viewer::Seat)
                .unwrap_or(Viewer::Spectator)
        }
    }
    /// The version, who must or may act now, and `user`'s legal commands as JSON Schema
    /// families (issue 15: `choices`, the contract; `legal` is drawn from them at the edge).
    pub fn prompts_for(&self, user: UserId) -> Prompts {
        let (choices, legal) = match self.seat_of(user) {
            // One computation of the families; `legal` is drawn from them.
            Some(seat) if !self.finished => self.state.choices_and_legal(seat),
            _ => (Vec::new(), Vec::new()),
        };
        let prompts = self.state.prompts();
        Prompts {
            version: self.version,
            deadlines: self.deadlines(&prompts),
            prompts,
            choices,
            legal,
        }
    }
    pub(super) fn client_seeds(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.client_seed.clone()).collect()
    }
    /// The caller's copy of a stored event (payload redacted, flagged), or `None` if the
    /// event is hidden from them altogether.
    pub fn redact(&self, event: &StoredEvent, viewer: Viewer) -> Option<StoredEvent> {
        redact_for(self.state.as_ref(), event, viewer)
    }
}

/// `viewer`'s copy of a stored event, redacted by the rules of `game`'s state (any state of
/// the game: redaction depends on the event and the viewer only).
pub(super) fn redact_for(
    game: &dyn AnyState,
    event: &StoredEvent,
    viewer: Viewer,
) -> Option<StoredEvent> {
    // The server's own entries (seed reveal, timeouts, abandonment) are public.
    if event.entry() != Entry::Game || viewer == Viewer::Omniscient {
        return Some(event.clone());
    }
    let payload = game.redact(&event.payload, viewer)?;
    Some(event.shown_as(payload))
}

/// The version, who must or may act, and the caller's `choices` (one family per command family,
/// the contract) with `legal`, the game's concrete list for simple bots drawn from them (each
/// game keeps it short: sampled trades, one order of a swap).
pub struct Prompts {
    pub version: u64,
    pub prompts: Vec<Prompt>,
    pub choices: Vec<domain::choices::Family>,
    pub legal: Vec<Value>,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}
