//! The OpenAI-compatible provider against a loopback server speaking the Chat Completions wire
//! format with recorded responses.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{Canned, demo_runtime, fast_http, serve};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use toolwright_agent::providers::openai::{OpenAiConfig, OpenAiProvider};
use toolwright_agent::{Agent, AgentConfig, ProviderError, Secret, StopReason};

fn completion(message: Value) -> Canned {
    Canned::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "fixture",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
    }))
}

fn calls(list: &[(&str, &str, &str)]) -> Canned {
    completion(json!({
        "role": "assistant", "content": null,
        "tool_calls": list.iter().map(|(id, name, args)| json!({
            "id": id, "type": "function", "function": {"name": name, "arguments": args}
        })).collect::<Vec<_>>()
    }))
}

fn text(t: &str) -> Canned {
    completion(json!({"role": "assistant", "content": t}))
}

const KEY: &str = "sk-test-0123456789abcdef";

fn provider(base: &str) -> OpenAiProvider {
    let mut cfg =
        OpenAiConfig::new(format!("{base}/v1"), "fixture-model").with_key(Secret::new(KEY));
    cfg.http = fast_http();
    OpenAiProvider::new(cfg).unwrap()
}

fn tool_messages(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_multi_step_conversation_with_every_kind_of_trouble() {
    let (base, fx) = serve(vec![
        // 1. Rate limited: retried after Retry-After.
        Canned::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "0"),
        // 2. Two parallel calls.
        calls(&[
            (
                "c1",
                "convert_currency",
                r#"{"amount": 100, "from_currency": "USD", "to_currency": "EUR"}"#,
            ),
            ("c2", "get_weather", r#"{"city": "Paris"}"#),
        ]),
        // 3. An invalid argument...
        calls(&[("c3", "query_users", r#"{"role": "wizard"}"#)]),
        // 4. ...corrected.
        calls(&[("c4", "query_users", r#"{"role": "admin"}"#)]),
        // 5. An unknown tool name.
        calls(&[("c5", "get_wether", r#"{"city": "Paris"}"#)]),
        // 6. Malformed tool-call JSON.
        calls(&[("c6", "calculate", r#"{expression: 17 * 23"#)]),
        // 7. Corrected.
        calls(&[("c7", "calculate", r#"{"expression": "17*23"}"#)]),
        // 8. The answer.
        text("100 USD is 96.04 EUR (rates of 2026-11-27); Paris is cloudy; 17*23 = 391."),
    ])
    .await;
    let (runtime, _dir) = demo_runtime();
    let p = provider(&base);
    let mut agent = Agent::new(Arc::new(p), runtime, AgentConfig::default());
    let trace = agent
        .run_trace("Convert 100 USD to EUR, weather in Paris, admins, and 17*23")
        .await;

    assert_eq!(trace.stop, StopReason::Answered, "{:#?}", trace.steps);
    assert!(trace.answer.as_deref().unwrap().contains("96.04"));
    assert_eq!(trace.calls.len(), 7);
    let status: Vec<String> = trace
        .calls
        .iter()
        .map(|c| {
            c.envelope.error().map_or_else(
                || c.envelope.status().as_str().to_string(),
                |e| e.code.as_str().to_string(),
            )
        })
        .collect();
    assert_eq!(
        status,
        [
            "success",
            "success",
            "VALIDATION_ERROR",
            "success",
            "UNKNOWN_TOOL",
            "VALIDATION_ERROR",
            "success"
        ]
    );
    // 7 turns + 1 retried 429.
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 8, "{:#?}", trace.steps);
    assert_eq!(bodies[0], bodies[1], "the retry resends the same request");
    // Tools are advertised in the OpenAI dialect.
    assert_eq!(bodies[1]["tools"][0]["type"], "function");
    assert!(
        bodies[1]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "convert_currency")
    );
    // Both parallel results went back, matched by id, before the next turn.
    let after_parallel = tool_messages(&bodies[2]);
    assert_eq!(after_parallel.len(), 2);
    assert_eq!(after_parallel[0]["tool_call_id"], "c1");
    assert_eq!(after_parallel[1]["tool_call_id"], "c2");
    let conv: Value = serde_json::from_str(after_parallel[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(conv["data"]["rates_date"], "2026-11-27");
    // The validation error carries the field and the allowed values.
    let v = tool_messages(&bodies[3]).pop().unwrap();
    let env: Value = serde_json::from_str(v["content"].as_str().unwrap()).unwrap();
    assert_eq!(env["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(env["error"]["fields"][0]["path"], "/role");
    assert!(
        env["error"]["fields"][0]["expected"]
            .to_string()
            .contains("admin")
    );
    // The unknown tool is answered with the closest name.
    let u = tool_messages(&bodies[5]).pop().unwrap();
    let env: Value = serde_json::from_str(u["content"].as_str().unwrap()).unwrap();
    assert_eq!(env["error"]["code"], "UNKNOWN_TOOL");
    assert!(
        env["error"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("get_weather")
    );
    // The malformed arguments are echoed as sent and answered with a readable error.
    let asst = bodies[6]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .unwrap()
        .clone();
    assert_eq!(
        asst["tool_calls"][0]["function"]["arguments"],
        "{expression: 17 * 23"
    );
    let m = tool_messages(&bodies[6]).pop().unwrap();
    assert!(
        m["content"]
            .as_str()
            .unwrap()
            .contains("could not be read as JSON"),
        "{m}"
    );
    assert!(!trace.calls[5].ran);
    // Tokens are summed; the key was sent and appears nowhere else.
    assert_eq!(trace.usage.input_tokens, 7 * 50);
    let (headers, _) = &fx.requests()[0];
    assert_eq!(headers["authorization"], format!("Bearer {KEY}"));
    let dump = format!(
        "{}\n{:?}\n{:?}",
        serde_json::to_string(&trace).unwrap(),
        agent,
        provider(&base)
    );
    assert!(!dump.contains(KEY), "the key leaked");
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_clearly() {
    let (base, fx) = serve(vec![
        Canned::status(503, r#"{"error":{"message":"overloaded"}}"#),
        Canned::status(502, "bad gateway"),
        Canned::status(500, r#"{"error":{"message":"still down"}}"#),
    ])
    .await;
    let (runtime, _dir) = demo_runtime();
    let mut agent = Agent::new(Arc::new(provider(&base)), runtime, AgentConfig::default());
    let trace = agent.run_trace("hi").await;
    let StopReason::ProviderError { message } = &trace.stop else {
        panic!("{:?}", trace.stop)
    };
    assert!(
        message.contains("HTTP 500") && message.contains("still down"),
        "{message}"
    );
    assert_eq!(fx.requests().len(), 3, "1 try + 2 retries");
}

#[tokio::test]
async fn client_errors_are_not_retried_and_keys_are_scrubbed() {
    let (base, fx) = serve(vec![Canned::status(
        401,
        &format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#),
    )])
    .await;
    let p = provider(&base);
    let (runtime, _dir) = demo_runtime();
    let mut agent = Agent::new(Arc::new(p), runtime, AgentConfig::default());
    let trace = agent.run_trace("hi").await;
    let StopReason::ProviderError { message } = &trace.stop else {
        panic!()
    };
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(!message.contains(KEY), "{message}");
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn malformed_bodies_and_timeouts_are_clear_errors() {
    use toolwright_agent::{Provider, Turn};
    let (base, _fx) = serve(vec![
        Canned::status(200, "<html>not json</html>"),
        Canned::json(json!({"choices": []})),
        text("late").delayed(Duration::from_millis(1500)),
    ])
    .await;
    let mut cfg = OpenAiConfig::new(format!("{base}/v1"), "m");
    cfg.http = fast_http();
    cfg.http.max_retries = 0;
    cfg.http.timeout = Duration::from_millis(300);
    let p = OpenAiProvider::new(cfg).unwrap();
    let msgs = [toolwright_agent::Message::user("hi")];
    let turn = Turn {
        messages: &msgs,
        tools: &[],
        ranking: None,
    };
    let e = p.complete(turn).await.unwrap_err();
    assert!(
        matches!(e, ProviderError::Malformed { .. }) && e.to_string().contains("not JSON"),
        "{e}"
    );
    let e = p.complete(turn).await.unwrap_err();
    assert!(e.to_string().contains("choices[0].message"), "{e}");
    let e = p.complete(turn).await.unwrap_err();
    assert!(matches!(e, ProviderError::Timeout { .. }), "{e}");
}
