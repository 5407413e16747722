//! Export, audit and disputes: the log as the thing that settles arguments.

use crate::application::MoveAudit;
use crate::application::disputes::DisputeRead;
use crate::auth::AuthUser;
use crate::error::{ApiResult, Problem};
use crate::extract::{DisputePath, GamePath, parse_game_id};
use crate::routes::games::EventOut;
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use infra::audit::{AuditReport, Bundle};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// The self-contained record of a game: options, rules-engine version, seed commitment, client
/// seeds, every command with its sender and time, every event with its hash, and (after the
/// end) the server seed. Check it offline with `homestretch verify BUNDLE.json`. Heavy: a caller
/// has only a few heavy requests in flight at once (429 beyond); a version's export is made once
/// per viewer and then served from the cache (`Cache-Status`).
#[utoipa::path(tag = "replay", params(("id" = uuid::Uuid, Path), MinVersion),
    security(("bearer" = [])), responses((status = 200, body = Bundle, headers(("cache-status" = String, description = "RFC 9211: `homestretch; hit` when served from the cache, `homestretch; fwd=miss; stored` when made for this request"))),
    (status = 404, body = Problem), (status = 429, body = Problem, description = "the caller already has as many heavy requests (audits, exports, replays) in flight as it may")))]
#[get("/v1/games/{id}/export")]
pub async fn export(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    query: web::Query<MinVersion>,
) -> ApiResult<HttpResponse> {
    let served = state
        .services
        .exports
        .export_since(id, user.id, query.min_version()?)
        .await?;
    let attachment = format!("attachment; filename=\"game-{id}.json\"");
    Ok(json_served(served, Some(attachment)))
}

/// Audit of the live log: hash chain, head, seed commitment, and a re-run of every command
/// through the rules (the server re-runs the dice with its secret seed; anyone can after the end).
/// Heavy: a few in flight per caller (429 beyond); a version's audit is made once and then served
/// from the cache (`Cache-Status`) until the log changes in any way.
#[utoipa::path(tag = "replay", params(("id" = uuid::Uuid, Path), MinVersion),
    security(("bearer" = [])), responses((status = 200, body = AuditReport, headers(("cache-status" = String, description = "RFC 9211: `homestretch; hit` when served from the cache, `homestretch; fwd=miss; stored` when made for this request"))),
    (status = 404, body = Problem), (status = 429, body = Problem, description = "the caller already has as many heavy requests (audits, exports, replays) in flight as it may")))]
#[get("/v1/games/{id}/audit")]
pub async fn audit(
    state: web::Data<AppState>,
    _user: AuthUser,
    GamePath(id): GamePath,
    query: web::Query<MinVersion>,
) -> ApiResult<HttpResponse> {
    let served = state
        .services
        .audits
        .audit_since(id, query.min_version()?)
        .await?;
    Ok(json_served(served, None))
}

/// The version a heavy read must at least show.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MinVersion {
    /// The newest version of the game the client was shown (default 0): the answer is never
    /// read from a replica behind it (monotonic reads, issue 29).
    pub min_version: Option<u64>,
}

impl MinVersion {
    fn min_version(&self) -> ApiResult<u64> {
        crate::extract::int64("min_version", self.min_version.unwrap_or(0))
    }
}

/// A heavy answer's JSON, with its `Cache-Status` (RFC 9211) and, for a download, its
/// `Content-Disposition`.
fn json_served(served: crate::application::Served, attachment: Option<String>) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    response.content_type("application/json").insert_header((
        "cache-status",
        if served.kept {
            "homestretch; hit"
        } else {
            "homestretch; fwd=miss; stored"
        },
    ));
    if let Some(attachment) = attachment {
        response.insert_header(("content-disposition", attachment));
    }
    response.body(served.json)
}

/// Explains the move that produced event `seq`: the state before it (as the caller may see
/// it), the command, who sent it and when, the checks it passed, the events it produced.
#[utoipa::path(tag = "replay",
    params(("id" = uuid::Uuid, Path), ("seq" = u64, Path), MinVersion), security(("bearer" = [])),
    responses((status = 200, body = MoveAudit), (status = 404, body = Problem),
    (status = 429, body = Problem, description = "the caller already has as many heavy requests (audits, exports, replays) in flight as it may")))]
#[get("/v1/games/{id}/audit/{seq}")]
pub async fn audit_move(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<(String, u64)>,
    query: web::Query<MinVersion>,
) -> ApiResult<HttpResponse> {
    let (id, seq) = path.into_inner();
    let id = parse_game_id(&id)?;
    let explained = state
        .services
        .audits
        .audit_move_since(id, user.id, seq, query.min_version()?)
        .await?;
    Ok(HttpResponse::Ok().json(explained.shown_as(EventOut::from)))
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
    /// The automatic audit of the disputed move (a `MoveAudit`), computed for the reader: a
    /// player sees what their seat may see (everything once the game is over); an admin who
    /// is not playing the game sees everything.
    #[schema(value_type = Object)]
    pub audit: Value,
    pub note: Option<String>,
    pub resolved_by: Option<uuid::Uuid>,
    /// The dispute's own event log (its audits reduced to the reader-independent fields).
    #[schema(value_type = Vec<Object>)]
    pub history: Vec<Value>,
}

impl From<DisputeRead> for DisputeOut {
    fn from(read: DisputeRead) -> Self {
        let d = read.dispute;
        DisputeOut {
            id: d.id,
            game_id: d.game_id.0,
            seq: d.seq,
            opened_by: d.opened_by.0,
            reason: d.reason,
            status: d.status,
            audit: serde_json::to_value(read.audit.shown_as(EventOut::from))
                .expect("audits serialize"),
            note: d.note,
            resolved_by: d.resolved_by.map(|u| u.0),
            history: d.history,
        }
    }
}

/// Open a dispute on a move (seated players only); it carries the automatic audit of that move.
/// A player has one open dispute per move: filing again answers that one (200, its own
/// reason); and at most `HOMESTRETCH_QUOTA_DISPUTES` (10) open disputes in all (429 past it).
#[utoipa::path(tag = "replay", request_body = OpenDispute,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 201, body = DisputeOut), (status = 200, body = DisputeOut, description = "the caller's open dispute on this move, filed before"),
              (status = 403, body = Problem), (status = 404, body = Problem),
              (status = 422, body = Problem), (status = 429, body = Problem, description = "the caller has as many open disputes as its quota allows")))]
#[post("/v1/games/{id}/disputes")]
pub async fn open_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    GamePath(id): GamePath,
    body: web::Json<OpenDispute>,
) -> ApiResult<HttpResponse> {
    let (created, read) = state
        .disputes
        .open_dispute(user.id, id, body.seq, &body.reason)
        .await?;
    let mut answer = if created {
        HttpResponse::Created()
    } else {
        HttpResponse::Ok()
    };
    Ok(answer
        .insert_header(("location", format!("/v1/disputes/{}", read.dispute.id)))
        .json(DisputeOut::from(read)))
}

/// A dispute (its players and admins may read it), with the move's audit computed for the
/// reader.
#[utoipa::path(tag = "replay", params(("id" = uuid::Uuid, Path)),
    security(("bearer" = [])), responses((status = 200, body = DisputeOut), (status = 403, body = Problem),
    (status = 404, body = Problem)))]
#[get("/v1/disputes/{id}")]
pub async fn get_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    DisputePath(id): DisputePath,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(DisputeOut::from(state.disputes.dispute(user.id, id).await?)))
}

/// Resolve a dispute (admins only): upheld or rejected, with a note.
#[utoipa::path(tag = "replay", request_body = Resolution,
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 200, body = DisputeOut), (status = 403, body = Problem), (status = 404, body = Problem),
              (status = 422, body = Problem)))]
#[post("/v1/disputes/{id}/resolution")]
pub async fn resolve_dispute(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<Resolution>,
    DisputePath(id): DisputePath,
) -> ApiResult<HttpResponse> {
    let upheld = body.verdict == Verdict::Upheld;
    let read = state
        .disputes
        .resolve_dispute(user.id, id, upheld, &body.note)
        .await?;
    Ok(HttpResponse::Ok().json(DisputeOut::from(read)))
}
