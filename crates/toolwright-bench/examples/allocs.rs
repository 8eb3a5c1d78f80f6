//! Heap allocations per call on each per-call path (small workload): a counting allocator
//! around the system one. `cargo run --release -p toolwright-bench --example allocs`
#![allow(clippy::expect_used, clippy::unwrap_used)]
use toolwright_bench::counting::{Counting, stats};

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let minimal = toolwright_bench::minimal_runtime().unwrap();
    let runtime = toolwright_bench::runtime().unwrap();
    let copts = toolwright_runtime::CallOptions::default();
    for size in toolwright_bench::Size::ALL {
        let args = size.args_json();
        let name = size.tool_name();
        rt.block_on(async {
            let n = 1000u64;
            for (what, path) in [("bare", 0), ("minimal", 1), ("runtime", 2)] {
                for _ in 0..10 {
                    match path {
                        0 => drop(toolwright_bench::bare_call(size, &args).await),
                        1 => drop(
                            toolwright_bench::runtime_call(&minimal, name, &args, &copts).await,
                        ),
                        _ => drop(
                            toolwright_bench::runtime_call(&runtime, name, &args, &copts).await,
                        ),
                    }
                }
                let (a0, b0) = (stats().allocs, stats().bytes);
                for _ in 0..n {
                    match path {
                        0 => drop(toolwright_bench::bare_call(size, &args).await),
                        1 => drop(
                            toolwright_bench::runtime_call(&minimal, name, &args, &copts).await,
                        ),
                        _ => drop(
                            toolwright_bench::runtime_call(&runtime, name, &args, &copts).await,
                        ),
                    }
                }
                let (a1, b1) = (stats().allocs, stats().bytes);
                println!(
                    "{:<6} {:<8} {:>8.1} allocs/call {:>10.0} bytes/call",
                    size.as_str(),
                    what,
                    (a1 - a0) as f64 / n as f64,
                    (b1 - b0) as f64 / n as f64
                );
            }
        });
    }
}
