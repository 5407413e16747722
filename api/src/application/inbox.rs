//! The inbox (issue 18): the games where a user must act now. Written with every append (the
//! seats the new state waits for go to the `inbox` table in the append's own statement), read
//! with one index scan: a poll never replays or even loads a game.

use super::error::AppError;
use super::error::Result;
use super::error::guarded;
use super::games::Games;
use super::loaded::Decision;
use domain::Prompt;
use infra::ids::UserId;
use infra::lobby::InboxRow;
use infra::store::Store;
use serde_json::Value;
use serde_json::json;
use std::sync::Arc;
use time::OffsetDateTime;

/// The inbox: read with one index scan, rebuilt from the games' states on demand.
pub struct Inbox {
    games: Arc<Games>,
    store: Store,
}

impl Inbox {
    pub fn new(games: Arc<Games>) -> Self {
        Inbox {
            store: games.store.clone(),
            games,
        }
    }
}

impl Inbox {
    /// The games where `user` must act, most urgent first (nearest deadline, then the turn
    /// waiting longest).
    pub async fn inbox(&self, user: UserId) -> Result<Vec<InboxRow>> {
        self.store.inbox(user).await.map_err(AppError::from)
    }

    /// Rewrites the inbox rows of every started game from its state (for games started before
    /// the inbox existed: `homestretch inbox rebuild`). Returns the number of games.
    pub async fn rebuild_inbox(&self) -> Result<usize> {
        let games = self.store.started_games().await?;
        for id in &games {
            let rows = self
                .games
                .with_game(*id, |loaded| {
                    let head = loaded.head_at.map(|at| (loaded.version, at));
                    let decisions = &loaded.decisions;
                    let deadline_of =
                        |seat| head.and_then(|head| loaded.deadline_of(decisions, head, seat));
                    let bot_plays = |seat| loaded.bot_plays(seat, &[]);
                    let waiting = waiting(&loaded.prompts(), loaded.finished, &bot_plays);
                    guarded(|| inbox_rows(&waiting, &deadline_of, decisions))
                })
                .await??;
            self.store.set_inbox(*id, &rows).await?;
        }
        Ok(games.len())
    }
}

/// The seats a state waits for (its `prompts` with `must`), each with its command kinds (in
/// prompt order, once each), without the seats a bot plays; none once the game is `over`. The
/// inbox stores them ([`inbox_rows`]) and `your_turn` tells them ([`super::notify`]).
pub(super) fn waiting(
    prompts: &[Prompt],
    over: bool,
    bot_plays: &dyn Fn(u8) -> bool,
) -> Vec<(u8, Vec<String>)> {
    if over {
        return Vec::new();
    }
    let mut seats: Vec<(u8, Vec<String>)> = Vec::new();
    for prompt in prompts
        .iter()
        .filter(|p| p.must && !bot_plays(p.seat.number()))
    {
        let seat = prompt.seat.number();
        let at = match seats.iter().position(|(s, _)| *s == seat) {
            Some(at) => at,
            None => {
                seats.push((seat, Vec::new()));
                seats.len() - 1
            }
        };
        for kind in &prompt.kinds {
            if !seats[at].1.iter().any(|k| k == kind) {
                seats[at].1.push(kind.to_string());
            }
        }
    }
    seats
}

/// `waiting` as the inbox stores it: `[{seat, kinds, deadline, since?, since_seq?}]`;
/// `deadline` is when the seat's decision times out (`deadline_of`; null without a clock),
/// `since` and `since_seq` where it began, for the seats with a recorded decision (clock
/// version 2, issue 26: an instance loading the game reads them back). Prompts are public
/// (`GET …/prompts` shows every seat's), so nothing hidden is stored.
pub(super) fn inbox_rows(
    waiting: &[(u8, Vec<String>)],
    deadline_of: &dyn Fn(u8) -> Option<OffsetDateTime>,
    decisions: &[Decision],
) -> Value {
    let rfc3339 = |at: OffsetDateTime| {
        at.format(&time::format_description::well_known::Rfc3339)
            .ok()
    };
    Value::Array(
        waiting
            .iter()
            .map(|(seat, kinds)| {
                let deadline = deadline_of(*seat).and_then(rfc3339);
                let mut row = json!({"seat": seat, "kinds": kinds, "deadline": deadline});
                if let Some(d) = decisions.iter().find(|d| d.seat == *seat) {
                    row["since"] = json!(rfc3339(d.at));
                    row["since_seq"] = json!(d.since);
                }
                row
            })
            .collect(),
    )
}
