//! The application layer: the use cases of the server, between HTTP (`routes`) and the
//! PostgreSQL adapter (`infra::store`). One file per use case: [`commands`] (load → authorize
//! seat → decide → append → answer), [`lobby`] (create, start), [`reads`] (prompts, events),
//! [`replay`] (the one fold of the log, snapshots, the state at a version), [`export`],
//! [`audit`], [`disputes`]; [`cache`] keeps hot games in process.
//!
//! Hot games are cached in process, each behind its own mutex; the cache is only a cache:
//! every append is checked against the head in PostgreSQL (optimistic concurrency), and reads
//! check the head version before serving.

pub mod accounts;
mod audit;
pub mod board;
mod cache;
mod check;
mod clocks;
mod commands;
pub mod disputes;
pub mod error;
mod export;
mod heavy;
mod inbox;
mod live;
mod loaded;
mod lobby;
mod move_audit;
pub mod notify;
mod reads;
mod replay;
mod service;
pub mod subscriptions;

pub use cache::Heads;
pub use clocks::{Clock, ClockConfig};
pub use commands::{CommandAnswer, CommandRequest};
pub use error::{AppError, Result};
pub use heavy::Served;
pub use infra::random::fill_random;
pub use live::{Audiences, LiveRead};
pub use loaded::{Loaded, Prompts};
pub use lobby::CreateGame;
pub use move_audit::MoveAudit;
pub use reads::GameRead;
pub use service::{Counters, GameService, SNAPSHOT_EVERY};
