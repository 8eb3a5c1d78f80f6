//! The OpenAI-compatible provider's strict schemas and `tool_choice`, against a loopback server
//! speaking the Chat Completions wire format: what the server received, and how strict mode's
//! nulls for optionals come back.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{Canned, fast_http, serve};
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright_agent::providers::openai::{OpenAiConfig, OpenAiProvider, ToolChoice};
use toolwright_agent::{Agent, AgentConfig, Message, Provider, ProviderError, StopReason, Turn};
use toolwright_core::{FnTool, Registry, ToolOutput, ToolSpec};
use toolwright_runtime::Runtime;

fn completion(message: Value) -> Canned {
    Canned::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "fixture",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]
    }))
}

fn call(name: &str, args: &str) -> Canned {
    completion(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}]}))
}

fn text(t: &str) -> Canned {
    completion(json!({"role": "assistant", "content": t}))
}

fn forecast_spec() -> ToolSpec {
    ToolSpec::new(
        "get_forecast",
        "Forecast for a city. Use this when asked about the weather ahead.",
        json!({"type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "units": {"$ref": "#/$defs/Units"}},
            "required": ["city"],
            "additionalProperties": false,
            "$defs": {"Units": {"type": "string", "enum": ["metric", "imperial"]}}}),
    )
}

fn tag_spec() -> ToolSpec {
    ToolSpec::new(
        "tag_item",
        "Tags an item. Use this when asked to label something.",
        json!({"type": "object",
            "properties": {"id": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["id"]}),
    )
}

/// A runtime with the given tools; each answers with the arguments it received.
fn echo_runtime(specs: &[ToolSpec]) -> Runtime {
    let reg = Registry::new();
    for s in specs {
        reg.register(FnTool::new(s.clone(), |args, _| async move {
            Ok(ToolOutput::Data(json!({"received": args})))
        }))
        .unwrap();
    }
    Runtime::new(Arc::new(reg))
}

fn provider(base: &str, choice: Option<ToolChoice>) -> OpenAiProvider {
    let mut cfg = OpenAiConfig::new(format!("{base}/v1"), "fixture-model");
    cfg.http = fast_http();
    cfg.tool_choice = choice;
    OpenAiProvider::new(cfg).unwrap()
}

#[tokio::test]
async fn strict_compatible_tools_go_strict_and_nulls_for_optionals_are_dropped() {
    let (base, fx) = serve(vec![
        call(
            "get_forecast",
            r#"{"city": "Paris", "days": null, "units": null}"#,
        ),
        text("Sunny."),
    ])
    .await;
    let runtime = echo_runtime(&[forecast_spec()]);
    let mut agent = Agent::new(
        Arc::new(provider(&base, None)),
        runtime,
        AgentConfig::default(),
    );
    let trace = agent.run_trace("Weather in Paris?").await;
    assert_eq!(trace.stop, StopReason::Answered, "{:#?}", trace.steps);

    let body = &fx.bodies()[0];
    let f = &body["tools"][0]["function"];
    assert_eq!(f["strict"], true, "{body}");
    let p = &f["parameters"];
    assert_eq!(p["additionalProperties"], false);
    assert_eq!(p["required"], json!(["city", "days", "units"]));
    assert_eq!(p["properties"]["days"]["type"], json!(["integer", "null"]));
    assert!(
        body.get("tool_choice").is_none(),
        "not configured, not sent"
    );

    // The optional the model left out (null in strict mode) passed validation against the real
    // schema, where `days` is an integer and `units` a $ref to a string enum.
    let rec = &trace.calls[0];
    assert!(rec.ran);
    assert_eq!(
        rec.envelope.status().as_str(),
        "success",
        "{:?}",
        rec.envelope
    );
    assert_eq!(rec.call.arguments, json!({"city": "Paris"}));
    assert_eq!(
        rec.envelope.data.as_ref().unwrap()["received"],
        json!({"city": "Paris"})
    );
}

#[tokio::test]
async fn one_tool_strict_mode_cannot_serve_means_plain_schemas_for_all() {
    let (base, fx) = serve(vec![
        call("get_forecast", r#"{"city": "Paris", "days": null}"#),
        text("Done."),
    ])
    .await;
    let runtime = echo_runtime(&[forecast_spec(), tag_spec()]);
    let p = provider(&base, None);
    assert!(!p.strict_for(&[forecast_spec(), tag_spec()]));
    assert!(p.strict_for(&[forecast_spec()]));
    let mut agent = Agent::new(Arc::new(p), runtime, AgentConfig::default());
    let trace = agent.run_trace("Weather in Paris?").await;
    let body = &fx.bodies()[0];
    for t in body["tools"].as_array().unwrap() {
        assert!(t["function"].get("strict").is_none(), "{t}");
    }
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );
    // Not strict: a null is the model's own mistake, kept and reported by validation.
    assert_eq!(trace.calls[0].call.arguments["days"], Value::Null);
    assert_eq!(
        trace.calls[0]
            .envelope
            .error()
            .as_ref()
            .unwrap()
            .code
            .as_str(),
        "VALIDATION_ERROR"
    );
}

#[tokio::test]
async fn strict_can_be_turned_off() {
    let (base, fx) = serve(vec![text("Hi.")]).await;
    let mut cfg = OpenAiConfig::new(format!("{base}/v1"), "m").with_strict(false);
    cfg.http = fast_http();
    let p = OpenAiProvider::new(cfg).unwrap();
    let msgs = [Message::user("hi")];
    let tools = [forecast_spec()];
    let turn = Turn {
        messages: &msgs,
        tools: &tools,
        ranking: None,
    };
    p.complete(turn).await.unwrap();
    assert!(
        fx.bodies()[0]["tools"][0]["function"]
            .get("strict")
            .is_none()
    );
}

#[tokio::test]
async fn a_named_tool_choice_is_sent_until_a_tool_result_then_left_to_the_model() {
    let (base, fx) = serve(vec![
        call(
            "get_forecast",
            r#"{"city": "Oslo", "days": 3, "units": "metric"}"#,
        ),
        text("Cold."),
    ])
    .await;
    let runtime = echo_runtime(&[forecast_spec(), tag_spec()]);
    let choice: ToolChoice = "get_forecast".parse().unwrap();
    let mut agent = Agent::new(
        Arc::new(provider(&base, Some(choice))),
        runtime,
        AgentConfig::default(),
    );
    let trace = agent.run_trace("Oslo?").await;
    assert_eq!(trace.stop, StopReason::Answered, "{:#?}", trace.steps);
    let bodies = fx.bodies();
    assert_eq!(
        bodies[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "get_forecast"}})
    );
    assert!(bodies[1].get("tool_choice").is_none(), "{}", bodies[1]);
    assert_eq!(trace.calls[0].envelope.status().as_str(), "success");
}

#[tokio::test]
async fn auto_none_and_required_are_sent_as_words() {
    for (word, want, after_tool) in [
        ("auto", Some("auto"), Some("auto")),
        ("NONE", Some("none"), Some("none")),
        ("required", Some("required"), None),
    ] {
        let (base, fx) = serve(vec![text("a"), text("b")]).await;
        let p = provider(&base, Some(word.parse().unwrap()));
        let tools = [forecast_spec()];
        let first = [Message::user("hi")];
        let mut result = Message::user("x");
        result.role = toolwright_agent::Role::Tool;
        let later = [Message::user("hi"), result];
        for msgs in [&first[..], &later[..]] {
            let turn = Turn {
                messages: msgs,
                tools: &tools,
                ranking: None,
            };
            p.complete(turn).await.unwrap();
        }
        let bodies = fx.bodies();
        assert_eq!(bodies[0]["tool_choice"].as_str(), want, "{word}");
        assert_eq!(bodies[1]["tool_choice"].as_str(), after_tool, "{word}");
    }
    assert_eq!("Auto".parse::<ToolChoice>().unwrap(), ToolChoice::Auto);
}

#[tokio::test]
async fn the_choice_forces_again_after_the_next_user_message_and_skips_toolless_turns() {
    let (base, fx) = serve(vec![text("a"), text("b")]).await;
    let p = provider(&base, Some(ToolChoice::Required));
    let tools = [forecast_spec()];
    let mut result = Message::user("result");
    result.role = toolwright_agent::Role::Tool;
    let history = [
        Message::user("first question"),
        result,
        Message::user("second question"),
    ];
    p.complete(Turn {
        messages: &history,
        tools: &tools,
        ranking: None,
    })
    .await
    .unwrap();
    p.complete(Turn {
        messages: &history,
        tools: &[],
        ranking: None,
    })
    .await
    .unwrap();
    let bodies = fx.bodies();
    assert_eq!(bodies[0]["tool_choice"], "required");
    assert!(bodies[1].get("tool_choice").is_none(), "{}", bodies[1]);
    assert!(bodies[1].get("tools").is_none());
}

#[tokio::test]
async fn naming_a_tool_the_turn_does_not_offer_is_a_config_error_before_any_request() {
    let (base, fx) = serve(vec![text("never")]).await;
    let p = provider(&base, Some(ToolChoice::Function("send_email".into())));
    let msgs = [Message::user("hi")];
    let tools = [forecast_spec()];
    let turn = Turn {
        messages: &msgs,
        tools: &tools,
        ranking: None,
    };
    let e = p.complete(turn).await.unwrap_err();
    assert!(
        matches!(&e, ProviderError::Config(m) if m.contains("send_email") && m.contains("get_forecast")),
        "{e}"
    );
    assert!(fx.requests().is_empty());
}
