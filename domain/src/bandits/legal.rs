//! `legal` (the concrete list simple bots pick from) and `prompts`, both drawn from
//! [`super::choices`], the contract: no second source of truth.

use super::choices::{choices, kinds};
use super::command::Command;
use super::evolve::control::awaiting;
use super::state::*;
use crate::choices::enumerate;
use crate::engine::{Prompt, Seat};
use serde_json::{Value, json};

/// More instances than any family has (paths are never capped; the largest families seen in
/// simulations have a few hundred).
const LEGAL_CAP: usize = 1_000_000;

/// Every command `decide` accepts from `seat` now, once per meaning (BD-514: every card id;
/// a set of cards in one order; a field that may be left out is left out unless it means
/// something).
pub fn legal(st: &State, seat: Seat) -> Vec<Command> {
    legal_from(&choices(st, seat))
}

/// [`legal`] drawn from `families`, the seat's [`choices`] already computed.
pub fn legal_from(families: &[crate::choices::Family]) -> Vec<Command> {
    let mut out = Vec::new();
    for family in families {
        let instances = enumerate(&canonical(&family.schema), LEGAL_CAP).unwrap_or_default();
        out.extend(
            instances
                .into_iter()
                .filter_map(|v| serde_json::from_value::<Command>(v).ok()),
        );
    }
    out
}

/// `schema` with each optional field reduced to its distinct meanings: a field with a
/// `default` is written with it, a field that can only be left out (`null`, `[]`) is left out,
/// and `null` is not listed beside leaving the field out.
fn canonical(schema: &Value) -> Value {
    let mut schema = schema.clone();
    canonicalize(&mut schema);
    schema
}

fn canonicalize(schema: &mut Value) {
    if let Some(Value::Array(branches)) = schema.get_mut("oneOf") {
        branches.iter_mut().for_each(canonicalize);
    }
    let Value::Object(map) = schema else {
        return;
    };
    let mut required: Vec<Value> = match map.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    let Some(Value::Object(props)) = map.get_mut("properties") else {
        return;
    };
    props.retain(|name, field| {
        if required.contains(&json!(name)) {
            return true;
        }
        if let Some(value) = field.get("default").cloned() {
            *field = json!({ "const": value });
            required.push(json!(name));
            return true;
        }
        if *field == json!({"const": null}) || *field == json!({"const": []}) {
            return false;
        }
        if let Some(Value::Array(values)) = field.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        true
    });
    map.insert("required".into(), Value::Array(required));
}

/// One prompt: the seat the game waits for (every Bandits decision waits for its seat, so it
/// **must** act) and the command kinds it has.
///
/// Prompts are public, so the kinds never depend on hidden cards (BD-503): a kind that needs a
/// card (a Bodyguard, a Jet-pack path …) is listed whenever the seat holds usable cards, as if
/// they could be of any kind (their number is public, BD-500); with no usable card the kinds
/// are exactly the kinds of the seat's `choices`. They never omit a kind of its `choices`.
pub fn prompts(st: &State) -> Vec<Prompt> {
    let Some(w) = awaiting(st) else {
        return Vec::new();
    };
    let usable = st
        .hands
        .get(w.seat.index())
        .map_or(0, |h| h.iter().filter(|c| c.received < st.turn).count());
    // The families' kinds only (`choices::kinds`: no paths' schemas, issue 31).
    let mut present = kinds(st, w.seat);
    if usable > 0 {
        present.extend(kinds(&with_any_cards(st, w.seat, usable), w.seat));
    }
    let listed: Vec<&'static str> = w
        .kinds
        .iter()
        .copied()
        .filter(|k| present.iter().any(|p| p == k))
        .collect();
    vec![Prompt::new(w.seat, &listed)]
}

/// `st` with `seat`'s hand replaced by `n` usable cards of every kind (at most 6): what the
/// seat could do with any hand of its public size.
pub(super) fn with_any_cards(st: &State, seat: Seat, n: usize) -> State {
    let mut any = st.clone();
    let n = n.min(6) as u8;
    if let Some(hand) = any.hands.get_mut(seat.index()) {
        *hand = (0..7u8)
            .flat_map(|kind| (1..=n).map(move |i| Card(kind * 6 + i)))
            .map(|card| HandCard { card, received: 0 })
            .collect();
    }
    any
}
