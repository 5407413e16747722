//! Building and running the HTTP server.

use crate::adapters::http_delivery::DestinationCheck;
use crate::adapters::pg_listen::Hub;
use crate::application::Services;
use crate::application::accounts::UserService;
use crate::application::disputes::DisputeService;
use crate::application::subscriptions::Subscriptions;
use crate::auth::{JwtKeys, Sessions, Verified};
use crate::error::{ApiError, PROBLEM_JSON, Problem};
use crate::limits::{Counts, HeavySlot, IpKey, Limits, LimitsConfig, Refusal};
use crate::metrics::Metrics;
use crate::routes;
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{ConnectionType, KeepAlive};
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers};
use actix_web::{App, HttpMessage, HttpResponse, HttpServer, ResponseError, web};
use domain::i18n::says;
use infra::UserId;
use infra::accounts::Accounts;
use infra::store::Store;
use sqlx::PgPool;
use std::collections::HashSet;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// Largest accepted JSON body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Default refresh-token reuse leeway (`HOMESTRETCH_REFRESH_LEEWAY`).
pub const REFRESH_LEEWAY: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub jwt_secret: Vec<u8>,
    /// Admins by configuration: user ids (never names).
    pub admins: HashSet<UserId>,
    /// Every limit (`LimitsConfig::off()` for benchmarks and most tests).
    pub limits: LimitsConfig,
    /// A spent refresh token sent again within this gets the same new pair.
    pub refresh_leeway: Duration,
    pub workers: Option<usize>,
    /// The games this server hosts (`domain::registry()` unless a test hosts its own).
    pub registry: domain::Registry,
    /// Browser origins allowed by CORS (`HOMESTRETCH_CORS_ORIGINS`; default none).
    pub cors_origins: Vec<String>,
    /// Notification delivery (issue 18).
    pub notify: crate::adapters::http_delivery::NotifyConfig,
    /// The clock and bot worker (issue 17; `None`: this instance fires no deadline).
    pub clocks: Option<crate::application::ClockConfig>,
    /// A streaming replica for replays, exports, audits and event pages
    /// (`HOMESTRETCH_REPLICA_URL`, issue 29; `None`: everything reads the primary).
    pub replica_url: Option<String>,
}

/// A request's id and route pattern, named once by its span ([`RequestSpan`]) and read by
/// [`around_request`] and the error pages.
#[derive(Clone)]
struct Named {
    id: String,
    route: String,
}

/// The span of every request, opened by tracing-actix-web's `TracingLogger` (which keeps it
/// entered while the handler runs and while the body streams): `request` with `id`, `method`
/// and `route`, the fields the logs have always had.
struct RequestSpan;

impl tracing_actix_web::RootSpanBuilder for RequestSpan {
    fn on_request_start(req: &ServiceRequest) -> tracing::Span {
        let named = Named {
            id: request_id(req),
            route: req.match_pattern().unwrap_or_else(|| "unmatched".into()),
        };
        let (id, method, route) = (&named.id, req.method(), &named.route);
        let span = tracing::info_span!("request", %id, %method, %route);
        req.extensions_mut().insert(named);
        span
    }

    // The answer is logged by `served`, which also has the metrics to count.
    fn on_request_end<B: MessageBody>(
        _: tracing::Span,
        _: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
    }
}

/// The replica's read-only pool (the URL was checked when the configuration was read; a bad
/// one here is logged and the primary serves every read).
fn replica(url: &str) -> Option<Store> {
    infra::replica::replica_store(url)
        .inspect_err(
            |error| tracing::error!(%error, "HOMESTRETCH_REPLICA_URL: reading the primary only"),
        )
        .ok()
}

pub fn app_state(pool: PgPool, config: &ServerConfig) -> Arc<AppState> {
    let services = Services::build(
        Store::new(pool.clone()),
        config.registry.clone(),
        config.limits.heavy_threads,
        config.limits.heavy_cache_mb,
        config.replica_url.as_deref().and_then(replica),
    );
    let hub = Arc::new(Hub::default());
    let drain = Arc::new(crate::drain::Drain::default());
    let sessions = Arc::new(Sessions::default());
    tokio::spawn(
        hub.clone()
            .listen(pool.clone(), services.games.clone(), sessions.clone()),
    );
    let outbox = infra::outbox::Outbox::new(pool.clone());
    let vapid = Arc::new(
        crate::adapters::web_push::Vapid::new(
            &config.notify.vapid_private_key,
            &config.notify.vapid_subject,
        )
        .expect("a valid VAPID key (checked when the configuration is read)"),
    );
    if config.notify.deliver {
        // The worker's HTTP client lives on this thread (actix's `awc`).
        drain.track(actix_web::rt::spawn(crate::adapters::http_delivery::run(
            outbox.clone(),
            config.notify.clone(),
            vapid.clone(),
            hub.outbox_wake.clone(),
            drain.clone(),
        )));
    }
    if let Some(config) = config.clocks.clone() {
        drain.track(tokio::spawn(
            services.clocks.clone().run_clocks(config, drain.clone()),
        ));
    }
    let limits = Arc::new(Limits::new(config.limits.clone()));
    let weak = Arc::downgrade(&limits);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(60)).await;
            match weak.upgrade() {
                Some(limits) => limits.forget_idle(),
                None => break,
            }
        }
    });
    let accounts = Accounts::new(pool);
    let registry = config.registry.clone();
    let jwt = Arc::new(JwtKeys::new(&config.jwt_secret));
    let users = Arc::new(UserService {
        accounts: accounts.clone(),
        lobby: services.lobby.clone(),
        jwt: jwt.clone(),
        sessions: sessions.clone(),
        refresh_leeway: config.refresh_leeway,
        admins: config.admins.clone(),
        lobby_quota: crate::limits::cap(config.limits.lobbies_per_user),
    });
    let disputes = DisputeService::new(
        &services,
        users.clone(),
        crate::limits::cap(config.limits.disputes_per_user),
    );
    let subscriptions = Subscriptions::new(
        outbox,
        Box::new(DestinationCheck(config.notify.clone())),
        config.limits.destinations(false),
        config.limits.destinations(true),
    );
    Arc::new(AppState {
        services,
        users,
        disputes,
        accounts,
        jwt,
        metrics: Arc::new(Metrics::default()),
        hub,
        limits,
        sessions,
        subscriptions,
        vapid,
        openapi: LazyLock::new(Box::new(move || crate::openapi::spec_json(&registry))),
        drain,
    })
}

/// A connection's place in the per-IP and total connection counts (`CONNECTIONS_PER_IP`,
/// `MAX_CONNECTIONS`), kept with the connection and released when it closes. A connection over
/// a cap is still accepted (the kernel already did) but its request is answered 429 or 503 and
/// the connection closed; such refused connections are counted too, and past the cap of them
/// one IP's new connections are shut at once, unanswered, so one address cannot hold file
/// descriptors by opening connections faster than the header timeout closes them.
struct ConnSlot {
    ip: IpKey,
    refused: Option<Refusal>,
    counts: Arc<ConnCounts>,
}

/// Open connections per IP: accepted ones, and refused ones waiting for their answer.
#[derive(Default)]
struct ConnCounts {
    accepted: Counts<IpKey>,
    refused: Counts<IpKey>,
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        match self.refused {
            None => self.counts.accepted.release(&self.ip),
            Some(_) => self.counts.refused.release(&self.ip),
        }
    }
}

/// Counts a new connection from `ip`; `None` when it must be shut at once.
fn admit(counts: &Arc<ConnCounts>, ip: IpKey, limits: &LimitsConfig) -> Option<ConnSlot> {
    let refused = counts
        .accepted
        .acquire(&ip, limits.connections_per_ip, limits.connections_total)
        .err();
    if refused.is_some() {
        let per_ip = limits.connections_per_ip.or(limits.connections_total);
        counts.refused.acquire(&ip, per_ip, None).ok()?;
    }
    Some(ConnSlot {
        ip,
        refused,
        counts: counts.clone(),
    })
}

/// Starts serving on `listener`; the returned server runs when awaited or spawned. The app is
/// the routes behind four layers: CORS (outermost), the request's id and span ([`RequestSpan`]),
/// [`around_request`] (limits, metrics, language) and the problem+json error pages; connections are counted by [`count_connection`].
pub fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    config: &ServerConfig,
) -> std::io::Result<Server> {
    let limits = config.limits.clone();
    let counts = Arc::new(ConnCounts::default());
    let data = web::Data::from(state);
    let cors_origins = config.cors_origins.clone();
    let connection_limits = limits.clone();
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .configure(extractor_errors)
            .wrap(ErrorHandlers::new().default_handler(ensure_problem_json))
            .wrap_fn(around_request)
            .wrap(tracing_actix_web::TracingLogger::<RequestSpan>::new())
            // Outermost: preflights are answered before routing and limits.
            .wrap(crate::cors::cors(&cors_origins))
            .configure(routes::configure)
            .default_service(web::to(unmatched))
    })
    // Signals are the caller's (`cli::serve` drains on SIGTERM first, issue 29); then in-flight
    // requests get this long.
    .disable_signals()
    .shutdown_timeout(10)
    // The head of a request must arrive within this (408 and closed; actix applies it to a
    // connection's first request, the keep-alive timeout and the per-IP cap bound the rest).
    .client_request_timeout(limits.header_timeout.unwrap_or(Duration::ZERO))
    .keep_alive(match limits.keep_alive {
        Some(idle) => KeepAlive::Timeout(idle),
        None => KeepAlive::Os,
    })
    .on_connect(move |io, extensions| count_connection(io, extensions, &counts, &connection_limits))
    .listen(listener)?;
    let workers = config.workers.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    server = server.workers(workers);
    if let Some(total) = limits.connections_total {
        // The hard stop (no more accepting) sits a little above the soft cap answered 503.
        server = server.max_connections(total.div_ceil(workers) + 64);
    }
    Ok(server.run())
}

/// The extractors' own errors, as the one `ApiError` (problem+json): bodies, queries, paths.
fn extractor_errors(config: &mut web::ServiceConfig) {
    config
        .app_data(
            web::JsonConfig::default()
                .limit(MAX_BODY_BYTES)
                .content_type_required(false)
                .error_handler(|err, _| json_error(err).into()),
        )
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        .app_data(web::QueryConfig::default().error_handler(|err, _| {
            // serde's words: English, and said to be.
            ApiError::Invalid(says("errors.invalid_query").arg("detail", err.to_string())).into()
        }))
        .app_data(web::PathConfig::default().error_handler(|err, _| {
            ApiError::NotFound(says("errors.bad_path").arg("detail", err.to_string())).into()
        }));
}

/// A new connection counted in the per-IP and total counts (released when it closes); past
/// the cap of refused ones, shut at once (see [`ConnSlot`]).
fn count_connection(
    io: &dyn std::any::Any,
    extensions: &mut actix_web::dev::Extensions,
    counts: &Arc<ConnCounts>,
    limits: &LimitsConfig,
) {
    let Some(tcp) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
        return;
    };
    let ip = IpKey::of(
        tcp.peer_addr()
            .map(|a| a.ip())
            .unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into()),
    );
    match admit(counts, ip, limits) {
        Some(slot) => {
            extensions.insert(slot);
        }
        None => {
            use std::os::fd::AsRawFd;
            // SAFETY: the socket is open and owned by this connection for the whole call;
            // shutdown only ends its traffic (the dispatcher then reads EOF and closes it).
            unsafe { libc::shutdown(tcp.as_raw_fd(), libc::SHUT_RDWR) };
        }
    }
}

/// Around every request, inside its span ([`RequestSpan`]), in order: the limits gate (which
/// verifies the bearer token once); the body deadline; the handler (or the refusal); a problem told again
/// in the asked language; the `x-request-id` header, the metrics and the access log.
fn around_request<S, B>(
    mut req: ServiceRequest,
    srv: &S,
) -> impl Future<Output = Result<ServiceResponse<BoxBody>, actix_web::Error>> + use<S, B>
where
    S: actix_web::dev::Service<
            ServiceRequest,
            Response = ServiceResponse<B>,
            Error = actix_web::Error,
        >,
    B: MessageBody + 'static,
{
    use futures_util::future::Either;
    let started = Instant::now();
    let Named {
        id: request_id,
        route,
    } = req
        .extensions()
        .get::<Named>()
        .cloned()
        .expect("RequestSpan names every request");
    let method = req.method().to_string();
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let (refused, heavy) = match state.as_ref().map(|s| gate(&req, s, &method, &route)) {
        Some(Err(refused)) => (Some(refused), None),
        Some(Ok(heavy)) => (None, heavy),
        None => (None, None),
    };
    let body_timed_out = match (&refused, &state) {
        (None, Some(state)) => state
            .limits
            .config
            .body_timeout
            .map(|limit| body_deadline(&mut req, limit)),
        _ => None,
    };
    let next = match refused {
        Some((error, close)) => Either::Left(refuse(req, error, close)),
        None => Either::Right(srv.call(req)),
    };
    async move {
        let res = match next {
            Either::Left(refused) => refused.await,
            Either::Right(call) => call.await?.map_into_boxed_body(),
        };
        // A heavy request holds its caller's slot until its answer is made.
        drop(heavy);
        let res = if body_timed_out.is_some_and(|fired| fired.get()) {
            // Whatever the extractor made of the cut body, the answer is a 408 (and the
            // connection closes: `ApiError::Timeout`).
            let request = res.request().clone();
            let timeout = ApiError::Timeout(says("errors.body_timeout"));
            ServiceResponse::new(request, timeout.error_response())
        } else {
            res
        };
        let mut res = crate::i18n::localize(res, state.as_ref().map(|s| s.get_ref())).await;
        if state.as_ref().is_some_and(|s| s.drain.is_draining()) {
            // Draining: nobody keeps a connection to this instance (issue 29).
            res.response_mut()
                .head_mut()
                .set_connection_type(ConnectionType::Close);
        }
        Ok(served(
            res,
            &request_id,
            state.as_ref().map(|s| s.get_ref()),
            (&method, &route, started),
        ))
    }
}

/// The request's id: its own `x-request-id` when sane, else tracing-actix-web's (a UUID v4,
/// written as 32 hex digits).
fn request_id(req: &ServiceRequest) -> String {
    let own = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .map(String::from);
    own.unwrap_or_else(|| {
        let made = req
            .extensions()
            .get::<tracing_actix_web::RequestId>()
            .copied();
        made.map_or_else(uuid::Uuid::new_v4, Into::into)
            .simple()
            .to_string()
    })
}

/// The answer to a request the gate refused. It is sent after min(Retry-After, 1 s): a client
/// that floods and waits for its answers slows to one request per second per connection
/// instead of spinning on instant 429s (the wait costs a timer, not a worker).
async fn refuse(req: ServiceRequest, error: ApiError, close: bool) -> ServiceResponse<BoxBody> {
    let mut response = error.error_response();
    if close {
        response
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    let tarpit = match &error {
        ApiError::TooManyRequests { retry_after } | ApiError::Busy { retry_after } => {
            Duration::from_secs((*retry_after).min(1))
        }
        _ => Duration::ZERO,
    };
    tokio::time::sleep(tarpit).await;
    req.into_response(response)
}

/// A served request: its id in the answer, its metrics and its access log line.
fn served(
    mut res: ServiceResponse<BoxBody>,
    request_id: &str,
    state: Option<&AppState>,
    (method, route, started): (&str, &str, Instant),
) -> ServiceResponse<BoxBody> {
    if let Ok(value) = HeaderValue::from_str(request_id) {
        res.headers_mut()
            .insert(header::HeaderName::from_static("x-request-id"), value);
    }
    let status = res.status().as_u16();
    let seconds = started.elapsed().as_secs_f64();
    if let Some(state) = state {
        state.metrics.observe(method, route, status, seconds);
    }
    tracing::info!(status, ms = seconds * 1000.0, "served");
    res
}

/// Checks a request against the limits before it reaches a handler, verifying its bearer
/// token once (the extractor reads the result back). `Err((error, close the connection))`;
/// a heavy request is admitted with the slot it holds until answered.
fn gate(
    req: &ServiceRequest,
    state: &AppState,
    method: &str,
    route: &str,
) -> Result<Option<HeavySlot>, (ApiError, bool)> {
    if let Some(slot) = req.conn_data::<ConnSlot>()
        && let Some(refusal) = slot.refused
    {
        return Err((refusal.into(), true));
    }
    let limits = &state.limits;
    let ip = crate::limits::client_ip(req.request());
    limits.request_from_ip(ip).map_err(|r| (r.into(), false))?;
    let user = if req.headers().contains_key(header::AUTHORIZATION) {
        let verified = crate::auth::verify_request(req.request(), &state.jwt);
        let user = verified.as_ref().ok().map(|u| u.id);
        req.extensions_mut().insert(Verified(verified));
        user
    } else {
        None
    };
    if let Some(user) = user {
        limits
            .request_from_user(user.0)
            .map_err(|r| (r.into(), false))?;
    }
    route_limit(limits, method, route, ip, user).map_err(|r| (r.into(), false))?;
    if !crate::limits::is_heavy(method, route) {
        return Ok(None);
    }
    limits
        .heavy(ip, user.map(|u| u.0))
        .map(Some)
        .map_err(|r| (r.into(), false))
}

/// The limits of the routes that create something (issue 11, item 7), checked before the body
/// is read: new accounts and login attempts per IP, new games per IP and per user.
fn route_limit(
    limits: &Limits,
    method: &str,
    route: &str,
    ip: IpKey,
    user: Option<UserId>,
) -> Result<(), Refusal> {
    match (method, route) {
        ("POST", "/v1/auth/guest" | "/v1/auth/register") => limits.new_account(ip),
        ("POST", "/v1/auth/login") => limits.login(ip),
        // Without a valid token the handler answers 401 and creates nothing.
        ("POST", "/v1/games") => match user {
            Some(user) => limits.new_game(ip, user.0),
            None => Ok(()),
        },
        // Invite codes are short: lookups are what must stay scarce (issue 18).
        ("POST", "/v1/games/join") => match user {
            Some(user) => limits.join_code(ip, user.0),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Cuts the request body off `limit` after the head arrived (a body sent one byte at a time
/// would hold the connection for ever). The flag tells the middleware to answer 408.
fn body_deadline(req: &mut ServiceRequest, limit: Duration) -> std::rc::Rc<std::cell::Cell<bool>> {
    use actix_web::dev::Payload;
    let fired = std::rc::Rc::new(std::cell::Cell::new(false));
    let payload = req.take_payload();
    if matches!(payload, Payload::None) {
        return fired;
    }
    let deadline = tokio::time::Instant::now() + limit;
    let stream = BodyDeadline {
        inner: payload,
        timer: Box::pin(tokio::time::sleep_until(deadline)),
        deadline,
        fired: fired.clone(),
    };
    let boxed: std::pin::Pin<
        Box<
            dyn futures_util::Stream<
                    Item = Result<actix_web::web::Bytes, actix_web::error::PayloadError>,
                >,
        >,
    > = Box::pin(stream);
    req.set_payload(Payload::from(boxed));
    fired
}

struct BodyDeadline {
    inner: actix_web::dev::Payload,
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    deadline: tokio::time::Instant,
    fired: std::rc::Rc<std::cell::Cell<bool>>,
}

impl futures_util::Stream for BodyDeadline {
    type Item = Result<actix_web::web::Bytes, actix_web::error::PayloadError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let timed_out = || {
            Poll::Ready(Some(Err(actix_web::error::PayloadError::Io(
                std::io::Error::new(std::io::ErrorKind::TimedOut, "request body timeout"),
            ))))
        };
        if self.fired.get() {
            return Poll::Ready(None);
        }
        // Checked before reading, so a steady trickle cannot outrun the deadline.
        if tokio::time::Instant::now() >= self.deadline {
            self.fired.set(true);
            return timed_out();
        }
        match std::pin::Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Pending => {
                if std::future::Future::poll(self.timer.as_mut(), cx).is_ready() {
                    self.fired.set(true);
                    return timed_out();
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

/// No route matched: 405 (with `Allow`) when the path exists for other methods, else 404.
async fn unmatched(req: actix_web::HttpRequest) -> HttpResponse {
    let allowed = crate::openapi::methods_for(req.path());
    if allowed.is_empty() {
        return ApiError::NotFound(says("errors.no_such_route")).error_response();
    }
    let mut response = HttpResponse::MethodNotAllowed();
    response.insert_header((header::ALLOW, allowed.join(", ")));
    let says = says("errors.method_not_allowed")
        .arg("method", req.method().as_str())
        .arg("allowed", allowed.join(", "));
    Problem::new(
        actix_web::http::StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "Method not allowed",
        "",
    )
    .saying(says)
    .respond(response)
}

fn json_error(err: actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as E;
    match err {
        E::OverflowKnownLength { .. } | E::Overflow { .. } => ApiError::PayloadTooLarge(
            says("errors.body_too_large").arg("max_bytes", MAX_BODY_BYTES),
        ),
        E::ContentType => ApiError::BadRequest(says("errors.expected_json_body")),
        // serde's and actix's words: English, and said to be.
        E::Deserialize(e) if e.is_data() => {
            ApiError::Invalid(says("errors.invalid_body").arg("detail", e.to_string()))
        }
        E::Deserialize(e) => {
            ApiError::BadRequest(says("errors.malformed_json").arg("detail", e.to_string()))
        }
        other => {
            ApiError::BadRequest(says("errors.unreadable_body").arg("detail", other.to_string()))
        }
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
        .get::<Named>()
        .map(|named| named.id.clone());
    let (slug, title) = match status.as_u16() {
        404 => ("not-found", "Not found"),
        405 => ("method-not-allowed", "Method not allowed"),
        413 => ("payload-too-large", "Payload too large"),
        415 => ("unsupported-media-type", "Unsupported media type"),
        s if s >= 500 => ("internal", "Internal error"),
        _ => ("bad-request", "Bad request"),
    };
    let problem = Problem {
        instance: request_id,
        ..Problem::new(status, slug, title, "")
    };
    // The framework's reason phrase, when it says more than the title (it is English).
    let reason = status.canonical_reason().unwrap_or("error");
    let problem = if reason.eq_ignore_ascii_case(title) {
        problem
    } else {
        problem.saying(says("errors.http_reason").arg("reason", reason))
    };
    let (req, old) = res.into_parts();
    let mut response = HttpResponse::build(status);
    for (name, value) in old.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            response.insert_header((name.clone(), value.clone()));
        }
    }
    let response = problem.respond(response);
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(req, response).map_into_right_body(),
    ))
}

pub fn local_addr(listener: &TcpListener) -> SocketAddr {
    listener
        .local_addr()
        .expect("a bound listener has an address")
}
