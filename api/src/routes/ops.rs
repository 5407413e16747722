//! Operations: liveness, readiness, metrics, the OpenAPI document and the docs page.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: String,
}

/// Liveness: the process answers.
#[utoipa::path(tag = "ops", responses((status = 200, body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
    })
}

/// Readiness: the database answers and the instance is not draining (503 problem+json when
/// it is: SIGTERM received, issue 29, or the database does not answer).
#[utoipa::path(tag = "ops",
    responses((status = 200, body = Health), (status = 503, body = crate::error::Problem)))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    if state.drain.is_draining() {
        return Err(ApiError::Unavailable(
            "draining: this instance is stopping".into(),
        ));
    }
    let ping = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        state.services.lobby.ping(),
    )
    .await;
    match ping {
        Ok(Ok(())) => Ok(HttpResponse::Ok().json(Health {
            status: "ready".into(),
        })),
        Ok(Err(e)) => Err(ApiError::Unavailable(e.to_string())),
        Err(_) => Err(ApiError::Unavailable("database ping timed out".into())),
    }
}

/// Prometheus metrics.
#[utoipa::path(tag = "ops", responses((status = 200, content_type = "application/openmetrics-text", body = String)))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(crate::metrics::CONTENT_TYPE)
        .body(state.metrics.render(&state.services, &state.hub))
}

/// This API's OpenAPI 3.1 document.
#[utoipa::path(tag = "ops", responses((status = 200, content_type = "application/json", body = Object)))]
#[get("/openapi.json")]
pub async fn openapi_json(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(state.openapi.as_str().to_owned())
}

/// What the docs page may load: this server's script, styles and the spec, nothing else (no
/// web font, no other host).
const DOCS_POLICY: &str =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:";

// RapiDoc (navigable schemas, try-it-out, code samples); its script is compiled in
// (`api/src/docs/`). The doc comment below is the spec's summary.
/// Human-readable API docs, served entirely by this server (no other host is contacted).
#[utoipa::path(tag = "ops", responses((status = 200, content_type = "text/html", body = String)))]
#[get("/docs")]
pub async fn docs() -> HttpResponse {
    let page = utoipa_rapidoc::RapiDoc::new("/openapi.json")
        .custom_html(include_str!("../docs/rapidoc.html"))
        .to_html();
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("content-security-policy", DOCS_POLICY))
        .body(page)
}

/// The docs page's script (an asset, not part of the API: left out of the spec).
#[get("/docs/rapidoc-min.js")]
pub async fn docs_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=86400"))
        .insert_header(("content-security-policy", DOCS_POLICY))
        .body(include_str!("../docs/rapidoc-min.js"))
}
