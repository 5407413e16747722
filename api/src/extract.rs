//! Typed request headers: a handler takes them as parameters; a bad value is the one
//! `ApiError` (problem+json 400, or 422 out of range) before the handler runs.

use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::http::header::{self, HeaderName};
use actix_web::{FromRequest, HttpRequest};
use domain::i18n::says;
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
            crate::routes::games::int64("Last-Event-ID", seq)
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
pub struct OptionalAuth(Option<Result<crate::auth::AuthUser, ApiError>>);

impl OptionalAuth {
    pub fn user(self) -> Result<Option<crate::auth::AuthUser>, ApiError> {
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
            .then(|| crate::auth::AuthUser::extract(req));
        Box::pin(async move {
            Ok(OptionalAuth(match user {
                Some(user) => Some(user.await),
                None => None,
            }))
        })
    }
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
