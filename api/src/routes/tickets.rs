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
/// (`EventSource`). The stream it opens ends when the access token that bought it expires.
#[utoipa::path(post, path = "/v1/stream-tickets", tag = "games", security(("bearer" = [])),
    responses((status = 201, body = StreamTicket), (status = 401, body = Problem)))]
#[post("/v1/stream-tickets")]
pub async fn issue(user: AuthUser) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Created()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(StreamTicket {
            ticket: new_ticket(user),
            expires_in: TICKET_TTL.as_secs(),
        }))
}

/// Records a fresh ticket for `user`'s stream (forgetting the expired ones).
fn new_ticket(user: AuthUser) -> String {
    let mut bytes = [0u8; 32];
    infra::random::fill_random(&mut bytes);
    let ticket = hex::encode(bytes);
    let mut map = tickets().lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    map.retain(|_, t| t.expires > now);
    map.insert(
        ticket.clone(),
        Issued {
            // The token was verified once, by the request gate: `AuthUser` carries its expiry.
            access_until: user.expires,
            user,
            expires: now + TICKET_TTL,
        },
    );
    ticket
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
                    _ => Err(ApiError::Unauthorized(says("errors.stream_ticket_invalid"))),
                }
            });
        }
        let user = AuthUser::from_request(req, payload);
        Box::pin(async move {
            let user = user.await?;
            Ok(StreamAccess {
                until: left(user.expires),
                user,
            })
        })
    }
}
