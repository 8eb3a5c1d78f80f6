#![allow(clippy::indexing_slicing, clippy::unwrap_used)]
//! Router speed: index build and top-5 query latency over 100, 1,000, 3,000 and 10,000
//! synthetic tools (names, descriptions and parameters drawn from a 4,000-word vocabulary with a
//! Zipf-like skew, so some words are common and most are rare, as in real toolsets).
//!
//! Dense and hybrid rows use 384-dimension vectors (all-MiniLM-L6-v2's size) from a stand-in
//! embedder that hashes the text, so they measure the routing work after the query is embedded
//! (the dot products, the fusion) and the cost of loading 10,000 cached tool vectors, not the
//! model (its own bench is `toolwright-local`'s `embed`).
//!
//! The `lint` group lints 5,000, 10,000 and 20,000 of the same synthetic tools (every rule; the
//! pairwise overlap rule TW009 dominates): issue 14 measured 18.3 s for 20,000 before its
//! pruned index; with it, 0.48 / 1.32 / 5.1 s for 5k / 10k / 20k here (2 cores under load).
//! The target is under 2 s for 20,000, which is not met yet.
//!
//! `cargo bench -p toolwright-catalog --bench router`; medians are in
//! `target/criterion/<group>/<size>/new/estimates.json`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use toolwright_catalog::dense::{DenseIndex, EmbeddingCache};
use toolwright_catalog::embed::{EmbedError, Embedder, normalize};
use toolwright_catalog::router::{DenseScorer, Router, ScorerKind};
use toolwright_core::ToolSpec;

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ne", "ro", "ta", "vi", "su", "pe", "da", "zo", "fi", "gu", "ha", "je", "bo",
    "cre", "dra", "sto", "pla", "tri", "qua", "mon", "ser", "vel", "tor", "lin", "gar",
];
const VERBS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "convert",
    "calculate",
    "send",
    "book",
    "cancel",
    "check",
    "find",
    "read",
    "write",
    "schedule",
    "translate",
    "estimate",
    "compare",
    "track",
];

/// A small deterministic generator (xorshift), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Zipf-like index in 0..n: small indices much more likely.
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary(n: usize) -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..n)
        .map(|_| {
            let len = 2 + (rng.next() % 3) as usize;
            (0..len)
                .map(|_| SYLLABLES[(rng.next() as usize) % SYLLABLES.len()])
                .collect::<String>()
        })
        .collect()
}

fn tools(n: usize, vocab: &[String]) -> Vec<ToolSpec> {
    let mut rng = Rng(42 + n as u64);
    (0..n)
        .map(|i| {
            let verb = VERBS[(rng.next() as usize) % VERBS.len()];
            let noun = &vocab[rng.skewed(vocab.len())];
            let words: Vec<&str> = (0..14 + rng.next() % 12)
                .map(|_| vocab[rng.skewed(vocab.len())].as_str())
                .collect();
            let description = format!(
                "{} {noun}. Use this when the user asks about {}.",
                words.join(" "),
                words[..4].join(" ")
            );
            let mut props = serde_json::Map::new();
            for p in 0..1 + rng.next() % 4 {
                let pname = format!("{}_{p}", vocab[rng.skewed(vocab.len())]);
                let pdesc: Vec<&str> = (0..5)
                    .map(|_| vocab[rng.skewed(vocab.len())].as_str())
                    .collect();
                props.insert(
                    pname,
                    json!({"type": "string", "description": pdesc.join(" ")}),
                );
            }
            ToolSpec::new(
                format!("{verb}_{noun}_{i}"),
                description,
                json!({"type": "object", "properties": props}),
            )
        })
        .collect()
}

fn queries(vocab: &[String]) -> Vec<String> {
    let mut rng = Rng(7);
    (0..64)
        .map(|_| {
            let words: Vec<&str> = (0..3 + rng.next() % 6)
                .map(|_| vocab[rng.skewed(vocab.len())].as_str())
                .collect();
            format!(
                "please {} the {}",
                VERBS[(rng.next() as usize) % VERBS.len()],
                words.join(" ")
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let vocab = vocabulary(4000);
    let qs = queries(&vocab);
    let sizes = [100usize, 1_000, 3_000, 10_000];
    let mut build = c.benchmark_group("router_build");
    build.sample_size(10);
    for &n in &sizes {
        let specs = tools(n, &vocab);
        build.bench_with_input(BenchmarkId::from_parameter(n), &specs, |b, specs| {
            b.iter(|| Router::new(black_box(specs)))
        });
    }
    build.finish();
    let mut query = c.benchmark_group("router_top5");
    for &n in &sizes {
        let router = Router::new(&tools(n, &vocab));
        let mut i = 0usize;
        query.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                i = (i + 1) % qs.len();
                black_box(router.rank(black_box(&qs[i]), 5))
            })
        });
    }
    query.finish();
}

/// Stand-in embedder: a unit vector of 384 pseudo-random components seeded by the text.
struct Hashed;
impl Embedder for Hashed {
    fn model_id(&self) -> &str {
        "hashed@bench"
    }
    fn dim(&self) -> usize {
        384
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| {
                let seed = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                let mut rng = Rng(seed | 1);
                let mut v: Vec<f32> = (0..384)
                    .map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0)
                    .collect();
                normalize(&mut v);
                v
            })
            .collect())
    }
}

fn bench_dense(c: &mut Criterion) {
    let vocab = vocabulary(4000);
    let qs = queries(&vocab);
    let n = 10_000;
    let specs = tools(n, &vocab);
    let dir = std::env::temp_dir().join(format!("tw-bench-vec-{}", std::process::id()));
    let cache = EmbeddingCache::new(&dir);
    let embedder: Arc<dyn Embedder> = Arc::new(Hashed);
    let index = DenseIndex::build(&specs, embedder.as_ref(), Some(&cache), &mut |_, _| {}).unwrap();
    let mut load = c.benchmark_group("dense_index_load_cached");
    load.sample_size(10);
    load.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter(|| {
            DenseIndex::build(black_box(&specs), &Hashed, Some(&cache), &mut |_, _| {}).unwrap()
        })
    });
    load.finish();
    let dense = DenseScorer::new(Arc::new(index), embedder);
    let mut query = c.benchmark_group("router_top5_after_embedding");
    for kind in [ScorerKind::Dense, ScorerKind::Hybrid] {
        let router = Router::new(&specs).with_dense(dense.clone(), kind);
        let mut i = 0usize;
        query.bench_function(BenchmarkId::new(kind.as_str(), n), |b| {
            b.iter(|| {
                i = (i + 1) % qs.len();
                black_box(router.rank(black_box(&qs[i]), 5))
            })
        });
    }
    query.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

fn bench_lint(c: &mut Criterion) {
    let vocab = vocabulary(4000);
    let mut group = c.benchmark_group("lint");
    group.sample_size(10);
    for n in [5_000usize, 10_000, 20_000] {
        let specs = tools(n, &vocab);
        let options = toolwright_catalog::lint::LintOptions::default();
        group.bench_with_input(BenchmarkId::from_parameter(n), &specs, |b, specs| {
            b.iter(|| black_box(toolwright_catalog::lint::lint(specs, &options)).len());
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_dense, bench_lint);
criterion_main!(benches);
