//! Persistence for Homestretch: the PostgreSQL event store, projections, accounts, and the
//! private-PostgreSQL launcher. The application services that decide commands and append
//! their events also live here, so the HTTP layer stays thin.

pub mod accounts;
pub mod audit;
pub mod db;
pub mod disputes;
pub mod error;
pub mod games;
pub mod hash;
pub mod ids;
pub mod pg;
pub mod projections;
pub mod store;

pub use error::StoreError;
pub use ids::{GameId, UserId};
