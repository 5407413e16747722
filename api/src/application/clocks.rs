//! Issue 17: clocks, timeouts, abandonment, bots in seats, lobbies that do not rot.
//!
//! Every timeout and every bot move goes through the same decide → append path as a player's
//! command (`commands::decide`, `append_decided`), with its own actor: the clock's user for a
//! timed-out seat's default move, a bot user for a bot's move. A background worker
//! ([`Clocks::run_clocks`], started in `app.rs`) claims the due rows of the `deadlines`
//! table (kept by a trigger in every append's transaction) with `FOR UPDATE SKIP LOCKED`, so any
//! instance may fire them, and each firing is appended against the version it was computed for,
//! so it happens once.

use super::commands::Commands;
use super::commands::decide;
use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::games::Games;
use super::loaded::Decision;
use super::loaded::Loaded;
use domain::Prompt;
use domain::Seat;
use domain::engine::ChaChaRng;
use domain::i18n::says;
use infra::deadlines::{CLOCK_USER, Due, bot_user, is_server_actor};
use infra::event::{SEAT_ABANDONED, SEAT_TIMED_OUT};
use infra::ids::GameId;
use infra::ids::UserId;
use infra::store::Store;
use infra::store::StoredEvent;
use serde_json::Value;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;
use uuid::Uuid;

/// A game's time control as stored (`games.clock`, exported as `game.clock`): what the
/// creator asked for in `options.clock` ([`ClockRequest`]) and the timeout rules the server
/// gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// Seconds each decision may take.
    pub per_decision_s: u64,
    /// Timeouts in a row after which the seat passes to a bot.
    #[serde(default = "default_abandon_after")]
    pub abandon_after: u32,
    /// The timeout rules the game was created under, so a log keeps auditing as recorded:
    /// [`CLOCK_VERSION`] since issue 26; absent (1) in games created before, whose every
    /// deadline counts from the log's head and whose defaults are the cheapest legal commands.
    #[serde(default = "first_version")]
    pub version: u32,
}

/// Issue 26: a seat's deadline counts from the start of its own decision (an optional command
/// never moves it), and a sealed decision's default is drawn from the game's seed.
pub const CLOCK_VERSION: u32 = 2;

fn first_version() -> u32 {
    1
}

impl Clock {
    /// Whether the game runs under the rules of issue 26 ([`CLOCK_VERSION`]).
    pub fn per_decision(&self) -> bool {
        self.version >= CLOCK_VERSION
    }
}

/// `options.clock` as a creator sends it; the server stamps the [`Clock`] it stores.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockRequest {
    per_decision_s: u64,
    #[serde(default = "default_abandon_after")]
    abandon_after: u32,
}

fn default_abandon_after() -> u32 {
    3
}

/// `clock` (a finished game's, for its rematch) under today's rules.
pub(super) fn current(clock: Option<&Value>) -> Option<Value> {
    let clock: Clock = serde_json::from_value(clock?.clone()).ok()?;
    let current = Clock {
        version: CLOCK_VERSION,
        ..clock
    };
    Some(serde_json::to_value(current).expect("clock serializes"))
}

/// The longest decision a clock may allow: 30 days (correspondence play).
const MAX_PER_DECISION_S: u64 = 30 * 24 * 3600;

/// The bot that takes over an abandoned seat: plays for the seat's score, not at random.
const ABANDONED_SEAT_POLICY: &str = "greedy";

/// The bot policies a seat may be given (the simulation bots of `domain::sim`).
pub const BOT_POLICIES: &[&str] = &["random", "greedy"];

/// Splits `options.clock` (validated) off a creation's options; the rest are the game's.
pub(super) fn split_clock(options: &Value) -> Result<(Value, Option<Value>)> {
    let mut options = options.clone();
    let Some(raw) = options.as_object_mut().and_then(|o| o.remove("clock")) else {
        return Ok((options, None));
    };
    if raw.is_null() {
        return Ok((options, None));
    }
    let request: ClockRequest = serde_json::from_value(raw).map_err(|e| {
        AppError::Invalid(says("errors.invalid_clock").arg("detail", e.to_string()))
    })?;
    let clock = Clock {
        per_decision_s: request.per_decision_s,
        abandon_after: request.abandon_after,
        version: CLOCK_VERSION,
    };
    if clock.per_decision_s == 0 || clock.per_decision_s > MAX_PER_DECISION_S {
        return Err(AppError::Invalid(
            says("errors.clock_per_decision_range").arg("max", MAX_PER_DECISION_S),
        ));
    }
    if clock.abandon_after == 0 || clock.abandon_after > 100 {
        return Err(AppError::Invalid(
            says("errors.clock_abandon_after_range").arg("max", 100u32),
        ));
    }
    Ok((
        options,
        Some(serde_json::to_value(clock).expect("clock serializes")),
    ))
}

/// How the background worker runs (`HOMESTRETCH_BOT_INTERVAL_MS`, `HOMESTRETCH_LOBBY_TTL`).
#[derive(Clone, Debug)]
pub struct ClockConfig {
    /// How often the worker looks for due deadlines.
    pub tick: Duration,
    /// A bot moves at least this long after the game's last event: a bot-only game plays on
    /// at a bounded rate (a few moves per second at most).
    pub bot_interval: Duration,
    /// A lobby nobody started expires this long after its creation (`None`: never).
    pub lobby_ttl: Option<Duration>,
    /// How long a claimed deadline is reserved for the instance that claimed it.
    pub lease: Duration,
    /// Deadlines claimed per tick.
    pub batch: u32,
}

impl Default for ClockConfig {
    fn default() -> Self {
        ClockConfig {
            tick: Duration::from_millis(100),
            bot_interval: Duration::from_millis(250),
            lobby_ttl: Some(Duration::from_secs(7 * 24 * 3600)),
            lease: Duration::from_secs(10),
            batch: 16,
        }
    }
}

impl Loaded {
    /// The game's time control, if it has one.
    pub fn clock(&self) -> Option<Clock> {
        self.row
            .clock
            .as_ref()
            .and_then(|c| serde_json::from_value(c.clone()).ok())
    }

    /// The bot policy playing `seat`, if a bot plays it.
    pub fn bot_policy(&self, seat: Seat) -> Option<&str> {
        self.seats
            .iter()
            .find(|s| s.seat == seat.number())
            .and_then(|s| s.bot.as_deref())
    }

    /// True when `seat` was a person's and passed to a bot (resigned or timed out).
    pub fn abandoned(&self, seat: Seat) -> bool {
        self.seats
            .iter()
            .any(|s| s.seat == seat.number() && s.bot.is_some() && !is_server_actor(s.user_id))
    }

    /// When the game's next decisions time out once an entry recorded at `head_at` is its head
    /// (clock version 1: every deadline counts from the head), if the game has a clock.
    pub(super) fn deadline_after(&self, head_at: OffsetDateTime) -> Option<OffsetDateTime> {
        self.clock()
            .map(|clock| head_at + Duration::from_secs(clock.per_decision_s))
    }

    /// The decisions the game waits for once a command of `sender` is appended at `head`
    /// (its last seq and time), `waiting` being the seats it then waits for (people's, as the
    /// inbox lists them): under clock version 2, each seat's decision begins when the game
    /// begins waiting for it and again when the seat answers it; an optional command (a
    /// trade) answers nothing (`domain::timeout::decision_starts`). None otherwise.
    pub(super) fn decisions_after(
        &self,
        waiting: &[(u8, Vec<String>)],
        sender: Option<Seat>,
        command: &Value,
        head: (u64, OffsetDateTime),
    ) -> Vec<Decision> {
        if !self.clock().is_some_and(|c| c.per_decision()) {
            return Vec::new();
        }
        let kind = command.get("type").and_then(Value::as_str).unwrap_or("");
        let settles = !self.game.optional_kinds().contains(&kind);
        let before: Vec<(u8, (u64, OffsetDateTime))> = self
            .decisions
            .iter()
            .map(|d| (d.seat, (d.since, d.at)))
            .collect();
        let waited: Vec<u8> = waiting.iter().map(|(seat, _)| *seat).collect();
        let sender = sender.map(Seat::number);
        domain::timeout::decision_starts(&before, &waited, sender, settles, head)
            .into_iter()
            .map(|(seat, (since, at))| Decision { seat, since, at })
            .collect()
    }

    /// Where `seat`'s deadline counts from, `decisions` being the game's and `head` its head
    /// entry (seq, time): its own decision's start under clock version 2 (the head for a seat
    /// with none recorded), the head under version 1.
    pub(super) fn started(
        &self,
        decisions: &[Decision],
        head: (u64, OffsetDateTime),
        seat: u8,
    ) -> (u64, OffsetDateTime) {
        decisions
            .iter()
            .find(|d| d.seat == seat)
            .filter(|_| self.clock().is_some_and(|c| c.per_decision()))
            .map_or(head, |d| (d.since, d.at))
    }

    /// When `seat`'s decision times out, in a clocked game (see [`Loaded::started`]).
    pub(super) fn deadline_of(
        &self,
        decisions: &[Decision],
        head: (u64, OffsetDateTime),
        seat: u8,
    ) -> Option<OffsetDateTime> {
        let (_, at) = self.started(decisions, head, seat);
        self.deadline_after(at)
    }

    /// Whether a bot plays `seat` once `entries` are appended (a `seat_abandoned` among them
    /// hands the seat over): such a seat has no inbox entry, no deadline, no notification.
    pub(super) fn bot_plays(&self, seat: u8, entries: &[StoredEvent]) -> bool {
        self.seats.iter().any(|s| s.seat == seat && s.bot.is_some())
            || entries.iter().any(|e| {
                e.kind == SEAT_ABANDONED
                    && e.payload.get("seat").and_then(Value::as_u64) == Some(u64::from(seat))
            })
    }

    /// Keeps the seats in step with a log entry: `seat_abandoned` hands a seat to a bot.
    pub(super) fn note_entry(&mut self, kind: &str, payload: &Value) {
        if kind != SEAT_ABANDONED {
            return;
        }
        let seat = payload.get("seat").and_then(Value::as_u64);
        let policy = payload.get("policy").and_then(Value::as_str);
        if let (Some(seat), Some(policy)) = (seat, policy) {
            for s in self.seats.iter_mut().filter(|s| u64::from(s.seat) == seat) {
                s.bot = Some(policy.to_string());
            }
        }
    }

    /// The deadline of every seat the game waits for, in a clocked game (bots have none).
    pub fn deadlines(&self, prompts: &[Prompt]) -> Vec<(u8, OffsetDateTime)> {
        let (Some(head_at), false) = (self.head_at, self.finished) else {
            return Vec::new();
        };
        let head = (self.version, head_at);
        prompts
            .iter()
            .filter(|p| p.must && !self.bot_plays(p.seat.number(), &[]))
            .filter_map(|p| {
                let seat = p.seat.number();
                Some((seat, self.deadline_of(&self.decisions, head, seat)?))
            })
            .collect()
    }
}

/// A server entry's payload (`seat_timed_out`, `seat_abandoned`).
fn entry(kind: &str, fields: Value) -> domain::EventData {
    let mut payload = json!({ "type": kind });
    if let (Some(out), Some(fields)) = (payload.as_object_mut(), fields.as_object()) {
        out.extend(fields.clone());
    }
    domain::EventData {
        kind: kind.to_string(),
        payload,
    }
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The clocks' worker (deadlines, bots' turns, lobby expiry) and the seat changes it shares
/// its log entries with: resign, a bot in a lobby seat, a cancelled lobby.
pub struct Clocks {
    games: Arc<Games>,
    store: Store,
    commands: Arc<Commands>,
}

impl Clocks {
    pub fn new(games: Arc<Games>, commands: Arc<Commands>) -> Self {
        Clocks {
            store: games.store.clone(),
            games,
            commands,
        }
    }
}

impl Clocks {
    /// The background worker: fires due deadlines and bot turns, expires old lobbies. Runs
    /// until the process ends; any number of instances may run it on one database.
    pub async fn run_clocks(self: Arc<Self>, config: ClockConfig, drain: Arc<crate::drain::Drain>) {
        let mut last_expiry: Option<std::time::Instant> = None;
        // Draining (issue 29) stops between rounds: a claimed deadline is always fired, and
        // nothing is claimed after, so no lease of this instance is left to run out.
        while !drain.is_draining() {
            if let Some(ttl) = config.lobby_ttl
                && last_expiry.is_none_or(|at| at.elapsed() >= Duration::from_secs(5))
            {
                last_expiry = Some(std::time::Instant::now());
                if let Err(error) = self.store.expire_lobbies(ttl).await {
                    tracing::warn!(%error, "expiring lobbies failed");
                }
            }
            match self.clock_tick(&config).await {
                Ok(fired) if fired > 0 => continue,
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "the clock worker failed; retrying"),
            }
            tokio::select! {
                _ = tokio::time::sleep(config.tick) => {}
                _ = drain.started() => {}
            }
        }
    }

    /// One round of the worker: claims due deadlines and handles each; how many it claimed.
    pub async fn clock_tick(&self, config: &ClockConfig) -> Result<usize> {
        let due = self.store.claim_due(config.batch, config.lease).await?;
        for d in &due {
            if let Err(error) = self.fire(d, config).await {
                tracing::warn!(game = %d.game.0, %error, "a deadline did not fire; it will again");
            }
        }
        Ok(due.len())
    }

    /// Handles one due game: a bot whose turn it is moves; else a seat past its deadline
    /// times out; else the deadline moves to when something will be due.
    async fn fire(&self, due: &Due, config: &ClockConfig) -> Result<()> {
        let id = due.game;
        let slot = self.games.slot(id);
        let mut guard = slot.lock().await;
        self.games
            .ensure_fresh(id, &mut guard, Some(due.version))
            .await?;
        let loaded = guard.as_mut().expect("loaded");
        if loaded.version != due.version || loaded.finished {
            // The log moved on: the trigger already set the new deadline.
            return Ok(());
        }
        // Seats as stored now (a bot given in the lobby; the log's hand-overs are applied too).
        loaded.seats = self.store.seats(id).await?;
        // Answers rendered from the seats as cached go with them (issue 31).
        self.games.views.forget(id);
        let now = OffsetDateTime::now_utc();
        let prompts = guarded(|| loaded.prompts())?;
        let waited: Vec<&Prompt> = prompts.iter().filter(|p| p.must).collect();
        if let Some(prompt) = waited.iter().find(|p| loaded.bot_policy(p.seat).is_some()) {
            let at = due.head_at + config.bot_interval;
            if now < at {
                return self
                    .store
                    .reschedule(id, due.version, Some(at))
                    .await
                    .map_err(AppError::from);
            }
            return self.bot_act(loaded, prompt).await;
        }
        // The seat whose deadline comes first (each seat's counts from its own decision under
        // clock version 2, issue 26; from the head before).
        let head = (due.version, due.head_at);
        let nearest = waited
            .iter()
            .map(|p| {
                (
                    p.seat,
                    loaded.started(&loaded.decisions, head, p.seat.number()),
                )
            })
            .min_by_key(|(_, (_, at))| *at);
        if let Some(clock) = loaded.clock()
            && let Some((seat, since)) = nearest
        {
            let deadline = since.1 + Duration::from_secs(clock.per_decision_s);
            if now < deadline {
                return self
                    .store
                    .reschedule(id, due.version, Some(deadline))
                    .await
                    .map_err(AppError::from);
            }
            return self.time_out(loaded, seat, clock, since).await;
        }
        self.store
            .reschedule(id, due.version, None)
            .await
            .map_err(AppError::from)
    }

    /// A bot's move for the seat `prompt` waits for, through the command path.
    async fn bot_act(&self, loaded: &mut Loaded, prompt: &Prompt) -> Result<()> {
        let seat = prompt.seat;
        let policy = domain::sim::Policy::named(loaded.bot_policy(seat).unwrap_or("random"));
        let seed = loaded.row.server_seed;
        let version = loaded.version;
        // Keyed apart from the game's dice (client seeds "bot" / "bot-eval"), so a bot never
        // plays on the game's coming draws, and an audit can re-derive its choice.
        let mut rng = ChaChaRng::for_command(&seed, &["bot".to_string()], version);
        let mut evaluation = || ChaChaRng::for_command(&seed, &["bot-eval".to_string()], version);
        // A fair bot (`domain::sim::bot_move`): it decides from what its seat may see only.
        let chosen = guarded(|| {
            domain::sim::bot_move(
                loaded.state.as_ref(),
                prompt,
                policy,
                &mut rng,
                &mut evaluation,
            )
        })?;
        let fallback = guarded(|| loaded.state.default_move(seat))?;
        let Some(command) = chosen.or(fallback) else {
            tracing::error!(game = %loaded.row.id.0, %seat, "a bot's seat has no legal command");
            return self
                .store
                .reschedule(loaded.row.id, version, None)
                .await
                .map_err(AppError::from);
        };
        let decided = match decide(loaded, seat, &command)? {
            Ok(decided) => decided,
            Err(rejection) => {
                tracing::error!(game = %loaded.row.id.0, %seat, %rejection, "a bot's legal command was refused");
                return self
                    .store
                    .reschedule(loaded.row.id, version, None)
                    .await
                    .map_err(AppError::from);
            }
        };
        let user = loaded
            .seats
            .iter()
            .find(|s| s.seat == seat.number() && is_server_actor(s.user_id))
            .map(|s| s.user_id)
            .unwrap_or_else(|| bot_user(seat.number()));
        // The same id on every instance: a second firing is a duplicate, never a second move.
        let command_id = Uuid::new_v5(&loaded.row.id.0, format!("bot:{version}").as_bytes());
        let (events, next) = decided;
        self.commands
            .append_decided(
                loaded,
                user,
                Some(seat),
                command_id,
                &command,
                events,
                Some(next),
                None,
            )
            .await?
            .ok();
        Ok(())
    }

    /// `seat` ran out of time (its decision counted from `since`, seq and time): `seat_timed_out`,
    /// then its default move (sent by the clock), and after `abandon_after` timeouts in a row,
    /// `seat_abandoned` hands it to a bot. Under clock version 2 the entry names the entry its
    /// deadline counted from (`since`), and a sealed decision's default is drawn from the
    /// game's seed (`domain::timeout::timeout_move`, re-drawn by the audit).
    async fn time_out(
        &self,
        loaded: &mut Loaded,
        seat: Seat,
        clock: Clock,
        since: (u64, OffsetDateTime),
    ) -> Result<()> {
        let id = loaded.row.id;
        let version = loaded.version;
        let deadline = since.1 + Duration::from_secs(clock.per_decision_s);
        let default = || match clock.per_decision() {
            true => {
                let seeds = loaded.client_seeds();
                let seed = &loaded.row.server_seed;
                let mut rng = domain::timeout::timeout_rng(seed, &seeds, version);
                loaded.state.timeout_move(seat, &mut rng)
            }
            false => loaded.state.default_move(seat),
        };
        let Some(command) = guarded(default)? else {
            tracing::error!(game = %id.0, %seat, "a timed-out seat has no legal command");
            return self
                .store
                .reschedule(id, version, None)
                .await
                .map_err(AppError::from);
        };
        let (events, next) = match decide(loaded, seat, &command)? {
            Ok(decided) => decided,
            Err(rejection) => {
                tracing::error!(game = %id.0, %seat, %rejection, "a default move was refused");
                return self
                    .store
                    .reschedule(id, version, None)
                    .await
                    .map_err(AppError::from);
            }
        };
        let in_a_row = self.store.consecutive_timeouts(id, seat.number()).await? + 1;
        let mut timed_out = json!({
            "seat": seat.number(),
            "deadline": rfc3339(deadline),
            "in_a_row": in_a_row,
        });
        if clock.per_decision() {
            timed_out["since"] = json!(since.0);
        }
        let mut entries = vec![entry(SEAT_TIMED_OUT, timed_out)];
        entries.extend(events);
        if in_a_row >= clock.abandon_after && next.outcome().is_none() {
            entries.push(entry(
                SEAT_ABANDONED,
                json!({
                    "seat": seat.number(),
                    "reason": "timeouts",
                    "policy": ABANDONED_SEAT_POLICY,
                }),
            ));
        }
        let command_id = Uuid::new_v5(&id.0, format!("timeout:{version}").as_bytes());
        self.commands
            .append_decided(
                loaded,
                CLOCK_USER,
                Some(seat),
                command_id,
                &command,
                entries,
                Some(next),
                None,
            )
            .await?
            .ok();
        Ok(())
    }

    /// The caller resigns: their seat passes to a bot for the rest of the game (the log says
    /// so with `seat_abandoned`). Idempotent per `command_id`.
    pub async fn resign(&self, id: GameId, user: UserId, command_id: Uuid) -> Result<u64> {
        let slot = self.games.slot(id);
        let mut guard = slot.lock().await;
        self.games.ensure_fresh(id, &mut guard, None).await?;
        let loaded = guard.as_mut().expect("loaded");
        let seat = loaded
            .seat_of(user)
            .ok_or_else(|| AppError::Forbidden(says("errors.no_seat")))?;
        let command = json!({ "type": "resign" });
        if let Some((_, _, last)) = self.store.command(id, user, command_id).await? {
            return Ok(last);
        }
        if loaded.finished {
            return Err(AppError::Invalid(says("errors.game_over")));
        }
        if loaded.abandoned(seat) {
            return Err(AppError::Invalid(says("errors.seat_already_bot")));
        }
        let abandoned = entry(
            SEAT_ABANDONED,
            json!({ "seat": seat.number(), "reason": "resigned", "policy": ABANDONED_SEAT_POLICY }),
        );
        let unchanged = loaded.state.clone_box();
        match self
            .commands
            .append_decided(
                loaded,
                user,
                Some(seat),
                command_id,
                &command,
                vec![abandoned],
                Some(unchanged),
                None,
            )
            .await?
        {
            Ok(answer) => Ok(answer.version),
            Err(current) => Err(AppError::Conflict { current }),
        }
    }

    /// The host gives the lowest free lobby seat to a server bot; the seat.
    pub async fn add_bot(&self, id: GameId, user: UserId, policy: &str) -> Result<u8> {
        if !BOT_POLICIES.contains(&policy) {
            return Err(AppError::Invalid(
                says("errors.unknown_bot_policy")
                    .arg("policy", policy)
                    .arg("known", BOT_POLICIES.join(", ")),
            ));
        }
        // The host is checked under the lobby's lock (a hand-over may be landing).
        self.store
            .add_bot(id, user, policy)
            .await
            .map_err(AppError::from)
    }

    /// The host cancels their lobby: its status becomes `cancelled`.
    pub async fn cancel(&self, id: GameId, user: UserId) -> Result<()> {
        self.store
            .cancel_lobby(id, user)
            .await
            .map_err(AppError::from)
    }
}
