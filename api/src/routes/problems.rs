//! Every problem `type` URI (`/problems/{slug}`) resolves to a page describing it (issue 19):
//! what it means and what a client does about it, in the language `Accept-Language` asks for
//! (issue 18; English by default), from the message catalogue.

use crate::error::{ApiError, ApiResult, Problem};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use domain::i18n::{self, Lang};

/// Every problem type: (slug, status). Its title, sentence and page text are the catalogue's
/// (`problems.<slug>` in `domain/i18n/{en,fr}.json`, issue 18).
pub const PROBLEMS: &[(&str, u16)] = &[
    ("bad-request", 400),
    ("unauthorized", 401),
    ("forbidden", 403),
    ("not-found", 404),
    ("method-not-allowed", 405),
    ("request-timeout", 408),
    ("version-conflict", 409),
    ("payload-too-large", 413),
    ("unsupported-media-type", 415),
    ("invalid-request", 422),
    ("rule-violation", 422),
    ("rate-limited", 429),
    ("quota-exceeded", 429),
    ("internal", 500),
    ("unavailable", 503),
    ("at-capacity", 503),
];

/// `text` as HTML: escaped, with its `code` spans shown as code.
fn html(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let mut out = String::with_capacity(escaped.len());
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

/// The words of the pages around the catalogue's texts.
struct Words {
    index_title: &'static str,
    index_intro: &'static str,
    status: &'static str,
    all: &'static str,
}

fn words(lang: Lang) -> Words {
    match lang {
        Lang::En => Words {
            index_title: "Problem types",
            index_intro: "Errors are RFC 9457 <code>application/problem+json</code>; their <code>type</code> is one of these.",
            status: "HTTP status",
            all: "All problem types",
        },
        Lang::Fr => Words {
            index_title: "Types de problème",
            index_intro: "Les erreurs sont des <code>application/problem+json</code> (RFC 9457) ; leur <code>type</code> est l'un de ceux-ci.",
            status: "Statut HTTP",
            all: "Tous les types de problème",
        },
    }
}

fn page(lang: Lang, title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_LANGUAGE, lang.tag()))
        .insert_header((header::VARY, "accept-language"))
        .body(format!(
            "<!doctype html><html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
             <body>{body}</body></html>",
            lang.tag()
        ))
}

/// The language of a page: `Accept-Language`, else English.
fn lang_of(req: &HttpRequest) -> Lang {
    crate::i18n::requested(req).unwrap_or_default()
}

/// Every problem type this server answers with.
#[utoipa::path(tag = "ops",
    params(("accept-language" = Option<String>, Header, description = "`fr` for French, else English")),
    responses((status = 200, content_type = "text/html", body = String)))]
#[get("/problems")]
pub async fn index(req: HttpRequest) -> HttpResponse {
    let lang = lang_of(&req);
    let words = words(lang);
    let items: String = PROBLEMS
        .iter()
        .filter_map(|(slug, status)| {
            let text = i18n::problem(slug, lang)?;
            Some(format!(
                "<li><a href=\"/problems/{slug}\">{}</a> ({status})</li>",
                html(&text.title)
            ))
        })
        .collect();
    page(
        lang,
        words.index_title,
        &format!(
            "<h1>{}</h1><p>{}</p><ul>{items}</ul>",
            words.index_title, words.index_intro
        ),
    )
}

/// The page describing one problem type (the target of a problem's `type` URI).
#[utoipa::path(tag = "ops",
    params(("slug" = String, Path),
        ("accept-language" = Option<String>, Header, description = "`fr` for French, else English")),
    responses((status = 200, content_type = "text/html", body = String), (status = 404, body = Problem)))]
#[get("/problems/{slug}")]
pub async fn problem(req: HttpRequest, slug: web::Path<String>) -> ApiResult<HttpResponse> {
    let lang = lang_of(&req);
    let found = PROBLEMS
        .iter()
        .find(|p| p.0 == slug.as_str())
        .and_then(|(slug, status)| Some((slug, status, i18n::problem(slug, lang)?)));
    let Some((slug, status, text)) = found else {
        return Err(ApiError::NotFound(i18n::says(
            "errors.no_such_problem_type",
        )));
    };
    let words = words(lang);
    let title = html(&text.title);
    let what = html(text.page.as_deref().unwrap_or(&text.detail));
    Ok(page(
        lang,
        &title,
        &format!(
            "<h1>{title}</h1><p>{} {status}; <code>type</code>: \
             <code>/problems/{slug}</code>.</p><p>{what}</p><p><a href=\"/problems\">{}</a></p>",
            words.status, words.all
        ),
    ))
}
