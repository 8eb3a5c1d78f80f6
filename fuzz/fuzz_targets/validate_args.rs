//! Argument validation against generated schemas: a schema and arguments built from the input,
//! through `ToolEntry::new` (compile) and `ToolEntry::prepare` (coerce + validate), strict and
//! lenient.
//!
//! Checks: no panic; what `prepare` accepts validates without coercion (coercion never hands a
//! tool something its schema rejects); strict mode never coerces and returns the arguments
//! unchanged; anything strict accepts, lenient accepts unchanged; a rejection is a
//! `VALIDATION_ERROR` with at most 20 field errors that serializes.
#![no_main]

#[path = "../common/mod.rs"]
mod common;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use toolwright_core::{DefinitionOnly, ErrorCode, ToolEntry, ToolSpec};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(schema) = common::root_schema(&mut u) else {
        return;
    };
    let Ok(args) = common::args_for(&mut u, &schema, common::MAX_DEPTH + 1) else {
        return;
    };
    let spec = ToolSpec::new("fuzz_tool", "A tool with a generated schema.", schema);
    let Ok(entry) = ToolEntry::new(Arc::new(DefinitionOnly::new(spec))) else {
        return;
    };

    let strict = entry.prepare(args.clone(), false);
    let lenient = entry.prepare(args.clone(), true);
    match &strict {
        Ok((v, coerced)) => {
            assert!(coerced.is_empty(), "strict mode coerced: {coerced:?}");
            assert_eq!(v, &args, "strict mode changed the arguments");
            let (lv, lc) = lenient
                .as_ref()
                .expect("lenient rejected what strict accepted");
            assert!(
                lc.is_empty() && lv == &args,
                "lenient changed valid arguments"
            );
        }
        Err(e) => check_error(e),
    }
    match &lenient {
        Ok((v, _)) => {
            if let Err(e) = entry.validator.validate(v) {
                panic!("coerced arguments fail validation: {v} -> {e:?}");
            }
        }
        Err(e) => check_error(e),
    }
});

fn check_error(e: &toolwright_core::ToolError) {
    assert_eq!(e.code, ErrorCode::Validation, "{e:?}");
    assert!(e.fields.len() <= 20, "{} field errors", e.fields.len());
    serde_json::to_string(e).expect("a validation error serializes");
}
