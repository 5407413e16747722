//! The application layer: the use cases of the server, between HTTP (`routes`) and the
//! PostgreSQL adapter (`infra::store`). Each use case family is a small service in its own file,
//! holding what it needs: [`Commands`] (load → authorize seat → decide → append → answer),
//! [`Checks`], [`Lobby`] (create, join, start, rematch), [`Reads`] (detail, prompts, events),
//! [`Replays`] (the state at a version), [`Exports`], [`Audits`], [`Boards`] (pictures, the
//! replay page), [`Clocks`] (deadlines, bots, resign), [`Inbox`], and the services of accounts,
//! disputes and subscriptions. They share [`Games`] (`games.rs`): the registry, the cache of
//! hot games, the heads heard and the fold that loads a game. [`Services`] builds them once.
//!
//! Hot games are cached in process, each behind its own mutex; the cache is only a cache:
//! every append is checked against the head in PostgreSQL (optimistic concurrency), and reads
//! check the head version before serving.

pub mod accounts;
mod audit;
pub mod board;
mod check;
mod clocks;
mod commands;
pub mod disputes;
pub mod error;
mod export;
mod games;
mod heavy;
mod inbox;
mod live;
mod loaded;
mod lobby;
mod move_audit;
pub mod notify;
mod reads;
mod replay;
mod services;
pub mod subscriptions;
mod views;

pub use audit::Audits;
pub use board::Boards;
pub use check::Checks;
pub use clocks::{Clock, ClockConfig, Clocks};
pub use commands::{CommandAnswer, CommandRequest, Commands, Counters, SNAPSHOT_EVERY};
pub use error::{AppError, Result};
pub use export::Exports;
pub use games::{Games, Heads};
pub use heavy::{Heavy, Served};
pub use inbox::Inbox;
pub use infra::random::fill_random;
pub use live::{Audiences, LiveRead};
pub use loaded::{Loaded, Prompts};
pub use lobby::{CreateGame, Lobby};
pub use move_audit::MoveAudit;
pub use reads::{DetailAnswer, GameRead, Reads};
pub use replay::Replays;
pub use services::Services;
pub use views::ViewCounts;
