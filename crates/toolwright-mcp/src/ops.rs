//! Operator endpoints beside `/mcp` (feature `http-server`):
//!
//! - `GET /healthz`: 200 while the process serves (liveness);
//! - `GET /readyz`: 200 when the runtime's store answers and the server is not draining, else
//!   503 with the reason (readiness: a load balancer stops sending new clients);
//! - `GET /metrics`: the Prometheus text format, from the host's renderer (the CLI installs the
//!   `metrics-exporter-prometheus` recorder) or else the runtime's own counters; behind the MCP
//!   token or the admin token when either is set;
//! - `GET /approvals`, `POST /approvals/{id}/approve`, `POST /approvals/{id}/deny`: the approval
//!   book a person (or the host's UI) works through. Only with an admin token, and never with
//!   the MCP token: the client that asked for a call must not be able to approve it.

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toolwright_runtime::{ApprovalError, Runtime};

/// Renders every metric in the Prometheus text format (e.g. a `PrometheusHandle`'s `render`).
pub type MetricsRender = Arc<dyn Fn() -> String + Send + Sync>;

/// How long `/readyz` waits for the store before it says not ready.
const STORE_PROBE_TIMEOUT: Duration = Duration::from_secs(2);

pub(crate) struct Ops {
    pub(crate) runtime: Runtime,
    pub(crate) token: Option<String>,
    pub(crate) admin_token: Option<String>,
    pub(crate) metrics: Option<MetricsRender>,
    pub(crate) draining: Arc<AtomicBool>,
}

pub(crate) fn router(ops: Arc<Ops>) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/approvals", get(approvals))
        .route("/approvals/{id}/approve", post(approve))
        .route("/approvals/{id}/deny", post(deny))
        .with_state(ops)
}

async fn healthz() -> Response {
    (StatusCode::OK, "ok\n").into_response()
}

async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    if ops.draining.load(Ordering::Acquire) {
        return not_ready("draining: the server is shutting down");
    }
    match tokio::time::timeout(STORE_PROBE_TIMEOUT, ops.runtime.ping_store()).await {
        Ok(Ok(())) => (
            StatusCode::OK,
            axum::Json(json!({"ready": true, "store": ops.runtime.store().backend()})),
        )
            .into_response(),
        Ok(Err(e)) => not_ready(&format!("store: {e}")),
        Err(_) => not_ready("store: no answer within 2 s"),
    }
}

fn not_ready(reason: &str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(json!({"ready": false, "reason": reason})),
    )
        .into_response()
}

async fn metrics(State(ops): State<Arc<Ops>>, req: Request) -> Response {
    let tokens = [ops.token.as_deref(), ops.admin_token.as_deref()];
    if tokens.iter().any(Option::is_some) && !tokens.iter().flatten().any(|t| bearer(&req, t)) {
        return unauthorized();
    }
    let body = match &ops.metrics {
        Some(render) => {
            if let Ok(Ok(pending)) =
                tokio::time::timeout(STORE_PROBE_TIMEOUT, ops.runtime.pending_approvals()).await
            {
                #[allow(clippy::cast_precision_loss)] // a count far below 2^52
                let n = pending.iter().filter(|p| !p.approved).count() as f64;
                ::metrics::gauge!(toolwright_runtime::metrics::names::APPROVALS_PENDING).set(n);
            }
            render()
        }
        None => ops.runtime.metrics().to_prometheus(),
    };
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

/// `None` when the request carries the admin token; the refusal otherwise.
fn admin_only(ops: &Ops, req: &Request) -> Option<Response> {
    match &ops.admin_token {
        None => Some(
            (
                StatusCode::NOT_FOUND,
                "Not Found: approvals over HTTP need --admin-token (TOOLWRIGHT_ADMIN_TOKEN)",
            )
                .into_response(),
        ),
        Some(t) if bearer(req, t) => None,
        Some(_) => Some(unauthorized()),
    }
}

async fn approvals(State(ops): State<Arc<Ops>>, req: Request) -> Response {
    if let Some(refused) = admin_only(&ops, &req) {
        return refused;
    }
    match ops.runtime.pending_approvals().await {
        Ok(list) => axum::Json(json!({"approvals": list})).into_response(),
        Err(e) => store_down(&e.to_string()),
    }
}

async fn approve(State(ops): State<Arc<Ops>>, Path(id): Path<String>, req: Request) -> Response {
    if let Some(refused) = admin_only(&ops, &req) {
        return refused;
    }
    match ops.runtime.approve(&id).await {
        Ok(p) => axum::Json(json!({"approved": p})).into_response(),
        Err(e @ ApprovalError::Unknown(_)) => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": e.to_string()})),
        )
            .into_response(),
        Err(e) => store_down(&e.to_string()),
    }
}

async fn deny(State(ops): State<Arc<Ops>>, Path(id): Path<String>, req: Request) -> Response {
    if let Some(refused) = admin_only(&ops, &req) {
        return refused;
    }
    match ops.runtime.deny(&id).await {
        Ok(denied) => axum::Json(json!({"denied": denied})).into_response(),
        Err(e) => store_down(&e.to_string()),
    }
}

fn store_down(message: &str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "1")],
        axum::Json(json!({"error": message})),
    )
        .into_response()
}

fn bearer(req: &Request, expected: &str) -> bool {
    crate::http::bearer_matches(req, expected)
}

fn unauthorized() -> Response {
    crate::http::unauthorized()
}
