//! The Homestretch HTTP API: thin handlers over the application services of `infra`.

pub mod app;
pub mod auth;
pub mod cli;
pub mod cors;
pub mod error;
pub mod flood;
pub mod limits;
pub mod load;
pub mod metrics;
pub mod openapi;
pub mod routes;
pub mod spec_typing;
pub mod sse;
pub mod state;
pub mod stream;
