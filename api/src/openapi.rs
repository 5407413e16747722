//! The OpenAPI 3.1 document, generated from the handlers and types (no database needed).

use crate::error::Problem;
use crate::routes::{audit, auth, games, ops};
use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Homestretch",
        description = "Event-sourced game server for Scottish Highland Whisky Race, Même les bandits veulent rentrer chez eux, and Mush. \
                       Errors are RFC 9457 problem+json; rule violations carry the violated rule ID in `rule`.",
        license(name = "MIT")
    ),
    paths(
        auth::register, auth::login, auth::guest, auth::refresh, auth::me,
        games::create_game, games::list_games, games::join_game, games::leave_game, games::start_game,
        games::get_game, games::prompts, games::send_command, games::events, games::stream, games::state_at,
        audit::export, audit::audit, audit::audit_move, audit::open_dispute, audit::get_dispute, audit::resolve_dispute,
        ops::healthz, ops::readyz, ops::metrics, ops::openapi_json, ops::docs,
    ),
    components(schemas(Problem, domain::Prompt, domain::Outcome, domain::Seat)),
    modifiers(&Security, &GameSchemas),
    tags(
        (name = "auth", description = "Accounts and tokens"),
        (name = "games", description = "Lobby, commands, views and event feeds"),
        (name = "replay", description = "Replay and audit"),
        (name = "ops", description = "Health, metrics and documentation"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

/// Each game's commands, events, options and views, under game-prefixed names.
struct GameSchemas;

fn add<T: ToSchema>(openapi: &mut utoipa::openapi::OpenApi, name: &str) {
    let components = openapi.components.get_or_insert_with(Default::default);
    components.schemas.insert(name.to_string(), T::schema());
    let mut dependencies = Vec::new();
    T::schemas(&mut dependencies);
    for (dependency, schema) in dependencies {
        components.schemas.entry(dependency).or_insert(schema);
    }
}

impl Modify for GameSchemas {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use domain::whisky_race as w;
        add::<w::Command>(openapi, "WhiskyRaceCommand");
        add::<w::Event>(openapi, "WhiskyRaceEvent");
        add::<w::Options>(openapi, "WhiskyRaceOptions");
        add::<w::View>(openapi, "WhiskyRaceView");
    }
}

/// The document as pretty JSON (what `openapi/openapi.json` holds).
pub fn spec_json() -> &'static str {
    static SPEC: OnceLock<String> = OnceLock::new();
    SPEC.get_or_init(|| {
        let mut text = ApiDoc::openapi()
            .to_pretty_json()
            .expect("the OpenAPI document serializes");
        text.push('\n');
        text
    })
}
