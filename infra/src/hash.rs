//! The per-game hash chain: `hash = SHA-256(prev_hash ‖ canonical event bytes)`.

use crate::event::StoredEvent;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `prev_hash` of a game's first event.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

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

/// The hash of `event` in game `game_id`'s chain, linked to `event.prev_hash`. It covers the
/// entry's content, not how it is shown (`redacted` is not hashed).
pub fn event_hash(game_id: uuid::Uuid, event: &StoredEvent) -> String {
    let mut text = String::with_capacity(256);
    text.push_str(&format!(
        "{}|{}|{}|{}|{}|{}|",
        game_id,
        event.seq,
        event.kind,
        event.schema_version,
        event.command_id,
        event.actor.map(|a| a.to_string()).unwrap_or_default()
    ));
    canonical_json(&event.payload, &mut text);
    let mut hasher = Sha256::new();
    hasher.update(event.prev_hash.as_bytes());
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
        let event = StoredEvent {
            seq: 1,
            kind: "x".into(),
            payload: json!({"type": "x", "n": 1}),
            schema_version: 1,
            command_id: uuid::Uuid::nil(),
            actor: Some(1),
            recorded_at: time::OffsetDateTime::UNIX_EPOCH,
            prev_hash: GENESIS.into(),
            hash: String::new(),
            redacted: false,
        };
        let game = uuid::Uuid::nil();
        let h = event_hash(game, &event);
        let changed = [
            StoredEvent {
                payload: json!({"type": "x", "n": 2}),
                ..event.clone()
            },
            StoredEvent {
                seq: 2,
                ..event.clone()
            },
            StoredEvent {
                prev_hash: "1".repeat(64),
                ..event.clone()
            },
            StoredEvent {
                actor: None,
                ..event.clone()
            },
        ];
        for other in &changed {
            assert_ne!(h, event_hash(game, other), "{other:?}");
        }
        assert_ne!(h, event_hash(uuid::Uuid::from_u128(1), &event));
        // How an entry is shown is not part of it.
        let shown = StoredEvent {
            redacted: true,
            ..event.clone()
        };
        assert_eq!(h, event_hash(game, &shown));
    }
}
