//! The Anthropic provider against a loopback server speaking the Messages wire format with
//! recorded responses.
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
use toolwright_agent::providers::anthropic::{AnthropicConfig, AnthropicProvider};
use toolwright_agent::{Agent, AgentConfig, Secret, StopReason};

const KEY: &str = "sk-ant-test-0123456789";

fn message(content: Value) -> Canned {
    Canned::json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "fixture",
        "content": content, "stop_reason": "tool_use",
        "usage": {"input_tokens": 40, "output_tokens": 5}
    }))
}

fn uses(list: &[(&str, &str, Value)]) -> Canned {
    message(Value::Array(
        list.iter()
            .map(|(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}))
            .collect(),
    ))
}

fn provider(base: &str) -> AnthropicProvider {
    let mut cfg = AnthropicConfig::new(Secret::new(KEY), "fixture-model");
    cfg.base_url = base.to_string();
    cfg.http = fast_http();
    AnthropicProvider::new(cfg).unwrap()
}

/// The tool_result blocks of the last user message of a request.
fn results(body: &Value) -> Vec<Value> {
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_multi_step_conversation_with_every_kind_of_trouble() {
    let (base, fx) = serve(vec![
        Canned::status(429, r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#)
            .header("retry-after", "0"),
        message(json!([
            {"type": "text", "text": "Let me check both."},
            {"type": "tool_use", "id": "t1", "name": "convert_currency", "input": {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}},
            {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {"city": "Paris"}}
        ])),
        uses(&[("t3", "query_users", json!({"role": "wizard"}))]),
        uses(&[("t4", "query_users", json!({"role": "admin"}))]),
        uses(&[("t5", "get_wether", json!({"city": "Paris"}))]),
        // Malformed input: a string that is not JSON.
        uses(&[("t6", "calculate", json!("{expression: 17 * 23"))]),
        uses(&[("t7", "calculate", json!({"expression": "17*23"}))]),
        message(json!([{"type": "text", "text": "100 USD is 96.04 EUR (rates of 2026-11-27); 17*23 = 391."}])),
    ])
    .await;
    let (runtime, _dir) = demo_runtime();
    let mut agent = Agent::new(
        Arc::new(provider(&base)),
        runtime,
        AgentConfig {
            system_prompt: Some("Be brief.".into()),
            ..AgentConfig::default()
        },
    );
    let trace = agent
        .run_trace("Convert 100 USD to EUR, weather in Paris, admins, and 17*23")
        .await;
    assert_eq!(trace.stop, StopReason::Answered, "{:#?}", trace.steps);
    let codes: Vec<String> = trace
        .calls
        .iter()
        .map(|c| {
            c.envelope
                .error()
                .as_ref()
                .map_or_else(|| "ok".to_string(), |e| e.code.as_str().to_string())
        })
        .collect();
    assert_eq!(
        codes,
        [
            "ok",
            "ok",
            "VALIDATION_ERROR",
            "ok",
            "UNKNOWN_TOOL",
            "VALIDATION_ERROR",
            "ok"
        ]
    );
    let bodies = fx.bodies();
    assert_eq!(bodies.len(), 8);
    // System prompt in `system`, tools with input_schema, headers.
    assert_eq!(bodies[1]["system"], "Be brief.");
    assert!(bodies[1]["tools"][0]["input_schema"].is_object());
    let (headers, _) = &fx.requests()[1];
    assert_eq!(headers["x-api-key"], KEY);
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    // The two parallel results go back in one user message, is_error false.
    let r = results(&bodies[2]);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0]["tool_use_id"].clone(), r[0]["is_error"].clone()),
        (json!("t1"), json!(false))
    );
    assert_eq!(r[1]["tool_use_id"], "t2");
    // The assistant turn kept its text and both tool_use blocks.
    let asst = &bodies[2]["messages"].as_array().unwrap()[1];
    assert_eq!(asst["role"], "assistant");
    assert_eq!(asst["content"].as_array().unwrap().len(), 3);
    // Errors go back with is_error true, the fields and the suggestions.
    let v = results(&bodies[3]).pop().unwrap();
    assert_eq!(v["is_error"], true);
    assert!(v["content"].as_str().unwrap().contains("/role"));
    let u = results(&bodies[5]).pop().unwrap();
    assert_eq!(u["is_error"], true);
    assert!(u["content"].as_str().unwrap().contains("get_weather"));
    let m = results(&bodies[6]).pop().unwrap();
    assert_eq!(m["is_error"], true);
    assert!(
        m["content"]
            .as_str()
            .unwrap()
            .contains("could not be read as JSON")
    );
    assert_eq!(trace.usage.output_tokens, 7 * 5);
    assert!(!serde_json::to_string(&trace).unwrap().contains(KEY));
    assert!(!format!("{:?}", provider(&base)).contains(KEY));
}

#[tokio::test]
async fn overloaded_is_retried_and_malformed_content_is_an_error() {
    let (base, fx) = serve(vec![
        Canned::status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Canned::json(json!({"type": "message", "content": "not an array"})),
    ])
    .await;
    let (runtime, _dir) = demo_runtime();
    let mut agent = Agent::new(Arc::new(provider(&base)), runtime, AgentConfig::default());
    let trace = agent.run_trace("hi").await;
    let StopReason::ProviderError { message } = &trace.stop else {
        panic!("{:?}", trace.stop)
    };
    assert!(
        message.contains("malformed") && message.contains("content"),
        "{message}"
    );
    assert_eq!(fx.requests().len(), 2);
}
