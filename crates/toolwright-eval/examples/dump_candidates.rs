#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps the hybrid router's top candidates (product defaults, as `toolwright eval` and
//! `bfcl_recall` build it) for the MCP dev set, the held-out MCP test set and pooled BFCL, as
//! JSONL, for offline
//! re-ranking experiments.
//!
//! ```text
//! TOOLWRIGHT_BFCL_DIR=.../bfcl_eval/data \
//!   cargo run --release -p toolwright-eval --features embed --example dump_candidates [OUT] [K]
//! ```
//!
//! `OUT` defaults to stdout, `K` (candidates per request) to 30. Lines are of two kinds:
//! - `{"kind":"tool","set":..,"name":..,"text":..,"headline":..,"description":..,"server":..}`,
//!   one per tool of each catalog (`text` is what the embedder embeds);
//! - `{"kind":"request","set":"mcp"|"mcp-test"|"bfcl","category":..,"id":..,"query":..,"expected":[..],
//!   "cands":[{"name":..,"score":..,"lexical":..,"similarity":..},..]}`, the candidates in the
//!   router's order. MCP: the in-scope requests only, every tool as one catalog; BFCL: the
//!   categories `multiple`, `simple_python`, `live_simple`, `live_multiple` against the pool of
//!   every distinct BFCL function.
//!
//! Recall@1/@5 read from the candidates' order are printed to stderr as a check.

#[cfg(feature = "embed")]
#[path = "../tests/common/bfcl.rs"]
mod bfcl;

#[cfg(feature = "embed")]
fn main() -> Result<(), String> {
    use serde_json::json;
    use std::io::Write;
    use toolwright_catalog::ScorerKind;
    use toolwright_catalog::dense::{headline_text, tool_text};
    use toolwright_catalog::router::Router;
    use toolwright_core::ToolSpec;
    use toolwright_eval::toolset::ToolsetDataset;

    let mut args = std::env::args().skip(1);
    let mut out: Box<dyn Write> = match args.next().filter(|a| a != "-") {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(&p).map_err(|e| format!("{p}: {e}"))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let k: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);

    let build = |specs: Vec<ToolSpec>| -> Result<Router, String> {
        toolwright_local::routing::build_router(specs, Some(ScorerKind::Hybrid), &mut |_, _| {})
            .map(|s| s.router)
    };
    let mut emit = |v: serde_json::Value| writeln!(out, "{v}").map_err(|e| e.to_string());
    let tools = |set: &str,
                 specs: &[ToolSpec],
                 emit: &mut dyn FnMut(serde_json::Value) -> Result<(), String>| {
        for s in specs {
            emit(json!({
                "kind": "tool", "set": set, "name": s.name, "text": tool_text(s),
                "headline": headline_text(s), "description": s.description,
                "server": s.meta.server,
            }))?;
        }
        Ok::<(), String>(())
    };
    // One request: its candidates, and whether the first / first five hold an expected tool.
    let request = |router: &Router,
                   set: &str,
                   category: &str,
                   id: &str,
                   query: &str,
                   expected: &[String]|
     -> (serde_json::Value, bool, bool) {
        let ranked = router.rank(query, k);
        let pos = ranked.iter().position(|r| expected.contains(&r.name));
        let cands: Vec<_> = ranked
            .iter()
            .map(|r| {
                json!({"name": r.name, "score": r.score, "lexical": r.lexical,
                       "similarity": r.similarity})
            })
            .collect();
        (
            json!({"kind": "request", "set": set, "category": category, "id": id,
                   "query": query, "expected": expected, "cands": cands}),
            pos == Some(0),
            pos.is_some_and(|p| p < 5),
        )
    };
    let report = |label: &str, n: usize, h1: usize, h5: usize| {
        let d = n.max(1) as f64;
        eprintln!(
            "{label:<28} n={n:<5} recall@1 {:.3}  @5 {:.3}",
            h1 as f64 / d,
            h5 as f64 / d
        );
    };

    // The MCP dev set and the held-out test set: each set's tools (with their servers) as one
    // catalog, its in-scope requests.
    for set in ["mcp", "mcp-test"] {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(set);
        let ds = ToolsetDataset::load(&dir).map_err(|e| e.to_string())?;
        tools(set, &ds.specs, &mut emit)?;
        let router = build(ds.specs.clone())?;
        let (mut n, mut h1, mut h5) = (0, 0, 0);
        for r in ds.requests.iter().filter(|r| !r.out_of_scope()) {
            let expected: Vec<String> = r.right_tools().into_iter().map(str::to_string).collect();
            let (v, a, b) = request(&router, set, &r.server, &r.id, &r.query, &expected);
            emit(v)?;
            n += 1;
            h1 += usize::from(a);
            h5 += usize::from(b);
        }
        report(&format!("{set}, hybrid"), n, h1, h5);
    }

    // Pooled BFCL.
    let Some(bdir) = bfcl::data_dir("dump_candidates") else {
        return Ok(());
    };
    let pool = bfcl::all_functions(&bdir);
    tools("bfcl", &pool, &mut emit)?;
    let router = build(pool)?;
    let (mut tn, mut t1, mut t5) = (0, 0, 0);
    for category in ["multiple", "simple_python", "live_simple", "live_multiple"] {
        let (mut n, mut h1, mut h5) = (0, 0, 0);
        for c in bfcl::load_category(&bdir, category) {
            let (v, a, b) = request(&router, "bfcl", category, &c.id, &c.query, &c.expected);
            emit(v)?;
            n += 1;
            h1 += usize::from(a);
            h5 += usize::from(b);
        }
        report(&format!("bfcl {category}, hybrid"), n, h1, h5);
        (tn, t1, t5) = (tn + n, t1 + h1, t5 + h5);
    }
    report("bfcl all, hybrid", tn, t1, t5);
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("dump_candidates: build with --features embed");
}
