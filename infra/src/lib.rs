//! Persistence for Homestretch: the PostgreSQL event store, projections, accounts, and the
//! private-PostgreSQL launcher. The application layer (load → decide → append → answer) is
//! not here: it lives in `api::application`, and reaches PostgreSQL only through `store`.

pub mod accounts;
pub mod append;
pub mod audit;
pub mod db;
pub mod deadlines;
pub mod disputes;
pub mod error;
pub mod event;
pub mod group_commit;
pub mod hash;
pub mod ids;
pub mod lease;
pub mod lobby;
pub mod outbox;
pub mod pg;
pub mod projections;
pub mod random;
pub mod replica;
pub mod store;

pub use error::StoreError;
pub use ids::{GameId, UserId};
