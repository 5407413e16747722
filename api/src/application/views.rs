//! Reads served as bytes (issue 31): the prompts answer and the detail answer of a started game
//! depend only on (game, version, audience), so each is rendered once per version and audience
//! and every later read at that version gets the same bytes. A hit takes two short sync locks
//! and never waits on the game's command lock; a miss takes today's path and fills the cache.
//!
//! The HTTP layer owns the wire format: it hands a render function in, the cache keeps what it
//! returns. Only what the audience alone decides is cached: of an active game's detail answer
//! the caller's seat is the audience itself (links are a lobby's, the rematch a finished game's:
//! a finished game's detail is not cached).

use super::loaded::Loaded;
use bytes::Bytes;
use infra::ids::GameId;
use infra::ids::UserId;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

/// Which answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Route {
    Prompts,
    Detail,
}

/// Whose answer: the seat whose view and choices it shows, or `None` for a spectator (and, for
/// a finished game's prompts, for everyone: nobody has choices any more).
pub(super) type Audience = Option<u8>;

/// One game's rendered answers, all of one version.
pub(super) struct Rendered {
    version: u64,
    finished: bool,
    /// Who sits where at `version`: a hit finds its caller's audience without the game.
    seats: Box<[(UserId, u8)]>,
    answers: Vec<(Route, Audience, Bytes)>,
}

impl Rendered {
    fn audience(&self, user: UserId, route: Route) -> Option<Audience> {
        let seat = self.seats.iter().find(|(u, _)| *u == user).map(|(_, s)| *s);
        match (route, self.finished) {
            // A rematch opened after the end changes the answer, not the version.
            (Route::Detail, true) => None,
            (Route::Prompts, true) => Some(None),
            _ => Some(seat),
        }
    }

    fn answer(&self, route: Route, audience: Audience) -> Option<Bytes> {
        self.answers
            .iter()
            .find(|(r, a, _)| *r == route && *a == audience)
            .map(|(_, _, bytes)| bytes.clone())
    }

    pub(super) fn bytes(&self) -> usize {
        self.answers.iter().map(|(_, _, b)| b.len()).sum::<usize>()
            + self.seats.len() * size_of::<(UserId, u8)>()
            + self.answers.capacity() * size_of::<(Route, Audience, Bytes)>()
            + size_of::<Rendered>()
    }
}

/// The rendered answers of the games this instance holds, one version each (the newest it
/// rendered); a game's entry goes when the version it knows moves past it, or with its slot.
#[derive(Default)]
pub(super) struct Views {
    games: Mutex<HashMap<GameId, Rendered>>,
    /// Bumped when every entry is dropped (the listener reconnected): a render begun before
    /// may hold a version that missed appends, so it is not kept.
    pub(super) generation: AtomicU64,
    pub(super) hits: AtomicU64,
    pub(super) renders: AtomicU64,
}

/// What the byte cache did so far, and what it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewCounts {
    /// Answers served from cached bytes.
    pub hits: u64,
    /// Answers rendered (a miss).
    pub renders: u64,
    /// Games with rendered answers, and the bytes they take.
    pub games: usize,
    pub bytes: usize,
}

impl Views {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Rendered>> {
        self.games.lock().expect("views lock")
    }

    /// The cached bytes of `route` for `user` if rendered at `head` or later.
    pub(super) fn hit(
        &self,
        id: GameId,
        user: UserId,
        route: Route,
        head: u64,
    ) -> Option<(u64, Bytes)> {
        let games = self.lock();
        let rendered = games.get(&id).filter(|r| r.version >= head)?;
        let bytes = rendered.answer(route, rendered.audience(user, route)?)?;
        Some((rendered.version, bytes))
    }

    /// The bytes of `route` for `audience` at `loaded`'s version (its game's lock held):
    /// cached, or rendered and kept unless every entry was dropped since `generation`.
    pub(super) fn rendered(
        &self,
        generation: u64,
        loaded: &Loaded,
        route: Route,
        audience: Audience,
        render: impl FnOnce() -> Bytes,
    ) -> Bytes {
        if let Some(bytes) = self.at(loaded.row.id, loaded.version, route, audience) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return bytes;
        }
        let bytes = render();
        self.renders.fetch_add(1, Ordering::Relaxed);
        self.keep(generation, loaded, route, audience, bytes.clone());
        bytes
    }

    /// The cached bytes of `route` for `audience` at exactly `version` (a read under the game's
    /// lock: the cache may hold it though the fast path could not trust it).
    fn at(&self, id: GameId, version: u64, route: Route, audience: Audience) -> Option<Bytes> {
        let games = self.lock();
        let rendered = games.get(&id).filter(|r| r.version == version)?;
        rendered.answer(route, audience)
    }

    /// Keeps `bytes`, rendered from `loaded` under its game's lock, unless a newer version is
    /// held or every entry was dropped since `generation`.
    fn keep(
        &self,
        generation: u64,
        loaded: &Loaded,
        route: Route,
        audience: Audience,
        bytes: Bytes,
    ) {
        let mut games = self.lock();
        if self.generation.load(Ordering::Acquire) != generation {
            return;
        }
        let rendered = games.entry(loaded.row.id).or_insert_with(|| Rendered {
            version: loaded.version,
            finished: loaded.finished,
            seats: Box::default(),
            answers: Vec::new(),
        });
        if rendered.version > loaded.version {
            return;
        }
        if rendered.version < loaded.version || rendered.seats.is_empty() {
            rendered.version = loaded.version;
            rendered.finished = loaded.finished;
            rendered.seats = loaded.seats.iter().map(|s| (s.user_id, s.seat)).collect();
            rendered.answers.clear();
        }
        if rendered.answer(route, audience).is_none() {
            rendered.answers.push((route, audience, bytes));
        }
    }

    /// The game moved to `version` here (this instance's own append): older bytes go now,
    /// before the notification of it is heard.
    pub(super) fn moved(&self, id: GameId, version: u64) {
        let mut games = self.lock();
        if games.get(&id).is_some_and(|r| r.version < version) {
            games.remove(&id);
        }
    }

    /// The game changed without a new version (a seat renamed or reloaded): render again.
    pub(super) fn forget(&self, id: GameId) {
        self.lock().remove(&id);
    }

    /// Every game's bytes go (the listener reconnected: appends may have been missed).
    pub(super) fn clear(&self) {
        let mut games = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        games.clear();
    }
}
