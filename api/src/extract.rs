//! Typed request headers: a handler takes them as parameters; a bad value is the one
//! `ApiError` (problem+json 400, or 422 out of range) before the handler runs.

use crate::auth::{AuthUser, Verified, verify_request};
use crate::error::ApiError;
use crate::state::AppState;
use actix_web::HttpMessage;
use actix_web::dev::Payload;
use actix_web::http::header::{self, HeaderName};
use actix_web::web;
use actix_web::{FromRequest, HttpRequest};
use domain::i18n::says;
use futures_util::future::LocalBoxFuture;
use infra::GameId;
use std::future::{Ready, ready};
use uuid::Uuid;

/// The header's text, if sent: `None` when absent, 400 when not visible ASCII.
fn text<'r>(
    req: &'r HttpRequest,
    name: &HeaderName,
    what: &str,
) -> Result<Option<&'r str>, ApiError> {
    req.headers()
        .get(name)
        .map(|v| {
            v.to_str().map(str::trim).map_err(|_| {
                ApiError::BadRequest(says("errors.invalid_header").arg("header", what))
            })
        })
        .transpose()
}

/// `Idempotency-Key`: a UUID naming the request, so a repeat gets the first answer.
pub struct IdempotencyKey(pub Option<Uuid>);

impl FromRequest for IdempotencyKey {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let name = HeaderName::from_static("idempotency-key");
        ready(text(req, &name, "Idempotency-Key").and_then(|value| {
            value
                .map(|v| {
                    Uuid::parse_str(v)
                        .map_err(|_| ApiError::BadRequest(says("errors.idempotency_key_not_uuid")))
                })
                .transpose()
                .map(IdempotencyKey)
        }))
    }
}

/// `If-Match`: the game version (ETag, strong or weak) a command was decided against.
pub struct IfMatch(pub Option<u64>);

impl FromRequest for IfMatch {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(text(req, &header::IF_MATCH, "If-Match").and_then(|value| {
            value
                .map(|v| {
                    v.trim_start_matches("W/")
                        .trim_matches('"')
                        .parse()
                        .map_err(|_| ApiError::BadRequest(says("errors.if_match_not_etag")))
                })
                .transpose()
                .map(IfMatch)
        }))
    }
}

/// `Last-Event-ID`: the seq an event stream resumes after (at most `i64::MAX`).
pub struct LastEventId(pub Option<u64>);

impl FromRequest for LastEventId {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let name = HeaderName::from_static("last-event-id");
        let seq = |v: &str| {
            let seq = v
                .parse::<u64>()
                .map_err(|_| ApiError::BadRequest(says("errors.last_event_id_not_seq")))?;
            int64("Last-Event-ID", seq)
        };
        ready(
            text(req, &name, "Last-Event-ID")
                .map_err(|_| ApiError::BadRequest(says("errors.last_event_id_not_seq")))
                .and_then(|value| value.map(seq).transpose().map(LastEventId)),
        )
    }
}

/// `If-None-Match`: the entity tags the client already holds (weak or strong, or `*`).
pub struct IfNoneMatch(Vec<String>);

impl IfNoneMatch {
    pub fn of(req: &HttpRequest) -> IfNoneMatch {
        let tags = req
            .headers()
            .get_all(header::IF_NONE_MATCH)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|t| t.trim().trim_start_matches("W/").to_string())
            .collect();
        IfNoneMatch(tags)
    }

    /// The answer tagged `etag`: a bodiless 304 when the client holds it, else `ok` (given the
    /// 200 with the `ETag`).
    pub fn answer(
        &self,
        etag: String,
        ok: impl FnOnce(actix_web::HttpResponseBuilder) -> actix_web::HttpResponse,
    ) -> actix_web::HttpResponse {
        if self.0.iter().any(|t| *t == etag || t == "*") {
            return actix_web::HttpResponse::NotModified()
                .insert_header((header::ETAG, etag))
                .finish();
        }
        let mut response = actix_web::HttpResponse::Ok();
        response.insert_header((header::ETAG, etag));
        ok(response)
    }

    /// JSON bytes rendered at `version` ([`json_bytes`]), tagged with that version: the tag
    /// always names the version the bytes were rendered at, never a newer one.
    pub fn json_bytes(&self, version: u64, body: bytes::Bytes) -> actix_web::HttpResponse {
        self.answer(format!("\"{version}\""), |mut ok| {
            ok.content_type(actix_web::http::header::ContentType::json())
                .body(body)
        })
    }
}

impl FromRequest for IfNoneMatch {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(IfNoneMatch::of(req)))
    }
}

/// The bearer token of a request that may send one: `None` without `Authorization`; a token
/// sent is verified, and a bad one refused (never taken for "no token") when the handler asks
/// for [`OptionalAuth::user`], after its own checks of the body.
pub struct OptionalAuth(Option<Result<AuthUser, ApiError>>);

impl OptionalAuth {
    pub fn user(self) -> Result<Option<AuthUser>, ApiError> {
        self.0.transpose()
    }
}

impl FromRequest for OptionalAuth {
    type Error = ApiError;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let user = req
            .headers()
            .contains_key(header::AUTHORIZATION)
            .then(|| AuthUser::extract(req));
        Box::pin(async move {
            Ok(OptionalAuth(match user {
                Some(user) => Some(user.await),
                None => None,
            }))
        })
    }
}

/// The signed-in caller: the request gate's verification (`auth::Verified`), or the bearer
/// token verified here, and its session not revoked.
impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let verified = req.extensions().get::<Verified>().cloned();
        let user = match (&state, verified) {
            (_, Some(Verified(result))) => result,
            (Some(state), None) => verify_request(req, &state.jwt),
            (None, None) => Err(ApiError::Internal("app state missing".into())),
        };
        Box::pin(async move {
            let user = user?;
            let state = state.ok_or_else(|| ApiError::Internal("app state missing".into()))?;
            state
                .sessions
                .ensure_alive(&state.accounts, user.family)
                .await?;
            Ok(user)
        })
    }
}

/// Versions and seqs are `int64` (PostgreSQL `bigint`): a larger number is refused with a 422,
/// never wrapped or clamped.
pub fn int64(name: &str, value: u64) -> Result<u64, ApiError> {
    if value > i64::MAX as u64 {
        return Err(ApiError::Invalid(
            says("errors.out_of_range")
                .arg("name", name)
                .arg("max", i64::MAX),
        ));
    }
    Ok(value)
}

/// A game id from a route: not a UUID is a 404 (no such game can exist).
pub fn parse_game_id(raw: &str) -> Result<GameId, ApiError> {
    raw.parse()
        .map_err(|_| ApiError::NotFound(says("errors.game_not_found")))
}

/// The `{id}` of a game route, parsed (see [`parse_game_id`]).
pub struct GamePath(pub GameId);

impl actix_web::FromRequest for GamePath {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let id = req.match_info().get("id").unwrap_or_default();
        std::future::ready(parse_game_id(id).map(GamePath))
    }
}

/// The `{id}` of a dispute route, parsed: not a UUID is a 404.
pub struct DisputePath(pub uuid::Uuid);

impl actix_web::FromRequest for DisputePath {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let id = req.match_info().get("id").unwrap_or_default();
        let id = id
            .parse()
            .map_err(|_| ApiError::NotFound(says("errors.dispute_not_found")));
        std::future::ready(id.map(DisputePath))
    }
}

/// An optional JSON body: an empty body is `None`; a body that is not a valid `T` (unknown
/// fields included) is refused like any other. (actix's `Option<Json<T>>` would turn a bad
/// body into `None` and silently go on without it.)
pub struct OptionalJson<T>(pub Option<T>);

impl<T: serde::de::DeserializeOwned + 'static> actix_web::FromRequest for OptionalJson<T> {
    type Error = actix_web::Error;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let bytes = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let bytes = bytes.await?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(OptionalJson(None));
            }
            serde_json::from_slice(&bytes)
                .map(|body| OptionalJson(Some(body)))
                .map_err(|e| {
                    // serde's words: English, and said to be.
                    if e.is_data() {
                        ApiError::Invalid(says("errors.invalid_body").arg("detail", e.to_string()))
                            .into()
                    } else {
                        ApiError::BadRequest(
                            says("errors.malformed_json").arg("detail", e.to_string()),
                        )
                        .into()
                    }
                })
        })
    }
}

/// `body` as JSON bytes, once, to be served many times ([`IfNoneMatch::json_bytes`]).
pub fn json_bytes<T: serde::Serialize>(body: &T) -> bytes::Bytes {
    // The answers' types serialize infallibly (no maps with non-string keys).
    serde_json::to_vec(body).unwrap_or_default().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    async fn extract<T: FromRequest>(header: Option<(&str, &str)>) -> Result<T, T::Error> {
        let mut req = TestRequest::default();
        if let Some(header) = header {
            req = req.insert_header(header);
        }
        let (req, mut payload) = req.to_http_parts();
        T::from_request(&req, &mut payload).await
    }

    fn status(error: ApiError) -> u16 {
        actix_web::ResponseError::status_code(&error).as_u16()
    }

    #[actix_web::test]
    async fn an_absent_header_is_none() {
        assert_eq!(extract::<IdempotencyKey>(None).await.ok().unwrap().0, None);
        assert_eq!(extract::<IfMatch>(None).await.ok().unwrap().0, None);
        assert_eq!(extract::<LastEventId>(None).await.ok().unwrap().0, None);
    }

    #[actix_web::test]
    async fn good_values_are_parsed() {
        let id = "0190d2c8-7a64-7cc2-9a6c-3d4bd2f1e5a1";
        let key = extract::<IdempotencyKey>(Some(("Idempotency-Key", id))).await;
        assert_eq!(key.ok().unwrap().0, Some(Uuid::parse_str(id).unwrap()));
        for etag in ["\"7\"", "W/\"7\"", " 7 "] {
            let version = extract::<IfMatch>(Some(("If-Match", etag))).await;
            assert_eq!(version.ok().unwrap().0, Some(7), "{etag}");
        }
        let seq = extract::<LastEventId>(Some(("Last-Event-ID", "42"))).await;
        assert_eq!(seq.ok().unwrap().0, Some(42));
    }

    #[actix_web::test]
    async fn bad_values_are_a_400_and_out_of_range_a_422() {
        let key = extract::<IdempotencyKey>(Some(("Idempotency-Key", "not-a-uuid"))).await;
        assert_eq!(status(key.err().unwrap()), 400);
        let version = extract::<IfMatch>(Some(("If-Match", "\"v7\""))).await;
        assert_eq!(status(version.err().unwrap()), 400);
        let seq = extract::<LastEventId>(Some(("Last-Event-ID", "-1"))).await;
        assert_eq!(status(seq.err().unwrap()), 400);
        let huge = (i64::MAX as u64 + 1).to_string();
        let seq = extract::<LastEventId>(Some(("Last-Event-ID", huge.as_str()))).await;
        assert_eq!(status(seq.err().unwrap()), 422);
    }
}
