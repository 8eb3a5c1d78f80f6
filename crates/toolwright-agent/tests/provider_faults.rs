//! Fault injection on the provider side (issue 14): a loopback server speaking the OpenAI Chat
//! Completions wire format that truncates its bodies, answers nothing but 429, or sends its
//! body a byte at a time. For each fault: no panic, an error within the configured deadline,
//! no tool run twice and no answer claimed for a turn that did not arrive, and the next run
//! works.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwright_agent::providers::openai::{OpenAiConfig, OpenAiProvider};
use toolwright_agent::{Agent, AgentConfig, StopReason};
use toolwright_core::{FnTool, Registry, SideEffects, ToolMeta, ToolOutput, ToolSpec};

/// How the server answers one request.
#[derive(Clone)]
enum Reply {
    /// A whole JSON body.
    Ok(Value),
    /// Headers promising the whole body, half of it, then the connection closes.
    Truncated(Value),
    /// 429 with `Retry-After: 0`.
    TooMany,
    /// Headers at once, then the body one byte every `gap`.
    Slow(Value, Duration),
}

/// Serves `replies` in order (the last one repeats); counts requests.
async fn serve(replies: Vec<Reply>) -> (String, Arc<AtomicU32>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(AtomicU32::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut tcp, _)) = listener.accept().await else {
                return;
            };
            let n = count.fetch_add(1, Ordering::SeqCst) as usize;
            let reply = replies.get(n).or_else(|| replies.last()).cloned().unwrap();
            tokio::spawn(async move {
                read_request(&mut tcp).await;
                answer(&mut tcp, reply).await;
            });
        }
    });
    (format!("http://{addr}/v1"), seen)
}

async fn read_request(tcp: &mut tokio::net::TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = tcp.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return;
            }
        }
    }
}

async fn answer(tcp: &mut tokio::net::TcpStream, reply: Reply) {
    let head = |status: &str, len: usize, extra: &str| {
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\
             connection: close\r\n{extra}\r\n"
        )
    };
    match reply {
        Reply::Ok(v) => {
            let body = v.to_string();
            let _ = tcp
                .write_all(format!("{}{body}", head("200 OK", body.len(), "")).as_bytes())
                .await;
        }
        Reply::Truncated(v) => {
            let body = v.to_string();
            let half = &body[..body.len() / 2];
            let _ = tcp
                .write_all(format!("{}{half}", head("200 OK", body.len(), "")).as_bytes())
                .await;
            let _ = tcp.shutdown().await;
        }
        Reply::TooMany => {
            let body = r#"{"error":{"message":"rate limited"}}"#;
            let _ = tcp
                .write_all(
                    format!(
                        "{}{body}",
                        head("429 Too Many Requests", body.len(), "retry-after: 0\r\n")
                    )
                    .as_bytes(),
                )
                .await;
        }
        Reply::Slow(v, gap) => {
            let body = v.to_string();
            if tcp
                .write_all(head("200 OK", body.len(), "").as_bytes())
                .await
                .is_err()
            {
                return;
            }
            for b in body.bytes() {
                if tcp.write_all(&[b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(gap).await;
            }
        }
    }
}

fn completion(message: Value) -> Value {
    json!({"id": "c", "object": "chat.completion", "model": "fixture",
           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}})
}

fn call_track() -> Value {
    completion(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "track_view", "arguments": "{\"id\": 7}"}}]}))
}

fn answer_text(t: &str) -> Value {
    completion(json!({"role": "assistant", "content": t}))
}

/// A runtime with one write tool that counts its runs (the side effect).
fn counting_runtime() -> (toolwright_runtime::Runtime, Arc<AtomicU32>) {
    let runs = Arc::new(AtomicU32::new(0));
    let r = runs.clone();
    let reg = Registry::new();
    reg.register(FnTool::new(
        ToolSpec::new(
            "track_view",
            "Record that the user viewed an article. Use this when the user opens one.",
            json!({"type": "object", "properties": {"id": {"type": "integer"}},
                   "required": ["id"], "additionalProperties": false}),
        )
        .with_meta(ToolMeta {
            side_effects: SideEffects::Write,
            ..ToolMeta::default()
        }),
        move |_, _| {
            let r = r.clone();
            async move {
                r.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::Data(json!({"recorded": true})))
            }
        },
    ))
    .unwrap();
    (toolwright_runtime::Runtime::new(Arc::new(reg)), runs)
}

fn agent(base: &str, runtime: toolwright_runtime::Runtime) -> Agent {
    let mut cfg = OpenAiConfig::new(base.to_string(), "fixture-model");
    cfg.http = common::fast_http();
    cfg.http.timeout = Duration::from_millis(800);
    cfg.http.max_retries = 2;
    Agent::new(
        Arc::new(OpenAiProvider::new(cfg).unwrap()),
        runtime,
        AgentConfig::default(),
    )
}

fn provider_error(stop: &StopReason) -> &str {
    match stop {
        StopReason::ProviderError { message } => message,
        other => panic!("expected a provider error, got {other:?}"),
    }
}

/// A body cut in half after the tool ran: the run stops at once with a provider error (a body
/// that does not parse is not retried; no answer is made up), the tool ran once, and the next
/// run works.
#[tokio::test]
async fn a_truncated_body_is_an_error_and_the_tool_runs_once() {
    let (base, requests) = serve(vec![
        Reply::Ok(call_track()),
        Reply::Truncated(answer_text("done")),
        Reply::Ok(answer_text("recorded")),
    ])
    .await;
    let (runtime, runs) = counting_runtime();
    let mut a = agent(&base, runtime.clone());
    let t = Instant::now();
    let trace = a.run_trace("I opened article 7").await;
    let message = provider_error(&trace.stop);
    assert!(!message.is_empty());
    assert!(trace.answer.is_none(), "{:?}", trace.answer);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool ran twice");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        2,
        "the cut turn is not sent again"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // The server is whole again: the next run answers.
    let mut a = agent(&base, runtime);
    let trace = a.run_trace("Did it work?").await;
    assert_eq!(trace.stop, StopReason::Answered, "{:?}", trace.stop);
    assert_eq!(trace.answer.as_deref(), Some("recorded"));
}

/// Nothing but 429: a bounded number of attempts, then a provider error naming the rate limit;
/// no tool runs.
#[tokio::test]
async fn a_429_storm_gives_up_after_the_retries() {
    let (base, requests) = serve(vec![Reply::TooMany]).await;
    let (runtime, runs) = counting_runtime();
    let mut a = agent(&base, runtime);
    let t = Instant::now();
    let trace = a.run_trace("I opened article 7").await;
    let message = provider_error(&trace.stop);
    assert!(
        message.contains("429") || message.to_lowercase().contains("rate"),
        "{message}"
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "max_retries 2: three attempts"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert!(trace.answer.is_none());
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

/// A body that trickles in slower than the request deadline: the request times out at its
/// deadline (a body timeout is not retried), not when the body would have finished (11 s);
/// then a quick answer works.
#[tokio::test]
async fn a_slow_body_times_out_on_time() {
    let slow = Reply::Slow(answer_text(&"x".repeat(200)), Duration::from_millis(50));
    let (base, requests) = serve(vec![
        Reply::Ok(call_track()),
        slow,
        Reply::Ok(answer_text("fine")),
    ])
    .await;
    let (runtime, runs) = counting_runtime();
    let mut a = agent(&base, runtime.clone());
    let t = Instant::now();
    let trace = a.run_trace("I opened article 7").await;
    let message = provider_error(&trace.stop);
    assert!(message.contains("no answer within"), "{message}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(requests.load(Ordering::SeqCst), 2);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let mut a = agent(&base, runtime);
    let trace = a.run_trace("again").await;
    assert_eq!(trace.answer.as_deref(), Some("fine"), "{:?}", trace.stop);
}
