//! The wire contract, for all three games (issue 14): every enum of strings — plain enums and
//! the tags of tagged unions — in the command, event, options and view schemas of the committed
//! `openapi/openapi.json` round-trips through the server's own serde types (deserialize →
//! serialize → the same JSON). A mismatch fails with its schema path and value.
//!
//! How: random games of every kind are played with the server's game objects (`domain::games()`,
//! in process) to collect real commands, events, options and views. For each enum site of a
//! command, event or options schema, a real instance that reaches the site (or, when play never
//! produced one, an instance built from the schema with real values for its named parts) gets
//! each enum value in turn and goes through `AnyGame::reserialize`: the parser and serializer
//! the server uses for commands, stored events and options. Views are output only: every value
//! the server wrote at a view site must be in the schema's enum, and each enum value must
//! round-trip through its Rust type, either at a command/event/options site of the same named
//! schema or through the short table of view-only types below.

use domain::any::WireType;
use domain::engine::{RngExt, Seat, Viewer, seeded};
use domain::{AnyGame, games};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// One step from an instance of a top-level schema towards an enum site.
#[derive(Clone, Debug)]
enum Step {
    Prop(String),
    Item,
    MapValue,
    /// The instance must match this branch of a `oneOf`.
    Branch(Value),
}

/// An enum in a schema: where it is and what it allows.
struct Site {
    /// Human-readable schema path, e.g. `MushCommand/oneOf[11]/properties/option->RestOption`.
    path: String,
    steps: Vec<Step>,
    /// The innermost named schema holding the enum, and the enum's path inside it: the same
    /// enum reached from two top-level schemas has the same key.
    owner: String,
    rel: String,
    values: Vec<String>,
}

struct Spec {
    schemas: Map<String, Value>,
}

impl Spec {
    fn load() -> Spec {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let text = std::fs::read_to_string(path).expect("openapi/openapi.json");
        let doc: Value = serde_json::from_str(&text).expect("the spec parses");
        Spec {
            schemas: doc["components"]["schemas"]
                .as_object()
                .expect("components.schemas")
                .clone(),
        }
    }

    fn resolve<'a>(&'a self, node: &'a Value) -> (&'a Value, Option<&'a str>) {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/components/schemas/");
                let target = self
                    .schemas
                    .get(name)
                    .unwrap_or_else(|| panic!("no schema {name}"));
                (target, Some(name))
            }
            None => (node, None),
        }
    }

    /// True when `name` is a variant of a discriminated union (a `discriminator.mapping` target).
    fn is_union_branch(&self, name: &str) -> bool {
        let target = format!("#/components/schemas/{name}");
        self.schemas.values().any(|schema| {
            schema["discriminator"]["mapping"]
                .as_object()
                .is_some_and(|m| m.values().any(|v| v.as_str() == Some(target.as_str())))
        })
    }

    /// Every enum site under `node`.
    #[allow(clippy::too_many_arguments)]
    fn sites(
        &self,
        node: &Value,
        path: &str,
        steps: &[Step],
        owner: &str,
        rel: &str,
        stack: &mut Vec<String>,
        out: &mut Vec<Site>,
    ) {
        if let (target, Some(name)) = self.resolve(node) {
            if stack.iter().any(|n| n == name) {
                return; // a recursive type: its enums are reached on the first visit
            }
            stack.push(name.to_string());
            let path = format!("{path}->{name}");
            if self.is_union_branch(name) {
                // A variant of a discriminated union (hoisted into its own component by
                // `api::spec_typing`): its enums belong to the union's type.
                let rel = format!("{rel}->{name}");
                self.sites(target, &path, steps, owner, &rel, stack, out);
            } else {
                self.sites(target, &path, steps, name, "", stack, out);
            }
            stack.pop();
            return;
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            let values: Vec<String> = values
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            if !values.is_empty() {
                out.push(Site {
                    path: path.to_string(),
                    steps: steps.to_vec(),
                    owner: owner.to_string(),
                    rel: rel.to_string(),
                    values,
                });
            }
        }
        let with = |step: Step| {
            let mut s = steps.to_vec();
            s.push(step);
            s
        };
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (k, sub) in props {
                let suffix = format!("/properties/{k}");
                self.sites(
                    sub,
                    &format!("{path}{suffix}"),
                    &with(Step::Prop(k.clone())),
                    owner,
                    &format!("{rel}{suffix}"),
                    stack,
                    out,
                );
            }
        }
        if let Some(items) = node.get("items") {
            let p = format!("{path}/items");
            let r = format!("{rel}/items");
            self.sites(items, &p, &with(Step::Item), owner, &r, stack, out);
        }
        if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
            let p = format!("{path}/additionalProperties");
            let r = format!("{rel}/additionalProperties");
            self.sites(values, &p, &with(Step::MapValue), owner, &r, stack, out);
        }
        for key in ["oneOf", "anyOf"] {
            for (i, branch) in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let suffix = format!("/{key}[{i}]");
                self.sites(
                    branch,
                    &format!("{path}{suffix}"),
                    &with(Step::Branch(branch.clone())),
                    owner,
                    &format!("{rel}{suffix}"),
                    stack,
                    out,
                );
            }
        }
        // allOf parts describe the same instance: no step.
        for (i, part) in node
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let suffix = format!("/allOf[{i}]");
            let (p, r) = (format!("{path}{suffix}"), format!("{rel}{suffix}"));
            self.sites(part, &p, steps, owner, &r, stack, out);
        }
    }

    /// A shallow validation: enough to tell the branches of a union apart.
    fn matches(&self, node: &Value, inst: &Value, depth: u32) -> bool {
        let (node, _) = self.resolve(node);
        if depth > 8 {
            return true;
        }
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            return values.contains(inst);
        }
        if let Some(types) = node.get("type") {
            let ok = |t: &str| match t {
                "string" => inst.is_string(),
                "integer" => inst.is_i64() || inst.is_u64(),
                "number" => inst.is_number(),
                "boolean" => inst.is_boolean(),
                "null" => inst.is_null(),
                "array" => inst.is_array(),
                "object" => inst.is_object(),
                _ => true,
            };
            let fits = match types {
                Value::String(t) => ok(t),
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(ok),
                _ => true,
            };
            if !fits {
                return false;
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array)
                && !branches.iter().any(|b| self.matches(b, inst, depth + 1))
            {
                return false;
            }
        }
        if let Some(parts) = node.get("allOf").and_then(Value::as_array)
            && !parts.iter().all(|p| self.matches(p, inst, depth + 1))
        {
            return false;
        }
        if let Some(object) = inst.as_object() {
            for key in node
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !key.as_str().is_some_and(|k| object.contains_key(k)) {
                    return false;
                }
            }
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    if let Some(v) = object.get(k)
                        && !self.matches(sub, v, depth + 1)
                    {
                        return false;
                    }
                }
            }
        }
        if let (Some(items), Some(first)) =
            (node.get("items"), inst.as_array().and_then(|a| a.first()))
        {
            return self.matches(items, first, depth + 1);
        }
        true
    }

    /// JSON pointers (as token lists) of every place in `inst` that `steps` reach.
    fn locate(
        &self,
        inst: &Value,
        steps: &[Step],
        at: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        if out.len() >= 64 {
            return;
        }
        let Some((step, rest)) = steps.split_first() else {
            if inst.is_string() {
                out.push(at.clone());
            }
            return;
        };
        match step {
            Step::Prop(k) => {
                if let Some(v) = inst.get(k) {
                    at.push(k.clone());
                    self.locate(v, rest, at, out);
                    at.pop();
                }
            }
            Step::Item => {
                for (i, v) in inst.as_array().into_iter().flatten().enumerate().take(64) {
                    at.push(i.to_string());
                    self.locate(v, rest, at, out);
                    at.pop();
                }
            }
            Step::MapValue => {
                for (k, v) in inst.as_object().into_iter().flatten().take(64) {
                    at.push(k.clone());
                    self.locate(v, rest, at, out);
                    at.pop();
                }
            }
            Step::Branch(branch) => {
                if self.matches(branch, inst, 0) {
                    self.locate(inst, rest, at, out);
                }
            }
        }
    }

    /// Real values of every named schema found in `inst` (donors for built instances).
    fn collect_named(
        &self,
        node: &Value,
        inst: &Value,
        donors: &mut BTreeMap<String, Vec<Value>>,
        depth: u32,
    ) {
        if depth > 12 || inst.is_null() {
            return;
        }
        let (target, name) = self.resolve(node);
        if let Some(name) = name {
            let seen = donors.entry(name.to_string()).or_default();
            if seen.len() < 24 && !seen.contains(inst) {
                seen.push(inst.clone());
            }
        }
        let node = target;
        for key in ["oneOf", "anyOf"] {
            for b in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if self.matches(b, inst, 0) {
                    self.collect_named(b, inst, donors, depth + 1);
                }
            }
        }
        for p in node
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.collect_named(p, inst, donors, depth + 1);
        }
        if let (Some(props), Some(object)) = (
            node.get("properties").and_then(Value::as_object),
            inst.as_object(),
        ) {
            for (k, sub) in props {
                if let Some(v) = object.get(k) {
                    self.collect_named(sub, v, donors, depth + 1);
                }
            }
        }
        if let (Some(items), Some(array)) = (node.get("items"), inst.as_array()) {
            for v in array.iter().take(3) {
                self.collect_named(items, v, donors, depth + 1);
            }
        }
    }

    /// A minimal instance of `node`: real values for named schemas when play produced some.
    fn build(&self, node: &Value, donors: &BTreeMap<String, Vec<Value>>, depth: u32) -> Value {
        let (target, name) = self.resolve(node);
        if depth > 0
            && let Some(found) = name.and_then(|n| donors.get(n)).and_then(|d| d.first())
        {
            return found.clone();
        }
        let node = target;
        if depth > 12 {
            return Value::Null;
        }
        if let Some(first) = node
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return first.clone();
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                let pick = branches
                    .iter()
                    .find(|b| b.get("type") != Some(&json!("null")))
                    .or(branches.first());
                return pick.map_or(Value::Null, |b| self.build(b, donors, depth + 1));
            }
        }
        if let Some(parts) = node.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for p in parts {
                if let Value::Object(o) = self.build(p, donors, depth + 1) {
                    merged.extend(o);
                }
            }
            return Value::Object(merged);
        }
        let kind = match node.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null")
                .to_string(),
            _ => "object".to_string(),
        };
        match kind.as_str() {
            "string" => json!("x"),
            "integer" | "number" => node.get("minimum").cloned().unwrap_or(json!(0)),
            "boolean" => json!(false),
            "array" => json!([]),
            "null" => Value::Null,
            _ => {
                let mut object = Map::new();
                let props = node.get("properties").and_then(Value::as_object);
                for key in node
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let (Some(k), Some(sub)) = (
                        key.as_str(),
                        props.and_then(|p| key.as_str().and_then(|k| p.get(k))),
                    ) {
                        object.insert(k.to_string(), self.build(sub, donors, depth + 1));
                    }
                }
                Value::Object(object)
            }
        }
    }

    /// The schema of property `key` of `node`, looking through `$ref` and `allOf`.
    fn property<'a>(&'a self, node: &'a Value, key: &str) -> Option<&'a Value> {
        let (node, _) = self.resolve(node);
        if let Some(sub) = node.get("properties").and_then(|p| p.get(key)) {
            return Some(sub);
        }
        node.get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|part| self.property(part, key))
    }

    /// A minimal instance of `node` that reaches the site at the end of `steps`.
    fn build_along(
        &self,
        node: &Value,
        steps: &[Step],
        donors: &BTreeMap<String, Vec<Value>>,
    ) -> Value {
        let Some((step, rest)) = steps.split_first() else {
            let (target, _) = self.resolve(node);
            return target
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|v| v.first())
                .cloned()
                .unwrap_or(Value::Null);
        };
        let (node, name) = self.resolve(node);
        // A real value of this named schema that already reaches the site.
        for donor in name.and_then(|n| donors.get(n)).into_iter().flatten() {
            let mut at = Vec::new();
            self.locate(donor, steps, &mut Vec::new(), &mut at);
            if !at.is_empty() {
                return donor.clone();
            }
        }
        match step {
            Step::Branch(branch) => self.build_along(branch, rest, donors),
            Step::Prop(key) => {
                // Depth 0: this level is built from its schema (the path below is ours); its
                // other fields take real values.
                let mut base = self.build(node, donors, 0);
                if let (Value::Object(object), Some(sub)) = (&mut base, self.property(node, key)) {
                    object.insert(key.clone(), self.build_along(sub, rest, donors));
                }
                base
            }
            Step::Item => json!([self.build_along(&node["items"], rest, donors)]),
            Step::MapValue => {
                json!({"k": self.build_along(&node["additionalProperties"], rest, donors)})
            }
        }
    }
}

/// `value` without the object members that are `null` (an absent optional field).
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

fn set(inst: &mut Value, at: &[String], value: &str) {
    let pointer: String = at
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect();
    *inst.pointer_mut(&pointer).expect("located") = json!(value);
}

/// `whisky_race` → `WhiskyRace`: the prefix of a game's schemas in the document.
fn prefix(kind: &str) -> String {
    kind.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Options worth playing with, per game (every named layout and mode at least once).
fn option_variants(kind: &str) -> Vec<Value> {
    match kind {
        "whisky_race" => vec![
            json!({}),
            json!({"random_setup": true, "group_bidding": true, "englishman_offer": true}),
        ],
        "bandits" => vec![
            json!({}),
            json!({"pawns_per_player": 2, "bounty_hunter": true}),
            json!({"pawns_per_player": 3}),
        ],
        "mush" => vec![
            json!({"layout": "first_game"}),
            json!({"layout": "base"}),
            json!({"layout": ["anchorage", "nome"]}),
        ],
        _ => vec![json!({})],
    }
}

#[derive(Default)]
struct Samples {
    commands: BTreeMap<String, Vec<Value>>,
    events: BTreeMap<String, Vec<Value>>,
    options: Vec<Value>,
    views: Vec<Value>,
}

fn keep(bucket: &mut BTreeMap<String, Vec<Value>>, value: &Value) {
    let tag = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let kept = bucket.entry(tag).or_default();
    if kept.len() < 6 && !kept.contains(value) {
        kept.push(value.clone());
    }
}

/// Plays random games of `game` and keeps what the server would read and write.
fn play(game: &dyn AnyGame, games_to_play: u64, max_commands: usize) -> Samples {
    let mut samples = Samples::default();
    let seats: Vec<u8> = game.seat_range().collect();
    let variants = option_variants(game.kind());
    for v in &variants {
        samples
            .options
            .push(game.normalize_options(v).expect("options"));
    }
    samples.options.push(
        game.normalize_options(&Value::Null)
            .expect("default options"),
    );
    for seed in 0..games_to_play {
        let options = &samples.options[seed as usize % variants.len()];
        let n = seats[seed as usize % seats.len()];
        let mut rng = seeded(1000 + seed);
        let mut state = game.new_state();
        for e in game.setup(options, n, &mut rng).expect("setup") {
            state
                .apply(&e.payload, game.event_schema_version())
                .expect("apply");
            keep(&mut samples.events, &e.payload);
        }
        for step in 0..max_commands {
            if step % 20 == 0 || state.outcome().is_some() {
                samples.views.push(state.view(Viewer::Spectator));
                for seat in Seat::all(n) {
                    samples.views.push(state.view(Viewer::Seat(seat)));
                }
            }
            if state.outcome().is_some() {
                break;
            }
            let prompts = state.prompts();
            let seat = prompts[rng.index(prompts.len())].seat;
            let legal = state.legal(seat);
            for c in &legal {
                keep(&mut samples.commands, c);
            }
            let command = &legal[rng.index(legal.len())];
            for e in state
                .decide(seat, command, &mut rng)
                .expect("legal is accepted")
            {
                state
                    .apply(&e.payload, game.event_schema_version())
                    .expect("apply");
                keep(&mut samples.events, &e.payload);
            }
        }
    }
    samples
}

/// Parse a JSON value as a Rust type and serialize it back.
type RoundTrip = fn(&Value) -> Result<Value, String>;

/// View-only enums (no command, event or options carries them): their Rust types.
fn view_only_type(schema: &str) -> Option<RoundTrip> {
    fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(
        v: &Value,
    ) -> Result<Value, String> {
        let parsed: T = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        serde_json::to_value(parsed).map_err(|e| e.to_string())
    }
    match schema {
        "MushPhase" => Some(round_trip::<domain::mush::state::Phase>),
        "Trigger" => Some(round_trip::<domain::whisky_race::event::Trigger>),
        // Bandits shows its control state (derived by `evolve`, no longer in any event).
        "Phase" => Some(round_trip::<domain::bandits::state::Phase>),
        "Frame" => Some(round_trip::<domain::bandits::state::Frame>),
        "ArrivalStage" => Some(round_trip::<domain::bandits::state::ArrivalStage>),
        "FightStep" => Some(round_trip::<domain::bandits::state::FightStep>),
        "ExecStep" => Some(round_trip::<domain::bandits::state::ExecStep>),
        _ => None,
    }
}

#[test]
fn every_enum_value_of_the_contract_round_trips_through_the_servers_types() {
    let spec = Spec::load();
    let mut failures: Vec<String> = Vec::new();
    let mut covered: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut view_sites: Vec<(Site, Vec<Value>)> = Vec::new();
    let mut checked = 0usize;
    let mut all_donors: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for game in games() {
        let samples = play(*game, 10, 1000);
        let prefix = prefix(game.kind());
        let parts = [
            ("Command", Some(WireType::Command)),
            ("Event", Some(WireType::Event)),
            ("Options", Some(WireType::Options)),
            ("View", None),
        ];
        // Real values of every named schema, from everything the game read and wrote.
        let mut donors = BTreeMap::new();
        for (suffix, instances) in [
            (
                "Command",
                samples.commands.values().flatten().collect::<Vec<_>>(),
            ),
            ("Event", samples.events.values().flatten().collect()),
            ("Options", samples.options.iter().collect()),
            ("View", samples.views.iter().collect()),
        ] {
            let schema = &spec.schemas[&format!("{prefix}{suffix}")];
            for inst in instances {
                spec.collect_named(schema, inst, &mut donors, 0);
            }
        }
        for (name, values) in &donors {
            all_donors
                .entry(name.clone())
                .or_default()
                .extend(values.iter().cloned());
        }
        for (suffix, wire) in parts {
            let top = format!("{prefix}{suffix}");
            let schema = spec
                .schemas
                .get(&top)
                .unwrap_or_else(|| panic!("{top} missing from the spec"))
                .clone();
            let instances: Vec<Value> = match wire {
                Some(WireType::Command) => samples.commands.values().flatten().cloned().collect(),
                Some(WireType::Event) => samples.events.values().flatten().cloned().collect(),
                Some(WireType::Options) => samples.options.clone(),
                None => samples.views.clone(),
            };
            let mut sites = Vec::new();
            spec.sites(
                &schema,
                &top,
                &[],
                &top,
                "",
                &mut vec![top.clone()],
                &mut sites,
            );
            let Some(wire) = wire else {
                view_sites.extend(sites.into_iter().map(|s| (s, samples.views.clone())));
                continue;
            };
            for site in sites {
                // A real instance reaching the site, or one built from the schema.
                let mut found = None;
                for inst in &instances {
                    let mut at = Vec::new();
                    spec.locate(inst, &site.steps, &mut Vec::new(), &mut at);
                    if let Some(first) = at.into_iter().next() {
                        found = Some((inst.clone(), first));
                        break;
                    }
                }
                let (base, at) = match found {
                    Some(found) => found,
                    None => {
                        let built = spec.build_along(&schema, &site.steps, &donors);
                        let mut at = Vec::new();
                        spec.locate(&built, &site.steps, &mut Vec::new(), &mut at);
                        match (game.reserialize(wire, &built), at.into_iter().next()) {
                            (Ok(canonical), Some(at)) => (canonical, at),
                            (result, _) => {
                                failures.push(format!(
                                    "{}: no real instance matches this part of the schema, and \
                                     one built from the schema does not round-trip: {built} → \
                                     {result:?}",
                                    site.path
                                ));
                                continue;
                            }
                        }
                    }
                };
                for value in &site.values {
                    let mut inst = base.clone();
                    set(&mut inst, &at, value);
                    checked += 1;
                    match game.reserialize(wire, &inst) {
                        Ok(back) if back == inst => {
                            covered.insert((site.owner.clone(), site.rel.clone(), value.clone()));
                        }
                        Ok(back) => failures.push(format!(
                            "{} = {value:?}: the server writes it back as {back} (sent {inst})",
                            site.path
                        )),
                        Err(e) => failures.push(format!(
                            "{} = {value:?}: the server refuses it: {e} (sent {inst})",
                            site.path
                        )),
                    }
                }
            }
        }
    }
    // Views: what the server wrote is in the contract; every value has a Rust type behind it.
    for (site, views) in view_sites {
        let mut seen = BTreeSet::new();
        for view in &views {
            let mut at = Vec::new();
            spec.locate(view, &site.steps, &mut Vec::new(), &mut at);
            for pointer in at {
                let tokens: String = pointer.iter().map(|t| format!("/{t}")).collect();
                if let Some(v) = view.pointer(&tokens).and_then(Value::as_str) {
                    seen.insert(v.to_string());
                }
            }
        }
        for v in &seen {
            if !site.values.contains(v) {
                failures.push(format!(
                    "{}: the server wrote {v:?}, not in the enum {:?}",
                    site.path, site.values
                ));
            }
        }
        for value in &site.values {
            checked += 1;
            let key = (site.owner.clone(), site.rel.clone(), value.clone());
            if covered.contains(&key) {
                continue;
            }
            let Some(round_trip) = view_only_type(&site.owner) else {
                failures.push(format!(
                    "{} = {value:?}: view-only enum with no Rust type in view_only_type()",
                    site.path
                ));
                continue;
            };
            // An instance of the owning type reaching the enum (real values where play gave
            // some), with the value set, must come back unchanged through the Rust type.
            let owner_schema = spec.schemas[&site.owner].clone();
            let mut local = Vec::new();
            spec.sites(
                &owner_schema,
                &site.owner,
                &[],
                &site.owner,
                "",
                &mut vec![site.owner.clone()],
                &mut local,
            );
            let Some(local) = local.into_iter().find(|s| s.rel == site.rel) else {
                failures.push(format!("{}: not found inside {}", site.path, site.owner));
                continue;
            };
            let built = spec.build_along(&owner_schema, &local.steps, &all_donors);
            let mut at = Vec::new();
            spec.locate(&built, &local.steps, &mut Vec::new(), &mut at);
            let Some(at) = at.into_iter().next() else {
                failures.push(format!(
                    "{}: no instance of {} reaches it",
                    site.path, site.owner
                ));
                continue;
            };
            let mut inst = built;
            set(&mut inst, &at, value);
            match round_trip(&inst) {
                // An optional field the built instance left out comes back as `null`.
                Ok(back) if without_nulls(&back) == without_nulls(&inst) => {}
                other => failures.push(format!(
                    "{} = {value:?}: the view type gives {other:?} (sent {inst})",
                    site.path
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} enum values break the contract:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 300, "only {checked} values checked");
}
