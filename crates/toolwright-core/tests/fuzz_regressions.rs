//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as ordinary tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::json;
use toolwright_core::{ArgValidator, ErrorCode};

/// Found by `validate_args` (a stack overflow, SIGSEGV): lenient coercion looked for the types an
/// `anyOf` allows by following each option, and an option that refers back to its own schema
/// through `$ref` sent it round forever.
#[test]
fn an_any_of_that_refers_to_itself_does_not_overflow_the_stack() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}},
                        "$defs": {"d0": {"anyOf": [{"$ref": "#/$defs/d0"}]}}});
    let v = ArgValidator::new(&schema).unwrap();
    // A string holding the object: coerced to the object, then its fields are coerced.
    let (args, coerced) = v.check(json!("{\"x\": 1}"), true).unwrap();
    assert_eq!(args, json!({"x": 1}));
    assert_eq!(coerced.len(), 1);
    assert!(v.check(json!({"x": "5"}), true).is_ok());
}

/// Two options that each refer back to the schema would visit 2^n subschemas without a bound.
#[test]
fn self_referring_options_are_visited_a_bounded_number_of_times() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}},
                        "$defs": {"d0": {"anyOf": [{"$ref": "#/$defs/d0"}, {"$ref": "#/$defs/d0"},
                                                   {"type": "integer"}]}}});
    let v = ArgValidator::new(&schema).unwrap();
    for args in [
        json!({"x": "7"}),
        json!("{\"x\": \"seven\"}"),
        json!({"x": [{"y": 1}]}),
    ] {
        match v.check(args, true) {
            Ok(_) => {}
            Err(e) => assert_eq!(e.code, ErrorCode::Validation, "{e:?}"),
        }
    }
}
