#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps, for every request of a shared-toolset dataset, what a "no tool fits" rule could read:
//! the hybrid router's similarities and scaled lexical scores for every tool (the request
//! embedded as the router embeds it), and the evidence of its first 3 candidates (objects read
//! by meaning, as the embedded provider reads them). For offline
//! analysis of out-of-scope features.
//!
//! `cargo run --release -p toolwright-eval --features embed --example no_tool_features [DIR] > out.json`

mod common;

use serde_json::json;
use toolwright_agent::Ranker;
use toolwright_local::select::{NoToolRule, evidence_with};

fn main() -> Result<(), String> {
    let ds = common::load_dataset()?;
    let ranker = common::hybrid_ranker(&ds)?;
    let router = ranker.router();
    let scale = router.lexical_scale();
    // The request as written, without the value words the router appends ("(time)", "(url)"):
    // what a "no tool fits" rule reads when it asks whether a tool does what is asked.
    let emb = toolwright_local::routing::shared_embedder()?;
    let tool_vecs = common::tool_vectors(emb.as_ref(), &ds);
    let bm25 = toolwright_catalog::router::Bm25::new(&ds.specs);
    // Objects read by meaning, as the provider reads them (the default rule's floor).
    let synonyms = NoToolRule::default()
        .object_synonym
        .map(|floor| (emb.as_ref() as &dyn toolwright_catalog::Embedder, floor));
    let reqs: Vec<_> = ds
        .requests
        .iter()
        .map(|r| {
            let s = router.scores(&r.query);
            let ranked = ranker.rank(&r.query, 3);
            let e = evidence_with(&ranked, &r.query, &ds.specs, synonyms);
            let names_value: Vec<bool> = ranked
                .iter()
                .map(|c| {
                    ds.specs.iter().find(|s| s.name == c.name).is_some_and(|s| {
                        toolwright_local::narrow::narrow_for_query(s, &r.query)
                            .1
                            .names_allowed_value()
                    })
                })
                .collect();
            let lex: Vec<f32> = s.lexical.iter().map(|l| l / scale).collect();
            let plain = toolwright_catalog::values::without_quoted(&r.query);
            let q = emb
                .embed(&[plain.as_str()])
                .map_err(|e| e.to_string())
                .unwrap()
                .remove(0);
            let sims_plain: Vec<f32> = tool_vecs
                .iter()
                .map(|t| toolwright_catalog::embed::dot(&q, t))
                .collect();
            let mut lex_plain = vec![0.0f32; ds.specs.len()];
            toolwright_catalog::router::Scorer::score_into(&bm25, &r.query, &mut lex_plain);
            let lex_plain: Vec<f32> = lex_plain.iter().map(|l| l / scale).collect();
            json!({
                "id": r.id, "server": r.server, "query": r.query, "oos": r.out_of_scope(),
                "right": r.right_tools(),
                "top": ranked.iter().map(|c| &c.name).collect::<Vec<_>>(),
                "sims": s.similarity, "lex": lex, "fused": s.fused, "evidence": e,
                "sims_plain": sims_plain, "lex_plain": lex_plain, "names_value": names_value,
            })
        })
        .collect();
    let names: Vec<&str> = ds.specs.iter().map(|s| s.name.as_str()).collect();
    println!("{}", json!({"tools": names, "requests": reqs}));
    Ok(())
}
