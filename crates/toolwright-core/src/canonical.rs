//! Canonical JSON (sorted keys) and short hashes of it, for idempotency keys and approval ids.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `v` with object keys sorted recursively, so equal values serialize identically.
pub fn canonicalize(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                if let Some(x) = m.get(k) {
                    out.insert(k.clone(), canonicalize(x));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonicalize).collect()),
        other => other.clone(),
    }
}

/// The canonical serialization of `v`.
pub fn canonical_string(v: &Value) -> String {
    serde_json::to_string(&canonicalize(v)).unwrap_or_default()
}

/// SHA-256 of the canonical serialization, hex.
pub fn hash(v: &Value) -> String {
    hash_bytes(canonical_string(v).as_bytes())
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn hash_bytes(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 16 hex digits of [`hash`].
pub fn short_hash(v: &Value) -> String {
    hash(v).chars().take(16).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_hash() {
        assert_eq!(
            hash(&json!({"a": 1, "b": [1, {"y": 2, "x": 1}]})),
            hash(&json!({"b": [1, {"x": 1, "y": 2}], "a": 1}))
        );
        assert_ne!(hash(&json!({"a": 1})), hash(&json!({"a": 2})));
    }
}
