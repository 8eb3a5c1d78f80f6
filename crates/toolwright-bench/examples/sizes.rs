//! Sizes of the per-call types and futures (what moves between await points).
#![allow(clippy::expect_used, clippy::unwrap_used)]
use toolwright_core::{Meta, Outcome, ToolCall, ToolContext, ToolError};
fn main() {
    println!("Outcome {}", std::mem::size_of::<Outcome>());
    println!("ToolError {}", std::mem::size_of::<ToolError>());
    println!("Meta {}", std::mem::size_of::<Meta>());
    println!("ToolContext {}", std::mem::size_of::<ToolContext>());
    println!(
        "Request {}",
        std::mem::size_of::<toolwright_runtime::Request>()
    );
    let runtime = toolwright_bench::runtime().unwrap();
    let opts = toolwright_runtime::CallOptions::default();
    let f = runtime.invoke(
        ToolCall::new("c1", "noop_small", serde_json::Value::Null),
        &opts,
    );
    println!("invoke future {}", std::mem::size_of_val(&f));
    let f2 = toolwright_bench::runtime_call(&runtime, "noop_small", "{}", &opts);
    println!("runtime_call future {}", std::mem::size_of_val(&f2));
}
