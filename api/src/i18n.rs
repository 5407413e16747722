//! The language of an answer (issue 18): the request's `Accept-Language` when it names one,
//! else the account's stored preference (`language` on `/v1/me`), else English. The explicit
//! header wins for that one request: it is what the client asks for now (a shared device, a
//! test, a web page in another language), and it keeps an answer a function of its request.
//! Notifications, which have no request, use the stored preference.
//!
//! Every problem+json answer is built in English by `Problem::respond`, which keeps the problem
//! in the response's extensions; [`localize`] (the request middleware's last step) tells it
//! again in the caller's language.

use crate::auth::Verified;
use crate::error::{Problem, retry_after_of};
use crate::state::AppState;
use actix_web::body::BoxBody;
use actix_web::dev::ServiceResponse;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpMessage, HttpRequest};
use domain::i18n::Lang;

/// The language the request's `Accept-Language` header asks for, if it names any.
pub fn requested(req: &HttpRequest) -> Option<Lang> {
    req.headers()
        .get(header::ACCEPT_LANGUAGE)?
        .to_str()
        .ok()
        .and_then(Lang::from_accept_language)
}

/// The language to answer `req` in: the header, else the signed-in caller's stored preference,
/// else English. `lookup` false skips the database (answers that shed load: 429, 503).
pub async fn language(req: &HttpRequest, state: Option<&AppState>, lookup: bool) -> Lang {
    if let Some(lang) = requested(req) {
        return lang;
    }
    let user = req
        .extensions()
        .get::<Verified>()
        .and_then(|v| v.0.as_ref().ok().map(|u| u.id));
    match (user, state) {
        (Some(user), Some(state)) if lookup => state
            .accounts
            .language(user)
            .await
            .ok()
            .flatten()
            .unwrap_or_default(),
        _ => Lang::default(),
    }
}

/// `res` told in the caller's language, when it is a problem (anything else passes unchanged).
pub async fn localize(
    mut res: ServiceResponse<BoxBody>,
    state: Option<&AppState>,
) -> ServiceResponse<BoxBody> {
    let Some(problem) = res.response().extensions().get::<Problem>().cloned() else {
        return res;
    };
    res.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-language"));
    // Shedding load must not cost a query: a refused request gets the header's language only.
    let lookup = !matches!(problem.status, 429 | 503);
    let lang = language(res.request(), state, lookup).await;
    if lang == Lang::En {
        return res; // built in English already
    }
    let retry_after = retry_after_of(res.headers());
    let body = problem.localized(lang, retry_after).to_json();
    res.headers_mut().insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(lang.tag()),
    );
    res.map_body(|_, _| BoxBody::new(body))
}
