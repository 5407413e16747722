//! The inbox (issue 18): the games where a user must act now. Written with every append (the
//! seats the new state waits for go to the `inbox` table in the append's own statement), read
//! with one index scan: a poll never replays or even loads a game.

use super::*;
use infra::lobby::InboxRow;

impl GameService {
    /// The games where `user` must act, most urgent first (nearest deadline, then the turn
    /// waiting longest).
    pub async fn inbox(&self, user: UserId) -> Result<Vec<InboxRow>> {
        self.store.inbox(user).await
    }

    /// Rewrites the inbox rows of every started game from its state (for games started before
    /// the inbox existed: `homestretch inbox rebuild`). Returns the number of games.
    pub async fn rebuild_inbox(&self) -> Result<usize> {
        let games = self.store.started_games().await?;
        for id in &games {
            let waiting = self
                .with_game(*id, |loaded| {
                    let deadline = loaded.head_at.and_then(|at| loaded.deadline_after(at));
                    waiting(loaded.state.as_ref(), deadline, &|seat| {
                        loaded.bot_plays(seat, &[])
                    })
                })
                .await??;
            self.store.set_inbox(*id, &waiting).await?;
        }
        Ok(games.len())
    }
}

/// The seats `state` waits for (its prompts with `must`), as the inbox stores them:
/// `[{seat, kinds, deadline}]`, one entry per seat (its must-kinds in prompt order), without
/// the seats a bot plays; `deadline` is when these decisions time out (issue 17: the same for
/// every seat, counted from the log head), null without a clock. Prompts are public (`GET
/// …/prompts` shows every seat's), so nothing hidden is stored.
pub(super) fn waiting(
    state: &dyn AnyState,
    deadline: Option<OffsetDateTime>,
    bot_plays: &dyn Fn(u8) -> bool,
) -> Result<Value> {
    guarded(|| {
        if state.outcome().is_some() {
            return json!([]);
        }
        let mut seats: Vec<(Seat, Vec<String>)> = Vec::new();
        for prompt in state
            .prompts()
            .into_iter()
            .filter(|p| p.must && !bot_plays(p.seat.number()))
        {
            let at = match seats.iter().position(|(s, _)| *s == prompt.seat) {
                Some(at) => at,
                None => {
                    seats.push((prompt.seat, Vec::new()));
                    seats.len() - 1
                }
            };
            for kind in prompt.kinds {
                if !seats[at].1.iter().any(|k| *k == kind) {
                    seats[at].1.push(kind.into_owned());
                }
            }
        }
        Value::Array(
            seats
                .into_iter()
                .map(|(seat, kinds)| {
                    json!({
                        "seat": seat.number(),
                        "kinds": kinds,
                        "deadline": deadline.and_then(|d| d
                            .format(&time::format_description::well_known::Rfc3339)
                            .ok()),
                    })
                })
                .collect(),
        )
    })
}
