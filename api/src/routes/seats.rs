//! Issue 17: bots in lobby seats, resigning, cancelling a lobby.

use crate::auth::AuthUser;
use crate::error::{ApiResult, Problem};
use crate::extract::GamePath;
use crate::extract::IdempotencyKey;
use crate::routes::games::{GameSummary, summary};
use crate::state::AppState;
use actix_web::{HttpResponse, delete, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The bots a seat may be given: the simulations' policies.
#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BotPolicy {
    /// Picks uniformly among the legal commands the game waits for.
    Random,
    /// Picks the legal command whose result scores best for its seat (the game's heuristic).
    Greedy,
}

impl BotPolicy {
    fn tag(self) -> &'static str {
        match self {
            BotPolicy::Random => "random",
            BotPolicy::Greedy => "greedy",
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddBotRequest {
    pub policy: BotPolicy,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct ResignAnswer {
    /// The game's version after the `seat_abandoned` entry.
    pub version: u64,
}

/// Give the next free lobby seat to a server bot (host only).
#[utoipa::path(tag = "games", request_body = AddBotRequest,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 201, body = GameSummary), (status = 403, body = Problem, description = "not the host"),
              (status = 404, body = Problem), (status = 422, body = Problem)))]
#[post("/v1/games/{id}/seats/bots")]
pub async fn add_bot(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    body: web::Json<AddBotRequest>,
) -> ApiResult<HttpResponse> {
    state
        .services
        .clocks
        .add_bot(id, user.id, body.policy.tag())
        .await?;
    let (row, seats) = state.services.games.game_row(id).await?;
    Ok(HttpResponse::Created().json(summary(&row, &seats)))
}

/// Resign: the caller's seat passes to a bot for the rest of the game (idempotent per
/// `Idempotency-Key`; without one, once per seat).
#[utoipa::path(tag = "games",
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = ResignAnswer), (status = 403, body = Problem, description = "not seated"),
              (status = 404, body = Problem), (status = 409, body = Problem),
              (status = 422, body = Problem, description = "not started, over, or already resigned")))]
#[post("/v1/games/{id}/seats/me/resign")]
pub async fn resign(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    IdempotencyKey(key): IdempotencyKey,
) -> ApiResult<HttpResponse> {
    let command_id = key
        .unwrap_or_else(|| uuid::Uuid::new_v5(&id.0, format!("resign:{}", user.id.0).as_bytes()));
    let version = state
        .services
        .clocks
        .resign(id, user.id, command_id)
        .await?;
    Ok(HttpResponse::Ok().json(ResignAnswer { version }))
}

/// Cancel a lobby (host only): its status becomes `cancelled`.
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])),
    responses((status = 204), (status = 403, body = Problem, description = "not the host"),
              (status = 404, body = Problem), (status = 422, body = Problem, description = "not a lobby")))]
#[delete("/v1/games/{id}")]
pub async fn cancel_game(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
) -> ApiResult<HttpResponse> {
    state.services.clocks.cancel(id, user.id).await?;
    Ok(HttpResponse::NoContent().finish())
}
