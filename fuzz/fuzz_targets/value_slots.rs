//! Reading a generated call's string values (`toolwright_local::scoring`): any text through
//! `string_slots`, and a generated schema with an `enum` through `offers`.
//!
//! Checks: no panic or hang on any text (cut, nested, escaped, not JSON at all); every slot's
//! offsets are ordered char boundaries of the text, its value quoted and its prefix ends with
//! the key's `:`; every offer's written value is among its values, and each continuation
//! is the value as a JSON string after the written spacing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolwright_core::ToolSpec;
use toolwright_local::scoring::{offers, string_slots};

fuzz_target!(|data: (&str, Vec<String>)| {
    let (text, values) = data;
    for s in string_slots(text) {
        assert!(s.after_colon <= s.start && s.start < s.end, "{s:?}");
        let value = text.get(s.start..s.end).expect("char boundaries");
        assert!(value.len() >= 2 && value.starts_with('"') && value.ends_with('"'), "{value}");
        assert!(text.get(..s.after_colon).is_some_and(|p| p.ends_with(':')));
    }
    let spec = ToolSpec::new(
        "f",
        "",
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": values}}}),
    );
    let args = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("arguments").cloned())
        .unwrap_or(Value::Null);
    for o in offers(text, &spec, &args) {
        let written = &o.values[o.chosen];
        assert_eq!(args.get(&o.key).and_then(Value::as_str), Some(written.as_str()));
        for (v, c) in o.values.iter().zip(&o.continuations) {
            assert!(c.ends_with(&Value::String(v.clone()).to_string()), "{c}");
        }
    }
});
