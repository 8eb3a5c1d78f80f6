#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Calibration of the hybrid router's fusion and of the out-of-scope floor on a shared-toolset
//! dataset (default: the MCP dev set), with a split by server so that a setting chosen on one
//! half is checked on the other.
//!
//! `cargo run --release -p toolwright-eval --features embed --example fusion_sweep [DIR]`
//! (needs the embedder: `toolwright model fetch`).

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use toolwright_catalog::embed::{EmbedError, Embedder};
use toolwright_core::ToolSpec;

/// Remembers query vectors, so a sweep embeds each query once.
struct Memo(Arc<dyn Embedder>, Mutex<HashMap<String, Vec<f32>>>);
impl Embedder for Memo {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dim(&self) -> usize {
        self.0.dim()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if let [one] = texts
            && let Some(v) = self.1.lock().unwrap().get(*one)
        {
            return Ok(vec![v.clone()]);
        }
        let out = self.0.embed(texts)?;
        if let ([one], [v]) = (texts, out.as_slice()) {
            self.1.lock().unwrap().insert(one.to_string(), v.clone());
        }
        Ok(out)
    }
}

/// Variants of the tool text, to choose what to embed.
fn variant(specs: &[ToolSpec], v: &str) -> Vec<ToolSpec> {
    specs
        .iter()
        .map(|s| {
            let mut s = s.clone();
            match v {
                "no-params" => s.parameters = serde_json::json!({"type": "object"}),
                "first-sentence" => {
                    let d = s
                        .description
                        .split(". ")
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    s.description = d;
                    s.parameters = serde_json::json!({"type": "object"});
                }
                "short" => {
                    s.description = s.description.chars().take(250).collect();
                    s.parameters = serde_json::json!({"type": "object"});
                }
                _ => {}
            }
            s
        })
        .collect()
}
use toolwright_catalog::dense::{DenseIndex, EmbeddingCache, default_cache_dir};
use toolwright_catalog::{DenseScorer, Fusion, Router, ScorerKind};
use toolwright_eval::routing::{best_similarities, calibrate_floor, refusals_at, route_metrics};
use toolwright_eval::toolset::Request;

fn main() -> Result<(), String> {
    let ds = common::load_dataset()?;
    let embedder: Arc<dyn Embedder> = Arc::new(Memo(
        toolwright_local::routing::shared_embedder()?,
        Mutex::new(HashMap::new()),
    ));
    let t = std::time::Instant::now();
    let index = DenseIndex::build(
        &ds.specs,
        embedder.as_ref(),
        Some(&EmbeddingCache::new(default_cache_dir())),
        &mut |_, _| {},
    )
    .map_err(|e| e.to_string())?;
    eprintln!("index of {} tools in {:?}", ds.specs.len(), t.elapsed());
    let dense = DenseScorer::new(Arc::new(index), embedder.clone());
    let router = |kind, fusion| {
        Router::new(&ds.specs)
            .with_dense(dense.clone(), kind)
            .with_fusion(fusion)
    };
    let _ = variant;
    // Two halves by server (alternating in sorted order), out-of-scope split alternately.
    let mut servers: Vec<&str> = ds.requests.iter().map(|r| r.server.as_str()).collect();
    servers.sort_unstable();
    servers.dedup();
    let half_a: Vec<&str> = servers.iter().copied().step_by(2).collect();
    let (mut a, mut b): (Vec<Request>, Vec<Request>) = (Vec::new(), Vec::new());
    let mut oos_i = 0;
    for r in &ds.requests {
        let to_a = if r.out_of_scope() {
            oos_i += 1;
            oos_i % 2 == 0
        } else {
            half_a.contains(&r.server.as_str())
        };
        if to_a {
            a.push(r.clone())
        } else {
            b.push(r.clone())
        }
    }
    println!("split: A {} requests ({half_a:?}), B {}", a.len(), b.len());
    let row = |name: &str, r: &Router| {
        let all = route_metrics(r, &ds.requests);
        let ma = route_metrics(r, &a);
        let mb = route_metrics(r, &b);
        println!(
            "{name:<34} all r@1 {:.3} r@5 {:.3} mrr {:.3} | A r@1 {:.3} r@5 {:.3} | B r@1 {:.3} r@5 {:.3}",
            all.recall_at_1,
            all.recall_at_5,
            all.mrr,
            ma.recall_at_1,
            ma.recall_at_5,
            mb.recall_at_1,
            mb.recall_at_5
        );
    };
    row("bm25", &Router::new(&ds.specs));
    row("dense", &router(ScorerKind::Dense, Fusion::default()));
    for k in [5.0, 60.0] {
        for w in [0.6, 0.8] {
            let f = Fusion::Rrf {
                k,
                dense_weight: w,
                depth: 50,
            };
            row(&format!("rrf k={k} w={w}"), &router(ScorerKind::Hybrid, f));
        }
    }
    for w in [0.7, 0.8, 0.85, 0.9, 0.92, 0.94, 0.96, 0.98] {
        let f = Fusion::Linear { dense_weight: w };
        row(&format!("linear w={w}"), &router(ScorerKind::Hybrid, f));
    }
    use toolwright_catalog::router::{Bm25, Bm25Params};
    for (b, rel) in [(0.75, 0.35), (0.75, 0.0), (0.9, 0.0), (0.6, 0.0)] {
        let params = Bm25Params {
            b,
            related_weight: rel,
            ..Bm25Params::default()
        };
        let lex = || Router::with_scorer(&ds.specs, Box::new(Bm25::with_params(&ds.specs, params)));
        row(&format!("bm25 b={b} related={rel}"), &lex());
        for f in [
            Fusion::Linear { dense_weight: 0.9 },
            Fusion::Linear { dense_weight: 0.94 },
        ] {
            row(
                &format!("  + {f:?}"),
                &lex()
                    .with_dense(dense.clone(), ScorerKind::Hybrid)
                    .with_fusion(f),
            );
        }
    }
    let h = router(ScorerKind::Hybrid, Fusion::default());
    let (pa, pb) = (best_similarities(&h, &a, 3), best_similarities(&h, &b, 3));
    let pall = best_similarities(&h, &ds.requests, 3);
    for budget in [0.02, 0.05] {
        let ca = calibrate_floor(&pa, budget);
        let cb = calibrate_floor(&pb, budget);
        let call = calibrate_floor(&pall, budget);
        println!(
            "in-scope budget {budget}: on A {ca:?}\n   → on B {:?}",
            ca.map(|c| refusals_at(&pb, c.floor))
        );
        println!(
            "   on B {cb:?}\n   → on A {:?}",
            cb.map(|c| refusals_at(&pa, c.floor))
        );
        println!("   on all {call:?}");
    }
    let mut oos: Vec<(f32, &str)> = ds
        .requests
        .iter()
        .filter(|r| r.out_of_scope())
        .map(|r| {
            let s = h.scores(&r.query).similarity;
            (s.iter().copied().fold(f32::MIN, f32::max), r.query.as_str())
        })
        .collect();
    oos.sort_by(|x, y| y.0.total_cmp(&x.0));
    for (s, q) in oos.iter().take(8) {
        println!("  oos {s:.3} {q}");
    }
    Ok(())
}
