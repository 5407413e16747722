//! The caller's `choices` (issue 15: legal moves as JSON Schema families) and
//! `POST /v1/games/{id}/commands/check`, which answers what a command would get without sending
//! it.

use crate::auth::AuthUser;
use crate::error::{ApiResult, Problem};
use crate::extract::GamePath;
use crate::routes::games::PromptsResponse;
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

impl From<crate::application::Prompts> for PromptsResponse {
    fn from(answer: crate::application::Prompts) -> Self {
        PromptsResponse {
            version: answer.version,
            prompts: answer
                .prompts
                .into_iter()
                .map(|prompt| crate::routes::games::PromptOut {
                    deadline: answer
                        .deadlines
                        .iter()
                        .find(|(seat, _)| prompt.must && *seat == prompt.seat.number())
                        .map(|(_, at)| *at),
                    prompt,
                })
                .collect(),
            choices: answer.choices,
            legal: answer.legal,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckBody {
    /// The command to check (see `WhiskyRaceCommand`, `BanditsCommand`, `MushCommand`).
    #[schema(value_type = Object)]
    pub command: Value,
    /// When given, a stale version is answered 409 (as a send would be).
    pub expected_version: Option<u64>,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct CheckAnswer {
    /// Always true: a refused command is answered with a problem instead.
    pub accepted: bool,
}

/// Would this command be accepted now? 200 `{accepted: true}`, or the problem a send would get
/// (422 with the violated `rule`, 409 on a stale `expected_version`, 403 when not seated).
/// Nothing is appended, the game's randomness is not drawn from, and a refusal says no more
/// than the caller would learn by sending the command. A UI validates a composed move (a
/// trade) with it before sending.
#[utoipa::path(tag = "games", request_body = CheckBody,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = CheckAnswer, description = "the command would be accepted now"),
              (status = 403, body = Problem, description = "not seated in this game"),
              (status = 404, body = Problem), (status = 409, body = Problem, description = "stale expected_version"),
              (status = 422, body = Problem, description = "the command would be refused: rule violation (with `rule`) or invalid command")))]
#[post("/v1/games/{id}/commands/check")]
pub async fn check_command(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    body: web::Json<CheckBody>,
) -> ApiResult<HttpResponse> {
    let CheckBody {
        command,
        expected_version,
    } = body.into_inner();
    crate::routes::games::command_object(&command)?;
    let expected_version = expected_version
        .map(|v| crate::extract::int64("expected_version", v))
        .transpose()?;
    state
        .services
        .checks
        .check(id, user.id, command, expected_version)
        .await?;
    Ok(HttpResponse::Ok().json(CheckAnswer { accepted: true }))
}
