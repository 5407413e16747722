//! The Homestretch server: HTTP (`routes`), the application layer (`application`: the use
//! cases between HTTP and the PostgreSQL adapter of `infra`), the CLI and the load tool.

pub mod adapters;
pub mod app;
pub mod application;
pub mod auth;
pub mod cli;
pub mod cors;
pub mod drain;
pub mod error;
pub mod extract;
pub mod i18n;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod page;
pub mod routes;
pub mod spec_typing;
pub mod state;
