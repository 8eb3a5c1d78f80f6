//! A loopback HTTP fixture that serves recorded responses in order and records the requests.
#![allow(dead_code, clippy::unwrap_used)]

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Response, StatusCode};
use axum::routing::post;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One canned response.
#[derive(Clone)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Canned {
    pub fn json(body: Value) -> Self {
        Canned {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }
    pub fn status(status: u16, body: &str) -> Self {
        Canned {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }
    pub fn header(mut self, k: &'static str, v: &str) -> Self {
        self.headers.push((k, v.to_string()));
        self
    }
    pub fn delayed(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }
}

#[derive(Default)]
pub struct Fixture {
    responses: Mutex<VecDeque<Canned>>,
    pub requests: Mutex<Vec<(HeaderMap, Value)>>,
}

impl Fixture {
    pub fn requests(&self) -> Vec<(HeaderMap, Value)> {
        self.requests.lock().unwrap().clone()
    }
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|(_, b)| b).collect()
    }
}

async fn handle(State(f): State<Arc<Fixture>>, headers: HeaderMap, body: String) -> Response<Body> {
    f.requests
        .lock()
        .unwrap()
        .push((headers, serde_json::from_str(&body).unwrap_or(Value::Null)));
    let next = f.responses.lock().unwrap().pop_front();
    let Some(c) = next else {
        return Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from(
                r#"{"error":{"message":"fixture: no more recorded responses"}}"#,
            ))
            .unwrap();
    };
    if !c.delay.is_zero() {
        tokio::time::sleep(c.delay).await;
    }
    let mut b = Response::builder()
        .status(c.status)
        .header("content-type", "application/json");
    for (k, v) in &c.headers {
        b = b.header(*k, v.as_str());
    }
    b.body(Body::from(c.body)).unwrap()
}

/// Starts the fixture on 127.0.0.1 (any free port); returns its base URL (`http://127.0.0.1:P`).
pub async fn serve(responses: Vec<Canned>) -> (String, Arc<Fixture>) {
    let f = Arc::new(Fixture {
        responses: Mutex::new(responses.into()),
        requests: Mutex::new(Vec::new()),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(handle))
        .route("/v1/messages", post(handle))
        .with_state(f.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), f)
}

/// The demo tools in a temporary sandbox.
pub fn demo_runtime() -> (toolwright_runtime::Runtime, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let reg = toolwright_demo::registry(toolwright_demo::DemoConfig {
        root: dir.path().to_path_buf(),
    })
    .unwrap();
    (toolwright_runtime::Runtime::new(Arc::new(reg)), dir)
}

/// Fast retries for tests.
pub fn fast_http() -> toolwright_agent::HttpConfig {
    toolwright_agent::HttpConfig {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        max_retries: 2,
        backoff_base: Duration::from_millis(10),
        max_wait: Duration::from_secs(2),
    }
}
