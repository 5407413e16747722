//! Issue 26, in the rules re-run of a game whose clock is of version 2: the audit follows where
//! each seat's owed decision began (`domain::timeout::decision_starts`, as the server does with
//! every append) and checks every timeout against it — it counts from the entry its seat's
//! decision began at (`since`; `server_moves` checks the time from there), and it sends the
//! default the game's seed draws (`domain::timeout::timeout_move`), re-drawn here once the seed
//! is known. Older logs (clock version 1, or none) are not followed: their timeouts counted from
//! the head and their defaults were the cheapest, as `server_moves` checks them.

use super::bundle::{AuditReport, Bundle, BundleCommand, Reported};
use crate::event::{Entry, StoredEvent};
use domain::Seat;
use serde_json::{Value, json};

/// The clock version whose timeouts are followed here.
const DECISION_CLOCKS: u64 = 2;

pub(super) struct Decisions<'a> {
    optional: &'static [&'static str],
    /// Each seat the game waits for, with the seq its decision began at.
    starts: Vec<(u8, u64)>,
    seed: Option<&'a [u8; 32]>,
    client_seeds: &'a [String],
    timeouts: usize,
}

impl<'a> Decisions<'a> {
    /// `None` unless the bundle's clock is of version 2.
    pub(super) fn of(
        bundle: &Bundle,
        game: &dyn domain::AnyGame,
        seed: Option<&'a [u8; 32]>,
        client_seeds: &'a [String],
    ) -> Option<Decisions<'a>> {
        let version = bundle.game.clock.as_ref()?.get("version")?.as_u64()?;
        (version >= DECISION_CLOCKS).then(|| Decisions {
            optional: game.optional_kinds(),
            starts: Vec::new(),
            seed,
            client_seeds,
            timeouts: 0,
        })
    }

    /// Before `command` is re-run on `state`: if it is a timeout, it counts from where its
    /// seat's decision began, and (with the seed) sends the default the seed draws.
    pub(super) fn check(
        &mut self,
        state: &dyn domain::AnyState,
        command: &BundleCommand,
        entries: &[&StoredEvent],
        report: &mut AuditReport,
    ) -> Result<(), Reported> {
        let Some(first) = entries.first().filter(|e| e.entry() == Entry::SeatTimedOut) else {
            return Ok(());
        };
        self.timeouts += 1;
        let seat = first.payload.get("seat").and_then(Value::as_u64);
        let began = self
            .starts
            .iter()
            .find(|(s, _)| Some(u64::from(*s)) == seat)
            .map(|(_, since)| *since);
        let since = first.payload.get("since").and_then(Value::as_u64);
        if began.is_none() || since != began {
            return Err(fail(
                report,
                first.seq,
                format!(
                    "the timeout at seq {} counts from seq {since:?}; its seat's decision began \
                     at seq {began:?}",
                    first.seq
                ),
                (json!(since), json!(began)),
            ));
        }
        let (Some(seed), Some(seat)) = (self.seed, command.seat) else {
            return Ok(());
        };
        let version = command.first_seq.saturating_sub(1);
        let mut rng = domain::timeout::timeout_rng(seed, self.client_seeds, version);
        let drawn = Seat::new(seat)
            .ok()
            .and_then(|seat| guarded(|| state.timeout_move(seat, &mut rng)).flatten());
        if drawn.as_ref() != Some(&command.command) {
            return Err(fail(
                report,
                command.first_seq,
                format!(
                    "the default move of the timeout at seq {} is not the one the seed draws",
                    first.seq
                ),
                (command.command.clone(), drawn.unwrap_or(Value::Null)),
            ));
        }
        Ok(())
    }

    /// After `command` was re-run: the decisions `state` now waits for.
    pub(super) fn after(&mut self, state: &dyn domain::AnyState, command: &BundleCommand) {
        let kind = command.command.get("type").and_then(Value::as_str);
        let settles = !kind.is_some_and(|k| self.optional.contains(&k));
        let mut waited: Vec<u8> = guarded(|| state.prompts())
            .unwrap_or_default()
            .iter()
            .filter(|p| p.must)
            .map(|p| p.seat.number())
            .collect();
        waited.dedup();
        self.starts = domain::timeout::decision_starts(
            &self.starts,
            &waited,
            command.seat,
            settles,
            command.last_seq,
        );
    }

    pub(super) fn report(&self, report: &mut AuditReport) {
        let drawn = match self.seed {
            Some(_) => ", each sending the default the seed draws",
            None => " (the defaults are checked once the seed is revealed)",
        };
        report.push(
            "decisions",
            true,
            format!(
                "{} timeouts, each counted from where its seat's decision began{drawn}",
                self.timeouts
            ),
        );
    }
}

fn guarded<R>(f: impl FnOnce() -> R) -> Option<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

fn fail(
    report: &mut AuditReport,
    seq: u64,
    why: String,
    (recorded, expected): (Value, Value),
) -> Reported {
    report.diverge(seq, why.clone(), recorded, expected);
    report.push("decisions", false, why);
    Reported
}
