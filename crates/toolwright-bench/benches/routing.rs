//! Routing: BM25 index build and top-5 query latency over 100 / 1,000 / 10,000 tools.

// A benchmark whose setup fails should stop loudly.
#![allow(clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use toolwright_bench::{ROUTING_QUERIES, routing_corpus};
use toolwright_catalog::Router;

fn routing(c: &mut Criterion) {
    let mut g = c.benchmark_group("routing");
    for n in [100usize, 1000, 10_000] {
        let specs = routing_corpus(n);
        g.bench_with_input(BenchmarkId::new("build", n), &specs, |b, s| {
            b.iter(|| black_box(Router::new(black_box(s))))
        });
        let router = Router::new(&specs);
        // One iteration = one query; cycle through the fixed queries.
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("query_top5", n), &router, |b, r| {
            b.iter(|| {
                i = (i + 1) % ROUTING_QUERIES.len();
                let q = ROUTING_QUERIES.get(i).copied().unwrap_or_default();
                black_box(r.rank(black_box(q), 5))
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! { name = benches; config = config(); targets = routing }
criterion_main!(benches);
