//! Benchmarks: idempotency store operations per second for each backend, and the overhead of
//! the full policy stack on a no-op call over the runtime with its policies off (the steps the
//! former bare `Registry::invoke` took: resolve, validate, confirmation gate, run, envelope).
//!
//! `cargo bench -p toolwright-runtime --features redis` (the Redis group starts its own
//! redis-server on a free loopback port, and is skipped with a note if there is none).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use toolwright_core::{
    FnTool, Outcome, Registry, SideEffects, ToolCall, ToolMeta, ToolOutput, ToolSpec,
};
use toolwright_runtime::{CallOptions, IdempotencyStore, MemoryStore, Runtime, SqliteStore};

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn store_ops(c: &mut Criterion, name: &str, store: Arc<dyn IdempotencyStore>) {
    let rt = tokio_rt();
    let outcome = Outcome::success(json!({"view_id": 1, "title": "SQLite in Production"}));
    let n = AtomicU64::new(0);
    let mut g = c.benchmark_group(format!("store/{name}"));
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(3));
    g.sample_size(20);
    // A first call: reserve a fresh key, then store its result.
    g.bench_function("reserve+complete", |b| {
        b.to_async(&rt).iter(|| {
            let key = format!("bench-{}-{}", name, n.fetch_add(1, Ordering::Relaxed));
            let store = store.clone();
            let outcome = outcome.clone();
            async move {
                store
                    .reserve(&key, "fp", "owner", Duration::from_secs(60))
                    .await
                    .unwrap();
                store
                    .complete(&key, "fp", &outcome, Duration::from_secs(600))
                    .await
                    .unwrap();
            }
        })
    });
    // A duplicate: the reservation finds the stored result.
    rt.block_on(async {
        store
            .reserve("bench-hot", "fp", "o", Duration::from_secs(60))
            .await
            .unwrap();
        store
            .complete("bench-hot", "fp", &outcome, Duration::from_secs(600))
            .await
            .unwrap();
    });
    g.bench_function("replay-lookup", |b| {
        b.to_async(&rt).iter(|| {
            let store = store.clone();
            async move {
                store
                    .reserve("bench-hot", "fp", "o2", Duration::from_secs(60))
                    .await
                    .unwrap()
            }
        })
    });
    g.finish();
}

fn stores(c: &mut Criterion) {
    store_ops(c, "memory", Arc::new(MemoryStore::new()));
    let dir = tempfile::tempdir().unwrap();
    store_ops(
        c,
        "sqlite",
        Arc::new(SqliteStore::open(dir.path().join("b.db")).unwrap()),
    );
    #[cfg(feature = "redis")]
    redis_ops(c);
}

#[cfg(feature = "redis")]
fn redis_ops(c: &mut Criterion) {
    let Some(bin) = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
    else {
        eprintln!("redis-server not found: Redis store benchmark skipped");
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(bin)
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..500 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = format!("redis://127.0.0.1:{port}/0");
    store_ops(
        c,
        "redis",
        Arc::new(toolwright_runtime::RedisStore::open(&url).unwrap()),
    );
    let _ = child.kill();
    let _ = child.wait();
}

fn noop_registry() -> Arc<Registry> {
    let reg = Registry::new();
    let spec = ToolSpec::new(
        "noop",
        "Do nothing. Use this when benchmarking.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false}),
    )
    .with_meta(ToolMeta {
        side_effects: SideEffects::Read,
        ..ToolMeta::default()
    });
    reg.register(FnTool::new(spec, |_, _| async {
        Ok(ToolOutput::Data(json!(null)))
    }))
    .unwrap();
    Arc::new(reg)
}

fn overhead(c: &mut Criterion) {
    let rt = tokio_rt();
    let reg = noop_registry();
    let runtime = Runtime::new(reg.clone());
    let isolated = Runtime::builder(reg.clone()).isolate_tools(true).build();
    let minimal = Runtime::builder(reg.clone()).policies(false).build();
    let mut g = c.benchmark_group("noop-call");
    g.measurement_time(Duration::from_secs(3));
    g.sample_size(30);
    for (label, runtime) in [
        (
            "Runtime::invoke (policies off: validate, confirmation gate, run)",
            &minimal,
        ),
        (
            "Runtime::invoke (full policy stack, tools inline: the default)",
            &runtime,
        ),
        ("Runtime::invoke (full stack, isolate_tools)", &isolated),
    ] {
        g.bench_function(label, |b| {
            b.to_async(&rt).iter(|| {
                let runtime = runtime.clone();
                async move {
                    runtime
                        .invoke(
                            ToolCall::new("c", "noop", json!({"n": 1})),
                            &CallOptions::default(),
                        )
                        .await
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, stores, overhead);
criterion_main!(benches);
