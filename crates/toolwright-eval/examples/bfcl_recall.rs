//! Routing quality on BFCL: recall@1/3/5 of the BM25 router.
//!
//! ```text
//! pip download --no-deps bfcl-eval -d /tmp/bfcl && unzip -q /tmp/bfcl/bfcl_eval-*.whl -d /tmp/bfcl/whl
//! TOOLWRIGHT_BFCL_DIR=/tmp/bfcl/whl/bfcl_eval/data cargo run --release -p toolwright-eval --example bfcl_recall
//! ```
//!
//! Two settings: each `multiple` question against its own candidates (2-4 functions), and each
//! `multiple` / `simple_python` question against the pool of every distinct BFCL function.
//! Without the data it runs on the small hand-made fixture.

#[path = "../tests/common/bfcl.rs"]
mod bfcl;

use std::time::Instant;
use toolwright_catalog::router::Router;
use toolwright_core::ToolSpec;

fn line(label: &str, n: usize, r: [f64; 3]) {
    println!(
        "{label:<44} n={n:<5} recall@1 {:.3}  @3 {:.3}  @5 {:.3}",
        r[0], r[1], r[2]
    );
}

fn names(router: &Router, q: &str) -> Vec<String> {
    router.rank(q, 5).into_iter().map(|r| r.name).collect()
}

fn main() {
    let Some(dir) = bfcl::data_dir("bfcl_recall") else {
        let cases = bfcl::parse_cases(include_str!("../tests/fixtures/bfcl_sample.jsonl"), None);
        let r = bfcl::recall(&cases, |c| names(&Router::new(&c.functions), &c.query));
        line("fixture, own candidates", cases.len(), r);
        return;
    };
    for category in ["multiple", "live_multiple"] {
        let cases = bfcl::load_category(&dir, category);
        let r = bfcl::recall(&cases, |c| names(&Router::new(&c.functions), &c.query));
        line(&format!("{category}, own candidates"), cases.len(), r);
    }
    let pool: Vec<ToolSpec> = bfcl::all_functions(&dir);
    let t = Instant::now();
    let router = Router::new(&pool);
    let build = t.elapsed();
    println!(
        "pool: {} distinct functions, index built in {:.1} ms",
        pool.len(),
        build.as_secs_f64() * 1e3
    );
    for category in ["multiple", "simple_python", "live_simple", "live_multiple"] {
        let cases = bfcl::load_category(&dir, category);
        let t = Instant::now();
        let r = bfcl::recall(&cases, |c| names(&router, &c.query));
        let per = t.elapsed().as_secs_f64() * 1e6 / cases.len().max(1) as f64;
        line(&format!("{category}, whole pool"), cases.len(), r);
        println!("{:<44} {per:.0} µs per query (top-5)", "");
    }
    hybrid_pool(&dir, pool);
}

/// The same pool with the hybrid router (needs `--features embed` and `toolwright model fetch`).
#[cfg(feature = "embed")]
fn hybrid_pool(dir: &std::path::Path, pool: Vec<ToolSpec>) {
    let t = Instant::now();
    let setup = match toolwright_local::routing::build_router(
        pool,
        Some(toolwright_catalog::ScorerKind::Hybrid),
        &mut |_, _| {},
    ) {
        Ok(s) => s,
        Err(e) => {
            println!("hybrid pool skipped: {e}");
            return;
        }
    };
    println!(
        "hybrid pool: index ready in {:.1} s ({:?})",
        t.elapsed().as_secs_f64(),
        setup.stats
    );
    for category in ["multiple", "simple_python", "live_simple", "live_multiple"] {
        let cases = bfcl::load_category(dir, category);
        let r = bfcl::recall(&cases, |c| names(&setup.router, &c.query));
        line(&format!("{category}, whole pool, hybrid"), cases.len(), r);
        if std::env::var("TOOLWRIGHT_BFCL_MISSES").is_ok_and(|v| v == category) {
            print_misses(&cases, &setup.router);
        }
    }
}

/// Prints each case whose expected function is not in the top 5 (with `TOOLWRIGHT_BFCL_MISSES`
/// naming the category), for error analysis.
#[cfg(feature = "embed")]
fn print_misses(cases: &[bfcl::Case], router: &Router) {
    for c in cases {
        let top = names(router, &c.query);
        if !top.iter().any(|n| c.expected.contains(n)) {
            let q: String = c.query.chars().take(160).collect();
            println!(
                "MISS {} want {:?}\n  q: {q}\n  got {top:?}",
                c.id, c.expected
            );
        }
    }
}

#[cfg(not(feature = "embed"))]
fn hybrid_pool(_dir: &std::path::Path, _pool: Vec<ToolSpec>) {
    println!("hybrid pool: build with --features embed");
}
