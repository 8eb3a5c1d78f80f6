#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! What a "no tool fits" rule reads on BFCL, where no request was used to fit it: each request
//! against its own functions (hybrid router, the provider's 3 candidates), one JSON line per
//! request with the category, whether a function fits (the `irrelevance` categories: none
//! does), the router's evidence (objects read by meaning, as the provider reads them), whether
//! the first candidate's parameters have an allowed value that the request names, and "object
//! missing" as read by the objects' words alone. `toolwright eval --dataset` fits rules on the
//! MCP dev set; this measures them on requests and tools from elsewhere.
//!
//! ```text
//! TOOLWRIGHT_BFCL_DIR=/tmp/bfcl/whl/bfcl_eval/data \
//!   cargo run --release -p toolwright-eval --features embed --example bfcl_no_tool > bfcl-no-tool.jsonl
//! ```

#[path = "../tests/common/bfcl.rs"]
mod bfcl;

use serde_json::{Value, json};
use toolwright_agent::Ranker;
use toolwright_agent::routing::CatalogRanker;
use toolwright_catalog::ScorerKind;
use toolwright_core::ToolSpec;
use toolwright_local::select::{NoToolRule, evidence, evidence_with};

/// The requests of an `irrelevance` category (no answers: no function fits any of them).
fn irrelevant(dir: &std::path::Path, category: &str) -> Vec<bfcl::Case> {
    let text = std::fs::read_to_string(dir.join(format!("BFCL_v4_{category}.json"))).unwrap();
    // Every question parses as a case once it is given a placeholder answer.
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|mut v| {
            v["ground_truth"] = json!([{"none": {}}]);
            v.to_string()
        })
        .collect();
    bfcl::parse_cases(&lines.join("\n"), None)
}

fn line(category: &str, c: &bfcl::Case, fits: bool) -> Option<Value> {
    let specs: Vec<ToolSpec> = c.functions.clone();
    let setup =
        toolwright_local::routing::build_router(specs, Some(ScorerKind::Hybrid), &mut |_, _| {})
            .ok()?;
    let ranker = CatalogRanker::from_router(setup.router);
    let ranked = ranker.rank(&c.query, 3);
    // Objects read by meaning, as the provider reads them (the default rule's floor).
    let embedder = toolwright_local::routing::shared_embedder().ok();
    let synonyms = NoToolRule::default()
        .object_synonym
        .and_then(|floor| embedder.as_deref().map(|e| (e, floor)));
    let e = evidence_with(&ranked, &c.query, &c.functions, synonyms)?;
    let names_value = ranked.first().is_some_and(|f| {
        c.functions
            .iter()
            .find(|s| s.name == f.name)
            .is_some_and(|s| {
                toolwright_local::narrow::narrow_for_query(s, &c.query)
                    .1
                    .names_allowed_value()
            })
    });
    let first_right = ranked.first().is_some_and(|f| c.expected.contains(&f.name));
    Some(json!({
        "category": category, "id": c.id, "oos": !fits, "query": c.query,
        "n": c.functions.len(), "evidence": e, "names_value": names_value,
        "object_missing_by_words": evidence(&ranked, &c.query, &c.functions).map(|e| e.object_missing),
        "first_right": first_right,
    }))
}

fn main() {
    let Some(dir) = bfcl::data_dir("bfcl_no_tool") else {
        std::process::exit(2);
    };
    for category in ["irrelevance", "live_irrelevance"] {
        for c in irrelevant(&dir, category) {
            if let Some(l) = line(category, &c, false) {
                println!("{l}");
            }
        }
    }
    for category in ["simple_python", "multiple", "live_simple", "live_multiple"] {
        for c in bfcl::load_category(&dir, category) {
            if let Some(l) = line(category, &c, true) {
                println!("{l}");
            }
        }
    }
}
