//! Every problem `type` URI (`/problems/{slug}`) resolves to a page describing it (issue 19):
//! what it means and what a client does about it.

use crate::error::{ApiError, ApiResult, Problem};
use actix_web::{HttpResponse, get, web};

/// (slug, status, title, what it means and what to do).
pub const PROBLEMS: &[(&str, u16, &str, &str)] = &[
    (
        "bad-request",
        400,
        "Bad request",
        "The request could not be read: malformed JSON, a bad header (`Idempotency-Key` must be a UUID, `If-Match` a version ETag, `Last-Event-ID` a seq). Fix the request; retrying it unchanged fails again.",
    ),
    (
        "unauthorized",
        401,
        "Unauthorized",
        "No valid access token: missing, malformed, expired or revoked (see `WWW-Authenticate`). Refresh with `POST /v1/auth/refresh`, or sign in again.",
    ),
    (
        "forbidden",
        403,
        "Forbidden",
        "Authenticated but not allowed: not seated in this game, not its host, or an admin-only operation.",
    ),
    (
        "not-found",
        404,
        "Not found",
        "No such resource (a game, a dispute, a route) — or one the caller may not know exists.",
    ),
    (
        "method-not-allowed",
        405,
        "Method not allowed",
        "The route exists but not with this method; the `Allow` header lists the methods it has.",
    ),
    (
        "request-timeout",
        408,
        "Request timeout",
        "The request body did not arrive in time (10 s by default); the connection is closed. Send it again.",
    ),
    (
        "version-conflict",
        409,
        "Version conflict",
        "`expected_version` (or `If-Match`) is stale: someone moved meanwhile. `current_version` is the game's version: refresh the prompts, decide again, resend.",
    ),
    (
        "payload-too-large",
        413,
        "Payload too large",
        "The body is over 64 KiB.",
    ),
    (
        "unsupported-media-type",
        415,
        "Unsupported media type",
        "Send JSON bodies (`Content-Type: application/json`).",
    ),
    (
        "invalid-request",
        422,
        "Invalid request",
        "The request is well-formed but invalid: an unknown field, a value out of range, a command that does not parse, a command id reused with another body. `detail` says which.",
    ),
    (
        "rule-violation",
        422,
        "Rule violation",
        "The command breaks a rule of the game; `rule` names it (e.g. `WR-019`, see the game's rules document). `POST /v1/games/{id}/commands/check` answers the same without sending; `choices` in the prompts list exactly what is legal.",
    ),
    (
        "rate-limited",
        429,
        "Too many requests",
        "This client is over a rate limit; wait `Retry-After` seconds.",
    ),
    (
        "internal",
        500,
        "Internal error",
        "A server fault, logged with the request id (`instance`, `x-request-id`). Nothing was partially written; retry later or report it.",
    ),
    (
        "unavailable",
        503,
        "Service unavailable",
        "The database is unavailable; retry after `Retry-After` seconds.",
    ),
    (
        "at-capacity",
        503,
        "Server at capacity",
        "The server is full (connections or streams); retry after `Retry-After` seconds.",
    ),
];

fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
             <body>{body}</body></html>"
        ))
}

/// Every problem type this server answers with.
#[utoipa::path(get, path = "/problems", tag = "ops", responses((status = 200, content_type = "text/html", body = String)))]
#[get("/problems")]
pub async fn index() -> HttpResponse {
    let items: String = PROBLEMS
        .iter()
        .map(|(slug, status, title, _)| {
            format!("<li><a href=\"/problems/{slug}\">{title}</a> ({status})</li>")
        })
        .collect();
    page(
        "Problem types",
        &format!(
            "<h1>Problem types</h1><p>Errors are RFC 9457 <code>application/problem+json</code>; \
             their <code>type</code> is one of these.</p><ul>{items}</ul>"
        ),
    )
}

/// The page describing one problem type (the target of a problem's `type` URI).
#[utoipa::path(get, path = "/problems/{slug}", tag = "ops", params(("slug" = String, Path)),
    responses((status = 200, content_type = "text/html", body = String), (status = 404, body = Problem)))]
#[get("/problems/{slug}")]
pub async fn problem(slug: web::Path<String>) -> ApiResult<HttpResponse> {
    let Some((slug, status, title, text)) = PROBLEMS.iter().find(|p| p.0 == slug.as_str()) else {
        return Err(ApiError::NotFound("no such problem type".into()));
    };
    Ok(page(
        title,
        &format!(
            "<h1>{title}</h1><p>HTTP status {status}; <code>type</code>: \
             <code>/problems/{slug}</code>.</p><p>{text}</p><p><a href=\"/problems\">All problem types</a></p>"
        ),
    ))
}
