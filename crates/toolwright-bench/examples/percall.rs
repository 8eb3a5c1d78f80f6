//! Runs one per-call path N times, for instruction counts that load on the machine does not
//! change: `valgrind --tool=callgrind` it with two values of N and divide the difference.
//! `percall <bare|bare-str|minimal|runtime|runtime-value> <small|medium|large> <N>`
//! (`runtime` and `minimal` take the arguments' text through `Runtime::invoke_json`;
//! `runtime-value` parses them into a `Value` for `Runtime::invoke`).
#![allow(clippy::expect_used, clippy::unwrap_used)]
use toolwright_bench::{
    Size, bare_call, bare_str_call, minimal_runtime, runtime, runtime_call, runtime_value_call,
};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let path = argv.get(1).map_or("runtime", String::as_str).to_string();
    let size = match argv.get(2).map_or("small", String::as_str) {
        "medium" => Size::Medium,
        "large" => Size::Large,
        _ => Size::Small,
    };
    let n: u64 = argv.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let minimal = minimal_runtime().unwrap();
    let runtime = runtime().unwrap();
    let copts = toolwright_runtime::CallOptions::default();
    // Diagnostic: `PERCALL_COMPILE_FULL=1` makes one invalid call of the tool first, which
    // compiles its full (jsonschema) validator in the middle of a call, as the first call did
    // before valid arguments were recognised without it: the heap then looks as it did then
    // (glibc's per-call costs depend on what sits near the top of the heap).
    let compile_full = std::env::var_os("PERCALL_COMPILE_FULL").is_some();
    let args = size.args_json();
    let name = size.tool_name();
    let mut last = String::new();
    rt.block_on(async {
        if compile_full {
            let rt = if path == "minimal" {
                &minimal
            } else {
                &runtime
            };
            let _ = runtime_call(rt, name, r#"{"not": "valid"}"#, &copts).await;
        }
        for _ in 0..n {
            last = match path.as_str() {
                "bare" => bare_call(size, &args).await,
                "bare-str" => bare_str_call(size, &args).await,
                "runtime-value" => runtime_value_call(&runtime, name, &args, &copts).await,
                "minimal" => runtime_call(&minimal, name, &args, &copts).await,
                _ => runtime_call(&runtime, name, &args, &copts).await,
            };
        }
    });
    println!("{last}");
}
