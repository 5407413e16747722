//! Disputes on a move: their log and projection live in `infra::disputes`; who may read or
//! resolve them is decided by the routes, the move's audit is computed in [`super::audit`].

use super::*;

pub use infra::disputes::{Dispute, Disputes};

impl GameService {
    /// The disputes, in the same database as the games.
    pub fn disputes(&self) -> Disputes {
        Disputes::new(self.store.pool.clone())
    }
}
