//! Export, audit and disputes: the log as the thing that settles arguments.

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::routes::games::EventOut;
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use infra::GameId;
use infra::audit::{AuditReport, Bundle, Check};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

fn parse_id(raw: &str) -> ApiResult<GameId> {
    raw.parse()
        .map_err(|_| ApiError::NotFound("game not found".into()))
}

/// The self-contained record of a game: options, rules-engine version, seed commitment, client
/// seeds, every command with its sender and time, every event with its hash, and (after the
/// end) the server seed. Check it offline with `homestretch verify BUNDLE.json`.
#[utoipa::path(get, path = "/v1/games/{id}/export", tag = "replay", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])), responses((status = 200, body = Bundle), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/export")]
pub async fn export(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let id = parse_id(&path)?;
    let bundle = state.games.export(id, user.id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            "content-disposition",
            format!("attachment; filename=\"game-{id}.json\""),
        ))
        .json(bundle))
}

/// Audit of the live log: hash chain, head, seed commitment, and a re-run of every command
/// through the rules (the server re-runs the dice with its secret seed; anyone can after the end).
#[utoipa::path(get, path = "/v1/games/{id}/audit", tag = "replay", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])), responses((status = 200, body = AuditReport), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/audit")]
pub async fn audit(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let id = parse_id(&path)?;
    Ok(HttpResponse::Ok().json(state.games.audit(id, user.id).await?))
}

/// One move explained.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct MoveAudit {
    /// The event asked about.
    pub seq: u64,
    /// The events of the command that produced it: `first_seq..=last_seq`.
    pub first_seq: u64,
    pub last_seq: u64,
    /// Seat that sent the command (null for the host's start).
    pub seat: Option<u8>,
    pub sent_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: time::OffsetDateTime,
    /// The command (null when it holds another seat's secret).
    #[schema(value_type = Object)]
    pub command: Value,
    /// The state before the move, as the caller may see it.
    #[schema(value_type = Object)]
    pub state_before: Value,
    pub checks: Vec<Check>,
    pub sound: bool,
    pub events: Vec<EventOut>,
}

impl From<infra::games::MoveAudit> for MoveAudit {
    fn from(m: infra::games::MoveAudit) -> Self {
        MoveAudit {
            seq: m.seq,
            first_seq: m.first_seq,
            last_seq: m.last_seq,
            seat: m.seat,
            sent_by: m.sent_by,
            recorded_at: m.recorded_at,
            command: m.command,
            state_before: m.state_before,
            checks: m.checks,
            sound: m.sound,
            events: m.events.into_iter().map(EventOut::from).collect(),
        }
    }
}

/// Explains the move that produced event `seq`: the state before it (as the caller may see
/// it), the command, who sent it and when, the checks it passed, the events it produced.
#[utoipa::path(get, path = "/v1/games/{id}/audit/{seq}", tag = "replay",
    params(("id" = uuid::Uuid, Path), ("seq" = u64, Path)), security(("bearer" = [])),
    responses((status = 200, body = MoveAudit), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/audit/{seq}")]
pub async fn audit_move(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<(String, u64)>,
) -> ApiResult<HttpResponse> {
    let (id, seq) = path.into_inner();
    let id = parse_id(&id)?;
    Ok(HttpResponse::Ok().json(MoveAudit::from(
        state.games.audit_move(id, user.id, seq).await?,
    )))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenDispute {
    /// The disputed event.
    pub seq: u64,
    #[schema(max_length = 2000)]
    pub reason: String,
}

#[derive(Deserialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Upheld,
    Rejected,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    pub verdict: Verdict,
    #[schema(max_length = 2000)]
    pub note: String,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct DisputeOut {
    pub id: uuid::Uuid,
    pub game_id: uuid::Uuid,
    pub seq: u64,
    pub opened_by: uuid::Uuid,
    pub reason: String,
    /// `open`, `upheld` or `rejected`.
    pub status: String,
    /// The automatic audit of the disputed move, taken when the dispute was opened.
    #[schema(value_type = Object)]
    pub audit: Value,
    pub note: Option<String>,
    pub resolved_by: Option<uuid::Uuid>,
    /// The dispute's own event log.
    #[schema(value_type = Vec<Object>)]
    pub history: Vec<Value>,
}

impl From<infra::disputes::Dispute> for DisputeOut {
    fn from(d: infra::disputes::Dispute) -> Self {
        DisputeOut {
            id: d.id,
            game_id: d.game_id.0,
            seq: d.seq,
            opened_by: d.opened_by.0,
            reason: d.reason,
            status: d.status,
            audit: d.audit,
            note: d.note,
            resolved_by: d.resolved_by.map(|u| u.0),
            history: d.history,
        }
    }
}

/// Open a dispute on a move (seated players only); it carries the automatic audit of that move.
#[utoipa::path(post, path = "/v1/games/{id}/disputes", tag = "replay", request_body = OpenDispute,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 201, body = DisputeOut), (status = 403, body = Problem), (status = 404, body = Problem),
              (status = 422, body = Problem)))]
#[post("/v1/games/{id}/disputes")]
pub async fn open_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
    body: web::Json<OpenDispute>,
) -> ApiResult<HttpResponse> {
    let id = parse_id(&path)?;
    let reason = body.reason.trim();
    if reason.is_empty() || reason.chars().count() > 2000 {
        return Err(ApiError::Invalid(
            "reason must be 1 to 2000 characters".into(),
        ));
    }
    let seated = state
        .games
        .store
        .seats(id)
        .await?
        .iter()
        .any(|s| s.user_id == user.id);
    if !seated {
        return Err(ApiError::Forbidden(
            "only players of this game may dispute its moves".into(),
        ));
    }
    let move_audit = MoveAudit::from(state.games.audit_move(id, user.id, body.seq).await?);
    let move_audit =
        serde_json::to_value(&move_audit).map_err(|e| ApiError::Internal(e.to_string()))?;
    let disputes = infra::disputes::Disputes::new(state.games.store.pool.clone());
    let dispute = disputes
        .open(id, body.seq, user.id, reason, &move_audit)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("location", format!("/v1/disputes/{dispute}")))
        .json(DisputeOut::from(disputes.get(dispute).await?)))
}

/// A dispute (its players and admins may read it).
#[utoipa::path(get, path = "/v1/disputes/{id}", tag = "replay", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])), responses((status = 200, body = DisputeOut), (status = 403, body = Problem),
    (status = 404, body = Problem)))]
#[get("/v1/disputes/{id}")]
pub async fn get_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let id: uuid::Uuid = path
        .parse()
        .map_err(|_| ApiError::NotFound("dispute not found".into()))?;
    let dispute = infra::disputes::Disputes::new(state.games.store.pool.clone())
        .get(id)
        .await?;
    let seated = state
        .games
        .store
        .seats(dispute.game_id)
        .await?
        .iter()
        .any(|s| s.user_id == user.id);
    if !seated && !state.is_admin(&user).await? {
        return Err(ApiError::Forbidden(
            "only the game's players and admins may read its disputes".into(),
        ));
    }
    Ok(HttpResponse::Ok().json(DisputeOut::from(dispute)))
}

/// Resolve a dispute (admins only): upheld or rejected, with a note.
#[utoipa::path(post, path = "/v1/disputes/{id}/resolution", tag = "replay", request_body = Resolution,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = DisputeOut), (status = 403, body = Problem), (status = 404, body = Problem),
              (status = 422, body = Problem)))]
#[post("/v1/disputes/{id}/resolution")]
pub async fn resolve_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
    body: web::Json<Resolution>,
) -> ApiResult<HttpResponse> {
    let id: uuid::Uuid = path
        .parse()
        .map_err(|_| ApiError::NotFound("dispute not found".into()))?;
    if !state.is_admin(&user).await? {
        return Err(ApiError::Forbidden("only admins resolve disputes".into()));
    }
    if body.note.chars().count() > 2000 {
        return Err(ApiError::Invalid("note is at most 2000 characters".into()));
    }
    let disputes = infra::disputes::Disputes::new(state.games.store.pool.clone());
    disputes
        .resolve(id, user.id, body.verdict == Verdict::Upheld, &body.note)
        .await?;
    Ok(HttpResponse::Ok().json(DisputeOut::from(disputes.get(id).await?)))
}
