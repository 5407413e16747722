//! [`Services`]: the game use cases built once over one store and registry, each holding what
//! it needs (the shared core [`Games`], the store, the heavy-work threads, the read source).
//! `app.rs` builds them for the server, the command line and the tests for themselves.

use super::audit::Audits;
use super::board::Boards;
use super::check::Checks;
use super::clocks::Clocks;
use super::commands::Commands;
use super::export::Exports;
use super::games::Games;
use super::heavy::Heavy;
use super::inbox::Inbox;
use super::lobby::Lobby;
use super::reads::Reads;
use super::replay::Replays;
use domain::Registry;
use infra::replica::ReadSource;
use infra::store::Store;
use std::sync::Arc;

/// Every game use case, wired to the ones it calls (`Arc` where one is shared).
pub struct Services {
    pub games: Arc<Games>,
    pub commands: Arc<Commands>,
    pub checks: Checks,
    pub lobby: Arc<Lobby>,
    pub reads: Arc<Reads>,
    pub replays: Arc<Replays>,
    pub exports: Arc<Exports>,
    pub audits: Arc<Audits>,
    pub boards: Arc<Boards>,
    pub clocks: Arc<Clocks>,
    pub inbox: Inbox,
    /// Audits, exports and replays: their threads and kept answers (issue 26).
    pub heavy: Arc<Heavy>,
}

impl Services {
    /// The services of the games in `registry`, stored in `store`: the default heavy threads,
    /// 64 MiB of kept answers, every read from the primary.
    pub fn new(store: Store, registry: Registry) -> Self {
        let heavy = Heavy::new(crate::limits::default_heavy_threads(), Some(64));
        Services::with(store, registry, heavy, None)
    }

    /// The services with `threads` heavy-work threads and `cache_mb` MiB of kept answers,
    /// reading replays, exports, audits and event pages from `replica` when it is fresh enough
    /// (issue 29; `None`: everything from the primary).
    pub fn build(
        store: Store,
        registry: Registry,
        threads: usize,
        cache_mb: Option<usize>,
        replica: Option<Store>,
    ) -> Self {
        Services::with(store, registry, Heavy::new(threads, cache_mb), replica)
    }

    fn with(store: Store, registry: Registry, heavy: Heavy, replica: Option<Store>) -> Self {
        let source = Arc::new(ReadSource::new(store.clone(), replica));
        let heavy = Arc::new(heavy);
        let games = Arc::new(Games::new(store, registry));
        let commands = Arc::new(Commands::new(games.clone()));
        let lobby = Arc::new(Lobby::new(games.clone(), commands.clone()));
        let replays = Arc::new(Replays::new(games.clone(), heavy.clone(), source.clone()));
        let exports = Arc::new(Exports::new(games.clone(), heavy.clone(), source.clone()));
        let audits = Arc::new(Audits::new(games.clone(), heavy.clone(), source.clone()));
        let boards = Arc::new(Boards::new(
            games.clone(),
            replays.clone(),
            exports.clone(),
            audits.clone(),
        ));
        Services {
            checks: Checks::new(games.clone()),
            reads: Arc::new(Reads::new(games.clone(), source)),
            clocks: Arc::new(Clocks::new(games.clone(), commands.clone())),
            inbox: Inbox::new(games.clone()),
            games,
            commands,
            lobby,
            replays,
            exports,
            audits,
            boards,
            heavy,
        }
    }
}
