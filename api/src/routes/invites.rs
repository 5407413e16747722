//! Invites and rematch (issue 18): `POST /v1/games/join {code}` takes the next free seat of the
//! lobby an invite code names; `POST /v1/games/{id}/rematch` opens (or finds) a finished game's
//! rematch.

use crate::auth::AuthUser;
use crate::error::{ApiResult, Problem};
use crate::extract::GamePath;
use crate::routes::games::{GameSummary, client_seed, summary, with_links};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpResponse, post, web};

use serde::Deserialize;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinByCode {
    /// The lobby's invite code (case, spaces and dashes do not matter).
    #[schema(example = "7KQ2-MX9D")]
    pub code: String,
    /// Optional client seed mixed into the game's RNG.
    #[schema(max_length = 128)]
    pub client_seed: Option<String>,
}

/// Join the lobby an invite code names (takes the lowest free seat, like
/// `POST /v1/games/{id}/seats`). The code stops working once the game starts. Lookups are
/// rate-limited per user and per address.
#[utoipa::path(tag = "games", request_body = JoinByCode, security(("bearer" = [])),
    responses((status = 200, body = GameSummary), (status = 401, body = Problem),
              (status = 404, body = Problem, description = "no lobby has this code"),
              (status = 422, body = Problem, description = "the game has started, every seat is taken, or you are seated already"),
              (status = 429, body = Problem, description = "too many invite lookups")))]
#[post("/v1/games/join")]
pub async fn join_by_code(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<JoinByCode>,
) -> ApiResult<HttpResponse> {
    // Limited per user and per address before the body is read: `limits::route_limit`.
    let body = body.into_inner();
    let seed = client_seed(body.client_seed)?;
    let id = state
        .services
        .lobby
        .join_by_code(&body.code, user.id, &seed)
        .await?;
    let (row, seats) = state.services.games.game_row(id).await?;
    let answer = with_links(&state, &user, &row, &seats, summary(&row, &seats)).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_LOCATION, format!("/v1/games/{id}")))
        .json(answer))
}

/// Ask for a rematch of a finished game (any of its players): a new lobby of the same kind,
/// options and seat count, the caller its host in seat 1, the other players invited (each gets
/// a notification). Idempotent: once open, every player asking gets the same lobby (200), and
/// the finished game names it in `rematch`.
#[utoipa::path(tag = "games", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])),
    responses((status = 201, body = GameSummary, description = "the rematch lobby, opened now"),
              (status = 200, body = GameSummary, description = "the rematch lobby another player had opened"),
              (status = 401, body = Problem), (status = 403, body = Problem, description = "not a player of this game"),
              (status = 404, body = Problem), (status = 422, body = Problem, description = "the game is not over")))]
#[post("/v1/games/{id}/rematch")]
pub async fn rematch(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
) -> ApiResult<HttpResponse> {
    let rematch = state.services.lobby.rematch(id, user.id).await?;
    let (row, seats) = state.services.games.game_row(rematch.game).await?;
    let answer = with_links(&state, &user, &row, &seats, summary(&row, &seats)).await?;
    let mut response = if rematch.created {
        HttpResponse::Created()
    } else {
        HttpResponse::Ok()
    };
    Ok(response
        .insert_header((header::LOCATION, format!("/v1/games/{}", rematch.game)))
        .json(answer))
}
