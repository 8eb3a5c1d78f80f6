#![allow(clippy::indexing_slicing, clippy::unwrap_used)]
//! Router speed: index build and top-5 query latency over 100, 1,000, 3,000 and 10,000
//! synthetic tools (names, descriptions and parameters drawn from a 4,000-word vocabulary with a
//! Zipf-like skew, so some words are common and most are rare, as in real toolsets).
//!
//! `cargo bench -p toolwright-catalog --bench router`; medians are in
//! `target/criterion/<group>/<size>/new/estimates.json`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use toolwright_catalog::router::Router;
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

criterion_group!(benches, bench);
criterion_main!(benches);
