//! Post-processing of the generated OpenAPI document, so that a client generated from it is
//! typed end to end (issue 19). utoipa describes each game's types well but cannot say, from the
//! handlers, that a `command` is one of the games' commands, nor mark tagged enums as
//! discriminated unions; these passes say it, generically, on the JSON document:
//!
//! 1. [`hoist_tagged_unions`]: a `oneOf` whose inline branches all carry the same single-valued
//!    tag property (`type`, `phase`, …) gets each branch as a named component and a
//!    `discriminator` with its `mapping`.
//! 2. [`close_request_bodies`]: every object a request body can hold says
//!    `additionalProperties: false` (the server refuses unknown fields; utoipa does not emit it
//!    for enum variants).
//! 3. [`type_envelopes`]: the `command`, `legal`, event `data`, `view` and `options` fields point
//!    at the games' unions, and the game resource is polymorphic on `kind`.
//! 4. [`lint_fixes`]: public operations say `security: []`; the document names a server.

use serde_json::{Map, Value, json};

const REF: &str = "#/components/schemas/";

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("{REF}{name}") })
}

/// Runs every pass, in order, for a document hosting the games of `kinds`.
pub fn finish(mut doc: Value, kinds: &[&str]) -> Value {
    hoist_tagged_unions(&mut doc);
    type_envelopes(&mut doc, kinds);
    close_request_bodies(&mut doc);
    open_free_objects(&mut doc);
    lint_fixes(&mut doc);
    doc
}

/// A kind's schema prefix: `whisky_race` → `WhiskyRace`.
pub fn pascal(tag: &str) -> String {
    tag.split(['_', '-'])
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// The single value of a branch's tag property `key`, if the branch is an inline object that
/// requires it and allows exactly one value.
fn tag_value<'a>(branch: &'a Value, key: &str) -> Option<&'a str> {
    // A newtype variant (`allOf: [{$ref: Fight}, {stage: "fight"}]`): the tag is in a part.
    if let Some(parts) = branch.get("allOf").and_then(Value::as_array) {
        return parts.iter().find_map(|part| tag_value(part, key));
    }
    let required = branch.get("required")?.as_array()?;
    if !required.iter().any(|r| r == key) {
        return None;
    }
    let property = branch.get("properties")?.get(key)?;
    match property.get("enum").and_then(Value::as_array) {
        Some(values) if values.len() == 1 => values[0].as_str(),
        _ => property.get("const").and_then(Value::as_str),
    }
}

/// The tag property every branch of `branches` shares, if any.
fn shared_tag(branches: &[Value]) -> Option<String> {
    let first = branches.first()?;
    let parts = match first.get("allOf").and_then(Value::as_array) {
        Some(parts) => parts.iter().collect(),
        None => vec![first],
    };
    let candidates: Vec<&String> = parts
        .iter()
        .filter_map(|p| p.get("properties").and_then(Value::as_object))
        .flat_map(|props| props.keys())
        .collect();
    candidates
        .into_iter()
        .find(|key| {
            let mut seen = std::collections::HashSet::new();
            branches
                .iter()
                .all(|b| tag_value(b, key).is_some_and(|v| seen.insert(v.to_string())))
        })
        .cloned()
}

pub fn hoist_tagged_unions(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let names: Vec<String> = schemas.keys().cloned().collect();
    let mut added: Vec<(String, Value)> = Vec::new();
    for name in names {
        let schema = &schemas[&name];
        let Some(branches) = schema.get("oneOf").and_then(Value::as_array) else {
            continue;
        };
        if branches.iter().any(|b| b.get("$ref").is_some()) {
            continue;
        }
        let Some(tag) = shared_tag(branches) else {
            continue;
        };
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for branch in branches {
            let value = tag_value(branch, &tag).expect("every branch is tagged");
            let branch_name = format!("{name}{}", pascal(value));
            assert!(
                !schemas.contains_key(&branch_name)
                    && !added.iter().any(|(n, _)| *n == branch_name),
                "a hoisted union branch `{branch_name}` clashes with another schema"
            );
            let mut branch = branch.clone();
            if let Some(map) = branch.as_object_mut() {
                map.entry("title").or_insert_with(|| json!(branch_name));
            }
            mapping.insert(value.to_string(), json!(format!("{REF}{branch_name}")));
            refs.push(reference(&branch_name));
            added.push((branch_name, branch));
        }
        let schema = schemas.get_mut(&name).expect("present");
        schema["oneOf"] = Value::Array(refs);
        schema["discriminator"] = json!({ "propertyName": tag, "mapping": mapping });
    }
    for (name, schema) in added {
        schemas.insert(name, schema);
    }
}

/// Names of the schemas `node` refers to, transitively (the starting names included).
fn reachable(schemas: &Map<String, Value>, start: Vec<String>) -> Vec<String> {
    fn refs(node: &Value, out: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                for (key, inner) in map {
                    if key == "$ref"
                        && let Some(name) = inner.as_str().and_then(|r| r.strip_prefix(REF))
                    {
                        out.push(name.to_string());
                    } else {
                        refs(inner, out);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| refs(i, out)),
            _ => {}
        }
    }
    let mut seen: Vec<String> = Vec::new();
    let mut todo = start;
    while let Some(name) = todo.pop() {
        if seen.contains(&name) {
            continue;
        }
        if let Some(schema) = schemas.get(&name) {
            refs(schema, &mut todo);
        }
        seen.push(name);
    }
    seen
}

/// Closes every object schema inside `node` that lists its properties (nested inline objects
/// included), unless it already says what extra properties may be.
fn close_objects(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), json!(false));
            }
            for (key, inner) in map.iter_mut() {
                // An allOf part must stay open: the other parts add properties.
                if key != "allOf" {
                    close_objects(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

pub fn close_request_bodies(doc: &mut Value) {
    let mut start = Vec::new();
    if let Some(paths) = doc.get("paths").and_then(Value::as_object) {
        for item in paths.values() {
            for operation in item.as_object().into_iter().flat_map(|o| o.values()) {
                if let Some(content) = operation
                    .pointer("/requestBody/content")
                    .and_then(Value::as_object)
                {
                    for media in content.values() {
                        if let Some(name) = media
                            .pointer("/schema/$ref")
                            .and_then(Value::as_str)
                            .and_then(|r| r.strip_prefix(REF))
                        {
                            start.push(name.to_string());
                        }
                    }
                }
            }
        }
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for name in reachable(schemas, start) {
        if let Some(schema) = schemas.get_mut(&name) {
            close_objects(schema);
        }
    }
}

/// Each game's schema named `suffix` (`WhiskyRaceCommand`, …).
fn union_of(kinds: &[&str], suffix: &str) -> Vec<Value> {
    kinds
        .iter()
        .map(|kind| reference(&format!("{}{suffix}", pascal(kind))))
        .collect()
}

pub fn type_envelopes(doc: &mut Value, kinds: &[&str]) {
    let union_of = |suffix: &str| union_of(kinds, suffix);
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut set = |schema: &str, pointer: &str, value: Value| {
        let target = schemas
            .get_mut(schema)
            .and_then(|s| s.pointer_mut(pointer))
            .unwrap_or_else(|| panic!("{schema}{pointer} is in the spec"));
        let description = target.get("description").cloned();
        *target = value;
        if let (Some(description), Some(map)) = (description, target.as_object_mut()) {
            map.insert("description".into(), description);
        }
    };
    let commands = json!({ "anyOf": union_of("Command") });
    set("CommandBody", "/properties/command", commands.clone());
    set("CheckBody", "/properties/command", commands.clone());
    set("PromptsResponse", "/properties/legal/items", commands);
    let mut events = union_of("Event");
    events.push(reference("ServerSeedRevealed"));
    set("EventOut", "/properties/data", json!({ "anyOf": events }));
    set(
        "StateAt",
        "/properties/view",
        json!({ "anyOf": union_of("View") }),
    );
    let options = json!({ "anyOf": union_of("Options") });
    set("GameSummary", "/properties/options", options.clone());
    set("CreateGameRequest", "/properties/options", options);
    schemas.insert(
        "ServerSeedRevealed".into(),
        json!({
            "type": "object",
            "description": "The last event of a finished game (not a game event): the secret server seed, \
                            whose SHA-256 is the game's `seed_commitment`.",
            "required": ["type", "server_seed"],
            "properties": {
                "type": { "type": "string", "enum": ["server_seed_revealed"] },
                "server_seed": { "type": "string", "description": "Hex of the 32-byte seed." },
            },
        }),
    );
    game_by_kind(schemas, kinds);
}

/// The game resource, polymorphic on `kind`: each game's own object (the summary's fields,
/// `kind` fixed, the view typed), so generated clients narrow on `kind`.
fn game_by_kind(schemas: &mut Map<String, Value>, kinds: &[&str]) {
    let summary = schemas["GameSummary"].clone();
    let detail = schemas["GameDetail"].clone();
    let extra = detail
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|parts| parts.iter().find(|p| p.get("properties").is_some()))
        .cloned()
        .unwrap_or_else(|| json!({ "properties": {} }));
    let mut mapping = Map::new();
    let mut branches = Vec::new();
    for &tag in kinds {
        let prefix = pascal(tag);
        let mut game = summary.clone();
        let properties = game["properties"].as_object_mut().expect("an object");
        properties.insert("kind".into(), json!({ "type": "string", "enum": [tag] }));
        for (key, value) in extra["properties"].as_object().into_iter().flatten() {
            properties.insert(key.clone(), value.clone());
        }
        let view_description = properties
            .get("view")
            .and_then(|v| v.get("description"))
            .cloned()
            .unwrap_or(json!("The game state as the caller may see it."));
        properties.insert(
            "view".into(),
            json!({
                "anyOf": [reference(&format!("{prefix}View")), { "type": "null" }],
                "description": view_description,
            }),
        );
        game["description"] = json!(format!("A {tag} game with the caller's view."));
        game["title"] = json!(format!("{prefix}Game"));
        let name = format!("{prefix}Game");
        mapping.insert(tag.into(), json!(format!("{REF}{name}")));
        branches.push(reference(&name));
        schemas.insert(name, game);
    }
    schemas.insert(
        "GameDetail".into(),
        json!({
            "oneOf": branches,
            "discriminator": { "propertyName": "kind", "mapping": mapping },
            "description": detail.get("description").cloned().unwrap_or(json!("A game with the caller's view.")),
        }),
    );
}

/// A bare `{type: object}` (a JSON Schema document, UI annotations, an audit payload) says
/// that any properties may appear: generators otherwise read it as an empty object
/// (openapi-typescript: `Record<string, never>`).
pub fn open_free_objects(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            let shaped = [
                "properties",
                "additionalProperties",
                "oneOf",
                "anyOf",
                "allOf",
                "$ref",
            ]
            .iter()
            .any(|k| map.contains_key(*k));
            if is_object && !shaped {
                map.insert("additionalProperties".into(), json!(true));
            }
            map.values_mut().for_each(open_free_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(open_free_objects),
        _ => {}
    }
}

pub fn lint_fixes(doc: &mut Value) {
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            for operation in item
                .as_object_mut()
                .into_iter()
                .flat_map(|o| o.values_mut())
            {
                if let Some(map) = operation.as_object_mut() {
                    // Public operations say so: no security requirement at all.
                    map.entry("security").or_insert_with(|| json!([]));
                }
            }
        }
    }
    if doc
        .get("servers")
        .is_none_or(|s| s.as_array().is_none_or(Vec::is_empty))
    {
        doc["servers"] = json!([{
            "url": "http://127.0.0.1:8080",
            "description": "A local server (`homestretch serve`); clients set their own base URL.",
        }]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_union_is_hoisted_with_a_discriminator() {
        let mut doc = json!({"components": {"schemas": {"Cmd": {"oneOf": [
            {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["pass_turn"]}}},
            {"type": "object", "required": ["type", "n"], "properties": {"type": {"type": "string", "enum": ["roll"]}, "n": {"type": "integer"}}},
        ]}}}});
        hoist_tagged_unions(&mut doc);
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["Cmd"]["discriminator"]["propertyName"], "type");
        assert_eq!(
            schemas["Cmd"]["discriminator"]["mapping"]["pass_turn"],
            "#/components/schemas/CmdPassTurn"
        );
        assert_eq!(schemas["CmdRoll"]["properties"]["n"]["type"], "integer");
    }

    #[test]
    fn a_union_without_a_shared_tag_is_left_alone() {
        let mut doc = json!({"components": {"schemas": {"U": {"oneOf": [
            {"type": "string"},
            {"type": "object", "required": ["type"], "properties": {"type": {"enum": ["a"]}}},
        ]}}}});
        let before = doc.clone();
        hoist_tagged_unions(&mut doc);
        assert_eq!(doc, before);
    }
}
