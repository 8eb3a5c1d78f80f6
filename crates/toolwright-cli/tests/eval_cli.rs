//! `toolwright eval` end to end: over a loopback OpenAI-compatible fixture (naive reads calls in
//! Python syntax from plain text; guided gets native tool calls), usage errors, and, when
//! the embedded model has been fetched, a deterministic rerun with the real model.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::PathBuf;

mod common;
use common::{completion, fixture};

fn toolwright() -> Command {
    common::toolwright()
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/sample.jsonl")
}

#[test]
fn naive_and_guided_over_an_openai_compatible_fixture() {
    let (url, seen) = fixture(vec![
        // naive: plain text in Python call syntax, a wrong city
        completion(json!({"role": "assistant", "content": "[get_weather(city='Lisbn')]"})),
        // guided: a native tool call, then the answer
        completion(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Lisbon\", \"unit\": \"celsius\"}"}}]})),
        completion(json!({"role": "assistant", "content": "Done."})),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = toolwright()
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "simple",
            "--limit",
            "1",
            "--provider",
            "openai",
        ])
        .args(["--model", "m", "--base-url", &url, "--json", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["mode"], "naive");
    assert_eq!(results[0]["score"]["correct"], false);
    assert_eq!(results[0]["score"]["error"], "wrong_value");
    assert_eq!(results[0]["calls"][0]["arguments"]["city"], "Lisbn");
    assert_eq!(results[1]["mode"], "guided");
    assert_eq!(results[1]["score"]["correct"], true);
    assert_eq!(report["reduction"], 1.0);
    // naive asked with the baseline's system prompt and no native tools
    let requests = seen.join().unwrap();
    let first = &requests[0];
    assert!(first.get("tools").is_none_or(Value::is_null), "{first}");
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are an expert in composing functions."));
    assert!(system.contains("\"name\": \"get_weather\""));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && page.contains("Failing cases (1)"));
}

#[test]
fn usage_errors_exit_2() {
    let out = toolwright()
        .args(["eval", "--dataset"])
        .arg(sample())
        .args([
            "--category",
            "no_such_category",
            "--provider",
            "openai",
            "--model",
            "m",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no task matches"));
    let out = toolwright().args(["eval"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// With the embedded model (after `toolwright model fetch`): both modes run on the sample and a
/// rerun gives the same report, apart from timings.
#[test]
fn the_embedded_model_reruns_deterministically() {
    let model = toolwright_agent_model()
        .expect("no embedded model: run `toolwright model fetch` (the README's test command does)");
    let run = || {
        let out = toolwright()
            .args(["eval", "--dataset"])
            .arg(sample())
            .args(["--category", "simple,irrelevance", "--json", "--model"])
            .arg(&model)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        strip_times(&mut v);
        v
    };
    let (a, b) = (run(), run());
    assert_eq!(a["results"].as_array().unwrap().len(), 4);
    assert_eq!(a, b);
}

fn strip_times(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.ends_with("_ms") && k != "wall_s");
            m.values_mut().for_each(strip_times);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_times),
        // transcripts that carry durations
        Value::String(s) if s.contains("_ms\"") => s.clear(),
        _ => {}
    }
}

fn toolwright_agent_model() -> Option<PathBuf> {
    toolwright_local::model::find_model().filter(|p| p.is_file())
}

fn mcp_dev_set() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../toolwright-eval/data/mcp")
}

/// `toolwright eval --dataset <the MCP dev set> ARGS --json`, which must succeed; its JSON.
fn eval_mcp_dev_set(args: &[&str]) -> Value {
    let out = toolwright()
        .args(["eval", "--dataset"])
        .arg(mcp_dev_set())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The MCP dev set's routing figures per scorer (needs the embedder: `toolwright model fetch`).
/// The floors guard against regressions; the measured figures are in the eval crate's README.
#[test]
fn eval_on_the_mcp_dev_set_reports_routing_per_scorer() {
    let v = eval_mcp_dev_set(&["--routing-only"]);
    let rows = v["routing"].as_array().unwrap();
    let scorers: Vec<&str> = rows.iter().map(|r| r["scorer"].as_str().unwrap()).collect();
    assert_eq!(scorers, ["bm25", "dense", "hybrid"], "{v:#}");
    let r5 = |i: usize| rows[i]["recall_at_5"].as_f64().unwrap();
    let r1 = |i: usize| rows[i]["recall_at_1"].as_f64().unwrap();
    assert!(
        r5(2) > r5(0) && r1(2) > r1(0),
        "hybrid must beat bm25: {v:#}"
    );
    assert!(r5(2) >= 0.8, "{v:#}");
    // The product's "no tool fits" rule, and rules fitted on one half measured on the other.
    let no_tool = &v["no_tool"];
    for rates in std::iter::once(&no_tool["default"]).chain(no_tool["held_out"].as_array().unwrap())
    {
        assert!(
            rates["refused_out_of_scope"].as_f64().unwrap() > 0.5,
            "{no_tool:#}"
        );
        assert!(
            rates["refused_in_scope"].as_f64().unwrap() <= 0.08,
            "{no_tool:#}"
        );
    }
    assert_eq!(
        no_tool["held_out"].as_array().unwrap().len(),
        2,
        "{no_tool:#}"
    );
    assert!(v.get("end_to_end").is_none());
}

/// A few requests end to end with the embedded model and its default settings.
#[test]
fn eval_on_the_mcp_dev_set_end_to_end_with_the_embedded_model() {
    let v = eval_mcp_dev_set(&[
        "--category",
        "time,none",
        "--limit",
        "3",
        "--mode",
        "guided",
    ]);
    let e = &v["end_to_end"];
    assert_eq!(e["in_scope"], 3, "{e:#}");
    assert_eq!(e["out_of_scope"], 3, "{e:#}");
    assert_eq!(e["rows"].as_array().unwrap().len(), 6);
    // The router ranks the time server's tools first for its requests, and the provider takes
    // the router's choice.
    assert!(e["right_tool"].as_f64().unwrap() >= 2.0 / 3.0, "{e:#}");
}

/// The demo queries of the README and the playground, on the embedded model with the hybrid
/// router and the product's "no tool fits" rule: each calls its tool (none is taken for out of
/// scope), and a question no demo tool answers gets no call.
#[test]
fn the_demo_queries_call_their_tools_on_the_embedded_model() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("Convert 100 USD to EUR", Some("convert_currency")),
        ("What is 17*23?", Some("calculate")),
        ("What's the weather in Paris?", Some("get_weather")),
        ("weather in Oslo", Some("get_weather")),
        ("Who are the admins in engineering?", Some("query_users")),
        (
            "Find the files whose name contains report",
            Some("search_files"),
        ),
        ("write a haiku about autumn leaves", None),
    ];
    let mut wrong = Vec::new();
    for (query, tool) in cases {
        let out = toolwright()
            .args([
                "--root",
                dir.path().to_str().unwrap(),
                "run",
                query,
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{query}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
        let first = trace["calls"][0]["call"]["name"]
            .as_str()
            .map(str::to_string);
        if first.as_deref() != tool {
            wrong.push(format!(
                "{query}: expected {tool:?}, got {first:?} ({})",
                trace["steps"]
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
