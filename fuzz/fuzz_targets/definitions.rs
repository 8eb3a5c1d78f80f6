//! Definition files (`toolwright_core::defs::parse_definitions`, what `--defs FILE` reads): an
//! OpenAI `tools` array, bare `{name, description, parameters}` objects, an MCP `tools/list`
//! result, from any bytes that are JSON.
//!
//! Checks: no panic; each spec either compiles into a `ToolEntry` or is refused with an error;
//! exporting a spec as an MCP tool (`tool_json`) and reading that back (as a definition and
//! through the MCP import, `spec_from_mcp_tool`) keeps its name, description and schema; specs
//! with valid unique names survive a catalog export and parse unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;
use toolwright_core::defs::parse_definitions;
use toolwright_core::{DefinitionOnly, ToolEntry};

fuzz_target!(|data: &[u8]| {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(specs) = parse_definitions(&v) else {
        return;
    };
    for spec in &specs {
        let _ = ToolEntry::new(Arc::new(DefinitionOnly::new(spec.clone())));
        let mcp = toolwright_mcp::tool_json(spec);
        let back = parse_definitions(&mcp).expect("an exported MCP tool reads back");
        assert_eq!(back.len(), 1);
        let b = &back[0];
        assert_eq!((&b.name, &b.description), (&spec.name, &spec.description));
        if spec.parameters.is_object() {
            assert_eq!(b.parameters, spec.parameters);
        }
        let imported = toolwright_mcp::spec_from_mcp_tool(&mcp, &spec.name, 1000);
        assert_eq!(imported.parameters, b.parameters);
    }
    let mut names = HashSet::new();
    let exportable = specs.iter().all(|s| {
        toolwright_core::is_valid_tool_name(&s.name)
            && s.parameters.is_object()
            && names.insert(s.name.clone())
    });
    if exportable {
        let yaml = toolwright_catalog::catalog::export(&specs, "fuzz").expect("export");
        let catalog = toolwright_catalog::catalog::parse(&yaml, None)
            .unwrap_or_else(|e| panic!("an exported catalog does not parse: {e}\n{yaml}"));
        let round: Vec<_> = catalog
            .to_specs()
            .into_iter()
            .map(|s| (s.name, s.parameters))
            .collect();
        let orig: Vec<_> = specs
            .iter()
            .map(|s| (s.name.clone(), s.parameters.clone()))
            .collect();
        assert_eq!(round, orig, "specs changed through the catalog:\n{yaml}");
    }
});
