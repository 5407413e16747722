//! Stream tickets (issue 19): `EventSource` cannot send an `Authorization` header, and a
//! long-lived token in a URL ends up in logs and histories. A client trades its access token
//! for a short-lived, single-use ticket (`POST /v1/stream-tickets`) and opens
//! `GET /v1/games/{id}/events/stream?ticket=…`. Whichever way it was opened, a stream ends when
//! the access behind it expires (the access token's `exp`): the client then refreshes and
//! reconnects with `Last-Event-ID`.
//!
//! Tickets live in the memory of the instance that issued them (a browser opens its stream right
//! away, through the same load balancer; behind several instances, route `/v1/stream-tickets`
//! and the streams stickily, or reissue on a 401).

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, post, web};
use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use utoipa::ToSchema;

/// How long a ticket may wait before it is used.
pub const TICKET_TTL: Duration = Duration::from_secs(30);

struct Issued {
    user: AuthUser,
    /// Until when the access that bought the ticket lasts (unix seconds).
    access_until: i64,
    expires: Instant,
}

fn tickets() -> &'static Mutex<HashMap<String, Issued>> {
    static TICKETS: OnceLock<Mutex<HashMap<String, Issued>>> = OnceLock::new();
    TICKETS.get_or_init(Default::default)
}

fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct StreamTicket {
    /// Pass as `?ticket=` to `GET /v1/games/{id}/events/stream`; works once.
    pub ticket: String,
    /// Seconds left to use it.
    #[schema(example = 30)]
    pub expires_in: u64,
}

/// The expiry (unix seconds) of the request's bearer token.
fn bearer_expiry(req: &HttpRequest, state: &AppState) -> ApiResult<i64> {
    let token = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
    Ok(state.jwt.verify(token.trim())?.exp)
}

/// A short-lived, single-use ticket to open one event stream without a token in its URL
/// (`EventSource`). The stream it opens ends when the access token that bought it expires.
#[utoipa::path(post, path = "/v1/stream-tickets", tag = "games", security(("bearer" = [])),
    responses((status = 201, body = StreamTicket), (status = 401, body = Problem)))]
#[post("/v1/stream-tickets")]
pub async fn issue(
    state: web::Data<AppState>,
    user: AuthUser,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let access_until = bearer_expiry(&req, &state)?;
    let mut bytes = [0u8; 32];
    infra::random::fill_random(&mut bytes);
    let ticket = hex::encode(bytes);
    let mut map = tickets().lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    map.retain(|_, t| t.expires > now);
    map.insert(
        ticket.clone(),
        Issued {
            user,
            access_until,
            expires: now + TICKET_TTL,
        },
    );
    Ok(HttpResponse::Created()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(StreamTicket {
            ticket,
            expires_in: TICKET_TTL.as_secs(),
        }))
}

/// Who opens a stream and until when: from `?ticket=` (used up here) or the bearer token.
pub struct StreamAccess {
    pub user: AuthUser,
    /// The stream ends at this instant (the access's expiry).
    pub until: tokio::time::Instant,
}

impl FromRequest for StreamAccess {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let ticket = web::Query::<HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("ticket").cloned());
        let left = |until: i64| {
            tokio::time::Instant::now()
                + Duration::from_secs(until.saturating_sub(now_unix()).max(0) as u64)
        };
        if let Some(ticket) = ticket {
            let issued = tickets()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&ticket);
            return Box::pin(async move {
                match issued {
                    Some(issued) if issued.expires > Instant::now() => Ok(StreamAccess {
                        until: left(issued.access_until),
                        user: issued.user,
                    }),
                    _ => Err(ApiError::Unauthorized(
                        "unknown, used or expired stream ticket".into(),
                    )),
                }
            });
        }
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let expiry = state
            .as_ref()
            .ok_or_else(|| ApiError::Internal("app state missing".into()))
            .and_then(|s| bearer_expiry(req, s));
        let user = AuthUser::from_request(req, payload);
        Box::pin(async move {
            let user = user.await?;
            Ok(StreamAccess {
                user,
                until: left(expiry?),
            })
        })
    }
}
