use super::*;
use infra::deadlines::{CLOCK_USER, bot_user};

impl GameService {
    /// Every check on the live log. The server re-runs the dice with its secret seed; before
    /// the end, details of a divergence are withheld from players (they could hold secrets).
    pub async fn audit(&self, id: GameId, user: UserId) -> Result<AuditReport> {
        let (bundle, row) = self.full_bundle(id).await?;
        let mut report =
            guarded(|| bundles::verify_with_seed(&self.registry, &bundle, &row.server_seed))?;
        if row.status != GameStatus::Finished
            && let Some(divergence) = report.divergence.as_mut()
        {
            let _ = user;
            divergence.recorded = Value::Null;
            divergence.expected = Value::Null;
        }
        Ok(report)
    }

    /// Explains the move that produced event `seq`, as `user` may see it.
    pub async fn audit_move(&self, id: GameId, user: UserId, seq: u64) -> Result<MoveAudit> {
        self.audit_move_as(id, user, seq, false).await
    }

    /// Explains the move that produced event `seq`: as `user` may see it, or everything when
    /// `arbiter` (an admin resolving a dispute).
    pub async fn audit_move_as(
        &self,
        id: GameId,
        user: UserId,
        seq: u64,
        arbiter: bool,
    ) -> Result<MoveAudit> {
        let (bundle, row) = self.full_bundle(id).await?;
        let command = bundle
            .commands
            .iter()
            .find(|c| c.first_seq <= seq && seq <= c.last_seq)
            .cloned()
            .ok_or_else(|| StoreError::NotFound(says("errors.move_not_found")))?;
        let game = self.game_of(&row.kind)?;
        let (viewer, redacted_events, command_visible) = self
            .with_game(id, |loaded| {
                let viewer = if arbiter {
                    Viewer::Omniscient
                } else {
                    loaded.viewer(user)
                };
                let events: Vec<StoredEvent> = bundle
                    .events
                    .iter()
                    .filter(|e| e.seq >= command.first_seq && e.seq <= command.last_seq)
                    .filter_map(|e| loaded.redact(e, viewer))
                    .collect();
                let all_shown = events.len() == (command.last_seq + 1 - command.first_seq) as usize
                    && events.iter().all(|e| !e.redacted);
                let visible = all_shown
                    || viewer == domain::Viewer::Omniscient
                    || loaded.seat_of(user).map(Seat::number) == command.seat;
                (viewer, events, visible)
            })
            .await?;
        // The state before the move, as the caller may see it.
        let mut state = game.new_state();
        replay(
            state.as_mut(),
            bundle.events.iter().take(command.first_seq as usize - 1),
        )?;
        let state_before = guarded(|| state.view(viewer))?;
        // Checks: the chain up to this move, and a re-run of this move alone.
        let mut prefix = bundle.clone();
        prefix.events.truncate(command.last_seq as usize);
        prefix.commands.retain(|c| c.first_seq <= command.first_seq);
        prefix.game.version = command.last_seq;
        prefix.game.head_hash = prefix
            .events
            .last()
            .map(|e| e.hash.clone())
            .unwrap_or_default();
        let report =
            guarded(|| bundles::verify_with_seed(&self.registry, &prefix, &row.server_seed))?;
        Ok(MoveAudit {
            seq,
            first_seq: command.first_seq,
            last_seq: command.last_seq,
            seat: command.seat,
            sent_by: sender_name(&bundle, UserId(command.user_id)),
            recorded_at: command.recorded_at,
            command: if command_visible {
                command.command.clone()
            } else {
                Value::Null
            },
            state_before,
            checks: report.checks,
            sound: report.sound,
            events: redacted_events,
        })
    }
}

/// The sender's name as the log knows it: a seat holder's name, or the server's own actor
/// that sent it (issue 17: the clock for a timeout, a bot for a seat a person left).
pub(super) fn sender_name(bundle: &Bundle, user: UserId) -> String {
    if let Some(seat) = bundle.game.seats.iter().find(|s| s.user_id == user.0) {
        return seat.name.clone();
    }
    if user == CLOCK_USER {
        return "clock:".into();
    }
    (1..=6u8)
        .find(|&n| bot_user(n) == user)
        .map(|n| format!("bot:{n}"))
        .unwrap_or_default()
}
