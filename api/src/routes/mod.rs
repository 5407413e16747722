pub mod audit;
pub mod auth;
pub mod board;
pub mod check;
pub mod games;
pub mod inbox;
pub mod invites;
pub mod me;
pub mod ops;
pub mod problems;
pub mod seats;
pub mod tickets;

use utoipa_actix_web::service_config::ServiceConfig;

/// Every route, listed once: the server registers this list ([`configure`]) and the OpenAPI
/// document takes its paths from it ([`document`]). A handler's actix attribute
/// (`#[get("/v1/...")]`) gives its method and path to both, its `#[utoipa::path]` the rest; a
/// handler without one does not compile here. Routes are matched in order: the hot paths of a
/// game in play come first.
fn routes(cfg: &mut ServiceConfig) {
    cfg.service(games::send_command)
        .service(check::check_command)
        .service(games::prompts)
        // Before `/v1/games/{id}`, which would otherwise match it (and name its route).
        .service(invites::join_by_code)
        .service(games::get_game)
        .service(auth::register)
        .service(auth::login)
        .service(auth::guest)
        .service(auth::refresh)
        .service(auth::logout)
        .service(auth::me)
        .service(auth::update_me)
        .service(inbox::inbox)
        .service(invites::rematch)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::join_game)
        .service(games::leave_game)
        .service(games::start_game)
        .service(seats::add_bot)
        .service(seats::resign)
        .service(seats::cancel_game)
        .service(tickets::issue)
        .service(me::add_webhook)
        .service(me::list_webhooks)
        .service(me::delete_webhook)
        .service(me::add_push_subscription)
        .service(me::delete_push_subscription)
        .service(me::notifications)
        .service(me::notification_stream)
        .service(me::vapid_public_key)
        .service(games::stream)
        .service(games::events)
        .service(games::state_at)
        .service(audit::export)
        .service(audit::audit)
        .service(audit::audit_move)
        .service(audit::open_dispute)
        .service(audit::get_dispute)
        .service(audit::resolve_dispute)
        .service(board::board_svg)
        .service(board::dispute_board_svg)
        .service(board::replay)
        .service(board::page_session)
        // The page's assets (not API operations, so not in the document) before the page,
        // whose `{id}` would match them.
        .map(|cfg| cfg.service(board::page_script).service(board::page_style))
        .service(board::page)
        .service(ops::healthz)
        .service(ops::readyz)
        .service(ops::metrics)
        .service(ops::openapi_json)
        .service(ops::docs)
        // The docs page's script: an asset, not in the document.
        .map(|cfg| cfg.service(ops::docs_script))
        .service(problems::index)
        .service(problems::problem);
}

/// Registers every route on the server.
pub fn configure(cfg: &mut actix_web::web::ServiceConfig) {
    routes(&mut ServiceConfig::new(cfg));
}

/// `base` (info, components, tags) with the paths of every route, and the schemas their
/// handlers name, collected from the same list the server registers.
pub fn document(base: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let (_, document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(base)
        .configure(routes)
        .split_for_parts();
    document
}
