//! The live streams' read (issue 31): a game's new entries read once for every stream of an
//! instance, and each audience's copy (each seat's, the spectators'; everyone's once the game
//! is over), redacted once per audience by the rule of every read ([`Loaded::redact`]).
//!
//! [`Loaded::redact`]: super::loaded::Loaded::redact

use infra::ids::UserId;
use infra::store::StoredEvent;

/// One read of a game's log for all its streams.
pub struct LiveRead {
    /// The seq the read ends at (`after` when there was nothing new).
    pub last: u64,
    /// Each audience's copy of the entries read (an entry hidden from it is left out).
    pub copies: Vec<Vec<StoredEvent>>,
    /// Who sees which copy.
    pub audiences: Audiences,
}

/// Which copy of a [`LiveRead`] each user sees: a seated user their seat's, anyone else the
/// first (the spectators', or everyone's once the game is over).
pub struct Audiences {
    pub(super) seated: Vec<(UserId, usize)>,
}

impl Audiences {
    /// `user`'s copy (an index in [`LiveRead::copies`]).
    pub fn of(&self, user: UserId) -> usize {
        // The first seat a user holds, as `Loaded::seat_of` finds it.
        self.seated
            .iter()
            .find(|(seated, _)| *seated == user)
            .map_or(0, |(_, copy)| *copy)
    }
}
