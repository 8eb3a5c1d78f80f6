//! OTLP export (feature `otel`): the real `toolwright` binary sends its spans to a loopback
//! OTLP/HTTP receiver that decodes the protobuf `ExportTraceServiceRequest`s it receives, and the
//! test checks the GenAI spans, their attributes and their nesting.
#![cfg(feature = "otel")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use assert_cmd::Command;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

/// What the receiver got: decoded requests, and the errors of bodies that did not decode.
#[derive(Default)]
struct Received {
    requests: Mutex<Vec<ExportTraceServiceRequest>>,
    errors: Mutex<Vec<String>>,
}

impl Received {
    /// Every span received so far, with the `service.name` of its resource.
    fn spans(&self) -> Vec<(Option<String>, Span)> {
        let reqs = self.requests.lock().unwrap();
        let mut out = Vec::new();
        for r in reqs.iter() {
            for rs in &r.resource_spans {
                let service = rs
                    .resource
                    .as_ref()
                    .and_then(|res| string_attr(&res.attributes, "service.name"));
                for ss in &rs.scope_spans {
                    for s in &ss.spans {
                        out.push((service.clone(), s.clone()));
                    }
                }
            }
        }
        out
    }
}

async fn traces(State(r): State<Arc<Received>>, body: Bytes) -> impl IntoResponse {
    match ExportTraceServiceRequest::decode(body) {
        Ok(req) => {
            r.requests.lock().unwrap().push(req);
            let resp = ExportTraceServiceResponse::default().encode_to_vec();
            (
                StatusCode::OK,
                [("content-type", "application/x-protobuf")],
                resp,
            )
        }
        Err(e) => {
            r.errors.lock().unwrap().push(e.to_string());
            (
                StatusCode::BAD_REQUEST,
                [("content-type", "text/plain")],
                e.to_string().into_bytes(),
            )
        }
    }
}

/// A loopback OTLP/HTTP receiver (`POST /v1/traces`, protobuf); returns its base URL. The
/// runtime serves it until it is dropped.
fn receiver() -> (tokio::runtime::Runtime, String, Arc<Received>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let received = Arc::new(Received::default());
    let app = axum::Router::new()
        .route("/v1/traces", post(traces))
        .with_state(received.clone());
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (rt, format!("http://{addr}"), received)
}

fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attrs
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v: &AnyValue| v.value.as_ref())
}

fn string_attr(attrs: &[KeyValue], key: &str) -> Option<String> {
    match attr(attrs, key) {
        Some(any_value::Value::StringValue(s)) => Some(s.clone()),
        _ => None,
    }
}

fn int_attr(attrs: &[KeyValue], key: &str) -> Option<i64> {
    match attr(attrs, key) {
        Some(any_value::Value::IntValue(i)) => Some(*i),
        _ => None,
    }
}

/// Waits (bounded) until `done` holds for the spans received; panics with what arrived if it
/// never does.
fn wait_for(received: &Received, done: impl Fn(&[Span]) -> bool) -> Vec<(Option<String>, Span)> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let spans = received.spans();
        let only: Vec<Span> = spans.iter().map(|(_, s)| s.clone()).collect();
        if done(&only) {
            return spans;
        }
        if Instant::now() > deadline {
            let names: Vec<&str> = only.iter().map(|s| s.name.as_str()).collect();
            panic!(
                "the expected spans did not arrive within 20 s; received {names:?}, decode errors {:?}",
                received.errors.lock().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn toolwright(endpoint_env: Option<&str>) -> Command {
    let mut c = common::toolwright();
    for k in [
        "TOOLWRIGHT_MODEL",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_SDK_DISABLED",
        "OTEL_SERVICE_NAME",
        "OTEL_RESOURCE_ATTRIBUTES",
        "RUST_LOG",
        "TOOLWRIGHT_LOG",
    ] {
        c.env_remove(k);
    }
    if let Some(e) = endpoint_env {
        c.env("OTEL_EXPORTER_OTLP_ENDPOINT", e);
    }
    c.timeout(Duration::from_secs(120));
    c
}

/// A Chat Completions response with the given usage and the model the server says answered.
fn completion(message: Value, prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-test",
        "model": "fake-model-2026-01-01",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    })
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

#[test]
fn run_exports_invoke_agent_chat_and_execute_tool_spans_nested() {
    let (_rt, otlp, received) = receiver();
    let (base_url, _seen) = common::fixture(vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "calculate", "arguments": "{\"expression\":\"17*23\"}"}}]}),
            123,
            45,
        ),
        completion(
            json!({"role": "assistant", "content": "17*23 = 391."}),
            150,
            7,
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(Some(&otlp))
        .args([
            "--root",
            dir.path().to_str().unwrap(),
            "run",
            "What is 17*23?",
            "--base-url",
            &base_url,
            "--model",
            "fake-model",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "17*23 = 391.");
    assert!(
        !stderr.contains('\u{1b}'),
        "colour codes in a pipe: {stderr}"
    );

    let all = wait_for(&received, |s| {
        named(s, "invoke_agent").len() == 1
            && named(s, "chat fake-model").len() == 2
            && named(s, "execute_tool calculate").len() == 1
    });
    assert!(received.errors.lock().unwrap().is_empty());
    assert!(
        all.iter()
            .all(|(svc, _)| svc.as_deref() == Some("toolwright")),
        "service.name"
    );
    let spans: Vec<Span> = all.into_iter().map(|(_, s)| s).collect();

    let agent = named(&spans, "invoke_agent")[0];
    assert!(agent.parent_span_id.is_empty(), "invoke_agent is the root");
    assert_eq!(agent.kind, SpanKind::Internal as i32);
    let a = &agent.attributes;
    assert_eq!(
        string_attr(a, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(
        string_attr(a, "gen_ai.provider.name").as_deref(),
        Some("openai")
    );
    assert_eq!(
        string_attr(a, "gen_ai.request.model").as_deref(),
        Some("fake-model")
    );
    assert_eq!(int_attr(a, "gen_ai.usage.input_tokens"), Some(273));
    assert_eq!(int_attr(a, "gen_ai.usage.output_tokens"), Some(52));
    assert_eq!(
        string_attr(a, "toolwright.stop").as_deref(),
        Some("answered")
    );

    let mut chats = named(&spans, "chat fake-model");
    chats.sort_by_key(|s| s.start_time_unix_nano);
    let expected = [(123, 45), (150, 7)];
    for (chat, (input, output)) in chats.iter().zip(expected) {
        assert_eq!(chat.trace_id, agent.trace_id, "one trace");
        assert_eq!(
            chat.parent_span_id, agent.span_id,
            "chat under invoke_agent"
        );
        assert_eq!(chat.kind, SpanKind::Client as i32);
        let c = &chat.attributes;
        assert_eq!(
            string_attr(c, "gen_ai.operation.name").as_deref(),
            Some("chat")
        );
        assert_eq!(
            string_attr(c, "gen_ai.provider.name").as_deref(),
            Some("openai")
        );
        assert_eq!(
            string_attr(c, "gen_ai.request.model").as_deref(),
            Some("fake-model")
        );
        assert_eq!(
            string_attr(c, "gen_ai.response.model").as_deref(),
            Some("fake-model-2026-01-01")
        );
        assert_eq!(int_attr(c, "gen_ai.usage.input_tokens"), Some(input));
        assert_eq!(int_attr(c, "gen_ai.usage.output_tokens"), Some(output));
        assert_eq!(
            string_attr(c, "server.address").as_deref(),
            Some("127.0.0.1")
        );
        assert!(int_attr(c, "server.port").is_some_and(|p| p > 0));
        assert!(string_attr(c, "error.type").is_none());
    }

    let tool = named(&spans, "execute_tool calculate")[0];
    assert_eq!(tool.trace_id, agent.trace_id, "one trace");
    assert_eq!(
        tool.parent_span_id, agent.span_id,
        "execute_tool under invoke_agent"
    );
    let t = &tool.attributes;
    assert_eq!(
        string_attr(t, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        string_attr(t, "gen_ai.tool.name").as_deref(),
        Some("calculate")
    );
    assert_eq!(string_attr(t, "gen_ai.tool.call.id").as_deref(), Some("c1"));
    assert_eq!(
        string_attr(t, "toolwright.status").as_deref(),
        Some("success")
    );
    // The tool ran after the first model turn answered and before the second began.
    assert!(tool.start_time_unix_nano >= chats[0].end_time_unix_nano);
    assert!(tool.end_time_unix_nano <= chats[1].start_time_unix_nano);
}

#[test]
fn a_failed_call_exports_its_span_before_the_error_exit_with_the_flag() {
    let (_rt, otlp, received) = receiver();
    // The flag instead of the variable; the call fails validation, so the exit code is 1.
    let out = toolwright(None)
        .args([
            "--otlp-endpoint",
            &otlp,
            "call",
            "calculate",
            "--args",
            r#"{"expression": 5}"#,
            "--strict",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spans: Vec<Span> = wait_for(&received, |s| {
        !named(s, "execute_tool calculate").is_empty()
    })
    .into_iter()
    .map(|(_, s)| s)
    .collect();
    let tool = named(&spans, "execute_tool calculate")[0];
    assert!(
        tool.parent_span_id.is_empty(),
        "a lone call is its own trace"
    );
    assert_eq!(
        string_attr(&tool.attributes, "error.type").as_deref(),
        Some("VALIDATION_ERROR")
    );
    assert_eq!(
        string_attr(&tool.attributes, "toolwright.status").as_deref(),
        Some("error")
    );
}

#[test]
fn otel_sdk_disabled_turns_the_export_off() {
    let (_rt, otlp, received) = receiver();
    let out = toolwright(Some(&otlp))
        .env("OTEL_SDK_DISABLED", "true")
        .args(["call", "calculate", "--args", r#"{"expression": "1+1"}"#])
        .output()
        .unwrap();
    assert!(out.status.success());
    // An exporter flushes before the process exits: had one run, its spans would be here.
    std::thread::sleep(Duration::from_millis(500));
    assert!(received.spans().is_empty());
    assert!(received.errors.lock().unwrap().is_empty());
}
