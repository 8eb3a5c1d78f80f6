//! Where the per-call time goes: each step of the small workload timed alone (1M iterations).
#![allow(clippy::expect_used, clippy::unwrap_used)]
use std::hint::black_box;
use std::time::Instant;
use toolwright_core::{Outcome, ToolCall, ToolContext};

fn time<T>(what: &str, n: u32, mut f: impl FnMut() -> T) {
    for _ in 0..n / 10 {
        black_box(f());
    }
    let t = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    println!(
        "{what:<40} {:>8.1} ns",
        t.elapsed().as_nanos() as f64 / f64::from(n)
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reg = toolwright_bench::registry().unwrap();
    let size = toolwright_bench::Size::Small;
    let args = size.args_json();
    let name = size.tool_name();
    let n = 1_000_000;
    let value: serde_json::Value = serde_json::from_str(&args).unwrap();
    let entry = reg.get(name).unwrap();
    time("parse args -> Value", n, || {
        serde_json::from_str::<serde_json::Value>(&args).unwrap()
    });
    time("clone Value", n, || value.clone());
    time("registry.get", n, || reg.get(name));
    time("validate (is_valid path)", n, || {
        entry.prepare(value.clone(), true).is_ok()
    });
    time("ToolContext::new", n, || ToolContext::new("c1", name));
    time("tool.call -> future (boxed)", n, || {
        entry.tool.call(value.clone(), ToolContext::new("c1", name))
    });
    time("tool.call + await", n, || {
        rt.block_on(entry.tool.call(value.clone(), ToolContext::new("c1", name)))
            .is_ok()
    });
    time("block_on(ready)", n, || rt.block_on(async { 1 }));
    let minimal = toolwright_bench::minimal_runtime().unwrap();
    let runtime = toolwright_bench::runtime().unwrap();
    let out = rt.block_on(minimal.invoke(
        ToolCall::new("c1", name, value.clone()),
        &Default::default(),
    ));
    time("serialize envelope", n, || {
        serde_json::to_string(&out).unwrap()
    });
    println!("envelope: {}", serde_json::to_string(&out).unwrap());
    time("Outcome::success + finish", n, || {
        toolwright_core::finish(
            Outcome::success(serde_json::json!(1)),
            Some(entry.spec()),
            &ToolCall::new("c1", name, serde_json::Value::Null),
            std::time::Duration::ZERO,
            Vec::new(),
        )
    });
    time("runtime, policies off (Value in)", n, || {
        rt.block_on(minimal.invoke(
            ToolCall::new("c1", name, value.clone()),
            &Default::default(),
        ))
    });
    time("runtime.invoke (Value in)", n, || {
        rt.block_on(runtime.invoke(
            ToolCall::new("c1", name, value.clone()),
            &Default::default(),
        ))
    });
}
