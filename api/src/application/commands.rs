use super::*;
use domain::Rejection;
use std::sync::atomic::Ordering;

type Decided = (Vec<domain::EventData>, Box<dyn AnyState>);

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

impl GameService {
    /// A player's command: load (cache) → authorize seat → decide → append → answer, under
    /// the game's one lock. A command to a cached game reads nothing before its append.
    pub async fn command(
        &self,
        id: GameId,
        user: UserId,
        request: CommandRequest,
    ) -> Result<CommandAnswer> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        // The cache is trusted for deciding: the append's version check catches a stale copy.
        let mut known_head = guard.as_ref().map(|loaded| loaded.version);
        for _attempt in 0..=MAX_RETRIES {
            self.ensure_fresh(id, &mut guard, known_head).await?;
            let loaded = guard.as_mut().expect("loaded");
            let seat = loaded.seat_for(user)?;
            // Issue 17: a seat handed to a bot (resigned, or timed out too often) is the bot's.
            if loaded.abandoned(seat) {
                return Err(StoreError::Forbidden(
                    "your seat is played by a bot since you left it".into(),
                ));
            }
            match request.expected_version {
                // The client has seen a newer version than our cache: catch up and re-check.
                Some(expected) if expected > loaded.version => {
                    known_head = Some(expected);
                    continue;
                }
                Some(expected) if expected < loaded.version => {
                    let stale = loaded.conflict();
                    return self.refuse(loaded, user, &request, stale).await;
                }
                _ => {}
            }
            let (events, next) = match decide(loaded, seat, &request.command)? {
                Ok(decided) => decided,
                Err(rejection) => {
                    let rejected = StoreError::Rejected(rejection);
                    return self.refuse(loaded, user, &request, rejected).await;
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
                )
                .await?;
            match appended {
                Ok(answer) => return Ok(answer),
                // Lost a race: a client that named its version is told; otherwise decide again.
                Err(current) if request.expected_version.is_some() => {
                    let lost = StoreError::Conflict { current };
                    return self.refuse(loaded, user, &request, lost).await;
                }
                Err(current) => {
                    self.counters.conflicts.fetch_add(1, Ordering::Relaxed);
                    known_head = Some(current);
                }
            }
        }
        let current = guard.as_ref().map(|l| l.version).unwrap_or(0);
        Err(StoreError::Conflict { current })
    }

    /// `refusal`, unless the command is a repeat of one the caller had accepted (then its
    /// first answer). Counted in the metrics.
    async fn refuse(
        &self,
        loaded: &Loaded,
        user: UserId,
        request: &CommandRequest,
        refusal: StoreError,
    ) -> Result<CommandAnswer> {
        if let Some(answer) = self.repeat(loaded, user, request).await? {
            return Ok(answer);
        }
        let counter = match refusal {
            StoreError::Rejected(_) => &self.counters.rejections,
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
        loaded: &Loaded,
        user: UserId,
        request: &CommandRequest,
    ) -> Result<Option<CommandAnswer>> {
        let id = loaded.row.id;
        match self.store.command(id, user, request.command_id).await? {
            None => Ok(None),
            Some((hash, _, _)) if hash != body_hash(&request.command) => {
                Err(StoreError::IdempotencyMismatch)
            }
            Some((_, first, last)) => {
                Ok(Some(self.answer_from_log(loaded, user, first, last).await?))
            }
        }
    }

    /// The answer to an accepted command, rebuilt from its events `first..=last` in the log,
    /// as `user` may see them. (Callers hold the game's slot lock.)
    pub(super) async fn answer_from_log(
        &self,
        loaded: &Loaded,
        user: UserId,
        first: u64,
        last: u64,
    ) -> Result<CommandAnswer> {
        let events = self
            .store
            .events(
                loaded.row.id,
                first - 1,
                Some(last),
                (last + 1 - first) as u32 + 1,
            )
            .await?;
        let viewer = loaded.viewer(user);
        Ok(CommandAnswer {
            version: last,
            events: events
                .iter()
                .filter_map(|e| loaded.redact(e, viewer))
                .collect(),
            replayed: true,
            next: guarded(|| loaded.prompts_for(user))?,
        })
    }

    /// Hashes, appends and applies decided events. `Err(current)` on a version conflict.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn append_decided(
        &self,
        loaded: &mut Loaded,
        user: UserId,
        seat: Option<Seat>,
        command_id: Uuid,
        command: &Value,
        mut events: Vec<domain::EventData>,
        next: Option<Box<dyn AnyState>>,
    ) -> Result<std::result::Result<CommandAnswer, u64>> {
        // The state after the events (computed by `decide_next`, or applied here to a copy):
        // we need its outcome to know whether to reveal the seed.
        let schema = loaded.game.event_schema_version();
        let next = match next {
            Some(next) => next,
            None => {
                let mut next = loaded.state.clone_box();
                for event in &events {
                    next.apply(&event.payload, schema)
                        .map_err(StoreError::Corrupt)?;
                }
                next
            }
        };
        let outcome: Option<Outcome> = next.outcome();
        if outcome.is_some() {
            events.push(Entry::seed_reveal(&loaded.row.server_seed));
        }
        let recorded_at = now_micros();
        let entries = chain(loaded, command_id, seat, schema, recorded_at, events);
        let new_version = loaded.version + entries.len() as u64;
        let crosses_snapshot = new_version / SNAPSHOT_EVERY > loaded.version / SNAPSHOT_EVERY;
        let snapshot = (crosses_snapshot || outcome.is_some()).then(|| next.to_json());
        // Who the new state waits for: the inbox and `your_turn` skip bots' seats and carry
        // the clock's deadline (issue 17), both counted from this append.
        let deadline = loaded.deadline_after(recorded_at);
        let bot_plays = |seat: u8| loaded.bot_plays(seat, &entries);
        let waiting = super::inbox::waiting(next.as_ref(), deadline, &bot_plays)?;
        let status = if outcome.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Active
        };
        let outbox = notify::after_command(
            loaded,
            &*next,
            outcome.as_ref(),
            user,
            new_version,
            (deadline, &bot_plays),
        );
        let result = self
            .store
            .append(Append {
                game: loaded.row.id,
                expected: loaded.version,
                command_id,
                user,
                seat: seat.map(Seat::number),
                body_hash: &body_hash(command),
                command,
                events: &entries,
                status,
                outcome: outcome
                    .as_ref()
                    .map(|o| serde_json::to_value(o).expect("outcome serializes")),
                snapshot,
                recorded_at,
                waiting,
                outbox,
            })
            .await?;
        match result {
            AppendResult::Appended { version, .. } => {
                self.counters
                    .commands_appended
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.counters
                    .events_appended
                    .fetch_add(entries.len() as u64, std::sync::atomic::Ordering::Relaxed);
                loaded.state = next;
                loaded.version = version;
                loaded.head_hash = entries
                    .last()
                    .map_or_else(|| loaded.head_hash.clone(), |e| e.hash.clone());
                loaded.head_at = Some(recorded_at);
                for entry in &entries {
                    loaded.note_entry(&entry.kind, &entry.payload);
                }
                loaded.finished = outcome.is_some();
                loaded.row.status = status;
                let viewer = loaded.viewer(user);
                let events = entries
                    .iter()
                    .filter_map(|e| loaded.redact(e, viewer))
                    .collect();
                Ok(Ok(CommandAnswer {
                    version,
                    events,
                    replayed: false,
                    next: guarded(|| loaded.prompts_for(user))?,
                }))
            }
            AppendResult::Duplicate {
                first_seq,
                last_seq,
                ..
            } => Ok(Ok(self
                .answer_from_log(loaded, user, first_seq, last_seq)
                .await?)),
            AppendResult::Mismatch => Err(StoreError::IdempotencyMismatch),
            AppendResult::Conflict { current } => Ok(Err(current)),
        }
    }
}
