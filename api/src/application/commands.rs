use super::*;
use domain::Rejection;
use std::sync::atomic::Ordering;

type Decided = (Vec<domain::EventData>, Box<dyn AnyState>);

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
            let seat = loaded
                .seat_of(user)
                .ok_or_else(|| StoreError::Forbidden("you have no seat in this game".into()))?;
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
                    let stale = StoreError::Conflict {
                        current: loaded.version,
                    };
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
        events: Vec<domain::EventData>,
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
        let mut kinds: Vec<String> = events.iter().map(|e| e.kind.clone()).collect();
        let mut payloads: Vec<Value> = events.into_iter().map(|e| e.payload).collect();
        if outcome.is_some() {
            let (kind, payload) = Entry::seed_reveal(&loaded.row.server_seed);
            kinds.push(kind);
            payloads.push(payload);
        }
        let recorded_at = now_micros();
        let mut hashes = Vec::with_capacity(kinds.len());
        let mut prev = loaded.head_hash.clone();
        for (i, (kind, payload)) in kinds.iter().zip(&payloads).enumerate() {
            let hash = event_hash(
                &prev,
                &ChainedEvent {
                    game_id: loaded.row.id.0,
                    seq: loaded.version + 1 + i as u64,
                    kind,
                    schema_version: schema,
                    command_id,
                    actor: seat.map(Seat::number),
                    payload,
                },
            );
            prev = hash.clone();
            hashes.push(hash);
        }
        let new_version = loaded.version + kinds.len() as u64;
        let crosses_snapshot = new_version / SNAPSHOT_EVERY > loaded.version / SNAPSHOT_EVERY;
        let snapshot = (crosses_snapshot || outcome.is_some()).then(|| next.to_json());
        let status = if outcome.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Active
        };
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
                kinds: kinds.clone(),
                payloads: payloads.clone(),
                schema_version: schema,
                hashes: hashes.clone(),
                status,
                outcome: outcome
                    .as_ref()
                    .map(|o| serde_json::to_value(o).expect("outcome serializes")),
                snapshot,
                recorded_at,
            })
            .await?;
        match result {
            AppendResult::Appended {
                version, first_seq, ..
            } => {
                self.counters
                    .commands_appended
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.counters
                    .events_appended
                    .fetch_add(kinds.len() as u64, std::sync::atomic::Ordering::Relaxed);
                loaded.state = next;
                loaded.version = version;
                loaded.head_at = Some(recorded_at);
                for (kind, payload) in kinds.iter().zip(&payloads) {
                    loaded.note_entry(kind, payload);
                }
                loaded.head_hash = prev;
                loaded.finished = outcome.is_some();
                loaded.row.status = status;
                let viewer = loaded.viewer(user);
                let stored: Vec<StoredEvent> = kinds
                    .into_iter()
                    .zip(payloads)
                    .zip(hashes)
                    .enumerate()
                    .map(|(i, ((kind, payload), hash))| StoredEvent {
                        seq: first_seq + i as u64,
                        kind,
                        payload,
                        schema_version: schema,
                        command_id,
                        actor: seat.map(Seat::number),
                        recorded_at,
                        prev_hash: String::new(),
                        hash,
                    })
                    .collect();
                let events = stored
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
