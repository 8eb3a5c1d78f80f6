//! The runtime's direct path (a call that every policy above the retries lets through runs its
//! first attempt without the boxed retry, deadline and tool services) answers exactly as the
//! policy stack does. A runtime with `isolate_tools(true)` has no direct path: every call goes
//! through the stack, so each scenario runs on both and the envelopes must match (the wall time
//! aside), as must the number of times the tool ran.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use toolwright_core::blocking::run_blocking;
use toolwright_core::{
    FnTool, Registry, SideEffects, Tool, ToolCall, ToolContext, ToolError, ToolFuture, ToolMeta,
    ToolOutput, ToolSpec,
};
use toolwright_runtime::{CallOptions, RetryPolicy, Runtime};

fn spec(name: &str, effects: SideEffects, timeout_ms: u64) -> ToolSpec {
    ToolSpec::new(
        name,
        format!("{name}. Use this when testing."),
        json!({"type": "object", "properties": {"n": {"type": "integer"},
               "idempotency_key": {"type": "string"}}}),
    )
    .with_meta(ToolMeta {
        side_effects: effects,
        timeout_ms: Some(timeout_ms),
        ..ToolMeta::default()
    })
}

/// Unavailable on its first run, then echoes `n`; it reads its arguments where it is called
/// (`Tool::borrows_args`, as `#[tool]` does), so the direct path keeps them for the retry
/// without sharing them.
struct BorrowsFlaky {
    spec: ToolSpec,
    runs: Arc<AtomicU32>,
}

impl Tool for BorrowsFlaky {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: Value, ctx: ToolContext) -> ToolFuture {
        self.call_ref(&args, ctx)
    }

    fn call_ref(&self, args: &Value, _ctx: ToolContext) -> ToolFuture {
        let first = self.runs.fetch_add(1, Ordering::SeqCst) == 0;
        let n = args["n"].clone();
        Box::pin(async move {
            if first {
                Err(ToolError::dependency_unavailable(
                    "Down for a moment.",
                    "Try again.",
                ))
            } else {
                Ok(ToolOutput::Data(json!({"n": n})))
            }
        })
    }

    fn borrows_args(&self) -> bool {
        true
    }
}

/// Every scenario's tool, with a counter of its runs.
fn registry(runs: &Arc<AtomicU32>) -> Registry {
    let reg = Registry::new();
    reg.register(BorrowsFlaky {
        spec: spec("borrows_flaky", SideEffects::Read, 1000),
        runs: runs.clone(),
    })
    .unwrap();
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("ok", SideEffects::Read, 1000),
        move |args, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolOutput::Data(json!({"n": args["n"]}))) }
        },
    ))
    .unwrap();
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("fails", SideEffects::Read, 1000),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Err(ToolError::not_found("No such thing.", "Ask for another.")) }
        },
    ))
    .unwrap();
    // Unavailable twice, then answers: retried by the policy.
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("flaky", SideEffects::Read, 1000),
        move |_, _| {
            let n = r.fetch_add(1, Ordering::SeqCst);
            async move {
                if n % 3 < 2 {
                    Err(ToolError::dependency_unavailable("Down.", "Try later."))
                } else {
                    Ok(ToolOutput::Data(json!("up")))
                }
            }
        },
    ))
    .unwrap();
    // A write without a key: its transient failure is not retried.
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("write_flaky", SideEffects::Write, 1000),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Err(ToolError::dependency_unavailable("Down.", "Try later.")) }
        },
    ))
    .unwrap();
    // Answers after a wait, inside its deadline.
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("waits", SideEffects::Read, 1000),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Ok(ToolOutput::Data(json!("late")))
            }
        },
    ))
    .unwrap();
    // Never answers: cut at its deadline, retried once (a read), cut again.
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("hangs", SideEffects::Read, 30),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async {
                std::future::pending::<()>().await;
                Ok(ToolOutput::Data(Value::Null))
            }
        },
    ))
    .unwrap();
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("panics", SideEffects::Read, 1000),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async { panic!("boom") }
        },
    ))
    .unwrap();
    // A sync body, run the way `#[tool]` runs one.
    let r = runs.clone();
    reg.register(FnTool::new(
        spec("sync_add", SideEffects::None, 1000),
        move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async {
                run_blocking("sync_add", || json!(2))
                    .await
                    .map(ToolOutput::Data)
            }
        },
    ))
    .unwrap();
    reg
}

fn runtime(isolate: bool, runs: &Arc<AtomicU32>) -> Runtime {
    Runtime::builder(Arc::new(registry(runs)))
        .isolate_tools(isolate)
        .retry_policy(RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
        })
        .build()
}

/// The envelope as JSON with its wall time zeroed.
fn wire(out: &toolwright_core::Outcome) -> Value {
    let mut v = serde_json::to_value(out).unwrap();
    v["meta"]["duration_ms"] = json!(0);
    v
}

async fn both(name: &str, args: Value, opts: &CallOptions) -> (Value, u32) {
    let mut seen = Vec::new();
    for isolate in [false, true] {
        let runs = Arc::new(AtomicU32::new(0));
        let rt = runtime(isolate, &runs);
        let out = rt
            .invoke(ToolCall::new("c1", name, args.clone()), opts)
            .await;
        seen.push((wire(&out), runs.load(Ordering::SeqCst)));
    }
    assert_eq!(seen[0], seen[1], "direct path vs stack for `{name}`");
    seen.swap_remove(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_direct_path_answers_as_the_stack_does() {
    let opts = CallOptions::default();
    let (ok, runs) = both("ok", json!({"n": 3}), &opts).await;
    assert_eq!(
        (ok["status"].clone(), ok["data"]["n"].clone(), runs),
        (json!("success"), json!(3), 1)
    );
    let (err, runs) = both("fails", json!({}), &opts).await;
    assert_eq!(
        (err["error"]["code"].clone(), runs),
        (json!("NOT_FOUND"), 1)
    );
    let (flaky, runs) = both("flaky", json!({}), &opts).await;
    assert_eq!(
        (
            flaky["status"].clone(),
            flaky["meta"]["retries"].clone(),
            runs
        ),
        (json!("success"), json!(2), 3)
    );
    // The retry gets the arguments the first attempt read.
    let (borrows, runs) = both("borrows_flaky", json!({"n": 7}), &opts).await;
    assert_eq!(
        (
            borrows["data"]["n"].clone(),
            borrows["meta"]["retries"].clone(),
            runs
        ),
        (json!(7), json!(1), 2)
    );
    let (write, runs) = both("write_flaky", json!({}), &opts).await;
    assert_eq!(
        (write["error"]["code"].clone(), runs),
        (json!("DEPENDENCY_UNAVAILABLE"), 1)
    );
    // With a key the write may run again; the idempotency policy takes that call (stack).
    let (keyed, runs) = both("write_flaky", json!({"idempotency_key": "k1"}), &opts).await;
    assert_eq!((keyed["meta"]["retries"].clone(), runs), (json!(2), 3));
    let (waits, runs) = both("waits", json!({}), &opts).await;
    assert_eq!((waits["data"].clone(), runs), (json!("late"), 1));
    let (hangs, runs) = both("hangs", json!({}), &opts).await;
    assert_eq!(
        (
            hangs["error"]["code"].clone(),
            hangs["meta"]["retries"].clone(),
            runs
        ),
        (json!("TIMEOUT"), json!(1), 2)
    );
    let (panics, runs) = both("panics", json!({}), &opts).await;
    assert_eq!(
        (panics["error"]["code"].clone(), runs),
        (json!("INTERNAL"), 1)
    );
    let (sync, runs) = both("sync_add", json!({}), &opts).await;
    assert_eq!((sync["data"].clone(), runs), (json!(2), 1));
    let (invalid, runs) = both(
        "ok",
        json!({"n": "three", "m": 1}),
        &CallOptions {
            strict: true,
            ..CallOptions::default()
        },
    )
    .await;
    assert_eq!(
        (invalid["error"]["code"].clone(), runs),
        (json!("VALIDATION_ERROR"), 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_cancel_answers_alike_on_both_paths() {
    // Cancelled before the call starts: nothing runs.
    let token = CancellationToken::new();
    token.cancel();
    let opts = CallOptions {
        cancel: Some(token),
        ..CallOptions::default()
    };
    let (before, runs) = both("ok", json!({}), &opts).await;
    assert_eq!(
        (before["error"]["code"].clone(), runs),
        (json!("CANCELLED"), 0)
    );
    // Cancelled while the tool waits: cancelled at once, not retried.
    let mut seen = Vec::new();
    for isolate in [false, true] {
        let runs = Arc::new(AtomicU32::new(0));
        let rt = runtime(isolate, &runs);
        let token = CancellationToken::new();
        let opts = CallOptions {
            cancel: Some(token.clone()),
            ..CallOptions::default()
        };
        // Cancelled once the tool is running (a loaded machine may take longer than any fixed
        // delay to start it).
        let started = Arc::clone(&runs);
        let cancel = tokio::spawn(async move {
            for _ in 0..5000 {
                if started.load(Ordering::SeqCst) > 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            token.cancel();
        });
        let out = rt
            .invoke(ToolCall::new("c1", "hangs", json!({})), &opts)
            .await;
        cancel.await.unwrap();
        seen.push((wire(&out), runs.load(Ordering::SeqCst)));
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0].0["error"]["code"], "CANCELLED");
    assert_eq!(seen[0].1, 1);
}

/// A tool that never answers; each attempt counts itself, and counts again once its
/// cancellation token is cancelled (seen by a task that outlives the dropped attempt).
fn watching(
    name: &str,
    effects: SideEffects,
    runs: &Arc<AtomicU32>,
    cancelled: &Arc<AtomicU32>,
) -> FnTool {
    let (r, c) = (runs.clone(), cancelled.clone());
    FnTool::new(spec(name, effects, 30), move |_, ctx| {
        r.fetch_add(1, Ordering::SeqCst);
        let (c, token) = (c.clone(), ctx.cancel.clone());
        tokio::spawn(async move {
            token.cancelled().await;
            c.fetch_add(1, Ordering::SeqCst);
        });
        async {
            std::future::pending::<()>().await;
            Ok(ToolOutput::Data(Value::Null))
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_cancels_every_attempts_token_on_both_paths() {
    // A read may run again (the direct path keeps its request, whose token the deadline
    // cancels); a write may not (the deadline holds its own copy of the token).
    for (name, effects) in [
        ("read_hangs", SideEffects::Read),
        ("write_hangs", SideEffects::Write),
    ] {
        let mut seen = Vec::new();
        for isolate in [false, true] {
            let (runs, cancelled) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
            let reg = Registry::new();
            reg.register(watching(name, effects, &runs, &cancelled))
                .unwrap();
            let rt = Runtime::builder(Arc::new(reg))
                .isolate_tools(isolate)
                .retry_policy(RetryPolicy {
                    max_retries: 2,
                    base_delay: Duration::from_millis(1),
                    max_delay: Duration::from_millis(5),
                })
                .build();
            let out = rt
                .invoke(
                    ToolCall::new("c1", name, json!({})),
                    &CallOptions::default(),
                )
                .await;
            assert_eq!(out.error_code(), Some(toolwright_core::ErrorCode::Timeout));
            let runs = runs.load(Ordering::SeqCst);
            for _ in 0..400 {
                if cancelled.load(Ordering::SeqCst) >= runs {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            seen.push((runs, cancelled.load(Ordering::SeqCst)));
        }
        assert_eq!(seen[0], seen[1], "direct path vs stack for `{name}`");
        let (runs, cancelled) = seen[0];
        assert_eq!(
            cancelled, runs,
            "every attempt of `{name}` was cancelled at its deadline"
        );
        let expected_runs = if effects == SideEffects::Read { 2 } else { 1 };
        assert_eq!(runs, expected_runs, "`{name}`");
    }
}
