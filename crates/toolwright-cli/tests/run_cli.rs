//! `toolwright run` end to end against a loopback OpenAI-compatible fixture, and the message
//! when no model is available.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use assert_cmd::Command;
use serde_json::{Value, json};

mod common;
use common::completion;

/// The fixture's base URL (the requests it saw are not looked at here).
fn fixture(bodies: Vec<Value>) -> String {
    common::fixture(bodies).0
}

fn toolwright() -> Command {
    let mut c = common::toolwright();
    c.env_remove("TOOLWRIGHT_MODEL");
    c
}

#[test]
fn run_calls_the_tool_and_prints_the_answer() {
    let url = fixture(vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "convert_currency", "arguments": "{\"amount\":100,\"from_currency\":\"USD\",\"to_currency\":\"EUR\"}"}}]}),
        ),
        completion(
            json!({"role": "assistant", "content": "100 USD = 96.04 EUR (rates of 2026-11-27)."}),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright()
        .args([
            "--root",
            dir.path().to_str().unwrap(),
            "run",
            "Convert 100 USD to EUR",
            "--base-url",
            &url,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout.trim(), "100 USD = 96.04 EUR (rates of 2026-11-27).");
    assert!(
        stderr.contains("Converting currency: convert_currency"),
        "{stderr}"
    );
    assert!(stderr.contains("[ok,"), "{stderr}");
}

#[test]
fn run_json_prints_the_whole_trace() {
    let url = fixture(vec![
        completion(json!({"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"17*23\"}"}},
            {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})),
        completion(json!({"role": "assistant", "content": "391, and cloudy in Paris."})),
    ]);
    let out = toolwright()
        .args([
            "run",
            "17*23 and Paris weather",
            "--base-url",
            &url,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trace["stop"]["reason"], "answered");
    assert_eq!(trace["calls"].as_array().unwrap().len(), 2);
    assert_eq!(trace["calls"][0]["envelope"]["data"], 391);
    assert_eq!(trace["calls"][1]["envelope"]["data"]["city"], "Paris");
    assert_eq!(trace["usage"]["input_tokens"], 20);
    assert!(trace["messages"].as_array().unwrap().len() >= 5);
}

#[test]
fn run_with_functions_validates_without_executing() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("defs.json");
    std::fs::write(
        &defs,
        json!([{"type": "function", "function": {"name": "book_flight", "description": "Book a flight for the user.",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}}])
        .to_string(),
    )
    .unwrap();
    let url = fixture(vec![
        completion(
            json!({"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
            "function": {"name": "book_flight", "arguments": "{\"to\":\"Lisbon\"}"}}]}),
        ),
        completion(
            json!({"role": "assistant", "content": "Your flight request to Lisbon is valid."}),
        ),
    ]);
    let out = toolwright()
        .args([
            "run",
            "Fly me to Lisbon",
            "--base-url",
            &url,
            "--json",
            "--functions",
            defs.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trace["tools_offered"], json!(["book_flight"]));
    assert_eq!(trace["calls"][0]["envelope"]["data"]["validated"], true);
}

#[test]
fn without_a_model_or_a_key_run_names_the_fetch_command() {
    let home = tempfile::tempdir().unwrap();
    let out = toolwright()
        .env("TOOLWRIGHT_HOME", home.path())
        .args(["run", "Convert 100 USD to EUR"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("toolwright model fetch"), "{stderr}");
}
