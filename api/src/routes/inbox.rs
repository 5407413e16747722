//! `GET /v1/me/inbox` (issue 18): the games where the caller must act now.

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::extract::IfNoneMatch;
use crate::routes::games::GameKind;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use infra::lobby::InboxRow;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// A game waiting for the caller.
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
pub struct InboxGame {
    pub id: uuid::Uuid,
    pub kind: GameKind,
    /// The game's version now (send it as `expected_version`).
    pub version: u64,
    /// The command types the game waits for from the caller's seat (its prompts with
    /// `must: true`; `GET /v1/games/{id}/prompts` has the exact choices).
    pub kinds: Vec<String>,
    /// When the caller's turn times out; null when the game has no clock.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub deadline: Option<time::OffsetDateTime>,
}

#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
pub struct Inbox {
    /// How many games wait for the caller (the badge number).
    pub count: usize,
    /// Most urgent first: the nearest deadline, then the turn waiting longest.
    pub games: Vec<InboxGame>,
}

/// The games where the caller must act now (a prompt with `must: true` for their seat), most
/// urgent first. Cheap to poll: one index read; send the `ETag` back as `If-None-Match` to get
/// a bodiless 304 while nothing changed.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    params(("If-None-Match" = Option<String>, Header, description = "the ETag of a previous answer: 304 when unchanged")),
    responses((status = 200, body = Inbox), (status = 304, description = "unchanged since the given ETag"),
              (status = 401, body = Problem)))]
#[get("/v1/me/inbox")]
pub async fn inbox(
    state: web::Data<AppState>,
    user: AuthUser,
    if_none_match: IfNoneMatch,
) -> ApiResult<HttpResponse> {
    let inbox = Inbox::from(state.services.inbox.inbox(user.id).await?);
    let body = serde_json::to_vec(&inbox).map_err(|e| ApiError::Internal(e.to_string()))?;
    // The answer's own digest: any change of a game, its version, kinds or deadline changes it.
    let etag = format!("\"{}\"", &hex::encode(Sha256::digest(&body))[..32]);
    Ok(if_none_match.answer(etag, |mut ok| {
        ok.insert_header((header::CACHE_CONTROL, "private, no-cache"))
            .content_type("application/json")
            .body(body)
    }))
}

impl From<Vec<InboxRow>> for Inbox {
    fn from(rows: Vec<InboxRow>) -> Self {
        let games: Vec<InboxGame> = rows
            .into_iter()
            .map(|row| InboxGame {
                id: row.game_id.0,
                kind: GameKind(row.kind),
                version: row.version,
                kinds: row.kinds,
                deadline: row.deadline,
            })
            .collect();
        Inbox {
            count: games.len(),
            games,
        }
    }
}
