//! Catalog YAML (`toolwright_catalog::catalog::parse`) on any UTF-8 text.
//!
//! Checks: no panic, no hang; a rejected catalog has a non-empty message; an accepted catalog
//! has valid, unique tool names and object schemas, and writing it back to YAML and reading
//! that again gives the same catalog (export and parse agree).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use toolwright_catalog::catalog::{parse, to_yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse(text, Some("fuzz.yaml")) {
        Ok(catalog) => {
            let mut names = HashSet::new();
            for t in &catalog.tools {
                assert!(toolwright_core::is_valid_tool_name(&t.name), "{:?}", t.name);
                assert!(names.insert(t.name.clone()), "duplicate {:?}", t.name);
                assert!(t.parameters.is_object());
            }
            let yaml = to_yaml(&catalog).expect("an accepted catalog writes back");
            let again = parse(&yaml, None)
                .unwrap_or_else(|e| panic!("the written catalog does not read back: {e}\n{yaml}"));
            assert_eq!(catalog, again, "the catalog changed through YAML:\n{yaml}");
            let _ = catalog.to_specs();
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
