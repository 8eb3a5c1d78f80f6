//! The agent's live trace: `POST /api/agent {"query": …}` answers `text/event-stream`, one
//! server-sent event per [`AgentEvent`] as the agent emits it (`routed`, `model_started`,
//! `model_finished`, `call_started`, `call_finished`), then `done` with the whole trace (the same
//! JSON as `toolwright run --json`, downloadable at `/api/traces/{run_id}`), or `failed` when no
//! provider could be built.
//!
//! A POST (not an `EventSource` GET) so that a run is a same-origin JSON request like every call.

use crate::api::State;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::mpsc;
use toolwright_agent::{Agent, AgentEvent, Observer, Provider};

/// Longest request, in characters.
const MAX_REQUEST_CHARS: usize = 4000;

pub(crate) fn routes() -> Router<Arc<State>> {
    Router::new().route("/api/agent", post(run))
}

#[derive(Deserialize)]
struct RunBody {
    query: String,
}

/// Forwards agent events to the stream as they happen.
struct Forward(mpsc::UnboundedSender<Event>);

impl Forward {
    fn send(&self, name: &str, data: Value) {
        if let Ok(e) = Event::default().event(name).json_data(data) {
            // The page may have gone; the run goes on and its trace is kept.
            let _ = self.0.send(e);
        }
    }
}

impl Observer for Forward {
    fn event(&self, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::Routed {
                candidates,
                offered,
            } => self.send(
                "routed",
                json!({"candidates": candidates, "offered": offered}),
            ),
            AgentEvent::ModelStarted { step } => self.send("model_started", json!({"step": step})),
            AgentEvent::ModelFinished { step, ms, reply } => self.send(
                "model_finished",
                json!({"step": step, "ms": ms, "reply": reply}),
            ),
            AgentEvent::CallStarted { call, label } => {
                self.send("call_started", json!({"call": call, "label": label}));
            }
            AgentEvent::CallFinished { record } => {
                self.send("call_finished", json!({"record": record}));
            }
        }
    }
}

/// The provider, built on first use (off the async workers: loading a model blocks).
async fn provider(s: &Arc<State>) -> Result<Arc<dyn Provider>, String> {
    if let Some(p) = s.provider.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        return Ok(p);
    }
    let factory = s.toolbox.provider.clone();
    let built = tokio::task::spawn_blocking(move || factory())
        .await
        .map_err(|e| format!("building the provider failed: {e}"))??;
    *s.provider.lock().unwrap_or_else(|e| e.into_inner()) = Some(built.clone());
    Ok(built)
}

async fn run(AxState(s): AxState<Arc<State>>, Json(body): Json<RunBody>) -> Response {
    let query = body.query.trim().to_string();
    if query.is_empty() || query.chars().count() > MAX_REQUEST_CHARS {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": format!("the request must have 1 to {MAX_REQUEST_CHARS} characters")})),
        )
            .into_response();
    }
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(drive(s, query, Forward(tx)));
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<Event, Infallible>(e), rx))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Runs the agent for one request, streaming its events through `out`.
async fn drive(s: Arc<State>, query: String, out: Forward) {
    let waiting = s.agent_lock.try_lock().is_err();
    if waiting {
        out.send(
            "queued",
            json!({"message": "another run is in progress; waiting for it"}),
        );
    }
    let _turn = s.agent_lock.lock().await;
    let provider = match provider(&s).await {
        Ok(p) => p,
        Err(message) => {
            out.send("failed", json!({"message": message}));
            return;
        }
    };
    let run_id = s.next_id("run");
    out.send(
        "started",
        json!({"run_id": run_id, "provider": provider.name()}),
    );
    let done = Forward(out.0.clone());
    let mut agent = Agent::new(provider, s.toolbox.runtime.clone(), s.toolbox.agent.clone())
        .with_ranker(s.toolbox.ranker.clone())
        .with_observer(Arc::new(out));
    let trace = Arc::new(agent.run_trace(&query).await);
    // Kept before `done` is sent, so the download works as soon as the page sees it.
    s.keep_trace(run_id.clone(), trace.clone());
    done.send("done", json!({"run_id": run_id, "trace": &*trace}));
}
