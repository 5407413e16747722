//! Stream tickets (issue 19): `EventSource` cannot send an `Authorization` header, and a
//! long-lived token in a URL ends up in logs and histories. A client trades its access token
//! for a short-lived, single-use ticket (`POST /v1/stream-tickets`) and opens
//! `GET /v1/games/{id}/events/stream?ticket=…`. Whichever way it was opened, a stream ends when
//! the access behind it expires (the access token's `exp`): the client then refreshes and
//! reconnects with `Last-Event-ID`. It also ends, within seconds and on every instance, when the
//! session behind it is revoked (logout, a reused refresh token: issue 26), and a ticket of a
//! revoked session no longer opens anything. A user holds at most
//! `HOMESTRETCH_QUOTA_STREAM_TICKETS` unused tickets.
//!
//! Tickets live in the memory of the instance that issued them (a browser opens its stream right
//! away, through the same load balancer; behind several instances, route `/v1/stream-tickets`
//! and the streams stickily, or reissue on a 401).

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, post, web};
use domain::i18n::says;
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

/// A short-lived, single-use ticket to open one event stream without a token in its URL
/// (`EventSource`). The stream it opens ends when the access token that bought it expires, or
/// when its session is revoked. At most `HOMESTRETCH_QUOTA_STREAM_TICKETS` (8) unused tickets
/// per user.
#[utoipa::path(tag = "games", security(("bearer" = [])),
    responses((status = 201, body = StreamTicket), (status = 401, body = Problem),
              (status = 429, body = Problem, description = "the caller holds as many unused tickets as its quota allows")))]
#[post("/v1/stream-tickets")]
pub async fn issue(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    let quota = crate::limits::cap(state.limits.config.stream_tickets_per_user);
    let ticket = new_ticket(user, quota)
        .ok_or_else(|| ApiError::Quota(says("errors.stream_ticket_quota").arg("max", quota)))?;
    Ok(HttpResponse::Created()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(StreamTicket {
            ticket,
            expires_in: TICKET_TTL.as_secs(),
        }))
}

/// Records a fresh ticket for `user`'s stream (forgetting the expired ones); `None` when the
/// user already holds `quota` unused ones.
fn new_ticket(user: AuthUser, quota: u32) -> Option<String> {
    let mut bytes = [0u8; 32];
    infra::random::fill_random(&mut bytes);
    let ticket = hex::encode(bytes);
    let mut map = tickets().lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    map.retain(|_, t| t.expires > now);
    let held = map.values().filter(|t| t.user.id == user.id).count();
    if held >= quota as usize {
        return None;
    }
    map.insert(
        ticket.clone(),
        Issued {
            // The token was verified once, by the request gate: `AuthUser` carries its expiry.
            access_until: user.expires,
            user,
            expires: now + TICKET_TTL,
        },
    );
    Some(ticket)
}

/// What ends a stream: the access's expiry, or its session's revocation.
pub type StreamEnd = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

/// Who opens a stream and until when: from `?ticket=` (used up here) or the bearer token.
pub struct StreamAccess {
    pub user: AuthUser,
    /// Resolves when the stream must end: the access expires or its session is revoked.
    pub until: StreamEnd,
}

impl StreamAccess {
    /// `user`'s access until unix time `expires`, or until its session is revoked.
    fn new(state: &AppState, user: AuthUser, expires: i64) -> StreamAccess {
        let left = Duration::from_secs(expires.saturating_sub(now_unix()).max(0) as u64);
        let expiry = tokio::time::sleep(left);
        let revoked = state.sessions.ended(state.accounts.clone(), user.family);
        // A draining instance ends its streams (issue 29): clients resume elsewhere.
        let drained = state.drain.started();
        StreamAccess {
            user,
            until: Box::pin(async move {
                tokio::select! {
                    _ = expiry => {}
                    _ = revoked => {}
                    _ = drained => {}
                }
            }),
        }
    }
}

impl FromRequest for StreamAccess {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let ticket = web::Query::<HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("ticket").cloned());
        let state = req.app_data::<web::Data<AppState>>().cloned();
        if let Some(ticket) = ticket {
            let issued = tickets()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&ticket);
            return Box::pin(async move {
                let state = state.ok_or_else(|| ApiError::Internal("app state missing".into()))?;
                let invalid = || ApiError::Unauthorized(says("errors.stream_ticket_invalid"));
                let issued = issued
                    .filter(|issued| issued.expires > Instant::now())
                    .ok_or_else(invalid)?;
                // A ticket bought before its session was revoked opens nothing (issue 26).
                state
                    .sessions
                    .ensure_alive(&state.accounts, issued.user.family)
                    .await
                    .map_err(|_| invalid())?;
                Ok(StreamAccess::new(&state, issued.user, issued.access_until))
            });
        }
        let user = AuthUser::from_request(req, payload);
        Box::pin(async move {
            // The extractor checked the session.
            let user = user.await?;
            let state = state.ok_or_else(|| ApiError::Internal("app state missing".into()))?;
            let expires = user.expires;
            Ok(StreamAccess::new(&state, user, expires))
        })
    }
}
