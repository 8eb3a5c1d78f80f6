//! The runtime end to end: deadlines, blocking tools, budgets, fallback, batches, composition,
//! confirmation, cancellation, events and metrics. Real timers, small durations.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use toolwright_core::{
    ErrorCode, FnTool, Registry, SideEffects, Status, ToolCall, ToolError, ToolMeta, ToolOutput,
    ToolSpec,
};
use toolwright_runtime::{CallOptions, Runtime, ToolEvent};

fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn spec(name: &str, params: Value, meta: ToolMeta) -> ToolSpec {
    ToolSpec::new(name, format!("{name}. Use this when testing."), params).with_meta(meta)
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall::new(id, name, args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_past_its_deadline_is_cancelled_and_answered_on_time() {
    let reg = Registry::new();
    let ticks = Arc::new(AtomicU32::new(0));
    let t = ticks.clone();
    reg.register(FnTool::new(
        spec(
            "slow",
            json!({"type": "object"}),
            ToolMeta {
                timeout_ms: Some(80),
                side_effects: SideEffects::Write,
                ..ToolMeta::default()
            },
        ),
        move |_, _ctx| {
            let t = t.clone();
            async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    t.fetch_add(1, Ordering::SeqCst);
                }
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let start = Instant::now();
    let out = rt
        .invoke(call("c1", "slow", json!({})), &CallOptions::default())
        .await;
    let took = start.elapsed();
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout), "{out:?}");
    assert!(took >= Duration::from_millis(80), "{took:?}");
    assert!(
        took < Duration::from_millis(180),
        "answer came {took:?} after the start (deadline 80 ms)"
    );
    assert_eq!(
        out.meta.retries, 0,
        "a write tool without a key is not retried"
    );
    let seen = ticks.load(Ordering::SeqCst);
    assert!(seen > 0);
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(
        ticks.load(Ordering::SeqCst),
        seen,
        "the side effect went on after the timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cooperative_tools_see_the_cancellation() {
    let reg = Registry::new();
    let saw = Arc::new(AtomicU32::new(0));
    let s = saw.clone();
    reg.register(FnTool::new(
        spec(
            "watcher",
            json!({"type": "object"}),
            ToolMeta {
                timeout_ms: Some(30),
                ..ToolMeta::default()
            },
        ),
        move |_, ctx| {
            let s = s.clone();
            async move {
                let token = ctx.cancel.clone();
                // Work that outlives the call's future (e.g. a spawned sub-task) watches the token.
                tokio::spawn(async move {
                    token.cancelled().await;
                    s.fetch_add(1, Ordering::SeqCst);
                });
                tokio::time::sleep(Duration::from_secs(5)).await;
                Ok(ToolOutput::Data(json!(null)))
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(call("c1", "watcher", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        saw.load(Ordering::SeqCst),
        1,
        "the token was not cancelled at the deadline"
    );
}

/// What `#[tool]` generates for a sync function: the body runs in `spawn_blocking`.
fn blocking_tool(name: &str, sleep: Duration, timeout_ms: Option<u64>) -> FnTool {
    FnTool::new(
        spec(
            name,
            json!({"type": "object"}),
            ToolMeta {
                timeout_ms,
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        move |_, _| async move {
            tokio::task::spawn_blocking(move || {
                std::thread::sleep(sleep);
                json!("done")
            })
            .await
            .map(ToolOutput::Data)
            .map_err(toolwright_core::__private::join_error)
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_sync_tool_does_not_delay_another_call() {
    let reg = Registry::new();
    reg.register(blocking_tool("blocking", Duration::from_millis(600), None))
        .unwrap();
    reg.register(FnTool::new(
        spec(
            "quick",
            json!({"type": "object"}),
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        |_, _| async { Ok(ToolOutput::Data(json!("quick"))) },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let opts = CallOptions::default();
    let slow = {
        let rt = rt.clone();
        let opts = opts.clone();
        tokio::spawn(async move { rt.invoke(call("b", "blocking", json!({})), &opts).await })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    let start = Instant::now();
    let quick = rt.invoke(call("q", "quick", json!({})), &opts).await;
    assert_eq!(quick.status(), Status::Success);
    assert!(
        start.elapsed() < Duration::from_millis(100),
        "quick call took {:?}",
        start.elapsed()
    );
    assert_eq!(slow.await.unwrap().status(), Status::Success);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_sync_tool_does_not_delay_its_timeout_answer() {
    let reg = Registry::new();
    reg.register(blocking_tool(
        "blocking",
        Duration::from_millis(500),
        Some(60),
    ))
    .unwrap();
    let rt = Runtime::builder(Arc::new(reg))
        .retry_policy(toolwright_runtime::RetryPolicy {
            max_retries: 0,
            ..Default::default()
        })
        .build();
    let start = Instant::now();
    let out = rt
        .invoke(call("b", "blocking", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
    assert!(
        start.elapsed() < Duration::from_millis(160),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn host_cancellation_answers_cancelled() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec("wait", json!({"type": "object"}), ToolMeta::default()),
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            Ok(ToolOutput::Data(json!(null)))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let token = CancellationToken::new();
    let opts = CallOptions {
        cancel: Some(token.clone()),
        ..CallOptions::default()
    };
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        t.cancel();
    });
    let start = Instant::now();
    let out = rt.invoke(call("c", "wait", json!({})), &opts).await;
    assert_eq!(out.error_code(), Some(ErrorCode::Cancelled));
    assert!(start.elapsed() < Duration::from_millis(500));
    // Already cancelled: never starts.
    let out = rt.invoke(call("c2", "wait", json!({})), &opts).await;
    assert_eq!(out.error_code(), Some(ErrorCode::Cancelled));
}

fn validating_registry() -> Arc<Registry> {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec(
            "pick",
            obj(json!({"role": {"enum": ["admin", "developer"]}}), &["role"]),
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        |a, _| async move { Ok(ToolOutput::Data(a)) },
    ))
    .unwrap();
    Arc::new(reg)
}

#[tokio::test]
async fn the_budget_counts_failures_per_step_and_says_stop() {
    let rt = Runtime::new(validating_registry());
    let opts = CallOptions {
        session_id: Some("s".into()),
        step: 1,
        ..CallOptions::default()
    };
    let bad = json!({"role": "wizard"});
    let o1 = rt.invoke(call("1", "pick", bad.clone()), &opts).await;
    assert_eq!((o1.meta.attempt, o1.meta.attempts_left), (1, 2));
    assert!(o1.error().unwrap().retryable);
    rt.invoke(call("2", "pick", bad.clone()), &opts).await;
    let o3 = rt.invoke(call("3", "pick", bad.clone()), &opts).await;
    assert_eq!((o3.meta.attempt, o3.meta.attempts_left), (3, 0));
    assert!(!o3.error().unwrap().retryable);
    assert!(o3.instruction.as_deref().unwrap().contains("Stop"));
    // Even a good call is refused in this step now.
    let o4 = rt
        .invoke(call("4", "pick", json!({"role": "admin"})), &opts)
        .await;
    assert_eq!(o4.error_code(), Some(ErrorCode::Validation));
    assert!(o4.message.contains("was not run"));
    // The next step has a fresh budget.
    let next = CallOptions {
        step: 2,
        ..opts.clone()
    };
    let o5 = rt
        .invoke(call("5", "pick", json!({"role": "admin"})), &next)
        .await;
    assert_eq!(o5.status(), Status::Success);
    assert_eq!(o5.meta.attempt, 1);
}

fn search_registry(
    index_up: Arc<std::sync::atomic::AtomicBool>,
    runs: Arc<AtomicU32>,
) -> Arc<Registry> {
    let reg = Registry::new();
    let params = obj(
        json!({"query": {"type": "string"}, "limit": {"type": "integer"}}),
        &["query"],
    );
    reg.register(FnTool::new(
        spec(
            "semantic",
            params.clone(),
            ToolMeta {
                side_effects: SideEffects::Read,
                fallback: Some("keyword".into()),
                ..ToolMeta::default()
            },
        ),
        move |_, _| {
            let up = index_up.load(Ordering::SeqCst);
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                if up {
                    Ok(ToolOutput::Data(json!({"via": "semantic"})))
                } else {
                    Err(ToolError::dependency_unavailable(
                        "The semantic index is switched off.",
                        "Use keyword search.",
                    ))
                }
            }
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec(
            "keyword",
            params,
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        |a, _| async move {
            Ok(ToolOutput::Data(
                json!({"via": "keyword", "query": a["query"]}),
            ))
        },
    ))
    .unwrap();
    Arc::new(reg)
}

#[tokio::test]
async fn a_fallback_answers_when_the_dependency_is_down_and_says_so() {
    let up = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let runs = Arc::new(AtomicU32::new(0));
    let rt = Runtime::new(search_registry(up.clone(), runs.clone()));
    let out = rt
        .invoke(
            call("c", "semantic", json!({"query": "rust"})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(out.data.as_ref().unwrap()["via"], "keyword");
    assert_eq!(out.meta.fallback_from.as_deref(), Some("semantic"));
    assert_eq!(out.meta.tool, "keyword");
    assert!(out.message.contains("fallback"), "{}", out.message);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "no blind retries when a fallback exists"
    );
    assert_eq!(rt.metrics().tools["keyword"].fallbacks, 1);
    up.store(true, Ordering::SeqCst);
    let out = rt
        .invoke(
            call("c2", "semantic", json!({"query": "rust"})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.data.as_ref().unwrap()["via"], "semantic");
    assert!(out.meta.fallback_from.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_bounded_keep_order_and_run_atomic_tools_alone() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let atomic_overlap = Arc::new(AtomicUsize::new(0));
    let reg = Registry::new();
    let (r, p) = (running.clone(), peak.clone());
    reg.register(FnTool::new(
        spec(
            "work",
            obj(json!({"n": {"type": "integer"}}), &["n"]),
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        move |a, _| {
            let (r, p) = (r.clone(), p.clone());
            async move {
                let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                p.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(60)).await;
                r.fetch_sub(1, Ordering::SeqCst);
                Ok(ToolOutput::Data(a["n"].clone()))
            }
        },
    ))
    .unwrap();
    let (r, o) = (running.clone(), atomic_overlap.clone());
    reg.register(FnTool::new(
        spec(
            "migrate",
            obj(json!({"n": {"type": "integer"}}), &["n"]),
            ToolMeta {
                atomic: true,
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        move |a, _| {
            let (r, o) = (r.clone(), o.clone());
            async move {
                if r.load(Ordering::SeqCst) != 0 {
                    o.fetch_add(1, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                if r.load(Ordering::SeqCst) != 0 {
                    o.fetch_add(1, Ordering::SeqCst);
                }
                Ok(ToolOutput::Data(a["n"].clone()))
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let mut calls: Vec<ToolCall> = (0..10)
        .map(|n| call(&format!("w{n}"), "work", json!({"n": n})))
        .collect();
    calls.insert(5, call("m", "migrate", json!({"n": 100})));
    let start = Instant::now();
    let outs = rt.invoke_batch(calls, &CallOptions::default()).await;
    let took = start.elapsed();
    let got: Vec<Value> = outs.iter().map(|o| o.data.clone().unwrap()).collect();
    assert_eq!(
        got,
        vec![
            json!(0),
            json!(1),
            json!(2),
            json!(3),
            json!(4),
            json!(100),
            json!(5),
            json!(6),
            json!(7),
            json!(8),
            json!(9)
        ]
    );
    assert_eq!(peak.load(Ordering::SeqCst), 4, "concurrency bound");
    assert_eq!(
        atomic_overlap.load(Ordering::SeqCst),
        0,
        "the atomic tool overlapped others"
    );
    // 5 calls at 4-wide = 2 rounds of 60 ms, twice, plus the atomic one (about 250 ms);
    // one at a time would take over 600 ms.
    assert!(took < Duration::from_millis(450), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_compose_through_the_context_and_share_the_step_budget() {
    let inner_runs = Arc::new(AtomicU32::new(0));
    let reg = Registry::new();
    let ir = inner_runs.clone();
    reg.register(FnTool::new(
        spec(
            "lookup",
            obj(json!({"id": {"type": "integer"}}), &["id"]),
            ToolMeta {
                side_effects: SideEffects::Read,
                idempotent: true,
                ..ToolMeta::default()
            },
        ),
        move |a, ctx| {
            ir.fetch_add(1, Ordering::SeqCst);
            async move {
                Ok(ToolOutput::Data(
                    json!({"id": a["id"], "session": ctx.session_id, "step": ctx.step}),
                ))
            }
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec(
            "plan",
            obj(json!({}), &[]),
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        |_, ctx| async move {
            let a = ctx.call_tool("lookup", json!({"id": 1})).await;
            let b = ctx.call_tool("lookup", json!({"id": 1})).await;
            let bad = ctx.call_tool("lookup", json!({"id": "x"})).await;
            Ok(ToolOutput::Data(
                json!({"a": a.to_json(), "b": b.to_json(), "bad": bad.to_json()}),
            ))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let opts = CallOptions {
        session_id: Some("sess".into()),
        step: 4,
        ..CallOptions::default()
    };
    let out = rt.invoke(call("p", "plan", json!({})), &opts).await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    let d = out.data.unwrap();
    assert_eq!(d["a"]["data"]["session"], "sess");
    assert_eq!(d["a"]["data"]["step"], 4);
    assert_eq!(d["a"]["meta"]["call_id"], "p.lookup");
    // The derived idempotency key is shared within the session: the second lookup replays.
    assert_eq!(d["b"]["meta"]["replayed"], true);
    assert_eq!(inner_runs.load(Ordering::SeqCst), 1);
    // The child's failure used the step's budget for `lookup`, seen by the host's next call.
    assert_eq!(d["bad"]["error"]["code"], "VALIDATION_ERROR");
    let next = rt
        .invoke(call("l", "lookup", json!({"id": "y"})), &opts)
        .await;
    assert_eq!(next.meta.attempt, 2);
}

#[tokio::test]
async fn composition_loops_are_stopped() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec(
            "ouro",
            obj(json!({}), &[]),
            ToolMeta {
                side_effects: SideEffects::Read,
                max_retries: Some(100),
                ..ToolMeta::default()
            },
        ),
        |_, ctx| async move {
            let o = ctx.call_tool("ouro", json!({})).await;
            Ok(ToolOutput::Outcome(o))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(call("o", "ouro", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Internal));
    assert!(out.message.contains("levels deep"), "{}", out.message);
}

fn delete_registry(deleted: Arc<AtomicU32>) -> Arc<Registry> {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec(
            "delete_file",
            obj(
                json!({"path": {"type": "string"}, "confirm": {"type": "boolean"}}),
                &["path"],
            ),
            ToolMeta {
                side_effects: SideEffects::Destructive,
                ..ToolMeta::default()
            },
        ),
        move |a, ctx| {
            let d = deleted.clone();
            async move {
                assert!(ctx.approved, "ran without approval");
                d.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::Data(json!({"deleted": a["path"]})))
            }
        },
    ))
    .unwrap();
    Arc::new(reg)
}

#[tokio::test]
async fn confirmation_cannot_be_given_by_the_model() {
    let deleted = Arc::new(AtomicU32::new(0));
    let rt = Runtime::new(delete_registry(deleted.clone()));
    let opts = CallOptions::default();
    let args = json!({"path": "a.txt", "confirm": true});
    for i in 0..3 {
        let out = rt
            .invoke(call(&format!("c{i}"), "delete_file", args.clone()), &opts)
            .await;
        assert_eq!(out.status(), Status::NeedsConfirmation);
        assert_eq!(out.data.as_ref().unwrap()["action"], "run delete_file");
    }
    assert_eq!(deleted.load(Ordering::SeqCst), 0);
    let pending = rt.pending_approvals().await.unwrap();
    assert_eq!(pending.len(), 1);
    rt.approve(&pending[0].approval_id).await.unwrap();
    let out = rt
        .invoke(call("go", "delete_file", args.clone()), &opts)
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    // Pre-approved by the host (the CLI's --approve).
    let approved = CallOptions {
        approved: true,
        ..CallOptions::default()
    };
    let out = rt
        .invoke(
            call("x", "delete_file", json!({"path": "b.txt"})),
            &approved,
        )
        .await;
    assert_eq!(out.status(), Status::Success);
    assert_eq!(deleted.load(Ordering::SeqCst), 2);
}

/// Without its policies the runtime still validates, gates destructive calls and answers with
/// envelopes; what it drops is the rest (here: the fallback).
#[tokio::test]
async fn policies_off_keeps_validation_and_the_confirmation_gate() {
    let deleted = Arc::new(AtomicU32::new(0));
    let rt = Runtime::builder(delete_registry(deleted.clone()))
        .policies(false)
        .build();
    let opts = CallOptions::default();
    let args = json!({"path": "a.txt", "confirm": true});
    let out = rt
        .invoke(call("c", "delete_file", args.clone()), &opts)
        .await;
    assert_eq!(out.status(), Status::NeedsConfirmation, "{out:?}");
    assert_eq!(deleted.load(Ordering::SeqCst), 0);
    rt.approve(out.meta.approval_id.as_deref().unwrap())
        .await
        .unwrap();
    let out = rt.invoke(call("go", "delete_file", args), &opts).await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    let strict = CallOptions {
        strict: true,
        ..CallOptions::default()
    };
    let out = rt
        .invoke(
            call("v", "delete_file", json!({"path": 3, "x": 1})),
            &strict,
        )
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Validation));
    assert_eq!(out.error().unwrap().fields.len(), 2, "{out:?}");

    let up = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let runs = Arc::new(AtomicU32::new(0));
    let bare = Runtime::builder(search_registry(up, runs.clone()))
        .policies(false)
        .build();
    let out = bare
        .invoke(call("s", "semantic", json!({"query": "rust"})), &opts)
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::DependencyUnavailable));
    assert!(out.meta.fallback_from.is_none());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn events_and_metrics_describe_every_call() {
    let rt = Runtime::new(validating_registry());
    let mut rx = rt.subscribe();
    rt.invoke(
        call("e1", "pick", json!({"role": "admin"})),
        &CallOptions::default(),
    )
    .await;
    rt.invoke(
        call("e2", "pick", json!({"role": "wizard"})),
        &CallOptions::default(),
    )
    .await;
    rt.invoke(call("e3", "pikc", json!({})), &CallOptions::default())
        .await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    assert_eq!(events.len(), 6);
    match (&events[0], &events[1]) {
        (
            ToolEvent::Started { call_id, tool, .. },
            ToolEvent::Finished {
                call_id: c2,
                status,
                code,
                ..
            },
        ) => {
            assert_eq!(
                (call_id.as_str(), tool.as_str(), c2.as_str()),
                ("e1", "pick", "e1")
            );
            assert_eq!((*status, *code), (Status::Success, None));
        }
        other => panic!("{other:?}"),
    }
    match &events[3] {
        ToolEvent::Finished { code, .. } => assert_eq!(*code, Some(ErrorCode::Validation)),
        other => panic!("{other:?}"),
    }
    let m = rt.metrics();
    assert_eq!(m.tools["pick"].calls, 2);
    assert_eq!(m.tools["pick"].errors["VALIDATION_ERROR"], 1);
    assert_eq!(m.tools["(unknown)"].errors["UNKNOWN_TOOL"], 1);
    assert!(
        m.to_prometheus()
            .contains("toolwright_tool_calls_total{tool=\"pick\"} 2")
    );
}

#[tokio::test]
async fn retries_are_recorded_in_meta_and_metrics() {
    let reg = Registry::new();
    let n = Arc::new(AtomicU32::new(0));
    let c = n.clone();
    reg.register(FnTool::new(
        spec(
            "flaky",
            obj(json!({}), &[]),
            ToolMeta {
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        move |_, _| {
            let k = c.fetch_add(1, Ordering::SeqCst);
            async move {
                if k == 0 {
                    Err(ToolError::rate_limited("Too many requests.", 20))
                } else {
                    Ok(ToolOutput::Data(json!("ok")))
                }
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(call("f", "flaky", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.status(), Status::Success);
    assert_eq!(out.meta.retries, 1);
    assert!(out.meta.duration_ms >= 20);
    assert_eq!(rt.metrics().tools["flaky"].retries, 1);
}

#[tokio::test]
async fn panics_and_unknown_tools_are_envelopes() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec("boom", obj(json!({}), &[]), ToolMeta::default()),
        |_, _| async {
            #[allow(clippy::panic)]
            {
                panic!("kaboom")
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(call("b", "boom", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Internal));
    assert!(!out.to_json().to_string().contains("kaboom"));
    let out = rt
        .invoke(call("u", "bom", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::UnknownTool));
    assert!(out.error().unwrap().suggestion.contains("boom"));
}

#[tokio::test]
async fn calls_without_ids_get_one() {
    let rt = Runtime::new(validating_registry());
    let out = rt
        .invoke(
            call("", "pick", json!({"role": "admin"})),
            &CallOptions::default(),
        )
        .await;
    assert!(out.meta.call_id.starts_with("call-"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_read_tool_is_retried_with_a_token_that_is_not_cancelled() {
    let reg = Registry::new();
    let attempts = Arc::new(AtomicU32::new(0));
    let seen_cancelled = Arc::new(AtomicU32::new(0));
    let (a, c) = (attempts.clone(), seen_cancelled.clone());
    reg.register(FnTool::new(
        spec(
            "flaky_slow",
            json!({"type": "object"}),
            ToolMeta {
                timeout_ms: Some(60),
                side_effects: SideEffects::Read,
                ..ToolMeta::default()
            },
        ),
        move |_, ctx| {
            let (a, c) = (a.clone(), c.clone());
            async move {
                if ctx.cancel.is_cancelled() {
                    c.fetch_add(1, Ordering::SeqCst);
                }
                if a.fetch_add(1, Ordering::SeqCst) == 0 {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
                Ok(ToolOutput::Data(json!("second try")))
            }
        },
    ))
    .unwrap();
    let rt = Runtime::builder(Arc::new(reg))
        .retry_policy(toolwright_runtime::RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        })
        .build();
    let out = rt
        .invoke(call("f", "flaky_slow", json!({})), &CallOptions::default())
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert_eq!(out.data, Some(json!("second try")));
    assert_eq!(out.meta.retries, 1);
    assert_eq!(attempts.load(Ordering::SeqCst), 2);
    assert_eq!(seen_cancelled.load(Ordering::SeqCst), 0);
}

/// An async tool that blocks its thread (a bug in the tool) is polled inline by default, so its
/// deadline can only fire once it yields; `isolate_tools(true)` runs it on its own task and the
/// caller is answered on time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn isolated_tools_answer_on_time_even_when_an_async_tool_blocks_its_thread() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec(
            "blocks_thread",
            json!({"type": "object"}),
            ToolMeta {
                timeout_ms: Some(50),
                side_effects: SideEffects::Write,
                ..ToolMeta::default()
            },
        ),
        |_, _| async {
            std::thread::sleep(Duration::from_millis(400));
            Ok(ToolOutput::Data(json!(null)))
        },
    ))
    .unwrap();
    let reg = Arc::new(reg);
    let isolated = Runtime::builder(reg.clone()).isolate_tools(true).build();
    let start = Instant::now();
    let out = isolated
        .invoke(
            call("i", "blocks_thread", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout));
    assert!(
        start.elapsed() < Duration::from_millis(300),
        "{:?}",
        start.elapsed()
    );

    let inline = Runtime::new(reg);
    let start = Instant::now();
    let out = inline
        .invoke(
            call("n", "blocks_thread", json!({})),
            &CallOptions::default(),
        )
        .await;
    // Inline, the blocked poll finishes first: the tool's own answer wins, late.
    assert_eq!(out.status(), Status::Success);
    assert!(start.elapsed() >= Duration::from_millis(400));
}

#[tokio::test]
async fn tools_calling_tools_still_reach_the_runtime_through_the_shared_invokers() {
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec("leaf", json!({"type": "object"}), ToolMeta::default()),
        |_, ctx| async move { Ok(ToolOutput::Data(json!({"leaf_call": ctx.call_id}))) },
    ))
    .unwrap();
    reg.register(FnTool::new(
        spec("parent", json!({"type": "object"}), ToolMeta::default()),
        |_, ctx| async move {
            let child = ctx.call_tool("leaf", json!({})).await;
            Ok(ToolOutput::Data(
                json!({"child_status": child.status().as_str()}),
            ))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(call("p", "parent", json!({})), &CallOptions::default())
        .await;
    assert_eq!(
        out.data,
        Some(json!({"child_status": "success"})),
        "{out:?}"
    );
    // Dropping the last handle of the runtime frees it (the invokers hold it weakly).
    let weak = Arc::downgrade(rt.registry());
    drop(rt);
    assert!(weak.upgrade().is_none());
}

/// Arguments are keyed by their RFC 8785 canonical form: `100`, `100.0` and `1e2` are one amount,
/// so they share one idempotency record and one approval.
#[tokio::test]
async fn equal_numbers_spelled_differently_share_one_key_and_one_approval() {
    let reg = Registry::new();
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let params = obj(
        json!({"amount": {"type": "number"}, "idempotency_key": {"type": "string"}}),
        &["amount"],
    );
    reg.register(FnTool::new(
        spec("pay", params.clone(), ToolMeta::default()),
        move |a, _| {
            let n = r.fetch_add(1, Ordering::SeqCst) + 1;
            async move { Ok(ToolOutput::Data(json!({"run": n, "amount": a["amount"]}))) }
        },
    ))
    .unwrap();
    let deleted = Arc::new(AtomicU32::new(0));
    let d = deleted.clone();
    reg.register(FnTool::new(
        spec(
            "refund",
            params,
            ToolMeta {
                side_effects: SideEffects::Destructive,
                ..ToolMeta::default()
            },
        ),
        move |_, ctx| {
            let d = d.clone();
            async move {
                assert!(ctx.approved, "ran without approval");
                d.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::Data(json!({"refunded": true})))
            }
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let opts = CallOptions::default();
    let parse = |s: &str| -> Value { serde_json::from_str(s).unwrap() };
    let first = rt
        .invoke(
            call("a", "pay", parse(r#"{"amount":100,"idempotency_key":"k"}"#)),
            &opts,
        )
        .await;
    assert_eq!(first.status(), Status::Success, "{first:?}");
    assert!(!first.meta.replayed);
    for (id, text) in [
        ("b", r#"{"idempotency_key":"k","amount":100.0}"#),
        ("c", r#"{"amount":1e2,"idempotency_key":"k"}"#),
    ] {
        let again = rt.invoke(call(id, "pay", parse(text)), &opts).await;
        assert_eq!(again.status(), Status::Success, "{again:?}");
        assert!(again.meta.replayed, "{text} was not the same call");
        assert_eq!(again.data, first.data);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // A different amount under the same key is a conflict, not a replay.
    let other = rt
        .invoke(
            call(
                "d",
                "pay",
                parse(r#"{"amount":100.5,"idempotency_key":"k"}"#),
            ),
            &opts,
        )
        .await;
    assert_eq!(other.error_code(), Some(ErrorCode::IdempotencyConflict));

    // One approval for the destructive call, whichever spelling asked for it.
    let ask = rt
        .invoke(call("r1", "refund", parse(r#"{"amount":100}"#)), &opts)
        .await;
    assert_eq!(ask.status(), Status::NeedsConfirmation);
    let ask2 = rt
        .invoke(call("r2", "refund", parse(r#"{"amount":100.0}"#)), &opts)
        .await;
    assert_eq!(ask2.meta.approval_id, ask.meta.approval_id);
    let pending = rt.pending_approvals().await.unwrap();
    assert_eq!(pending.len(), 1);
    rt.approve(&pending[0].approval_id).await.unwrap();
    let done = rt
        .invoke(call("r3", "refund", parse(r#"{"amount":1e2}"#)), &opts)
        .await;
    assert_eq!(done.status(), Status::Success, "{done:?}");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_is_timed_from_its_start_and_its_deadline_counts_from_there() {
    // The direct path reads the timer's clock only when the tool has to be waited for; the
    // deadline still counts from the call's start, and `duration_ms` covers the whole call.
    let reg = Registry::new();
    reg.register(FnTool::new(
        spec(
            "nap",
            obj(json!({"ms": {"type": "integer"}}), &["ms"]),
            ToolMeta {
                timeout_ms: Some(200),
                side_effects: SideEffects::None,
                ..ToolMeta::default()
            },
        ),
        |args, _| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(ToolOutput::Data(json!(ms)))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(
            call("n1", "nap", json!({"ms": 30})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    assert!(out.meta.duration_ms >= 30, "{out:?}");
    let out = rt
        .invoke(
            call("n2", "nap", json!({"ms": 60_000})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.error_code(), Some(ErrorCode::Timeout), "{out:?}");
    assert!(out.meta.duration_ms >= 200, "{out:?}");
}
