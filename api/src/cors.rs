//! CORS for browser and hybrid-app clients (issue 19): only the origins configured in
//! `HOMESTRETCH_CORS_ORIGINS` (comma-separated, e.g. `https://play.example.com`; default none)
//! get CORS headers and answered preflights. A request from another origin is served as usual
//! without them, so the browser, not the server, refuses it (non-browser clients are unaffected).

use actix_cors::Cors;
use actix_web::http::{Method, header};

/// The configured origins (`HOMESTRETCH_CORS_ORIGINS`, read once by the CLI's settings):
/// comma-separated, empty entries ignored.
pub fn parse(text: &str) -> Vec<String> {
    text.split(',')
        .map(|o| o.trim().trim_end_matches('/').to_string())
        .filter(|o| !o.is_empty())
        .collect()
}

/// The CORS middleware for `origins`.
pub fn cors(origins: &[String]) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::ACCEPT_LANGUAGE,
            header::IF_MATCH,
            header::IF_NONE_MATCH,
            header::HeaderName::from_static("idempotency-key"),
            header::HeaderName::from_static("last-event-id"),
        ])
        // What a client reads from answers: versions, new resources, pages, back-off, auth.
        .expose_headers([
            header::ETAG,
            header::LOCATION,
            header::LINK,
            header::RETRY_AFTER,
            header::WWW_AUTHENTICATE,
            header::HeaderName::from_static("x-request-id"),
        ])
        .max_age(600)
        .block_on_origin_mismatch(false);
    for origin in origins {
        cors = cors.allowed_origin(origin);
    }
    cors
}

#[cfg(test)]
mod tests {
    #[test]
    fn origins_are_comma_separated_and_trimmed() {
        assert_eq!(
            super::parse(" https://a.example , https://b.example/,,"),
            vec!["https://a.example", "https://b.example"]
        );
        assert!(super::parse("").is_empty());
    }
}
