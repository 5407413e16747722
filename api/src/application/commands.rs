use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::games::Games;
use super::games::MAX_RETRIES;
use super::loaded::Choices;
use super::loaded::Decision;
use super::loaded::Loaded;
use super::loaded::Prompts;
use super::loaded::PromptsMemo;
use super::notify;
use domain::AnyState;
use domain::Outcome;
use domain::Prompt;
use domain::Rejection;
use domain::Seat;
use domain::engine::ChaChaRng;
use domain::i18n::says;
use infra::hash::canonical_json;
use infra::hash::event_hash;
use infra::ids::GameId;
use infra::ids::UserId;
use infra::store::Append;
use infra::store::AppendResult;
use infra::store::Entry;
use infra::store::GameStatus;
use infra::store::Store;
use infra::store::StoredEvent;
use serde_json::Value;
use sha2::Digest;
use sha2::Sha256;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;
use time::OffsetDateTime;
use uuid::Uuid;

/// A snapshot of the state is stored every this many events (and when the game ends).
pub const SNAPSHOT_EVERY: u64 = 128;
/// Counters the metrics endpoint reads.
#[derive(Default)]
pub struct Counters {
    pub commands_appended: std::sync::atomic::AtomicU64,
    pub events_appended: std::sync::atomic::AtomicU64,
    pub conflicts: std::sync::atomic::AtomicU64,
    pub rejections: std::sync::atomic::AtomicU64,
}

pub(super) fn body_hash(command: &Value) -> String {
    let mut text = String::new();
    canonical_json(command, &mut text);
    hex::encode(Sha256::digest(text.as_bytes()))
}

pub(super) fn now_micros() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1000 * 1000)
        .unwrap_or(now)
}

/// A player's command, and the append every use case that moves a game goes through (the
/// start, clocks and bots too): it counts what it appends and refuses.
pub struct Commands {
    games: Arc<Games>,
    store: Store,
    pub counters: Counters,
}

impl Commands {
    pub fn new(games: Arc<Games>) -> Self {
        Commands {
            store: games.store.clone(),
            games,
            counters: Counters::default(),
        }
    }
}

pub struct CommandAnswer {
    pub version: u64,
    pub events: Vec<StoredEvent>,
    /// True when this was a repeat of an accepted command id.
    pub replayed: bool,
    /// After the command: the version, who must or may act, the caller's legal commands
    /// (computed under the command's lock: no second lock, no re-read).
    pub next: Prompts,
}

pub struct CommandRequest {
    pub command_id: Uuid,
    pub expected_version: Option<u64>,
    pub command: Value,
}

type Decided = (Vec<domain::EventData>, Box<dyn AnyState>);
/// The events to append, the state after them and its outcome.
type Settled = (Vec<domain::EventData>, Box<dyn AnyState>, Option<Outcome>);

/// The log entries of one command's `events`, chained after `loaded`'s head: the hash covers
/// the seq, the command, the seat and the schema, so they are complete before the append.
fn chain(
    loaded: &Loaded,
    command_id: Uuid,
    seat: Option<Seat>,
    schema_version: u32,
    recorded_at: OffsetDateTime,
    events: Vec<domain::EventData>,
) -> Vec<StoredEvent> {
    let mut prev_hash = loaded.head_hash.clone();
    let mut seq = loaded.version;
    events
        .into_iter()
        .map(|event| {
            seq += 1;
            let mut entry = StoredEvent {
                seq,
                kind: event.kind,
                payload: event.payload,
                schema_version,
                command_id,
                actor: seat.map(Seat::number),
                recorded_at,
                prev_hash: std::mem::take(&mut prev_hash),
                hash: String::new(),
                redacted: false,
            };
            entry.hash = event_hash(loaded.row.id.0, &entry);
            prev_hash = entry.hash.clone();
            entry
        })
        .collect()
}

/// The rules' answer to `command` from `seat`, drawing the command's own dice (keyed by the
/// version it applies to). A finished game still goes through `decide`, which refuses with
/// the game's own end-of-game rule (WR-132, …).
pub(super) fn decide(
    loaded: &Loaded,
    seat: Seat,
    command: &Value,
) -> Result<std::result::Result<Decided, Rejection>> {
    let seeds = loaded.client_seeds();
    let mut rng = ChaChaRng::for_command(&loaded.row.server_seed, &seeds, loaded.version);
    guarded(|| loaded.state.decide_next(seat, command, &mut rng))
}

/// What the version check makes of a command's `expected_version` against the cached game.
enum Expected {
    /// Decide now.
    Current,
    /// The client has seen a newer version than the cache: catch up to it and check again.
    Newer(u64),
    /// Decided against an older version: 409.
    Stale,
}

impl Loaded {
    /// `user`'s seat, if they may send a command for it (403 otherwise).
    fn sender(&self, user: UserId) -> Result<Seat> {
        let seat = self.seat_for(user)?;
        // Issue 17: a seat handed to a bot (resigned, or timed out too often) is the bot's.
        if self.abandoned(seat) {
            return Err(AppError::Forbidden(says("errors.seat_abandoned")));
        }
        Ok(seat)
    }

    fn expected(&self, expected: Option<u64>) -> Expected {
        match expected {
            Some(expected) if expected > self.version => Expected::Newer(expected),
            Some(expected) if expected < self.version => Expected::Stale,
            _ => Expected::Current,
        }
    }
}

impl Commands {
    /// A player's command, in the shape of cqrs-es `execute`: load (cache) → authorize seat →
    /// decide → append → answer, all under the game's one lock. A command to a cached game
    /// reads nothing before its append; a lost race without `expected_version` decides again.
    pub async fn command(
        &self,
        id: GameId,
        user: UserId,
        request: CommandRequest,
    ) -> Result<CommandAnswer> {
        let slot = self.games.slot(id);
        let mut guard = slot.lock().await;
        // The cache is trusted for deciding: the append's version check catches a stale copy.
        let mut known_head = guard.as_ref().map(|loaded| loaded.version);
        for _attempt in 0..=MAX_RETRIES {
            self.games.ensure_fresh(id, &mut guard, known_head).await?;
            let loaded = guard.as_mut().expect("loaded");
            let seat = loaded.sender(user)?;
            match loaded.expected(request.expected_version) {
                Expected::Newer(version) => {
                    known_head = Some(version);
                    continue;
                }
                Expected::Stale => {
                    let conflict = loaded.conflict();
                    return self.refuse(loaded, user, &request, conflict).await;
                }
                Expected::Current => {}
            }
            let (events, next) = match decide(loaded, seat, &request.command)? {
                Ok(decided) => decided,
                Err(rule) => {
                    // Never refuse on a stale copy (issue 29: another instance's append may not
                    // be heard yet): one read of the head, on refusals only, and decide again
                    // on the fresh state when it moved. Acceptances are checked by the append.
                    let (head, _) = self.store.head(id).await?;
                    if head > loaded.version {
                        known_head = Some(head);
                        continue;
                    }
                    return self.refuse(loaded, user, &request, rule.into()).await;
                }
            };
            let (command_id, command) = (request.command_id, &request.command);
            let appended = self
                .append_decided(
                    loaded,
                    user,
                    Some(seat),
                    command_id,
                    command,
                    events,
                    Some(next),
                    None,
                )
                .await?;
            match appended {
                Ok(answer) => return Ok(answer),
                // Lost a race: a client that named its version is told; otherwise decide again.
                Err(current) if request.expected_version.is_some() => {
                    let lost = AppError::Conflict { current };
                    return self.refuse(loaded, user, &request, lost).await;
                }
                Err(current) => {
                    self.counters.conflicts.fetch_add(1, Ordering::Relaxed);
                    known_head = Some(current);
                }
            }
        }
        let current = guard.as_ref().map(|l| l.version).unwrap_or(0);
        Err(AppError::Conflict { current })
    }

    /// `refusal`, unless the command is a repeat of one the caller had accepted (then its
    /// first answer). Counted in the metrics.
    async fn refuse(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        request: &CommandRequest,
        refusal: AppError,
    ) -> Result<CommandAnswer> {
        if let Some(answer) = self.repeat(loaded, user, request).await? {
            return Ok(answer);
        }
        let counter = match refusal {
            AppError::Rejected(_) => &self.counters.rejections,
            _ => &self.counters.conflicts,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Err(refusal)
    }

    /// The first answer to a command id the caller already sent and had accepted; 422 when
    /// the body differs. Another caller's records never answer: their id is just an id.
    /// (Runs under the game's slot lock: it must not take it again.)
    pub(super) async fn repeat(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        request: &CommandRequest,
    ) -> Result<Option<CommandAnswer>> {
        let id = loaded.row.id;
        match self.store.command(id, user, request.command_id).await? {
            None => Ok(None),
            Some((hash, _, _)) if hash != body_hash(&request.command) => {
                Err(AppError::IdempotencyMismatch)
            }
            Some((_, first, last)) => {
                Ok(Some(self.answer_from_log(loaded, user, first, last).await?))
            }
        }
    }

    /// The answer to an accepted command, rebuilt from its events `first..=last` in the log,
    /// as `user` may see them, with `next` from a state at least at `last`: the command may
    /// have been appended by another instance this one has not heard yet (issue 29), so the
    /// cache catches up first. (Callers hold the game's slot lock.)
    pub(super) async fn answer_from_log(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        first: u64,
        last: u64,
    ) -> Result<CommandAnswer> {
        if loaded.version < last {
            self.games.catch_up(loaded.row.id, loaded).await?;
            self.games.sync_decisions(loaded.row.id, loaded).await?;
        }
        let events = self
            .store
            .events(
                loaded.row.id,
                first - 1,
                Some(last),
                (last + 1 - first) as u32 + 1,
            )
            .await?;
        loaded.answer(user, &events, (last, true), None)
    }

    /// Appends decided events and answers, in steps: the state after them (and the seed
    /// reveal at the end) → the chained entries → the append (with its inbox rows, outbox and
    /// snapshot) → the cache moved to the new head → the caller's answer. `Err(current)` on a
    /// version conflict (nothing changed). Used by commands, the start, clocks and bots; the
    /// start appends in the transaction that locked its lobby (`lock`, issue 26).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn append_decided(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        seat: Option<Seat>,
        command_id: Uuid,
        command: &Value,
        events: Vec<domain::EventData>,
        next: Option<Box<dyn AnyState>>,
        lock: Option<infra::store::Locked>,
    ) -> Result<std::result::Result<CommandAnswer, u64>> {
        let (events, next, outcome) = after(loaded, events, next)?;
        let recorded_at = now_micros();
        let schema = loaded.game.event_schema_version();
        let entries = chain(loaded, command_id, seat, schema, recorded_at, events);
        let sent = Sent {
            user,
            seat,
            command_id,
            command,
            recorded_at,
        };
        let hash = body_hash(command);
        let (append, decisions, prompts) = append_of(
            loaded,
            &sent,
            &hash,
            &entries,
            (next.as_ref(), outcome.as_ref()),
        )?;
        let appending = async {
            match lock {
                Some(lock) => lock.append(append).await,
                None => self.store.append(append).await,
            }
        };
        let mut appending = std::pin::pin!(appending);
        // An append alone (none other in flight here: one game's pace) is sent first (the first
        // poll hands it to the group commit worker or the connection) and the caller's choices
        // in the new state are computed while PostgreSQL writes it, on a core that would
        // otherwise wait: that is the answer's latency (issue 31). Under load they are computed
        // after, as the answer is made: computed in the append's window they competed with the
        // worker sending the next batch (64 Whisky Race games 5–14 % slower). A lost race
        // throws them away.
        let alone = self.store.appends_in_flight() == 0;
        let mut sent = Poll::Pending;
        let mut choices = None;
        if alone {
            sent = std::future::poll_fn(|cx| Poll::Ready(appending.as_mut().poll(cx))).await;
            choices = guarded(|| loaded.choices_in(next.as_ref(), outcome.is_some(), user))?;
        }
        let appended = match sent {
            Poll::Ready(appended) => appended?,
            Poll::Pending => appending.await?,
        };
        match appended {
            AppendResult::Appended { version, .. } => {
                self.counters
                    .commands_appended
                    .fetch_add(1, Ordering::Relaxed);
                let appended = entries.len() as u64;
                self.counters
                    .events_appended
                    .fetch_add(appended, Ordering::Relaxed);
                loaded.decisions = decisions;
                loaded.advance(next, outcome.as_ref(), &entries, (version, recorded_at));
                self.games.views.moved(loaded.row.id, version);
                // The new state's prompts, computed for its inbox: its answer and reads reuse them.
                loaded.prompts_memo = PromptsMemo::of(loaded.version, prompts);
                Ok(Ok(loaded.answer(
                    user,
                    &entries,
                    (version, false),
                    choices,
                )?))
            }
            AppendResult::Duplicate {
                first_seq,
                last_seq,
                ..
            } => Ok(Ok(self
                .answer_from_log(loaded, user, first_seq, last_seq)
                .await?)),
            AppendResult::Mismatch => Err(AppError::IdempotencyMismatch),
            AppendResult::Conflict { current } => Ok(Err(current)),
        }
    }
}

/// Who sent a decided command, and when it is recorded.
struct Sent<'c> {
    user: UserId,
    seat: Option<Seat>,
    command_id: Uuid,
    command: &'c Value,
    recorded_at: OffsetDateTime,
}

/// The state after `events` (computed by `decide_next`, or applied here to a copy) and its
/// outcome, and the events with the seed reveal added when they end the game.
fn after(
    loaded: &Loaded,
    mut events: Vec<domain::EventData>,
    next: Option<Box<dyn AnyState>>,
) -> Result<Settled> {
    let next = match next {
        Some(next) => next,
        None => {
            let schema = loaded.game.event_schema_version();
            let mut next = loaded.state.clone_box();
            for event in &events {
                next.apply(&event.payload, schema)
                    .map_err(AppError::Internal)?;
            }
            next
        }
    };
    let outcome = guarded(|| next.outcome())?;
    if outcome.is_some() {
        events.push(Entry::seed_reveal(&loaded.row.server_seed));
    }
    Ok((events, next, outcome))
}

/// The append of `entries` after `loaded`'s head, with what it writes beside the log in the
/// same transaction: the game's status and outcome, a snapshot every `SNAPSHOT_EVERY` events
/// and at the end, the inbox rows of the seats `next` waits for and the notifications; and
/// the decisions `next` waits for (issue 26), which the cache keeps once it is appended.
fn append_of<'a>(
    loaded: &Loaded,
    sent: &Sent<'a>,
    body_hash: &'a str,
    entries: &'a [StoredEvent],
    (next, outcome): (&dyn AnyState, Option<&Outcome>),
) -> Result<(Append<'a>, Vec<Decision>, Arc<[Prompt]>)> {
    let new_version = loaded.version + entries.len() as u64;
    let crosses_snapshot = new_version / SNAPSHOT_EVERY > loaded.version / SNAPSHOT_EVERY;
    let snapshot = (crosses_snapshot || outcome.is_some()).then(|| next.to_json());
    // Who the new state waits for: the inbox and `your_turn` skip bots' seats and carry each
    // seat's deadline (issue 17), counted from its decision's start (issue 26) or this append.
    let bot_plays = |seat: u8| loaded.bot_plays(seat, entries);
    let prompts: Arc<[Prompt]> = guarded(|| next.prompts())?.into();
    let waiting = super::inbox::waiting(&prompts, outcome.is_some(), &bot_plays);
    let head = (new_version, sent.recorded_at);
    let decisions = loaded.decisions_after(&waiting, sent.seat, sent.command, head);
    let deadline_of = |seat: u8| loaded.deadline_of(&decisions, head, seat);
    let outbox = notify::after_command(
        loaded,
        &waiting,
        outcome,
        sent.user,
        new_version,
        (&deadline_of, &bot_plays),
    );
    let waiting = super::inbox::inbox_rows(&waiting, &deadline_of, &decisions);
    let append = Append {
        game: loaded.row.id,
        expected: loaded.version,
        command_id: sent.command_id,
        user: sent.user,
        seat: sent.seat.map(Seat::number),
        body_hash,
        command: sent.command,
        events: entries,
        status: status_of(outcome),
        outcome: outcome.map(|o| serde_json::to_value(o).expect("outcome serializes")),
        snapshot,
        recorded_at: sent.recorded_at,
        waiting,
        outbox,
    };
    Ok((append, decisions, prompts))
}

fn status_of(outcome: Option<&Outcome>) -> GameStatus {
    match outcome {
        Some(_) => GameStatus::Finished,
        None => GameStatus::Active,
    }
}

impl Loaded {
    /// The cached game moved to the head of an append of `entries` (now at `version`).
    fn advance(
        &mut self,
        next: Box<dyn AnyState>,
        outcome: Option<&Outcome>,
        entries: &[StoredEvent],
        (version, recorded_at): (u64, OffsetDateTime),
    ) {
        self.state = next;
        self.version = version;
        if let Some(last) = entries.last() {
            self.head_hash = last.hash.clone();
        }
        self.head_at = Some(recorded_at);
        for entry in entries {
            self.note_entry(&entry.kind, &entry.payload);
        }
        self.finished = outcome.is_some();
        self.row.status = status_of(outcome);
    }

    /// The answer to `user`'s command at `version`, appended now or `replayed` from the log:
    /// its entries as they may see them, and their prompts after it (under the command's
    /// lock: no second lock, no re-read), with the caller's `choices` when they were computed
    /// during the append.
    fn answer(
        &self,
        user: UserId,
        entries: &[StoredEvent],
        (version, replayed): (u64, bool),
        choices: Option<Choices>,
    ) -> Result<CommandAnswer> {
        let viewer = self.viewer(user);
        let next = match choices {
            Some(choices) => self.prompts_with(choices),
            None => guarded(|| self.prompts_for(user))?,
        };
        Ok(CommandAnswer {
            version,
            events: entries
                .iter()
                .filter_map(|e| self.redact(e, viewer))
                .collect(),
            replayed,
            next,
        })
    }
}
