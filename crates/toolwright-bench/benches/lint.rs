//! Lint: every rule (`toolwright_catalog::lint::lint`) and the pairwise overlap rule alone
//! (`overlap_pairs`, TW009) over 5,000 / 10,000 / 20,000 synthetic tools
//! ([`toolwright_bench::routing_corpus`]). Issue 14's target: 20,000 tools in under 2 s.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use toolwright_bench::routing_corpus;
use toolwright_catalog::lint::{LintOptions, lint, overlap_pairs};

fn lint_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("lint");
    let options = LintOptions::default();
    for n in [5_000usize, 10_000, 20_000] {
        let specs = routing_corpus(n);
        g.bench_with_input(BenchmarkId::new("all_rules", n), &specs, |b, s| {
            b.iter(|| black_box(lint(black_box(s), &options)))
        });
        g.bench_with_input(BenchmarkId::new("overlap_pairs", n), &specs, |b, s| {
            b.iter(|| black_box(overlap_pairs(black_box(s), options.overlap_threshold)))
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
}

criterion_group! { name = benches; config = config(); targets = lint_bench }
criterion_main!(benches);
