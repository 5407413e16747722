//! The caller's notifications (issue 18): where they are pushed (signed webhooks, Web Push
//! subscriptions), the feed to resync from after a long sleep, and the app's one stream.
//! Every channel carries the same JSON ([`Notification`]), built in
//! `application::notify` and written to the outbox with the events that cause it.

use crate::adapters::sse_stream;
use crate::adapters::web_push::b64url_decode;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, Problem};
use crate::limits::IpKey;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use domain::i18n::says;
use futures_util::Stream;
use infra::UserId;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

/// A notification, as delivered to a webhook (the body), a push subscription (the decrypted
/// body) and the app stream (`data`). Receivers deduplicate on `id`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Notification {
    /// Unique; the same on every channel and every retry.
    pub id: uuid::Uuid,
    /// `your_turn`, `player_joined`, `game_started`, `game_finished`, `dispute_resolved` or
    /// `invited`.
    #[serde(rename = "type")]
    pub kind: String,
    pub game_id: uuid::Uuid,
    pub game_kind: String,
    /// The deep link: `GET` it for the game (`/v1/games/{id}`).
    pub link: String,
    pub created_at: String,
    /// Short English texts for a system notification.
    pub title: String,
    pub body: String,
    /// The game's version when it was written (absent for lobby notifications).
    pub version: Option<u64>,
    /// The recipient's seat (for `player_joined`: the seat just taken).
    pub seat: Option<u8>,
    /// `your_turn`: the command kinds the recipient may send.
    pub kinds: Option<Vec<String>>,
    /// `your_turn`: when the recipient's time runs out, if the game has a clock; else null.
    pub deadline: Option<String>,
    /// `game_finished`: the recipient's place (1 = first), only in a game that ranks every seat
    /// (the game's `outcome.places`); absent in a game that ranks only its winners.
    pub place: Option<u64>,
    /// `game_finished`: `won` or `not_won`.
    pub result: Option<String>,
    /// `game_finished`: the winning seats.
    pub winners: Option<Vec<u8>>,
    /// `player_joined`: seats taken and seats in all.
    pub seats_taken: Option<u64>,
    pub seat_count: Option<u8>,
    /// `dispute_resolved`: the dispute and its verdict (`upheld`, `rejected`).
    pub dispute_id: Option<uuid::Uuid>,
    pub verdict: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    /// `https` URL of a public host (receives a JSON `POST` per notification).
    pub url: String,
    /// 16 to 256 characters: the key of `Homestretch-Signature` (HMAC-SHA256).
    pub secret: String,
}

#[derive(Serialize, ToSchema)]
pub struct WebhookOut {
    pub id: uuid::Uuid,
    pub url: String,
    #[schema(value_type = String, format = DateTime)]
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: time::OffsetDateTime,
}

#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookOut>,
}

impl From<infra::outbox::Webhook> for WebhookOut {
    fn from(w: infra::outbox::Webhook) -> Self {
        WebhookOut {
            id: w.id,
            url: w.url,
            created_at: w.created_at,
        }
    }
}

/// The keys of a browser's `PushSubscription.toJSON()`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// base64url uncompressed P-256 point (65 bytes).
    pub p256dh: String,
    /// base64url, 16 bytes.
    pub auth: String,
}

/// A browser's `PushSubscription.toJSON()`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPushSubscription {
    /// The push service's `https` URL for this browser.
    pub endpoint: String,
    pub keys: PushKeys,
    /// Sent by browsers (usually null); not used.
    #[serde(rename = "expirationTime", default)]
    #[schema(value_type = Option<f64>)]
    pub expiration_time: Option<serde_json::Value>,
}

impl PushKeys {
    /// The browser's keys: `p256dh` an uncompressed P-256 point, `auth` a 16-byte secret.
    fn check(&self) -> ApiResult<()> {
        let p256dh = b64url_decode(&self.p256dh);
        if !p256dh.is_some_and(|k| k.len() == 65 && k[0] == 4) {
            return Err(ApiError::Invalid(says("errors.push_p256dh_invalid")));
        }
        if b64url_decode(&self.auth).is_none_or(|a| a.len() != 16) {
            return Err(ApiError::Invalid(says("errors.push_auth_invalid")));
        }
        Ok(())
    }
}

#[derive(Serialize, ToSchema)]
pub struct PushSubscriptionOut {
    pub id: uuid::Uuid,
    pub endpoint: String,
}

#[derive(Deserialize, IntoParams)]
pub struct EndpointQuery {
    /// The subscription's endpoint, as registered.
    pub endpoint: String,
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct FeedQuery {
    /// Only notifications after this feed number (the stream's event id); 0 for all.
    #[serde(default)]
    pub after: u64,
    /// At most this many (1 to 500, default 100).
    pub limit: Option<u32>,
}

/// One entry of the caller's feed: its number and the notification.
#[derive(Serialize, ToSchema)]
pub struct FeedItem {
    /// The caller's feed number: gapless, increasing; the stream's event id.
    pub seq: u64,
    /// Exactly the JSON the other channels carry.
    #[schema(value_type = Notification)]
    pub notification: serde_json::Value,
}

#[derive(Serialize, ToSchema)]
pub struct Feed {
    pub notifications: Vec<FeedItem>,
    /// Pass as `after` (or `Last-Event-ID`) to continue.
    pub last_seq: u64,
}

/// Registers a webhook: every notification of the caller is `POST`ed to `url` as JSON, signed
/// `Homestretch-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
/// The same URL again replaces its secret (200). At most `HOMESTRETCH_QUOTA_WEBHOOKS` (5) per
/// account; each holds at most `HOMESTRETCH_QUEUE_PER_DESTINATION` (1000) undelivered
/// notifications (the feed has them all).
#[utoipa::path(tag = "notifications", request_body = NewWebhook,
    security(("bearer" = [])),
    responses((status = 201, body = WebhookOut), (status = 200, body = WebhookOut, description = "the caller's webhook to this URL, its secret replaced"),
              (status = 401, body = Problem),
              (status = 422, body = Problem, description = "a bad secret, or a destination that is not an https URL of a public host"),
              (status = 429, body = Problem, description = "the caller has as many webhooks as its quota allows")))]
#[post("/v1/me/webhooks")]
pub async fn add_webhook(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<NewWebhook>,
) -> ApiResult<HttpResponse> {
    let (hook, created) = state
        .subscriptions
        .add_webhook(user.id, &body.url, &body.secret)
        .await?;
    Ok(created_or_ok(created).json(WebhookOut::from(hook)))
}

/// The caller's webhooks (their secrets are never shown again).
#[utoipa::path(tag = "notifications", security(("bearer" = [])),
    responses((status = 200, body = WebhookList), (status = 401, body = Problem)))]
#[get("/v1/me/webhooks")]
pub async fn list_webhooks(state: web::Data<AppState>, user: AuthUser) -> ApiResult<HttpResponse> {
    let webhooks = state.subscriptions.webhooks(user.id).await?;
    Ok(HttpResponse::Ok().json(WebhookList {
        webhooks: webhooks.into_iter().map(WebhookOut::from).collect(),
    }))
}

/// Removes one of the caller's webhooks (its pending deliveries are dropped).
#[utoipa::path(tag = "notifications",
    params(("id" = uuid::Uuid, Path)), security(("bearer" = [])),
    responses((status = 204), (status = 401, body = Problem), (status = 404, body = Problem)))]
#[delete("/v1/me/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let not_found = || ApiError::NotFound(says("errors.webhook_not_found"));
    let id: uuid::Uuid = path.parse().map_err(|_| not_found())?;
    state.subscriptions.remove_webhook(user.id, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Subscribes a browser to Web Push (the body is its `PushSubscription.toJSON()`): every
/// notification of the caller is pushed to `endpoint`, encrypted (RFC 8291) and signed with the
/// server's VAPID key (RFC 8292, `GET /v1/push/vapid-public-key`). The subscription is the
/// caller's: the same endpoint again updates its keys (200); another account subscribing the
/// same endpoint (another user signed in on that browser) gets a subscription of its own and
/// never touches this one. At most `HOMESTRETCH_QUOTA_PUSH_SUBSCRIPTIONS` (10) per account.
#[utoipa::path(tag = "notifications",
    request_body = NewPushSubscription, security(("bearer" = [])),
    responses((status = 201, body = PushSubscriptionOut), (status = 200, body = PushSubscriptionOut, description = "the caller's subscription to this endpoint, its keys updated"),
              (status = 401, body = Problem),
              (status = 422, body = Problem, description = "bad keys, or a destination that is not an https URL of a public host"),
              (status = 429, body = Problem, description = "the caller has as many push subscriptions as its quota allows")))]
#[post("/v1/me/push-subscriptions")]
pub async fn add_push_subscription(
    state: web::Data<AppState>,
    user: AuthUser,
    body: web::Json<NewPushSubscription>,
) -> ApiResult<HttpResponse> {
    body.keys.check()?;
    let keys = &body.keys;
    let (sub, created) = state
        .subscriptions
        .add_push(user.id, &body.endpoint, &keys.p256dh, &keys.auth)
        .await?;
    Ok(created_or_ok(created).json(PushSubscriptionOut {
        id: sub.id,
        endpoint: sub.endpoint,
    }))
}

/// 201 for a destination just made, 200 for the caller's own one updated in place.
fn created_or_ok(created: bool) -> actix_web::HttpResponseBuilder {
    if created {
        HttpResponse::Created()
    } else {
        HttpResponse::Ok()
    }
}

/// Unsubscribes the caller's browser at `endpoint`.
#[utoipa::path(tag = "notifications",
    params(EndpointQuery), security(("bearer" = [])),
    responses((status = 204), (status = 401, body = Problem), (status = 404, body = Problem)))]
#[delete("/v1/me/push-subscriptions")]
pub async fn delete_push_subscription(
    state: web::Data<AppState>,
    user: AuthUser,
    query: web::Query<EndpointQuery>,
) -> ApiResult<HttpResponse> {
    // Registered endpoints are normalized URLs: normalize the same way to find them.
    let endpoint = url::Url::parse(&query.endpoint)
        .map(String::from)
        .unwrap_or_else(|_| query.endpoint.clone());
    state.subscriptions.remove_push(user.id, &endpoint).await?;
    Ok(HttpResponse::NoContent().finish())
}

fn feed_item(entry: infra::outbox::FeedEntry) -> FeedItem {
    FeedItem {
        seq: entry.seq,
        notification: entry.payload,
    }
}

/// The caller's notifications after `after`, oldest first: what an app reads to resync after a
/// long sleep (then it opens the stream with `Last-Event-ID: <last_seq>`).
#[utoipa::path(tag = "notifications", params(FeedQuery),
    security(("bearer" = [])),
    responses((status = 200, body = Feed), (status = 401, body = Problem), (status = 422, body = Problem)))]
#[get("/v1/me/notifications")]
pub async fn notifications(
    state: web::Data<AppState>,
    user: AuthUser,
    query: web::Query<FeedQuery>,
) -> ApiResult<HttpResponse> {
    let limit = query.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::Invalid(
            says("errors.limit_from_to")
                .arg("min", 1u32)
                .arg("max", 500u32),
        ));
    }
    let after = i64::try_from(query.after)
        .map_err(|_| ApiError::Invalid(says("errors.after_out_of_range")))? as u64;
    let entries = state.subscriptions.feed(user.id, after, limit).await?;
    let last_seq = entries.last().map(|e| e.seq).unwrap_or(after);
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(Feed {
            notifications: entries.into_iter().map(feed_item).collect(),
            last_seq,
        }))
}

/// The app's one stream (Server-Sent Events): the caller's notifications, `id` = the feed
/// number, `event` = the type, `data` = the notification JSON. Resume with `Last-Event-ID`.
/// Ends when the access behind it expires (refresh, reconnect with `Last-Event-ID`).
#[utoipa::path(tag = "notifications",
    params(("Last-Event-ID" = Option<u64>, Header, description = "resume after this feed number"),
           ("ticket" = Option<String>, Query, description = "a stream ticket (`POST /v1/stream-tickets`) instead of the bearer token, for `EventSource`")),
    security(("bearer" = []), ()),
    responses((status = 200, content_type = "text/event-stream", body = Notification), (status = 401, body = Problem),
              (status = 429, body = Problem)))]
#[get("/v1/me/events/stream")]
pub async fn notification_stream(
    state: web::Data<AppState>,
    access: crate::routes::tickets::StreamAccess,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let after = feed_after(&req)?;
    let ip = crate::limits::client_ip(&req);
    let body = feed_stream(state.into_inner(), access.user.id, ip, after)?;
    Ok(sse_stream::sse_response(body, access.until))
}

/// The feed number a stream resumes after (`Last-Event-ID`; 0 without one).
fn feed_after(req: &HttpRequest) -> ApiResult<u64> {
    match req.headers().get("last-event-id") {
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .filter(|n| i64::try_from(*n).is_ok())
            .ok_or_else(|| ApiError::BadRequest(says("errors.last_event_id_not_feed"))),
        None => Ok(0),
    }
}

/// Catch up from the feed, then wake on the `pg_notify` of every instance's commits (the same
/// machinery and stream limits as a game's stream, `adapters::sse_stream`).
fn feed_stream(
    state: Arc<AppState>,
    user: UserId,
    ip: IpKey,
    after: u64,
) -> Result<impl Stream<Item = Result<Bytes, actix_web::Error>>, ApiError> {
    let slot = state.hub.open(user, ip, &state.limits.config)?;
    // Subscribe before reading the backlog, so nothing committed in between is missed.
    let wake = state.hub.subscribe_feed(user);
    Ok(sse_stream::catch_up(
        "notification",
        after,
        wake,
        slot,
        move |after| feed_batch(state.clone(), user, after),
    ))
}

/// The caller's notifications after `after` (200 at most) as stream messages.
async fn feed_batch(
    state: Arc<AppState>,
    user: UserId,
    after: u64,
) -> Result<sse_stream::Batch, crate::application::AppError> {
    let entries = state.subscriptions.feed(user, after, 200).await?;
    let more = entries.len() == 200;
    let last = entries.last().map_or(after, |e| e.seq);
    let frames = entries
        .into_iter()
        .map(|entry| sse_stream::frame(entry.seq, &entry.kind, &entry.payload.to_string()))
        .collect();
    Ok(sse_stream::Batch {
        frames,
        after: last,
        more,
        last: false,
    })
}

#[derive(Serialize, ToSchema)]
pub struct VapidKey {
    /// The server's VAPID public key: base64url uncompressed P-256 point, the
    /// `applicationServerKey` of `pushManager.subscribe`.
    pub key: String,
}

/// The server's VAPID public key (RFC 8292), to subscribe a browser to Web Push.
#[utoipa::path(tag = "notifications",
    responses((status = 200, body = VapidKey)))]
#[get("/v1/push/vapid-public-key")]
pub async fn vapid_public_key(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(VapidKey {
            key: state.vapid.public.clone(),
        })
}
