//! The server's own moves in a log (issue 17): timeouts, hand-overs to bots, resignations, and
//! who may send a command for a seat at each point of the log. The rules engine knows nothing
//! of these (they are not game events), so the audit checks them here, from the log alone:
//!
//! * `server_moves`: a timeout (`seat_timed_out` first, then the seat's default move) is
//!   recorded no earlier than its deadline, counts the seat's timeouts in a row, and hands the
//!   seat to a bot (`seat_abandoned` last) exactly when `abandon_after` is reached; a
//!   resignation records its seat's hand-over alone; no other command records server entries.
//! * `senders`: the start is a seated person's; a seat's command is its person's until the
//!   seat is handed over, then its bot's; the clock sends only timeouts, of seats people play.

use super::bundle::{AuditReport, Bundle, BundleCommand, by_seq, entries_of};
use crate::deadlines::{CLOCK_USER, bot_user, is_server_actor};
use crate::event::{Entry, StoredEvent};
use crate::ids::UserId;
use serde_json::{Value, json};
use std::collections::HashMap;
use uuid::Uuid;

/// The timeouts in a row after which a seat passes to a bot, when the clock does not say.
const DEFAULT_ABANDON_AFTER: u64 = 3;

/// A problem found in the log: where, what, and the values recorded and expected.
struct Problem {
    seq: u64,
    why: String,
    recorded: Value,
    expected: Value,
}

impl Problem {
    fn at(seq: u64, why: impl Into<String>) -> Problem {
        Problem {
            seq,
            why: why.into(),
            recorded: Value::Null,
            expected: Value::Null,
        }
    }

    fn values(mut self, recorded: Value, expected: Value) -> Problem {
        self.recorded = recorded;
        self.expected = expected;
        self
    }
}

/// True for the server's resignation command (`POST …/seats/me/resign`): its only entry is
/// the seat's hand-over, and the rules have nothing to re-run for it.
pub(super) fn is_resignation(command: &BundleCommand) -> bool {
    command.command.get("type").and_then(Value::as_str) == Some("resign")
}

fn seat_of(event: &StoredEvent) -> Option<u64> {
    event.payload.get("seat").and_then(Value::as_u64)
}

/// The commands in log order, each with its entries.
fn in_order<'b>(
    bundle: &'b Bundle,
    sorted: &[&'b StoredEvent],
) -> Vec<(&'b BundleCommand, Vec<&'b StoredEvent>)> {
    let mut commands: Vec<&BundleCommand> = bundle.commands.iter().collect();
    commands.sort_by_key(|c| c.first_seq);
    commands
        .into_iter()
        .map(|c| (c, entries_of(sorted, c).to_vec()))
        .collect()
}

/// Checks the server's entries of every command (`server_moves`) and every command's sender
/// (`senders`); each failure is also the report's divergence at the command.
pub fn check_server_moves(bundle: &Bundle, report: &mut AuditReport) {
    let sorted = by_seq(bundle);
    let commands = in_order(bundle, &sorted);
    let mut clock = Timeouts::of(bundle);
    let entries = commands
        .iter()
        .try_for_each(|(command, entries)| clock.check(&sorted, command, entries));
    match entries {
        Ok(()) => report.push("server_moves", true, clock.summary()),
        Err(problem) => fail(report, "server_moves", problem),
    }
    let seats = Seats::of(bundle);
    let senders = commands
        .iter()
        .try_for_each(|(command, entries)| seats.check(command, entries));
    match senders {
        Ok(()) => report.push(
            "senders",
            true,
            format!(
                "{} commands, each sent by its seat's person, its bot once handed over, or the \
                 clock for a timeout",
                commands.len()
            ),
        ),
        Err(problem) => fail(report, "senders", problem),
    }
}

fn fail(report: &mut AuditReport, check: &str, problem: Problem) {
    report.diverge(
        problem.seq,
        problem.why.clone(),
        problem.recorded,
        problem.expected,
    );
    report.push(check, false, problem.why);
}

/// The clock's bookkeeping as the log goes: each seat's timeouts in a row (reset by any other
/// command for the seat, as the server counts them).
struct Timeouts {
    per_decision_s: Option<u64>,
    abandon_after: u64,
    in_a_row: HashMap<u64, u64>,
    timeouts: usize,
    hand_overs: usize,
}

impl Timeouts {
    fn of(bundle: &Bundle) -> Timeouts {
        let clock = bundle.game.clock.as_ref();
        let field = |name: &str| clock.and_then(|c| c.get(name)).and_then(Value::as_u64);
        Timeouts {
            per_decision_s: field("per_decision_s"),
            abandon_after: field("abandon_after").unwrap_or(DEFAULT_ABANDON_AFTER),
            in_a_row: HashMap::new(),
            timeouts: 0,
            hand_overs: 0,
        }
    }

    fn summary(&self) -> String {
        format!(
            "{} timeouts, none before its deadline; {} hand-overs to a bot, each when due",
            self.timeouts, self.hand_overs
        )
    }

    /// The server entries of one command: where they may be, and what they say.
    fn check(
        &mut self,
        sorted: &[&StoredEvent],
        command: &BundleCommand,
        entries: &[&StoredEvent],
    ) -> Result<(), Problem> {
        let seat = command.seat.map(u64::from);
        if let Some(first) = timed_out(entries) {
            self.timeouts += 1;
            return self.timeout(sorted, command, entries, first, seat);
        }
        if let Some(seat) = seat {
            // Anyone else's command for the seat ends its run of timeouts.
            self.in_a_row.remove(&seat);
        }
        if is_resignation(command) {
            return resignation(command, entries, seat);
        }
        match entries.iter().find(|e| is_seat_entry(e)) {
            Some(stray) => Err(Problem::at(
                stray.seq,
                format!(
                    "a {} entry at seq {} inside a command that is neither a timeout nor a \
                     resignation",
                    stray.kind, stray.seq
                ),
            )),
            None => Ok(()),
        }
    }

    /// A timeout: at or after its deadline, its `in_a_row` counted right, and the seat handed
    /// over at the end exactly when `abandon_after` is reached (unless the move ended the game).
    fn timeout(
        &mut self,
        sorted: &[&StoredEvent],
        command: &BundleCommand,
        entries: &[&StoredEvent],
        first: &StoredEvent,
        seat: Option<u64>,
    ) -> Result<(), Problem> {
        if seat_of(first) != seat {
            return Err(Problem::at(
                first.seq,
                format!("the timeout at seq {} names another seat", first.seq),
            )
            .values(json!(seat_of(first)), json!(seat)));
        }
        self.on_time(sorted, first)?;
        let count = self.in_a_row.entry(seat.unwrap_or(0)).or_insert(0);
        *count += 1;
        let count = *count;
        let said = first.payload.get("in_a_row").and_then(Value::as_u64);
        if said != Some(count) {
            return Err(Problem::at(
                first.seq,
                format!(
                    "the timeout at seq {} says {said:?} in a row; the log has {count}",
                    first.seq
                ),
            )
            .values(json!(said), json!(count)));
        }
        self.hand_over(command, entries, seat, count)
    }

    /// Not before the deadline: `per_decision_s` after the entry the seat's decision began at,
    /// which the timeout names (`since`, clock version 2, issue 26: the rules re-run checks it
    /// is where the decision began); in older logs, after the previous entry (the server
    /// counted every deadline from the log's head).
    fn on_time(&self, sorted: &[&StoredEvent], first: &StoredEvent) -> Result<(), Problem> {
        let per_decision = self.per_decision_s.ok_or_else(|| {
            Problem::at(
                first.seq,
                format!("a timeout at seq {} in a game without a clock", first.seq),
            )
        })?;
        let since = match first.payload.get("since") {
            None => first.seq.saturating_sub(1),
            Some(since) => since.as_u64().filter(|s| *s < first.seq).ok_or_else(|| {
                Problem::at(
                    first.seq,
                    format!(
                        "the timeout at seq {} counts from no entry before it",
                        first.seq
                    ),
                )
                .values(since.clone(), Value::Null)
            })?,
        };
        let at = sorted.partition_point(|e| e.seq < since);
        let before = sorted.get(at).filter(|e| e.seq == since).ok_or_else(|| {
            Problem::at(
                first.seq,
                format!(
                    "no entry {since} for the timeout at seq {} to count from",
                    first.seq
                ),
            )
        })?;
        let deadline = before.recorded_at + time::Duration::seconds(per_decision as i64);
        if first.recorded_at < deadline {
            return Err(Problem::at(
                first.seq,
                format!(
                    "the timeout at seq {} was recorded before its deadline ({} < {})",
                    first.seq, first.recorded_at, deadline
                ),
            )
            .values(json!(rfc3339(first.recorded_at)), json!(rfc3339(deadline))));
        }
        Ok(())
    }

    /// The seat's hand-over ends the timeout exactly when it is due; no other server entry.
    fn hand_over(
        &mut self,
        command: &BundleCommand,
        entries: &[&StoredEvent],
        seat: Option<u64>,
        count: u64,
    ) -> Result<(), Problem> {
        let ended = entries.iter().any(|e| e.entry() == Entry::SeedRevealed);
        let due = count >= self.abandon_after && !ended;
        let last = entries.last().filter(|e| e.entry() == Entry::SeatAbandoned);
        let handed = last.is_some_and(|e| seat_of(e) == seat);
        if due != handed {
            let seq = last.map_or(command.last_seq, |e| e.seq);
            return Err(Problem::at(
                seq,
                format!(
                    "the timeout at seq {} is timeout {count} in a row of seat {}: the seat {} \
                     have been handed to a bot (abandon_after {})",
                    command.first_seq,
                    seat.unwrap_or(0),
                    if due { "should" } else { "should not" },
                    self.abandon_after
                ),
            )
            .values(json!(handed), json!(due)));
        }
        if handed {
            self.hand_overs += 1;
        }
        // Between the timeout and the hand-over, only the default move's game events (and
        // the seed reveal when it ends the game).
        let inner = &entries[1..entries.len() - usize::from(handed)];
        match inner.iter().find(|e| is_seat_entry(e)) {
            Some(stray) => Err(Problem::at(
                stray.seq,
                format!("a stray {} entry at seq {}", stray.kind, stray.seq),
            )),
            None => Ok(()),
        }
    }
}

/// The `seat_timed_out` entry that opens a timeout's entries, if they are a timeout's.
fn timed_out<'e>(entries: &[&'e StoredEvent]) -> Option<&'e StoredEvent> {
    entries
        .first()
        .copied()
        .filter(|e| e.entry() == Entry::SeatTimedOut)
}

fn is_seat_entry(event: &StoredEvent) -> bool {
    matches!(event.entry(), Entry::SeatTimedOut | Entry::SeatAbandoned)
}

/// A resignation records its own seat's hand-over, and nothing else.
fn resignation(
    command: &BundleCommand,
    entries: &[&StoredEvent],
    seat: Option<u64>,
) -> Result<(), Problem> {
    let sole = match entries {
        [only] => only.entry() == Entry::SeatAbandoned && seat.is_some() && seat_of(only) == seat,
        _ => false,
    };
    if sole {
        return Ok(());
    }
    Err(Problem::at(
        command.first_seq,
        format!(
            "the resignation at seq {} records more than its seat's hand-over",
            command.first_seq
        ),
    ))
}

fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Who holds each seat, and from which seq a bot plays the seats handed over.
struct Seats {
    holders: HashMap<u8, Uuid>,
    handed_over_at: HashMap<u64, u64>,
}

impl Seats {
    fn of(bundle: &Bundle) -> Seats {
        let mut handed_over_at = HashMap::new();
        for event in &bundle.events {
            if event.entry() == Entry::SeatAbandoned
                && let Some(seat) = seat_of(event)
            {
                handed_over_at.entry(seat).or_insert(event.seq);
            }
        }
        Seats {
            holders: bundle
                .game
                .seats
                .iter()
                .map(|s| (s.seat, s.user_id))
                .collect(),
            handed_over_at,
        }
    }

    /// The seq of the entry that handed `seat` to a bot, if that came before `at`.
    fn handed_over_before(&self, seat: u8, at: u64) -> Option<u64> {
        self.handed_over_at
            .get(&u64::from(seat))
            .copied()
            .filter(|&seq| seq < at)
    }

    /// The bot that plays `seat`: the server actor given it in the lobby, or the seat's own
    /// bot user for a seat a person left (as `bot_act` picks it).
    fn bot_of(&self, seat: u8) -> Uuid {
        match self.holders.get(&seat) {
            Some(&holder) if is_server_actor(UserId(holder)) => holder,
            _ => bot_user(seat).0,
        }
    }

    /// Whether a bot plays `seat` for a command starting at seq `at`.
    fn bot_plays(&self, seat: u8, at: u64) -> bool {
        self.holders
            .get(&seat)
            .is_some_and(|&h| is_server_actor(UserId(h)))
            || self.handed_over_before(seat, at).is_some()
    }

    /// Whether `command`'s sender may send it.
    fn check(&self, command: &BundleCommand, entries: &[&StoredEvent]) -> Result<(), Problem> {
        let user = UserId(command.user_id);
        let at = command.first_seq;
        // The clock sends timeouts, and only the clock does.
        if timed_out(entries).is_some() != (user == CLOCK_USER) {
            return Err(Problem::at(
                at,
                format!(
                    "the command at seq {at} was sent by {}: only the clock sends a timeout, \
                     and it sends nothing else",
                    who(user.0)
                ),
            )
            .values(json!(user.0), json!(CLOCK_USER.0)));
        }
        let Some(seat) = command.seat else {
            // The host's start: the host holds a seat (a lobby without a person is cancelled).
            let person = self.holders.values().any(|&h| h == user.0) && !is_server_actor(user);
            return person.then_some(()).ok_or_else(|| {
                Problem::at(
                    at,
                    format!("the start at seq {at} was sent by someone without a seat"),
                )
                .values(json!(user.0), Value::Null)
            });
        };
        let expected = if user == CLOCK_USER {
            self.clock_may_send(seat, at)?
        } else if self.bot_plays(seat, at) {
            self.bot_of(seat)
        } else {
            self.person_of(seat, at)?
        };
        if user.0 != expected {
            return Err(Problem::at(
                at,
                format!(
                    "the command at seq {at} for seat {seat} was sent by {}, not by {}",
                    who(user.0),
                    who(expected)
                ),
            )
            .values(json!(user.0), json!(expected)));
        }
        if is_resignation(command) && is_server_actor(user) {
            return Err(Problem::at(
                at,
                format!("a server actor resigned seat {seat} at seq {at}"),
            ));
        }
        Ok(())
    }

    /// The clock times out only seats that people play: bots have no deadline.
    fn clock_may_send(&self, seat: u8, at: u64) -> Result<Uuid, Problem> {
        if self.bot_plays(seat, at) {
            return Err(Problem::at(
                at,
                format!("the clock sent a command at seq {at} for seat {seat}, which a bot plays"),
            ));
        }
        Ok(CLOCK_USER.0)
    }

    /// The person holding `seat` (who sends its commands until it is handed over).
    fn person_of(&self, seat: u8, at: u64) -> Result<Uuid, Problem> {
        self.holders.get(&seat).copied().ok_or_else(|| {
            Problem::at(
                at,
                format!("the command at seq {at} is for seat {seat}, which nobody holds"),
            )
        })
    }
}

/// A sender as a reader knows it: the clock, a bot, or a user id.
fn who(user: Uuid) -> String {
    match UserId(user) {
        u if u == CLOCK_USER => "the clock".into(),
        u if is_server_actor(u) => format!("a bot ({user})"),
        _ => format!("user {user}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{BundleGame, BundleSeat, FORMAT};
    use time::OffsetDateTime;

    const ANN: Uuid = Uuid::from_u128(0xa11);
    const BOB: Uuid = Uuid::from_u128(0xb0b);

    fn seat(seat: u8, user_id: Uuid) -> BundleSeat {
        BundleSeat {
            seat,
            user_id,
            name: format!("seat {seat}"),
            client_seed: String::new(),
        }
    }

    /// A command of the fixture: seat, sender, command type, ms after the previous entry,
    /// entries.
    type Row = (Option<u8>, Uuid, &'static str, i64, Vec<Value>);

    /// A log as the server writes it: ann (seat 1) and bob (seat 2), a lobby bot (seat 3,
    /// held by `bot:1`, the lowest free bot user); ann moves, then resigns; bob never
    /// answers: two timeouts with default moves, the third hands his seat over; the bots play.
    fn log() -> Bundle {
        let mut b = Bundle {
            format: FORMAT.into(),
            game: BundleGame {
                id: Uuid::from_u128(1),
                kind: "mush".into(),
                options: json!({}),
                seat_count: 3,
                seats: vec![seat(1, ANN), seat(2, BOB), seat(3, bot_user(3).0)],
                fair: true,
                seed_commitment: String::new(),
                rules_version: String::new(),
                status: "active".into(),
                version: 0,
                head_hash: String::new(),
                clock: Some(json!({"per_decision_s": 1, "abandon_after": 3})),
            },
            server_seed: None,
            commands: Vec::new(),
            events: Vec::new(),
        };
        let (clock, bot1, bot2, bot3) = (CLOCK_USER.0, bot_user(1).0, bot_user(2).0, bot_user(3).0);
        let timeout = |n: u64| json!({"type": "seat_timed_out", "seat": 2, "in_a_row": n});
        let handed =
            |s: u8, reason: &str| json!({"type": "seat_abandoned", "seat": s, "reason": reason});
        let moved = json!({"type": "moved"});
        // (seat, sender, command type, ms after the previous entry, entries): seqs 1 to 14.
        let rows: Vec<Row> = vec![
            (None, ANN, "start", 0, vec![moved.clone()]),
            (Some(1), ANN, "bid", 0, vec![moved.clone()]),
            (Some(3), bot3, "bid", 0, vec![moved.clone()]),
            (Some(2), clock, "bid", 1000, vec![timeout(1), moved.clone()]),
            (Some(1), ANN, "resign", 0, vec![handed(1, "resigned")]),
            (Some(1), bot1, "bid", 0, vec![moved.clone()]),
            (Some(2), clock, "bid", 1000, vec![timeout(2), moved.clone()]),
            (
                Some(2),
                clock,
                "bid",
                1500,
                vec![timeout(3), moved.clone(), handed(2, "timeouts")],
            ),
            (Some(2), bot2, "bid", 0, vec![moved.clone()]),
            (Some(3), bot3, "bid", 0, vec![moved.clone()]),
        ];
        for (seat, user, kind, after_ms, entries) in rows {
            push(
                &mut b,
                seat,
                user,
                json!({ "type": kind }),
                after_ms,
                entries,
            );
        }
        b
    }

    /// Appends a command and its entries, `after_ms` after the log's last entry.
    fn push(
        b: &mut Bundle,
        seat: Option<u8>,
        user_id: Uuid,
        command: Value,
        after_ms: i64,
        payloads: Vec<Value>,
    ) {
        let last = b.events.last().map(|e| (e.seq, e.recorded_at));
        let (seq, at) = last.unwrap_or((0, OffsetDateTime::UNIX_EPOCH));
        let at = at + time::Duration::milliseconds(after_ms);
        let command_id = Uuid::from_u128(u128::from(seq) + 100);
        for (i, payload) in payloads.into_iter().enumerate() {
            b.events.push(StoredEvent {
                seq: seq + 1 + i as u64,
                kind: payload["type"].as_str().unwrap_or("").into(),
                payload,
                schema_version: 1,
                command_id,
                actor: seat,
                recorded_at: at,
                prev_hash: String::new(),
                hash: String::new(),
                redacted: false,
            });
        }
        b.commands.push(BundleCommand {
            command_id,
            seat,
            user_id,
            command,
            first_seq: seq + 1,
            last_seq: b.events.last().map_or(seq, |e| e.seq),
            recorded_at: at,
        });
    }

    fn report(bundle: &Bundle) -> AuditReport {
        let mut report = AuditReport {
            sound: true,
            checks: Vec::new(),
            divergence: None,
        };
        check_server_moves(bundle, &mut report);
        report
    }

    /// `name` failed, and the (first) divergence is at `seq`; the check's detail.
    #[track_caller]
    fn fails(bundle: &Bundle, name: &str, seq: u64) -> String {
        let report = report(bundle);
        assert!(!report.sound, "{report:?}");
        let check = report.checks.iter().find(|c| c.name == name).unwrap();
        assert!(!check.passed, "{report:?}");
        let at = report.divergence.as_ref().map(|d| d.seq);
        assert_eq!(at, Some(seq), "{report:?}");
        check.detail.clone()
    }

    fn command_at(b: &mut Bundle, first_seq: u64) -> &mut BundleCommand {
        b.commands
            .iter_mut()
            .find(|c| c.first_seq == first_seq)
            .unwrap()
    }

    #[test]
    fn the_servers_own_log_passes_both_checks() {
        let report = report(&log());
        assert!(report.sound, "{report:?}");
        let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["server_moves", "senders"]);
        assert!(
            report.checks[0].detail.starts_with("3 timeouts"),
            "{report:?}"
        );
    }

    #[test]
    fn a_timeout_before_its_deadline_fails() {
        let mut b = log();
        // The first timeout (seq 4), 999 ms after the entry before it.
        b.events[3].recorded_at -= time::Duration::milliseconds(1);
        let detail = fails(&b, "server_moves", 4);
        assert!(detail.contains("before its deadline"), "{detail}");
    }

    #[test]
    fn a_timeout_in_a_game_without_a_clock_fails() {
        let mut b = log();
        b.game.clock = None;
        fails(&b, "server_moves", 4);
    }

    #[test]
    fn a_hand_over_must_come_exactly_after_abandon_after_timeouts() {
        // Due at the third: missing it fails.
        let mut b = log();
        b.game.clock = Some(json!({"per_decision_s": 1, "abandon_after": 4}));
        fails(&b, "server_moves", 12);
        // A count that skips one fails (the second timeout, seq 8).
        let mut b = log();
        b.events[7].payload["in_a_row"] = json!(3);
        fails(&b, "server_moves", 8);
    }

    #[test]
    fn a_seat_entry_inside_a_players_move_fails() {
        let mut b = log();
        // Ann's own move (seq 2) forged into a hand-over (of the bot's seat: nothing else
        // changes hands).
        b.events[1].kind = "seat_abandoned".into();
        b.events[1].payload = json!({"type": "seat_abandoned", "seat": 3});
        fails(&b, "server_moves", 2);
    }

    #[test]
    fn a_resignation_that_hands_over_another_seat_fails() {
        let mut b = log();
        b.events[5].payload["seat"] = json!(2);
        fails(&b, "server_moves", 6);
    }

    #[test]
    fn a_resignation_sent_by_someone_else_fails() {
        let mut b = log();
        command_at(&mut b, 6).user_id = BOB;
        let detail = fails(&b, "senders", 6);
        assert!(detail.contains(&format!("user {BOB}")), "{detail}");
    }

    #[test]
    fn a_bot_move_for_a_seat_a_person_plays_fails() {
        let mut b = log();
        // Ann's own move, before her resignation, as if her seat were a bot's.
        command_at(&mut b, 2).user_id = bot_user(1).0;
        fails(&b, "senders", 2);
        // Another bot than the seat's.
        let mut b = log();
        command_at(&mut b, 14).user_id = bot_user(1).0;
        fails(&b, "senders", 14);
    }

    #[test]
    fn a_person_moving_a_seat_handed_to_a_bot_fails() {
        let mut b = log();
        // Seq 7: seat 1's bot, after ann resigned at seq 6.
        command_at(&mut b, 7).user_id = ANN;
        fails(&b, "senders", 7);
        // A bot's move attributed to a person who never held the seat.
        let mut b = log();
        command_at(&mut b, 3).user_id = ANN;
        fails(&b, "senders", 3);
    }

    #[test]
    fn only_the_clock_sends_timeouts_and_only_of_seats_people_play() {
        let mut b = log();
        command_at(&mut b, 4).user_id = BOB;
        fails(&b, "senders", 4);
        let mut b = log();
        command_at(&mut b, 2).user_id = CLOCK_USER.0;
        fails(&b, "senders", 2);
        // The clock timing out seat 3, which a bot plays (its entry names seat 3 too; bob's
        // later timeouts counted and handed over accordingly, so only the sender is wrong).
        let mut b = log();
        b.game.clock = Some(json!({"per_decision_s": 1, "abandon_after": 2}));
        command_at(&mut b, 4).seat = Some(3);
        b.events[3].payload["seat"] = json!(3);
        b.events[7].payload["in_a_row"] = json!(1);
        b.events[9].payload["in_a_row"] = json!(2);
        let report = report(&b);
        assert!(report.checks[0].passed, "{report:?}");
        fails(&b, "senders", 4);
    }
}
