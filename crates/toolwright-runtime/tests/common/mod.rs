//! Helpers shared by the integration tests: tools with counters, and a private redis-server.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use toolwright_core::{FnTool, Registry, SideEffects, ToolMeta, ToolOutput, ToolSpec};

/// A write tool `track(id, idempotency_key?)` whose body counts its runs and takes `delay`.
pub fn track_registry(delay: Duration) -> (Arc<Registry>, Arc<AtomicU32>) {
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let reg = Registry::new();
    let spec = ToolSpec::new(
        "track",
        "Record a view. Use this when the user reads something.",
        json!({"type": "object",
               "properties": {"id": {"type": "integer"}, "idempotency_key": {"type": "string"}},
               "required": ["id"], "additionalProperties": false}),
    )
    .with_meta(ToolMeta {
        side_effects: SideEffects::Write,
        ..ToolMeta::default()
    });
    reg.register(FnTool::new(spec, move |args: Value, _ctx| {
        let r = r.clone();
        async move {
            let n = r.fetch_add(1, Ordering::SeqCst) + 1;
            tokio::time::sleep(delay).await;
            Ok(ToolOutput::Data(json!({"run": n, "id": args["id"]})))
        }
    }))
    .unwrap();
    (Arc::new(reg), runs)
}

mod redis;
#[allow(unused_imports)]
pub use redis::RedisServer;
