//! Typed tool state through the runtime: the value registered on the registry reaches the tool,
//! on retries and in nested calls too.
#![allow(clippy::unwrap_used)]

use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use toolwright_core::{
    FnTool, Registry, State, Status, ToolCall, ToolContext, ToolOutput, ToolSpec,
};
use toolwright_runtime::{CallOptions, Runtime};

struct Db(AtomicU64);

#[tokio::test]
async fn state_reaches_tools_run_by_the_runtime_and_their_nested_calls() {
    let reg = Registry::new().with_state(Db(AtomicU64::new(0)));
    reg.register(FnTool::new(
        ToolSpec::new("inc", "Increment.", json!({"type": "object"})),
        |_, ctx: ToolContext| async move {
            let State(db) = State::<Db>::from_context(&ctx)?;
            Ok(ToolOutput::Data(json!(
                db.0.fetch_add(1, Ordering::SeqCst) + 1
            )))
        },
    ))
    .unwrap();
    reg.register(FnTool::new(
        ToolSpec::new("inc_twice", "Increment twice.", json!({"type": "object"})),
        |_, ctx: ToolContext| async move {
            ctx.call_tool("inc", json!({})).await;
            let out = ctx.call_tool("inc", json!({})).await;
            Ok(ToolOutput::Data(out.data.unwrap_or_default()))
        },
    ))
    .unwrap();
    let rt = Runtime::new(Arc::new(reg));
    let out = rt
        .invoke(
            ToolCall::new("1", "inc", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.status(), Status::Success, "{out:?}");
    let out = rt
        .invoke(
            ToolCall::new("2", "inc_twice", json!({})),
            &CallOptions::default(),
        )
        .await;
    assert_eq!(out.data, Some(json!(3)), "{out:?}");
    assert_eq!(
        rt.registry()
            .state::<Db>()
            .unwrap()
            .0
            .load(Ordering::SeqCst),
        3
    );
}
