//! The live streams' read (issue 31): a game's new entries read once for every stream of an
//! instance, and each audience's copy (each seat's, the spectators'; everyone's once the game
//! is over), redacted once per audience by the rule of every read ([`Loaded::redact`]).
//!
//! [`Loaded::redact`]: super::loaded::Loaded::redact

use super::error::Result;
use super::service::GameService;
use domain::Viewer;
use infra::ids::GameId;
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
    seated: Vec<(UserId, usize)>,
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

impl GameService {
    /// The entries of game `id` after `after` (at most `limit`), read from the primary (a live
    /// stream must see every append), with each audience's copy.
    pub async fn live_read(&self, id: GameId, after: u64, limit: u32) -> Result<LiveRead> {
        let stored = self.store.events(id, after, None, limit).await?;
        self.with_game(id, |loaded| {
            // Whoever is not seated: a spectator, or omniscient once the game is over.
            let mut viewers = vec![if loaded.finished {
                Viewer::Omniscient
            } else {
                Viewer::Spectator
            }];
            let seated = loaded
                .seats
                .iter()
                .map(|seat| {
                    let viewer = loaded.viewer(seat.user_id);
                    let copy = viewers
                        .iter()
                        .position(|v| *v == viewer)
                        .unwrap_or_else(|| {
                            viewers.push(viewer);
                            viewers.len() - 1
                        });
                    (seat.user_id, copy)
                })
                .collect();
            LiveRead {
                last: stored.last().map_or(after, |e| e.seq),
                copies: viewers
                    .iter()
                    .map(|viewer| {
                        stored
                            .iter()
                            .filter_map(|e| loaded.redact(e, *viewer))
                            .collect()
                    })
                    .collect(),
                audiences: Audiences { seated },
            }
        })
        .await
    }
}
