//! The OpenAPI 3.1 document, generated from the handlers and types (no database needed).

use crate::error::Problem;
use domain::Registry;
use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, schema::Schema};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Homestretch",
        description = "Event-sourced game server for Scottish Highland Whisky Race, Même les bandits veulent rentrer chez eux, and Mush. \
                       Errors are RFC 9457 problem+json; rule violations carry the violated rule ID in `rule`.",
        license(name = "MIT")
    ),
    components(schemas(Problem, domain::Prompt, domain::Outcome, domain::Seat, domain::choices::Family)),
    modifiers(&Security),
    tags(
        (name = "auth", description = "Accounts and tokens"),
        (name = "games", description = "Lobby, commands, views and event feeds"),
        (name = "replay", description = "Replay and audit"),
        (name = "notifications", description = "Webhooks, Web Push and the app's notification stream"),
        (name = "ops", description = "Health, metrics and documentation"),
    )
)]
struct ApiDoc;

/// The document without the games: [`ApiDoc`] with the paths of every route, from the route
/// list itself (`routes::document`), each response described.
fn document() -> utoipa::openapi::OpenApi {
    let mut document = crate::routes::document(ApiDoc::openapi());
    Descriptions.modify(&mut document);
    document
}

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

/// OpenAPI requires a description on every response: default to the status's reason phrase.
struct Descriptions;

impl Modify for Descriptions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{Content, Ref, ResponseBuilder};
        let problem = || -> RefOr<utoipa::openapi::Response> {
            RefOr::T(
                ResponseBuilder::new()
                    .description("Problem")
                    .content(
                        PROBLEM,
                        Content::new(Some(Ref::from_schema_name("Problem"))),
                    )
                    .build(),
            )
        };
        for (path, item) in openapi.paths.paths.iter_mut() {
            let is_api = path.starts_with("/v1/");
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
                &mut item.patch,
            ]
            .into_iter()
            .flatten()
            {
                let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
                let has_body = operation.request_body.is_some();
                let responses = &mut operation.responses.responses;
                // Errors every API route can answer, always as problem+json.
                if is_api {
                    let mut common = vec!["400", "422", "429", "500", "503"];
                    if secured {
                        common.push("401");
                    }
                    if has_body {
                        // 408: the body did not arrive within the body read timeout.
                        common.extend(["408", "413"]);
                    }
                    if path.contains('{') {
                        common.push("404");
                    }
                    for status in common {
                        responses.entry(status.to_string()).or_insert_with(problem);
                    }
                }
                for (status, response) in responses.iter_mut() {
                    let RefOr::T(response) = response else {
                        continue;
                    };
                    if response.description.is_empty() {
                        response.description = status
                            .parse::<u16>()
                            .ok()
                            .and_then(|code| actix_web::http::StatusCode::from_u16(code).ok())
                            .and_then(|code| code.canonical_reason())
                            .unwrap_or("Response")
                            .to_string();
                    }
                    // Error bodies are served as application/problem+json.
                    if (status.starts_with('4') || status.starts_with('5'))
                        && let Some(content) = response.content.shift_remove("application/json")
                    {
                        response.content.insert(PROBLEM.to_string(), content);
                    }
                }
            }
        }
    }
}

const PROBLEM: &str = "application/problem+json";

/// One game's schemas: its four top-level types under game-prefixed names, and their
/// dependencies, renamed with the prefix when another game already uses the name for another
/// type (two games both have a `PlayerView`, say), with every `$ref` rewritten to match.
struct GameSet {
    prefix: String,
    schemas: Vec<(String, serde_json::Value)>,
    dependencies: Vec<(String, serde_json::Value)>,
}

impl GameSet {
    /// A game's set, prefixed with its kind in CamelCase (`whisky_race` → `WhiskyRace`).
    fn of(game: &dyn domain::AnyGame) -> Self {
        let prefix = crate::spec_typing::pascal(game.kind());
        let json = |s: &RefOr<Schema>| serde_json::to_value(s).expect("schemas serialize");
        let schemas = game.schemas();
        GameSet {
            schemas: schemas
                .roles
                .iter()
                .map(|(role, schema)| (format!("{prefix}{role}"), json(schema)))
                .collect(),
            dependencies: schemas
                .dependencies
                .iter()
                .map(|(name, schema)| (name.clone(), json(schema)))
                .collect(),
            prefix,
        }
    }
    fn install(self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut renames = Vec::new();
        for (name, schema) in &self.dependencies {
            let clash = components.schemas.get(name).is_some_and(|existing| {
                serde_json::to_value(existing).ok().as_ref() != Some(schema)
            });
            if clash {
                renames.push((name.clone(), format!("{}{name}", self.prefix)));
            }
        }
        let rewrite = |mut value: serde_json::Value| {
            rewrite_refs(&mut value, &renames);
            serde_json::from_value::<RefOr<Schema>>(value).expect("schemas deserialize")
        };
        for (name, schema) in self.dependencies.iter().chain(&self.schemas) {
            let name = renames
                .iter()
                .find(|(old, _)| old == name)
                .map(|(_, new)| new.clone())
                .unwrap_or(name.clone());
            let schema = rewrite(schema.clone());
            if let Some(existing) = components.schemas.get(&name) {
                assert!(
                    serde_json::to_value(existing).ok() == serde_json::to_value(&schema).ok(),
                    "two different schemas are named `{name}`"
                );
            }
            components.schemas.insert(name, schema);
        }
    }
}

fn rewrite_refs(value: &mut serde_json::Value, renames: &[(String, String)]) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if key == "$ref"
                    && let Some(target) = inner.as_str()
                    && let Some(name) = target.strip_prefix("#/components/schemas/")
                    && let Some((_, new)) = renames.iter().find(|(old, _)| old == name)
                {
                    *inner = serde_json::Value::String(format!("#/components/schemas/{new}"));
                } else {
                    rewrite_refs(inner, renames);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| rewrite_refs(i, renames)),
        _ => {}
    }
}

/// The games of `registry` in `openapi`: each game's commands, events, options and views
/// under game-prefixed names, and `GameKind` as the enum of their kinds.
fn install_games(openapi: &mut utoipa::openapi::OpenApi, registry: &Registry) {
    for game in registry.games() {
        GameSet::of(*game).install(openapi);
    }
    let kinds = serde_json::json!({
        "type": "string",
        "description": "Hosted games.",
        "enum": registry.kinds(),
    });
    openapi
        .components
        .get_or_insert_with(Default::default)
        .schemas
        .insert(
            "GameKind".into(),
            serde_json::from_value(kinds).expect("the kind enum is a schema"),
        );
}

/// The document of a server hosting the games of `registry`, as pretty JSON (for the default
/// games, what `openapi/openapi.json` holds). A server builds it once, on the first request
/// for it (`AppState::openapi`).
pub fn spec_json(registry: &Registry) -> String {
    let mut doc = document();
    install_games(&mut doc, registry);
    let doc = serde_json::to_value(doc).expect("the OpenAPI document serializes");
    // Typed end to end: see `spec_typing`.
    let doc = crate::spec_typing::finish(doc, &registry.kinds());
    let mut text = serde_json::to_string_pretty(&doc).expect("the OpenAPI document serializes");
    text.push('\n');
    text
}

/// The methods the spec declares for a concrete request path (`/v1/games/abc` matches
/// `/v1/games/{id}`), upper-case.
pub fn methods_for(path: &str) -> Vec<String> {
    static ROUTES: OnceLock<Vec<(Vec<String>, Vec<String>)>> = OnceLock::new();
    let routes = ROUTES.get_or_init(|| {
        // The paths do not depend on the games hosted.
        let spec = serde_json::to_value(document()).expect("the spec serializes");
        spec["paths"]
            .as_object()
            .map(|paths| {
                paths
                    .iter()
                    .map(|(template, item)| {
                        let segments = template.split('/').map(String::from).collect();
                        let methods = item
                            .as_object()
                            .map(|m| m.keys().map(|k| k.to_uppercase()).collect())
                            .unwrap_or_default();
                        (segments, methods)
                    })
                    .collect()
            })
            .unwrap_or_default()
    });
    let parts: Vec<&str> = path.split('/').collect();
    let mut methods: Vec<String> = routes
        .iter()
        .filter(|(segments, _)| {
            segments.len() == parts.len()
                && segments
                    .iter()
                    .zip(&parts)
                    .all(|(s, p)| s.starts_with('{') || s == p)
        })
        .flat_map(|(_, methods)| methods.iter().cloned())
        .collect();
    methods.sort();
    methods.dedup();
    methods
}
