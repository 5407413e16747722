//! Shared application state handed to every handler.

use crate::adapters::pg_listen::Hub;
use crate::application::Services;
use crate::application::accounts::UserService;
use crate::application::disputes::DisputeService;
use crate::application::subscriptions::Subscriptions;
use crate::auth::{JwtKeys, Sessions};
use crate::limits::Limits;
use crate::metrics::Metrics;
use infra::accounts::Accounts;
use std::sync::{Arc, LazyLock};

pub struct AppState {
    /// The game use cases, built once, each holding what it needs: a handler calls one of
    /// them (`state.services.commands.command(…)`). `services.games` is their shared core:
    /// the registry, the cache of hot games, a game's row and seats.
    pub services: Services,
    /// Sign-up, sign-in, refresh, who is an admin, the lobby quota.
    pub users: Arc<UserService>,
    /// Opening, reading and resolving disputes.
    pub disputes: DisputeService,
    pub accounts: Accounts,
    pub jwt: Arc<JwtKeys>,
    pub metrics: Arc<Metrics>,
    pub hub: Arc<Hub>,
    pub limits: Arc<Limits>,
    pub sessions: Arc<Sessions>,
    /// Notification destinations and feeds (issue 18).
    pub subscriptions: Subscriptions,
    pub vapid: Arc<crate::adapters::web_push::Vapid>,
    /// The OpenAPI document of the games this server hosts, built on first request (by
    /// `crate::openapi::spec_json`, handed in at start-up: the state names no route).
    pub openapi: LazyLock<String, Box<dyn FnOnce() -> String + Send>>,
    /// Set on SIGTERM: `/readyz` 503, streams end, workers stop (issue 29).
    pub drain: Arc<crate::drain::Drain>,
}
