//! Heap bytes held by a registry of 1,000 definition-only tools (what `serve --functions` holds).
#![allow(clippy::expect_used, clippy::unwrap_used, unsafe_code)]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};
struct Counting;
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);
// SAFETY: forwards to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size() as i64, Ordering::Relaxed) + l.size() as i64;
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as i64, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}
#[global_allocator]
static A: Counting = Counting;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let specs = toolwright_core::defs::parse_definitions(&v).unwrap();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let reg = toolwright_core::Registry::new();
    for s in specs.iter().cloned() {
        reg.register(toolwright_core::DefinitionOnly::new(s))
            .unwrap();
    }
    let after = LIVE.load(Ordering::Relaxed);
    println!(
        "registry of {} tools: {} KiB live heap, {} KiB peak while registering",
        reg.len(),
        (after - before) / 1024,
        (PEAK.load(Ordering::Relaxed) - before) / 1024
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for l in status
        .lines()
        .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
    {
        println!("{l}");
    }
    let specs_only: i64 = {
        let b = LIVE.load(Ordering::Relaxed);
        let c = specs.clone();
        let a = LIVE.load(Ordering::Relaxed);
        drop(c);
        a - b
    };
    println!("the specs alone: {} KiB", specs_only / 1024);
}
