//! Heap held and peaked by `tools/list` over MCP (stdio framing, in process) with the tools of a
//! definitions file: live heap after registration, the peak while the first `tools/list` is
//! answered, and what stays after it (the cached list).
//!
//! ```text
//! cargo run --release -p toolwright-mcp --example listmem -- defs-1000.json
//! ```

#![allow(clippy::expect_used, clippy::unwrap_used, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct Counting;
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

// SAFETY: forwards to the system allocator; only counts.
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
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let now = LIVE.fetch_add(new as i64 - l.size() as i64, Ordering::Relaxed) + new as i64
            - l.size() as i64;
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn kib(n: i64) -> i64 {
    n / 1024
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let path = std::env::args().nth(1).expect("usage: listmem DEFS.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let specs = toolwright_core::defs::parse_definitions(&v).unwrap();
    drop(v);
    let start = LIVE.load(Ordering::Relaxed);
    let reg = Arc::new(toolwright_core::Registry::new());
    for s in specs {
        reg.register(toolwright_core::DefinitionOnly::new(s))
            .unwrap();
    }
    let registered = LIVE.load(Ordering::Relaxed);
    let schemas: Vec<serde_json::Value> = reg
        .entries()
        .iter()
        .map(|e| e.spec().parameters.clone())
        .collect();
    println!(
        "copies of the 1,000 schemas: {} KiB",
        kib(LIVE.load(Ordering::Relaxed) - registered)
    );
    drop(schemas);
    let server = toolwright_mcp::McpServer::new(
        toolwright_runtime::Runtime::new(reg.clone()),
        toolwright_mcp::ServerOptions::default(),
    );
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let _ = toolwright_mcp::serve_io(server, sr, sw).await;
    });
    let (cr, mut cw) = tokio::io::split(client);
    let mut lines = BufReader::new(cr).lines();
    cw.write_all(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"m\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    )
    .await
    .unwrap();
    lines.next_line().await.unwrap().unwrap();
    let mut answer_bytes = 0;
    for round in 0..3 {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        cw.write_all(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\"}}\n",
                round + 2
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        answer_bytes = line.len() as i64;
        drop(line);
        tokio::task::yield_now().await;
        let after = LIVE.load(Ordering::Relaxed);
        println!(
            "tools/list #{}: live before {} KiB, peak {} KiB (+{}), after {} KiB (+{})",
            round + 1,
            kib(before - start),
            kib(PEAK.load(Ordering::Relaxed) - start),
            kib(PEAK.load(Ordering::Relaxed) - before),
            kib(after - start),
            kib(after - before)
        );
    }
    println!(
        "{} tools: registry {} KiB; answer {} KiB of JSON",
        reg.len(),
        kib(registered - start),
        kib(answer_bytes)
    );
}
