//! The per-game hash chain: `hash = SHA-256(prev_hash ‖ canonical event bytes)`.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `prev_hash` of a game's first event.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The fields of an event that the chain covers.
pub struct ChainedEvent<'a> {
    pub game_id: uuid::Uuid,
    pub seq: u64,
    pub kind: &'a str,
    pub schema_version: u32,
    pub command_id: uuid::Uuid,
    pub actor: Option<u8>,
    pub payload: &'a Value,
}

/// Canonical JSON: objects with keys sorted by byte order, no whitespace. PostgreSQL's jsonb
/// reorders keys, so the chain must not depend on key order.
pub fn canonical_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                canonical_json(&map[*key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

pub fn event_hash(prev_hash: &str, event: &ChainedEvent<'_>) -> String {
    let mut text = String::with_capacity(256);
    text.push_str(&format!(
        "{}|{}|{}|{}|{}|{}|",
        event.game_id,
        event.seq,
        event.kind,
        event.schema_version,
        event.command_id,
        event.actor.map(|a| a.to_string()).unwrap_or_default()
    ));
    canonical_json(event.payload, &mut text);
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(text.as_bytes());
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_ignores_key_order() {
        let mut a = String::new();
        let mut b = String::new();
        canonical_json(&json!({"b": 1, "a": [1, {"y": 2, "x": "é"}]}), &mut a);
        canonical_json(
            &serde_json::from_str::<Value>(r#"{"a":[1,{"x":"é","y":2}],"b":1}"#).unwrap(),
            &mut b,
        );
        assert_eq!(a, b);
        assert_eq!(a, r#"{"a":[1,{"x":"é","y":2}],"b":1}"#);
    }

    #[test]
    fn any_change_changes_the_hash() {
        let payload = json!({"type": "x", "n": 1});
        let event = ChainedEvent {
            game_id: uuid::Uuid::nil(),
            seq: 1,
            kind: "x",
            schema_version: 1,
            command_id: uuid::Uuid::nil(),
            actor: Some(1),
            payload: &payload,
        };
        let h = event_hash(GENESIS, &event);
        let other = json!({"type": "x", "n": 2});
        assert_ne!(
            h,
            event_hash(
                GENESIS,
                &ChainedEvent {
                    payload: &other,
                    ..event
                }
            )
        );
        let event = ChainedEvent {
            payload: &payload,
            seq: 2,
            ..event
        };
        assert_ne!(h, event_hash(GENESIS, &event));
    }
}
