//! Heap bytes held by a registry of 1,000 definition-only tools (what `serve --functions` holds).
#![allow(clippy::expect_used, clippy::unwrap_used)]
use toolwright_bench::counting::{Counting, reset_peak, stats};

#[global_allocator]
static A: Counting = Counting;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let specs = toolwright_core::defs::parse_definitions(&v).unwrap();
    let before = stats().live;
    reset_peak();
    let reg = toolwright_core::Registry::new();
    for s in specs.iter().cloned() {
        reg.register(toolwright_core::DefinitionOnly::new(s))
            .unwrap();
    }
    let after = stats().live;
    println!(
        "registry of {} tools: {} KiB live heap, {} KiB peak while registering",
        reg.len(),
        (after - before) / 1024,
        (stats().peak - before) / 1024
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for l in status
        .lines()
        .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
    {
        println!("{l}");
    }
    let specs_only: i64 = {
        let b = stats().live;
        let c = specs.clone();
        let a = stats().live;
        drop(c);
        a - b
    };
    println!("the specs alone: {} KiB", specs_only / 1024);
}
