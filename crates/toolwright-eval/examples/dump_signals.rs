#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps the raw routing signals of a shared-toolset dataset (tool and query embeddings, BM25
//! scores) as JSON, for offline analysis of re-ranking and out-of-scope features.
//!
//! `cargo run --release -p toolwright-eval --features embed --example dump_signals [DIR] > out.json`

mod common;

use serde_json::json;
use toolwright_catalog::Router;
use toolwright_catalog::dense::{headline_text, tool_text};

fn main() -> Result<(), String> {
    let ds = common::load_dataset()?;
    let emb = toolwright_local::routing::shared_embedder()?;
    let e = |t: &[String]| common::embed_all(emb.as_ref(), t);
    let names: Vec<String> = ds
        .specs
        .iter()
        .map(|s| toolwright_catalog::text::words(&s.name).join(" "))
        .collect();
    let full = e(&ds.specs.iter().map(tool_text).collect::<Vec<_>>());
    let head = e(&ds.specs.iter().map(headline_text).collect::<Vec<_>>());
    let name_v = e(&names);
    let router = Router::new(&ds.specs);
    let queries: Vec<String> = ds.requests.iter().map(|r| r.query.clone()).collect();
    let qv = e(&queries);
    let typed: Vec<String> = queries
        .iter()
        .map(|q| toolwright_catalog::values::with_value_words(q))
        .collect();
    let tv = e(&typed);
    let reqs: Vec<_> = ds
        .requests
        .iter()
        .zip(qv.iter().zip(&tv).zip(&typed))
        .map(|(r, ((v, t), tq))| {
            json!({
                "id": r.id, "server": r.server, "query": r.query, "oos": r.out_of_scope(),
                "right": r.right_tools(), "vec": v,
                "bm25": router.scores(&r.query).lexical,
                "tvec": t, "tbm25": router.scores(tq).lexical, "typed": tq,
                "terms": toolwright_catalog::text::terms(&r.query),
            })
        })
        .collect();
    let tools: Vec<_> = ds
        .specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({"name": s.name, "full": full[i], "head": head[i], "namev": name_v[i],
                   "terms": toolwright_catalog::text::terms(&tool_text(s))})
        })
        .collect();
    println!("{}", json!({"tools": tools, "requests": reqs}));
    Ok(())
}
