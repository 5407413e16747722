//! A loaded, started game ([`Loaded`]): its row, seats, state and head, and what a caller
//! may see of it; the caller's prompts ([`Prompts`]); the decisions a clock counts from.

use super::error::AppError;
use super::error::Result;
use domain::AnyGame;
use domain::AnyState;
use domain::Prompt;
use domain::Seat;
use domain::Viewer;
use domain::i18n::says;
use infra::ids::UserId;
use infra::store::Entry;
use infra::store::GameRow;
use infra::store::SeatRow;
use infra::store::StoredEvent;
use serde_json::Value;
use time::OffsetDateTime;
/// When a seat's decision times out (issue 26: each seat's own), if the game has a clock.
pub type DeadlineOf<'a> = dyn Fn(u8) -> Option<OffsetDateTime> + 'a;

/// A seat the game waits for, and the log entry its decision counts from (issue 26).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    pub seat: u8,
    /// The seq of the entry the decision began at (the last of the command that asked for it).
    pub since: u64,
    pub at: OffsetDateTime,
}

/// A loaded, started game.
pub struct Loaded {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    pub game: &'static dyn AnyGame,
    pub version: u64,
    pub head_hash: String,
    pub state: Box<dyn AnyState>,
    pub finished: bool,
    /// `recorded_at` of the head event: a clocked game's deadlines count from it (issue 17).
    pub head_at: Option<OffsetDateTime>,
    /// The seats the game waits for and where each one's decision began (clock version 2,
    /// issue 26; empty otherwise): their deadlines count from there.
    pub decisions: Vec<Decision>,
    /// The state's prompts, computed once per version ([`Loaded::prompts`]).
    pub(super) prompts_memo: PromptsMemo,
}

/// The prompts of one version of a game's state. Computing them enumerates every seat's
/// command families (a Whisky Race position: its trade families), and a command needed them
/// three times — the inbox of the new state, `your_turn` (who waited before), the answer's
/// `next` — plus once per `GET /prompts` (issue 31: 60 % of the server's CPU per command).
/// Kept with the version they belong to, so a state moved on by any path (an append, a
/// catch-up from the log) is never answered with the prompts of an older one.
#[derive(Default)]
pub struct PromptsMemo(std::sync::Mutex<Option<(u64, std::sync::Arc<[Prompt]>)>>);

impl PromptsMemo {
    /// A memo holding `prompts`, the prompts of the state at `version`.
    pub(super) fn of(version: u64, prompts: std::sync::Arc<[Prompt]>) -> Self {
        PromptsMemo(std::sync::Mutex::new(Some((version, prompts))))
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(u64, std::sync::Arc<[Prompt]>)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    /// The prompts kept for `version`, if they are the ones kept.
    fn at(&self, version: u64) -> Option<std::sync::Arc<[Prompt]>> {
        match &*self.lock() {
            Some((kept, prompts)) if *kept == version => Some(prompts.clone()),
            _ => None,
        }
    }
}

impl Loaded {
    /// A game at `version` with `state` and the head's hash; nothing decided or waited for yet
    /// (the load catches up and reads decisions afterwards; a start appends from version 0).
    pub(super) fn new(
        game: &'static dyn AnyGame,
        row: GameRow,
        seats: Vec<SeatRow>,
        version: u64,
        head_hash: String,
        state: Box<dyn AnyState>,
    ) -> Self {
        Loaded {
            game,
            version,
            head_hash,
            state,
            finished: false,
            head_at: None,
            decisions: Vec::new(),
            prompts_memo: Default::default(),
            seats,
            row,
        }
    }

    pub fn seat_of(&self, user: UserId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.user_id == user)
            .and_then(|s| Seat::new(s.seat).ok())
    }
    /// `user`'s seat: sending or checking a command needs one (403 otherwise).
    pub fn seat_for(&self, user: UserId) -> Result<Seat> {
        self.seat_of(user)
            .ok_or_else(|| AppError::Forbidden(says("errors.no_seat")))
    }
    /// The version conflict of a command decided against `expected` (409 naming the current).
    pub(super) fn conflict(&self) -> AppError {
        AppError::Conflict {
            current: self.version,
        }
    }
    /// What `user` may see: everything once the game is over.
    pub fn viewer(&self, user: UserId) -> Viewer {
        if self.finished {
            Viewer::Omniscient
        } else {
            self.seat_of(user)
                .map(Viewer::Seat)
                .unwrap_or(Viewer::Spectator)
        }
    }
    /// Who must or may act in the state at this version (computed once per version).
    pub fn prompts(&self) -> std::sync::Arc<[Prompt]> {
        // Computed outside the lock: a rules panic (caught by `guarded`) poisons nothing.
        if let Some(prompts) = self.prompts_memo.at(self.version) {
            return prompts;
        }
        let prompts: std::sync::Arc<[Prompt]> = self.state.prompts().into();
        *self.prompts_memo.lock() = Some((self.version, prompts.clone()));
        prompts
    }
    /// The version, who must or may act now, and `user`'s legal commands as JSON Schema
    /// families (issue 15: `choices`, the contract; `legal` is drawn from them at the edge).
    pub fn prompts_for(&self, user: UserId) -> Prompts {
        self.prompts_with(
            self.choices_in(self.state.as_ref(), self.finished, user)
                .unwrap_or_default(),
        )
    }

    /// `user`'s choices in `state` (this game's, or the state a command is about to append):
    /// one computation of the families, `legal` drawn from them; `None` for a caller with no
    /// seat or a `finished` game (nobody has choices any more).
    pub(super) fn choices_in(
        &self,
        state: &dyn AnyState,
        finished: bool,
        user: UserId,
    ) -> Option<Choices> {
        let seat = self.seat_of(user).filter(|_| !finished)?;
        Some(state.choices_and_legal(seat))
    }

    /// [`Loaded::prompts_for`] with the caller's choices already computed (a command's answer
    /// computes them while its append is in flight).
    pub(super) fn prompts_with(&self, (choices, legal): Choices) -> Prompts {
        let prompts = self.prompts();
        Prompts {
            version: self.version,
            deadlines: self.deadlines(&prompts),
            prompts: prompts.to_vec(),
            choices,
            legal,
        }
    }
    pub(super) fn client_seeds(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.client_seed.clone()).collect()
    }
    /// The caller's copy of a stored event (payload redacted, flagged), or `None` if the
    /// event is hidden from them altogether.
    pub fn redact(&self, event: &StoredEvent, viewer: Viewer) -> Option<StoredEvent> {
        redact_for(self.state.as_ref(), event, viewer)
    }
}

/// `viewer`'s copy of a stored event, redacted by the rules of `game`'s state (any state of
/// the game: redaction depends on the event and the viewer only).
pub(super) fn redact_for(
    game: &dyn AnyState,
    event: &StoredEvent,
    viewer: Viewer,
) -> Option<StoredEvent> {
    // The server's own entries (seed reveal, timeouts, abandonment) are public.
    if event.entry() != Entry::Game || viewer == Viewer::Omniscient {
        return Some(event.clone());
    }
    let payload = game.redact(&event.payload, viewer)?;
    Some(event.shown_as(payload))
}

/// A seat's JSON Schema families and the short `legal` sample drawn from them.
pub type Choices = (Vec<domain::choices::Family>, Vec<Value>);

/// The version, who must or may act, and the caller's `choices` (one family per command family,
/// the contract) with `legal`, the game's concrete list for simple bots drawn from them (each
/// game keeps it short: sampled trades, one order of a swap).
pub struct Prompts {
    pub version: u64,
    pub prompts: Vec<Prompt>,
    pub choices: Vec<domain::choices::Family>,
    pub legal: Vec<Value>,
    /// When each seat the game waits for runs out of time (clocked games, issue 17).
    pub deadlines: Vec<(u8, OffsetDateTime)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(seat: u8) -> Prompt {
        Prompt {
            seat: Seat::new(seat).expect("a seat"),
            kinds: vec!["roll".into()],
            must: true,
        }
    }

    #[test]
    fn kept_prompts_answer_only_for_their_own_version() {
        let memo = PromptsMemo::of(7, vec![prompt(1)].into());
        assert_eq!(memo.at(7).as_deref(), Some(&[prompt(1)][..]));
        // A state moved on by any path (append, catch-up) has another version: recompute.
        assert_eq!(memo.at(8), None);
        assert_eq!(memo.at(6), None);
        assert_eq!(PromptsMemo::default().at(0), None);
    }
}
