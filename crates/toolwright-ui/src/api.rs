//! The JSON API the page uses: tools, search, one tool's details, calls and approvals, metrics,
//! trace downloads.

use crate::Toolbox;
use axum::extract::{Path, Query, State as AxState};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use toolwright_agent::Trace;
use toolwright_catalog::dialect::{Dialect, export_with_report};
use toolwright_core::{Outcome, Status, ToolCall, ToolSpec};
use toolwright_runtime::CallOptions;
use toolwright_runtime::metrics::LATENCY_BUCKETS_MS;

/// How many finished agent traces are kept for download.
const KEPT_TRACES: usize = 32;
/// How many calls may wait for approval at once (older ones are forgotten first).
const KEPT_PENDING: usize = 256;
/// Longest search query, in characters.
const MAX_QUERY_CHARS: usize = 2000;

/// The shared state of the handlers.
pub(crate) struct State {
    pub(crate) toolbox: Toolbox,
    /// Calls waiting for a person's approval, by approval id: the server keeps the call, so the
    /// approved call is exactly the previewed one.
    pending: Mutex<VecDeque<(String, ToolCall)>>,
    /// Finished agent traces, by run id.
    traces: Mutex<VecDeque<(String, Arc<Trace>)>>,
    calls: AtomicU64,
    /// One agent run at a time (the embedded model serves one request at a time).
    pub(crate) agent_lock: tokio::sync::Mutex<()>,
    /// The provider once built.
    pub(crate) provider: Mutex<Option<Arc<dyn toolwright_agent::Provider>>>,
}

impl State {
    pub(crate) fn new(toolbox: Toolbox) -> State {
        State {
            toolbox,
            pending: Mutex::new(VecDeque::new()),
            traces: Mutex::new(VecDeque::new()),
            calls: AtomicU64::new(0),
            agent_lock: tokio::sync::Mutex::new(()),
            provider: Mutex::new(None),
        }
    }

    pub(crate) fn next_id(&self, prefix: &str) -> String {
        format!(
            "{prefix}-{}",
            self.calls.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    pub(crate) fn keep_trace(&self, id: String, trace: Arc<Trace>) {
        let mut t = self.traces.lock().unwrap_or_else(|e| e.into_inner());
        t.push_back((id, trace));
        while t.len() > KEPT_TRACES {
            t.pop_front();
        }
    }

    fn specs(&self) -> Vec<ToolSpec> {
        self.toolbox.runtime.registry().specs()
    }
}

type Shared = Arc<State>;

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/api/tools", get(tools))
        .route("/api/search", get(search))
        .route("/api/tools/{name}", get(tool))
        .route("/api/call", post(call))
        .route("/api/approve", post(approve))
        .route("/api/metrics", get(metrics))
        .route("/api/traces/{id}", get(trace))
}

fn problem(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": message.into()}))).into_response()
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn summary(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "summary": first_line(&spec.description),
        "category": spec.meta.category,
        "side_effects": spec.meta.side_effects.as_str(),
        "requires_confirmation": spec.needs_confirmation(),
        "label": spec.meta.display_label,
    })
}

async fn tools(AxState(s): AxState<Shared>) -> Json<Value> {
    let specs = s.specs();
    let toolset: Vec<_> = s
        .toolbox
        .findings
        .iter()
        .filter(|f| f.tool.is_none())
        .collect();
    let router = s.toolbox.ranker.router();
    Json(json!({
        "source": s.toolbox.source,
        "definition_only": s.toolbox.definition_only,
        "scorer": router.scorer_name(),
        "tools": specs.iter().map(summary).collect::<Vec<_>>(),
        "toolset_findings": toolset,
    }))
}

#[derive(Deserialize)]
struct SearchParams {
    #[serde(default)]
    q: String,
    k: Option<usize>,
}

async fn search(AxState(s): AxState<Shared>, Query(p): Query<SearchParams>) -> Response {
    if p.q.chars().count() > MAX_QUERY_CHARS {
        return problem(
            StatusCode::BAD_REQUEST,
            format!("the query is longer than {MAX_QUERY_CHARS} characters"),
        );
    }
    let k = p.k.unwrap_or(10).clamp(1, 100);
    let state = s.clone();
    let q = p.q.clone();
    // Dense scoring embeds the query: keep it off the async workers.
    let ranked =
        tokio::task::spawn_blocking(move || state.toolbox.ranker.router().rank(&q, k)).await;
    match ranked {
        Ok(ranked) => Json(json!({
            "query": p.q,
            "scorer": s.toolbox.ranker.router().scorer_name(),
            "tools": ranked,
        }))
        .into_response(),
        Err(e) => problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("search failed: {e}"),
        ),
    }
}

async fn tool(AxState(s): AxState<Shared>, Path(name): Path<String>) -> Response {
    let specs = s.specs();
    let Some(spec) = specs.iter().find(|t| t.name == name) else {
        let near = toolwright_core::closest(&name, specs.iter().map(|t| t.name.as_str()), 3);
        return problem(
            StatusCode::NOT_FOUND,
            format!("no tool named `{name}`; closest: {}", near.join(", ")),
        );
    };
    let exports: Vec<Value> = Dialect::ALL
        .iter()
        .map(|&d| {
            let (definition, lowerings) = export_with_report(spec, d);
            json!({"dialect": d.as_str(), "definition": definition, "lowerings": lowerings})
        })
        .collect();
    let findings: Vec<_> = s
        .toolbox
        .findings
        .iter()
        .filter(|f| f.tool.as_deref() == Some(name.as_str()))
        .collect();
    Json(json!({
        "tool": summary(spec),
        "spec": spec,
        "findings": findings,
        "exports": exports,
    }))
    .into_response()
}

#[derive(Deserialize)]
struct CallBody {
    tool: String,
    #[serde(default)]
    arguments: Value,
    #[serde(default)]
    strict: bool,
}

fn options(strict: bool) -> CallOptions {
    CallOptions {
        strict,
        ..CallOptions::default()
    }
}

/// Remembers a call that waits for approval, so that the approval runs exactly that call.
fn remember_pending(s: &State, out: &Outcome, call: ToolCall) {
    if out.status() != Status::NeedsConfirmation {
        return;
    }
    if let Some(id) = out.meta.approval_id.clone() {
        let mut p = s.pending.lock().unwrap_or_else(|e| e.into_inner());
        p.retain(|(k, _)| *k != id);
        p.push_back((id, call));
        while p.len() > KEPT_PENDING {
            p.pop_front();
        }
    }
}

async fn call(AxState(s): AxState<Shared>, Json(body): Json<CallBody>) -> Json<Outcome> {
    let arguments = if body.arguments.is_null() {
        json!({})
    } else {
        body.arguments
    };
    let call = ToolCall::new(s.next_id("ui"), body.tool, arguments);
    let out = s
        .toolbox
        .runtime
        .invoke(call.clone(), &options(body.strict))
        .await;
    remember_pending(&s, &out, call);
    Json(out)
}

#[derive(Deserialize)]
struct ApproveBody {
    approval_id: String,
    approve: bool,
}

/// The person's answer to a preview: approve runs the remembered call once; deny drops it.
async fn approve(AxState(s): AxState<Shared>, Json(body): Json<ApproveBody>) -> Response {
    let call = {
        let mut p = s.pending.lock().unwrap_or_else(|e| e.into_inner());
        let at = p.iter().position(|(k, _)| *k == body.approval_id);
        at.and_then(|i| p.remove(i)).map(|(_, c)| c)
    };
    let Some(call) = call else {
        return problem(
            StatusCode::NOT_FOUND,
            format!(
                "no call is waiting for approval `{}` (unknown, already answered or expired)",
                body.approval_id
            ),
        );
    };
    let rt = &s.toolbox.runtime;
    if !body.approve {
        if let Err(e) = rt.deny(&body.approval_id).await {
            return problem(StatusCode::SERVICE_UNAVAILABLE, e.to_string());
        }
        return Json(json!({"denied": true, "tool": call.name})).into_response();
    }
    match rt.approve(&body.approval_id).await {
        Ok(_) => {}
        Err(e @ toolwright_runtime::ApprovalError::Unknown(_)) => {
            return problem(StatusCode::NOT_FOUND, e.to_string());
        }
        Err(e) => return problem(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
    let out = rt.invoke(call, &options(false)).await;
    Json(out).into_response()
}

async fn metrics(AxState(s): AxState<Shared>) -> Json<Value> {
    let snap = s.toolbox.runtime.metrics();
    let tools: Vec<Value> = snap
        .tools
        .iter()
        .map(|(name, m)| {
            json!({
                "tool": name,
                "calls": m.calls,
                "errors": m.errors,
                "retries": m.retries,
                "timeouts": m.timeouts,
                "over_sla": m.over_sla,
                "mean_ms": m.latency_ms.sum_ms.checked_div(m.latency_ms.count),
                "p50_ms": m.latency_ms.quantile(0.5),
                "p90_ms": m.latency_ms.quantile(0.9),
                "p99_ms": m.latency_ms.quantile(0.99),
                "histogram": m.latency_ms.counts,
            })
        })
        .collect();
    Json(json!({"buckets_ms": LATENCY_BUCKETS_MS, "tools": tools}))
}

/// A finished agent trace, exactly as `toolwright run --json` prints it.
async fn trace(AxState(s): AxState<Shared>, Path(id): Path<String>) -> Response {
    let found = {
        let t = s.traces.lock().unwrap_or_else(|e| e.into_inner());
        t.iter().find(|(k, _)| *k == id).map(|(_, v)| v.clone())
    };
    let Some(trace) = found else {
        return problem(
            StatusCode::NOT_FOUND,
            format!("no trace `{id}` (kept: the last {KEPT_TRACES})"),
        );
    };
    match serde_json::to_string_pretty(&*trace) {
        Ok(text) => (
            [
                (header::CONTENT_TYPE, "application/json".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"trace-{id}.json\""),
                ),
            ],
            format!("{text}\n"),
        )
            .into_response(),
        Err(e) => problem(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}
