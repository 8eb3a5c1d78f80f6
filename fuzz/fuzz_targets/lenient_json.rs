//! The lenient JSON reader (`toolwright_agent::lenient::parse`) on any UTF-8 text.
//!
//! Checks: no panic, no stack overflow (its depth bound holds); what it returns is an object or
//! an array no deeper than `MAX_DEPTH` (+1 for the outer container); an error's position lies
//! within the text; text that is already strict JSON (an object or array, no code fence) reads
//! exactly as `serde_json` reads it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright_agent::lenient::{MAX_DEPTH, parse};

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text) {
        Ok(v) => {
            assert!(v.is_object() || v.is_array(), "not a container: {v}");
            if !text.contains("```") {
                if let Ok(strict) = serde_json::from_str::<Value>(text.trim())
                    && (strict.is_object() || strict.is_array())
                {
                    assert_eq!(v, strict, "strict JSON read differently");
                    return;
                }
            }
            assert!(
                depth(&v) <= MAX_DEPTH + 1,
                "depth {} over the bound",
                depth(&v)
            );
        }
        Err(e) => {
            assert!(
                e.position <= text.chars().count(),
                "position {} past the end",
                e.position
            );
            assert!(!e.message.is_empty());
        }
    }
});
