//! Per-call overhead: arguments JSON string → parse → validate → invoke a no-op tool → serialize
//! the envelope, for small / medium / large arguments; through `Runtime::invoke_json` with the
//! runtime's policies off (`runtime-minimal`: the row that replaced the bare `Registry::invoke`
//! pipeline, same steps) and on (`runtime`), through `Runtime::invoke` on the text parsed into a
//! `Value` first (`runtime-value`), validation alone, and two baselines: the bare
//! `serde_json::from_value` + call (`bare`) and `serde_json::from_str` straight into the struct
//! + call (`bare-str`).

// A benchmark whose setup fails should stop loudly.
#![allow(clippy::expect_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};
use toolwright_bench::{
    Size, bare_call, bare_str_call, minimal_runtime, registry, runtime, runtime_call,
    runtime_value_call,
};
use toolwright_runtime::CallOptions;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// Runs `iters` calls inside one `block_on`, like the Python peers run inside one event loop.
fn timed<F, Fut>(rt: &tokio::runtime::Runtime, iters: u64, mut f: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f().await);
        }
        start.elapsed()
    })
}

fn overhead(c: &mut Criterion) {
    let tokio = rt();
    let reg = registry().expect("registry");
    let runtime = runtime().expect("runtime");
    let minimal = minimal_runtime().expect("runtime");
    let copts = CallOptions::default();
    let mut g = c.benchmark_group("overhead");
    for size in Size::ALL {
        let args = size.args_json();
        let name = size.tool_name();
        g.bench_with_input(
            BenchmarkId::new("runtime-minimal", size.as_str()),
            &args,
            |b, a| b.iter_custom(|n| timed(&tokio, n, || runtime_call(&minimal, name, a, &copts))),
        );
        g.bench_with_input(BenchmarkId::new("runtime", size.as_str()), &args, |b, a| {
            b.iter_custom(|n| timed(&tokio, n, || runtime_call(&runtime, name, a, &copts)))
        });
        g.bench_with_input(
            BenchmarkId::new("runtime-value", size.as_str()),
            &args,
            |b, a| {
                b.iter_custom(|n| {
                    timed(&tokio, n, || runtime_value_call(&runtime, name, a, &copts))
                })
            },
        );
        g.bench_with_input(BenchmarkId::new("bare", size.as_str()), &args, |b, a| {
            b.iter_custom(|n| timed(&tokio, n, || bare_call(size, a)))
        });
        g.bench_with_input(
            BenchmarkId::new("bare-str", size.as_str()),
            &args,
            |b, a| b.iter_custom(|n| timed(&tokio, n, || bare_str_call(size, a))),
        );
    }
    g.finish();

    let mut g = c.benchmark_group("validate");
    for size in Size::ALL {
        let value: serde_json::Value =
            serde_json::from_str(&size.args_json()).expect("workload JSON");
        let entry = reg.get(size.tool_name()).expect("tool");
        g.bench_with_input(
            BenchmarkId::new("validate", size.as_str()),
            &value,
            |b, v| b.iter(|| black_box(entry.validator.validate(black_box(v)).is_ok())),
        );
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! { name = benches; config = config(); targets = overhead }
criterion_main!(benches);
