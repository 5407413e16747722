//! Building and running the HTTP server.

use crate::auth::JwtKeys;
use crate::error::{ApiError, PROBLEM_JSON, Problem};
use crate::limits::{RateConfig, RateLimiter};
use crate::metrics::Metrics;
use crate::routes;
use crate::sse::Hub;
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers};
use actix_web::{App, HttpMessage, HttpResponse, HttpServer, ResponseError, web};
use infra::accounts::Accounts;
use infra::games::GameService;
use infra::store::Store;
use sqlx::PgPool;
use std::collections::HashSet;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Largest accepted JSON body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub jwt_secret: Vec<u8>,
    pub admins: HashSet<String>,
    /// Per-IP limit (None = off).
    pub ip_rate: Option<RateConfig>,
    /// Per-user limit (None = off).
    pub user_rate: Option<RateConfig>,
    pub workers: Option<usize>,
}

#[derive(Clone)]
struct RequestId(String);

pub fn app_state(pool: PgPool, config: &ServerConfig) -> Arc<AppState> {
    let games = Arc::new(GameService::new(Store::new(pool.clone())));
    let hub = Arc::new(Hub::default());
    tokio::spawn(hub.clone().listen(pool.clone(), games.clone()));
    Arc::new(AppState {
        games,
        accounts: Accounts::new(pool),
        jwt: JwtKeys::new(&config.jwt_secret),
        admins: config.admins.clone(),
        metrics: Arc::new(Metrics::default()),
        hub,
        limiter: RateLimiter::new(None),
    })
}

/// Starts serving on `listener`; the returned server runs when awaited or spawned.
pub fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    config: &ServerConfig,
) -> std::io::Result<Server> {
    let data = web::Data::from(state);
    let ip_limiter = web::Data::new(Limiters {
        ip: RateLimiter::new(config.ip_rate),
        user: RateLimiter::new(config.user_rate),
    });
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(ip_limiter.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(MAX_BODY_BYTES)
                    .content_type_required(false)
                    .error_handler(|err, _| json_error(err).into()),
            )
            .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
            .app_data(web::QueryConfig::default().error_handler(|err, _| {
                ApiError::Invalid(format!("invalid query parameters: {err}")).into()
            }))
            .app_data(
                web::PathConfig::default()
                    .error_handler(|err, _| ApiError::NotFound(err.to_string()).into()),
            )
            .wrap(ErrorHandlers::new().default_handler(ensure_problem_json))
            .wrap_fn(|req, srv| {
                use actix_web::dev::Service;
                let started = Instant::now();
                let request_id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .filter(|v| {
                        v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    })
                    .map(String::from)
                    .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
                req.extensions_mut().insert(RequestId(request_id.clone()));
                let method = req.method().to_string();
                let route = req.match_pattern().unwrap_or_else(|| "unmatched".into());
                let span = tracing::info_span!("request", id = %request_id, %method, %route);
                let limited = rate_limited(&req);
                let metrics = req
                    .app_data::<web::Data<AppState>>()
                    .map(|s| s.metrics.clone());
                use futures_util::future::Either;
                let next = match limited {
                    Some(retry_after) => Either::Left(std::future::ready(
                        Ok::<_, actix_web::Error>(req.into_response(
                            ApiError::TooManyRequests { retry_after }.error_response(),
                        )),
                    )),
                    None => Either::Right(srv.call(req)),
                };
                async move {
                    let mut res: ServiceResponse<BoxBody> = match next {
                        Either::Left(ready) => ready.await?,
                        Either::Right(call) => call.await?.map_into_boxed_body(),
                    };
                    if let Ok(value) = HeaderValue::from_str(&request_id) {
                        res.headers_mut()
                            .insert(header::HeaderName::from_static("x-request-id"), value);
                    }
                    let status = res.status().as_u16();
                    let seconds = started.elapsed().as_secs_f64();
                    if let Some(metrics) = metrics {
                        metrics.observe(&method, &route, status, seconds);
                    }
                    tracing::info!(status, ms = seconds * 1000.0, "served");
                    Ok(res)
                }
                .instrument(span)
            })
            .configure(routes::configure)
            .default_service(web::to(unmatched))
    })
    .shutdown_timeout(10)
    .listen(listener)?;
    if let Some(workers) = config.workers {
        server = server.workers(workers);
    }
    Ok(server.run())
}

/// No route matched: 405 (with `Allow`) when the path exists for other methods, else 404.
async fn unmatched(req: actix_web::HttpRequest) -> HttpResponse {
    let allowed = crate::openapi::methods_for(req.path());
    if allowed.is_empty() {
        return ApiError::NotFound("no such route".into()).error_response();
    }
    let mut response = HttpResponse::MethodNotAllowed();
    response.insert_header((header::ALLOW, allowed.join(", ")));
    response.insert_header((header::CONTENT_TYPE, PROBLEM_JSON));
    let problem = Problem {
        kind: "/problems/method-not-allowed".into(),
        title: "Method not allowed".into(),
        status: 405,
        detail: format!(
            "{} is not allowed here; allowed: {}",
            req.method(),
            allowed.join(", ")
        ),
        rule: None,
        current_version: None,
        instance: None,
    };
    response.body(serde_json::to_string(&problem).unwrap_or_default())
}

struct Limiters {
    ip: RateLimiter,
    user: RateLimiter,
}

fn rate_limited(req: &actix_web::dev::ServiceRequest) -> Option<u64> {
    let limiters = req.app_data::<web::Data<Limiters>>()?;
    let ip = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    if let Err(wait) = limiters.ip.check(&ip) {
        return Some(wait);
    }
    // Per user: keyed by the bearer token's subject when the token verifies.
    let state = req.app_data::<web::Data<AppState>>()?;
    let token = req
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")?;
    let claims = state.jwt.verify(token).ok()?;
    limiters.user.check(&claims.sub).err()
}

fn json_error(err: actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as E;
    match err {
        E::OverflowKnownLength { .. } | E::Overflow { .. } => {
            ApiError::PayloadTooLarge(format!("the body exceeds {MAX_BODY_BYTES} bytes"))
        }
        E::ContentType => ApiError::BadRequest("expected a JSON body".into()),
        E::Deserialize(e) if e.is_data() => ApiError::Invalid(format!("invalid body: {e}")),
        E::Deserialize(e) => ApiError::BadRequest(format!("malformed JSON: {e}")),
        other => ApiError::BadRequest(format!("unreadable body: {other}")),
    }
}

/// Any error response not already problem+json (405, 413 from the framework…) becomes one.
fn ensure_problem_json<B: MessageBody + 'static>(
    res: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON));
    if is_problem {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let request_id = res
        .request()
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone());
    let (slug, title) = match status.as_u16() {
        404 => ("not-found", "Not found"),
        405 => ("method-not-allowed", "Method not allowed"),
        413 => ("payload-too-large", "Payload too large"),
        415 => ("unsupported-media-type", "Unsupported media type"),
        s if s >= 500 => ("internal", "Internal error"),
        _ => ("bad-request", "Bad request"),
    };
    let problem = Problem {
        kind: format!("/problems/{slug}"),
        title: title.into(),
        status: status.as_u16(),
        detail: status.canonical_reason().unwrap_or("error").to_string(),
        rule: None,
        current_version: None,
        instance: request_id,
    };
    let (req, old) = res.into_parts();
    let mut response = HttpResponse::build(status);
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            response.insert_header((name.clone(), value.clone()));
        }
    }
    response.insert_header((header::CONTENT_TYPE, PROBLEM_JSON));
    let response = response.body(serde_json::to_string(&problem).unwrap_or_default());
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(req, response).map_into_right_body(),
    ))
}

pub fn local_addr(listener: &TcpListener) -> SocketAddr {
    listener
        .local_addr()
        .expect("a bound listener has an address")
}
