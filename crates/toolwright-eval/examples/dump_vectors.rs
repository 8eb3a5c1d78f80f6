#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Dumps what the hybrid router's dense side sees, for offline experiments with the query's
//! vector (e.g. a query adapter): every tool's two vectors (full text and headline), and for every
//! in-scope request the vector of the query as the router embeds it, the lexical scores divided
//! by the query's best, the action bonus each tool gets and the expected tools.
//!
//! ```text
//! [TOOLWRIGHT_BFCL_DIR=.../bfcl_eval/data] \
//!   cargo run --release -p toolwright-eval --features embed --example dump_vectors -- OUT SET...
//! ```
//!
//! `SET` is a dataset directory under `data/` (`mcp`, `mcp-test`, ...) or `bfcl` (every distinct
//! BFCL function as one catalog; its four single-call categories). Lines of `OUT`:
//! - `{"kind":"tool","set":..,"name":..,"full":[..],"head":[..]}`;
//! - `{"kind":"request","set":..,"id":..,"query":..,"q":[..],"lex":{"i":v,..},"bonus":[i,..],
//!   "expected":[i,..],"top":[i,..]}` (`top`: the router's first 10, as a check).

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
    let path = args.next().ok_or("usage: dump_vectors OUT SET...")?;
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(&path).map_err(|e| format!("{path}: {e}"))?);
    let embedder = toolwright_local::routing::shared_embedder()?;
    let round = |v: Vec<f32>| -> Vec<f32> {
        v.into_iter()
            .map(|x| (x * 1e5).round() / 1e5)
            .collect::<Vec<_>>()
    };
    let embed = |t: &str| -> Result<Vec<f32>, String> {
        let mut v = embedder.embed(&[t]).map_err(|e| e.to_string())?;
        v.pop().ok_or_else(|| "no vector".to_string())
    };
    let mut dump = |set: &str,
                    specs: Vec<ToolSpec>,
                    requests: Vec<(String, String, Vec<String>)>|
     -> Result<(), String> {
        for s in &specs {
            let v = json!({"kind": "tool", "set": set, "name": s.name,
                "text": tool_text(s), "headline": headline_text(s),
                "full": round(embed(&tool_text(s))?), "head": round(embed(&headline_text(s))?)});
            writeln!(out, "{v}").map_err(|e| e.to_string())?;
        }
        let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
        let router: Router = toolwright_local::routing::build_router(
            specs.clone(),
            Some(ScorerKind::Hybrid),
            &mut |_, _| {},
        )?
        .router;
        let (mut n, mut h1) = (0usize, 0usize);
        for (id, query, expected) in requests {
            let typed = toolwright_catalog::values::with_value_words(&query);
            let qtext = toolwright_catalog::values::without_quoted(&typed);
            let q = embed(&qtext)?;
            let scores = router.scores(&query);
            let max = scores.lexical.iter().copied().fold(0.0f32, f32::max);
            let lex: serde_json::Map<String, serde_json::Value> = scores
                .lexical
                .iter()
                .enumerate()
                .filter(|(_, l)| **l > 0.0 && max > 0.0)
                .map(|(i, l)| (i.to_string(), json!(((l / max) * 1e4).round() / 1e4)))
                .collect();
            let wanted = toolwright_catalog::text::request_action(&typed);
            let bonus: Vec<usize> = specs
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    wanted.is_some() && toolwright_catalog::text::name_action(&s.name) == wanted
                })
                .map(|(i, _)| i)
                .collect();
            let exp: Vec<usize> = names
                .iter()
                .enumerate()
                .filter(|(_, nm)| expected.contains(nm))
                .map(|(i, _)| i)
                .collect();
            let top: Vec<usize> = router
                .rank_indices(&query, 10)
                .into_iter()
                .map(|(i, _)| i)
                .collect();
            n += 1;
            h1 += usize::from(top.first().is_some_and(|t| exp.contains(t)));
            let v = json!({"kind": "request", "set": set, "id": id, "query": query, "qtext": qtext, "lexq": typed, "q": round(q),
                "lex": lex, "bonus": bonus, "expected": exp, "top": top});
            writeln!(out, "{v}").map_err(|e| e.to_string())?;
        }
        eprintln!(
            "{set}: {n} requests, router recall@1 {:.3}",
            h1 as f64 / n.max(1) as f64
        );
        Ok(())
    };
    for set in args {
        if set == "bfcl" {
            let bdir = bfcl::data_dir("dump_vectors").ok_or("TOOLWRIGHT_BFCL_DIR")?;
            let pool = bfcl::all_functions(&bdir);
            let mut reqs = Vec::new();
            for category in ["multiple", "simple_python", "live_simple", "live_multiple"] {
                for c in bfcl::load_category(&bdir, category) {
                    reqs.push((format!("{category}/{}", c.id), c.query, c.expected));
                }
            }
            dump("bfcl", pool, reqs)?;
            continue;
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(&set);
        let ds = ToolsetDataset::load(&dir).map_err(|e| e.to_string())?;
        let reqs = ds
            .requests
            .iter()
            .filter(|r| !r.out_of_scope())
            .map(|r| {
                let e = r.right_tools().into_iter().map(str::to_string).collect();
                (r.id.clone(), r.query.clone(), e)
            })
            .collect();
        dump(&set, ds.specs.clone(), reqs)?;
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn main() {
    println!("dump_vectors: build with --features embed");
}
