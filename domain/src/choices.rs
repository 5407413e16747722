//! Legal moves as a contract a phone can build on: for a seat, `choices` is a list of command
//! **families**, each a JSON Schema 2020-12 document. Together they describe *exactly* the
//! commands the seat may send now: every instance of a family is accepted by `decide`, and every
//! command `decide` accepts is an instance of some family. A UI draws one control per family; a
//! bot samples one.
//!
//! JSON Schema cannot state every rule on its own (a sum, a path through a graph, a dependency
//! between two fields). A game then enumerates the finite part (`enum` of whole paths or whole
//! commands) or splits the family (one per target seat, per card, per pawn); it never
//! over-approximates.
//!
//! This module holds the [`Family`] type, helpers that build the small schema vocabulary the
//! games use ([`schema`]), and the tools the exactness tests and bots share: [`sample`] draws an
//! instance of a schema (boundaries included), [`mutate`] bends a command into a near miss, and
//! [`enumerate`] lists the instances of a finite family (the concrete `legal` list of simple
//! bots is drawn from `choices` with it).

use crate::engine::rng::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// The JSON Schema dialect every family declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// One family of commands a seat may send now, described exactly by a JSON Schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Family {
    /// The command `type` every instance carries (`offer_trade`, `step`, …).
    #[schema(value_type = String, example = "offer_trade")]
    pub kind: Cow<'static, str>,
    /// A short label for the control that sends it.
    pub title: String,
    /// What the command does, for the player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema 2020-12 of the whole command object (`type` included): every instance is
    /// accepted now, and nothing else of this kind is.
    #[schema(value_type = Object)]
    pub schema: Value,
    /// Hints for a UI: costs, what an option really gives after caps, `requires` (a command to
    /// send first) … Never needed to decide whether a command is legal.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[schema(value_type = Object)]
    pub annotations: Map<String, Value>,
}

impl Family {
    /// A family of `kind` described by `schema` (the dialect is added).
    pub fn new(kind: &'static str, title: impl Into<String>, schema: Value) -> Self {
        let mut schema = schema;
        if let Value::Object(map) = &mut schema {
            map.insert("$schema".into(), json!(DIALECT));
        }
        Family {
            kind: Cow::Borrowed(kind),
            title: title.into(),
            description: None,
            schema,
            annotations: Map::new(),
        }
    }
    pub fn describe(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
    pub fn annotate(mut self, key: &str, value: Value) -> Self {
        self.annotations.insert(key.into(), value);
        self
    }

    /// Exact families from a concrete list of commands: one family per `type`, whose schema is
    /// the `enum` of those commands. Exact by construction when the list is; the default
    /// `choices` of a game that lists its moves concretely.
    pub fn from_commands(commands: &[Value]) -> Vec<Family> {
        let mut out: Vec<(String, Vec<Value>)> = Vec::new();
        for command in commands {
            let kind = command
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string();
            match out.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, list)) => list.push(command.clone()),
                None => out.push((kind, vec![command.clone()])),
            }
        }
        out.into_iter()
            .map(|(kind, list)| {
                let mut schema = Map::new();
                schema.insert("$schema".into(), json!(DIALECT));
                schema.insert("enum".into(), Value::Array(list));
                Family {
                    title: kind.replace('_', " "),
                    kind: Cow::Owned(kind),
                    description: None,
                    schema: Value::Object(schema),
                    annotations: Map::new(),
                }
            })
            .collect()
    }
}

/// Builders for the schema vocabulary the games use. Every object is closed
/// (`additionalProperties: false`): commands refuse unknown fields.
pub mod schema {
    use serde_json::{Map, Value, json};

    /// An object of `members`, moved in. (`json!` serializes each `Value` it is given into a
    /// new copy: a quarter of a Whisky Race simulation's time went to copying the schemas
    /// being built; issue 28.)
    pub fn members<const N: usize>(members: [(&str, Value); N]) -> Value {
        Value::Object(
            members
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    /// A command object: `type` is `kind`; every listed property is required.
    pub fn command(kind: &str, properties: Vec<(&str, Value)>) -> Value {
        let mut props = vec![("type", konst(json!(kind)))];
        props.extend(properties);
        object(props, &[])
    }
    /// A command object whose `optional` properties may be left out.
    pub fn command_with_optional(
        kind: &str,
        properties: Vec<(&str, Value)>,
        optional: &[&str],
    ) -> Value {
        let mut props = vec![("type", konst(json!(kind)))];
        props.extend(properties);
        object(props, optional)
    }
    /// A closed object; every property is required except those named in `optional`.
    pub fn object(properties: Vec<(&str, Value)>, optional: &[&str]) -> Value {
        let required: Vec<Value> = properties
            .iter()
            .filter(|(name, _)| !optional.contains(name))
            .map(|(name, _)| json!(name))
            .collect();
        let properties: Map<String, Value> = properties
            .into_iter()
            .map(|(name, schema)| (name.to_string(), schema))
            .collect();
        members([
            ("type", json!("object")),
            ("properties", Value::Object(properties)),
            ("required", Value::Array(required)),
            ("additionalProperties", Value::Bool(false)),
        ])
    }
    /// Exactly `value`.
    pub fn konst(value: Value) -> Value {
        members([("const", value)])
    }
    /// One of `values` (at least one).
    pub fn one_of_values(values: impl IntoIterator<Item = Value>) -> Value {
        let mut values: Vec<Value> = values.into_iter().collect();
        match values.len() {
            1 => konst(values.pop().unwrap_or_default()),
            _ => members([("enum", Value::Array(values))]),
        }
    }
    /// An integer in `min..=max`.
    pub fn int(min: i64, max: i64) -> Value {
        if min == max {
            return konst(json!(min));
        }
        json!({ "type": "integer", "minimum": min, "maximum": max })
    }
    /// A boolean.
    pub fn boolean() -> Value {
        json!({ "type": "boolean" })
    }
    /// An array of distinct items drawn from `items` (a list of allowed values), of length
    /// `min..=max`.
    pub fn unique_array_of(items: Vec<Value>, min: usize, max: usize) -> Value {
        members([
            ("type", json!("array")),
            ("items", members([("enum", Value::Array(items))])),
            ("uniqueItems", Value::Bool(true)),
            ("minItems", json!(min)),
            ("maxItems", json!(max)),
        ])
    }
    /// An array of `min..=max` items, each matching `items`.
    pub fn array(items: Value, min: usize, max: usize) -> Value {
        members([
            ("type", json!("array")),
            ("items", items),
            ("minItems", json!(min)),
            ("maxItems", json!(max)),
        ])
    }
    /// Any of these schemas (the branches should not overlap, so that a UI can tell them apart).
    pub fn one_of(branches: Vec<Value>) -> Value {
        members([("oneOf", Value::Array(branches))])
    }

    /// Exactly these arrays (paths), in the smaller of two exact forms: the `enum` of the whole
    /// arrays, or a **prefix tree** ([`prefix_tree`]) when many of them share their beginnings
    /// (long moves, all prefixes of a rampage or a distributed share). Both validate the same
    /// arrays; [`super::sample`] and [`super::enumerate`] read both.
    pub fn paths(paths: &[Vec<Value>]) -> Value {
        let listed = one_of_values(paths.iter().map(|p| Value::Array(p.clone())));
        let tree = prefix_tree(paths);
        let size = |v: &Value| serde_json::to_vec(v).map_or(usize::MAX, |b| b.len());
        if paths.len() > 1 && size(&tree) < size(&listed) {
            tree
        } else {
            listed
        }
    }

    /// Exactly these arrays as a prefix tree (a radix tree: chains without a fork are one node):
    /// `{"type": "array", "anyOf": [node …]}` where a node reached at depth `d` pins the items
    /// `d..d+k` of its chain with `{"minItems": m, "prefixItems": [{} × d, {"const": …} × k]}`
    /// (the items before `d` are pinned by the enclosing nodes, whose keywords hold too;
    /// `prefixItems` only constrains the items present) and then either ends the array
    /// (`"maxItems": d+k`: any length `m..=d+k`, so the prefixes of a chain that may all end
    /// cost nothing) or goes on with `anyOf` its children, where `{"maxItems": d+k}` is the
    /// alternative of ending in the chain. Each array is matched by one way through the tree.
    pub fn prefix_tree(paths: &[Vec<Value>]) -> Value {
        let mut root = Trie::default();
        for path in paths {
            root.insert(path);
        }
        let mut alternatives = root.alternatives(0);
        let mut out = Map::new();
        out.insert("type".into(), json!("array"));
        if alternatives.len() == 1
            && let Some(Value::Object(only)) = alternatives.pop()
        {
            out.extend(only);
        } else {
            out.insert("anyOf".into(), Value::Array(alternatives));
        }
        Value::Object(out)
    }

    /// Whether `alt` is `node` but for the item at `depth` of their `prefixItems` (compared in
    /// place: cloning every sibling to compare it was a fifth of a Bandits prompt, issue 31).
    fn alike_but_at(alt: &Value, node: &Map<String, Value>, depth: usize) -> bool {
        let Some(alt) = alt.as_object() else {
            return false;
        };
        alt.len() == node.len()
            && alt
                .iter()
                .all(|(key, a)| match (key.as_str(), node.get(key)) {
                    ("prefixItems", Some(Value::Array(b))) => a.as_array().is_some_and(|a| {
                        a.len() == b.len()
                            && a.iter()
                                .zip(b)
                                .enumerate()
                                .all(|(i, (x, y))| i == depth || x == y)
                    }),
                    (_, Some(b)) => a == b,
                    (_, None) => false,
                })
    }

    #[derive(Default)]
    struct Trie {
        end: bool,
        children: Vec<(Value, Trie)>,
    }

    impl Trie {
        fn insert(&mut self, path: &[Value]) {
            let Some((first, rest)) = path.split_first() else {
                self.end = true;
                return;
            };
            let i = match self.children.iter().position(|(v, _)| v == first) {
                Some(i) => i,
                None => {
                    self.children.push((first.clone(), Trie::default()));
                    self.children.len() - 1
                }
            };
            self.children[i].1.insert(rest);
        }

        /// The alternatives for the items from `depth` on, below this node.
        fn alternatives(&self, depth: usize) -> Vec<Value> {
            let mut out = Vec::new();
            if self.end {
                out.push(json!({ "maxItems": depth }));
            }
            for (value, child) in &self.children {
                let mut pinned = vec![json!({}); depth];
                pinned.push(konst(value.clone()));
                // The chain goes on while there is no fork; once a path may end on it, only
                // while every further node may end too, so the ends are one range of lengths
                // (`minItems` up to the chain's length, where `maxItems` ends it).
                let mut at = child;
                let mut first_end = at.end.then_some(pinned.len());
                while let [(value, next)] = at.children.as_slice() {
                    if first_end.is_some() && !next.end {
                        break;
                    }
                    pinned.push(konst(value.clone()));
                    at = next;
                    if at.end && first_end.is_none() {
                        first_end = Some(pinned.len());
                    }
                }
                let len = pinned.len();
                let mut node = Map::new();
                node.insert("minItems".into(), json!(first_end.unwrap_or(len)));
                node.insert("prefixItems".into(), Value::Array(pinned));
                let mut below = at.alternatives(len);
                if below.len() == 1 && below[0].get("prefixItems").is_none() {
                    if let Value::Object(only) = below.remove(0) {
                        node.extend(only);
                    }
                } else {
                    node.insert("anyOf".into(), Value::Array(below));
                }
                // Siblings whose nodes differ only in their first item are one node whose
                // first item is an `enum` (the ends of forks in Huntington, where each of
                // several next spaces ends the path).
                let twin = out.iter_mut().find(|alt| alike_but_at(alt, &node, depth));
                match twin {
                    Some(twin) => {
                        let slot = &mut twin["prefixItems"][depth];
                        let mut values = match slot.get("const") {
                            Some(c) => vec![c.clone()],
                            None => slot["enum"].as_array().cloned().unwrap_or_default(),
                        };
                        values.push(value.clone());
                        *slot = one_of_values(values);
                    }
                    None => out.push(Value::Object(node)),
                }
            }
            out
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sampling, mutating, enumerating
// ---------------------------------------------------------------------------------------------

/// Draws an instance of `schema` (the vocabulary of [`schema`]: `const`, `enum`, integer
/// ranges, booleans, closed objects, arrays with `uniqueItems`, `oneOf`/`anyOf`). Integers hit
/// their bounds one time in three, so boundaries are exercised. `None` for a schema outside
/// that vocabulary or with no instance.
pub fn sample(schema: &Value, rng: &mut dyn Rng) -> Option<Value> {
    use crate::engine::rng::RngExt;
    if let Some(v) = schema.get("const") {
        return Some(v.clone());
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return (!values.is_empty()).then(|| values[rng.index(values.len())].clone());
    }
    if is_array_tree(schema) {
        return sample_array_tree(schema, rng);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            if branches.is_empty() {
                return None;
            }
            return sample(&branches[rng.index(branches.len())], rng);
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => sample_integer(schema, rng),
        Some("boolean") => Some(json!(rng.below(2) == 1)),
        Some("object") => sample_object(schema, rng),
        Some("array") => sample_array(schema, rng),
        _ => None,
    }
}

/// A path of a prefix tree: one branch at every fork, then a length at a bound one time in
/// three.
fn sample_array_tree(schema: &Value, rng: &mut dyn Rng) -> Option<Value> {
    use crate::engine::rng::RngExt;
    let mut walk = ArrayWalk::default();
    let mut at = schema;
    loop {
        walk.apply(at)?;
        match branches(at) {
            Some([]) => return None,
            Some(next) => at = &next[rng.index(next.len())],
            None => break,
        }
    }
    let (lo, hi) = walk.lengths()?;
    let len = match rng.below(3) {
        0 => lo,
        1 => hi,
        _ => lo + rng.index(hi - lo + 1),
    };
    walk.instance(len, rng)
}

/// An integer of `minimum..=maximum`, a bound one time in three.
fn sample_integer(schema: &Value, rng: &mut dyn Rng) -> Option<Value> {
    let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(0);
    let max = schema
        .get("maximum")
        .and_then(Value::as_i64)
        .unwrap_or(min + 100);
    if max < min {
        return None;
    }
    let span = u32::try_from(max - min).ok()?.checked_add(1)?;
    Some(json!(match rng.below(6) {
        0 => min,
        1 => max,
        _ => min + i64::from(rng.below(span)),
    }))
}

/// The required properties, and each optional one with a chance of one in two.
fn sample_object(schema: &Value, rng: &mut dyn Rng) -> Option<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            if required.contains(&name.as_str()) || rng.below(2) == 1 {
                out.insert(name.clone(), sample(sub, rng)?);
            }
        }
    }
    Some(Value::Object(out))
}

/// `minItems..=maxItems` items; with `uniqueItems` over an `enum`, a shuffled draw of it.
fn sample_array(schema: &Value, rng: &mut dyn Rng) -> Option<Value> {
    use crate::engine::rng::RngExt;
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .unwrap_or(min as u64 + 4) as usize;
    let items = schema.get("items").cloned().unwrap_or(json!({}));
    let unique = schema.get("uniqueItems") == Some(&json!(true));
    if unique && let Some(pool) = items.get("enum").and_then(Value::as_array) {
        let max = max.min(pool.len());
        if max < min {
            return None;
        }
        let len = min + rng.index(max - min + 1);
        let mut pool = pool.clone();
        rng.shuffle(&mut pool);
        pool.truncate(len);
        return Some(Value::Array(pool));
    }
    if max < min {
        return None;
    }
    let len = min + rng.index(max - min + 1);
    let mut out = Vec::with_capacity(len);
    for _ in 0..len {
        let item = sample(&items, rng)?;
        if unique && out.contains(&item) {
            continue;
        }
        out.push(item);
    }
    (out.len() >= min).then_some(Value::Array(out))
}

/// A near miss of `command`: one field changed to a neighbouring or foreign value, removed, or
/// an unknown field added. The result may still be legal (a neighbour inside the range); the
/// exactness test asks `decide` and the schemas, and they must agree.
pub fn mutate(command: &Value, rng: &mut dyn Rng) -> Value {
    use crate::engine::rng::RngExt;
    let mut out = command.clone();
    let Value::Object(map) = &mut out else {
        return json!({"type": "not_a_command"});
    };
    let keys: Vec<String> = map.keys().filter(|k| *k != "type").cloned().collect();
    match (rng.below(8), keys.is_empty()) {
        (0, _) => {
            map.insert("unexpected".into(), json!(1));
        }
        (1, _) => {
            map.insert("type".into(), json!("no_such_command"));
        }
        (_, true) => {
            map.insert("extra".into(), json!(rng.below(3)));
        }
        (2, false) => {
            map.remove(&keys[rng.index(keys.len())]);
        }
        (_, false) => {
            let key = &keys[rng.index(keys.len())];
            let value = map.get_mut(key).expect("key");
            *value = bend(value, rng);
        }
    }
    out
}

/// A value near `value`: integers ±1 or far out, strings altered, arrays shortened or with a
/// duplicate, objects bent in one field.
fn bend(value: &Value, rng: &mut dyn Rng) -> Value {
    use crate::engine::rng::RngExt;
    match value {
        Value::Number(n) => {
            let n = n.as_i64().unwrap_or(0);
            json!(match rng.below(5) {
                0 => n - 1,
                1 => n + 1,
                2 => -n - 1,
                3 => n + 1000,
                _ => i64::from(rng.below(20)),
            })
        }
        Value::String(s) => match rng.below(3) {
            0 => json!(format!("{s}x")),
            1 => json!(""),
            _ => json!(7),
        },
        Value::Bool(b) => json!(!b),
        Value::Array(items) if !items.is_empty() => {
            let mut items = items.clone();
            match rng.below(5) {
                0 => {
                    items.pop();
                }
                // Paths: the first item dropped, or two neighbours swapped (a prefix tree pins
                // every position, so both must leave it).
                3 => {
                    items.remove(0);
                }
                4 if items.len() > 1 => {
                    let i = rng.index(items.len() - 1);
                    items.swap(i, i + 1);
                }
                1 => {
                    let i = rng.index(items.len());
                    items.push(items[i].clone());
                }
                _ => {
                    let i = rng.index(items.len());
                    items[i] = bend(&items[i], rng);
                }
            }
            Value::Array(items)
        }
        Value::Array(_) => json!([0]),
        Value::Object(_) => mutate(value, rng),
        Value::Null => json!(0),
    }
}

/// Every instance of a finite `schema`, or `None` when there are more than `cap` (or the schema
/// is outside the vocabulary of [`schema`]). Arrays with `uniqueItems` are enumerated as sets
/// in the order of their `enum`.
pub fn enumerate(schema: &Value, cap: usize) -> Option<Vec<Value>> {
    enumerate_in(schema, cap, false)
}

/// [`enumerate`], but an optional property whose only value is `null` is only ever left out:
/// serde reads `null` as absent, so the two instances are one command, and a closed object with
/// k such properties (the unused fields of a Whisky Race `params`) would list each command 2^k
/// times (issue 31: most of a Whisky Race prompts answer's `legal` work). Every instance here
/// is one of [`enumerate`]'s, in the same order, and no command of it is missing.
pub fn enumerate_meanings(schema: &Value, cap: usize) -> Option<Vec<Value>> {
    enumerate_in(schema, cap, true)
}

fn enumerate_in(schema: &Value, cap: usize, meanings: bool) -> Option<Vec<Value>> {
    if let Some(v) = schema.get("const") {
        return Some(vec![v.clone()]);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return (values.len() <= cap).then(|| values.clone());
    }
    if is_array_tree(schema) {
        let mut out = Vec::new();
        enumerate_tree(schema, ArrayWalk::default(), cap, &mut out)?;
        return Some(out);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut out = Vec::new();
            for branch in branches {
                out.extend(enumerate_in(branch, cap, meanings)?);
                if out.len() > cap {
                    return None;
                }
            }
            return Some(out);
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => {
            let min = schema.get("minimum").and_then(Value::as_i64)?;
            let max = schema.get("maximum").and_then(Value::as_i64)?;
            let count = usize::try_from(max - min + 1).ok()?;
            (count <= cap).then(|| (min..=max).map(|n| json!(n)).collect())
        }
        Some("boolean") => Some(vec![json!(false), json!(true)]),
        Some("object") => enumerate_object(schema, cap, meanings),
        Some("array") => enumerate_array(schema, cap, meanings),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Arrays described item by item (prefix trees of paths, [`schema::prefix_tree`])
// ---------------------------------------------------------------------------------------------

/// An array schema whose instances are built item by item: it pins items with `prefixItems`,
/// possibly under nested `anyOf`/`oneOf` alternatives whose keywords hold together with the
/// enclosing ones (the prefix trees of [`schema::paths`]).
fn is_array_tree(schema: &Value) -> bool {
    schema.get("prefixItems").is_some()
        || (schema.get("type").and_then(Value::as_str) == Some("array")
            && branches(schema).is_some())
}

fn branches(schema: &Value) -> Option<&[Value]> {
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array))
        .map(Vec::as_slice)
}

/// What the keywords met so far on one way through an array tree say: the pinned items
/// (`None`: not pinned), the length bounds, and whether items past the pinned ones are
/// allowed (`items`; this vocabulary only pins, so only `false` or absent).
#[derive(Clone, Debug)]
struct ArrayWalk {
    items: Vec<Option<Vec<Value>>>,
    min: usize,
    max: usize,
}

impl Default for ArrayWalk {
    fn default() -> Self {
        ArrayWalk {
            items: Vec::new(),
            min: 0,
            max: usize::MAX,
        }
    }
}

impl ArrayWalk {
    /// Adds `schema`'s own array keywords; `None` when they contradict the walk or fall
    /// outside the vocabulary (`prefixItems` entries are `const`, `enum`, `{}` or `true`).
    fn apply(&mut self, schema: &Value) -> Option<()> {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            self.min = self.min.max(min as usize);
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            self.max = self.max.min(max as usize);
        }
        match schema.get("items") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return None,
        }
        if let Some(pinned) = schema.get("prefixItems").and_then(Value::as_array) {
            if self.items.len() < pinned.len() {
                self.items.resize(pinned.len(), None);
            }
            for (slot, item) in self.items.iter_mut().zip(pinned) {
                if *item == json!({}) || *item == json!(true) {
                    continue;
                }
                let allowed: Vec<Value> = match (item.get("const"), item.get("enum")) {
                    (Some(c), _) => vec![c.clone()],
                    (None, Some(Value::Array(values))) => values.clone(),
                    _ => return None,
                };
                match slot {
                    Some(old) => old.retain(|v| allowed.contains(v)),
                    None => *slot = Some(allowed),
                }
                if slot.as_ref().is_some_and(Vec::is_empty) {
                    return None;
                }
            }
        }
        (self.min <= self.max).then_some(())
    }

    /// The lengths an instance may have: no longer than the pinned items.
    fn lengths(&self) -> Option<(usize, usize)> {
        let hi = self.max.min(self.items.len());
        (self.min <= hi).then_some((self.min, hi))
    }

    /// A random instance of length `len` (every item up to it pinned).
    fn instance(&self, len: usize, rng: &mut dyn Rng) -> Option<Value> {
        use crate::engine::rng::RngExt;
        let mut out = Vec::with_capacity(len);
        for allowed in &self.items[..len] {
            let allowed = allowed.as_ref()?;
            out.push(allowed[rng.index(allowed.len())].clone());
        }
        Some(Value::Array(out))
    }

    /// Every instance of length `len`.
    fn instances(&self, len: usize, cap: usize, out: &mut Vec<Value>) -> Option<()> {
        let mut all: Vec<Vec<Value>> = vec![Vec::new()];
        for allowed in &self.items[..len] {
            let allowed = allowed.as_ref()?;
            all = all
                .into_iter()
                .flat_map(|p| {
                    allowed.iter().map(move |v| {
                        let mut p = p.clone();
                        p.push(v.clone());
                        p
                    })
                })
                .collect();
            if all.len() > cap {
                return None;
            }
        }
        out.extend(all.into_iter().map(Value::Array));
        Some(())
    }
}

fn enumerate_tree(
    schema: &Value,
    mut walk: ArrayWalk,
    cap: usize,
    out: &mut Vec<Value>,
) -> Option<()> {
    if walk.apply(schema).is_none() {
        // A contradicting alternative has no instance; one outside the vocabulary is refused.
        let pins_only = schema
            .get("prefixItems")
            .map_or(Some(true), |p| {
                Some(p.as_array()?.iter().all(|i| {
                    *i == json!({})
                        || *i == json!(true)
                        || i.get("const").is_some()
                        || i.get("enum").is_some()
                }))
            })
            .unwrap_or(false);
        let no_items = matches!(schema.get("items"), None | Some(Value::Bool(false)));
        return (pins_only && no_items).then_some(());
    }
    match branches(schema) {
        Some(next) => {
            for branch in next {
                enumerate_tree(branch, walk.clone(), cap, out)?;
            }
        }
        None => {
            if let Some((lo, hi)) = walk.lengths() {
                for len in lo..=hi {
                    walk.instances(len, cap, out)?;
                }
            }
        }
    }
    (out.len() <= cap).then_some(())
}

fn enumerate_object(schema: &Value, cap: usize, meanings: bool) -> Option<Vec<Value>> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = vec![Map::new()];
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let optional = !required.contains(&name.as_str());
            if meanings && optional && sub.get("const") == Some(&Value::Null) {
                continue;
            }
            let values = enumerate_in(sub, cap, meanings)?;
            let mut next = Vec::new();
            for partial in &out {
                if optional {
                    next.push(partial.clone());
                }
                for value in &values {
                    let mut extended = partial.clone();
                    extended.insert(name.clone(), value.clone());
                    next.push(extended);
                }
                if next.len() > cap {
                    return None;
                }
            }
            out = next;
        }
    }
    Some(out.into_iter().map(Value::Object).collect())
}

fn enumerate_array(schema: &Value, cap: usize, meanings: bool) -> Option<Vec<Value>> {
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema.get("maxItems").and_then(Value::as_u64)? as usize;
    let pool = enumerate_in(schema.get("items")?, cap, meanings)?;
    let unique = schema.get("uniqueItems") == Some(&json!(true));
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    let mut all = Vec::new();
    for len in 0..=max {
        if len >= min {
            all.extend(out.iter().cloned().map(Value::Array));
            if all.len() > cap {
                return None;
            }
        }
        if len == max {
            break;
        }
        let mut next = Vec::new();
        for partial in &out {
            // Sets: items in increasing pool order, so each set is listed once.
            let start = if unique {
                partial
                    .last()
                    .and_then(|last| pool.iter().position(|p| p == last))
                    .map_or(0, |i| i + 1)
            } else {
                0
            };
            for item in &pool[start.min(pool.len())..] {
                let mut extended = partial.clone();
                extended.push(item.clone());
                next.push(extended);
            }
            if next.len() > cap {
                return None;
            }
        }
        out = next;
    }
    Some(all)
}

/// The concrete commands of `families`, for simple bots: each finite family enumerated (up to
/// `cap` instances), each larger one sampled `cap` times. Never the contract: `choices` is.
pub fn concrete(families: &[Family], cap: usize, rng: &mut dyn Rng) -> Vec<Value> {
    let mut out = Vec::new();
    for family in families {
        match enumerate(&family.schema, cap) {
            Some(all) => out.extend(all),
            None => {
                for _ in 0..cap {
                    if let Some(instance) = sample(&family.schema, rng)
                        && !out.contains(&instance)
                    {
                        out.push(instance);
                    }
                }
            }
        }
    }
    out
}

/// The most commands a prompts answer's `legal` lists (issue 31).
pub const LEGAL_SAMPLE_COMMANDS: usize = 16;
/// The most bytes `legal` takes as JSON (the array, brackets and commas included): with the
/// largest `choices` + prompts measured (14,357 B, Whisky Race) and the answer's other fields,
/// the prompts answer stays under 16 KB.
pub const LEGAL_SAMPLE_BYTES: usize = 1024;

/// The `legal` of a prompts answer: a short sample of the seat's whole legal list (`legal`, in
/// the game's order), at most [`LEGAL_SAMPLE_COMMANDS`] commands and [`LEGAL_SAMPLE_BYTES`]
/// bytes. A list within both bounds is kept whole. Otherwise every command type gets a turn in
/// each round (first appearance first), so each type the seat may send is in the sample while
/// the bytes allow; within a type the picks spread over its list (first, middle, quarters, …).
/// The kept commands stay in the game's order. Deterministic: the same list gives the same
/// sample, so an answer depends on (game, version, seat) only.
pub fn legal_sample(legal: Vec<Value>) -> Vec<Value> {
    let sizes: Vec<usize> = legal.iter().map(|c| json_len(c) + 1).collect();
    // `[` + commands + commas + `]`: the commas and the closing bracket are the `+ 1`s.
    let whole = 1 + sizes.iter().sum::<usize>();
    if legal.len() <= LEGAL_SAMPLE_COMMANDS && whole <= LEGAL_SAMPLE_BYTES {
        return legal;
    }
    let mut types: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, command) in legal.iter().enumerate() {
        let kind = command.get("type").and_then(Value::as_str).unwrap_or("");
        match types.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, members)) => members.push(i),
            None => types.push((kind, vec![i])),
        }
    }
    let orders: Vec<Vec<usize>> = types
        .iter()
        .map(|(_, members)| spread(members.len()).map(|j| members[j]).collect())
        .collect();
    let (mut kept, mut bytes) = (Vec::new(), 1);
    let rounds = orders.iter().map(Vec::len).max().unwrap_or(0);
    'rounds: for round in 0..rounds {
        for order in &orders {
            if kept.len() == LEGAL_SAMPLE_COMMANDS {
                break 'rounds;
            }
            let Some(&i) = order.get(round) else { continue };
            // The first command always goes in: a seat with moves never gets an empty list.
            if kept.is_empty() || bytes + sizes[i] <= LEGAL_SAMPLE_BYTES {
                kept.push(i);
                bytes += sizes[i];
            }
        }
    }
    kept.sort_unstable();
    let mut keep = vec![false; legal.len()];
    kept.iter().for_each(|&i| keep[i] = true);
    legal
        .into_iter()
        .zip(keep)
        .filter_map(|(command, kept)| kept.then_some(command))
        .collect()
}

/// The bytes of `value` as compact JSON, without building the text.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("a JSON value serializes");
    count.0
}

/// `0..n` in a spreading order (the base-2 radical inverse: 0, n/2, n/4, 3n/4, n/8, …), so any
/// prefix of it is spread over the whole range.
fn spread(n: usize) -> impl Iterator<Item = usize> {
    let span = if n == 0 { 0 } else { n.next_power_of_two() };
    let bits = span.trailing_zeros();
    let mut seen = vec![false; n];
    (0..span).filter_map(move |k| {
        let reversed = if bits == 0 {
            0
        } else {
            k.reverse_bits() >> (usize::BITS - bits)
        };
        let i = (reversed * n) >> bits;
        (!std::mem::replace(&mut seen[i], true)).then_some(i)
    })
}

// ---------------------------------------------------------------------------------------------
// Exactness, for the games' tests
// ---------------------------------------------------------------------------------------------

/// The two-way exactness check the games' tests run at many positions (see the module docs).
#[cfg(test)]
pub mod exactness {
    use super::{Family, mutate, sample};
    use crate::engine::{Game, Rng, RngExt, Seat, seeded};
    use serde_json::Value;

    /// Compiled schemas of a seat's families (the `boon` validator, JSON Schema 2020-12).
    pub struct Schemas {
        schemas: boon::Schemas,
        compiled: Vec<boon::SchemaIndex>,
    }

    impl Schemas {
        pub fn compile(families: &[Family]) -> Result<Schemas, String> {
            let mut schemas = boon::Schemas::new();
            let mut compiler = boon::Compiler::new();
            let mut compiled = Vec::new();
            for (i, family) in families.iter().enumerate() {
                let url = format!("urn:family:{i}");
                compiler
                    .add_resource(&url, family.schema.clone())
                    .map_err(|e| format!("family {i} ({}): {e}", family.kind))?;
                compiled.push(
                    compiler
                        .compile(&url, &mut schemas)
                        .map_err(|e| format!("family {i} ({}): {e}", family.kind))?,
                );
            }
            Ok(Schemas { schemas, compiled })
        }
        /// True when some family validates `command`.
        pub fn accepts(&self, command: &Value) -> bool {
            self.compiled
                .iter()
                .any(|index| self.schemas.validate(command, *index).is_ok())
        }
    }

    /// Whether `decide` accepts the JSON `command` from `seat` (unparsable = refused).
    pub fn accepted<G: Game>(state: &G::State, seat: Seat, command: &Value) -> bool {
        match serde_json::from_value::<G::Command>(command.clone()) {
            Ok(parsed) => G::decide(state, seat, &parsed, &mut seeded(7)).is_ok(),
            Err(_) => false,
        }
    }

    /// Checks, at `state`, for `seat`: (1) `per_family` instances sampled from every family are
    /// accepted by `decide`; (2) each of `candidates` (mutations of instances, other seats'
    /// commands, out-of-range values …) plus `mutations` fresh mutations is accepted by `decide`
    /// iff some family validates it. Returns how many commands were compared.
    pub fn check<G: Game>(
        state: &G::State,
        seat: Seat,
        families: &[Family],
        candidates: &[Value],
        per_family: usize,
        mutations: usize,
        rng: &mut dyn Rng,
    ) -> Result<usize, String> {
        let schemas = Schemas::compile(families)?;
        let mut compared = 0;
        let mut instances = Vec::new();
        for family in families {
            for _ in 0..per_family {
                let instance = sample(&family.schema, rng)
                    .ok_or_else(|| format!("family {} has no instance", family.kind))?;
                if !accepted::<G>(state, seat, &instance) {
                    let why = serde_json::from_value::<G::Command>(instance.clone())
                        .map_err(|e| e.to_string())
                        .and_then(|c| {
                            G::decide(state, seat, &c, &mut seeded(7))
                                .map(|_| ())
                                .map_err(|e| e.to_string())
                        });
                    return Err(format!(
                        "{seat}: instance {instance} of family {} is refused: {why:?}",
                        family.kind
                    ));
                }
                if !schemas.accepts(&instance) {
                    return Err(format!(
                        "{seat}: sampled instance {instance} of {} does not validate",
                        family.kind
                    ));
                }
                compared += 1;
                instances.push(instance);
            }
        }
        let mut probes: Vec<Value> = candidates.to_vec();
        for _ in 0..mutations {
            if instances.is_empty() && candidates.is_empty() {
                break;
            }
            let base = if !instances.is_empty() && (candidates.is_empty() || rng.below(2) == 0) {
                &instances[rng.index(instances.len())]
            } else {
                &candidates[rng.index(candidates.len())]
            };
            probes.push(mutate(base, rng));
        }
        for probe in probes {
            let by_rules = accepted::<G>(state, seat, &probe);
            let by_schemas = schemas.accepts(&probe);
            if by_rules != by_schemas {
                return Err(format!(
                    "{seat}: {probe} is {} by decide but {} by the families",
                    if by_rules { "accepted" } else { "refused" },
                    if by_schemas {
                        "validated"
                    } else {
                        "not validated"
                    },
                ));
            }
            compared += 1;
        }
        Ok(compared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::seeded;

    #[test]
    fn samples_stay_inside_their_schema_and_reach_the_bounds() {
        let family = Family::new(
            "offer",
            "offer",
            schema::command(
                "offer",
                vec![
                    ("to", schema::one_of_values([json!(2), json!(3)])),
                    ("malt", schema::int(0, 7)),
                    (
                        "whiskies",
                        schema::unique_array_of(vec![json!("a"), json!("b"), json!("c")], 0, 2),
                    ),
                ],
            ),
        );
        let schemas = exactness::Schemas::compile(std::slice::from_ref(&family)).unwrap();
        let mut rng = seeded(3);
        let mut malts = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let s = sample(&family.schema, &mut rng).unwrap();
            assert!(schemas.accepts(&s), "{s}");
            malts.insert(s["malt"].as_i64().unwrap());
            assert!(s["whiskies"].as_array().unwrap().len() <= 2);
        }
        assert!(malts.contains(&0) && malts.contains(&7));
        // Closed objects: an unknown field or a value out of range is not an instance.
        assert!(!schemas.accepts(&json!({"type": "offer", "to": 2, "malt": 8, "whiskies": []})));
        assert!(
            !schemas.accepts(&json!({"type": "offer", "to": 2, "malt": 1, "whiskies": [], "x": 1}))
        );
        assert!(
            !schemas.accepts(&json!({"type": "offer", "to": 2, "malt": 1, "whiskies": ["a", "a"]}))
        );
    }

    #[test]
    fn enumeration_lists_every_instance_once() {
        let s = schema::command(
            "pick",
            vec![
                ("n", schema::int(1, 3)),
                (
                    "set",
                    schema::unique_array_of(vec![json!("x"), json!("y"), json!("z")], 1, 2),
                ),
            ],
        );
        let all = enumerate(&s, 1000).unwrap();
        // 3 numbers × (3 singletons + 3 pairs)
        assert_eq!(all.len(), 18);
        let distinct: std::collections::HashSet<String> =
            all.iter().map(|v| v.to_string()).collect();
        assert_eq!(distinct.len(), 18);
        assert!(enumerate(&s, 10).is_none());
    }

    #[test]
    fn families_from_commands_are_exact_enums() {
        let commands = vec![
            json!({"type": "a", "n": 1}),
            json!({"type": "b"}),
            json!({"type": "a", "n": 2}),
        ];
        let families = Family::from_commands(&commands);
        assert_eq!(families.len(), 2);
        let schemas = exactness::Schemas::compile(&families).unwrap();
        for c in &commands {
            assert!(schemas.accepts(c));
        }
        assert!(!schemas.accepts(&json!({"type": "a", "n": 3})));
        let listed = concrete(&families, 10, &mut seeded(1));
        assert_eq!(listed.len(), 3);
    }

    fn arrays(paths: &[&[&str]]) -> Vec<Vec<Value>> {
        paths
            .iter()
            .map(|p| p.iter().map(|n| json!(n)).collect())
            .collect()
    }

    #[test]
    fn prefix_trees_validate_exactly_their_paths() {
        // Shared beginnings, a path that is a prefix of others, a fork at the root, a chain.
        let paths = arrays(&[
            &["a", "b", "c", "d"],
            &["a", "b", "c", "e", "f"],
            &["a", "b"],
            &["a", "x", "y"],
            &["a", "x", "w"],
            &["z"],
            &["z", "a", "b", "c", "d", "e"],
        ]);
        let tree = schema::prefix_tree(&paths);
        // The two ends of the fork after `a, x` are one node with an `enum`.
        assert!(tree.to_string().contains(r#"{"enum":["y","w"]}"#), "{tree}");
        let family = Family::new(
            "move",
            "move",
            schema::command("move", vec![("path", tree.clone())]),
        );
        let schemas = exactness::Schemas::compile(std::slice::from_ref(&family)).unwrap();
        let wrap = |p: &Value| json!({"type": "move", "path": p});
        // Every path, and nothing else: every prefix, every one-item extension or change of
        // every path, swaps, and the empty path.
        let listed: Vec<Value> = paths.iter().map(|p| json!(p)).collect();
        let mut probes: Vec<Vec<Value>> = vec![vec![]];
        for p in &paths {
            for len in 0..=p.len() {
                probes.push(p[..len].to_vec());
            }
            for extra in ["a", "b", "c", "d", "e", "f", "x", "y", "z", "q"] {
                let mut longer = p.clone();
                longer.push(json!(extra));
                probes.push(longer);
                for i in 0..p.len() {
                    let mut changed = p.clone();
                    changed[i] = json!(extra);
                    probes.push(changed);
                }
            }
            for i in 1..p.len() {
                let mut swapped = p.clone();
                swapped.swap(i - 1, i);
                probes.push(swapped);
            }
        }
        for probe in probes {
            let probe = json!(probe);
            assert_eq!(
                schemas.accepts(&wrap(&probe)),
                listed.contains(&probe),
                "{probe} in {tree}"
            );
        }
        // Enumeration gives back the set, each path once; samples are paths.
        let mut all: Vec<String> = enumerate(&tree, 100)
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        all.sort();
        let mut expected: Vec<String> = listed.iter().map(Value::to_string).collect();
        expected.sort();
        assert_eq!(all, expected);
        assert!(enumerate(&tree, 3).is_none());
        let mut rng = seeded(5);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let s = sample(&family.schema, &mut rng).unwrap();
            assert!(listed.contains(&s["path"]), "{s}");
            assert!(schemas.accepts(&s));
            seen.insert(s["path"].to_string());
        }
        assert_eq!(seen.len(), paths.len());
    }

    #[test]
    fn an_optional_field_that_can_only_be_null_is_enumerated_once_left_out() {
        // A closed `params` with one used field and three that may only be null or absent.
        let params = schema::object(
            vec![
                ("target", schema::one_of_values(vec![json!(1), json!(2)])),
                ("take", schema::konst(Value::Null)),
                ("brora", schema::konst(Value::Null)),
                ("piece", schema::konst(Value::Null)),
            ],
            &["take", "brora", "piece"],
        );
        let s = schema::command_with_optional("use", vec![("params", params)], &[]);
        let all = enumerate(&s, 1000).unwrap();
        assert_eq!(all.len(), 2 * 8, "every null written or left out");
        let meanings = enumerate_meanings(&s, 1000).unwrap();
        assert_eq!(
            meanings,
            vec![
                json!({"type": "use", "params": {"target": 1}}),
                json!({"type": "use", "params": {"target": 2}}),
            ]
        );
        // The same instances, in enumeration order, and each of the others means one of them.
        let firsts: Vec<&Value> = all
            .iter()
            .filter(|v| v["params"].as_object().unwrap().len() == 1)
            .collect();
        assert_eq!(firsts, meanings.iter().collect::<Vec<_>>());
        let meaning = |v: &Value| v["params"]["target"].clone();
        assert!(
            all.iter()
                .all(|v| meanings.iter().any(|m| meaning(m) == meaning(v)))
        );
        // A null that is required is a value like any other.
        let required = schema::object(vec![("x", schema::konst(Value::Null))], &[]);
        assert_eq!(
            enumerate_meanings(&required, 10).unwrap(),
            vec![json!({"x": null})]
        );
    }

    #[test]
    fn paths_take_the_smaller_exact_form() {
        // All prefixes of one long path: the tree is much smaller than the list.
        let long: Vec<String> = (0..30).map(|i| format!("R{i:02}")).collect();
        let prefixes: Vec<Vec<Value>> = (1..=long.len())
            .map(|n| long[..n].iter().map(|s| json!(s)).collect())
            .collect();
        let compact = schema::paths(&prefixes);
        assert!(compact.get("prefixItems").is_some(), "{compact}");
        let listed = schema::one_of_values(prefixes.iter().map(|p| json!(p)));
        assert!(compact.to_string().len() * 5 < listed.to_string().len());
        assert_eq!(enumerate(&compact, 100).unwrap().len(), 30);
        // Two short unrelated paths: the list is smaller, and kept.
        let short = arrays(&[&["a", "b"], &["c", "d"]]);
        assert_eq!(
            schema::paths(&short),
            json!({"enum": [["a", "b"], ["c", "d"]]})
        );
        // One path: a `const`.
        assert_eq!(schema::paths(&short[..1]), json!({"const": ["a", "b"]}));
    }

    #[test]
    fn mutations_of_paths_leave_the_tree() {
        // Bent paths (shortened, extended, an item changed, the first dropped, neighbours
        // swapped) are validated iff they are in the set.
        let paths = arrays(&[&["a", "b", "c", "d"], &["a", "b", "x"], &["b", "c"]]);
        let s = schema::command("move", vec![("path", schema::prefix_tree(&paths))]);
        let family = Family::new("move", "move", s);
        let schemas = exactness::Schemas::compile(std::slice::from_ref(&family)).unwrap();
        let listed: Vec<Value> = paths.iter().map(|p| json!(p)).collect();
        let mut rng = seeded(9);
        let mut left = 0;
        for _ in 0..500 {
            let base = sample(&family.schema, &mut rng).unwrap();
            let bent = mutate(&base, &mut rng);
            let inside = bent
                .as_object()
                .is_some_and(|m| m.len() == 2 && m.get("type") == Some(&json!("move")))
                && bent.get("path").is_some_and(|p| listed.contains(p));
            assert_eq!(schemas.accepts(&bent), inside, "{bent}");
            left += usize::from(!inside);
        }
        assert!(left > 300, "{left}");
    }

    fn commands(kind: &str, n: usize, pad: usize) -> Vec<Value> {
        (0..n)
            .map(|i| json!({"type": kind, "i": i, "pad": "x".repeat(pad)}))
            .collect()
    }

    fn bytes(list: &[Value]) -> usize {
        serde_json::to_string(list).unwrap().len()
    }

    /// Issue 31: a list within the bounds is `legal` whole.
    #[test]
    fn a_short_legal_list_is_kept_whole() {
        let mut list = commands("move", 10, 20);
        list.extend(commands("pass", 1, 0));
        assert!(bytes(&list) <= LEGAL_SAMPLE_BYTES);
        assert_eq!(legal_sample(list.clone()), list);
        assert_eq!(legal_sample(Vec::new()), Vec::<Value>::new());
    }

    /// Issue 31: 580 commands (the 6-seat Mush avalanche position's shape) give at most 16
    /// commands and 1 KB, every type among them, in the game's order, the same each time.
    #[test]
    fn a_long_legal_list_is_a_short_sample_of_every_type() {
        let mut list = commands("move_avalanche", 288, 40);
        list.extend(commands("place_avalanche", 144, 40));
        list.extend(commands("step", 147, 10));
        list.push(json!({"type": "declare_rest", "option": 1}));
        let sample = legal_sample(list.clone());
        assert!(sample.len() <= LEGAL_SAMPLE_COMMANDS, "{}", sample.len());
        assert!(bytes(&sample) <= LEGAL_SAMPLE_BYTES, "{}", bytes(&sample));
        for kind in ["move_avalanche", "place_avalanche", "step", "declare_rest"] {
            assert!(sample.iter().any(|c| c["type"] == kind), "no {kind}");
        }
        let positions: Vec<usize> = sample
            .iter()
            .map(|c| list.iter().position(|l| l == c).expect("a listed command"))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
        assert_eq!(legal_sample(list), sample);
    }

    /// Issue 31: the byte bound holds with large commands (Whisky Race trades reach 333 B), and
    /// a seat with moves never gets an empty list, even when one command is over the bound.
    #[test]
    fn the_byte_bound_holds_and_the_sample_is_never_empty() {
        let sample = legal_sample(commands("offer_trade", 40, 300));
        assert!(bytes(&sample) <= LEGAL_SAMPLE_BYTES, "{}", bytes(&sample));
        assert_eq!(sample.len(), 3);
        let huge = commands("offer_trade", 2, 2 * LEGAL_SAMPLE_BYTES);
        assert_eq!(legal_sample(huge.clone()), huge[..1]);
    }

    /// Issue 31: within a type the picks spread over its list, not its first commands.
    #[test]
    fn picks_spread_over_each_type() {
        let sample = legal_sample(commands("step", 100, 0));
        let picked: Vec<u64> = sample.iter().map(|c| c["i"].as_u64().unwrap()).collect();
        assert_eq!(picked.len(), LEGAL_SAMPLE_COMMANDS);
        assert_eq!(picked[..3], [0, 6, 12], "{picked:?}");
        assert!(*picked.last().unwrap() >= 90, "{picked:?}");
        for n in [1, 2, 3, 5, 8, 100, 577] {
            let mut order: Vec<usize> = spread(n).collect();
            assert_eq!(order[0], 0);
            order.sort_unstable();
            assert_eq!(
                order,
                (0..n).collect::<Vec<_>>(),
                "spread({n}) is a permutation"
            );
        }
    }
}
